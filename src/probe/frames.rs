//! Backtraces as gdb's `bt` prints them, each frame with its function's
//! arguments: the one frame printer of `rtrace break --bt` and `rtrace
//! watch --bt`. A frame with DWARF for its function shows its parameters
//! after the name (`g(n=n@entry=5)+0x0 (t.c:18) [/bin/t]`), read with the
//! frames outside it, so a value at entry comes from the caller's call
//! site; a frame without DWARF is its `func+0xoff` line alone.
//!
//! Scope: the frames and values; where they are printed (text, JSON) is the
//! tools' report modules.

use crate::engine::memory::Memory;
use crate::symbols::{function_base, Frame, ModuleMap, Symbolizer};
use crate::unwind::backtrace::{gdb_backtrace_origins, BtFrame, Depth};
use crate::unwind::{InitialRegs, Unwinder, UnwoundFrame};
use crate::value::text::{render_value, RenderOpts};
use crate::value::Value;
use crate::vars::{DecodeOpts, EntryValue, FrameRegs, VarDesc, Vars};

/// A variable's name, C type and value at a hit.
#[derive(Clone, Debug)]
pub struct Named {
    /// Its name.
    pub name: String,
    /// Its C type (`const char *`).
    pub ty: String,
    /// Its value (`<optimized out>` and unreadable memory are values too).
    pub value: Value,
    /// A parameter's value at its function's entry, when known.
    pub entry: Option<EntryValue>,
}

impl Named {
    /// A variable without an entry value.
    pub fn new(name: String, ty: String, value: Value) -> Named {
        Named {
            name,
            ty,
            value,
            entry: None,
        }
    }
}

/// One `--bt` line: the frame, and its function's arguments when there is
/// DWARF for it.
#[derive(Clone, Debug)]
pub struct BtEntry {
    /// `func+0xoff (file:line) [module]`.
    pub text: String,
    /// The arguments, in declaration order.
    pub args: Option<Vec<Named>>,
    /// Where the function's name ends in `text` (it may hold spaces:
    /// `f<int, char>`); `None`: at its first `+` or space.
    pub name_end: Option<usize>,
}

impl BtEntry {
    /// A line of text alone (no function, no arguments).
    pub fn plain(text: String) -> BtEntry {
        BtEntry {
            text,
            args: None,
            name_end: None,
        }
    }

    /// The text line: the arguments in parentheses after the function's
    /// name, `g(n=n@entry=5)+0x0 (t.c:18) [/bin/t]`.
    pub fn line(&self) -> String {
        let Some(args) = &self.args else {
            return self.text.clone();
        };
        let at = self
            .name_end
            .filter(|&n| self.text.is_char_boundary(n))
            .unwrap_or_else(|| self.text.find(['+', ' ']).unwrap_or(self.text.len()));
        let (name, rest) = self.text.split_at(at);
        format!("{name}({}){rest}", args_text(args))
    }
}

/// Whether DWARF's qualified name `dwarf` is the function the symbolizer
/// named `sym`: the same name once `sym`'s parameter list and return
/// type are dropped, or its last components (a function whose DWARF has
/// no linkage name is symbolized by its bare `DW_AT_name`).
fn same_function(dwarf: &str, sym: &str) -> bool {
    let base = function_base(sym);
    dwarf == sym || dwarf == base || dwarf.ends_with(&format!("::{base}"))
}

/// A variable's value as text.
pub fn named_text(n: &Named) -> String {
    let mut s = String::new();
    render_value(&mut s, &n.value, &RenderOpts::default());
    s
}

/// Arguments as gdb's frame lines show them: `n=5`, `n=n@entry=5`,
/// `n=6, n@entry=5`.
pub fn args_text(args: &[Named]) -> String {
    let one = |a: &Named| match &a.entry {
        None => format!("{}={}", a.name, named_text(a)),
        Some(EntryValue::Same) => format!("{0}={0}@entry={1}", a.name, named_text(a)),
        Some(EntryValue::Differs(v)) => {
            let mut e = String::new();
            render_value(&mut e, v, &RenderOpts::default());
            format!("{0}={1}, {0}@entry={e}", a.name, named_text(a))
        }
    };
    args.iter().map(one).collect::<Vec<_>>().join(", ")
}

/// A variable's JSON object: `{"name","type","value"}`, the value in
/// rtrace's JSON value form.
#[derive(serde::Serialize)]
struct NamedJson<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'a str,
    value: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<&'a Value>,
}

/// Variables as a JSON array of [`NamedJson`].
pub struct NamedList<'a>(pub &'a [Named]);

