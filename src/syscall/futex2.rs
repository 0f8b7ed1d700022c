//! The futex2 calls (Linux 6.7): futex_wake, futex_wait and futex_requeue,
//! whose flags are `FUTEX2_SIZE_U32|FUTEX2_PRIVATE` as strace 7.2 prints them.

use crate::syscall::array::array_at;
use crate::syscall::printers::{le32, le64, xint};
use crate::syscall::time::timespec_at;
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("futex_wake", futex_wake),
    ("futex_wait", futex_wait),
    ("futex_requeue", futex_requeue),
];

/// `FUTEX2_SIZE_MASK`.
const SIZE_MASK: u64 = 3;

/// The FUTEX2 flags: the size field always named, then the flag bits and
/// the unknown rest in hex (`FUTEX2_SIZE_U8|0x100`); raw hex under `-X raw`.
fn flags2_value(c: &Ctx, v: u64) -> Value {
    if c.opts.xlat_style == 1 {
        return xint(v);
    }
    let size = xlat::FUTEX2_SIZES.lookup(v & SIZE_MASK).unwrap_or("?");
    let (names, rest) = xlat::FUTEX2_FLAGS.split_flags(v & !SIZE_MASK);
    let mut s = size.to_string();
    for n in names {
        s.push('|');
        s.push_str(n);
    }
    if rest != 0 {
        s.push_str(&format!("|{rest:#x}"));
    }
    Value::sym_owned(s)
}

/// `FUTEX_BITSET_MATCH_ANY` or the mask in hex.
fn mask_value(c: &Ctx, v: u64) -> Value {
    match xlat::FUTEX_BITSET.lookup(v) {
        Some(_) => c.enum_value(v, &xlat::FUTEX_BITSET, ""),
        None => xint(v),
    }
}

/// `futex_wake(uaddr, mask, nr, flags)`.
fn futex_wake(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.push(mask_value(c, c.arg_ulong(1)));
    c.push(Value::Int(c.arg_int(2) as i64));
    c.push(flags2_value(c, c.arg(3) as u32 as u64));
    Step::Done(RetFmt::Int)
}

/// `futex_wait(uaddr, val, mask, flags, timeout, clockid)`.
fn futex_wait(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.push(Value::UInt(c.arg_ulong(1)));
    c.push(mask_value(c, c.arg_ulong(2)));
    c.push(flags2_value(c, c.arg(3) as u32 as u64));
    let t = timespec_at(c, c.arg_ulong(4));
    c.push(t);
    let clk = c.enum_value(c.arg(5) as u32 as u64, &xlat::CLOCKS, "CLOCK_???");
    c.push(clk);
    Step::Done(RetFmt::Int)
}

/// `futex_requeue(waiters[2], flags, nr_wake, nr_requeue)`.
fn futex_requeue(c: &mut Ctx) -> Step {
    let v = array_at(c, c.arg_ulong(0), 2, 24, |c, b| {
        let mut f = vec![
            Field::new("val", xint(le64(b, 0))),
            Field::new("uaddr", Value::Ptr(le64(b, 8))),
            Field::new("flags", flags2_value(c, le32(b, 16))),
        ];
        if le32(b, 20) != 0 {
            f.push(Field::new("__reserved", xint(le32(b, 20))));
        }
        Some(Value::structure(f))
    });
    c.push(v);
    // No flag is defined for the call itself: a number, as strace prints it.
    c.push(xint(c.arg(1) as u32 as u64));
    c.push(Value::Int(c.arg_int(2) as i64));
    c.push(Value::Int(c.arg_int(3) as i64));
    Step::Done(RetFmt::Int)
}
