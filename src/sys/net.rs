//! Sockets the decoders open to ask the kernel (netlink, sock_diag) and
//! network interface names.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

/// `socket(domain, ty | SOCK_CLOEXEC, protocol)`.
pub fn socket(domain: i32, ty: i32, protocol: i32) -> io::Result<OwnedFd> {
    // SAFETY: socket takes integers.
    let fd = unsafe { libc::socket(domain, ty | libc::SOCK_CLOEXEC, protocol) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor; nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// One `send(2)` of `msg`: bytes sent, or -1 with errno set.
pub fn send(fd: BorrowedFd, msg: &[u8]) -> isize {
    // SAFETY: `msg` is readable for its length.
    unsafe { libc::send(fd.as_raw_fd(), msg.as_ptr().cast(), msg.len(), 0) }
}

/// One `recv(2)` into `buf`: bytes received, or -1 with errno set.
pub fn recv(fd: BorrowedFd, buf: &mut [u8]) -> isize {
    // SAFETY: `buf` is writable for its length.
    unsafe { libc::recv(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) }
}

/// The name of network interface `idx` on this host (`if_indextoname`).
pub fn if_name(idx: u32) -> Option<Vec<u8>> {
    let mut buf = [0 as libc::c_char; libc::IF_NAMESIZE + 1];
    // SAFETY: if_indextoname writes at most IF_NAMESIZE bytes (with the NUL)
    // into `buf`, which is larger; it only reads `idx`.
    if unsafe { libc::if_indextoname(idx, buf.as_mut_ptr()) }.is_null() {
        return None;
    }
    let bytes: Vec<u8> = buf
        .iter()
        .map(|c| c.to_ne_bytes()[0])
        .take_while(|&b| b != 0)
        .collect();
    Some(bytes)
}

/// `getxattr(path, name)` into `buf`: the attribute's length, or `None`
/// (also when it is empty). std has no getxattr.
pub fn getxattr(path: &CStr, name: &CStr, buf: &mut [u8]) -> Option<usize> {
    // SAFETY: both names are NUL-terminated; `buf` is writable for its
    // length.
    let n = unsafe {
        libc::getxattr(
            path.as_ptr(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    (n > 0).then_some(n as usize)
}
