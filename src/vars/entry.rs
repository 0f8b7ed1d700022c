//! Values at function entry (`DW_OP_entry_value`), as gdb finds them: a
//! register's value when the function was entered is what the caller's
//! call site (`DW_TAG_call_site` at the caller frame's return address,
//! naming this function) says it passed in that register
//! (`DW_TAG_call_site_parameter`, its `DW_AT_call_value` evaluated in the
//! caller's frame, which may itself ask for the caller's entry values).
//!
//! A parameter then has two values gdb prints side by side (its default
//! `print entry-values`): the current one and, when its location at the
//! function's entry is one register the caller's call site describes, the
//! one at entry ([`ParamValue`]).
//!
//! Like gdb, no entry value is trusted for a function that can reach
//! itself through tail calls, and a call site must name the function
//! (indirect calls with `DW_AT_call_target` give none). Non-goals:
//! parameters passed on the stack (`DW_OP_fbreg` call-site locations),
//! `DW_AT_call_data_value` (what a reference parameter pointed to),
//! entry values of inlined calls' parameters.

use crate::engine::memory::Memory;
use crate::symbols::{ModuleMap, Reader};
use crate::unwind::{FrameState, InitialRegs, Unwinder};
use crate::value::Value;
use crate::vars::callsite::{single_register, sites_of_function_at};
use crate::vars::location::{EntryValues, Env, Loc};
use crate::vars::module::ModVars;
use crate::vars::{read_raw, DecodeOpts, FrameRegs, VarDesc, VarError, Vars};
use gimli::{Expression, Location};
use std::sync::Arc;

/// Callers followed for one entry value (a call value may ask for the
/// caller's own entry values).
const MAX_CALLER_DEPTH: usize = 8;
/// Functions visited looking for a tail-call path back to a function.
const MAX_TAIL_VISITS: usize = 256;

/// A parameter's value at entry, next to its current one.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryValue {
    /// The same bytes as the current value: gdb's `n=n@entry=5`.
    Same,
    /// Another value: gdb's `n=6, n@entry=5`.
    Differs(Value),
}

/// A parameter read in a frame with its callers.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamValue {
    /// Its current value, or why there is none.
    pub value: Result<Value, VarError>,
    /// Its value at the function's entry, when the caller tells it.
    pub entry: Option<EntryValue>,
}

/// One frame of a stack as entry values walk it: a frame the unwinder
/// found or a tail-call frame synthesized from call sites.
#[derive(Debug, Clone)]
pub struct StackFrame {
    /// The index of the unwound frame (a tail-call frame has the index of
    /// the frame below it, its caller).
    pub unwound: usize,
    /// The pc of a tail-call frame (after its jump), else `None`.
    pub tail_pc: Option<u64>,
    /// Its registers.
    pub regs: FrameRegs,
}

impl StackFrame {
    /// The unwound frame `i` with its registers.
    pub fn unwound(i: usize, s: &FrameState) -> StackFrame {
        StackFrame {
            unwound: i,
            tail_pc: None,
            regs: FrameRegs::from_state(s),
        }
    }

    /// The tail-call frame at `pc` above unwound frame `i` (its caller,
    /// whose registers it shares: a jump changes none gdb knows of).
    pub fn tail(i: usize, s: &FrameState, pc: u64) -> StackFrame {
        let mut regs = FrameRegs::from_state(s);
        regs.regs.pc = pc;
        regs.cfa = None;
        regs.is_return_address = true;
        StackFrame {
            unwound: i,
            tail_pc: Some(pc),
            regs,
        }
    }
}

/// The frames from one frame outwards: `stack[0]` and its callers.
pub(crate) struct Callers<'a> {
    vars: &'a Vars,
    map: &'a ModuleMap,
    stack: &'a [FrameRegs],
}

impl EntryValues for Callers<'_> {
    fn entry_value(
        &self,
        expr: &Expression<Reader>,
        mem: &mut dyn Memory,
    ) -> Result<u64, VarError> {
        let callee = self.stack.first().ok_or(VarError::OptimizedOut)?;
        let (m, _) = self.module_at(callee.lookup_pc())?;
        let encoding = m.units.first().ok_or(VarError::Corrupt)?.unit.encoding();
        let reg = single_register(expr, encoding).ok_or(VarError::OptimizedOut)?;
        // gdb: a missing entry value reads as optimized out.
        self.reg_at_entry(reg, mem)
            .map_err(|_| VarError::OptimizedOut)
    }
}

