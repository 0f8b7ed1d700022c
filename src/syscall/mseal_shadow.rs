//! Memory calls added since strace 6.1: mseal (Linux 6.10) and
//! map_shadow_stack (Linux 6.6).

use crate::syscall::printers::{xflags, xint};
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] =
    &[("mseal", mseal), ("map_shadow_stack", map_shadow_stack)];

/// `mseal(addr, len, flags)`: no flag is defined yet.
fn mseal(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.push(Value::UInt(c.arg_ulong(1)));
    c.push(xint(c.arg_ulong(2)));
    Step::Done(RetFmt::Int)
}

/// `map_shadow_stack(addr, size, flags)`: returns an address.
fn map_shadow_stack(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.push(Value::UInt(c.arg_ulong(1)));
    let v = xflags(
        c,
        c.arg(2) as u32 as u64,
        &xlat::SHADOW_STACK_FLAGS,
        "SHADOW_STACK_???",
    );
    c.push(v);
    Step::Done(RetFmt::Hex)
}
