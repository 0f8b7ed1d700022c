//! Time: nanosleep, clock_nanosleep, clock_gettime/getres/settime,
//! gettimeofday/settimeofday, time, POSIX timers (timer_create/settime/
//! gettime/getoverrun/delete), timerfd_create/settime/gettime,
//! getitimer/setitimer and alarm; plus the `struct timespec`, `timeval`,
//! `itimerspec`, `itimerval` and `sigevent` printers other families use.
//!
//! The legacy i386 calls take 32-bit `time_t` structures; their `*_time64`
//! twins and every 64-bit personality take 64-bit ones.

use crate::syscall::ctx::sig_value;
use crate::syscall::printers::{enum_arg, flags_arg, le32, le64, num_at, struct_at, time_string};
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("nanosleep", nanosleep),
    ("clock_nanosleep", clock_nanosleep),
    ("clock_nanosleep_time64", clock_nanosleep64),
    ("clock_gettime", clock_gettime),
    ("clock_gettime64", clock_gettime64),
    ("clock_getres", clock_gettime),
    ("clock_getres_time64", clock_gettime64),
    ("clock_settime", clock_settime),
    ("clock_settime64", clock_settime64),
    ("gettimeofday", gettimeofday),
    ("settimeofday", settimeofday),
    ("time", time),
    ("timer_create", timer_create),
    ("timer_settime", timer_settime),
    ("timer_settime64", timer_settime64),
    ("timer_gettime", timer_gettime),
    ("timer_gettime64", timer_gettime64),
    ("timer_getoverrun", timer_id_only),
    ("timer_delete", timer_id_only),
    ("timerfd_create", timerfd_create),
    ("timerfd_settime", timerfd_settime),
    ("timerfd_settime64", timerfd_settime64),
    ("timerfd_gettime", timerfd_gettime),
    ("timerfd_gettime64", timerfd_gettime64),
    ("getitimer", getitimer),
    ("setitimer", setitimer),
    ("alarm", alarm),
];

// ---- structures ----

/// Signed field of `w` bytes (4 or 8) at `off`.
fn sword(b: &[u8], off: usize, w: usize) -> i64 {
    if w == 4 {
        le32(b, off) as u32 as i32 as i64
    } else {
        le64(b, off) as i64
    }
}

/// Field of `w` bytes at `off`, zero-extended as strace's
/// `zero_extend_signed_to_ull` does for `tv_nsec`/`tv_usec`.
fn uword(b: &[u8], off: usize, w: usize) -> u64 {
    if w == 4 {
        le32(b, off)
    } else {
        le64(b, off)
    }
}

/// `{tv_sec=S, tv_nsec=N}` from a timespec whose fields are `w` bytes.
fn timespec_fields(b: &[u8], off: usize, w: usize) -> Value {
    Value::structure(vec![
        Field::new("tv_sec", Value::Int(sword(b, off, w))),
        Field::new("tv_nsec", Value::UInt(uword(b, off + w, w))),
    ])
}

/// `{tv_sec=S, tv_usec=U}` from a timeval whose fields are `w` bytes.
pub(in crate::syscall) fn timeval_fields(b: &[u8], off: usize, w: usize) -> Value {
    Value::structure(vec![
        Field::new("tv_sec", Value::Int(sword(b, off, w))),
        Field::new("tv_usec", Value::UInt(uword(b, off + w, w))),
    ])
}

/// The size of the personality's native `struct timespec`.
pub(in crate::syscall) fn timespec_size(c: &Ctx) -> usize {
    2 * c.arch.word_size()
}

/// A native `struct timespec` from its bytes.
pub(in crate::syscall) fn timespec_bytes(c: &Ctx, b: &[u8]) -> Value {
    timespec_fields(b, 0, c.arch.word_size())
}

/// A timespec with `w`-byte fields at `addr`, or the pointer.
fn ts_at(c: &mut Ctx, addr: u64, w: usize) -> Value {
    struct_at(c, addr, Some(2 * w), |_, b| timespec_fields(b, 0, w))
}

