//! The process state rtrace was started with, captured before Rust's
//! runtime changes it: Rust ignores SIGPIPE and opens `/dev/null` on closed
//! standard descriptors before `main`, so neither an ignored SIGPIPE nor a
//! closed stdin/stdout/stderr could be passed on to a launched command, as
//! strace passes them on. A constructor in `.init_array` runs before the
//! runtime's setup and records both; [`standard_fds`] then gives the
//! descriptors back their "closed for the command" meaning, the way strace's
//! placeholder descriptors do (open for the tracer, close-on-exec).

use crate::sys::{fd, signal};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Bit 0..=2: standard descriptor N was closed at start. Bit 8: SIGPIPE
/// was ignored at start. Bit 31: the constructor ran.
static STATE: AtomicU32 = AtomicU32::new(0);
/// Bit N-1: signal N (1..=64) was ignored at start.
static IGNORED: AtomicU64 = AtomicU64::new(0);
/// Bit N-1: signal N (1..=64) was blocked at start.
static BLOCKED: AtomicU64 = AtomicU64::new(0);

const RAN: u32 = 1 << 31;
const SIGPIPE_IGNORED: u32 = 1 << 8;

extern "C" fn capture() {
    let mut st = RAN;
    for fd in 0..3 {
        if fd::get_fd_flags(fd) < 0 {
            st |= 1 << fd;
        }
    }
    let mut ignored = 0u64;
    let blocked = signal::blocked().unwrap_or(0);
    for sig in 1..=64 {
        if signal::is_ignored(sig) {
            ignored |= 1 << (sig - 1);
        }
    }
    if ignored & (1 << (libc::SIGPIPE - 1)) != 0 {
        st |= SIGPIPE_IGNORED;
    }
    IGNORED.store(ignored, Ordering::SeqCst);
    BLOCKED.store(blocked, Ordering::SeqCst);
    STATE.store(st, Ordering::SeqCst);
}

/// Run by the C runtime before Rust's `main` (and before the Rust runtime
/// sanitizes descriptors and signals).
#[used]
#[link_section = ".init_array"]
static CAPTURE: extern "C" fn() = capture;

/// Whether SIGPIPE was ignored when the process started (`None` when that
/// could not be captured).
pub fn sigpipe_ignored_at_start() -> Option<bool> {
    let st = STATE.load(Ordering::SeqCst);
    (st & RAN != 0).then_some(st & SIGPIPE_IGNORED != 0)
}

/// Whether signal `sig` was ignored when the process started (`None` when
/// that could not be captured). rtrace itself ignores fatal signals under
/// `-I3`/`-I4`, so the current disposition cannot tell.
pub fn ignored_at_start(sig: i32) -> Option<bool> {
    let ran = STATE.load(Ordering::SeqCst) & RAN != 0;
    (ran && (1..=64).contains(&sig)).then(|| IGNORED.load(Ordering::SeqCst) & (1 << (sig - 1)) != 0)
}

/// Gives the calling thread the signal mask the process started with
/// (async-signal-safe: for a forked child before exec, so the command
/// starts with the mask it would have had untraced).
pub fn restore_mask() {
    if STATE.load(Ordering::SeqCst) & RAN == 0 {
        return;
    }
    signal::set_blocked(BLOCKED.load(Ordering::SeqCst));
}

/// Whether standard descriptor `fd` (0, 1 or 2) was closed at start.
pub fn fd_closed_at_start(fd: i32) -> bool {
    (0..3).contains(&fd) && STATE.load(Ordering::SeqCst) & (1 << fd) != 0
}

/// A descriptor that reads as end of file and refuses writes (the read end
/// of a pipe whose write end is closed), close-on-exec, at the lowest free
/// number; strace's placeholder.
fn dummy_fd() -> Option<i32> {
    let (rd, wr) = fd::pipe().ok()?;
    fd::close(wr);
    Some(rd)
}

/// strace's `ensure_standard_fds_opened`: a standard descriptor that was
/// closed at start (and that Rust's runtime filled with `/dev/null`) is
/// made close-on-exec, so the launched command finds it closed, while
/// files the tracer opens never take its number.
pub fn standard_fds() {
    for fd in 0..3 {
        if fd_closed_at_start(fd) {
            let fl = fd::get_fd_flags(fd);
            if fl >= 0 {
                fd::set_fd_flags(fd, fl | libc::FD_CLOEXEC);
            } else if let Some(d) = dummy_fd() {
                if d != fd {
                    fd::dup3(d, fd, libc::O_CLOEXEC);
                    fd::close(d);
                }
            }
        }
    }
}

/// strace's `redirect_standard_fds`, after the command is launched: the
/// tracer's own stdin and stdout become placeholders, so that a command
/// that closes them really closes the pipe ends it was given (a writer
/// into its stdin gets SIGPIPE, a reader of its stdout sees end of file).
/// Descriptors that were closed at start already are placeholders.
pub fn redirect_standard_fds() {
    for fd in 0..2 {
        if fd_closed_at_start(fd) {
            continue;
        }
        if let Some(d) = dummy_fd() {
            if d != fd {
                fd::dup3(d, fd, libc::O_CLOEXEC);
                fd::close(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructor_ran_before_main() {
        // The test harness runs with its standard descriptors open.
        assert!(sigpipe_ignored_at_start().is_some());
        assert!(!fd_closed_at_start(2));
        assert!(!fd_closed_at_start(7));
    }

    #[test]
    fn placeholder_reads_eof_and_refuses_writes() {
        let d = dummy_fd().expect("pipe");
        let mut b = [0u8; 4];
        assert_eq!(fd::read(d, &mut b), 0);
        assert_eq!(fd::write(d, &b), -1);
        assert_ne!(fd::get_fd_flags(d) & libc::FD_CLOEXEC, 0);
        fd::close(d);
    }
}
