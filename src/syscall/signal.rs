//! Signals: rt_sigaction, rt_sigprocmask, rt_sigpending, rt_sigsuspend,
//! rt_sigtimedwait, rt_sigqueueinfo, rt_tgsigqueueinfo, sigaltstack, pause;
//! and the shared printers of signal numbers (`SIGINT`, `10 /* SIGUSR1 */`),
//! signal sets (`[INT TERM]`, `~[RTMIN RT_1]`) and `siginfo_t`, which the
//! engine also uses for its `--- SIGCHLD {si_signo=SIGCHLD, ...} ---` lines.
//!
//! Layouts: x86_64 and aarch64 share the 64-bit `siginfo_t`, `stack_t` and
//! kernel `struct sigaction`; the i386 personality's 32-bit layouts are
//! decoded too. `rt_sigreturn` needs the stack pointer, which [`Ctx`] does
//! not carry: [`sigreturn_mask_addr`] gives the engine the address to read.

use super::ctx::signal_name;
use super::printers::{le32, le64, struct_at, xflags, xint};
use super::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::{xlat, Arch};
use std::borrow::Cow;

pub(super) const DECODERS: &[(&str, Decoder)] = &[
    ("rt_sigaction", rt_sigaction),
    ("rt_sigprocmask", rt_sigprocmask),
    ("rt_sigpending", rt_sigpending),
    ("rt_sigsuspend", rt_sigsuspend),
    ("rt_sigtimedwait", rt_sigtimedwait),
    ("rt_sigtimedwait_time64", rt_sigtimedwait),
    ("rt_sigqueueinfo", rt_sigqueueinfo),
    ("rt_tgsigqueueinfo", rt_tgsigqueueinfo),
    ("sigaltstack", sigaltstack),
    ("pause", no_args),
    ("rt_sigreturn", rt_sigreturn),
];

/// The size of the kernel's `sigset_t` (64 signals) in bytes.
const NSIG_BYTES: u64 = 8;

/// The size of `siginfo_t` in every personality.
pub const SIGINFO_SIZE: usize = 128;

// ---- signal numbers ----

/// strace's `printsignal`: `SIGUSR1`, or the number when it has no name;
/// `-X raw` prints the number, `-X verbose` the number with the name in a
/// comment.
pub(super) fn sig_value(style: u8, sig: i64) -> Value {
    let name = u64::try_from(sig).ok().and_then(signal_name);
    match (name, style) {
        (Some(n), 0) => Value::Sym(n),
        (Some(n), 2) => Value::Commented(Box::new(Value::Int(sig)), n),
        _ => Value::Int(sig),
    }
}

/// A signal number argument (a C `int`).
pub(super) fn sig_arg(c: &mut Ctx, i: usize) {
    let v = sig_value(c.opts.xlat_style, c.arg_int(i) as i64);
    c.push(v);
}

/// The name strace prints for signal `i` inside a set: `INT`, `RTMIN`, `RT_3`.
fn set_member_name(i: u64) -> Option<Cow<'static, str>> {
    match signal_name(i)? {
        Cow::Borrowed(s) => Some(Cow::Borrowed(s.strip_prefix("SIG").unwrap_or(s))),
        Cow::Owned(s) => Some(Cow::Owned(s.strip_prefix("SIG").unwrap_or(&s).to_string())),
    }
}

// ---- signal sets ----

/// A signal set of `bytes` (at most 8 are used) as strace's `sprintsigmask_n`
/// prints it: `[INT TERM]`, `[]`, or `~[...]` listing the signals *not* in
/// the set when two thirds or more of its bits are set.
pub fn sigset_value(bytes: &[u8]) -> Value {
    sigset_value_styled(0, bytes)
}

/// [`sigset_value`] in an `-X` style (0 abbrev, 1 raw, 2 verbose).
pub fn sigset_value_styled(style: u8, bytes: &[u8]) -> Value {
    Value::sym_owned(sigset_text(style, bytes))
}

