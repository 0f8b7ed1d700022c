//! futex: the operation's name (`FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME`)
//! and exactly the arguments that operation uses, as strace prints them.

use crate::syscall::printers::xint;
use crate::syscall::time::timespec_at;
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] =
    &[("futex", futex), ("futex_time64", futex64)];

/// `FUTEX_PRIVATE_FLAG` and `FUTEX_CLOCK_REALTIME` (linux/futex.h).
const PRIVATE: u64 = 128;
const CLOCK_REALTIME: u64 = 256;
const CMD_MASK: u64 = 127;

/// The operation commands strace knows by name (`futexops`).
#[derive(Clone, Copy, PartialEq)]
enum Cmd {
    Wait,
    Wake,
    Fd,
    Requeue,
    CmpRequeue,
    WakeOp,
    LockPi,
    UnlockPi,
    TrylockPi,
    WaitBitset,
    WakeBitset,
    WaitRequeuePi,
    CmpRequeuePi,
    LockPi2,
    Other,
}

/// The command of a `futex_ops` name.
fn cmd_of(name: Option<&str>) -> Cmd {
    match name {
        Some("FUTEX_WAIT") => Cmd::Wait,
        Some("FUTEX_WAKE") => Cmd::Wake,
        Some("FUTEX_FD") => Cmd::Fd,
        Some("FUTEX_REQUEUE") => Cmd::Requeue,
        Some("FUTEX_CMP_REQUEUE") => Cmd::CmpRequeue,
        Some("FUTEX_WAKE_OP") => Cmd::WakeOp,
        Some("FUTEX_LOCK_PI") => Cmd::LockPi,
        Some("FUTEX_UNLOCK_PI") => Cmd::UnlockPi,
        Some("FUTEX_TRYLOCK_PI") => Cmd::TrylockPi,
        Some("FUTEX_WAIT_BITSET") => Cmd::WaitBitset,
        Some("FUTEX_WAKE_BITSET") => Cmd::WakeBitset,
        Some("FUTEX_WAIT_REQUEUE_PI") => Cmd::WaitRequeuePi,
        Some("FUTEX_CMP_REQUEUE_PI") => Cmd::CmpRequeuePi,
        Some("FUTEX_LOCK_PI2") => Cmd::LockPi2,
        _ => Cmd::Other,
    }
}

/// The name of a whole `futex_op` as strace's `futexops` table has it: the
/// command with `_PRIVATE` appended for `FUTEX_PRIVATE_FLAG` (but
/// `FUTEX_FD|FUTEX_PRIVATE_FLAG`), and `|FUTEX_CLOCK_REALTIME` for the wait
/// commands that accept it; `None` for anything else.
fn op_name(op: u64) -> Option<String> {
    if op & !(CMD_MASK | PRIVATE | CLOCK_REALTIME) != 0 {
        return None;
    }
    let base = xlat::FUTEX_OPS.lookup(op & CMD_MASK)?;
    let cmd = cmd_of(Some(base));
    let mut s = base.to_string();
    if op & PRIVATE != 0 {
        if cmd == Cmd::Fd {
            s.push_str("|FUTEX_PRIVATE_FLAG");
        } else {
            s.push_str("_PRIVATE");
        }
    }
    if op & CLOCK_REALTIME != 0 {
        if !matches!(cmd, Cmd::Wait | Cmd::WaitBitset | Cmd::WaitRequeuePi) {
            return None;
        }
        s.push_str("|FUTEX_CLOCK_REALTIME");
    }
    Some(s)
}

/// The `futex_op` argument in the `-X` style.
fn op_value(c: &Ctx, op: u64) -> Value {
    match (op_name(op), c.opts.xlat_style) {
        (_, 1) => xint(op),
        (Some(n), 2) => Value::Commented(Box::new(xint(op)), Cow::Owned(n)),
        (Some(n), _) => Value::sym_owned(n),
        (None, _) => Value::Commented(Box::new(xint(op)), Cow::Borrowed("FUTEX_???")),
    }
}

/// `FUTEX_BITSET_MATCH_ANY`, or the bitset in hex.
fn bitset_value(c: &Ctx, v: u64) -> Value {
    c.enum_value(v, &xlat::FUTEX_BITSET, "")
}

