//! The signal calls nix cannot make, raw: everything by a real-time
//! signal number (32..=64, which nix's `Signal` cannot represent: glibc
//! uses 32 and 33 in every threaded program, and a command may die of any
//! of them), querying a disposition, signal sets as bits, and `tgkill`.
//! `signal.rs` and `process.rs` come here only for these.
//! Async-signal-safe: stack values only.

use std::io;

use nix::sys::signal::SigSet;

/// `sigaction(sig)` with handler word `handler` (`SIG_DFL`, `SIG_IGN` or
/// an `extern "C" fn(c_int)`), an empty mask, `SA_RESTART` when `restart`,
/// for a number nix cannot name (see `signal::set_disposition`, which it
/// serves).
pub(super) fn set_action(sig: i32, handler: usize, restart: bool) -> io::Result<()> {
    // SAFETY: sigaction is plain data (a handler word, a mask, flags); the
    // all-zero value is a valid, empty one.
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    sa.sa_sigaction = handler;
    sa.sa_flags = if restart { libc::SA_RESTART } else { 0 };
    // SAFETY: `sa.sa_mask` is ours; sigaction reads `sa` and writes nothing
    // (null old action). A handler is an `extern "C" fn(c_int)`, the
    // signature sigaction calls without SA_SIGINFO.
    let r = unsafe {
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, std::ptr::null_mut())
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `sig`'s current handler word (`SIG_DFL`, `SIG_IGN` or a function) and
/// flags. Raw for every signal: nix's `sigaction` always installs a new
/// action, so a query through it would change the disposition for a
/// moment; and startup.rs queries the real-time signals too.
pub(super) fn action(sig: i32) -> Option<(usize, i32)> {
    // SAFETY: all-zero is a valid sigaction (see above).
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a query: null new action, `old` is ours to fill.
    let r = unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) };
    (r == 0).then_some((old.sa_sigaction, old.sa_flags))
}

/// Whether `sig` is ignored now (`false` when it cannot be queried).
pub(super) fn is_ignored(sig: i32) -> bool {
    action(sig).is_some_and(|(h, _)| h == libc::SIG_IGN)
}

/// A signal set of bits (bit N-1: signal N, 1..=64). Raw: nix's `SigSet`
/// adds and tests only the signals its `Signal` names.
pub(super) fn set(bits: u64) -> SigSet {
    // SAFETY: sigset_t is plain bits; all-zero is valid (and emptied below).
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is ours; signal numbers 1..=64 are in range.
    unsafe {
        libc::sigemptyset(&mut set);
        for sig in 1..=64 {
            if bits & (1 << (sig - 1)) != 0 {
                libc::sigaddset(&mut set, sig);
            }
        }
    }
    // SAFETY: `set` was initialised by sigemptyset above.
    unsafe { SigSet::from_sigset_t_unchecked(set) }
}

/// The bits of a signal set (bit N-1: signal N, 1..=64); raw as [`set`].
pub(super) fn bits(set: &SigSet) -> u64 {
    let raw: &libc::sigset_t = set.as_ref();
    let mut bits = 0u64;
    for sig in 1..=64 {
        // SAFETY: sigismember reads `raw`, an initialised set.
        if unsafe { libc::sigismember(raw, sig) } == 1 {
            bits |= 1 << (sig - 1);
        }
    }
    bits
}

/// `raise(sig)` for a number nix cannot name.
pub(super) fn raise(sig: i32) {
    // SAFETY: raise takes an integer.
    unsafe { libc::raise(sig) };
}

/// `kill(pid, sig)` for a number nix cannot name.
pub(super) fn kill(pid: i32, sig: i32) -> io::Result<()> {
    // SAFETY: a plain syscall with integer arguments.
    if unsafe { libc::kill(pid, sig) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `tgkill(tgid, tid, sig)` (raw signal number). Raw for every signal:
/// nix has no tgkill (its `pthread_kill` takes a pthread_t, not a tid of
/// another process), and the signals re-sent are often real-time ones.
pub(super) fn tgkill(tgid: i32, tid: i32, sig: i32) -> io::Result<()> {
    // SAFETY: a plain syscall with integer arguments.
    if unsafe { libc::syscall(libc::SYS_tgkill, tgid, tid, sig) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
