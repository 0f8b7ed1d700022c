//! Resources and system information: getrlimit/setrlimit/prlimit64,
//! getrusage, getpriority/setpriority, uname, sysinfo, times, getrandom,
//! and personality (rseq is in `rseq.rs`).

use crate::syscall::printers::{enum_arg, flags_arg, hex_quoted, le32, le64, struct_at, xint};
use crate::syscall::signal::clock_t_styled;
use crate::syscall::time::timeval_fields;
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, StrVal, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("getrlimit", getrlimit),
    ("ugetrlimit", getrlimit),
    ("setrlimit", setrlimit),
    ("prlimit64", prlimit64),
    ("getrusage", getrusage),
    ("getpriority", getpriority),
    ("setpriority", setpriority),
    ("uname", uname),
    ("sysinfo", sysinfo),
    ("times", times),
    ("getrandom", getrandom),
    ("personality", personality),
];

// ---- rlimits ----

/// strace's `print_rlim64_t`: `RLIM64_INFINITY`, `8192*1024`, or the number
/// (`-X raw` the number, `-X verbose` the number with the form in a comment).
fn rlim_value(c: &Ctx, v: u64, wide: bool) -> Value {
    let inf = if wide { u64::MAX } else { u32::MAX as u64 };
    let s = if v == inf {
        Some(
            if wide {
                "RLIM64_INFINITY"
            } else {
                "RLIM_INFINITY"
            }
            .to_string(),
        )
    } else if v > 1024 && v.is_multiple_of(1024) {
        Some(format!("{}*1024", v / 1024))
    } else {
        None
    };
    match (s, c.opts.xlat_style) {
        (Some(s), 0) => Value::sym_owned(s),
        (Some(s), 2) => Value::Commented(Box::new(Value::UInt(v)), Cow::Owned(s)),
        _ => Value::UInt(v),
    }
}

/// `{rlim_cur=…, rlim_max=…}` at `addr`; `wide` selects 64-bit fields.
fn rlimit_at(c: &mut Ctx, addr: u64, wide: bool) -> Value {
    let w = if wide { 8 } else { 4 };
    struct_at(c, addr, Some(2 * w), |c, b| {
        let get = |off| if wide { le64(b, off) } else { le32(b, off) };
        Value::structure(vec![
            Field::new("rlim_cur", rlim_value(c, get(0), wide)),
            Field::new("rlim_max", rlim_value(c, get(w), wide)),
        ])
    })
}

/// A resource name: `RLIMIT_NOFILE`, or `0x63 /* RLIMIT_??? */`.
fn resource_arg(c: &mut Ctx, i: usize) {
    enum_arg(c, i, &xlat::RESOURCES, "RLIMIT_???");
}

