//! Waiting, without polling, for a file another process writes to reach
//! a state (a trace holds a line, a recording grew to a size).
//!
//! std has no file-change notification, so this calls inotify(7)
//! directly: a watch on the file's directory wakes the wait on every
//! change there, and a pidfd of the writer wakes it when the writer
//! ends, so a writer that died fails the wait at once rather than at its
//! deadline.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// Checks `cond` now and after each change in `path`'s directory until it
/// holds; fails naming `what` (with `cond`'s last answer) after `secs`
/// seconds, or when process `writer` ended and `cond` still fails.
pub fn wait_file(
    path: &Path,
    writer: u32,
    secs: u64,
    what: &str,
    mut cond: impl FnMut() -> Result<(), String>,
) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // SAFETY: inotify_init1 takes flags only; the fd is owned below.
    let ino = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    assert!(
        ino >= 0,
        "inotify_init1: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: a new fd nothing else owns.
    let ino = unsafe { OwnedFd::from_raw_fd(ino) };
    let cdir = CString::new(dir.as_os_str().as_bytes()).expect("path without NUL");
    let mask = libc::IN_MODIFY | libc::IN_CREATE | libc::IN_MOVED_TO | libc::IN_CLOSE_WRITE;
    // SAFETY: a valid inotify fd and a NUL-terminated path.
    let wd = unsafe { libc::inotify_add_watch(ino.as_raw_fd(), cdir.as_ptr(), mask) };
    assert!(
        wd >= 0,
        "inotify_add_watch {}: {}",
        dir.display(),
        std::io::Error::last_os_error()
    );
    // SAFETY: pidfd_open takes a pid and flags; the fd is owned below.
    let pfd = unsafe { libc::syscall(libc::SYS_pidfd_open, writer, 0) } as i32;
    assert!(
        pfd >= 0,
        "pidfd_open {writer}: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: a new fd nothing else owns.
    let pfd = unsafe { OwnedFd::from_raw_fd(pfd) };
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        // The watch is in place before each check, so no change between a
        // check and the wait that follows is missed.
        let last = match cond() {
            Ok(()) => return,
            Err(last) => last,
        };
        let left = end.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "{what} within {secs} s: {last}");
        let mut fds = [ino.as_raw_fd(), pfd.as_raw_fd()].map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        });
        // SAFETY: two valid pollfds.
        unsafe {
            libc::poll(
                fds.as_mut_ptr(),
                2,
                left.as_millis().min(i32::MAX as u128) as i32,
            )
        };
        if fds[1].revents != 0 {
            if let Err(last) = cond() {
                panic!("{what}: process {writer} ended: {last}");
            }
            return;
        }
        // Drain the events: what changed does not matter, only that
        // something did.
        let mut buf = [0u8; 4096];
        // SAFETY: reading into a buffer we own, of its size.
        while unsafe { libc::read(ino.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }
}
