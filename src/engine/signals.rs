//! rtrace's own fatal signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE).
//!
//! The handler records the signal and wakes the wait loop. A blocking `wait4`
//! does not return for a signal whose handler was installed without
//! `SA_RESTART`... unless the signal arrives while it sleeps: one that arrives
//! just before the call would be missed. So the handler also forks a child
//! that exits at once: `wait4(-1, __WALL)` then returns for that child, and the
//! loop sees the flag. a raw clone(SIGCHLD) is async-signal-safe and avoids
//! glibc's atfork handlers.

use crate::sys::process;
use crate::sys::signal::{self, Disposition};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

static PENDING: AtomicI32 = AtomicI32::new(0);
/// The last wake-up child (its exit is not a tracee's).
static WAKER: AtomicI32 = AtomicI32::new(0);

/// How `-I` treats fatal signals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interruptible {
    /// `-I1`: nothing blocked or handled: a fatal signal kills rtrace at
    /// once, as it kills strace.
    Anywhere,
    /// `-I2`: the default; handled between events.
    WaitOnly,
    /// `-I3`: fatal signals ignored (default with `-o FILE PROG`).
    NeverFatal,
    /// `-I4`: also SIGTSTP ignored.
    Never,
}

const FATAL: [i32; 5] = [
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGPIPE,
    libc::SIGTERM,
];

extern "C" fn on_signal(sig: libc::c_int) {
    PENDING.store(sig, Ordering::SeqCst);
    // A raw clone(SIGCHLD) and exit: async-signal-safe.
    WAKER.store(process::fork_exiting_child(), Ordering::SeqCst);
}

/// Whether `pid` is a wake-up child forked by the signal handler.
pub fn is_waker(pid: i32) -> bool {
    pid > 0 && WAKER.load(Ordering::SeqCst) == pid
}

/// Which of FATAL and SIGTSTP were ignored when rtrace started (bit =
/// signal number): the command inherits them ignored, as under strace.
static IGNORED_AT_START: AtomicU64 = AtomicU64::new(0);

/// Whether `sig` was ignored when rtrace started. What the constructor in
/// startup.rs saw before `main` is the truth: an earlier [`install`] of
/// this run (rltrace's kernel backend installs, then its ptrace helper
/// installs again) may have set it to SIG_IGN itself, so the current
/// disposition is only the fallback.
fn ignored_at_start(sig: i32) -> bool {
    super::startup::ignored_at_start(sig).unwrap_or_else(|| ignored_now(sig))
}

fn ignored_now(sig: i32) -> bool {
    signal::is_ignored(sig)
}

/// Installs the handlers per `mode`.
pub fn install(mode: Interruptible) {
    let mut ignored = 0u64;
    for sig in FATAL.iter().copied().chain([libc::SIGTSTP]) {
        // Rust's runtime ignores SIGPIPE before main: how it was at start
        // is what startup.rs captured before that.
        let was_ignored = if sig == libc::SIGPIPE {
            super::startup::sigpipe_ignored_at_start().unwrap_or(false)
        } else {
            ignored_at_start(sig)
        };
        if was_ignored {
            ignored |= 1 << sig;
        }
    }
    IGNORED_AT_START.fetch_or(ignored, Ordering::SeqCst);
    if mode == Interruptible::Anywhere {
        return;
    }
    for sig in FATAL {
        let disp = match mode {
            Interruptible::NeverFatal | Interruptible::Never => Disposition::Ignore,
            _ => Disposition::Handler(on_signal),
        };
        // No SA_RESTART: let a blocking wait see EINTR.
        let _ = signal::set_disposition(sig, disp, false);
    }
    if mode == Interruptible::Never {
        let _ = signal::set_disposition(libc::SIGTSTP, Disposition::Ignore, true);
    }
}

/// The fatal signal received since the last call, if any.
pub fn take_pending() -> Option<i32> {
    match PENDING.swap(0, Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Restores the dispositions and the signal mask rtrace started with (in a
/// forked child before exec): default, or ignored when they were ignored.
/// Async-signal-safe.
pub fn reset_in_child() {
    super::startup::restore_mask();
    // Atomic loads only: safe between fork and exec. Without [`install`]
    // (rtrace kernel's commands) the constructor's record still holds.
    let ignored = IGNORED_AT_START.load(Ordering::SeqCst);
    for sig in FATAL.iter().copied().chain([libc::SIGTSTP]) {
        let was = super::startup::ignored_at_start(sig).unwrap_or(ignored & (1 << sig) != 0);
        let disp = if was {
            Disposition::Ignore
        } else {
            Disposition::Default
        };
        let _ = signal::set_disposition(sig, disp, true);
    }
}

/// The exit status of a tool that fatal signal `sig` interrupted (Ctrl-C
/// is SIGINT: 130, SIGTERM: 143), whether it launched the command or
/// attached to it with `-p`: what `strace -p` returns after detaching, and
/// the status a shell reports for a process killed by `sig`. Every tool
/// (rstrace, rltrace, `rtrace break|watch|record|stat|kernel`) uses this.
pub fn interrupted_status(sig: i32) -> i32 {
    128 + sig
}

/// Ends rtrace by `sig` with its default action (no core file), as strace
/// does when its command died of a signal or its reader went away
/// (SIGPIPE); returns `128 + sig` in case the signal does not kill.
pub fn die_like(sig: i32) -> i32 {
    process::set_limit(process::Limit::Core, 0, 0);
    let _ = signal::set_disposition(sig, Disposition::Default, true);
    signal::unblock(sig);
    signal::raise(sig);
    128 + sig
}
