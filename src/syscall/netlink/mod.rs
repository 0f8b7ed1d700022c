//! Netlink messages in the buffers of `AF_NETLINK` sockets (strace's
//! `netlink.c`): arrays of `struct nlmsghdr` with their payloads, as
//! sendto, recvfrom, sendmsg and recvmsg print them.
//!
//! As in strace, sendto/recvfrom buffers are netlink messages when the
//! descriptor is a netlink socket, msghdr iovecs when `msg_name` is an
//! `AF_NETLINK` address. The protocol comes from the socket inode
//! (`/proc/PID/fd/N`, cached per (pid, fd) by `fd_cache.rs` until the
//! number is closed or replaced) looked up in `/proc/PID/net/netlink`
//! (cached per inode), so a known socket costs no `/proc` read per call
//! (strace pays a `getxattr`, a `readlink` and a sock_diag query per call).
//! Two cases still read `/proc` per call: a netlink socket not bound yet
//! (absent from `/proc/PID/net/netlink` until its first send binds it), and
//! a trace under a seccomp filter, where closes go unseen and the per-fd
//! cache is off.
//!
//! Payloads: `NLMSG_ERROR` (`struct nlmsgerr` with the echoed request),
//! `NLMSG_DONE` (an `int`), and per protocol the decoders of
//! `netlink_route.rs` and `netlink_diag.rs`; any other payload prints as
//! strace prints unknown ones, a hex-escaped string.

pub(in crate::syscall) mod attr;
pub(in crate::syscall) mod generic;
pub(in crate::syscall) mod kobject_uevent;
pub(in crate::syscall) mod netfilter;
pub(in crate::syscall) mod route;
pub(in crate::syscall) mod sock_diag;

