//! Socket addresses as strace's `decode_sockaddr` prints them:
//! `{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}`.
//!
//! Decoded families: AF_UNIX (paths and `@"abstract"` names), AF_INET,
//! AF_INET6 (with `sin6_scope_id` as `if_nametoindex("lo")` for link-local
//! addresses), AF_NETLINK and AF_PACKET here; the rarer families strace
//! decodes are in `sockaddr_other.rs`. Any other family, and an address
//! shorter than its family's structure, prints its bytes as `sa_data="..."`,
//! as strace does. Interface indexes are resolved on the tracer's host, as
//! strace resolves them.

use crate::syscall::layout::{kstruct, le};
use crate::syscall::printers::hex_quoted;
use crate::syscall::{Ctx, Field, StrVal, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;
use std::net::{Ipv4Addr, Ipv6Addr};

/// `sizeof(struct sockaddr_storage)`: the most strace reads of an address.
const SS_SIZE: usize = 128;

kstruct! {
    /// `struct sockaddr_in`.
    struct SockaddrIn size 16 {
        family: u16 @ 0,
        port: [u8; 2] @ 2,
        addr: [u8; 4] @ 4,
    }
}

kstruct! {
    /// `struct sockaddr_in6`.
    struct SockaddrIn6 size 28 {
        family: u16 @ 0,
        port: [u8; 2] @ 2,
        flowinfo: [u8; 4] @ 4,
        addr: [u8; 16] @ 8,
        scope_id: u32 @ 24,
    }
}

kstruct! {
    /// `struct sockaddr_nl`.
    struct SockaddrNl size 12 {
        family: u16 @ 0,
        pad: u16 @ 2,
        pid: i32 @ 4,
        groups: u32 @ 8,
    }
}

kstruct! {
    /// `struct sockaddr_ll`.
    struct SockaddrLl size 20 {
        family: u16 @ 0,
        protocol: [u8; 2] @ 2,
        ifindex: u32 @ 4,
        hatype: u16 @ 8,
        pkttype: u8 @ 10,
        halen: u8 @ 11,
        addr: [u8; 8] @ 12,
    }
}

/// Offset of `sin6_scope_id` in `struct sockaddr_in6`.
const SIN6_SCOPE_ID: usize = 24;

/// Offset of `sll_addr` in `struct sockaddr_ll`.
const SLL_ADDR: usize = 12;

/// strace's `decode_sockaddr`: the address of `len` bytes at `addr`; the
/// pointer when `len` is below 2 or the memory cannot be read.
pub(in crate::syscall) fn sockaddr_at(c: &mut Ctx, addr: u64, len: i64) -> Value {
    if len < 2 {
        return Value::Ptr(addr);
    }
    let n = (len as u64).min(SS_SIZE as u64) as usize;
    if addr == 0 {
        return Value::Ptr(0);
    }
    match c.read_bytes(addr, n) {
        Some(b) => {
            let mut v = sockaddr_value(c, &b);
            c.field_id(&mut v, "nl_pid", crate::syscall::ctx::PidKind::Tgid);
            crate::syscall::net::sockaddr_other::resolve_fds(c, &mut v);
            v
        }
        None => Value::Unreadable(addr),
    }
}

/// strace's `print_sockaddr`: the address in `raw` (its length is the
/// address length; bytes past it read as zero).
pub(in crate::syscall) fn sockaddr_value(c: &Ctx, raw: &[u8]) -> Value {
    let len = raw.len();
    let mut b = [0u8; SS_SIZE + 1];
    b[..len.min(SS_SIZE)].copy_from_slice(&raw[..len.min(SS_SIZE)]);
    // sa_family_t sa_family, first in every address.
    let family = le::<u16>(&b, 0) as u64;
    let mut f = vec![Field::new(
        "sa_family",
        c.enum_value(family, &xlat::SOCKET_FAMILIES, "AF_???"),
    )];
    if len <= 2 {
        return Value::structure(f);
    }
    let min = match family as i32 {
        libc::AF_UNIX => 3,
        libc::AF_INET => 16,
        libc::AF_INET6 => 24,
        libc::AF_NETLINK => 12,
        libc::AF_PACKET => 20,
        _ => crate::syscall::net::sockaddr_other::min_len(family).unwrap_or(usize::MAX),
    };
    if len < min {
        f.push(Field::new("sa_data", raw_str(&b[2..len])));
        return Value::structure(f);
    }
    match family as i32 {
        libc::AF_UNIX => unix_fields(&b, len, &mut f),
        libc::AF_INET => inet_fields(c, &b, &mut f),
        libc::AF_INET6 => inet6_fields(c, &b, len, &mut f),
        libc::AF_NETLINK => netlink_fields(&b, &mut f),
        libc::AF_PACKET => packet_fields(c, &b, len, &mut f),
        _ => {
            let more = crate::syscall::net::sockaddr_other::fields(c, family, &b, len, &mut f);
            return Value::Struct(f, more);
        }
    }
    Value::structure(f)
}

/// Bytes quoted as they are (strace's `print_quoted_string` with no flags).
fn raw_str(b: &[u8]) -> Value {
    Value::Str(StrVal {
        bytes: b.to_vec(),
        truncated: false,
        c_string: false,
    })
}

/// `sun_path="/path"` or `sun_path=@"abstract"`.
fn unix_fields(b: &[u8], len: usize, f: &mut Vec<Field>) {
    // sizeof(struct sockaddr_un) is 110: 2 bytes of family, 108 of path.
    let path_len = len.min(110) - 2;
    let path = &b[2..];
    let v = if path[0] != 0 {
        let p = &path[..path_len + 1];
        let end = p.iter().position(|&x| x == 0).unwrap_or(path_len);
        Value::Str(StrVal {
            bytes: p[..end].to_vec(),
            truncated: false,
            c_string: true,
        })
    } else {
        Value::Joined(vec![Value::sym("@"), raw_str(&path[1..path_len])], "")
    };
    f.push(Field::new("sun_path", v));
}

/// `htons(N)` of a port in network byte order at `off` of `b`.
pub(in crate::syscall) fn port_value(c: &Ctx, b: &[u8], off: usize) -> Value {
    net_port_value(c, crate::syscall::layout::bytes(b, off))
}

/// `htons(N)` of a port's bytes (network byte order).
fn net_port_value(c: &Ctx, raw: [u8; 2]) -> Value {
    net16_value(
        c,
        &raw,
        Value::UInt(u16::from_be_bytes(raw) as u64),
        "htons",
    )
}

/// A network-order field strace prints as `htons(V)`/`htonl(V)`; `-X raw`
/// prints its bytes, `-X verbose` both.
fn net16_value(c: &Ctx, bytes: &[u8], v: Value, func: &'static str) -> Value {
    let call = Value::Call(Cow::Borrowed(func), vec![v]);
    match c.opts.xlat_style {
        1 => Value::sym_owned(hex_quoted(bytes)),
        2 => Value::Commented(
            Box::new(Value::sym_owned(hex_quoted(bytes))),
            Cow::Owned(crate::syscall::ctx::render_flags(&call)),
        ),
        _ => call,
    }
}

/// An IPv4 address as `inet_addr("127.0.0.1")` (strace's `print_inet_addr`).
pub(in crate::syscall) fn inet_addr_value(c: &Ctx, a: &[u8]) -> Value {
    let ip = Ipv4Addr::new(a[0], a[1], a[2], a[3]);
    let call = Value::Call(
        Cow::Borrowed("inet_addr"),
        vec![Value::Str(StrVal {
            bytes: ip.to_string().into_bytes(),
            truncated: false,
            c_string: true,
        })],
    );
    match c.opts.xlat_style {
        1 => Value::sym_owned(hex_quoted(&a[..4])),
        2 => Value::Commented(
            Box::new(Value::sym_owned(hex_quoted(&a[..4]))),
            Cow::Owned(crate::syscall::ctx::render_flags(&call)),
        ),
        _ => call,
    }
}

/// `sin_port=htons(P), sin_addr=inet_addr("A")`.
pub(in crate::syscall) fn inet_fields(c: &Ctx, b: &[u8], f: &mut Vec<Field>) {
    let sin = SockaddrIn(b);
    f.push(Field::new("sin_port", net_port_value(c, sin.port())));
    f.push(Field::new("sin_addr", inet_addr_value(c, &sin.addr())));
}

/// An IPv6 address field: `inet_pton(AF_INET6, "::1", &NAME)` as a bare
/// argument in the default style, `NAME="\x.."` with `-X raw`.
pub(in crate::syscall) fn inet6_addr_field(c: &Ctx, a: &[u8], name: &'static str) -> Field {
    let mut o = [0u8; 16];
    o.copy_from_slice(&a[..16]);
    let text = Ipv6Addr::from(o).to_string();
    let s = Value::Str(StrVal {
        bytes: text.into_bytes(),
        truncated: false,
        c_string: true,
    });
    let raw = Value::sym_owned(hex_quoted(&o));
    let call = |with_name: bool| {
        let mut args = vec![Value::sym("AF_INET6"), s.clone()];
        if with_name {
            args.push(Value::sym_owned(format!("&{name}")));
        }
        Value::Call(Cow::Borrowed("inet_pton"), args)
    };
    match c.opts.xlat_style {
        1 => Field::new(name, raw),
        2 => Field::new(
            name,
            Value::Commented(
                Box::new(raw),
                Cow::Owned(crate::syscall::ctx::render_flags(&call(false))),
            ),
        ),
        _ => Field {
            name: Cow::Borrowed(""),
            value: call(true),
        },
    }
}

/// An interface index as `if_nametoindex("lo")` when this host has that
/// interface (strace's `print_ifindex`), else the number.
pub(in crate::syscall) fn ifindex_value(c: &Ctx, idx: u32) -> Value {
    let Some(name) = crate::sys::net::if_name(idx) else {
        return Value::UInt(idx as u64);
    };
    let call = Value::Call(
        Cow::Borrowed("if_nametoindex"),
        vec![Value::Str(StrVal {
            bytes: name,
            truncated: false,
            c_string: true,
        })],
    );
    match c.opts.xlat_style {
        1 => Value::UInt(idx as u64),
        2 => Value::Commented(
            Box::new(Value::UInt(idx as u64)),
            Cow::Owned(crate::syscall::ctx::render_flags(&call)),
        ),
        _ => call,
    }
}

/// `sin6_port`, `sin6_flowinfo`, the address and, past 24 bytes, `sin6_scope_id`.
pub(in crate::syscall) fn inet6_fields(c: &Ctx, b: &[u8], len: usize, f: &mut Vec<Field>) {
    let sin6 = SockaddrIn6(b);
    f.push(Field::new("sin6_port", net_port_value(c, sin6.port())));
    let flow = sin6.flowinfo();
    f.push(Field::new(
        "sin6_flowinfo",
        net16_value(
            c,
            &flow,
            Value::UInt(u32::from_be_bytes(flow) as u64),
            "htonl",
        ),
    ));
    let a = sin6.addr();
    f.push(inet6_addr_field(c, &a, "sin6_addr"));
    // sin6_scope_id is printed when the length goes past sin6_addr.
    if len <= SIN6_SCOPE_ID {
        return;
    }
    let scope = sin6.scope_id();
    let link_local = (a[0] == 0xfe && a[1] & 0xc0 == 0x80) || (a[0] == 0xff && a[1] & 0xf == 2);
    let v = if link_local {
        ifindex_value(c, scope)
    } else {
        Value::UInt(scope as u64)
    };
    f.push(Field::new("sin6_scope_id", v));
}

/// C's `%#0*x` with `width` digits: `00` for zero, else `0x` and hex.
pub(in crate::syscall) fn zero_x(v: u64, width: usize) -> Value {
    if v == 0 {
        Value::sym_owned("0".repeat(width))
    } else {
        Value::sym_owned(format!("{v:#0width$x}"))
    }
}

/// `nl_pid=N, nl_groups=%#08x` (and `nl_pad` first when non-zero).
fn netlink_fields(b: &[u8], f: &mut Vec<Field>) {
    let nl = SockaddrNl(b);
    let pad = nl.pad();
    if pad != 0 {
        f.push(Field::new("nl_pad", Value::Hex(pad as u64)));
    }
    f.push(Field::new("nl_pid", Value::Int(nl.pid() as i64)));
    f.push(Field::new("nl_groups", zero_x(nl.groups() as u64, 8)));
}

/// An ethernet protocol in network order as `htons(ETH_P_IP)`.
pub(in crate::syscall) fn eth_proto_value(c: &Ctx, proto_be: u16) -> Value {
    let p = u16::from_be(proto_be) as u64;
    let inner = match xlat::ETHERNET_PROTOCOLS.lookup(p) {
        Some(n) => Value::sym(n),
        None => Value::Commented(Box::new(Value::Hex(p)), Cow::Borrowed("ETH_P_???")),
    };
    net16_value(c, &proto_be.to_ne_bytes(), inner, "htons")
}

/// The fields of a `sockaddr_ll`.
fn packet_fields(c: &Ctx, b: &[u8], len: usize, f: &mut Vec<Field>) {
    let ll = SockaddrLl(b);
    let proto = u16::from_ne_bytes(ll.protocol());
    f.push(Field::new("sll_protocol", eth_proto_value(c, proto)));
    f.push(Field::new("sll_ifindex", ifindex_value(c, ll.ifindex())));
    f.push(Field::new(
        "sll_hatype",
        c.enum_value(ll.hatype() as u64, &xlat::ARP_HARDWARE_TYPES, "ARPHRD_???"),
    ));
    f.push(Field::new(
        "sll_pkttype",
        c.enum_value(ll.pkttype() as u64, &xlat::AF_PACKET_TYPES, "PACKET_???"),
    ));
    let halen = ll.halen() as usize;
    f.push(Field::new("sll_halen", Value::UInt(halen as u64)));
    if halen == 0 {
        return;
    }
    // strace prints up to sll_halen bytes of sll_addr, as far as the address
    // length (and the sockaddr_storage copy in `b`) goes: past the 8 bytes of
    // sll_addr too.
    let in_bounds = len.saturating_sub(SLL_ADDR);
    let addr = b.get(SLL_ADDR..).unwrap_or(&[]);
    let mut items = Vec::new();
    for i in 0..halen {
        match addr.get(i) {
            Some(&x) if i < in_bounds => items.push(zero_x(x as u64, 2)),
            _ => return f.push(Field::new("sll_addr", Value::Array(items, true))),
        }
    }
    f.push(Field::new("sll_addr", Value::Array(items, false)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::FixedFds;
    use crate::syscall::DecodeOpts;
    use crate::value::text::{render_value, RenderOpts};
    use rtrace_arch::Arch;

    fn show(bytes: &[u8], len: i64) -> String {
        let mut mem = FakeMemory::default();
        let addr = mem.put(bytes);
        let mut fds = FixedFds(Vec::new());
        let opts = DecodeOpts::default();
        let mut c = Ctx::new(&mut mem, &mut fds, &opts, 1, Arch::X86_64, [0; 6]);
        let v = sockaddr_at(&mut c, addr, len);
        let mut s = String::new();
        render_value(&mut s, &v, &RenderOpts::default());
        s
    }

    #[test]
    fn families() {
        let mut un = vec![1u8, 0];
        un.extend_from_slice(b"/tmp/xx\0");
        un.resize(110, 0);
        assert_eq!(show(&un, 110), r#"{sa_family=AF_UNIX, sun_path="/tmp/xx"}"#);
        assert_eq!(show(&un, 5), r#"{sa_family=AF_UNIX, sun_path="/tm"}"#);
        let abs = [1u8, 0, 0, b't', b'm', b'p', b'/'];
        assert_eq!(show(&abs, 7), r#"{sa_family=AF_UNIX, sun_path=@"tmp/"}"#);
        let sin = [2u8, 0, 0, 80, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(
            show(&sin, 16),
            r#"{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}"#
        );
        assert_eq!(
            show(&sin, 8),
            r#"{sa_family=AF_INET, sa_data="\0P\177\0\0\1"}"#
        );
        let mut s6 = vec![10u8, 0, 0, 99, 0, 0, 0, 7];
        s6.extend_from_slice(&Ipv6Addr::LOCALHOST.octets());
        s6.extend_from_slice(&[0, 0, 0, 0]);
        assert_eq!(
            show(&s6, 28),
            "{sa_family=AF_INET6, sin6_port=htons(99), sin6_flowinfo=htonl(7), \
             inet_pton(AF_INET6, \"::1\", &sin6_addr), sin6_scope_id=0}"
        );
        let nl = [16u8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0];
        assert_eq!(
            show(&nl, 12),
            "{sa_family=AF_NETLINK, nl_pid=0, nl_groups=0x000001}"
        );
        let ll = [
            17u8, 0, 0x08, 0x00, 0xff, 0xff, 0xff, 0x7f, 4, 0, 3, 2, 0, 0xff, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(
            show(&ll, 20),
            "{sa_family=AF_PACKET, sll_protocol=htons(ETH_P_IP), sll_ifindex=2147483647, \
             sll_hatype=ARPHRD_PRONET, sll_pkttype=PACKET_OTHERHOST, sll_halen=2, \
             sll_addr=[00, 0xff]}"
        );
        assert_eq!(
            show(&[46, 0, 1], 3),
            r#"{sa_family=0x2e /* AF_??? */, sa_data="\1"}"#
        );
        assert_eq!(show(&[1, 0], 1), "0x10000");
    }
}
