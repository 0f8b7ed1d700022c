//! getsockopt and setsockopt (strace's `net.c`): levels by name, option
//! names of SOL_SOCKET, SOL_IP, SOL_IPV6, SOL_TCP and SOL_NETLINK, and the values strace
//! decodes: `int`s as `[1]`, `SO_LINGER`, `SO_PEERCRED`, `SO_ERROR`,
//! `IP_ADD_MEMBERSHIP`-style requests, netlink options; other values as
//! strings of their length.
//!
//! Option names of other levels (SOL_UDP, SOL_PACKET, …) print
//! as numbers, where strace names them; BPF filters (`SO_ATTACH_FILTER`)
//! print their address.

use super::net::len_changed;
use super::printers::{id_value, le32};
use super::sockaddr::{ifindex_value, inet6_addr_field, inet_addr_value};
use super::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::{xlat, Xlat};

pub(super) const DECODERS: &[(&str, Decoder)] =
    &[("getsockopt", getsockopt), ("setsockopt", setsockopt)];

const SOL_SOCKET: u32 = 1;
const SOL_IP: u32 = 0;
const SOL_TCP: u32 = 6;
const SOL_IPV6: u32 = 41;
const SOL_NETLINK: u32 = 270;

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
fn int_fields(c: &mut Ctx, addr: u64, len: usize, names: &[(&'static str, bool)]) -> Value {
    let len = len.min(4 * names.len());
    let Some(b) = c.read_bytes(addr, len) else {
        return if addr == 0 {
            Value::Ptr(0)
        } else {
            Value::Unreadable(addr)
        };
    };
    let mut f = Vec::new();
    for (i, &(name, id)) in names.iter().enumerate() {
        if 4 * i + 4 > len {
            break;
        }
        let v = le32(&b, 4 * i) as u32;
        f.push(Field::new(
            name,
            if id {
                id_value(v)
            } else {
                Value::Int(v as i32 as i64)
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
    let so = |n: i32| level == SOL_SOCKET && name == n as u32;
    if so(libc::SO_LINGER) {
        return int_fields(
            c,
            addr,
            rlen as usize,
            &[("l_onoff", false), ("l_linger", false)],
        );
    }
    if so(libc::SO_PEERCRED) {
        return int_fields(
            c,
            addr,
            rlen as usize,
            &[("pid", false), ("uid", true), ("gid", true)],
        );
    }
    if so(libc::SO_ERROR) {
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
        // SO_GET_FILTER: a BPF program, not decoded.
        return Value::Ptr(addr);
    }
    if level == SOL_SOCKET && INT_LIKE.contains(&name) {
        if rlen >= 4 {
            return int_at(c, addr);
        }
        return match c.read_bytes(addr, rlen as usize) {
            Some(b) => Value::sym_owned(super::printers::hex_quoted(&b)),
            None => Value::Unreadable(addr),
        };
    }
    if level == SOL_NETLINK {
        if name == 9 {
            // NETLINK_LIST_MEMBERSHIPS: an array of group bitmaps.
            let n = (ulen.min(rlen) / 4) as u64;
            return super::array::array_at(c, addr, n, 4, |_, b| Some(Value::UInt(le32(b, 0))));
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
    let rlen = c.read_pod::<i32>(len_addr);
    match rlen {
        Some(r) if !c.failed() => {
            let v = get_value(c, c.arg(1) as u32, c.arg(2) as u32, addr, ulen, r);
            c.push(v);
        }
        _ => c.push(Value::Ptr(addr)),
    }
    c.push(len_changed(ulen, rlen));
    Step::Done(RetFmt::Int)
}

/// strace's `print_setsockopt`.
fn set_value(c: &mut Ctx, level: u32, name: u32, addr: u64, len: i32) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let is = |l: u32, n: i32| level == l && name == n as u32;
    if is(SOL_SOCKET, libc::SO_LINGER) {
        if len < 8 {
            return Value::Ptr(addr);
        }
        return int_fields(c, addr, 8, &[("l_onoff", false), ("l_linger", false)]);
    }
    if is(SOL_SOCKET, 26) || is(SOL_SOCKET, 51) {
        // SO_ATTACH_FILTER / SO_ATTACH_REUSEPORT_CBPF: a BPF program, not decoded.
        return Value::Ptr(addr);
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
fn setsockopt(c: &mut Ctx) -> Step {
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
    use crate::syscall::memory::FakeMemory;
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
}