use crate::syscall::layout::{kstruct, le};
use crate::syscall::{fd_cache, Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

/// `sizeof(struct nlmsghdr)`.
pub(in crate::syscall) const NLMSG_HDRLEN: u64 = NlMsgHdr::SIZE as u64;
const NLMSG_NOOP_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const NLMSG_MIN_TYPE: u16 = 16;
const NETLINK_ROUTE: u32 = 0;
const NETLINK_SOCK_DIAG: u32 = 4;
const NETLINK_XFRM: u32 = 6;
const NETLINK_SELINUX: u32 = 7;
const NETLINK_AUDIT: u32 = 9;
const NETLINK_NETFILTER: u32 = 12;
const NETLINK_KOBJECT_UEVENT: u32 = 15;
const NETLINK_GENERIC: u32 = 16;
const NETLINK_CRYPTO: u32 = 21;
const NLM_F_CAPPED: u16 = 0x100;

kstruct! {
    /// `struct nlmsghdr`.
    pub(in crate::syscall) struct NlMsgHdr size 16 {
        len: u32 @ 0,
        type_: u16 @ 4,
        flags: u16 @ 6,
        seq: u32 @ 8,
        pid: u32 @ 12,
    }
}

kstruct! {
    /// `struct nlmsgerr`: the error and the header of the echoed request.
    struct NlMsgErr size 20 {
        error: i32 @ 0,
        msg: [u8; 16] @ 4,
    }
}

/// A decoded `struct nlmsghdr`.
#[derive(Clone, Copy, Debug)]
pub(in crate::syscall) struct Nlmsghdr {
    pub len: u32,
    pub ty: u16,
    pub flags: u16,
    pub seq: u32,
    pub pid: u32,
}

impl Nlmsghdr {
    /// The header at the start of `b`.
    fn parse(b: &[u8]) -> Self {
        let h = NlMsgHdr(b);
        Nlmsghdr {
            len: h.len(),
            ty: h.type_(),
            flags: h.flags(),
            seq: h.seq(),
            pid: h.pid(),
        }
    }
}

/// A protocol's payload decoder: the values printed after the header (in
/// the message's array), or `None` to print the payload as a string.
pub(in crate::syscall) type PayloadDecoder =
    fn(&mut Ctx, &Nlmsghdr, u64, u64) -> Option<Vec<Value>>;

/// Payload decoders by protocol.
const DECODERS: &[(u32, PayloadDecoder)] = &[
    (NETLINK_ROUTE, route::decode),
    (NETLINK_SOCK_DIAG, sock_diag::decode),
    (NETLINK_SELINUX, selinux_decode),
    (NETLINK_NETFILTER, netfilter::decode),
];

/// strace's `decode_netlink_selinux`: `{val=…}` of SELNL_MSG_SETENFORCE,
/// `{seqno=…}` of SELNL_MSG_POLICYLOAD (a hex string when short).
fn selinux_decode(c: &mut Ctx, h: &Nlmsghdr, addr: u64, len: u64) -> Option<Vec<Value>> {
    let name = match h.ty {
        0x10 => "val",
        0x11 => "seqno",
        _ => return None,
    };
    if len < 4 {
        return Some(vec![hexstr_value(c, addr, len)]);
    }
    let v = match c.read_bytes(addr, 4) {
        // `int val` of struct selnl_msg_setenforce, `u32 seqno` of
        // struct selnl_msg_policyload.
        Some(b) if h.ty == 0x10 => Value::Int(le::<i32>(&b, 0) as i64),
        Some(b) => Value::UInt(le::<u32>(&b, 0) as u64),
        None => return Some(vec![Value::Unreadable(addr)]),
    };
    Some(vec![Value::structure(vec![Field::new(name, v)])])
}

/// The protocol printed when a netlink socket's protocol is unknown (an
/// unbound socket, absent from `/proc/net/netlink`): strace's family -1.
pub(in crate::syscall) const UNKNOWN_PROTO: u32 = u32::MAX;

thread_local! {
    /// Socket inode → netlink protocol (`None`: not a netlink socket).
    /// Unbound netlink sockets are not cached: they get a protocol entry
    /// once bound (the kernel binds them at the first send).
    static PROTOS: RefCell<HashMap<u64, Option<u32>>> = RefCell::new(HashMap::new());
}

/// Looks `inode` up in `/proc/PID/net/netlink` (columns `sk Eth Pid Groups
/// Rmem Wmem Dump Locks Drops Inode`; `Eth` is the protocol).
fn lookup_proto(pid: i32, inode: u64) -> Option<u32> {
    lookup_proto_at(&pid.to_string(), inode)
}

/// [`lookup_proto`] in `/proc/ENTRY/net/netlink`.
fn lookup_proto_at(entry: &str, inode: u64) -> Option<u32> {
    let text = std::fs::read_to_string(format!("/proc/{entry}/net/netlink")).ok()?;
    text.lines().skip(1).find_map(|l| {
        let cols: Vec<&str> = l.split_whitespace().collect();
        if cols.len() >= 10 && cols[9].parse::<u64>().ok()? == inode {
            cols[1].parse().ok()
        } else {
            None
        }
    })
}

/// Whether the socket at `path` (`/proc/PID/fd/N`) is a netlink socket:
/// its `system.sockprotoname` attribute, as strace's `getfdproto` reads.
fn is_netlink_socket(path: &str) -> bool {
    let Ok(p) = std::ffi::CString::new(path) else {
        return false;
    };
    let mut buf = [0u8; 64];
    crate::sys::net::getxattr(&p, c"system.sockprotoname", &mut buf)
        .is_some_and(|n| buf[..n].starts_with(b"NETLINK"))
}

/// The socket inode of descriptor `fd` under `--pidns-translation`: the
/// resolver knows the tracee's `/proc` entry, which `/proc/PID` is not when
/// `/proc` belongs to an outer PID namespace.
fn pidns_socket_inode(c: &mut Ctx, fd: i64) -> Option<u64> {
    let Some(link) = c.fds.fd_path(c.pid, fd) else {
        return fd_cache::socket_inode(c.pid, fd);
    };
    match std::str::from_utf8(&link)
        .ok()
        .and_then(|l| l.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok())
    {
        Some(ino) => Some(ino),
        None => fd_cache::socket_inode(c.pid, fd),
    }
}

/// The netlink protocol of descriptor `fd` ([`UNKNOWN_PROTO`] for an
/// unbound socket), or `None` when it is not a netlink socket. A known
/// socket costs nothing once its descriptor is cached.
pub(in crate::syscall) fn fd_protocol(c: &mut Ctx, fd: i64) -> Option<u32> {
    let inode = if c.opts.pidns {
        pidns_socket_inode(c, fd)?
    } else {
        fd_cache::socket_inode(c.pid, fd)?
    };
    if let Some(p) = PROTOS.with(|m| m.borrow().get(&inode).copied()) {
        return p;
    }
    // Under `--pidns-translation` `/proc` may number the tracee otherwise:
    // the inode is unique, so rstrace's own table is searched as well.
    if let Some(p) = lookup_proto(c.pid, inode).or_else(|| {
        c.opts
            .pidns
            .then(|| lookup_proto_at("self", inode))
            .flatten()
    }) {
        PROTOS.with(|m| m.borrow_mut().insert(inode, Some(p)));
        return Some(p);
    }
    if is_netlink_socket(&format!("/proc/{}/fd/{fd}", c.pid)) {
        return Some(UNKNOWN_PROTO);
    }
    PROTOS.with(|m| m.borrow_mut().insert(inode, None));
    None
}

/// The buffer of a socket call: netlink messages on a netlink socket (when
/// structures are decoded), else a string.
pub(in crate::syscall) fn sockbuf_value(c: &mut Ctx, fd: i64, addr: u64, len: u64) -> Value {
    if addr == 0 || !c.opts.deref {
        return c.buf_value(addr, len);
    }
    match fd_protocol(c, fd) {
        Some(NETLINK_KOBJECT_UEVENT) => kobject_uevent::value(c, addr, len),
        Some(p) => netlink_value(c, p, addr, len),
        None => c.buf_value(addr, len),
    }
}

/// strace's `printstr_ex(..., QUOTE_FORCE_HEX)`: every byte as `\xNN`.
pub(in crate::syscall) fn hexstr_value(c: &mut Ctx, addr: u64, len: u64) -> Value {
    let limit = c.opts.string_limit as u64;
    let n = len.min(limit) as usize;
    let Some(b) = c.read_data(addr, n) else {
        return Value::Unreadable(addr);
    };
    let mut s = String::with_capacity(2 + 4 * n + 3);
    s.push('"');
    for x in b {
        s.push_str(&format!("\\x{x:02x}"));
    }
    s.push('"');
    if len > limit {
        s.push_str("...");
    }
    Value::sym_owned(s)
}

/// strace's `fetch_nlmsghdr`: the header at `addr`, or the value printed
/// in its place.
fn fetch_nlmsghdr(c: &mut Ctx, addr: u64, len: u64, in_array: bool) -> Result<Nlmsghdr, Value> {
    if len < NLMSG_HDRLEN {
        return Err(hexstr_value(c, addr, len));
    }
    match c.read_bytes(addr, NLMSG_HDRLEN as usize) {
        Some(b) => Ok(Nlmsghdr::parse(&b)),
        None if in_array => Err(Value::Commented(
            Box::new(Value::sym("...")),
            Cow::Owned(format!("{addr:#x}")),
        )),
        None => Err(Value::Ptr(addr)),
    }
}

/// strace's `decode_netlink`: one message, or an array of them.
pub(in crate::syscall) fn netlink_value(
    c: &mut Ctx,
    proto: u32,
    mut addr: u64,
    mut len: u64,
) -> Value {
    let mut items = Vec::new();
    let mut is_array = false;
    let mut more = false;
    let mut elt = 0usize;
    loop {
        let h = match fetch_nlmsghdr(c, addr, len, is_array) {
            Ok(h) => h,
            Err(v) => {
                items.push(v);
                break;
            }
        };
        if !c.opts.verbose && elt == c.opts.string_limit {
            more = true;
            break;
        }
        let aligned = (h.len as u64 + 3) & !3;
        let mut next_addr = 0;
        let mut next_len = 0;
        if h.len as u64 >= NLMSG_HDRLEN {
            next_len = len.saturating_sub(aligned);
            if next_len != 0 && addr.checked_add(aligned).is_some() {
                next_addr = addr + aligned;
            }
        }
        if next_addr != 0 {
            is_array = true;
        }
        items.push(nlmsg_value(c, proto, &h, addr, len));
        if next_addr == 0 {
            break;
        }
        addr = next_addr;
        len = next_len;
        elt += 1;
    }
    if is_array {
        Value::Array(items, more)
    } else {
        items.pop().unwrap_or(Value::Unknown)
    }
}

/// strace's `decode_nlmsg_flags`: common flags, then the type's own.
fn flags_value(c: &Ctx, proto: u32, ty: u16, flags: u16) -> Value {
    let own: Option<&Xlat> = if ty < NLMSG_MIN_TYPE {
        (ty == NLMSG_NOOP_ERROR).then_some(&xlat::NETLINK_ACK_FLAGS)
    } else {
        match proto {
            // RTM_DELACTION takes the GET flags, as in strace.
            NETLINK_ROUTE if ty == 49 => Some(&xlat::NETLINK_GET_FLAGS),
            NETLINK_ROUTE => match ty & 3 {
                0 => Some(&xlat::NETLINK_NEW_FLAGS),
                1 => Some(&xlat::NETLINK_DELETE_FLAGS),
                2 => Some(&xlat::NETLINK_GET_FLAGS),
                _ => None,
            },
            NETLINK_SOCK_DIAG => Some(&xlat::NETLINK_GET_FLAGS),
            NETLINK_NETFILTER => netfilter::flags_table(ty),
            NETLINK_XFRM => match ty {
                // XFRM_MSG_NEWSA, NEWPOLICY, NEWAE, NEWSADINFO, NEWSPDINFO.
                0x10 | 0x13 | 0x1e | 0x22 | 0x24 => Some(&xlat::NETLINK_NEW_FLAGS),
                // XFRM_MSG_DELSA, DELPOLICY.
                0x11 | 0x14 => Some(&xlat::NETLINK_DELETE_FLAGS),
                // XFRM_MSG_GETSA, GETPOLICY, GETAE, GETSADINFO, GETSPDINFO.
                0x12 | 0x15 | 0x1f | 0x23 | 0x25 => Some(&xlat::NETLINK_GET_FLAGS),
                _ => None,
            },
            NETLINK_CRYPTO => match ty {
                0x10 => Some(&xlat::NETLINK_NEW_FLAGS),
                0x11 | 0x14 => Some(&xlat::NETLINK_DELETE_FLAGS),
                0x13 => Some(&xlat::NETLINK_GET_FLAGS),
                _ => None,
            },
            _ => None,
        }
    };
    let v = flags as u64;
    if v == 0 {
        return Value::UInt(0);
    }
    if c.opts.xlat_style == 1 {
        return Value::Hex(v);
    }
    let (mut names, mut rest) = xlat::NETLINK_FLAGS.split_flags(v);
    if let Some(t) = own {
        let (n2, r2) = t.split_flags(rest);
        names.extend(n2);
        rest = r2;
    }
    if names.is_empty() {
        return Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed("NLM_F_???"));
    }
    let f = Value::Flags {
        names,
        rest,
        octal_rest: false,
    };
    if c.opts.xlat_style == 2 {
        let text = crate::syscall::ctx::render_flags(&f);
        return Value::Commented(Box::new(Value::Hex(v)), Cow::Owned(text));
    }
    f
}