/// The text of a signal set (see [`sigset_value_styled`]).
fn sigset_text(style: u8, bytes: &[u8]) -> String {
    let n = bytes.len().min(NSIG_BYTES as usize);
    let words = n.div_ceil(4);
    let mut mask = 0u64;
    for (i, b) in bytes[..n].iter().enumerate() {
        mask |= (*b as u64) << (8 * i);
    }
    let nbits = words * 32;
    let mut s = String::new();
    if mask.count_ones() as usize >= nbits * 2 / 3 {
        mask = !mask;
        s.push('~');
    }
    let mut sep = '[';
    for bit in 0..nbits {
        if mask & (1u64 << bit) == 0 {
            continue;
        }
        let sig = bit as u64 + 1;
        s.push(sep);
        sep = ' ';
        let name = set_member_name(sig);
        match (style, name) {
            (1, _) | (_, None) => s.push_str(&sig.to_string()),
            (2, Some(n)) => s.push_str(&format!("{sig} /* {n} */")),
            (_, Some(n)) => s.push_str(&n),
        }
    }
    if sep == '[' {
        s.push('[');
    }
    s.push(']');
    s
}

/// strace's `print_sigset_addr_len_limit`: the set of `len` bytes at `addr`,
/// or the address when `len` is out of range, the pointer is NULL, the call
/// failed (at exit) or the memory is unreadable.
pub(super) fn sigset_at(c: &mut Ctx, addr: u64, len: u64, min_len: u64) -> Value {
    if len < min_len || len > NSIG_BYTES {
        return Value::Ptr(addr);
    }
    let style = c.opts.xlat_style;
    struct_at(c, addr, Some(len as usize), |_, b| {
        sigset_value_styled(style, b)
    })
}

/// A sigset argument `i` whose size is argument `len_arg`.
fn sigset_arg(c: &mut Ctx, i: usize, len_arg: usize) {
    let min = c.arch.word_size() as u64;
    let v = sigset_at(c, c.arg_ulong(i), c.arg_ulong(len_arg), min);
    c.push(v);
}

