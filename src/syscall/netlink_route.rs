//! NETLINK_ROUTE payloads (strace's `netlink_route.c`).
//!
//! `ifinfomsg` (RTM_NEWLINK, RTM_DELLINK, RTM_GETLINK) and `ifaddrmsg`
//! (RTM_NEWADDR, RTM_DELADDR, RTM_GETADDR) are decoded; their attribute
//! lists are not (printed as a hex string, where strace decodes `IFLA_*`
//! and `IFA_*` attributes). Every other type prints as strace prints the
//! types it has no decoder for, `{family=AF_…, data="\x…"}`, which differs
//! from strace for `rtmsg` and the other per-type structures.

use super::netlink::{hexstr_value, Nlmsghdr};
use super::printers::xflags;
use super::sockaddr::ifindex_value;
use super::{Ctx, Field, Value};
use rtrace_arch::xlat;

const NLMSG_DONE: u16 = 3;
const RTM_NEWLINK: u16 = 16;
const RTM_GETLINK: u16 = 18;
/// `sizeof(struct ifinfomsg)`.
const IFINFOMSG_SIZE: u64 = 16;
const RTM_NEWADDR: u16 = 20;
const RTM_GETADDR: u16 = 22;
/// `sizeof(struct ifaddrmsg)`.
const IFADDRMSG_SIZE: u64 = 8;

/// strace's `decode_ifinfomsg`: `{ifi_family=…, ifi_type=…, ifi_index=…,
/// ifi_flags=…, ifi_change=…}`, then the attributes.
fn ifinfomsg_values(c: &mut Ctx, family: u8, addr: u64, len: u64) -> Vec<Value> {
    let mut f = vec![Field::new(
        "ifi_family",
        c.enum_value(family as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
    )];
    if len < IFINFOMSG_SIZE {
        return vec![Value::Struct(f, true)];
    }
    let Some(b) = c.read_bytes(addr + 2, IFINFOMSG_SIZE as usize - 2) else {
        f.push(Field::new("", Value::Unreadable(addr + 2)));
        return vec![Value::structure(f)];
    };
    let word = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    f.push(Field::new(
        "ifi_type",
        c.enum_value(
            u16::from_le_bytes([b[0], b[1]]) as u64,
            &xlat::ARP_HARDWARE_TYPES,
            "ARPHRD_???",
        ),
    ));
    f.push(Field::new("ifi_index", ifindex_value(c, word(2))));
    f.push(Field::new(
        "ifi_flags",
        xflags(c, word(6) as u64, &xlat::IFFFLAGS, "IFF_???"),
    ));
    f.push(Field::new("ifi_change", Value::Hex(word(10) as u64)));
    let mut out = vec![Value::structure(f)];
    if len > IFINFOMSG_SIZE {
        out.push(hexstr_value(c, addr + IFINFOMSG_SIZE, len - IFINFOMSG_SIZE));
    }
    out
}

/// strace's `decode_ifaddrmsg`: `{ifa_family=…, ifa_prefixlen=…,
/// ifa_flags=…, ifa_scope=…, ifa_index=…}`, then the attributes.
fn ifaddrmsg_values(c: &mut Ctx, family: u8, addr: u64, len: u64) -> Vec<Value> {
    let mut f = vec![Field::new(
        "ifa_family",
        c.enum_value(family as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
    )];
    if len < IFADDRMSG_SIZE {
        return vec![Value::Struct(f, true)];
    }
    let Some(b) = c.read_bytes(addr + 1, IFADDRMSG_SIZE as usize - 1) else {
        f.push(Field::new("", Value::Unreadable(addr + 1)));
        return vec![Value::structure(f)];
    };
    f.push(Field::new("ifa_prefixlen", Value::UInt(b[0] as u64)));
    f.push(Field::new(
        "ifa_flags",
        xflags(c, b[1] as u64, &xlat::IFADDRFLAGS, "IFA_F_???"),
    ));
    f.push(Field::new(
        "ifa_scope",
        c.enum_value(b[2] as u64, &xlat::ROUTING_SCOPES, ""),
    ));
    let idx = u32::from_le_bytes([b[3], b[4], b[5], b[6]]);
    f.push(Field::new("ifa_index", ifindex_value(c, idx)));
    let mut out = vec![Value::structure(f)];
    if len > IFADDRMSG_SIZE {
        out.push(hexstr_value(c, addr + IFADDRMSG_SIZE, len - IFADDRMSG_SIZE));
    }
    out
}

/// strace's `decode_family`: the leading family byte, then the rest as a
/// hex string.
fn family_value(c: &mut Ctx, family: u8, addr: u64, len: u64) -> Value {
    let mut f = vec![Field::new(
        "family",
        c.enum_value(family as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
    )];
    if len > 1 {
        f.push(Field::new("data", hexstr_value(c, addr + 1, len - 1)));
    }
    Value::structure(f)
}

/// The payload of a NETLINK_ROUTE message, or `None` for the generic form
/// (`NLMSG_DONE`).
pub(super) fn decode(c: &mut Ctx, h: &Nlmsghdr, addr: u64, len: u64) -> Option<Vec<Value>> {
    if h.ty == NLMSG_DONE {
        return None;
    }
    let v = match c.read_bytes(addr, 1) {
        Some(b) if (RTM_NEWLINK..=RTM_GETLINK).contains(&h.ty) => {
            return Some(ifinfomsg_values(c, b[0], addr, len));
        }
        Some(b) if (RTM_NEWADDR..=RTM_GETADDR).contains(&h.ty) => {
            return Some(ifaddrmsg_values(c, b[0], addr, len));
        }
        Some(b) => family_value(c, b[0], addr, len),
        None => Value::Unreadable(addr),
    };
    Some(vec![v])
}