/// strace's `decode_nlmsg_type`.
fn type_value(c: &Ctx, proto: u32, ty: u16) -> Value {
    let (table, dflt): (&Xlat, &'static str) = if ty < NLMSG_MIN_TYPE {
        (&xlat::NETLINK_TYPES, "NLMSG_???")
    } else {
        match proto {
            NETLINK_ROUTE => (&xlat::NL_ROUTE_TYPES, "RTM_???"),
            NETLINK_SOCK_DIAG => (&xlat::NL_SOCK_DIAG_TYPES, "SOCK_DIAG_???"),
            NETLINK_XFRM => (&xlat::NL_XFRM_TYPES, "XFRM_MSG_???"),
            NETLINK_SELINUX => (&xlat::NL_SELINUX_TYPES, "SELNL_MSG_???"),
            NETLINK_AUDIT => (&xlat::NL_AUDIT_TYPES, "AUDIT_???"),
            NETLINK_CRYPTO => (&xlat::NL_CRYPTO_TYPES, "CRYPTO_MSG_???"),
            NETLINK_NETFILTER => return netfilter::type_value(c, ty),
            NETLINK_GENERIC => return generic::type_value(c, ty),
            _ => (&xlat::NETLINK_TYPES, "NLMSG_???"),
        }
    };
    c.enum_value(ty as u64, table, dflt)
}

