//! `siginfo_t` as strace prints it (`{si_signo=SIGCHLD, si_code=CLD_EXITED,
//! ...}`) for every personality, from bytes or from tracee memory; and
//! `clock_t` values.

use crate::syscall::printers::{id_value, le32, le64, struct_at, xint};
use crate::syscall::signal::sig_value;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Arch};
use std::borrow::Cow;

/// The size of `siginfo_t` in every personality.
pub const SIGINFO_SIZE: usize = 128;

/// Offsets of the `siginfo_t` union members in one personality.
struct SiLayout {
    /// Start of the union (`si_pid`, `si_addr`, `si_band`, …).
    base: usize,
    /// Size of a pointer, `long` and `clock_t`.
    word: usize,
}

impl SiLayout {
    fn of(arch: Arch) -> SiLayout {
        if arch.word_size() == 4 {
            SiLayout { base: 12, word: 4 }
        } else {
            SiLayout { base: 16, word: 8 }
        }
    }

    fn int(&self, b: &[u8], off: usize) -> i64 {
        le32(b, off) as u32 as i32 as i64
    }

    fn uint(&self, b: &[u8], off: usize) -> u64 {
        le32(b, off)
    }

    fn word(&self, b: &[u8], off: usize) -> u64 {
        if self.word == 4 {
            le32(b, off)
        } else {
            le64(b, off)
        }
    }
}

/// A 128-byte `siginfo_t` of personality `arch` exactly as strace prints it
/// (`{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1234, si_uid=0,
/// si_status=0, si_utime=0, si_stime=0}`); `{}` when `si_signo` is zero.
/// Short buffers decode as if zero-filled.
pub fn siginfo_value(arch: Arch, bytes: &[u8]) -> Value {
    siginfo_value_styled(arch, 0, bytes)
}

/// [`siginfo_value`] in an `-X` style (0 abbrev, 1 raw, 2 verbose).
pub fn siginfo_value_styled(arch: Arch, style: u8, bytes: &[u8]) -> Value {
    let l = SiLayout::of(arch);
    let b = bytes;
    let signo = l.int(b, 0);
    let mut f = Vec::new();
    if signo == 0 {
        return Value::structure(f);
    }
    let code = l.int(b, 8);
    f.push(Field::new("si_signo", sig_value(style, signo)));
    f.push(Field::new("si_code", si_code_value(style, code, signo)));
    // si_errno: the errno name, or the number as unsigned (PRINT_FIELD_ERR_U).
    let errno = l.uint(b, 4);
    if errno != 0 {
        let v = match (rtrace_arch::tables::errno_name(errno), style) {
            (Some(n), 0) => Value::sym(n),
            (Some(n), 2) => Value::Commented(Box::new(Value::UInt(errno)), Cow::Borrowed(n)),
            _ => Value::UInt(errno),
        };
        f.push(Field::new("si_errno", v));
    }
    let base = l.base;
    let source = |f: &mut Vec<Field>| {
        f.push(Field::new(
            "si_pid",
            Value::Pid {
                pid: l.int(b, base),
                comm: None,
            },
        ));
        f.push(Field::new("si_uid", id_value(l.uint(b, base + 4) as u32)));
    };
    // si_int / si_ptr of the sigval after pid/uid (or timerid/overrun).
    let sigval_off = base + 8;
    let sigval = |f: &mut Vec<Field>| {
        f.push(Field::new("si_int", Value::Int(l.int(b, sigval_off))));
        f.push(Field::new("si_ptr", Value::Ptr(l.word(b, sigval_off))));
    };
    let ptr_at = |off: usize| Value::Ptr(l.word(b, off));
    if code <= 0 {
        match code {
            0 | -6 => source(&mut f), // SI_USER, SI_TKILL
            -2 => {
                // SI_TIMER
                f.push(Field::new("si_timerid", xint(l.uint(b, base))));
                f.push(Field::new("si_overrun", Value::Int(l.int(b, base + 4))));
                sigval(&mut f);
            }
            -5 => {
                // SI_SIGIO
                f.push(Field::new("si_band", Value::Int(l.word(b, base) as i64)));
                f.push(Field::new("si_fd", Value::Int(l.int(b, base + l.word))));
            }
            _ => {
                source(&mut f);
                if l.word(b, sigval_off) != 0 {
                    sigval(&mut f);
                }
            }
        }
        return Value::structure(f);
    }
    match signo {
        17 => {
            // SIGCHLD
            source(&mut f);
            let status = l.int(b, base + 8);
            let st = if code == 1 {
                Value::Int(status)
            } else {
                sig_value(style, status)
            };
            f.push(Field::new("si_status", st));
            let t = if l.word == 4 { base + 12 } else { base + 16 };
            f.push(Field::new("si_utime", clock_t_styled(style, l.word(b, t))));
            f.push(Field::new(
                "si_stime",
                clock_t_styled(style, l.word(b, t + l.word)),
            ));
        }
        4 | 8 => f.push(Field::new("si_addr", ptr_at(base))), // SIGILL, SIGFPE
        7 => {
            // SIGBUS
            f.push(Field::new("si_addr", ptr_at(base)));
            if code == 4 || code == 5 {
                let lsb = le32(b, base + l.word) & 0xffff;
                f.push(Field::new("si_addr_lsb", xint(lsb)));
            }
        }
        11 => {
            // SIGSEGV; the bound/pkey members follow a pointer-sized pad.
            f.push(Field::new("si_addr", ptr_at(base)));
            let extra = base + 2 * l.word;
            match code {
                3 => {
                    f.push(Field::new("si_lower", ptr_at(extra)));
                    f.push(Field::new("si_upper", ptr_at(extra + l.word)));
                }
                4 => f.push(Field::new("si_pkey", Value::UInt(l.uint(b, extra)))),
                _ => {}
            }
        }
        5 => f.push(Field::new("si_addr", ptr_at(base))), // SIGTRAP
        29 => {
            // SIGIO / SIGPOLL
            if (1..=3).contains(&code) {
                f.push(Field::new("si_band", Value::Int(l.word(b, base) as i64)));
                f.push(Field::new("si_fd", Value::Int(l.int(b, base + l.word))));
            }
        }
        31 => {
            // SIGSYS
            f.push(Field::new("si_call_addr", ptr_at(base)));
            let nr = l.uint(b, base + l.word);
            let audit = l.uint(b, base + l.word + 4);
            f.push(Field::new("si_syscall", syscall_nr_value(style, nr, audit)));
            let a = match (xlat::AUDIT_ARCH.lookup(audit), style) {
                (Some(n), 0) => Value::sym(n),
                (Some(n), 2) => Value::Commented(Box::new(xint(audit)), Cow::Borrowed(n)),
                (_, 1) => xint(audit),
                _ => Value::Commented(Box::new(xint(audit)), Cow::Borrowed("AUDIT_ARCH_???")),
            };
            f.push(Field::new("si_arch", a));
        }
        _ => {
            if l.int(b, base) != 0 || l.uint(b, base + 4) != 0 {
                source(&mut f);
            }
            if l.word(b, sigval_off) != 0 {
                sigval(&mut f);
            }
        }
    }
    Value::structure(f)
}

