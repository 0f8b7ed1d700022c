//! Signal dispositions and masks, by raw signal number (1..=64).
//!
//! Raw numbers, not nix's `Signal`, which cannot represent real-time
//! signals. Every function here is async-signal-safe (stack structs only),
//! so a forked child may reset its signals with them before exec.

use std::io;

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

/// `sigaction(sig)`: sets `disp` with an empty mask and `SA_RESTART` when
/// `restart` (none: a blocking call the signal interrupts fails with
/// EINTR). The one place rtrace calls sigaction to set a disposition.
pub fn set_disposition(sig: i32, disp: Disposition, restart: bool) -> io::Result<()> {
    // SAFETY: sigaction is plain data (a handler word, a mask, flags); the
    // all-zero value is a valid, empty one.
    let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
    sa.sa_sigaction = match disp {
        Disposition::Default => libc::SIG_DFL,
        Disposition::Ignore => libc::SIG_IGN,
        Disposition::Handler(f) => f as usize,
    };
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

/// Whether `sig` is ignored now (`false` when it cannot be queried).
pub fn is_ignored(sig: i32) -> bool {
    // SAFETY: all-zero is a valid sigaction (see above).
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a query: null new action, `old` is ours to fill.
    let r = unsafe { libc::sigaction(sig, std::ptr::null(), &mut old) };
    r == 0 && old.sa_sigaction == libc::SIG_IGN
}

/// A signal set as bits: bit N-1 is signal N (1..=64).
fn to_set(bits: u64) -> libc::sigset_t {
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
    set
}

/// The calling thread's blocked signals as bits (bit N-1: signal N);
/// `None` when they cannot be read.
pub fn blocked() -> Option<u64> {
    // SAFETY: all-zero is a valid sigset_t.
    let mut mask: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: a query: null new set, `mask` is ours to fill.
    if unsafe { libc::sigprocmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask) } != 0 {
        return None;
    }
    let mut bits = 0u64;
    for sig in 1..=64 {
        // SAFETY: sigismember reads `mask`, ours.
        if unsafe { libc::sigismember(&mask, sig) } == 1 {
            bits |= 1 << (sig - 1);
        }
    }
    Some(bits)
}

/// Sets the calling thread's mask to `bits` (bit N-1: signal N).
pub fn set_blocked(bits: u64) {
    let set = to_set(bits);
    // SAFETY: sigprocmask reads `set`, ours; no old set wanted.
    unsafe { libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()) };
}

/// Unblocks `sig` in the calling thread.
pub fn unblock(sig: i32) {
    let set = to_set(1u64.checked_shl((sig as u32).wrapping_sub(1)).unwrap_or(0));
    // SAFETY: sigprocmask reads `set`, ours; no old set wanted.
    unsafe { libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
}

/// `raise(sig)`.
pub fn raise(sig: i32) {
    // SAFETY: raise takes an integer.
    unsafe { libc::raise(sig) };
}
