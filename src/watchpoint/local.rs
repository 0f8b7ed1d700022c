//! Watching a local variable, `rtrace watch func:var`, as gdb's `watch var`
//! inside `func`: the variable has an address only while an activation of
//! `func` runs, so the watch follows the activations.
//!
//! - Waiting: every thread's debug registers hold an execute watchpoint on
//!   `func`'s first instruction (no code is changed).
//! - Entered (that hook fired in thread T): the variable is placed in this
//!   activation by DWARF (`DW_AT_location`, `DW_OP_fbreg` over the CFA)
//!   and T's registers get the data watch plus an execute watchpoint on the
//!   return address, where the caller resumes.
//! - Left: the return-address hook fires with the stack pointer at or
//!   above the activation's CFA (a deeper activation returning to the same
//!   address, in recursion through the caller, has it below): reported as
//!   gdb's "Watchpoint N deleted because the program has left the block in
//!   which its expression is valid", and T goes back to waiting, so the
//!   next call is watched again.
//!
//! Limits: one activation at a time (a nested call of `func` in the same
//! thread, or a call in another thread while one is watched, is not
//! watched); the variable must be in memory at the function's entry
//! (unoptimized code: a register variable cannot be watched by address).

use super::hwregs::DebugRegs;
use super::resolve::FileSymbol;
use super::spec::{Expr, Piece, Watch};
use crate::engine::ptrace::Tid;
use rtrace_arch::x86_debugreg::{Kind, Slot};

/// A `func:var` watch.
pub struct LocalWatch {
    /// The function.
    pub func: FileSymbol,
    /// The variable.
    pub var: String,
    /// The function's runtime entry address.
    pub entry: u64,
    /// The activation being watched.
    pub frame: Option<Frame>,
}

/// One watched activation.
pub struct Frame {
    /// The thread running it.
    pub tid: Tid,
    /// Its canonical frame address: the caller's stack pointer after the
    /// return.
    pub cfa: u64,
    /// The return address.
    pub ret: u64,
    /// The return-address hook's slot.
    pub ret_slot: Slot,
    /// The thread's register image while it runs: the data watch and the
    /// return hook.
    pub regs: DebugRegs,
}

/// An execute watchpoint on `addr` in `slot` (not a user's watch: id 0).
pub fn exec_hook(addr: u64, slot: Slot) -> Watch {
    Watch {
        id: 0,
        expr: Expr::Addr { addr, len: Some(1) },
        addr,
        len: 1,
        kind: Kind::Exec,
        pieces: vec![Piece { slot, addr, len: 1 }],
    }
}
