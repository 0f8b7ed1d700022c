//! getsockopt and setsockopt (strace's `net.c`): levels by name, option
//! names of SOL_SOCKET, SOL_IP, SOL_IPV6, SOL_TCP, SOL_NETLINK and SOL_TIPC, and the values strace
//! decodes: `int`s as `[1]`, `SO_LINGER`, `SO_PEERCRED`, `SO_ERROR`,
//! `IP_ADD_MEMBERSHIP`-style requests, netlink options; other values as
//! strings of their length.
//!
//! Also SOL_PACKET (`PACKET_ADD_MEMBERSHIP`, ring requests, statistics),
//! SOL_RAW's `ICMP_FILTER`, `MCAST_JOIN_GROUP`, `SO_TXREHASH` and classic
//! BPF programs (`SO_ATTACH_FILTER`, in `sock_filter.rs`); SOL_TIPC's values
//! and two SOL_IP ones in `sockopt_tipc_ip.rs`. Option names of
//! other levels (SOL_UDP, …) print as numbers, where strace names them.

use crate::syscall::net::len_changed;
use crate::syscall::net::sockaddr::{ifindex_value, inet6_addr_field, inet_addr_value};
use crate::syscall::net::sockopt_tipc_ip::{self, SOL_TIPC};
use crate::syscall::printers::{id_value, le32};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::{xlat, Xlat};

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] =
    &[("getsockopt", getsockopt), ("setsockopt", setsockopt)];

const SOL_SOCKET: u32 = 1;
const SOL_IP: u32 = 0;
const SOL_TCP: u32 = 6;
const SOL_IPV6: u32 = 41;
const SOL_NETLINK: u32 = 270;
const SOL_PACKET: u32 = 263;
const SOL_RAW: u32 = 255;
const SO_TXREHASH: u32 = 74;
const ICMP_FILTER: u32 = 1;
const MCAST_JOIN_GROUP: u32 = 42;
const MCAST_LEAVE_GROUP: u32 = 45;

/// strace's `printxvals`: the first table naming `v`, else `v` with `dflt`.
fn xvals(c: &Ctx, v: u64, tables: &[&Xlat], dflt: &'static str) -> Value {
    for t in tables {
        if t.lookup(v).is_some() {
            return c.enum_value(v, t, dflt);
        }
    }
    c.enum_value(v, tables[0], dflt)
}

/// `fd, level, optname`.
fn fd_level_name(c: &mut Ctx, get: bool) {
    c.fd(0);
    let level = c.arg(1) as u32;
    let v = c.enum_value(level as u64, &xlat::SOCKET_LAYERS, "SOL_??");
    c.push(v);
    let name = c.arg(2) as u32 as u64;
    let v = match level {
        SOL_SOCKET => {
            let extra = if get {
                &xlat::GETSOCK_OPTIONS
            } else {
                &xlat::SETSOCK_OPTIONS
            };
            xvals(c, name, &[&xlat::SOCK_OPTIONS, extra], "SO_???")
        }
        SOL_IP => xvals(c, name, &[&xlat::SOCK_IP_OPTIONS], "IP_???"),
        SOL_IPV6 => {
            let extra = if get {
                &xlat::GETSOCK_IPV6_OPTIONS
            } else {
                &xlat::SETSOCK_IPV6_OPTIONS
            };
            xvals(c, name, &[&xlat::SOCK_IPV6_OPTIONS, extra], "IPV6_???")
        }
        SOL_TCP => c.enum_value(name, &xlat::SOCK_TCP_OPTIONS, "TCP_???"),
        SOL_NETLINK => c.enum_value(name, &xlat::SOCK_NETLINK_OPTIONS, "NETLINK_???"),
        SOL_PACKET => c.enum_value(name, &xlat::SOCK_PACKET_OPTIONS, "PACKET_???"),
        SOL_RAW => c.enum_value(name, &xlat::SOCK_RAW_OPTIONS, "RAW_???"),
        SOL_TIPC => c.enum_value(name, &xlat::SOCK_TIPC_OPTIONS, "TIPC_???"),
        _ => Value::UInt(name),
    };
    c.push(v);
}

/// The SOL_SOCKET options strace knows to hold an `int`: `SO_DEBUG`
/// through `SO_RCVMARK` except the structured and string ones.
const INT_LIKE: &[u32] = &[
    1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 18, 19, 27, 29, 30, 32, 33, 34, 35, 36, 37, 40,
    41, 42, 43, 44, 45, 46, 49, 53, 56, 60, 63, 64, 65, 68, 69, 70, 73, 75,
];

