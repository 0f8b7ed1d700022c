//! Backtraces as gdb's `bt` lists them, for `rtrace break --bt` and
//! `rtrace watch --bt`: inlined frames expanded, the signal trampoline
//! named `<signal handler called>`, nothing below `main` unless asked
//! (gdb's `backtrace past-main`), no depth limit unless asked (`bt N`).
//!
//! Tail-call frames (a function that ended in a jump has no stack frame;
//! gdb synthesizes it from DWARF call sites) come from a [`TailCalls`]
//! lookup the caller passes ([`gdb_backtrace_with`]): DWARF variables are a
//! layer above this one.
//!
//! Non-goals: `backtrace past-entry`, negative `bt -N`.

use super::UnwoundFrame;
use crate::symbols::{Frame, ModuleMap, Symbolizer};

/// What gdb prints for the frame of a signal trampoline (`__restore_rt`):
/// the frame a signal handler returns to.
pub const SIGNAL_HANDLER_CALLED: &str = "<signal handler called>";

/// How much of a stack a backtrace shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Depth {
    /// At most this many frames, innermost first (`--bt=N`, gdb's `bt N`,
    /// inlined frames counted as gdb counts them); `None`: all.
    pub limit: Option<usize>,
    /// Go on below `main` (`__libc_start_call_main`, `_start`), as gdb's
    /// `set backtrace past-main on`.
    pub past_main: bool,
}

impl Depth {
    /// How many frames to unwind (each gives at least one line).
    pub fn max_unwound(&self) -> usize {
        self.limit.unwrap_or(usize::MAX)
    }
}

/// One line of a gdb-style backtrace.
#[derive(Debug, Clone, PartialEq)]
pub enum BtFrame {
    /// A function's frame (or an inlined call in one).
    Code(Frame),
    /// A signal trampoline: the handler above it was called by the kernel
    /// for a signal that interrupted the frame below it.
    SignalHandlerCalled,
}

impl BtFrame {
    /// The function's name as gdb prints it in a `bt` line (`??` when
    /// unknown).
    pub fn function(&self) -> &str {
        match self {
            BtFrame::Code(f) => f.function.as_deref().unwrap_or("??"),
            BtFrame::SignalHandlerCalled => SIGNAL_HANDLER_CALLED,
        }
    }
}

impl std::fmt::Display for BtFrame {
    /// `func+0xoff (file:line) [module]` as [`Frame`] renders it, or
    /// `<signal handler called>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BtFrame::Code(fr) => fr.fmt(f),
            BtFrame::SignalHandlerCalled => f.write_str(SIGNAL_HANDLER_CALLED),
        }
    }
}

/// The tail-call frames between a frame in function `callee` (its name)
/// and the caller that resumes at return address `ret`: their pcs,
/// innermost first (empty when there were none).
pub type TailCalls<'a> = &'a mut dyn FnMut(&str, u64) -> Vec<u64>;

/// The lines gdb's `bt` would print for `frames` (from the unwinder),
/// within `depth`, without tail-call frames.
pub fn gdb_backtrace(
    symbols: &Symbolizer,
    map: &ModuleMap,
    frames: &[UnwoundFrame],
    depth: Depth,
) -> Vec<BtFrame> {
    gdb_backtrace_with(symbols, map, frames, depth, &mut |_, _| Vec::new())
}

/// [`gdb_backtrace`] with the frames of tail calls `tails` finds between
/// each frame and its caller.
pub fn gdb_backtrace_with(
    symbols: &Symbolizer,
    map: &ModuleMap,
    frames: &[UnwoundFrame],
    depth: Depth,
    tails: TailCalls<'_>,
) -> Vec<BtFrame> {
    gdb_backtrace_origins(symbols, map, frames, depth, tails, &mut |_| false)
        .into_iter()
        .map(|l| l.frame)
        .collect()
}

/// One line of a backtrace and where it comes from (what its arguments
/// are read in).
#[derive(Debug, Clone, PartialEq)]
pub struct BtLine {
    /// The line.
    pub frame: BtFrame,
    /// The index of the unwound frame it is in (for a tail-call frame: of
    /// the frame below it, its caller).
    pub unwound: usize,
    /// The pc of a tail-call frame, else `None`.
    pub tail_pc: Option<u64>,
    /// Which of the unwound frame's functions it is: 0 the innermost
    /// inlined call, the last the out-of-line function.
    pub inline: usize,
}