/// `si_syscall=__NR_getpid`, or the number when the audit arch or the number
/// is unknown.
fn syscall_nr_value(style: u8, nr: u64, audit: u64) -> Value {
    let name = Arch::from_audit_arch(audit as u32).and_then(|a| a.syscall_name(nr));
    match (name, style) {
        (Some(n), 0) => Value::sym_owned(format!("__NR_{n}")),
        (Some(n), 2) => {
            Value::Commented(Box::new(Value::UInt(nr)), Cow::Owned(format!("__NR_{n}")))
        }
        _ => Value::UInt(nr),
    }
}

/// strace's `print_si_code`: the generic `SI_*` names first, then the codes
/// of the signal; the code in hex when neither knows it.
fn si_code_value(style: u8, code: i64, signo: i64) -> Value {
    let generic = xlat::SIGNAL_CODES.lookup(code as u64);
    let per_signal = || {
        let table = match signo {
            5 => &xlat::SIGTRAP_CODES,
            17 => &xlat::SIGCHLD_CODES,
            29 => &xlat::SIGPOLL_CODES,
            27 => &xlat::SIGPROF_CODES,
            4 => &xlat::SIGILL_CODES,
            8 => &xlat::SIGFPE_CODES,
            11 => &xlat::SIGSEGV_CODES,
            7 => &xlat::SIGBUS_CODES,
            31 => &xlat::SIGSYS_CODES,
            _ => return None,
        };
        // strace 6.1 has no name for SEGV_CPERR (10) and later codes.
        if signo == 11 && code > 9 {
            return None;
        }
        table.lookup(code as u64)
    };
    let raw = xint(code as u32 as u64);
    match (generic.or_else(per_signal), style) {
        (Some(n), 0) => Value::sym(n),
        (Some(n), 2) => Value::Commented(Box::new(raw), Cow::Borrowed(n)),
        _ => raw,
    }
}

/// strace's `print_clock_t`: ticks, with the seconds in a comment when
/// non-zero (`61 /* 0.61 s */`, at the usual 100 ticks per second); `-X raw`
/// (style 1) prints the bare ticks.
pub(in crate::syscall) fn clock_t_styled(style: u8, v: u64) -> Value {
    const HZ: u64 = 100;
    if v == 0 || style == 1 {
        return Value::UInt(v);
    }
    Value::Commented(
        Box::new(Value::UInt(v)),
        Cow::Owned(format!("{}.{:02} s", v / HZ, v % HZ)),
    )
}

/// strace's `printsiginfo_at`: the `siginfo_t` at `addr`, or the pointer.
pub(in crate::syscall) fn siginfo_at(c: &mut Ctx, addr: u64) -> Value {
    let (arch, style) = (c.arch, c.opts.xlat_style);
    let mut v = struct_at(c, addr, Some(SIGINFO_SIZE), |_, b| {
        siginfo_value_styled(arch, style, b)
    });
    siginfo_fd_paths(c, &mut v);
    c.translate_pids(&mut v);
    v
}

