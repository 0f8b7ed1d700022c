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
//!
//! Submodules: [`sigset`] prints signal numbers and sets, [`siginfo`] prints
//! `siginfo_t`; this file holds the syscall decoders and `rt_sigreturn`'s
//! frame.

mod siginfo;
mod sigset;

pub(in crate::syscall) use crate::syscall::ctx::sig_value;
pub(in crate::syscall) use siginfo::{clock_t_styled, siginfo_array_at, siginfo_at};
pub use siginfo::{siginfo_value, siginfo_value_styled, SIGINFO_SIZE};
pub(in crate::syscall) use sigset::{sig_arg, sigset_at};
use sigset::{sigset_arg, NSIG_BYTES};
pub use sigset::{sigset_text, sigset_value, sigset_value_styled};

use crate::syscall::ctx::signal_name;
use crate::syscall::printers::{le32, le64, struct_at, xflags};
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::{xlat, Arch};

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
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
            let v = crate::syscall::time::timespec_at(c, c.arg_ulong(2));
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
            match c.read_bytes(addr, crate::syscall::time::timespec_size(c)) {
                Some(b) => crate::syscall::time::timespec_bytes(c, &b),
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
    c.id(1, crate::syscall::ctx::PidKind::Tid);
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
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_env, run_with, Env};
    use crate::syscall::DecodeOpts;

    pub(super) fn sigset(sigs: &[u64]) -> [u8; 8] {
        let mut m = 0u64;
        for s in sigs {
            m |= 1 << (s - 1);
        }
        m.to_le_bytes()
    }

    pub(super) fn text(v: &Value) -> String {
        crate::syscall::ctx::render_flags(v)
    }

    pub(super) fn siginfo(words: &[(usize, u64, usize)]) -> Vec<u8> {
        let mut b = vec![0u8; 128];
        for &(off, v, size) in words {
            b[off..off + size].copy_from_slice(&v.to_le_bytes()[..size]);
        }
        b
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
        let mut fds = crate::syscall::testutil::FixedFds(Vec::new());
        let mut c = Ctx::new(&mut m, &mut fds, &env.opts, 1, Arch::X86_64, [0; 6]);
        assert_eq!(text(&sigreturn_value(&mut c, sp)), "{mask=[CHLD]}");
        let _ = run_env;
    }
}