/// A constant in the `-X` style, as strace's `print_xlat`/`printxval`
/// print it inside an expression: the name, `0x4`, or `0x4 /* NAME */`.
fn styled(style: u8, v: u64, name: Option<&str>) -> String {
    match (name, style) {
        (Some(n), 0) => n.to_string(),
        (Some(n), 2) => format!("{} /* {n} */", hex0(v)),
        _ => hex0(v),
    }
}

/// `FUTEX_WAKE_OP`'s encoded operation:
/// `FUTEX_OP_SET<<28|0x1<<12|FUTEX_OP_CMP_GT<<24|0x1`.
fn wake_op_value(style: u8, v: u64) -> Value {
    let mut s = String::new();
    if (v >> 28) & 8 != 0 {
        s.push_str(&styled(style, 8, Some("FUTEX_OP_OPARG_SHIFT")));
        s.push_str("<<28|");
    }
    let op = (v >> 28) & 7;
    let name = xlat::FUTEX_WAKE_OPS.lookup(op);
    s.push_str(&styled(style, op, name));
    s.push_str("<<28");
    if name.is_none() && style != 1 {
        s.push_str(" /* FUTEX_OP_??? */");
    }
    s.push_str(&format!("|{}<<12", hex0((v >> 12) & 0xfff)));
    let cmp = (v >> 24) & 0xf;
    let name = xlat::FUTEX_WAKE_CMPS.lookup(cmp);
    s.push('|');
    s.push_str(&styled(style, cmp, name));
    s.push_str("<<24");
    if name.is_none() && style != 1 {
        s.push_str(" /* FUTEX_OP_CMP_??? */");
    }
    s.push_str(&format!("|{}", hex0(v & 0xfff)));
    Value::sym_owned(s)
}

