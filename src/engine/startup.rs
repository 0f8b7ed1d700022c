//! The process state rtrace was started with, captured before Rust's
//! runtime changes it: Rust ignores SIGPIPE and opens `/dev/null` on closed
//! standard descriptors before `main`, so neither an ignored SIGPIPE nor a
//! closed stdin/stdout/stderr could be passed on to a launched command, as
//! strace passes them on. A constructor in `.init_array` runs before the
//! runtime's setup and records both; [`standard_fds`] then gives the
//! descriptors back their "closed for the command" meaning, the way strace's
//! placeholder descriptors do (open for the tracer, close-on-exec).

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
        // SAFETY: F_GETFD on a descriptor number has no memory effects.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
            st |= 1 << fd;
        }
    }
    let (mut ignored, mut blocked) = (0u64, 0u64);
    // SAFETY: querying dispositions and the mask into owned, zeroed structs.
    unsafe {
        let mut mask: libc::sigset_t = std::mem::zeroed();
        let have_mask = libc::sigprocmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask) == 0;
        for sig in 1..=64 {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
            {
                ignored |= 1 << (sig - 1);
            }
            if have_mask && libc::sigismember(&mask, sig) == 1 {
                blocked |= 1 << (sig - 1);
            }
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
    let blocked = BLOCKED.load(Ordering::SeqCst);
    // SAFETY: building a set in an owned struct and installing it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in 1..=64 {
            if blocked & (1 << (sig - 1)) != 0 {
                libc::sigaddset(&mut set, sig);
            }
        }
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
}

/// Whether standard descriptor `fd` (0, 1 or 2) was closed at start.
pub fn fd_closed_at_start(fd: i32) -> bool {
    (0..3).contains(&fd) && STATE.load(Ordering::SeqCst) & (1 << fd) != 0
}

/// A descriptor that reads as end of file and refuses writes (the read end
/// of a pipe whose write end is closed), close-on-exec, at the lowest free
/// number; strace's placeholder.
fn dummy_fd() -> Option<i32> {
    let mut fds = [0i32; 2];
    // SAFETY: `fds` is a valid 2-int array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: closing the write end we just made.
    unsafe { libc::close(fds[1]) };
    Some(fds[0])
}

/// strace's `ensure_standard_fds_opened`: a standard descriptor that was
/// closed at start (and that Rust's runtime filled with `/dev/null`) is
/// made close-on-exec, so the launched command finds it closed, while
/// files the tracer opens never take its number.
pub fn standard_fds() {
    for fd in 0..3 {
        if fd_closed_at_start(fd) {
            // SAFETY: fcntl on a descriptor we hold.
            unsafe {
                let fl = libc::fcntl(fd, libc::F_GETFD);
                if fl >= 0 {
                    libc::fcntl(fd, libc::F_SETFD, fl | libc::FD_CLOEXEC);
                } else if let Some(d) = dummy_fd() {
                    if d != fd {
                        libc::dup3(d, fd, libc::O_CLOEXEC);
                        libc::close(d);
                    }
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
            // SAFETY: dup3 onto a standard descriptor number and closing
            // the spare; both descriptors are ours.
            unsafe {
                if d != fd {
                    libc::dup3(d, fd, libc::O_CLOEXEC);
                    libc::close(d);
                }
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
        // SAFETY: reading/writing a descriptor we own into a local buffer.
        let (r, w) = unsafe {
            (
                libc::read(d, b.as_mut_ptr().cast(), 4),
                libc::write(d, b.as_ptr().cast(), 4),
            )
        };
        assert_eq!(r, 0);
        assert_eq!(w, -1);
        // SAFETY: F_GETFD and close on our descriptor.
        unsafe {
            assert_ne!(libc::fcntl(d, libc::F_GETFD) & libc::FD_CLOEXEC, 0);
            libc::close(d);
        }
    }
}