/// Whether an unwound frame is in the program's main function by what
/// the layers above know (DWARF's `DW_AT_main_subprogram`: Rust's
/// `krate::main`), beside the symbol `main`.
pub type IsMain<'a> = &'a mut dyn FnMut(&UnwoundFrame) -> bool;

/// [`gdb_backtrace_with`], each line with its origin; the backtrace ends
/// at a frame `is_main` names (unless past main) as at `main`.
pub fn gdb_backtrace_origins(
    symbols: &Symbolizer,
    map: &ModuleMap,
    frames: &[UnwoundFrame],
    depth: Depth,
    tails: TailCalls<'_>,
    is_main: IsMain<'_>,
) -> Vec<BtLine> {
    let mut out = Vec::new();
    // The out-of-line function of the frame before (the callee).
    let mut callee: Option<String> = None;
    for (i, f) in frames.iter().enumerate() {
        let line = |frame, tail_pc, inline| BtLine {
            frame,
            unwound: i,
            tail_pc,
            inline,
        };
        if f.signal_trampoline {
            out.push(line(BtFrame::SignalHandlerCalled, None, 0));
            callee = None;
            continue;
        }
        if let (Some(name), true) = (&callee, f.is_return_address) {
            // gdb lists a tail-call frame once, named after the innermost
            // function at its pc (no frames for the calls it is inlined in).
            for pc in tails(name, f.pc) {
                out.extend(
                    symbols
                        .symbolize_return_address(map, pc)
                        .into_iter()
                        .take(1)
                        .map(|fr| line(BtFrame::Code(fr), Some(pc), 0)),
                );
            }
        }
        let sym = if f.is_return_address {
            symbols.symbolize_return_address(map, f.pc)
        } else {
            symbols.symbolize(map, f.pc)
        };
        let is_main = sym
            .last()
            .is_some_and(|s| s.function.as_deref() == Some("main"))
            || is_main(f);
        callee = sym.last().and_then(|s| s.function.clone());
        out.extend(
            sym.into_iter()
                .enumerate()
                .map(|(k, fr)| line(BtFrame::Code(fr), None, k)),
        );
        if is_main && !depth.past_main {
            break;
        }
    }
    if let Some(n) = depth.limit {
        out.truncate(n);
    }
    out
}

/// [`gdb_backtrace_with`]'s lines rendered as text (what `--bt` prints
/// and its JSON lists).
pub fn gdb_backtrace_lines(
    symbols: &Symbolizer,
    map: &ModuleMap,
    frames: &[UnwoundFrame],
    depth: Depth,
    tails: TailCalls<'_>,
) -> Vec<String> {
    gdb_backtrace_with(symbols, map, frames, depth, tails)
        .iter()
        .map(BtFrame::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unwind::Recovery;

    fn frame(pc: u64, ret: bool, sig: bool) -> UnwoundFrame {
        UnwoundFrame {
            pc,
            sp: None,
            is_return_address: ret,
            signal_trampoline: sig,
            recovered_by: Recovery::Cfi,
        }
    }

    #[test]
    fn trampolines_are_named_and_limits_apply() {
        let frames = [
            frame(0x10, false, false),
            frame(0x20, true, true),
            frame(0x30, false, false),
            frame(0x40, true, false),
        ];
        let all = gdb_backtrace(
            &Symbolizer::new(),
            &ModuleMap::default(),
            &frames,
            Depth::default(),
        );
        let names: Vec<&str> = all.iter().map(BtFrame::function).collect();
        assert_eq!(names, ["??", SIGNAL_HANDLER_CALLED, "??", "??"]);
        assert_eq!(all[1].to_string(), "<signal handler called>");
        let two = Depth {
            limit: Some(2),
            past_main: false,
        };
        let cut = gdb_backtrace(&Symbolizer::new(), &ModuleMap::default(), &frames, two);
        assert_eq!(cut.len(), 2);
        assert_eq!(two.max_unwound(), 2);
        assert_eq!(Depth::default().max_unwound(), usize::MAX);
    }
}