/// Field kinds of [`int_fields`].
const SIGNED: u8 = 0;
const ID: u8 = 1;
const UNSIGNED: u8 = 2;

/// `SO_TXREHASH`'s value (`printxval_d`): `[SOCK_TXREHASH_ENABLED]`,
/// `[2 /* SOCK_TXREHASH_??? */]`.
fn txrehash(c: &mut Ctx, addr: u64, len: i32) -> Value {
    if len < 4 {
        if c.entering() {
            return Value::Ptr(addr);
        }
        return match c.read_bytes(addr, len.max(0) as usize) {
            Some(b) => Value::sym_owned(crate::syscall::printers::hex_quoted(&b)),
            None => Value::Unreadable(addr),
        };
    }
    let Some(v) = c.read_pod::<i32>(addr) else {
        return Value::Unreadable(addr);
    };
    let item = match (
        xlat::SOCKOPT_TXREHASH_VALS.lookup(v as u32 as u64),
        c.opts.xlat_style,
    ) {
        (_, 1) => Value::Int(v as i64),
        (Some(n), 0) => Value::sym(n),
        (Some(n), _) => Value::Commented(Box::new(Value::Int(v as i64)), n.into()),
        (None, _) => Value::Commented(Box::new(Value::Int(v as i64)), "SOCK_TXREHASH_???".into()),
    };
    Value::Array(vec![item], false)
}

/// `struct icmp_filter` (`print_icmp_filter`): the set ICMP types, or `~`
/// and the clear ones when more than half are set.
fn icmp_filter(c: &mut Ctx, addr: u64, len: i32) -> Value {
    if len <= 0 {
        return Value::Ptr(addr);
    }
    let len = len.min(4) as usize;
    let Some(b) = c.read_bytes(addr, len) else {
        return Value::Unreadable(addr);
    };
    let mut w = [0xffu8; 4];
    w[..len].copy_from_slice(&b);
    let mut v = u32::from_le_bytes(w);
    let mut s = String::new();
    if v.count_ones() > 16 {
        v = !v;
        s.push('~');
    }
    s.push('[');
    let mut first = true;
    for i in 0..32u64 {
        if v & (1 << i) != 0 {
            if !first {
                s.push(' ');
            }
            first = false;
            s.push_str(&crate::syscall::ctx::render_flags(&c.enum_value(
                i,
                &xlat::ICMP_FILTER_FLAGS,
                "ICMP_???",
            )));
        }
    }
    s.push(']');
    Value::sym_owned(s)
}

/// `struct tpacket_stats` (`print_tpacket_stats`).
fn tpacket_stats(c: &mut Ctx, addr: u64, len: i32) -> Value {
    int_fields(
        c,
        addr,
        len as usize,
        &[
            ("tp_packets", UNSIGNED),
            ("tp_drops", UNSIGNED),
            ("tp_freeze_q_cnt", UNSIGNED),
        ],
    )
}

/// `struct tpacket_req` (`print_tpacket_req`): exactly 16 bytes.
fn tpacket_req(c: &mut Ctx, addr: u64, len: i32) -> Value {
    if len != 16 {
        return Value::Ptr(addr);
    }
    match c.read_bytes(addr, 16) {
        Some(b) => Value::structure(
            [
                "tp_block_size",
                "tp_block_nr",
                "tp_frame_size",
                "tp_frame_nr",
            ]
            .iter()
            .enumerate()
            .map(|(i, n)| Field::new(n, Value::UInt(le32(&b, 4 * i))))
            .collect(),
        ),
        None => Value::Ptr(addr),
    }
}

/// `struct packet_mreq` (`print_packet_mreq`): exactly 16 bytes.
fn packet_mreq(c: &mut Ctx, addr: u64, len: i32) -> Value {
    if len != 16 {
        return Value::Ptr(addr);
    }
    let Some(b) = c.read_bytes(addr, 16) else {
        return Value::Ptr(addr);
    };
    let alen = crate::syscall::printers::le16(&b, 6) as usize;
    let mac = &b[8..8 + alen.min(8)];
    let addr_v = if c.opts.xlat_style == 1 {
        Value::sym_owned(crate::syscall::printers::hex_quoted(mac))
    } else {
        let text = mac
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(":");
        if c.opts.xlat_style == 2 {
            Value::Commented(
                Box::new(Value::sym_owned(crate::syscall::printers::hex_quoted(mac))),
                text.into(),
            )
        } else {
            Value::sym_owned(text)
        }
    };
    Value::structure(vec![
        Field::new("mr_ifindex", ifindex_value(c, le32(&b, 0) as u32)),
        Field::new(
            "mr_type",
            c.enum_value(
                crate::syscall::printers::le16(&b, 4),
                &xlat::PACKET_MREQ_TYPE,
                "PACKET_MR_???",
            ),
        ),
        Field::new("mr_alen", Value::UInt(alen as u64)),
        Field::new("mr_address", addr_v),
    ])
}