/// `getrlimit(resource, rlim)` (and i386's `ugetrlimit`): the limit at exit.
fn getrlimit(c: &mut Ctx) -> Step {
    if c.entering() {
        resource_arg(c, 0);
        return Step::Exit;
    }
    let wide = c.arch.word_size() == 8;
    let v = rlimit_at(c, c.arg_ulong(1), wide);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `setrlimit(resource, rlim)`.
fn setrlimit(c: &mut Ctx) -> Step {
    resource_arg(c, 0);
    let wide = c.arch.word_size() == 8;
    let v = rlimit_at(c, c.arg_ulong(1), wide);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `prlimit64(pid, resource, new_limit, old_limit)`: the old limit at exit.
fn prlimit64(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        resource_arg(c, 1);
        let v = rlimit_at(c, c.arg_ulong(2), true);
        c.push(v);
        return Step::Exit;
    }
    let v = rlimit_at(c, c.arg_ulong(3), true);
    c.push(v);
    Step::Done(RetFmt::Int)
}

// ---- rusage ----

/// The `long` members of `struct rusage` after the two timevals.
const RUSAGE_LONGS: [&str; 14] = [
    "ru_maxrss",
    "ru_ixrss",
    "ru_idrss",
    "ru_isrss",
    "ru_minflt",
    "ru_majflt",
    "ru_nswap",
    "ru_inblock",
    "ru_oublock",
    "ru_msgsnd",
    "ru_msgrcv",
    "ru_nsignals",
    "ru_nvcsw",
    "ru_nivcsw",
];

/// strace's `printrusage`: `{ru_utime={...}, ru_stime={...}, ...}`, every
/// field under `-v`.
pub(in crate::syscall) fn rusage_at(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    struct_at(c, addr, Some(18 * w), |c, b| {
        let mut f = vec![
            Field::new("ru_utime", timeval_fields(b, 0, w)),
            Field::new("ru_stime", timeval_fields(b, 2 * w, w)),
        ];
        if !c.opts.verbose {
            return Value::Struct(f, true);
        }
        for (i, name) in RUSAGE_LONGS.iter().enumerate() {
            let off = (4 + i) * w;
            // strace prints these longs with PRINT_FIELD_U: unsigned.
            let v = if w == 4 { le32(b, off) } else { le64(b, off) };
            f.push(Field::new(name, Value::UInt(v)));
        }
        Value::structure(f)
    })
}

/// `getrusage(who, usage)`.
fn getrusage(c: &mut Ctx) -> Step {
    if c.entering() {
        let who = c.arg_int(0) as i64 as u64;
        let v = c.enum_value(who, &xlat::RUSAGE_WHO, "RUSAGE_???");
        c.push(v);
        return Step::Exit;
    }
    let v = rusage_at(c, c.arg_ulong(1));
    c.push(v);
    Step::Done(RetFmt::Int)
}

// ---- priorities ----

/// `getpriority(which, who)`.
fn getpriority(c: &mut Ctx) -> Step {
    enum_arg(c, 0, &xlat::PRIORITIES, "PRIO_???");
    match xlat::PRIORITIES.lookup(c.arg(0) as u32 as u64) {
        Some("PRIO_PROCESS") => c.pid(1),
        Some("PRIO_PGRP") => c.id(1, crate::syscall::ctx::PidKind::Pgid),
        _ => c.int(1),
    }
    Step::Done(RetFmt::Int)
}

/// `setpriority(which, who, prio)`.
fn setpriority(c: &mut Ctx) -> Step {
    getpriority(c);
    c.int(2);
    Step::Done(RetFmt::Int)
}

// ---- system information ----

/// One 65-byte `struct utsname` member, quoted up to its NUL.
fn uts_field(b: &[u8], i: usize) -> Value {
    let f = b.get(65 * i..65 * (i + 1)).unwrap_or(&[]);
    let end = f.iter().position(|&x| x == 0);
    Value::Str(StrVal {
        bytes: f[..end.unwrap_or(f.len())].to_vec(),
        truncated: end.is_none(),
        c_string: true,
    })
}

/// `uname(buf)`: `{sysname="Linux", nodename="vm", ...}`; all six under `-v`.
fn uname(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let v = struct_at(c, c.arg_ulong(0), Some(6 * 65), |c, b| {
        let names = [
            "sysname",
            "nodename",
            "release",
            "version",
            "machine",
            "domainname",
        ];
        let n = if c.opts.verbose { 6 } else { 2 };
        let f = names
            .iter()
            .take(n)
            .enumerate()
            .map(|(i, name)| Field::new(name, uts_field(b, i)))
            .collect();
        Value::Struct(f, !c.opts.verbose)
    });
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `sysinfo(info)`: every field, always.
fn sysinfo(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let w = c.arch.word_size();
    let v = struct_at(
        c,
        c.arg_ulong(0),
        Some(if w == 4 { 64 } else { 112 }),
        |_, b| {
            let word = |i: usize| {
                if w == 4 {
                    le32(b, i * w)
                } else {
                    le64(b, i * w)
                }
            };
            let u = |i: usize| Value::UInt(word(i));
            // procs (u16) follows the ten longs; totalhigh starts at the next word.
            let procs = b
                .get(10 * w..10 * w + 2)
                .map_or(0, |p| u16::from_le_bytes([p[0], p[1]]));
            let high = 11;
            let mem_unit = le32(b, (high + 2) * w);
            Value::structure(vec![
                Field::new("uptime", Value::Int(word(0) as i64)),
                Field::new("loads", Value::Array(vec![u(1), u(2), u(3)], false)),
                Field::new("totalram", u(4)),
                Field::new("freeram", u(5)),
                Field::new("sharedram", u(6)),
                Field::new("bufferram", u(7)),
                Field::new("totalswap", u(8)),
                Field::new("freeswap", u(9)),
                Field::new("procs", Value::UInt(procs as u64)),
                Field::new("totalhigh", u(high)),
                Field::new("freehigh", u(high + 1)),
                Field::new("mem_unit", Value::UInt(mem_unit)),
            ])
        },
    );
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `times(buf)`: clock ticks with their seconds in comments.
fn times(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let w = c.arch.word_size();
    let style = c.opts.xlat_style;
    let v = struct_at(c, c.arg_ulong(0), Some(4 * w), |_, b| {
        let t = |i: usize| {
            clock_t_styled(
                style,
                if w == 4 {
                    le32(b, i * w)
                } else {
                    le64(b, i * w)
                },
            )
        };
        Value::structure(vec![
            Field::new("tms_utime", t(0)),
            Field::new("tms_stime", t(1)),
            Field::new("tms_cutime", t(2)),
            Field::new("tms_cstime", t(3)),
        ])
    });
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `getrandom(buf, buflen, flags)`: all at exit, the bytes in forced hex.
fn getrandom(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let addr = c.arg_ulong(0);
    let v = if c.failed() || addr == 0 {
        Value::Ptr(addr)
    } else {
        let n = c.retval().max(0) as u64;
        let limit = c.opts.string_limit as u64;
        let take = n.min(limit) as usize;
        match c.read_data(addr, take) {
            Some(b) => {
                let mut s = hex_quoted(&b);
                if n > limit {
                    s.push_str("...");
                }
                Value::sym_owned(s)
            }
            None if take == 0 => Value::sym("\"\""),
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    c.ulong(1);
    flags_arg(c, 2, &xlat::GETRANDOM_FLAGS, "GRND_???");
    Step::Done(RetFmt::Int)
}

// ---- personality ----

/// `PER_LINUX|ADDR_NO_RANDOMIZE`: the type in the low byte, then the flags;
/// the type as `0` (`-X raw`) or `0 /* PER_LINUX */` (`-X verbose`).
fn personality_text(style: u8, pers: u64) -> String {
    let ty = pers & 0xff;
    let hex = if ty == 0 {
        "0".to_string()
    } else {
        format!("{ty:#x}")
    };
    let mut s = match (xlat::PERSONALITY_TYPES.lookup(ty), style) {
        (_, 1) => hex,
        (Some(n), 2) => format!("{hex} /* {n} */"),
        (Some(n), _) => n.to_string(),
        (None, _) => format!("{hex} /* PER_??? */"),
    };
    let rest = pers & !0xff;
    if rest != 0 {
        let (names, left) = xlat::PERSONALITY_FLAGS.split_flags(rest);
        let mut text = names.join("|");
        if left != 0 {
            if !text.is_empty() {
                text.push('|');
            }
            text.push_str(&format!("{left:#x}"));
        }
        // -X raw: the flags in hex; -X verbose: hex with the names, when
        // any bit has one.
        match style {
            1 => s.push_str(&format!("|{rest:#x}")),
            2 if !names.is_empty() => s.push_str(&format!("|{rest:#x} /* {text} */")),
            2 => s.push_str(&format!("|{rest:#x}")),
            _ => {
                s.push('|');
                s.push_str(&text);
            }
        }
    }
    s
}

/// `personality(persona)`: the return is annotated the same way (`= 0
/// (PER_LINUX)`); the query value 0xffffffff prints as a number.
fn personality(c: &mut Ctx) -> Step {
    let pers = c.arg(0) as u32 as u64;
    let arg = if pers == 0xffff_ffff {
        xint(pers)
    } else {
        Value::sym_owned(personality_text(c.opts.xlat_style, pers))
    };
    if c.entering() {
        // Pushed at exit so the annotated return follows it on one line.
        return Step::Exit;
    }
    c.push(arg);
    if c.failed() {
        return Step::Done(RetFmt::Int);
    }
    let r = c.retval() as u64 & 0xffff_ffff;
    let shown = if r == 0 { Ret::Int(0) } else { Ret::Hex(r) };
    Step::Done(RetFmt::Value(Ret::Annotated(
        Box::new(shown),
        Cow::Owned(personality_text(c.opts.xlat_style, r)),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{pair, run, run_with};
    use crate::syscall::DecodeOpts;

    #[test]
    fn rlimits() {
        let mut m = FakeMemory::default();
        let stack = m.put(&pair(8192 * 1024, u64::MAX));
        let files = m.put(&pair(64, 64));
        assert_eq!(
            run(prlimit64, "prlimit64", &[0, 3, 0, stack], 0, &mut m),
            "prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0"
        );
        assert_eq!(
            run(prlimit64, "prlimit64", &[0, 7, files, 0], 0, &mut m),
            "prlimit64(0, RLIMIT_NOFILE, {rlim_cur=64, rlim_max=64}, NULL) = 0"
        );
        assert_eq!(
            run(getrlimit, "getrlimit", &[3, stack], 0, &mut m),
            "getrlimit(RLIMIT_STACK, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0"
        );
        assert_eq!(
            run(setrlimit, "setrlimit", &[99, stack], -22, &mut m),
            "setrlimit(0x63 /* RLIMIT_??? */, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(getrlimit, "getrlimit", &[3, stack], -14, &mut m),
            format!("getrlimit(RLIMIT_STACK, {stack:#x}) = -1 EFAULT (Bad address)")
        );
        let opts = DecodeOpts {
            xlat_style: 2,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(prlimit64, "prlimit64", &[0, 3, 0, stack], 0, &mut m, &opts),
            "prlimit64(0, 0x3 /* RLIMIT_STACK */, NULL, {rlim_cur=8388608 /* 8192*1024 */, rlim_max=18446744073709551615 /* RLIM64_INFINITY */}) = 0"
        );
    }

    #[test]
    fn rusage() {
        let mut m = FakeMemory::default();
        let mut ru = pair(0, 1049);
        ru.extend_from_slice(&pair(0, 0));
        for i in 0..14u64 {
            ru.extend_from_slice(&(i * 10).to_le_bytes());
        }
        let ru = m.put(&ru);
        assert_eq!(
            run(getrusage, "getrusage", &[0, ru], 0, &mut m),
            "getrusage(RUSAGE_SELF, {ru_utime={tv_sec=0, tv_usec=1049}, ru_stime={tv_sec=0, tv_usec=0}, ...}) = 0"
        );
        assert_eq!(
            run(getrusage, "getrusage", &[u64::MAX, ru], 0, &mut m)[..27].to_string(),
            "getrusage(RUSAGE_CHILDREN, "
        );
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(getrusage, "getrusage", &[1, ru], 0, &mut m, &opts),
            "getrusage(RUSAGE_THREAD, {ru_utime={tv_sec=0, tv_usec=1049}, ru_stime={tv_sec=0, tv_usec=0}, ru_maxrss=0, ru_ixrss=10, ru_idrss=20, ru_isrss=30, ru_minflt=40, ru_majflt=50, ru_nswap=60, ru_inblock=70, ru_oublock=80, ru_msgsnd=90, ru_msgrcv=100, ru_nsignals=110, ru_nvcsw=120, ru_nivcsw=130}) = 0"
        );
    }

    #[test]
    fn sysinfo_calls() {
        let mut m = FakeMemory::default();
        let mut u = vec![0u8; 390];
        for (i, s) in ["Linux", "vm", "6.1.0", "#1 SMP", "x86_64", "(none)"]
            .iter()
            .enumerate()
        {
            u[65 * i..65 * i + s.len()].copy_from_slice(s.as_bytes());
        }
        let u = m.put(&u);
        assert_eq!(
            run(uname, "uname", &[u], 0, &mut m),
            "uname({sysname=\"Linux\", nodename=\"vm\", ...}) = 0"
        );
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(uname, "uname", &[u], 0, &mut m, &opts),
            "uname({sysname=\"Linux\", nodename=\"vm\", release=\"6.1.0\", version=\"#1 SMP\", machine=\"x86_64\", domainname=\"(none)\"}) = 0"
        );
        let mut si = Vec::new();
        for v in [
            1122u64,
            101408,
            121024,
            65696,
            25276514304,
            24237072384,
            8998912,
            5120000,
            0,
            0,
        ] {
            si.extend_from_slice(&v.to_le_bytes());
        }
        si.extend_from_slice(&131u16.to_le_bytes());
        si.resize(88, 0);
        si.extend_from_slice(&0u64.to_le_bytes());
        si.extend_from_slice(&0u64.to_le_bytes());
        si.extend_from_slice(&1u32.to_le_bytes());
        si.resize(112, 0);
        let si = m.put(&si);
        assert_eq!(
            run(sysinfo, "sysinfo", &[si], 0, &mut m),
            "sysinfo({uptime=1122, loads=[101408, 121024, 65696], totalram=25276514304, freeram=24237072384, sharedram=8998912, bufferram=5120000, totalswap=0, freeswap=0, procs=131, totalhigh=0, freehigh=0, mem_unit=1}) = 0"
        );
        let mut t = 61u64.to_le_bytes().to_vec();
        t.resize(32, 0);
        let t = m.put(&t);
        assert_eq!(
            run(times, "times", &[t], 1718083168, &mut m),
            "times({tms_utime=61 /* 0.61 s */, tms_stime=0, tms_cutime=0, tms_cstime=0}) = 1718083168"
        );
    }

    #[test]
    fn random_personality() {
        let mut m = FakeMemory::default();
        let buf = m.put(&[0x4e, 0x76, 0xea, 0x74]);
        assert_eq!(
            run(getrandom, "getrandom", &[buf, 4, 1], 4, &mut m),
            "getrandom(\"\\x4e\\x76\\xea\\x74\", 4, GRND_NONBLOCK) = 4"
        );
        assert_eq!(
            run(getrandom, "getrandom", &[buf, 0, 1], 0, &mut m),
            "getrandom(\"\", 0, GRND_NONBLOCK) = 0"
        );
        assert_eq!(
            run(getrandom, "getrandom", &[0, 4, 0x100], -22, &mut m),
            "getrandom(NULL, 4, 0x100 /* GRND_??? */) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(personality, "personality", &[0xffff_ffff], 0, &mut m),
            "personality(0xffffffff) = 0 (PER_LINUX)"
        );
        assert_eq!(
            run(personality, "personality", &[0x40000], 0x40000, &mut m),
            "personality(PER_LINUX|ADDR_NO_RANDOMIZE) = 0x40000 (PER_LINUX|ADDR_NO_RANDOMIZE)"
        );
    }

    #[test]
    fn priorities() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(getpriority, "getpriority", &[99, 0], -22, &mut m),
            "getpriority(0x63 /* PRIO_??? */, 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(setpriority, "setpriority", &[0, 0, 0], 0, &mut m),
            "setpriority(PRIO_PROCESS, 0, 0) = 0"
        );
    }
}