/// `{nlmsg_len=…, nlmsg_type=…, nlmsg_flags=…, nlmsg_seq=…, nlmsg_pid=…}`.
fn header_value(c: &Ctx, proto: u32, h: &Nlmsghdr) -> Value {
    Value::structure(vec![
        Field::new("nlmsg_len", Value::UInt(h.len as u64)),
        Field::new("nlmsg_type", type_value(c, proto, h.ty)),
        Field::new("nlmsg_flags", flags_value(c, proto, h.ty, h.flags)),
        Field::new("nlmsg_seq", Value::UInt(h.seq as u64)),
        Field::new("nlmsg_pid", Value::UInt(h.pid as u64)),
    ])
}

/// strace's `decode_nlmsghdr_with_payload`: the header alone, or
/// `[header, payload…]`.
fn nlmsg_value(c: &mut Ctx, proto: u32, h: &Nlmsghdr, addr: u64, len: u64) -> Value {
    let mut hv = header_value(c, proto, h);
    c.field_id(&mut hv, "nlmsg_pid", crate::syscall::ctx::PidKind::Tgid);
    let n = (h.len as u64).min(len);
    if n <= NLMSG_HDRLEN {
        return hv;
    }
    let mut items = vec![hv];
    items.extend(payload_values(
        c,
        proto,
        h,
        addr + NLMSG_HDRLEN,
        n - NLMSG_HDRLEN,
    ));
    Value::Array(items, false)
}