/// Gives the `si_fd` of a decoded siginfo its path under `-y`
/// (`si_fd=3</dev/null>`), as strace's `PRINT_FIELD_FD` does.
pub(in crate::syscall) fn siginfo_fd_paths(c: &mut Ctx, v: &mut Value) {
    if let Value::Struct(fields, _) = v {
        for f in fields.iter_mut() {
            if f.name == "si_fd" {
                if let Value::Int(fd) = f.value {
                    f.value = c.fd_value(fd);
                }
            }
        }
    }
}

/// strace's `print_siginfo_array`: `n` siginfos at `addr`.
pub(in crate::syscall) fn siginfo_array_at(c: &mut Ctx, addr: u64, n: u64) -> Value {
    let (arch, style) = (c.arch, c.opts.xlat_style);
    let mut v = crate::syscall::array::array_at(c, addr, n, SIGINFO_SIZE, |c, b| {
        let mut one = siginfo_value_styled(arch, style, b);
        siginfo_fd_paths(c, &mut one);
        Some(one)
    });
    c.translate_pids(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syscall::signal::tests::{siginfo, text};

    #[test]
    fn siginfo_lines() {
        let chld = siginfo(&[(0, 17, 4), (8, 1, 4), (16, 1234, 4), (20, 0, 4), (24, 3, 4)]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &chld)),
            "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1234, si_uid=0, si_status=3, si_utime=0, si_stime=0}"
        );
        let killed = siginfo(&[(0, 17, 4), (8, 2, 4), (16, 7, 4), (24, 15, 4), (32, 61, 8)]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &killed)),
            "{si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=7, si_uid=0, si_status=SIGTERM, si_utime=61 /* 0.61 s */, si_stime=0}"
        );
        let segv = siginfo(&[(0, 11, 4), (8, 1, 4)]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &segv)),
            "{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL}"
        );
        let user = siginfo(&[(0, 10, 4), (16, 42, 4)]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &user)),
            "{si_signo=SIGUSR1, si_code=SI_USER, si_pid=42, si_uid=0}"
        );
        let tkill = siginfo(&[(0, 19, 4), (8, -6i64 as u64, 4), (16, 9, 4)]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &tkill)),
            "{si_signo=SIGSTOP, si_code=SI_TKILL, si_pid=9, si_uid=0}"
        );
        let queue = siginfo(&[(0, 10, 4), (8, -1i64 as u64, 4), (16, 5, 4), (24, 42, 8)]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &queue)),
            "{si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=5, si_uid=0, si_int=42, si_ptr=0x2a}"
        );
        let timer = siginfo(&[
            (0, 14, 4),
            (8, -2i64 as u64, 4),
            (16, 0, 4),
            (24, 0x1000, 8),
        ]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &timer)),
            "{si_signo=SIGALRM, si_code=SI_TIMER, si_timerid=0, si_overrun=0, si_int=4096, si_ptr=0x1000}"
        );
        let kernel = siginfo(&[(0, 14, 4), (8, 0x80, 4)]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &kernel)),
            "{si_signo=SIGALRM, si_code=SI_KERNEL}"
        );
        assert_eq!(text(&siginfo_value(Arch::X86_64, &[0; 128])), "{}");
        let i386 = siginfo(&[(0, 17, 4), (8, 1, 4), (12, 99, 4), (20, 0, 4)]);
        assert_eq!(
            text(&siginfo_value(Arch::I386, &i386)),
            "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=99, si_uid=0, si_status=0, si_utime=0, si_stime=0}"
        );
        // Truncated input never panics.
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &[11, 0, 0, 0])),
            "{si_signo=SIGSEGV, si_code=SI_USER, si_pid=0, si_uid=0}"
        );
    }

    #[test]
    fn siginfo_signedness() {
        // si_errno unsigned when unnamed, si_uid -1, si_syscall unsigned.
        let q = siginfo(&[
            (0, 10, 4),
            (4, u32::MAX as u64, 4),
            (8, (-1i32) as u32 as u64, 4),
            (16, 5, 4),
            (20, u32::MAX as u64, 4),
        ]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &q)),
            "{si_signo=SIGUSR1, si_code=SI_QUEUE, si_errno=4294967295, si_pid=5, si_uid=-1}"
        );
        let sys = siginfo(&[
            (0, 31, 4),
            (4, 2, 4),
            (8, 1, 4),
            (24, u32::MAX as u64, 4),
            (28, 0xc000003e, 4),
        ]);
        assert_eq!(
            text(&siginfo_value_styled(Arch::X86_64, 1, &sys)),
            "{si_signo=31, si_code=0x1, si_errno=2, si_call_addr=NULL, si_syscall=4294967295, si_arch=0xc000003e}"
        );
        let segv = siginfo(&[(0, 11, 4), (8, 10, 4)]);
        assert_eq!(
            text(&siginfo_value(Arch::X86_64, &segv)),
            "{si_signo=SIGSEGV, si_code=0xa, si_addr=NULL}"
        );
        assert_eq!(text(&clock_t_styled(1, 61)), "61");
    }
}
