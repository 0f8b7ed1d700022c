//! The decoder of last resort: every argument in hex, as strace prints a
//! syscall it has no decoder for.

use crate::syscall::{Ctx, Entry, RetFmt, Step};

/// Prints `entry.nargs` arguments in hex.
pub fn decode(entry: &Entry, ctx: &mut Ctx) -> Step {
    for i in 0..entry.nargs as usize {
        ctx.hex(i);
    }
    if ctx.opts.raw {
        Step::Done(RetFmt::Hex)
    } else {
        Step::Done(RetFmt::Int)
    }
}