/// strace's `decode_payload`.
fn payload_values(c: &mut Ctx, proto: u32, h: &Nlmsghdr, addr: u64, len: u64) -> Vec<Value> {
    if h.ty == NLMSG_NOOP_ERROR {
        return vec![nlmsgerr_value(
            c,
            proto,
            addr,
            len,
            h.flags & NLM_F_CAPPED != 0,
        )];
    }
    if h.ty >= NLMSG_MIN_TYPE || h.ty == NLMSG_DONE {
        if let Some((_, d)) = DECODERS.iter().find(|(p, _)| *p == proto) {
            if let Some(v) = d(c, h, addr, len) {
                return v;
            }
        }
    }
    if h.ty == NLMSG_DONE && len == 4 {
        return vec![match c.read_bytes(addr, 4) {
            Some(b) => Value::Int(le::<i32>(&b, 0) as i64),
            None => Value::Unreadable(addr),
        }];
    }
    vec![hexstr_value(c, addr, len)]
}

/// strace's `decode_nlmsgerr`: `{error=-EINVAL, msg=…}`, then the
/// `NLMSGERR_ATTR_*` attributes after the echoed message, if any.
fn nlmsgerr_value(c: &mut Ctx, proto: u32, addr: u64, len: u64, capped: bool) -> Value {
    let size = NlMsgErr::SIZE as u64;
    if len < size {
        return hexstr_value(c, addr, len);
    }
    let Some(b) = c.read_bytes(addr, size as usize) else {
        return Value::Unreadable(addr);
    };
    let e = NlMsgErr(&b);
    let err = e.error();
    let ev = match (
        err < 0,
        rtrace_arch::tables::errno_name((-(err as i64)) as u64),
    ) {
        (true, Some(n)) if c.opts.xlat_style == 2 => Value::Commented(
            Box::new(Value::Int(err as i64)),
            Cow::Owned(format!("-{n}")),
        ),
        (true, Some(n)) if c.opts.xlat_style != 1 => Value::sym_owned(format!("-{n}")),
        _ => Value::Int(err as i64),
    };
    let h = Nlmsghdr::parse(&e.msg());
    // The echoed message follows `int error`.
    let (addr, len) = (addr + 4, len - 4);
    let msg_len = (h.len as u64).max(NLMSG_HDRLEN);
    let payload = len.min(if capped { NLMSG_HDRLEN } else { msg_len });
    let msg = nlmsg_value(c, proto, &h, addr, payload);
    let v = Value::structure(vec![Field::new("error", ev), Field::new("msg", msg)]);
    if len <= payload {
        return v;
    }
    let attrs = attr::attrs_value(
        c,
        addr + payload,
        len - payload,
        attr::AttrNames {
            table: &xlat::NLMSGERR_ATTRS,
            dflt: "NLMSGERR_ATTR_???",
        },
        &nlmsgerr_attr,
    );
    Value::Array(vec![v, attrs], false)
}