/// strace's `print_timespec`: the native `struct timespec` at `addr`.
pub(in crate::syscall) fn timespec_at(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    ts_at(c, addr, w)
}

/// strace's `print_timeval`: the native `struct timeval` at `addr`.
pub(in crate::syscall) fn timeval_at(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    struct_at(c, addr, Some(2 * w), |_, b| timeval_fields(b, 0, w))
}

/// `{it_interval={...}, it_value={...}}` of two timespecs or timevals.
fn interval_at(c: &mut Ctx, addr: u64, w: usize, usec: bool) -> Value {
    struct_at(c, addr, Some(4 * w), |_, b| {
        let one = |off| {
            if usec {
                timeval_fields(b, off, w)
            } else {
                timespec_fields(b, off, w)
            }
        };
        Value::structure(vec![
            Field::new("it_interval", one(0)),
            Field::new("it_value", one(2 * w)),
        ])
    })
}

/// The argument `i` timespec, read with the error cleared: strace prints a
/// `rem`/`remain` only when the call was interrupted (`ERESTART*`), and then
/// in full despite the error.
fn remaining(c: &mut Ctx, i: usize, w: usize, show: bool) -> Value {
    let addr = c.arg_ulong(i);
    if !show || addr == 0 {
        return Value::Ptr(addr);
    }
    match c.read_bytes(addr, 2 * w) {
        Some(b) => timespec_fields(&b, 0, w),
        None => Value::Unreadable(addr),
    }
}

/// `ERESTARTSYS`, `ERESTARTNOINTR`, `ERESTARTNOHAND`, `ERESTART_RESTARTBLOCK`.
fn is_erestart(c: &Ctx) -> bool {
    matches!(-c.retval(), 512 | 513 | 514 | 516)
}

/// A clock id: `CLOCK_MONOTONIC`, or `0xfffffffa /* CLOCK_??? */`.
fn clock_arg(c: &mut Ctx, i: usize) {
    enum_arg(c, i, &xlat::CLOCKS, "CLOCK_???");
}

// ---- sleeping ----

