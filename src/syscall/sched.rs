//! The scheduler calls: sched_yield, sched_setaffinity/getaffinity,
//! sched_setscheduler/getscheduler, sched_setparam/getparam,
//! sched_get_priority_max/min, sched_rr_get_interval and
//! sched_setattr/getattr, as strace 6.1's `sched.c` and `affinity.c` print
//! them.

use crate::syscall::printers::{enum_arg, le32, le64, num_at};
use crate::syscall::time::timespec_at;
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("sched_yield", no_args),
    ("sched_getaffinity", sched_getaffinity),
    ("sched_setaffinity", sched_setaffinity),
    ("sched_getscheduler", sched_getscheduler),
    ("sched_setscheduler", sched_setscheduler),
    ("sched_getparam", sched_getparam),
    ("sched_setparam", sched_setparam),
    ("sched_get_priority_max", sched_policy_only),
    ("sched_get_priority_min", sched_policy_only),
    ("sched_rr_get_interval", sched_rr_get_interval),
    ("sched_rr_get_interval_time64", sched_rr_get_interval),
    ("sched_setattr", sched_setattr),
    ("sched_getattr", sched_getattr),
];

/// A call without arguments.
fn no_args(_: &mut Ctx) -> Step {
    Step::Done(RetFmt::Int)
}

/// The cpuset size strace probes for (the kernel's minimum on machines with
/// up to 1024 CPUs).
const CPUSET_SIZE: u64 = 128;

/// strace's `print_affinitylist`: the set CPUs as `[0 1]`, with `...` when
/// the mask is longer than the kernel's.
fn affinity_value(c: &mut Ctx, addr: u64, len: u64) -> Value {
    if addr == 0 || c.failed() {
        return Value::Ptr(addr);
    }
    if len == 0 {
        return Value::sym("[]");
    }
    let w = c.arch.word_size() as u64;
    let fetch = len.min(CPUSET_SIZE);
    let size = fetch.div_ceil(w) * w;
    match c.read_bytes(addr, fetch as usize) {
        Some(b) => {
            let mut cpus = Vec::new();
            for (i, byte) in b.iter().enumerate() {
                for bit in 0..8 {
                    if byte & (1 << bit) != 0 {
                        cpus.push((i * 8 + bit).to_string());
                    }
                }
            }
            if size < len {
                cpus.push("...".to_string());
            }
            Value::sym_owned(format!("[{}]", cpus.join(" ")))
        }
        None => Value::Unreadable(addr),
    }
}