/// An `NLMSGERR_ATTR_*` attribute: message, offset, cookie bytes.
fn nlmsgerr_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => attr::nla_str(c, addr, len),
        2 => attr::nla_u(c, addr, len, 4),
        3 => attr::int_array(c, addr, len, 1, false, None),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;
    use crate::syscall::{RetFmt, Step};

    /// `x(buf, len)` with the buffer as NETLINK_ROUTE messages.
    fn route(c: &mut Ctx) -> Step {
        let v = netlink_value(c, NETLINK_ROUTE, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        c.push(Value::UInt(c.arg_ulong(1)));
        Step::Done(RetFmt::Int)
    }

    fn hdr(len: u32, ty: u16, flags: u16, seq: u32) -> Vec<u8> {
        let mut v = len.to_le_bytes().to_vec();
        v.extend(ty.to_le_bytes());
        v.extend(flags.to_le_bytes());
        v.extend(seq.to_le_bytes());
        v.extend(7u32.to_le_bytes());
        v
    }

    #[test]
    fn done_error_and_tail() {
        let mut m = FakeMemory::default();
        let mut b = hdr(20, 3, 2, 1);
        b.extend(0i32.to_le_bytes());
        // NLMSG_ERROR -EINVAL echoing a capped RTM_GETLINK request.
        b.extend(hdr(36, 2, 0x100, 2));
        b.extend((-22i32).to_le_bytes());
        b.extend(hdr(40, 18, 0x301, 2));
        b.extend([0xab, 0xcd]);
        let a = m.put(&b);
        let n = b.len() as u64;
        assert_eq!(
            run(route, "x", &[a, n], 0, &mut m),
            "x([[{nlmsg_len=20, nlmsg_type=NLMSG_DONE, nlmsg_flags=NLM_F_MULTI, nlmsg_seq=1, \
             nlmsg_pid=7}, 0], [{nlmsg_len=36, nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_CAPPED, \
             nlmsg_seq=2, nlmsg_pid=7}, {error=-EINVAL, msg={nlmsg_len=40, nlmsg_type=RTM_GETLINK, \
             nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=2, nlmsg_pid=7}}], \"\\xab\\xcd\"], \
             58) = 0"
        );
    }

    #[test]
    fn error_with_attributes_and_selinux() {
        let mut m = FakeMemory::default();
        let mut b = hdr(42, 2, 0x101, 0);
        b.extend((-13i32).to_le_bytes());
        b.extend(hdr(20, 1, 1, 0));
        b.extend([6, 0, 3, 0, 0xab, 0xfe]);
        let a = m.put(&b);
        assert_eq!(
            run(route, "x", &[a, 42], 0, &mut m),
            "x([{nlmsg_len=42, nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_REQUEST|NLM_F_CAPPED, \
             nlmsg_seq=0, nlmsg_pid=7}, [{error=-EACCES, msg={nlmsg_len=20, \
             nlmsg_type=NLMSG_NOOP, nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=0, nlmsg_pid=7}}, \
             [{nla_len=6, nla_type=NLMSGERR_ATTR_COOKIE}, [171, 254]]]], 42) = 0"
        );
        // Too short for struct nlmsgerr: a hex string.
        let mut b = hdr(20, 2, 1, 0);
        b.extend([0x80, 0x81, 0x82, 0x83]);
        let a = m.put(&b);
        assert_eq!(
            run(route, "x", &[a, 20], 0, &mut m),
            "x([{nlmsg_len=20, nlmsg_type=NLMSG_ERROR, nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=0, \
             nlmsg_pid=7}, \"\\x80\\x81\\x82\\x83\"], 20) = 0"
        );
        let selinux = |c: &mut Ctx| -> Step {
            let v = netlink_value(c, NETLINK_SELINUX, c.arg_ulong(0), c.arg_ulong(1));
            c.push(v);
            Step::Done(RetFmt::Int)
        };
        let mut b = hdr(20, 0x11, 1, 0);
        b.extend(5u32.to_le_bytes());
        let a = m.put(&b);
        assert_eq!(
            run(selinux, "x", &[a, 20], 0, &mut m),
            "x([{nlmsg_len=20, nlmsg_type=SELNL_MSG_POLICYLOAD, nlmsg_flags=NLM_F_REQUEST, \
             nlmsg_seq=0, nlmsg_pid=7}, {seqno=5}]) = 0"
        );
    }
}
