//! Sockets: socket, socketpair, bind, connect, listen, accept/accept4,
//! getsockname/getpeername, shutdown, sendto/recvfrom (strace's `net.c`).
//! Message headers (sendmsg, recvmsg and the mmsg forms) are in
//! `msghdr.rs`, socket options in `sockopt.rs`, addresses in `sockaddr.rs`.
//!
//! The buffers of netlink sockets print as netlink messages, by the
//! printers `syscall/mod.rs` hands over in [`NetlinkData`] (netlink uses
//! the address printers here; net does not name netlink).
//!
//! Not decoded (printed as strace prints other data): the protocols of families other than AF_INET,
//! AF_INET6, AF_NETLINK and AF_PACKET (printed as numbers).

pub(in crate::syscall) mod cbpf;
pub(in crate::syscall) mod msghdr;
pub(in crate::syscall) mod sock_filter;
pub(in crate::syscall) mod sockaddr;
pub(in crate::syscall) mod sockaddr_other;
pub(in crate::syscall) mod sockopt;
mod sockopt_tipc_ip;

use crate::syscall::array::array_at;
use crate::syscall::net::sockaddr::{eth_proto_value, sockaddr_at};
use crate::syscall::printers::{enum_arg, flags_arg, le32, xflags};
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value, NETLINK_DATA};
use rtrace_arch::xlat;

/// How the data of netlink sockets prints: the netlink decoders, which sit
/// above net (see [`crate::syscall`]'s `NETLINK_DATA`).
pub(in crate::syscall) struct NetlinkData {
    /// The netlink protocol of a descriptor (`unknown_protocol` for an
    /// unbound socket), or `None` when it is not a netlink socket.
    pub protocol: fn(&mut Ctx, i64) -> Option<u32>,
    /// The protocol printed when a netlink socket's is unknown.
    pub unknown_protocol: u32,
    /// Netlink messages of a protocol at `(addr, len)`.
    pub messages: fn(&mut Ctx, u32, u64, u64) -> Value,
    /// The buffer of a send or receive on descriptor `fd` at `(addr, len)`:
    /// netlink messages on a netlink socket, else a string.
    pub sockbuf: fn(&mut Ctx, i64, u64, u64) -> Value,
}

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("socket", socket),
    ("socketpair", socketpair),
    ("bind", bind),
    ("connect", bind),
    ("listen", listen),
    ("accept", accept),
    ("accept4", accept4),
    ("getsockname", getsockname),
    ("getpeername", getsockname),
    ("shutdown", shutdown),
    ("sendto", sendto),
    ("recvfrom", recvfrom),
];

/// `SOCK_TYPE_MASK`: the low bits of a socket type are the type proper.
const SOCK_TYPE_MASK: u64 = 0xf;

/// strace's `tprint_sock_type`: `SOCK_STREAM|SOCK_CLOEXEC`, with unknown
/// types and flags as `printflags` prints them.
fn sock_type_value(c: &Ctx, ty: u64) -> Value {
    if xlat::SOCKET_TYPES.lookup(ty & SOCK_TYPE_MASK).is_none() {
        return xflags(c, ty, &xlat::SOCKET_TYPE_FLAGS, "SOCK_???");
    }
    let base = c.enum_value(ty & SOCK_TYPE_MASK, &xlat::SOCKET_TYPES, "");
    let rest = ty & !SOCK_TYPE_MASK;
    if rest == 0 {
        return base;
    }
    let flags = xflags(c, rest, &xlat::SOCKET_TYPE_FLAGS, "SOCK_???");
    Value::Joined(vec![base, flags], "|")
}

/// The domain argument.
fn family_arg(c: &mut Ctx, i: usize) {
    enum_arg(c, i, &xlat::SOCKET_FAMILIES, "AF_???");
}

/// The type argument.
fn type_arg(c: &mut Ctx, i: usize) {
    let v = sock_type_value(c, c.arg(i) as u32 as u64);
    c.push(v);
}

/// `socket(domain, type, protocol)`: the protocol by family.
fn socket(c: &mut Ctx) -> Step {
    family_arg(c, 0);
    type_arg(c, 1);
    let proto = c.arg(2) as u32 as u64;
    let v = match c.arg(0) as u32 as i32 {
        libc::AF_INET | libc::AF_INET6 => c.enum_value(proto, &xlat::INET_PROTOCOLS, "IPPROTO_???"),
        libc::AF_NETLINK => c.enum_value(proto, &xlat::NETLINK_PROTOCOLS, "NETLINK_???"),
        libc::AF_PACKET => eth_proto_value(c, proto as u16),
        _ => Value::UInt(proto),
    };
    c.push(v);
    Step::Done(RetFmt::Fd)
}

