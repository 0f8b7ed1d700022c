//! What a breakpoint hit can show and test: registers and `$argN`
//! ([`RegValues`]), the frame's DWARF arguments and locals ([`HitFrame`]),
//! and both together for conditions ([`DwarfValues`]).

use super::report::{FrameVals, Named};
use crate::engine::ptrace::Tid;
pub use crate::probe::cond::RegValues;
use crate::probe::cond::{EvalError, Expr as CondExpr, FrameValues, ValueProvider};
use crate::probe::frames::param;
use crate::symbols::ModuleMap;
use crate::unwind::trap::Unhijacked;
use crate::unwind::Unwinder;
use crate::value::Value;
use crate::vars::{FrameRegs, PathError, Vars};
use rtrace_arch::x86_64::PC;

/// The DWARF view of one stopped thread at a hit: the innermost frame
/// (registers and CFA) is computed on first use, so hits that need no
/// variable cost no CFI lookup.
pub struct HitFrame<'a> {
    vars: &'a Vars,
    map: &'a ModuleMap,
    unwinder: &'a mut Unwinder,
    /// Tracee memory (return addresses rtrace replaced read as the
    /// originals, so callers unwind).
    mem: Unhijacked,
    /// Registers as stopped (pc past the INT3).
    regs: &'a [u64],
    /// The breakpoint address.
    addr: u64,
    frame: Option<FrameRegs>,
}

impl<'a> HitFrame<'a> {
    /// The frame of thread `tid` stopped at breakpoint `addr` with `regs`,
    /// return addresses in stack slots `hijacked` replaced (slot,
    /// original).
    pub fn new(
        vars: &'a Vars,
        map: &'a ModuleMap,
        unwinder: &'a mut Unwinder,
        (tid, hijacked): (Tid, Vec<(u64, u64)>),
        addr: u64,
        regs: &'a [u64],
    ) -> HitFrame<'a> {
        HitFrame {
            vars,
            map,
            unwinder,
            mem: Unhijacked::new(tid, hijacked),
            regs,
            addr,
            frame: None,
        }
    }

    fn frame(&mut self) -> FrameRegs {
        if self.frame.is_none() {
            let mut at = self.regs.to_vec();
            at[PC] = self.addr;
            let init = crate::unwind::from_prstatus_x86_64(&at);
            self.frame = Some(
                self.vars
                    .innermost(self.unwinder, self.map, init, &mut self.mem),
            );
        }
        self.frame.clone().expect("set above")
    }

    /// The frame's canonical frame address, from the CFI.
    pub fn cfa(&mut self) -> Option<u64> {
        self.frame().cfa
    }

    /// The integer value of a variable path, for conditions.
    pub fn scalar(&mut self, path: &str) -> Result<i64, EvalError> {
        let frame = self.frame();
        FrameValues {
            vars: self.vars,
            map: self.map,
            frame: &frame,
            mem: &mut self.mem,
        }
        .variable(path)
    }

    /// `--print EXPR` at this hit: a variable path by its DWARF type, else
    /// the expression's integer value; an error is shown as the value.
    pub fn print(&mut self, regs: &[u64], text: &str, expr: &CondExpr) -> Named {
        if let CondExpr::Var(path) = expr {
            let frame = self.frame();
            match self
                .vars
                .lookup_typed(self.map, &frame, &mut self.mem, path)
            {
                Ok((value, ty)) => return Named::new(text.to_string(), ty, value),
                // An enumerator name: the integer below.
                Err(PathError::NotFound(_)) => {}
                Err(e) => return print_error(text, e),
            }
        }
        let mut values = DwarfValues {
            regs: RegValues {
                regs,
                args: None,
                at_return: false,
            },
            frame: self,
        };
        print_int(text, expr.eval(&mut values))
    }

    /// The function at the pc (the innermost, inlined one if any), its
    /// parameters and, with `locals`, its visible locals; `None` without
    /// DWARF for the pc.
    pub fn values(&mut self, locals: bool) -> Option<(FrameVals, Vec<Named>)> {
        let frame = self.frame();
        let scope = self.vars.scope(self.map, frame.lookup_pc())?;
        let f = scope.frames.into_iter().next()?;
        // Optimized code: the callers, for values at entry.
        let stack: Vec<FrameRegs> = if f.params.iter().any(|v| self.vars.needs_callers(v)) {
            let mut at = self.regs.to_vec();
            at[PC] = self.addr;
            let init = crate::unwind::from_prstatus_x86_64(&at);
            self.vars
                .stack(self.unwinder, self.map, &init, &mut self.mem, MAX_CALLERS)
                .into_iter()
                .map(|s| s.regs)
                .collect()
        } else {
            vec![frame.clone()]
        };
        let args = f
            .params
            .iter()
            .map(|v| param(self.vars, self.map, v, &stack, &mut self.mem))
            .collect();
        let locs = if locals {
            let mut read = |v: &crate::vars::VarDesc| {
                let value = self.vars.read(v, &frame, &mut self.mem);
                Named::new(
                    v.name.clone(),
                    v.ty.name(),
                    value.unwrap_or_else(|e| e.to_value()),
                )
            };
            f.locals.iter().map(&mut read).collect()
        } else {
            Vec::new()
        };
        let function = f.function.unwrap_or_else(|| "??".to_string());
        Some((FrameVals { function, args }, locs))
    }
}

/// Frames unwound for the values at entry of a hit's parameters (each
/// caller's call value may need its own caller's).
const MAX_CALLERS: usize = 10;

/// `--print EXPR` where only registers are known (`ret:` probes).
pub fn print_regs(values: &mut RegValues<'_>, text: &str, expr: &CondExpr) -> Named {
    match expr.eval(values) {
        Err(EvalError::NoVariables(v)) => print_error(
            text,
            format!("variable '{v}': a ret: probe has registers, $argN and $retval only"),
        ),
        v => print_int(text, v),
    }
}

fn print_int(text: &str, v: Result<i64, EvalError>) -> Named {
    match v {
        Ok(n) => Named::new(text.to_string(), "long".to_string(), Value::Int(n)),
        Err(e) => print_error(text, e),
    }
}

fn print_error(text: &str, e: impl std::fmt::Display) -> Named {
    Named::new(
        text.to_string(),
        String::new(),
        Value::sym_owned(format!("<{e}>")),
    )
}

/// Condition values at an entry hit: registers and `$argN` from
/// [`RegValues`], program variables from DWARF through [`HitFrame`].
pub struct DwarfValues<'r, 'f> {
    /// Registers.
    pub regs: RegValues<'r>,
    /// The frame variables are read in.
    pub frame: &'r mut HitFrame<'f>,
}

impl ValueProvider for DwarfValues<'_, '_> {
    fn dollar(&mut self, name: &str) -> Result<i64, EvalError> {
        self.regs.dollar(name)
    }

    fn variable(&mut self, name: &str) -> Result<i64, EvalError> {
        self.frame.scalar(name)
    }
}