/// C's `%#x`: `0` for zero.
fn hex0(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// The timeout argument: a `struct timespec` of `w`-byte fields.
fn timeout(c: &mut Ctx, w: usize) {
    let addr = c.arg_ulong(3);
    let v = if w == c.arch.word_size() {
        timespec_at(c, addr)
    } else {
        // futex_time64 on i386: a 64-bit timespec.
        match (addr, c.read_bytes(addr, 16)) {
            (0, _) => Value::Ptr(0),
            (_, Some(b)) => {
                let sec = i64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
                let nsec = u64::from_le_bytes(b[8..].try_into().unwrap_or([0; 8]));
                crate::syscall::printers::timespec_value(sec, nsec)
            }
            (_, None) => Value::Unreadable(addr),
        }
    };
    c.push(v);
}

/// `futex(uaddr, futex_op, val, timeout|val2, uaddr2, val3)`.
fn do_futex(c: &mut Ctx, w: usize) -> Step {
    c.ptr(0);
    let op = c.arg(1) as u32 as u64;
    let v = op_value(c, op);
    c.push(v);
    // Like strace, the arguments follow the command bits even when the
    // whole operation has no name.
    let cmd = cmd_of(xlat::FUTEX_OPS.lookup(op & CMD_MASK));
    let val3 = c.arg(5) as u32 as u64;
    match cmd {
        Cmd::Wait => {
            c.uint(2);
            timeout(c, w);
        }
        Cmd::LockPi | Cmd::LockPi2 => timeout(c, w),
        Cmd::WaitBitset => {
            c.uint(2);
            timeout(c, w);
            let v = bitset_value(c, val3);
            c.push(v);
        }
        Cmd::WakeBitset => {
            c.uint(2);
            let v = bitset_value(c, val3);
            c.push(v);
        }
        Cmd::Requeue => {
            c.uint(2);
            c.uint(3);
            c.ptr(4);
        }
        Cmd::CmpRequeue | Cmd::CmpRequeuePi => {
            c.uint(2);
            c.uint(3);
            c.ptr(4);
            c.push(Value::UInt(val3));
        }
        Cmd::WakeOp => {
            c.uint(2);
            c.uint(3);
            c.ptr(4);
            c.push(wake_op_value(c.opts.xlat_style, val3));
        }
        Cmd::WaitRequeuePi => {
            c.uint(2);
            timeout(c, w);
            c.ptr(4);
        }
        Cmd::Fd | Cmd::Wake => c.uint(2),
        Cmd::UnlockPi | Cmd::TrylockPi => {}
        Cmd::Other => {
            c.uint(2);
            c.ptr(3);
            c.ptr(4);
            c.push(xint(val3));
        }
    }
    Step::Done(RetFmt::Int)
}

/// `futex` with the personality's `struct timespec`.
fn futex(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_futex(c, w)
}

/// `futex_time64` (i386): a 64-bit `struct timespec`.
fn futex64(c: &mut Ctx) -> Step {
    do_futex(c, 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    const W: u64 = 0x5652_f680_61a0;
    /// Stands for "a pointer to {tv_sec=0, tv_nsec=1000}" in `f`'s arguments.
    const TS: u64 = 0xdead;

    fn f(args: &[u64], ret: i64) -> String {
        let mut m = FakeMemory::default();
        let mut a = args.to_vec();
        if a.len() > 3 && a[3] == TS {
            let mut ts = 0u64.to_le_bytes().to_vec();
            ts.extend_from_slice(&1000u64.to_le_bytes());
            a[3] = m.put(&ts);
        }
        run(futex, "futex", &a, ret, &mut m)
    }

    #[test]
    fn ops() {
        assert_eq!(
            f(&[W, 0x81, 1], 0),
            "futex(0x5652f68061a0, FUTEX_WAKE_PRIVATE, 1) = 0"
        );
        assert_eq!(
            f(&[W, 0x80, 1, TS, 0, 0], -11),
            "futex(0x5652f68061a0, FUTEX_WAIT_PRIVATE, 1, {tv_sec=0, tv_nsec=1000}) = -1 EAGAIN (Resource temporarily unavailable)"
        );
        assert_eq!(
            f(&[W, 0x189, 0, 0, 0, 0xffff_ffff], -110),
            "futex(0x5652f68061a0, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 0, NULL, FUTEX_BITSET_MATCH_ANY) = -1 ETIMEDOUT (Connection timed out)"
        );
        assert_eq!(
            f(&[W, 10, 1, 0, 0, 3], 0),
            "futex(0x5652f68061a0, FUTEX_WAKE_BITSET, 1, 0x3) = 0"
        );
        assert_eq!(
            f(&[W, 0x83, 1, 2, W, 0], 0),
            "futex(0x5652f68061a0, FUTEX_REQUEUE_PRIVATE, 1, 2, 0x5652f68061a0) = 0"
        );
        assert_eq!(
            f(&[W, 0x84, 1, 2, W, 0], 0),
            "futex(0x5652f68061a0, FUTEX_CMP_REQUEUE_PRIVATE, 1, 2, 0x5652f68061a0, 0) = 0"
        );
        assert_eq!(
            f(&[W, 0x85, 1, 1, W, 0x0400_1001], 0),
            "futex(0x5652f68061a0, FUTEX_WAKE_OP_PRIVATE, 1, 1, 0x5652f68061a0, FUTEX_OP_SET<<28|0x1<<12|FUTEX_OP_CMP_GT<<24|0x1) = 0"
        );
        assert_eq!(
            f(&[W, 0x86, 0, 0, 0, 0], -1),
            "futex(0x5652f68061a0, FUTEX_LOCK_PI_PRIVATE, NULL) = -1 EPERM (Operation not permitted)"
        );
        assert_eq!(f(&[W, 8, 0, 0, 0, 0], -11), "futex(0x5652f68061a0, FUTEX_TRYLOCK_PI) = -1 EAGAIN (Resource temporarily unavailable)");
        assert_eq!(
            f(&[W, 2, 0], -38),
            "futex(0x5652f68061a0, FUTEX_FD, 0) = -1 ENOSYS (Function not implemented)"
        );
        assert_eq!(
            f(&[W, 99, 1, 2, 3, 4], -38),
            "futex(0x5652f68061a0, 0x63 /* FUTEX_??? */, 1, 0x2, 0x3, 0x4) = -1 ENOSYS (Function not implemented)"
        );
        assert_eq!(
            f(&[W, 1, 0x7fff_ffff], 0),
            "futex(0x5652f68061a0, FUTEX_WAKE, 2147483647) = 0"
        );
        assert_eq!(f(&[W, 0x82, 0], -38), "futex(0x5652f68061a0, FUTEX_FD|FUTEX_PRIVATE_FLAG, 0) = -1 ENOSYS (Function not implemented)");
        assert_eq!(
            f(&[W, 0x101, 1], -38),
            "futex(0x5652f68061a0, 0x101 /* FUTEX_??? */, 1) = -1 ENOSYS (Function not implemented)"
        );
    }
}