/// A pointer to two descriptors (`[3, 4]`), as `socketpair` and `pipe` fill.
pub(in crate::syscall) fn fd_pair_at(c: &mut Ctx, addr: u64) -> Value {
    array_at(c, addr, 2, 4, |c, b| {
        Some(c.fd_value(le32(b, 0) as u32 as i32 as i64))
    })
}

/// `socketpair(domain, type, protocol, sv)`: the pair at exit.
fn socketpair(c: &mut Ctx) -> Step {
    if c.entering() {
        family_arg(c, 0);
        type_arg(c, 1);
        c.push(Value::UInt(c.arg(2) as u32 as u64));
        return Step::Exit;
    }
    let v = fd_pair_at(c, c.arg_ulong(3));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `bind`/`connect(fd, addr, addrlen)`.
fn bind(c: &mut Ctx) -> Step {
    c.fd(0);
    let len = c.arg_int(2) as i64;
    let v = sockaddr_at(c, c.arg_ulong(1), len);
    c.push(v);
    c.push(Value::Int(len));
    Step::Done(RetFmt::Int)
}

/// `listen(fd, backlog)`.
fn listen(c: &mut Ctx) -> Step {
    c.fd(0);
    c.int(1);
    Step::Done(RetFmt::Int)
}

/// `shutdown(fd, how)`.
fn shutdown(c: &mut Ctx) -> Step {
    c.fd(0);
    enum_arg(c, 1, &xlat::SHUTDOWN_MODES, "SHUT_???");
    Step::Done(RetFmt::Int)
}

/// Marks `Ctx::saved` as holding a length read at entry.
const SAVED: u64 = 1 << 32;

/// strace's `fetch_socklen`: the `int` at `len_addr` when both pointers are
/// set and it can be read.
fn fetch_socklen(c: &mut Ctx, addr: u64, len_addr: u64) -> Option<i32> {
    if addr == 0 || len_addr == 0 {
        return None;
    }
    c.read_pod::<i32>(len_addr)
}

/// `[ulen]` or `[ulen => rlen]`.
pub(in crate::syscall) fn len_changed(ulen: i32, rlen: Option<i32>) -> Value {
    let v = match rlen {
        Some(r) if r != ulen => Value::Changed(
            Box::new(Value::Int(ulen as i64)),
            Box::new(Value::Int(r as i64)),
        ),
        Some(r) => Value::Int(r as i64),
        None => Value::Int(ulen as i64),
    };
    Value::Array(vec![v], false)
}

/// strace's `decode_sockname` (accept, getsockname, getpeername): returns
/// `true` when everything was printed at entry.
fn sockname(c: &mut Ctx) -> bool {
    let (addr, len_addr) = (c.arg_ulong(1), c.arg_ulong(2));
    if c.entering() {
        c.fd(0);
        if let Some(ulen) = fetch_socklen(c, addr, len_addr) {
            c.saved = SAVED | ulen as u32 as u64;
            return false;
        }
        c.push(Value::Ptr(addr));
        c.push(Value::Ptr(len_addr));
        return true;
    }
    let ulen = c.saved as u32 as i32;
    let rlen = if c.failed() {
        None
    } else {
        c.read_pod::<i32>(len_addr)
    };
    match rlen {
        None => c.push(Value::Ptr(addr)),
        Some(r) => {
            let v = sockaddr_at(c, addr, ulen.min(r) as i64);
            c.push(v);
        }
    }
    c.push(len_changed(ulen, rlen));
    false
}

/// `accept(fd, addr, addrlen)`.
fn accept(c: &mut Ctx) -> Step {
    let done = sockname(c);
    if c.entering() && !done {
        return Step::Exit;
    }
    Step::Done(RetFmt::Fd)
}

/// `accept4(fd, addr, addrlen, flags)`.
fn accept4(c: &mut Ctx) -> Step {
    let done = sockname(c);
    if c.entering() && !done {
        return Step::Exit;
    }
    flags_arg(c, 3, &xlat::SOCKET_TYPE_FLAGS, "SOCK_???");
    Step::Done(RetFmt::Fd)
}

/// `getsockname`/`getpeername(fd, addr, addrlen)`.
fn getsockname(c: &mut Ctx) -> Step {
    let done = sockname(c);
    if c.entering() && !done {
        return Step::Exit;
    }
    Step::Done(RetFmt::Int)
}

/// `sendto(fd, buf, len, flags, dest_addr, addrlen)`.
fn sendto(c: &mut Ctx) -> Step {
    c.fd(0);
    let len = c.arg_ulong(2);
    let v = (NETLINK_DATA.sockbuf)(c, c.arg_int(0) as i64, c.arg_ulong(1), len);
    c.push(v);
    c.push(Value::UInt(len));
    flags_arg(c, 3, &xlat::MSG_FLAGS, "MSG_???");
    let alen = c.arg_int(5) as i64;
    let v = sockaddr_at(c, c.arg_ulong(4), alen);
    c.push(v);
    c.push(Value::Int(alen));
    Step::Done(RetFmt::Int)
}

/// `recvfrom(fd, buf, len, flags, src_addr, addrlen)`: all but the
/// descriptor at exit.
fn recvfrom(c: &mut Ctx) -> Step {
    let (addr, len_addr) = (c.arg_ulong(4), c.arg_ulong(5));
    if c.entering() {
        c.fd(0);
        if let Some(ulen) = fetch_socklen(c, addr, len_addr) {
            c.saved = SAVED | ulen as u32 as u64;
        }
        return Step::Exit;
    }
    let len = c.arg_ulong(2);
    if c.failed() {
        c.ptr(1);
    } else {
        let n = (c.retval() as u64).min(len);
        let v = (NETLINK_DATA.sockbuf)(c, c.arg_int(0) as i64, c.arg_ulong(1), n);
        c.push(v);
    }
    c.push(Value::UInt(len));
    flags_arg(c, 3, &xlat::MSG_FLAGS, "MSG_???");
    let ulen = c.saved as u32 as i32;
    let Some(rlen) = fetch_socklen(c, addr, len_addr) else {
        c.push(Value::Ptr(addr));
        c.push(Value::Ptr(len_addr));
        return Step::Done(RetFmt::Int);
    };
    if c.failed() {
        c.push(Value::Ptr(addr));
        c.push(len_changed(ulen, None));
        return Step::Done(RetFmt::Int);
    }
    let v = sockaddr_at(c, addr, ulen.min(rlen) as i64);
    c.push(v);
    c.push(len_changed(ulen, Some(rlen)));
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn socket_args() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(socket, "socket", &[1, 1 | 0o2000000, 0], 3, &mut m),
            "socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 3"
        );
        assert_eq!(
            run(socket, "socket", &[2, 1, 0], 3, &mut m),
            "socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 3"
        );
        assert_eq!(
            run(socket, "socket", &[17, 3, 0x0300], 3, &mut m),
            "socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)) = 3"
        );
        assert_eq!(
            run(socket, "socket", &[46, 0x810, 7], -22, &mut m),
            "socket(0x2e /* AF_??? */, SOCK_NONBLOCK|0x10, 7) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(socket, "socket", &[1, 9, 0], -94, &mut m),
            "socket(AF_UNIX, 0x9 /* SOCK_??? */, 0) = -1 ESOCKTNOSUPPORT (Socket type not supported)"
        );
        assert_eq!(
            run(socket, "socket", &[1, 0x100002, 0], -22, &mut m),
            "socket(AF_UNIX, SOCK_DGRAM|0x100000 /* SOCK_??? */, 0) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn names_and_lengths() {
        let mut m = FakeMemory::default();
        let sin = m.put(&[2, 0, 0x1f, 0x90, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        let len = m.put(&16i32.to_ne_bytes());
        assert_eq!(
            run(getsockname, "getsockname", &[3, sin, len], 0, &mut m),
            "getsockname(3, {sa_family=AF_INET, sin_port=htons(8080), \
             sin_addr=inet_addr(\"127.0.0.1\")}, [16]) = 0"
        );
        assert_eq!(
            run(accept4, "accept4", &[3, 0, 0, 0o2000000], 5, &mut m),
            "accept4(3, NULL, NULL, SOCK_CLOEXEC) = 5"
        );
        assert_eq!(
            run(getsockname, "getsockname", &[3, sin, len], -9, &mut m),
            "getsockname(3, 0x10000, [16]) = -1 EBADF (Bad file descriptor)"
        );
    }
}