/// `nanosleep(req, rem)`: `rem` only when interrupted.
fn nanosleep(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    if c.entering() {
        let v = ts_at(c, c.arg_ulong(0), w);
        c.push(v);
        return Step::Exit;
    }
    let show = is_erestart(c);
    let v = remaining(c, 1, w, show);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// clock_nanosleep with `w`-byte timespec fields.
fn do_clock_nanosleep(c: &mut Ctx, w: usize) -> Step {
    if c.entering() {
        clock_arg(c, 0);
        flags_arg(c, 1, &xlat::TIMER_FLAGS, "TIMER_???");
        let v = ts_at(c, c.arg_ulong(2), w);
        c.push(v);
        return Step::Exit;
    }
    let show = c.arg(1) == 0 && is_erestart(c);
    let v = remaining(c, 3, w, show);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `clock_nanosleep(clockid, flags, request, remain)`.
fn clock_nanosleep(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_clock_nanosleep(c, w)
}

/// `clock_nanosleep_time64` (i386).
fn clock_nanosleep64(c: &mut Ctx) -> Step {
    do_clock_nanosleep(c, 8)
}

// ---- clocks ----

/// clock_gettime/clock_getres with `w`-byte timespec fields.
fn do_clock_gettime(c: &mut Ctx, w: usize) -> Step {
    if c.entering() {
        clock_arg(c, 0);
        return Step::Exit;
    }
    let v = ts_at(c, c.arg_ulong(1), w);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `clock_gettime(clockid, tp)` and `clock_getres`: the time at exit.
fn clock_gettime(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_clock_gettime(c, w)
}

/// `clock_gettime64` and `clock_getres_time64` (i386).
fn clock_gettime64(c: &mut Ctx) -> Step {
    do_clock_gettime(c, 8)
}

/// clock_settime with `w`-byte timespec fields.
fn do_clock_settime(c: &mut Ctx, w: usize) -> Step {
    clock_arg(c, 0);
    let v = ts_at(c, c.arg_ulong(1), w);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `clock_settime(clockid, tp)`.
fn clock_settime(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_clock_settime(c, w)
}

/// `clock_settime64` (i386).
fn clock_settime64(c: &mut Ctx) -> Step {
    do_clock_settime(c, 8)
}

/// `{tz_minuteswest=0, tz_dsttime=0}` at `addr`.
fn timezone_at(c: &mut Ctx, addr: u64) -> Value {
    struct_at(c, addr, Some(8), |_, b| {
        Value::structure(vec![
            Field::new("tz_minuteswest", Value::Int(sword(b, 0, 4))),
            Field::new("tz_dsttime", Value::Int(sword(b, 4, 4))),
        ])
    })
}

/// `gettimeofday(tv, tz)`: everything at exit.
fn gettimeofday(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let v = timeval_at(c, c.arg_ulong(0));
    c.push(v);
    let v = timezone_at(c, c.arg_ulong(1));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `settimeofday(tv, tz)`.
fn settimeofday(c: &mut Ctx) -> Step {
    let v = timeval_at(c, c.arg_ulong(0));
    c.push(v);
    let v = timezone_at(c, c.arg_ulong(1));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `time(tloc)`: `time([1700000000 /* 2023-11-14T22:13:20+0000 */]) =
/// 1700000000 (2023-11-14T22:13:20+0000)`.
fn time(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let addr = c.arg_ulong(0);
    let w = c.arch.word_size();
    let v = if addr == 0 || c.failed() {
        Value::Ptr(addr)
    } else {
        match num_at(c, addr, w, true) {
            Value::Array(items, more) => Value::Array(
                items
                    .into_iter()
                    .map(|it| match it {
                        Value::Int(t) => match time_string(t, 0) {
                            Some(s) => Value::Commented(Box::new(Value::Int(t)), Cow::Owned(s)),
                            None => Value::Int(t),
                        },
                        other => other,
                    })
                    .collect(),
                more,
            ),
            other => other,
        }
    };
    c.push(v);
    if c.failed() {
        return Step::Done(RetFmt::Int);
    }
    let r = c.retval();
    Step::Done(match time_string(r, 0) {
        Some(s) => RetFmt::Value(Ret::Annotated(Box::new(Ret::Int(r)), Cow::Owned(s))),
        None => RetFmt::Int,
    })
}

// ---- POSIX timers ----

/// strace's `print_sigevent`: `{sigev_value={sival_int=…, sival_ptr=…},
/// sigev_signo=SIGUSR1, sigev_notify=SIGEV_SIGNAL}` (the value only when
/// non-zero; the thread id or function for `SIGEV_THREAD_ID`/`SIGEV_THREAD`).
pub(in crate::syscall) fn sigevent_at(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    // strace reads its own struct_sigevent: the value, signo, notify and
    // the two-pointer union (32 bytes on 64-bit), not the libc 64.
    struct_at(c, addr, Some(3 * w + 8), |c, b| {
        let style = c.opts.xlat_style;
        let val = uword(b, 0, w);
        let signo = sword(b, w, 4);
        let notify = le32(b, w + 4);
        let un = w + 8;
        let mut f = Vec::new();
        if val != 0 {
            f.push(Field::new(
                "sigev_value",
                Value::structure(vec![
                    Field::new("sival_int", Value::Int(sword(b, 0, 4))),
                    Field::new("sival_ptr", Value::Ptr(val)),
                ]),
            ));
        }
        let signo_v = match notify {
            0 | 2 | 4 => sig_value(style, signo),
            _ => Value::UInt(signo as u32 as u64),
        };
        f.push(Field::new("sigev_signo", signo_v));
        f.push(Field::new(
            "sigev_notify",
            c.enum_value(notify, &xlat::SIGEV_NOTIFY, "SIGEV_???"),
        ));
        match notify {
            4 => f.push(Field::new(
                "sigev_notify_thread_id",
                Value::Int(sword(b, un, 4)),
            )),
            2 => {
                f.push(Field::new(
                    "sigev_notify_function",
                    Value::Ptr(uword(b, un, w)),
                ));
                f.push(Field::new(
                    "sigev_notify_attributes",
                    Value::Ptr(uword(b, un + w, w)),
                ));
            }
            _ => {}
        }
        Value::structure(f)
    })
}

/// `timer_create(clockid, sevp, timerid)`: the id at exit.
fn timer_create(c: &mut Ctx) -> Step {
    if c.entering() {
        clock_arg(c, 0);
        let v = sigevent_at(c, c.arg_ulong(1));
        c.push(v);
        return Step::Exit;
    }
    let addr = c.arg_ulong(2);
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        num_at(c, addr, 4, true)
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// timer_settime / timerfd_settime with `w`-byte timespec fields.
fn do_settime(c: &mut Ctx, w: usize, timerfd: bool) -> Step {
    if c.entering() {
        if timerfd {
            c.fd(0);
            flags_arg(c, 1, &xlat::TIMERFD_FLAGS, "TFD_???");
        } else {
            c.int(0);
            flags_arg(c, 1, &xlat::TIMER_FLAGS, "TIMER_???");
        }
        let v = interval_at(c, c.arg_ulong(2), w, false);
        c.push(v);
        return Step::Exit;
    }
    let v = interval_at(c, c.arg_ulong(3), w, false);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// timer_gettime / timerfd_gettime with `w`-byte timespec fields.
fn do_gettime(c: &mut Ctx, w: usize, timerfd: bool) -> Step {
    if c.entering() {
        if timerfd {
            c.fd(0);
        } else {
            c.int(0);
        }
        return Step::Exit;
    }
    let v = interval_at(c, c.arg_ulong(1), w, false);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `timer_settime(timerid, flags, new_value, old_value)`.
fn timer_settime(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_settime(c, w, false)
}

/// `timer_settime64` (i386).
fn timer_settime64(c: &mut Ctx) -> Step {
    do_settime(c, 8, false)
}

/// `timer_gettime(timerid, curr_value)`.
fn timer_gettime(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_gettime(c, w, false)
}

/// `timer_gettime64` (i386).
fn timer_gettime64(c: &mut Ctx) -> Step {
    do_gettime(c, 8, false)
}

/// `timer_delete(timerid)` and `timer_getoverrun(timerid)`.
fn timer_id_only(c: &mut Ctx) -> Step {
    c.int(0);
    Step::Done(RetFmt::Int)
}

/// `timerfd_create(clockid, flags)`.
fn timerfd_create(c: &mut Ctx) -> Step {
    clock_arg(c, 0);
    flags_arg(c, 1, &xlat::TIMERFD_FLAGS, "TFD_???");
    Step::Done(RetFmt::Fd)
}

/// `timerfd_settime(fd, flags, new_value, old_value)`.
fn timerfd_settime(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_settime(c, w, true)
}

/// `timerfd_settime64` (i386).
fn timerfd_settime64(c: &mut Ctx) -> Step {
    do_settime(c, 8, true)
}

/// `timerfd_gettime(fd, curr_value)`.
fn timerfd_gettime(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_gettime(c, w, true)
}

/// `timerfd_gettime64` (i386).
fn timerfd_gettime64(c: &mut Ctx) -> Step {
    do_gettime(c, 8, true)
}

// ---- interval timers ----

/// `getitimer(which, curr_value)`.
fn getitimer(c: &mut Ctx) -> Step {
    if c.entering() {
        enum_arg(c, 0, &xlat::ITIMER_WHICH, "ITIMER_???");
        return Step::Exit;
    }
    let w = c.arch.word_size();
    let v = interval_at(c, c.arg_ulong(1), w, true);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `setitimer(which, new_value, old_value)`.
fn setitimer(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    if c.entering() {
        enum_arg(c, 0, &xlat::ITIMER_WHICH, "ITIMER_???");
        let v = interval_at(c, c.arg_ulong(1), w, true);
        c.push(v);
        return Step::Exit;
    }
    let v = interval_at(c, c.arg_ulong(2), w, true);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `alarm(seconds)`.
fn alarm(c: &mut Ctx) -> Step {
    c.uint(0);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{pair, run, run_env, Env};
    use rtrace_arch::Arch;

    #[test]
    fn sleeps() {
        let mut m = FakeMemory::default();
        let req = m.put(&pair(0, 1_000_000));
        let rem = m.put(&pair(0, 500));
        assert_eq!(
            run(nanosleep, "nanosleep", &[req, 0], 0, &mut m),
            "nanosleep({tv_sec=0, tv_nsec=1000000}, NULL) = 0"
        );
        assert_eq!(
            run(nanosleep, "nanosleep", &[req, rem], 0, &mut m),
            format!("nanosleep({{tv_sec=0, tv_nsec=1000000}}, {rem:#x}) = 0")
        );
        assert_eq!(
            run(nanosleep, "nanosleep", &[req, rem], -516, &mut m),
            "nanosleep({tv_sec=0, tv_nsec=1000000}, {tv_sec=0, tv_nsec=500}) = ? ERESTART_RESTARTBLOCK (Interrupted by signal)"
        );
        let bad = m.put(&pair(0, u64::MAX));
        assert_eq!(
            run(nanosleep, "nanosleep", &[bad, rem], -22, &mut m),
            format!("nanosleep({{tv_sec=0, tv_nsec=18446744073709551615}}, {rem:#x}) = -1 EINVAL (Invalid argument)")
        );
        assert_eq!(
            run(clock_nanosleep, "clock_nanosleep", &[1, 1, req, 0], 0, &mut m),
            "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, {tv_sec=0, tv_nsec=1000000}, NULL) = 0"
        );
        assert_eq!(
            run(clock_nanosleep, "clock_nanosleep", &[0, 0, req, rem], -516, &mut m),
            "clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=1000000}, {tv_sec=0, tv_nsec=500}) = ? ERESTART_RESTARTBLOCK (Interrupted by signal)"
        );
    }

    #[test]
    fn clocks() {
        let mut m = FakeMemory::default();
        let ts = m.put(&pair(459, 140_527_563));
        assert_eq!(
            run(clock_gettime, "clock_gettime", &[1, ts], 0, &mut m),
            "clock_gettime(CLOCK_MONOTONIC, {tv_sec=459, tv_nsec=140527563}) = 0"
        );
        assert_eq!(
            run(clock_gettime, "clock_gettime", &[99, ts], -22, &mut m),
            format!("clock_gettime(0x63 /* CLOCK_??? */, {ts:#x}) = -1 EINVAL (Invalid argument)")
        );
        assert_eq!(
            run(
                clock_gettime,
                "clock_gettime",
                &[(-6i64) as u64, ts],
                0,
                &mut m
            ),
            "clock_gettime(0xfffffffa /* CLOCK_??? */, {tv_sec=459, tv_nsec=140527563}) = 0"
        );
        assert_eq!(
            run(clock_gettime, "clock_getres", &[7, 0], -14, &mut m),
            "clock_getres(CLOCK_BOOTTIME, NULL) = -1 EFAULT (Bad address)"
        );
        let tz = m.put(&[0u8; 8]);
        let tv = m.put(&pair(1_795_304_587, 412_003));
        assert_eq!(
            run(gettimeofday, "gettimeofday", &[tv, tz], 0, &mut m),
            "gettimeofday({tv_sec=1795304587, tv_usec=412003}, {tz_minuteswest=0, tz_dsttime=0}) = 0"
        );
        assert_eq!(
            run(gettimeofday, "gettimeofday", &[tv, 0], 0, &mut m),
            "gettimeofday({tv_sec=1795304587, tv_usec=412003}, NULL) = 0"
        );
        let t = m.put(&1_700_000_000u64.to_le_bytes());
        assert_eq!(
            run(time, "time", &[t], 1_700_000_000, &mut m),
            "time([1700000000 /* 2023-11-14T22:13:20+0000 */]) = 1700000000 (2023-11-14T22:13:20+0000)"
        );
        assert_eq!(
            run(time, "time", &[0], 1_700_000_000, &mut m),
            "time(NULL) = 1700000000 (2023-11-14T22:13:20+0000)"
        );
    }

    #[test]
    fn i386_timespec() {
        let mut m = FakeMemory::default();
        let ts = m.put(&[5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        let env = Env {
            arch: Arch::I386,
            ..Env::default()
        };
        assert_eq!(
            run_env(clock_settime, "clock_settime", &[0, ts], 0, &mut m, &env),
            "clock_settime(CLOCK_REALTIME, {tv_sec=5, tv_nsec=4294967295}) = 0"
        );
    }

    #[test]
    fn timers() {
        let mut m = FakeMemory::default();
        let mut sev = vec![0u8; 64];
        sev[..8].copy_from_slice(&0x7ffd_e2a9_6418u64.to_le_bytes());
        sev[8] = 10;
        let sev = m.put(&sev);
        let id = m.put(&[0u8; 4]);
        assert_eq!(
            run(timer_create, "timer_create", &[1, sev, id], 0, &mut m),
            "timer_create(CLOCK_MONOTONIC, {sigev_value={sival_int=-492215272, sival_ptr=0x7ffde2a96418}, sigev_signo=SIGUSR1, sigev_notify=SIGEV_SIGNAL}, [0]) = 0"
        );
        let mut thr = vec![0u8; 64];
        thr[8] = 14;
        thr[12] = 4;
        thr[16] = 77;
        let thr = m.put(&thr);
        assert_eq!(
            run(timer_create, "timer_create", &[0, thr, id], 0, &mut m),
            "timer_create(CLOCK_REALTIME, {sigev_signo=SIGALRM, sigev_notify=SIGEV_THREAD_ID, sigev_notify_thread_id=77}, [0]) = 0"
        );
        let mut its = pair(0, 0);
        its.extend_from_slice(&pair(100, 0));
        let its = m.put(&its);
        let old = m.put(&[0u8; 32]);
        assert_eq!(
            run(timer_settime, "timer_settime", &[0, 0, its, old], 0, &mut m),
            "timer_settime(0, 0, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=100, tv_nsec=0}}, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=0, tv_nsec=0}}) = 0"
        );
        assert_eq!(
            run(timer_id_only, "timer_delete", &[0], 0, &mut m),
            "timer_delete(0) = 0"
        );
        assert_eq!(
            run(timerfd_create, "timerfd_create", &[1, 0o2004000], 3, &mut m),
            "timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC|TFD_NONBLOCK) = 3"
        );
        assert_eq!(
            run(timerfd_settime, "timerfd_settime", &[3, 1, its, 0], 0, &mut m),
            "timerfd_settime(3, TFD_TIMER_ABSTIME, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=100, tv_nsec=0}}, NULL) = 0"
        );
        assert_eq!(
            run(timerfd_gettime, "timerfd_gettime", &[3, old], 0, &mut m),
            "timerfd_gettime(3, {it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=0, tv_nsec=0}}) = 0"
        );
    }

    #[test]
    fn itimers() {
        let mut m = FakeMemory::default();
        let mut it = pair(0, 0);
        it.extend_from_slice(&pair(100, 0));
        let it = m.put(&it);
        assert_eq!(
            run(setitimer, "setitimer", &[0, it, 0], 0, &mut m),
            "setitimer(ITIMER_REAL, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=100, tv_usec=0}}, NULL) = 0"
        );
        assert_eq!(
            run(getitimer, "getitimer", &[2, it], 0, &mut m),
            "getitimer(ITIMER_PROF, {it_interval={tv_sec=0, tv_usec=0}, it_value={tv_sec=100, tv_usec=0}}) = 0"
        );
        assert_eq!(run(alarm, "alarm", &[10], 0, &mut m), "alarm(10) = 0");
    }
}
