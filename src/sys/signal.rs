//! Signal dispositions and masks, by raw signal number (1..=64).
//!
//! Through nix (`sigaction`, `sigprocmask`, `raise`) for the signals its
//! `Signal` names; real-time signals (32..=64), which it cannot represent,
//! and the calls nix cannot make go to [`super::signal_raw`]. Every
//! function here is async-signal-safe (stack values only; nix's
//! `sigaction` and `sigprocmask` are thin wrappers over the libc calls), so
//! a forked child may reset its signals with them before exec.

use std::io;

use nix::sys::signal::{self as ns, SaFlags, SigAction, SigHandler, SigSet, SigmaskHow, Signal};

use super::signal_raw;

/// What a signal does.
#[derive(Clone, Copy, Debug)]
pub enum Disposition {
    /// `SIG_DFL`.
    Default,
    /// `SIG_IGN`.
    Ignore,
    /// A handler (installed with an empty mask).
    Handler(extern "C" fn(libc::c_int)),
}

/// nix's `Signal` for `sig`; `None` for a real-time signal or a number that
/// is no signal (0, 65...).
pub(super) fn named(sig: i32) -> Option<Signal> {
    Signal::try_from(sig).ok()
}

/// `sigaction(sig)`: sets `disp` with an empty mask and `SA_RESTART` when
/// `restart` (none: a blocking call the signal interrupts fails with
/// EINTR, which rtrace's own handlers rely on to wake the wait loop). The
/// one place rtrace sets a disposition.
pub fn set_disposition(sig: i32, disp: Disposition, restart: bool) -> io::Result<()> {
    let Some(signal) = named(sig) else {
        let handler = match disp {
            Disposition::Default => libc::SIG_DFL,
            Disposition::Ignore => libc::SIG_IGN,
            Disposition::Handler(f) => f as usize,
        };
        return signal_raw::set_action(sig, handler, restart);
    };
    let handler = match disp {
        Disposition::Default => SigHandler::SigDfl,
        Disposition::Ignore => SigHandler::SigIgn,
        Disposition::Handler(f) => SigHandler::Handler(f),
    };
    let flags = if restart {
        SaFlags::SA_RESTART
    } else {
        SaFlags::empty()
    };
    let action = SigAction::new(handler, flags, SigSet::empty());
    // SAFETY: nix marks sigaction unsafe because a handler runs in signal
    // context: the handlers rtrace installs only store atomics and make
    // async-signal-safe calls (engine/signals.rs, kernel/session.rs).
    unsafe { ns::sigaction(signal, &action) }?;
    Ok(())
}

/// Whether `sig` is ignored now (`false` when it cannot be queried).
pub fn is_ignored(sig: i32) -> bool {
    signal_raw::is_ignored(sig)
}

/// The calling thread's blocked signals as bits (bit N-1: signal N);
/// `None` when they cannot be read.
pub fn blocked() -> Option<u64> {
    let mut mask = SigSet::empty();
    ns::sigprocmask(SigmaskHow::SIG_BLOCK, None, Some(&mut mask)).ok()?;
    Some(signal_raw::bits(&mask))
}

/// Sets the calling thread's mask to `bits` (bit N-1: signal N).
pub fn set_blocked(bits: u64) {
    let _ = ns::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&signal_raw::set(bits)), None);
}

/// Unblocks `sig` in the calling thread.
pub fn unblock(sig: i32) {
    let bit = 1u64.checked_shl((sig as u32).wrapping_sub(1)).unwrap_or(0);
    let _ = ns::sigprocmask(SigmaskHow::SIG_UNBLOCK, Some(&signal_raw::set(bit)), None);
}

