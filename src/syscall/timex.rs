//! Kernel clock tuning: adjtimex and clock_adjtime with `struct timex`
//! decoded at exit and the clock state on the return value
//! (`= 5 (TIME_ERROR)`), as strace prints them.

use crate::syscall::printers::{le32, le64, struct_at, xflags};
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] =
    &[("adjtimex", adjtimex), ("clock_adjtime", clock_adjtime)];

/// `sizeof(struct timex)` on 64-bit personalities.
const TIMEX_SIZE: usize = 208;

/// The fields of a 64-bit `struct timex`.
fn timex_value(c: &Ctx, b: &[u8]) -> Value {
    let d = |off: usize| Value::Int(le64(b, off) as i64);
    let i = |off: usize| Value::Int(le32(b, off) as u32 as i32 as i64);
    let time = Value::structure(vec![
        Field::new("tv_sec", Value::Int(le64(b, 72) as i64)),
        Field::new("tv_usec", Value::UInt(le64(b, 80))),
    ]);
    Value::structure(vec![
        Field::new(
            "modes",
            xflags(c, le32(b, 0), &xlat::ADJTIMEX_MODES, "ADJ_???"),
        ),
        Field::new("offset", d(8)),
        Field::new("freq", d(16)),
        Field::new("maxerror", d(24)),
        Field::new("esterror", d(32)),
        Field::new(
            "status",
            xflags(c, le32(b, 40), &xlat::ADJTIMEX_STATUS, "STA_???"),
        ),
        Field::new("constant", d(48)),
        Field::new("precision", d(56)),
        Field::new("tolerance", d(64)),
        Field::new("time", time),
        Field::new("tick", d(88)),
        Field::new("ppsfreq", d(96)),
        Field::new("jitter", d(104)),
        Field::new("shift", i(112)),
        Field::new("stabil", d(120)),
        Field::new("jitcnt", d(128)),
        Field::new("calcnt", d(136)),
        Field::new("errcnt", d(144)),
        Field::new("stbcnt", d(152)),
        Field::new("tai", i(160)),
    ])
}

/// The timex argument `i` at exit, and the return value with its state name.
fn timex_exit(c: &mut Ctx, i: usize) -> Step {
    let addr = c.arg_ulong(i);
    let size = (c.arch.word_size() == 8).then_some(TIMEX_SIZE);
    let v = struct_at(c, addr, size, timex_value);
    let decoded = matches!(v, Value::Struct(..));
    c.push(v);
    let r = c.retval();
    if c.failed() || !decoded {
        return Step::Done(RetFmt::Int);
    }
    match xlat::ADJTIMEX_STATE.lookup(r as u64) {
        Some(n) => Step::Done(RetFmt::Value(Ret::Annotated(
            Box::new(Ret::Int(r)),
            Cow::Borrowed(n),
        ))),
        None => Step::Done(RetFmt::Int),
    }
}

fn adjtimex(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    timex_exit(c, 0)
}

fn clock_adjtime(c: &mut Ctx) -> Step {
    if c.entering() {
        let v = c.enum_value(c.arg(0) as u32 as u64, &xlat::CLOCKS, "CLOCK_???");
        c.push(v);
        return Step::Exit;
    }
    timex_exit(c, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn timex() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(adjtimex, "adjtimex", &[0], -14, &mut m),
            "adjtimex(NULL) = -1 EFAULT (Bad address)"
        );
        let mut b = vec![0u8; TIMEX_SIZE];
        b[40..44].copy_from_slice(&0x40u32.to_le_bytes());
        b[88..96].copy_from_slice(&10000u64.to_le_bytes());
        let a = m.put(&b);
        assert_eq!(
            run(clock_adjtime, "clock_adjtime", &[0, a], 5, &mut m),
            "clock_adjtime(CLOCK_REALTIME, {modes=0, offset=0, freq=0, maxerror=0, esterror=0, status=STA_UNSYNC, constant=0, precision=0, tolerance=0, time={tv_sec=0, tv_usec=0}, tick=10000, ppsfreq=0, jitter=0, shift=0, stabil=0, jitcnt=0, calcnt=0, errcnt=0, stbcnt=0, tai=0}) = 5 (TIME_ERROR)"
        );
    }
}