// ---- siginfo_t ----

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
    let errno = l.int(b, 4);
    if errno != 0 {
        let v = match rtrace_arch::tables::errno_name(errno as u64) {
            Some(n) if style == 0 => Value::sym(n),
            _ => Value::Int(errno),
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
        f.push(Field::new("si_uid", Value::UInt(l.uint(b, base + 4))));
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
            f.push(Field::new("si_utime", clock_t_value(l.word(b, t))));
            f.push(Field::new("si_stime", clock_t_value(l.word(b, t + l.word))));
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
            let nr = l.int(b, base + l.word);
            let audit = l.uint(b, base + l.word + 4);
            f.push(Field::new("si_syscall", syscall_nr_value(style, nr, audit)));
            let a = match xlat::AUDIT_ARCH.lookup(audit) {
                Some(n) if style == 0 => Value::sym(n),
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
fn syscall_nr_value(style: u8, nr: i64, audit: u64) -> Value {
    let name = Arch::from_audit_arch(audit as u32).and_then(|a| a.syscall_name(nr as u64));
    match (name, style) {
        (Some(n), 0) => Value::sym_owned(format!("__NR_{n}")),
        (Some(n), 2) => Value::Commented(Box::new(Value::Int(nr)), Cow::Owned(format!("__NR_{n}"))),
        _ => Value::Int(nr),
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
        table.lookup(code as u64)
    };
    let raw = xint(code as u32 as u64);
    match (generic.or_else(per_signal), style) {
        (Some(n), 0) => Value::sym(n),
        (Some(n), 2) => Value::Commented(Box::new(raw), Cow::Borrowed(n)),
        _ => raw,
    }
}

/// strace's `print_clock_t`: ticks, with the seconds in a comment when non-zero
/// (`61 /* 0.61 s */`, at the usual 100 ticks per second).
pub(super) fn clock_t_value(v: u64) -> Value {
    const HZ: u64 = 100;
    if v == 0 {
        return Value::UInt(0);
    }
    Value::Commented(
        Box::new(Value::UInt(v)),
        Cow::Owned(format!("{}.{:02} s", v / HZ, v % HZ)),
    )
}

/// strace's `printsiginfo_at`: the `siginfo_t` at `addr`, or the pointer.
pub(super) fn siginfo_at(c: &mut Ctx, addr: u64) -> Value {
    let (arch, style) = (c.arch, c.opts.xlat_style);
    struct_at(c, addr, Some(SIGINFO_SIZE), |_, b| {
        siginfo_value_styled(arch, style, b)
    })
}

/// Where the blocked-signal mask that `rt_sigreturn` restores lies, given the
/// stack pointer at its syscall entry (the `uc_sigmask` of the signal frame
/// the handler returned from), as strace reads it for `{mask=[...]}`.
pub fn sigreturn_mask_addr(arch: Arch, sp: u64) -> u64 {
    match arch {
        // The handler's `ret` popped `pretcode`: sp is the ucontext;
        // uc_sigmask follows uc_flags, uc_link, uc_stack and uc_mcontext.
        Arch::X86_64 => sp.wrapping_add(8 + 8 + 24 + 256),
        // sp is the rt_sigframe: a 128-byte siginfo, then the ucontext.
        Arch::Aarch64 => sp.wrapping_add(128 + 8 + 8 + 24),
        // pretcode popped: sig, pinfo, puc, 128-byte info, then the 32-bit
        // ucontext with its 88-byte sigcontext.
        Arch::I386 => sp.wrapping_add(4 + 4 + 4 + 128 + 4 + 4 + 12 + 88),
    }
}

/// `rt_sigreturn({mask=[...]})`'s argument, given the stack pointer at entry.
pub fn sigreturn_value(c: &mut Ctx, sp: u64) -> Value {
    let addr = sigreturn_mask_addr(c.arch, sp);
    let v = sigset_at(c, addr, NSIG_BYTES, NSIG_BYTES);
    Value::structure(vec![Field::new("mask", v)])
}

// ---- decoders ----

/// `rt_sigreturn({mask=[...]})`: the mask comes from the signal frame at the
/// stack pointer.
fn rt_sigreturn(c: &mut Ctx) -> Step {
    let v = sigreturn_value(c, c.sp);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// A call without arguments (`pause()`).
fn no_args(_: &mut Ctx) -> Step {
    Step::Done(RetFmt::Int)
}

/// The kernel's `struct sigaction` at `addr`: `{sa_handler=SIG_DFL,
/// sa_mask=[...], sa_flags=SA_RESTORER|..., sa_restorer=0x...}`.
fn sigaction_at(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    // strace reads its own `struct new_sigaction`, whose mask has room for
    // 1024 signals: 88 bytes (76 for i386) even though the kernel uses 32.
    let size = if w == 4 { 76 } else { 88 };
    struct_at(c, addr, Some(size), |c, b| {
        let word = |off: usize| if w == 4 { le32(b, off) } else { le64(b, off) };
        let handler = word(0);
        let flags = word(w);
        let restorer = word(2 * w);
        let mask = &b[3 * w..3 * w + 8];
        let hv = if w == 4 {
            handler as u32 as i32 as i64 as u64
        } else {
            handler
        };
        let h = match xlat::SA_HANDLER_VALUES.lookup(hv) {
            Some(_) => c.enum_value(hv, &xlat::SA_HANDLER_VALUES, ""),
            None => Value::Ptr(handler),
        };
        let mut f = vec![
            Field::new("sa_handler", h),
            Field::new("sa_mask", sigset_value_styled(c.opts.xlat_style, mask)),
            Field::new("sa_flags", xflags(c, flags, &xlat::SA_FLAGS, "SA_???")),
        ];
        if flags & xlat::SA_FLAGS.value("SA_RESTORER").unwrap_or(0x0400_0000) != 0 {
            f.push(Field::new("sa_restorer", Value::Ptr(restorer)));
        }
        Value::structure(f)
    })
}

/// `rt_sigaction(sig, act, oldact, sigsetsize)`: the old action at exit.
fn rt_sigaction(c: &mut Ctx) -> Step {
    if c.entering() {
        sig_arg(c, 0);
        let v = sigaction_at(c, c.arg_ulong(1));
        c.push(v);
        return Step::Exit;
    }
    let v = sigaction_at(c, c.arg_ulong(2));
    c.push(v);
    c.ulong(3);
    Step::Done(RetFmt::Int)
}

/// `rt_sigprocmask(how, set, oldset, sigsetsize)`.
fn rt_sigprocmask(c: &mut Ctx) -> Step {
    if c.entering() {
        let v = c.enum_value(c.arg(0) as u32 as u64, &xlat::SIGPROCMASK_HOW, "SIG_???");
        c.push(v);
        sigset_arg(c, 1, 3);
        return Step::Exit;
    }
    sigset_arg(c, 2, 3);
    c.ulong(3);
    Step::Done(RetFmt::Int)
}

/// `rt_sigpending(set, sigsetsize)`: the set at exit; any size up to 8 bytes.
fn rt_sigpending(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let v = sigset_at(c, c.arg_ulong(0), c.arg_ulong(1), 1);
    c.push(v);
    c.ulong(1);
    Step::Done(RetFmt::Int)
}

/// `rt_sigsuspend(mask, sigsetsize)`.
fn rt_sigsuspend(c: &mut Ctx) -> Step {
    sigset_arg(c, 0, 1);
    c.ulong(1);
    Step::Done(RetFmt::Int)
}

/// `rt_sigtimedwait(set, info, timeout, sigsetsize)`: the info at exit; the
/// return value is annotated with the signal's name.
fn rt_sigtimedwait(c: &mut Ctx) -> Step {
    let info = c.arg_ulong(1);
    if c.entering() {
        sigset_arg(c, 0, 3);
        if info == 0 {
            c.push(Value::Ptr(0));
            let v = super::time::timespec_at(c, c.arg_ulong(2));
            c.push(v);
        }
        return Step::Exit;
    }
    if info != 0 {
        let v = siginfo_at(c, info);
        c.push(v);
        // The kernel does not write the timeout back: its value now is the
        // value strace read at entry.
        let addr = c.arg_ulong(2);
        let v = if addr == 0 {
            Value::Ptr(0)
        } else {
            match c.read_bytes(addr, super::time::timespec_size(c)) {
                Some(b) => super::time::timespec_bytes(c, &b),
                None => Value::Unreadable(addr),
            }
        };
        c.push(v);
    }
    c.ulong(3);
    if c.failed() || c.retval() == 0 {
        return Step::Done(RetFmt::Int);
    }
    let r = c.retval();
    match signal_name(r as u64) {
        Some(n) => Step::Done(RetFmt::Value(Ret::Annotated(Box::new(Ret::Int(r)), n))),
        None => Step::Done(RetFmt::Int),
    }
}

/// `rt_sigqueueinfo(tgid, sig, info)`.
fn rt_sigqueueinfo(c: &mut Ctx) -> Step {
    c.pid(0);
    sig_arg(c, 1);
    let v = siginfo_at(c, c.arg_ulong(2));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `rt_tgsigqueueinfo(tgid, tid, sig, info)`.
fn rt_tgsigqueueinfo(c: &mut Ctx) -> Step {
    c.pid(0);
    c.pid(1);
    sig_arg(c, 2);
    let v = siginfo_at(c, c.arg_ulong(3));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// A `stack_t` at `addr`: `{ss_sp=0x..., ss_flags=SS_ONSTACK, ss_size=8192}`.
fn stack_t_at(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    struct_at(c, addr, Some(3 * w), |c, b| {
        let word = |off: usize| if w == 4 { le32(b, off) } else { le64(b, off) };
        Value::structure(vec![
            Field::new("ss_sp", Value::Ptr(word(0))),
            Field::new(
                "ss_flags",
                xflags(c, le32(b, w), &xlat::SIGALTSTACK_FLAGS, "SS_???"),
            ),
            Field::new("ss_size", Value::UInt(word(2 * w))),
        ])
    })
}

/// `sigaltstack(ss, old_ss)`: the old stack at exit.
fn sigaltstack(c: &mut Ctx) -> Step {
    if c.entering() {
        let v = stack_t_at(c, c.arg_ulong(0));
        c.push(v);
        return Step::Exit;
    }
    let v = stack_t_at(c, c.arg_ulong(1));
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::super::memory::FakeMemory;
    use super::super::testutil::{run, run_env, run_with, Env};
    use super::super::DecodeOpts;
    use super::*;

    fn sigset(sigs: &[u64]) -> [u8; 8] {
        let mut m = 0u64;
        for s in sigs {
            m |= 1 << (s - 1);
        }
        m.to_le_bytes()
    }

    fn text(v: &Value) -> String {
        super::super::ctx::render_flags(v)
    }

    #[test]
    fn sigsets() {
        assert_eq!(text(&sigset_value(&sigset(&[2, 15]))), "[INT TERM]");
        assert_eq!(text(&sigset_value(&sigset(&[]))), "[]");
        assert_eq!(
            text(&sigset_value(&sigset(&[32, 35, 64]))),
            "[RTMIN RT_3 RT_32]"
        );
        let all: Vec<u64> = (1..=64).filter(|&s| s != 32 && s != 33).collect();
        assert_eq!(text(&sigset_value(&sigset(&all))), "~[RTMIN RT_1]");
        assert_eq!(text(&sigset_value(&[0xff; 8])), "~[]");
        assert_eq!(
            text(&sigset_value_styled(2, &sigset(&[2, 15]))),
            "[2 /* INT */ 15 /* TERM */]"
        );
        assert_eq!(text(&sigset_value_styled(1, &sigset(&[17]))), "[17]");
        // A 4-byte set: 21 of 32 bits make it inverted.
        assert_eq!(text(&sigset_value(&[0, 0, 0, 0])), "[]");
    }

    fn siginfo(words: &[(usize, u64, usize)]) -> Vec<u8> {
        let mut b = vec![0u8; 128];
        for &(off, v, size) in words {
            b[off..off + size].copy_from_slice(&v.to_le_bytes()[..size]);
        }
        b
    }

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

    fn kernel_sigaction(handler: u64, flags: u64, restorer: u64, mask: [u8; 8]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&handler.to_le_bytes());
        b.extend_from_slice(&flags.to_le_bytes());
        b.extend_from_slice(&restorer.to_le_bytes());
        b.extend_from_slice(&mask);
        b.resize(88, 0);
        b
    }

    #[test]
    fn sigaction_lines() {
        let mut m = FakeMemory::default();
        let act = m.put(&kernel_sigaction(
            0x5555_0000_1234,
            0x1400_0000,
            0x7f00_0000_0050,
            sigset(&[2, 15]),
        ));
        let old = m.put(&kernel_sigaction(0, 0, 0, sigset(&[])));
        assert_eq!(
            run(rt_sigaction, "rt_sigaction", &[10, act, old, 8], 0, &mut m),
            "rt_sigaction(SIGUSR1, {sa_handler=0x555500001234, sa_mask=[INT TERM], sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x7f0000000050}, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0"
        );
        let ign = m.put(&kernel_sigaction(
            1,
            0xffff_ffff_8c00_0004,
            0x10,
            sigset(&[35, 64, 32]),
        ));
        assert_eq!(
            run(rt_sigaction, "rt_sigaction", &[1, ign, 0, 8], 0, &mut m),
            "rt_sigaction(SIGHUP, {sa_handler=SIG_IGN, sa_mask=[RTMIN RT_3 RT_32], sa_flags=SA_RESTORER|SA_ONSTACK|SA_RESETHAND|SA_SIGINFO|0xffffffff00000000, sa_restorer=0x10}, NULL, 8) = 0"
        );
        assert_eq!(
            run(rt_sigaction, "rt_sigaction", &[1, 1, 0, 8], -14, &mut m),
            "rt_sigaction(SIGHUP, 0x1, NULL, 8) = -1 EFAULT (Bad address)"
        );
        assert_eq!(
            run(rt_sigaction, "rt_sigaction", &[99, 0, old, 8], -22, &mut m),
            format!("rt_sigaction(99, NULL, {old:#x}, 8) = -1 EINVAL (Invalid argument)")
        );
    }

    #[test]
    fn sigprocmask_lines() {
        let mut m = FakeMemory::default();
        let set = m.put(&sigset(&[17]));
        let old = m.put(&sigset(&[]));
        assert_eq!(
            run(
                rt_sigprocmask,
                "rt_sigprocmask",
                &[0, set, old, 8],
                0,
                &mut m
            ),
            "rt_sigprocmask(SIG_BLOCK, [CHLD], [], 8) = 0"
        );
        assert_eq!(
            run(rt_sigprocmask, "rt_sigprocmask", &[5, 0, 0, 8], 0, &mut m),
            "rt_sigprocmask(0x5 /* SIG_??? */, NULL, NULL, 8) = 0"
        );
        assert_eq!(
            run(
                rt_sigprocmask,
                "rt_sigprocmask",
                &[2, 0, old, 4],
                -22,
                &mut m
            ),
            format!(
                "rt_sigprocmask(SIG_SETMASK, NULL, {old:#x}, 4) = -1 EINVAL (Invalid argument)"
            )
        );
        let opts = DecodeOpts {
            xlat_style: 2,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(
                rt_sigprocmask,
                "rt_sigprocmask",
                &[2, set, 0, 8],
                0,
                &mut m,
                &opts
            ),
            "rt_sigprocmask(0x2 /* SIG_SETMASK */, [17 /* CHLD */], NULL, 8) = 0"
        );
        assert_eq!(
            run(rt_sigsuspend, "rt_sigsuspend", &[1, 8], -14, &mut m),
            "rt_sigsuspend(0x1, 8) = -1 EFAULT (Bad address)"
        );
        assert_eq!(
            run(rt_sigpending, "rt_sigpending", &[old, 8], 0, &mut m),
            "rt_sigpending([], 8) = 0"
        );
    }

    #[test]
    fn sigtimedwait_and_queue() {
        let mut m = FakeMemory::default();
        let set = m.put(&sigset(&[10]));
        let ts = m.put(
            &[0u8; 8]
                .iter()
                .chain(100u64.to_le_bytes().iter())
                .copied()
                .collect::<Vec<_>>(),
        );
        let info = m.put(&siginfo(&[
            (0, 10, 4),
            (8, -1i64 as u64, 4),
            (16, 5, 4),
            (24, 42, 8),
        ]));
        assert_eq!(
            run(rt_sigtimedwait, "rt_sigtimedwait", &[set, info, ts, 8], 10, &mut m),
            "rt_sigtimedwait([USR1], {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=5, si_uid=0, si_int=42, si_ptr=0x2a}, {tv_sec=0, tv_nsec=100}, 8) = 10 (SIGUSR1)"
        );
        assert_eq!(
            run(rt_sigtimedwait, "rt_sigtimedwait", &[set, 0, ts, 8], -11, &mut m),
            "rt_sigtimedwait([USR1], NULL, {tv_sec=0, tv_nsec=100}, 8) = -1 EAGAIN (Resource temporarily unavailable)"
        );
        assert_eq!(
            run(rt_sigqueueinfo, "rt_sigqueueinfo", &[5, 10, info], 0, &mut m),
            "rt_sigqueueinfo(5, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=5, si_uid=0, si_int=42, si_ptr=0x2a}) = 0"
        );
        assert_eq!(
            run(
                rt_tgsigqueueinfo,
                "rt_tgsigqueueinfo",
                &[5, 5, 10, 8],
                -14,
                &mut m
            ),
            "rt_tgsigqueueinfo(5, 5, SIGUSR1, 0x8) = -1 EFAULT (Bad address)"
        );
    }

    #[test]
    fn sigaltstack_lines() {
        let mut m = FakeMemory::default();
        let mut ss = Vec::new();
        ss.extend_from_slice(&0x5652_f67f_61a0u64.to_le_bytes());
        ss.extend_from_slice(&0u64.to_le_bytes());
        ss.extend_from_slice(&65536u64.to_le_bytes());
        let new = m.put(&ss);
        let mut old = Vec::new();
        old.extend_from_slice(&0u64.to_le_bytes());
        old.extend_from_slice(&2u64.to_le_bytes());
        old.extend_from_slice(&0u64.to_le_bytes());
        let old = m.put(&old);
        assert_eq!(
            run(sigaltstack, "sigaltstack", &[new, 0], 0, &mut m),
            "sigaltstack({ss_sp=0x5652f67f61a0, ss_flags=0, ss_size=65536}, NULL) = 0"
        );
        assert_eq!(
            run(sigaltstack, "sigaltstack", &[0, old], 0, &mut m),
            "sigaltstack(NULL, {ss_sp=NULL, ss_flags=SS_DISABLE, ss_size=0}) = 0"
        );
        assert_eq!(
            run(no_args, "pause", &[], -514, &mut m),
            "pause() = ? ERESTARTNOHAND (To be restarted if no handler)"
        );
    }

    #[test]
    fn sigreturn_mask() {
        let mut m = FakeMemory::default();
        let mut frame = vec![0u8; 296];
        frame.extend_from_slice(&sigset(&[17]));
        let sp = m.put(&frame);
        let env = Env::default();
        let mut fds = super::super::testutil::FixedFds(Vec::new());
        let mut c = Ctx::new(&mut m, &mut fds, &env.opts, 1, Arch::X86_64, [0; 6]);
        assert_eq!(text(&sigreturn_value(&mut c, sp)), "{mask=[CHLD]}");
        let _ = run_env;
    }
}