/// `sched_setaffinity(pid, cpusetsize, mask)`.
fn sched_setaffinity(c: &mut Ctx) -> Step {
    c.pid(0);
    c.uint(1);
    let v = affinity_value(c, c.arg_ulong(2), c.arg(1) as u32 as u64);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `sched_getaffinity(pid, cpusetsize, mask)`: the mask the kernel filled
/// (as many bytes as it returned) at exit.
fn sched_getaffinity(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        c.uint(1);
        return Step::Exit;
    }
    let n = c.retval().max(0) as u64;
    let v = affinity_value(c, c.arg_ulong(2), n);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// A scheduling policy: `SCHED_OTHER`, or `0x40000000 /* SCHED_??? */`.
fn policy_arg(c: &mut Ctx, i: usize) {
    enum_arg(c, i, &xlat::SCHED_POLICIES, "SCHED_???");
}

/// `sched_getscheduler(pid)`: `= 0 (SCHED_OTHER)`.
fn sched_getscheduler(c: &mut Ctx) -> Step {
    if c.entering() {
        // Pushed at exit so the annotated return follows it on one line.
        return Step::Exit;
    }
    c.pid(0);
    let r = c.retval();
    match xlat::SCHED_POLICIES
        .lookup(r as u64)
        .filter(|_| !c.failed())
    {
        Some(n) => Step::Done(RetFmt::Value(Ret::Annotated(
            Box::new(Ret::Int(r)),
            Cow::Borrowed(n),
        ))),
        None => Step::Done(RetFmt::Int),
    }
}

/// `sched_setscheduler(pid, policy, param)`.
fn sched_setscheduler(c: &mut Ctx) -> Step {
    c.pid(0);
    policy_arg(c, 1);
    let v = num_at(c, c.arg_ulong(2), 4, true);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `sched_getparam(pid, param)`: `[0]` at exit.
fn sched_getparam(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        return Step::Exit;
    }
    let addr = c.arg_ulong(1);
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        num_at(c, addr, 4, true)
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `sched_setparam(pid, param)`.
fn sched_setparam(c: &mut Ctx) -> Step {
    c.pid(0);
    let v = num_at(c, c.arg_ulong(1), 4, true);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `sched_get_priority_max(policy)` and `_min`.
fn sched_policy_only(c: &mut Ctx) -> Step {
    policy_arg(c, 0);
    Step::Done(RetFmt::Int)
}

/// `sched_rr_get_interval(pid, tp)`.
fn sched_rr_get_interval(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        return Step::Exit;
    }
    let v = timespec_at(c, c.arg_ulong(1));
    c.push(v);
    Step::Done(RetFmt::Int)
}

// ---- sched_attr ----

/// `SCHED_ATTR_SIZE_VER0`: the smallest `struct sched_attr`.
const SCHED_ATTR_MIN_SIZE: u64 = 48;
/// `SCHED_ATTR_SIZE_VER1`: with the utilization clamps.
const SCHED_ATTR_SIZE_VER1: u64 = 56;

/// strace's `print_sched_attr`: `usize` is the buffer size sched_getattr
/// was given, `None` for sched_setattr (which reads the size field first).
fn sched_attr(c: &mut Ctx, addr: u64, usize: Option<u64>) -> Value {
    if addr == 0 || c.failed() {
        return Value::Ptr(addr);
    }
    let (b, size, more) = match usize {
        Some(us) => {
            let n = us.min(SCHED_ATTR_SIZE_VER1);
            let Some(b) = c.read_bytes(addr, n as usize) else {
                return Value::Unreadable(addr);
            };
            let size = le32(&b, 0);
            (b, size, size > n)
        }
        None => {
            let Some(sb) = c.read_bytes(addr, 4) else {
                return Value::Unreadable(addr);
            };
            let mut us = le32(&sb, 0);
            if us == 0 {
                us = SCHED_ATTR_MIN_SIZE;
            }
            let n = us.min(SCHED_ATTR_SIZE_VER1);
            let b = if n >= SCHED_ATTR_MIN_SIZE {
                match c.read_bytes(addr, n as usize) {
                    Some(b) => b,
                    None => return Value::Unreadable(addr),
                }
            } else {
                sb
            };
            (b, n, us > n)
        }
    };
    let mut f = vec![Field::new("size", Value::UInt(le32(&b, 0)))];
    if size >= SCHED_ATTR_MIN_SIZE {
        // sched_setattr leaves out what SCHED_FLAG_KEEP_POLICY (0x8) and
        // SCHED_FLAG_KEEP_PARAMS (0x10) tell the kernel to keep.
        let is_set = usize.is_none();
        let (policy, flags) = (le32(&b, 4), le64(&b, 8));
        if !is_set || (policy as u32 as i32) < 0 || flags & 0x18 == 0 {
            f.push(Field::new(
                "sched_policy",
                c.enum_value(policy, &xlat::SCHED_POLICIES, "SCHED_???"),
            ));
        }
        f.push(Field::new(
            "sched_flags",
            crate::syscall::printers::xflags(c, flags, &xlat::SCHED_FLAGS, "SCHED_FLAG_???"),
        ));
        if !is_set || flags & 0x10 == 0 {
            f.push(Field::new(
                "sched_nice",
                Value::Int(le32(&b, 16) as u32 as i32 as i64),
            ));
            f.push(Field::new("sched_priority", Value::UInt(le32(&b, 20))));
            f.push(Field::new("sched_runtime", Value::UInt(le64(&b, 24))));
            f.push(Field::new("sched_deadline", Value::UInt(le64(&b, 32))));
            f.push(Field::new("sched_period", Value::UInt(le64(&b, 40))));
        }
        if size >= SCHED_ATTR_SIZE_VER1 && b.len() as u64 >= SCHED_ATTR_SIZE_VER1 {
            f.push(Field::new("sched_util_min", Value::UInt(le32(&b, 48))));
            f.push(Field::new("sched_util_max", Value::UInt(le32(&b, 52))));
        }
    }
    Value::Struct(f, more)
}

/// `sched_setattr(pid, attr, flags)`.
fn sched_setattr(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        let v = sched_attr(c, c.arg_ulong(1), None);
        c.push(v);
        // strace prints the `, ` before flags at exit, after what E2BIG
        // adds to the structure: `{size=1} => {size=56}, 0`.
        c.entry_complete = true;
        return Step::Exit;
    }
    let mut parts = Vec::new();
    // E2BIG: the kernel wrote back the size it supports.
    if c.retval() == -7 {
        if let Some(b) = c.read_bytes(c.arg_ulong(1), 4) {
            parts.push(Value::sym(" => "));
            parts.push(Value::structure(vec![Field::new(
                "size",
                Value::UInt(le32(&b, 0)),
            )]));
        }
    }
    parts.push(Value::sym(", "));
    parts.push(Value::UInt(c.arg(2) as u32 as u64));
    c.push(Value::Joined(parts, ""));
    Step::Done(RetFmt::Int)
}

/// `sched_getattr(pid, attr, size, flags)`: the attributes at exit.
fn sched_getattr(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        return Step::Exit;
    }
    let size = c.arg(2) as u32 as u64;
    let addr = c.arg_ulong(1);
    let v = if size < SCHED_ATTR_MIN_SIZE {
        Value::Ptr(addr)
    } else {
        sched_attr(c, addr, Some(size))
    };
    c.push(v);
    c.uint(2);
    c.uint(3);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn scheduler() {
        let mut m = FakeMemory::default();
        let mask = m.put(&[3, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            run(
                sched_getaffinity,
                "sched_getaffinity",
                &[0, 128, mask],
                8,
                &mut m
            ),
            "sched_getaffinity(0, 128, [0 1]) = 8"
        );
        assert_eq!(
            run(
                sched_setaffinity,
                "sched_setaffinity",
                &[0, 8, mask],
                0,
                &mut m
            ),
            "sched_setaffinity(0, 8, [0 1]) = 0"
        );
        assert_eq!(
            run(
                sched_getaffinity,
                "sched_getaffinity",
                &[0, 8, 0],
                -14,
                &mut m
            ),
            "sched_getaffinity(0, 8, NULL) = -1 EFAULT (Bad address)"
        );
        assert_eq!(
            run(sched_getscheduler, "sched_getscheduler", &[0], 0, &mut m),
            "sched_getscheduler(0) = 0 (SCHED_OTHER)"
        );
        let prio = m.put(&0u32.to_le_bytes());
        assert_eq!(
            run(
                sched_setscheduler,
                "sched_setscheduler",
                &[0, 0, prio],
                0,
                &mut m
            ),
            "sched_setscheduler(0, SCHED_OTHER, [0]) = 0"
        );
        assert_eq!(
            run(sched_getparam, "sched_getparam", &[0, prio], 0, &mut m),
            "sched_getparam(0, [0]) = 0"
        );
        assert_eq!(
            run(sched_getparam, "sched_getparam", &[0, 0], -22, &mut m),
            "sched_getparam(0, NULL) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(
                sched_policy_only,
                "sched_get_priority_max",
                &[1],
                99,
                &mut m
            ),
            "sched_get_priority_max(SCHED_FIFO) = 99"
        );
    }

    #[test]
    fn sched_attrs() {
        let mut m = FakeMemory::default();
        let mut a = vec![0u8; 56];
        a[0] = 56;
        a[24..32].copy_from_slice(&1_400_000u64.to_le_bytes());
        let p = m.put(&a);
        let want = "{size=56, sched_policy=SCHED_OTHER, sched_flags=0, sched_nice=0, sched_priority=0, sched_runtime=1400000, sched_deadline=0, sched_period=0, sched_util_min=0, sched_util_max=0}";
        assert_eq!(
            run(sched_getattr, "sched_getattr", &[0, p, 128, 0], 0, &mut m),
            format!("sched_getattr(0, {want}, 128, 0) = 0")
        );
        assert_eq!(
            run(sched_setattr, "sched_setattr", &[0, p, 0], 0, &mut m),
            format!("sched_setattr(0, {want}, 0) = 0")
        );
        assert_eq!(
            run(sched_setattr, "sched_setattr", &[0, 0, 0], -22, &mut m),
            "sched_setattr(0, NULL, 0) = -1 EINVAL (Invalid argument)"
        );
        // E2BIG: the size the kernel wrote back follows `=>`.
        let small = m.put(&1u32.to_le_bytes());
        assert_eq!(
            run(sched_setattr, "sched_setattr", &[0, small, 0], -7, &mut m),
            "sched_setattr(0, {size=1} => {size=1}, 0) = -1 E2BIG (Argument list too long)"
        );
    }
}