impl Callers<'_> {
    fn module_at(&self, pc: u64) -> Result<(Arc<ModVars>, u64), VarError> {
        let mapping = self.map.find(pc).ok_or(VarError::OptimizedOut)?;
        self.vars
            .module(self.map, mapping)
            .ok_or(VarError::OptimizedOut)
    }

    /// DWARF register `reg` of `stack[0]`'s function at its entry.
    fn reg_at_entry(&self, reg: u16, mem: &mut dyn Memory) -> Result<u64, VarError> {
        let [callee, caller, ..] = self.stack else {
            return Err(VarError::OptimizedOut);
        };
        if !caller.is_return_address {
            return Err(VarError::OptimizedOut);
        }
        let name = self
            .vars
            .scope(self.map, callee.lookup_pc())
            .and_then(|s| s.frames.last()?.function.clone())
            .ok_or(VarError::OptimizedOut)?;
        let (m, bias) = self.module_at(caller.regs.pc)?;
        let vret = caller.regs.pc.wrapping_sub(bias);
        let sites = sites_of_function_at(&m, vret.wrapping_sub(1));
        let site = sites
            .iter()
            .find(|s| s.ret == vret && s.callee.as_deref() == Some(name.as_str()))
            .ok_or(VarError::OptimizedOut)?;
        let (_, value) = site
            .params
            .iter()
            .find(|p| p.0 == reg)
            .ok_or(VarError::OptimizedOut)?;
        if self.tail_calls_itself(caller.regs.pc, &m, &name) {
            return Err(VarError::OptimizedOut);
        }
        let scope = m.scope_cached(caller.lookup_pc().wrapping_sub(bias), || {
            crate::vars::scope::build(&m, caller.lookup_pc().wrapping_sub(bias))
        });
        let frame_base = scope.frames.last().and_then(|f| f.frame_base.clone());
        let next = Callers {
            vars: self.vars,
            map: self.map,
            stack: &self.stack[1..self.stack.len().min(MAX_CALLER_DEPTH + 1)],
        };
        let env = Env {
            m: &m,
            unit: site.unit,
            frame: caller,
            bias,
            frame_base: frame_base.as_deref(),
            callers: Some(&next),
        };
        // A call value is a value: what the expression leaves on the stack
        // (gimli reports it as an address unless it ends in
        // DW_OP_stack_value).
        let pieces = env.evaluate(value, mem, 0)?;
        match pieces.as_slice() {
            [one] if one.size_in_bits.is_none() => match &one.location {
                Location::Address { address } => Ok(*address),
                Location::Value { value } => value.to_u64(u64::MAX).map_err(|_| VarError::Corrupt),
                Location::Register { register } => {
                    caller.regs.get(register.0).ok_or(VarError::OptimizedOut)
                }
                _ => Err(VarError::OptimizedOut),
            },
            _ => Err(VarError::OptimizedOut),
        }
    }

    /// Whether function `name` (in the module mapped at `pc`) can reach
    /// itself through tail calls: gdb trusts no entry value then, as the
    /// caller's call site may be for another activation.
    fn tail_calls_itself(&self, pc: u64, m: &ModVars, name: &str) -> bool {
        let Some(mapping) = self.map.find(pc) else {
            return false;
        };
        let path = std::path::Path::new(&mapping.path);
        let mut todo = vec![name.to_string()];
        let mut seen = std::collections::HashSet::new();
        while let Some(f) = todo.pop() {
            if seen.len() > MAX_TAIL_VISITS || !seen.insert(f.clone()) {
                continue;
            }
            let Some(&(_, start, _)) = self.vars.symbols.lookup(path, &f).iter().find(|x| x.0 == f)
            else {
                continue;
            };
            for s in sites_of_function_at(m, start) {
                match s.callee {
                    Some(c) if s.tail && c == name => return true,
                    Some(c) if s.tail => todo.push(c),
                    _ => {}
                }
            }
        }
        false
    }
}

