//! Sockets the decoders open to ask the kernel (netlink, sock_diag) and
//! network interface names: sockets through nix; `if_indextoname` and
//! `getxattr` raw (see each).

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

use nix::sys::socket::{self as ns, AddressFamily, MsgFlags, SockFlag, SockProtocol, SockType};

/// The netlink families rtrace asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Netlink {
    /// `NETLINK_GENERIC`, a raw socket (the generic netlink families).
    Generic,
    /// `NETLINK_SOCK_DIAG`, a datagram socket (socket details for `-yy`).
    SockDiag,
}

/// A close-on-exec netlink socket of `family`.
pub fn netlink(family: Netlink) -> io::Result<OwnedFd> {
    let (ty, proto) = match family {
        Netlink::Generic => (SockType::Raw, SockProtocol::NetlinkGeneric),
        Netlink::SockDiag => (SockType::Datagram, SockProtocol::NetlinkSockDiag),
    };
    Ok(ns::socket(
        AddressFamily::Netlink,
        ty,
        SockFlag::SOCK_CLOEXEC,
        proto,
    )?)
}

/// One `send(2)` of `msg`: bytes sent, or -1 with errno set.
pub fn send(fd: BorrowedFd, msg: &[u8]) -> isize {
    ns::send(fd.as_raw_fd(), msg, MsgFlags::empty()).map_or(-1, |n| n as isize)
}

/// One `recv(2)` into `buf`: bytes received, or -1 with errno set.
pub fn recv(fd: BorrowedFd, buf: &mut [u8]) -> isize {
    ns::recv(fd.as_raw_fd(), buf, MsgFlags::empty()).map_or(-1, |n| n as isize)
}

/// The name of network interface `idx` on this host (`if_indextoname`).
///
/// Raw: nix 0.31's `if_indextoname` checks the result against -1, not
/// NULL, so an unknown index comes back as `Ok("")` instead of an error
/// (strace prints the number then; the netlink tests caught it).
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
/// (also when it is empty). Raw: neither std nor nix has getxattr.
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

#[cfg(test)]
mod tests {
    /// An index no interface has is no name (nix's wrapper would say "").
    #[test]
    fn unknown_interface_has_no_name() {
        assert_eq!(super::if_name(77777), None);
        assert_eq!(super::if_name(1).as_deref(), Some(&b"lo"[..]));
    }
}