/// `struct group_req` (`print_group_req`): the interface and a sockaddr.
fn group_req(c: &mut Ctx, addr: u64, len: i32) -> Value {
    const SIZE: usize = 136;
    if len < SIZE as i32 {
        return Value::Ptr(addr);
    }
    let Some(b) = c.read_bytes(addr, SIZE) else {
        return Value::Unreadable(addr);
    };
    Value::structure(vec![
        Field::new("gr_interface", ifindex_value(c, le32(&b, 0) as u32)),
        Field::new(
            "gr_group",
            crate::syscall::net::sockaddr::sockaddr_value(c, &b[8..SIZE]),
        ),
    ])
}

/// `[N]`: the `int` at `addr` (strace's `printnum_int`).
fn int_at(c: &mut Ctx, addr: u64) -> Value {
    match c.read_pod::<i32>(addr) {
        Some(v) => Value::Array(vec![Value::Int(v as i64)], false),
        None if addr == 0 => Value::Ptr(0),
        None => Value::Unreadable(addr),
    }
}

/// The fields of `names` (4-byte members) that `len` bytes cover; strace's
/// `MAYBE_PRINT_FIELD_LEN` prints only those.
fn int_fields(c: &mut Ctx, addr: u64, len: usize, names: &[(&'static str, u8)]) -> Value {
    let len = len.min(4 * names.len());
    let Some(b) = c.read_bytes(addr, len) else {
        return if addr == 0 {
            Value::Ptr(0)
        } else {
            Value::Unreadable(addr)
        };
    };
    let mut f = Vec::new();
    for (i, &(name, kind)) in names.iter().enumerate() {
        if 4 * i >= len {
            break;
        }
        if 4 * i + 4 > len {
            // MAYBE_PRINT_FIELD_LEN: a partial field prints as its bytes.
            f.push(Field::new(
                name,
                Value::sym_owned(crate::syscall::printers::hex_quoted(&b[4 * i..len])),
            ));
            break;
        }
        let v = le32(&b, 4 * i) as u32;
        f.push(Field::new(
            name,
            match kind {
                ID => id_value(v),
                UNSIGNED => Value::UInt(v as u64),
                _ => Value::Int(v as i32 as i64),
            },
        ));
    }
    Value::structure(f)
}

/// strace's `print_getsockopt`.
fn get_value(c: &mut Ctx, level: u32, name: u32, addr: u64, ulen: i32, rlen: i32) -> Value {
    if ulen <= 0 || rlen <= 0 || addr == 0 {
        return Value::Ptr(addr);
    }
    if let Some(v) = sockopt_tipc_ip::value(c, true, level, name, addr, rlen) {
        return v;
    }
    let so = |n: i32| level == SOL_SOCKET && name == n as u32;
    if so(libc::SO_LINGER) {
        return int_fields(
            c,
            addr,
            rlen as usize,
            &[("l_onoff", SIGNED), ("l_linger", SIGNED)],
        );
    }
    if so(libc::SO_PEERCRED) {
        let mut v = int_fields(
            c,
            addr,
            rlen as usize,
            &[("pid", SIGNED), ("uid", ID), ("gid", ID)],
        );
        c.field_id(&mut v, "pid", crate::syscall::ctx::PidKind::Tgid);
        return v;
    }
    if so(SO_TXREHASH as i32) {
        return txrehash(c, addr, rlen);
    }
    if level == SOL_PACKET && name == 6 {
        return tpacket_stats(c, addr, rlen);
    }
    if level == SOL_RAW && name == ICMP_FILTER {
        return icmp_filter(c, addr, rlen);
    }
    if so(libc::SO_ERROR) {
        if rlen < 4 {
            return match c.read_bytes(addr, rlen as usize) {
                Some(b) => Value::sym_owned(crate::syscall::printers::hex_quoted(&b)),
                None => Value::Unreadable(addr),
            };
        }
        let Some(b) = c.read_bytes(addr, (rlen as usize).min(4)) else {
            return Value::Unreadable(addr);
        };
        let mut e = [0u8; 4];
        e[..b.len()].copy_from_slice(&b);
        let err = u32::from_le_bytes(e) as u64;
        let v = match rtrace_arch::tables::errno_name(err) {
            Some(n) if err != 0 => Value::sym(n),
            _ => Value::UInt(err),
        };
        return Value::Array(vec![v], false);
    }
    if so(26) {
        // SO_GET_FILTER: `rlen` instructions (a forged length above 65535
        // prints the address).
        if rlen as u32 > 0xffff {
            return Value::Ptr(addr);
        }
        return crate::syscall::net::sock_filter::program(c, addr, rlen as u64);
    }
    if level == SOL_SOCKET && INT_LIKE.contains(&name) {
        if rlen >= 4 {
            return int_at(c, addr);
        }
        return match c.read_bytes(addr, rlen as usize) {
            Some(b) => Value::sym_owned(crate::syscall::printers::hex_quoted(&b)),
            None => Value::Unreadable(addr),
        };
    }
    if level == SOL_NETLINK {
        if name == 9 {
            // NETLINK_LIST_MEMBERSHIPS: an array of group bitmaps.
            let n = (ulen.min(rlen) / 4) as u64;
            return crate::syscall::array::array_at(c, addr, n, 4, |_, b| {
                Some(Value::UInt(le32(b, 0)))
            });
        }
        return int_at(c, addr);
    }
    if rlen == 4 {
        int_at(c, addr)
    } else {
        c.buf_value(addr, rlen as u64)
    }
}

/// `getsockopt(fd, level, optname, optval, optlen)`.
fn getsockopt(c: &mut Ctx) -> Step {
    let (addr, len_addr) = (c.arg_ulong(3), c.arg_ulong(4));
    if c.entering() {
        fd_level_name(c, true);
        if len_addr != 0 {
            if let Some(ulen) = c.read_pod::<i32>(len_addr) {
                c.saved = ulen as u32 as u64;
                return Step::Exit;
            }
        }
        c.push(Value::Ptr(addr));
        c.push(Value::Ptr(len_addr));
        return Step::Done(RetFmt::Int);
    }
    let ulen = c.saved as u32 as i32;
    // The length now: strace 7.2 shows it after `=>` also when the call
    // failed after the kernel wrote it (IP_PROTOCOL into a bad buffer:
    // `[2 => 1]`), but a failed call's buffer prints as its address.
    let now = c.read_pod::<i32>(len_addr);
    let rlen = if c.failed() { None } else { now };
    match rlen {
        Some(r) => {
            let v = get_value(c, c.arg(1) as u32, c.arg(2) as u32, addr, ulen, r);
            c.push(v);
        }
        _ => c.push(Value::Ptr(addr)),
    }
    c.push(len_changed(ulen, now));
    Step::Done(RetFmt::Int)
}

/// strace's `print_setsockopt`.
fn set_value(c: &mut Ctx, level: u32, name: u32, addr: u64, len: i32) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    if let Some(v) = sockopt_tipc_ip::value(c, false, level, name, addr, len) {
        return v;
    }
    let is = |l: u32, n: i32| level == l && name == n as u32;
    if is(SOL_SOCKET, libc::SO_LINGER) {
        if len < 8 {
            return Value::Ptr(addr);
        }
        return int_fields(c, addr, 8, &[("l_onoff", SIGNED), ("l_linger", SIGNED)]);
    }
    if is(SOL_SOCKET, SO_TXREHASH as i32) {
        return txrehash(c, addr, len);
    }
    if level == SOL_PACKET && (name == 5 || name == 13) {
        return tpacket_req(c, addr, len);
    }
    if level == SOL_PACKET && (name == 1 || name == 2) {
        return packet_mreq(c, addr, len);
    }
    if level == SOL_RAW && name == ICMP_FILTER {
        return icmp_filter(c, addr, len);
    }
    if (level == SOL_IP || level == SOL_IPV6)
        && (name == MCAST_JOIN_GROUP || name == MCAST_LEAVE_GROUP)
    {
        return group_req(c, addr, len);
    }
    if is(SOL_SOCKET, 26) || is(SOL_SOCKET, 51) {
        // SO_ATTACH_FILTER / SO_ATTACH_REUSEPORT_CBPF: a `struct sock_fprog`.
        if len != 16 {
            return Value::Ptr(addr);
        }
        return crate::syscall::net::sock_filter::fprog(c, addr);
    }
    if level == SOL_SOCKET && INT_LIKE.contains(&name) {
        if len < 4 {
            return Value::Ptr(addr);
        }
        return int_at(c, addr);
    }
    if is(SOL_IP, libc::IP_ADD_MEMBERSHIP) || is(SOL_IP, libc::IP_DROP_MEMBERSHIP) {
        if len < 8 {
            return Value::Ptr(addr);
        }
        let Some(b) = c.read_bytes(addr, 8) else {
            return Value::Unreadable(addr);
        };
        return Value::structure(vec![
            Field::new("imr_multiaddr", inet_addr_value(c, &b[0..4])),
            Field::new("imr_interface", inet_addr_value(c, &b[4..8])),
        ]);
    }
    let mreq6 = [20, 21, 27, 28];
    if level == SOL_IPV6 && mreq6.contains(&name) {
        if len < 20 {
            return Value::Ptr(addr);
        }
        let Some(b) = c.read_bytes(addr, 20) else {
            return Value::Unreadable(addr);
        };
        return Value::structure(vec![
            inet6_addr_field(c, &b[0..16], "ipv6mr_multiaddr"),
            Field::new("ipv6mr_interface", ifindex_value(c, le32(&b, 16) as u32)),
        ]);
    }
    if level == SOL_NETLINK {
        if len < 4 {
            return Value::Ptr(addr);
        }
        return int_at(c, addr);
    }
    if len == 4 {
        int_at(c, addr)
    } else {
        c.buf_value(addr, len as u32 as u64)
    }
}

/// `setsockopt(fd, level, optname, optval, optlen)`.
pub(super) fn setsockopt(c: &mut Ctx) -> Step {
    fd_level_name(c, false);
    let len = c.arg_int(4);
    let v = set_value(c, c.arg(1) as u32, c.arg(2) as u32, c.arg_ulong(3), len);
    c.push(v);
    c.push(Value::Int(len as i64));
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn options() {
        let mut m = FakeMemory::default();
        let one = m.put(&1i32.to_ne_bytes());
        assert_eq!(
            run(setsockopt, "setsockopt", &[3, 1, 2, one, 4], 0, &mut m),
            "setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0"
        );
        assert_eq!(
            run(setsockopt, "setsockopt", &[3, 999, 999, one, 4], -95, &mut m),
            "setsockopt(3, 0x3e7 /* SOL_?? */, 999, [1], 4) = -1 EOPNOTSUPP (Operation not supported)"
        );
        assert_eq!(
            run(setsockopt, "setsockopt", &[3, 6, 999, one, 4], -95, &mut m),
            "setsockopt(3, SOL_TCP, 0x3e7 /* TCP_??? */, [1], 4) = -1 EOPNOTSUPP (Operation not supported)"
        );
        let cred = m.put(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let len = m.put(&12i32.to_ne_bytes());
        assert_eq!(
            run(getsockopt, "getsockopt", &[3, 1, 17, cred, len], 0, &mut m),
            "getsockopt(3, SOL_SOCKET, SO_PEERCRED, {pid=1, uid=0, gid=0}, [12]) = 0"
        );
        assert_eq!(
            run(
                getsockopt,
                "getsockopt",
                &[3, 1, 31, cred, len],
                -92,
                &mut m
            ),
            format!(
                "getsockopt(3, SOL_SOCKET, SO_PEERSEC, {cred:#x}, [12]) = -1 ENOPROTOOPT \
                 (Protocol not available)"
            )
        );
    }

    /// The kernel rewrote optlen, then the call failed (IP_PROTOCOL with a
    /// bad optval): as in strace 7.2 (not 6.1), the new length shows too.
    #[test]
    fn failed_call_shows_length_written() {
        use crate::syscall::testutil::FixedFds;
        use crate::syscall::{decode_entry, decode_exit, DecodeOpts, Entry};
        let mut m = FakeMemory::default();
        let val = m.put(&[0; 8]);
        let len = m.put(&4i32.to_ne_bytes());
        let args = [3, 270, 9, val, len, 0];
        let entry = Entry {
            name: None,
            nargs: 5,
            classes: rtrace_arch::tables::Classes(0),
            decoder: Some(getsockopt),
        };
        let opts = DecodeOpts::default();
        let mut fds = FixedFds(Vec::new());
        let arch = rtrace_arch::Arch::X86_64;
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, arch, args);
        let step = decode_entry(&entry, &mut c);
        let (saved, entry_args) = (c.saved, std::mem::take(&mut c.entry_args));
        let off = (len - m.base) as usize;
        m.data[off..off + 4].copy_from_slice(&8i32.to_ne_bytes());
        let mut out = Vec::new();
        for ret in [-14, 0] {
            let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, arch, args);
            c.saved = saved;
            c.entry_args = entry_args.clone();
            c.ret = Some(ret);
            decode_exit(&entry, &mut c, step.clone());
            let mut s = String::new();
            let ro = crate::value::text::RenderOpts::default();
            crate::value::text::render_value(&mut s, c.exit_args.last().unwrap(), &ro);
            out.push(s);
        }
        assert_eq!(out, ["[4 => 8]", "[4 => 8]"]);
    }
}