impl Vars {
    /// Parameter `var` (of the scope at `stack[0]`'s pc) in `stack[0]`,
    /// whose callers are `stack[1..]`: its current value (through
    /// `DW_OP_entry_value` where its location needs it) and its value at
    /// the function's entry, as gdb's `bt` shows both.
    pub fn read_param(
        &self,
        map: &ModuleMap,
        var: &VarDesc,
        stack: &[FrameRegs],
        mem: &mut dyn Memory,
        opts: DecodeOpts,
    ) -> ParamValue {
        let Some(frame) = stack.first() else {
            return ParamValue {
                value: Err(VarError::OptimizedOut),
                entry: None,
            };
        };
        let callers = Callers {
            vars: self,
            map,
            stack,
        };
        let decode = |bytes: &[u8], known: Option<&[bool]>, mem: &mut dyn Memory| {
            crate::vars::decode::Decoder::new(&var.ty.m, Some(mem), opts)
                .value(var.ty.r, bytes, known, 0)
        };
        let raw = read_raw(var, frame, mem, Some(&callers));
        let entry = self.entry_bytes(var, &callers, mem).map(|b| match &raw {
            Ok(r) if r.known.is_none() && r.bytes == b => EntryValue::Same,
            _ => EntryValue::Differs(decode(&b, None, mem)),
        });
        let value = raw.map(|r| decode(&r.bytes, r.known.as_deref(), mem));
        ParamValue { value, entry }
    }

    /// Whether reading `var` may need its frame's callers (an optimized
    /// function's parameter: a location list or a register location), so
    /// a caller unwinds them only then.
    pub fn needs_callers(&self, var: &VarDesc) -> bool {
        match &var.data.loc {
            Loc::List(_) => true,
            Loc::Expr(e) => {
                let u = var.ty.m.units.get(var.data.die.unit);
                u.is_some_and(|u| single_register(e, u.unit.encoding()).is_some())
            }
            Loc::None | Loc::Const(_) => false,
        }
    }

    /// The bytes `var` had at its function's entry: its location there is
    /// one register, which the caller's call site describes.
    fn entry_bytes(
        &self,
        var: &VarDesc,
        callers: &Callers<'_>,
        mem: &mut dyn Memory,
    ) -> Option<Vec<u8>> {
        let at = var.entry_pc?;
        let expr = var.data.loc.at(at)?;
        let encoding = var.ty.m.units.get(var.data.die.unit)?.unit.encoding();
        let reg = single_register(expr, encoding)?;
        let size = usize::try_from(var.ty.size()?).ok()?;
        if size == 0 || size > 8 {
            return None;
        }
        let v = callers.reg_at_entry(reg, mem).ok()?;
        Some(v.to_le_bytes()[..size].to_vec())
    }

    /// At most `max` frames of the stack of a thread stopped with `regs`
    /// ([`Vars::stack_frames`] of the unwound states), innermost first.
    pub fn stack(
        &self,
        unwinder: &mut Unwinder,
        map: &ModuleMap,
        regs: &InitialRegs,
        mem: &mut dyn Memory,
        max: usize,
    ) -> Vec<StackFrame> {
        let states = unwinder.unwind_states(&self.symbols, map, regs, mem, max);
        self.stack_frames(map, &states)
    }

    /// The stack entry values walk for `states` (from
    /// [`crate::unwind::Unwinder::unwind_states`]): each unwound frame,
    /// preceded by the tail-call frames [`Vars::tail_call_frames`] finds
    /// between it and the frame before.
    pub fn stack_frames(&self, map: &ModuleMap, states: &[FrameState]) -> Vec<StackFrame> {
        let mut out = Vec::new();
        let mut callee: Option<String> = None;
        for (i, s) in states.iter().enumerate() {
            if let (Some(name), true) = (&callee, s.frame.is_return_address) {
                for pc in self.tail_call_frames(map, name, s.frame.pc) {
                    out.push(StackFrame::tail(i, s, pc));
                }
            }
            out.push(StackFrame::unwound(i, s));
            let at = s
                .frame
                .pc
                .wrapping_sub(u64::from(s.frame.is_return_address));
            callee = if s.frame.signal_trampoline {
                None
            } else {
                self.scope(map, at)
                    .and_then(|sc| sc.frames.last()?.function.clone())
            };
        }
        out
    }
}