impl serde::Serialize for NamedList<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|n| NamedJson {
            name: &n.name,
            ty: &n.ty,
            value: &n.value,
            entry: match &n.entry {
                Some(EntryValue::Same) => Some(&n.value),
                Some(EntryValue::Differs(v)) => Some(v),
                None => None,
            },
        }))
    }
}

/// `bt_args`: per `--bt` frame its arguments, or null.
pub struct BtArgs<'a>(pub &'a [BtEntry]);

impl serde::Serialize for BtArgs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|b| b.args.as_deref().map(NamedList)))
    }
}

/// Parameter `v` of the function at `stack[0]` read with its callers:
/// its value and, when known, its value at entry.
pub fn param(
    vars: &Vars,
    map: &ModuleMap,
    v: &VarDesc,
    stack: &[FrameRegs],
    mem: &mut dyn Memory,
) -> Named {
    let p = vars.read_param(map, v, stack, mem, DecodeOpts::default());
    Named {
        name: v.name.clone(),
        ty: v.ty.name(),
        value: p.value.unwrap_or_else(|e| e.to_value()),
        entry: p.entry,
    }
}

/// Frames unwound past the last line shown, for its values at entry (its
/// callers' call sites).
const BT_CALLERS: usize = 4;

/// What a backtrace is read from.
pub struct Stack<'a> {
    /// Symbols of the process's modules.
    pub sym: &'a Symbolizer,
    /// DWARF variables (shares `sym`'s parsed modules).
    pub vars: &'a Vars,
    /// The process's modules.
    pub map: &'a ModuleMap,
}

impl Stack<'_> {
    /// The frames of a thread stopped with registers `init`, innermost
    /// first, unwound by DWARF CFI (frame pointers where there is none)
    /// through `mem`, each with its function's arguments where there is
    /// DWARF for it. Also whether a frame's pc lay outside every module of
    /// the map (a library mapped since it was read).
    pub fn backtrace(
        &self,
        unwinder: &mut Unwinder,
        init: &InitialRegs,
        mem: &mut dyn Memory,
        depth: Depth,
    ) -> (Vec<BtEntry>, bool) {
        let (sym, vars, map) = (self.sym, self.vars, self.map);
        let max = depth.max_unwound().saturating_add(BT_CALLERS);
        let states = unwinder.unwind_states(sym, map, init, mem, max);
        let frames: Vec<_> = states.iter().map(|s| s.frame).collect();
        let unmapped = frames.iter().any(|f| map.find(f.pc).is_none());
        let mut tails = |callee: &str, ret: u64| vars.tail_call_frames(map, callee, ret);
        // gdb's main is the function DWARF flags as the program's main
        // (`DW_AT_main_subprogram`: Rust's `krate::main`), else `main`.
        let mut is_main = |f: &UnwoundFrame| {
            let pc = f.pc.wrapping_sub(u64::from(f.is_return_address));
            vars.scope(map, pc)
                .and_then(|s| s.frames.last().map(|f| f.main_subprogram))
                .unwrap_or(false)
        };
        let lines = gdb_backtrace_origins(sym, map, &frames, depth, &mut tails, &mut is_main);
        let stack = vars.stack_frames(map, &states);
        let regs_of: Vec<FrameRegs> = stack.iter().map(|s| s.regs.clone()).collect();
        let entries = lines
            .into_iter()
            .map(|l| {
                let k = stack
                    .iter()
                    .position(|s| s.unwound == l.unwound && s.tail_pc == l.tail_pc);
                let mut entry = BtEntry::plain(l.frame.to_string());
                let (BtFrame::Code(f), Some(k)) = (&l.frame, k) else {
                    return entry;
                };
                let scope = vars.scope(map, regs_of[k].lookup_pc());
                let Some(sf) = scope.and_then(|s| s.frames.into_iter().nth(l.inline)) else {
                    return entry;
                };
                let (Some(dwarf), Some(name)) = (&sf.function, &f.function) else {
                    return entry;
                };
                if !same_function(dwarf, name) {
                    return entry;
                }
                // gdb names the frame by DWARF: `ns::Shape::area`, not the
                // symbol's `ns::Shape::area(int) const`.
                let named = Frame {
                    function: Some(dwarf.clone()),
                    ..f.clone()
                };
                entry.text = named.to_string();
                entry.name_end = Some(dwarf.len());
                entry.args = Some(
                    sf.params
                        .iter()
                        .map(|v| param(vars, map, v, &regs_of[k..], mem))
                        .collect(),
                );
                entry
            })
            .collect();
        (entries, unmapped)
    }
}