/// `raise(sig)`.
pub fn raise(sig: i32) {
    match named(sig) {
        Some(signal) => {
            let _ = ns::raise(signal);
        }
        None => signal_raw::raise(sig),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::process::{self, Forked};

    /// `SIGRTMIN + 1`: glibc takes 32 and 33 for itself.
    fn rt() -> i32 {
        libc::SIGRTMIN() + 1
    }

    extern "C" fn noop(_: libc::c_int) {}

    /// Runs `f` in a forked child (signal state is per process; the test
    /// harness runs tests in threads) and returns its exit code.
    fn in_child(f: impl FnOnce() -> i32) -> i32 {
        match process::fork().unwrap() {
            Forked::Child => process::exit_now(f()),
            Forked::Parent(pid) => {
                let st = process::reap(pid).unwrap();
                assert!(libc::WIFEXITED(st), "child status {st:#x}");
                libc::WEXITSTATUS(st)
            }
        }
    }

    /// Every disposition set, standard and real-time, reads back; the
    /// flags are the ones asked for, SA_RESTART only when asked.
    #[test]
    fn dispositions_round_trip() {
        let code = in_child(|| {
            for sig in [libc::SIGUSR1, rt()] {
                for restart in [false, true] {
                    if set_disposition(sig, Disposition::Ignore, restart).is_err()
                        || !is_ignored(sig)
                    {
                        return 1;
                    }
                    if set_disposition(sig, Disposition::Handler(noop), restart).is_err() {
                        return 2;
                    }
                    let Some((handler, flags)) = signal_raw::action(sig) else {
                        return 3;
                    };
                    if handler != noop as *const () as usize || is_ignored(sig) {
                        return 4;
                    }
                    if (flags & libc::SA_RESTART != 0) != restart {
                        return 5;
                    }
                    if flags & libc::SA_SIGINFO != 0 {
                        return 6;
                    }
                    if set_disposition(sig, Disposition::Default, true).is_err()
                        || signal_raw::action(sig).map(|a| a.0) != Some(libc::SIG_DFL)
                    {
                        return 7;
                    }
                }
            }
            0
        });
        assert_eq!(code, 0);
    }

    static CAUGHT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
    extern "C" fn catch(sig: libc::c_int) {
        CAUGHT.store(sig, std::sync::atomic::Ordering::SeqCst);
    }

    /// A handler set without SA_RESTART (as rtrace's own) makes a blocking
    /// read fail with EINTR; with SA_RESTART the read goes on.
    #[test]
    fn no_restart_interrupts_a_blocking_read() {
        for restart in [false, true] {
            let code = in_child(|| {
                let Ok((rd, wr)) = crate::sys::fd::pipe() else {
                    return 1;
                };
                if set_disposition(libc::SIGUSR1, Disposition::Handler(catch), restart).is_err() {
                    return 2;
                }
                let me = process::pid();
                // A grandchild signals once the read blocks, then exits,
                // closing the write end: a restarted read sees end of file.
                match process::fork() {
                    Ok(Forked::Child) => {
                        std::thread::sleep(std::time::Duration::from_millis(200));
                        let _ = process::kill(me, libc::SIGUSR1);
                        std::thread::sleep(std::time::Duration::from_millis(100));
                        process::exit_now(0)
                    }
                    Ok(Forked::Parent(_)) => {}
                    Err(_) => return 3,
                }
                crate::sys::fd::close(wr);
                let mut b = [0u8; 1];
                let n = crate::sys::fd::read(rd, &mut b);
                let errno = crate::sys::errno();
                if CAUGHT.load(std::sync::atomic::Ordering::SeqCst) != libc::SIGUSR1 {
                    return 4;
                }
                match (n, errno) {
                    (-1, libc::EINTR) => 10,
                    (0, _) => 20,
                    _ => 5,
                }
            });
            assert_eq!(code, if restart { 20 } else { 10 }, "restart {restart}");
        }
    }

    /// The mask round trip keeps real-time signals; unblock takes one out.
    #[test]
    fn mask_round_trip_keeps_real_time_signals() {
        let code = in_child(|| {
            let want = (1u64 << (libc::SIGUSR2 - 1)) | (1u64 << (rt() - 1)) | (1u64 << 63);
            set_blocked(want);
            if blocked() != Some(want) {
                return 1;
            }
            unblock(rt());
            if blocked() != Some(want & !(1u64 << (rt() - 1))) {
                return 2;
            }
            unblock(libc::SIGUSR2);
            if blocked() != Some(1u64 << 63) {
                return 3;
            }
            0
        });
        assert_eq!(code, 0);
    }

    /// A real-time signal raised with its default action kills: the raw
    /// path delivers the number nix cannot name.
    #[test]
    fn raise_real_time_signal_kills_by_it() {
        let sig = rt();
        match process::fork().unwrap() {
            Forked::Child => {
                let _ = set_disposition(sig, Disposition::Default, true);
                unblock(sig);
                raise(sig);
                process::exit_now(0)
            }
            Forked::Parent(pid) => {
                let st = process::reap(pid).unwrap();
                assert!(libc::WIFSIGNALED(st), "status {st:#x}");
                assert_eq!(libc::WTERMSIG(st), sig);
            }
        }
    }
}
