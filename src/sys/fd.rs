//! Raw descriptors: pipes, reads and writes that allocate nothing (for a
//! forked child), descriptor flags, locks, namespace parents.
//!
//! Descriptors here are plain numbers the caller owns and closes with
//! [`close`]: the callers hand them across `fork`, where an `OwnedFd`
//! would be closed twice or not at all.
//!
//! `pipe2` goes through nix. The rest is raw libc: nix 0.31's `close`,
//! `read`, `write`, `fcntl` and `dup3` take `OwnedFd`/`AsFd` values, so a
//! bare number would need an unsafe `borrow_raw` or `from_raw_fd` at every
//! call for no check gained (and `F_GETFD` asks whether a number is open
//! at all, which a `BorrowedFd` may not be); nix's fd-number `flock` is
//! deprecated for `Flock`, a guard that takes the `File` by value, where
//! rtrace turns one lock on a borrowed `File` from shared to exclusive.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd};

use nix::fcntl::OFlag;

/// `pipe2(O_CLOEXEC)`: (read end, write end). Async-signal-safe.
pub fn pipe() -> io::Result<(i32, i32)> {
    let (rd, wr) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    Ok((rd.into_raw_fd(), wr.into_raw_fd()))
}

/// `close(fd)`, result ignored. Async-signal-safe.
pub fn close(fd: i32) {
    // SAFETY: closing a descriptor number has no memory effects; callers
    // close only descriptors they own, once.
    unsafe { libc::close(fd) };
}

/// One `read(2)` into `buf`: bytes read, or -1 with errno set.
/// Async-signal-safe.
pub fn read(fd: i32, buf: &mut [u8]) -> isize {
    // SAFETY: `buf` is writable for its length.
    unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) }
}

/// One `write(2)` of `buf`: bytes written, or -1 with errno set.
/// Async-signal-safe.
pub fn write(fd: i32, buf: &[u8]) -> isize {
    // SAFETY: `buf` is readable for its length.
    unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) }
}

/// Writes all of `buf`, retrying after EINTR; stops at another error or
/// a zero-byte write. Async-signal-safe.
pub fn write_all(fd: i32, buf: &[u8]) {
    let mut done = 0;
    while done < buf.len() {
        let n = write(fd, &buf[done..]);
        if n <= 0 {
            if n < 0 && super::errno() == libc::EINTR {
                continue;
            }
            break;
        }
        done += n as usize;
    }
}

/// Reads `fd` to end of file (or an error other than EINTR).
pub fn read_to_end(fd: i32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = read(fd, &mut buf);
        if n > 0 {
            out.extend_from_slice(&buf[..n as usize]);
        } else if n < 0 && super::errno() == libc::EINTR {
            continue;
        } else {
            return out;
        }
    }
}

/// `fcntl(fd, F_GETFD)`: the descriptor flags, or -1 when `fd` is not
/// open.
pub fn get_fd_flags(fd: i32) -> i32 {
    // SAFETY: F_GETFD on a descriptor number has no memory effects.
    unsafe { libc::fcntl(fd, libc::F_GETFD) }
}

/// `fcntl(fd, F_SETFD, flags)`.
pub fn set_fd_flags(fd: i32, flags: i32) -> i32 {
    // SAFETY: F_SETFD takes an integer; no memory effects.
    unsafe { libc::fcntl(fd, libc::F_SETFD, flags) }
}

/// `dup3(old, new, flags)`.
pub fn dup3(old: i32, new: i32, flags: i32) -> i32 {
    // SAFETY: integer arguments only; the caller owns both numbers.
    unsafe { libc::dup3(old, new, flags) }
}

/// `flock(2)` on `file`: exclusive or shared, waiting or not (retrying
/// after EINTR when waiting); whether the lock is held.
pub fn flock(file: &std::fs::File, exclusive: bool, wait: bool) -> bool {
    let mut op = if exclusive {
        libc::LOCK_EX
    } else {
        libc::LOCK_SH
    };
    if !wait {
        op |= libc::LOCK_NB;
    }
    loop {
        // SAFETY: flock on a descriptor the File owns.
        let r = unsafe { libc::flock(file.as_raw_fd(), op) };
        if r == 0 {
            return true;
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted || !wait {
            return false;
        }
    }
}

/// `ioctl(ns, NS_GET_PARENT)`: the parent of namespace file `ns`
/// (EPERM when it is outside the caller's namespace).
pub fn ns_parent(ns: BorrowedFd) -> io::Result<OwnedFd> {
    // _IO(0xb7, 0x2). Raw: nix's ioctl macros generate an unsafe
    // function for the same call.
    const NS_GET_PARENT: libc::c_ulong = 0xb702;
    // SAFETY: NS_GET_PARENT takes no argument and only returns a new
    // descriptor (or -1).
    let parent = unsafe { libc::ioctl(ns.as_raw_fd(), NS_GET_PARENT as _) };
    if parent < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the ioctl returned a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(parent) })
}
