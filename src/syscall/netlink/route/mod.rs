//! NETLINK_ROUTE payloads (strace's `netlink_route.c`).
//!
//! `ifinfomsg` (RTM_NEWLINK, RTM_DELLINK, RTM_GETLINK) with its `IFLA_*`
//! attributes (`netlink_route_link.rs`), `ifaddrmsg` (RTM_NEWADDR,
//! RTM_DELADDR, RTM_GETADDR) with `IFA_*`, and `rtmsg` (RTM_NEWROUTE,
//! RTM_DELROUTE, RTM_GETROUTE) with `RTA_*` (`RTA_METRICS`, `RTA_MULTIPATH`,
//! `RTA_VIA`, `RTA_MFC_STATS` and `RTA_ENCAP_TYPE` print as hex strings,
//! where strace decodes them). Every other type prints as strace prints the
//! types it has no decoder for, `{family=AF_…, data="\x…"}`, which differs
//! from strace for the neighbour, rule, qdisc, … structures.

pub(in crate::syscall) mod attrs;
pub(in crate::syscall) mod link;
pub(in crate::syscall) mod link_info;
pub(in crate::syscall) mod link_nested;
pub(in crate::syscall) mod msgs;
pub(in crate::syscall) mod stats;
pub(in crate::syscall) mod tc;

use crate::syscall::layout::{kstruct, le};
use crate::syscall::net::sockaddr::ifindex_value;
use crate::syscall::netlink::attr::{
    attrs_value, flags_with_dflt, inet_addr_field, inet_addr_nla, nla_enum, nla_flags, nla_ifindex,
    nla_s32, nla_str, nla_u, AttrNames,
};
use crate::syscall::netlink::route::attrs::fields_struct;
use crate::syscall::netlink::route::link::link_attrs;
use crate::syscall::netlink::{hexstr_value, Nlmsghdr};
use crate::syscall::printers::xflags;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

kstruct! {
    /// `struct ifinfomsg`.
    struct IfInfoMsg size 16 {
        family: u8 @ 0,
        type_: u16 @ 2,
        index: u32 @ 4,
        flags: u32 @ 8,
        change: u32 @ 12,
    }
}

kstruct! {
    /// `struct ifaddrmsg`.
    struct IfAddrMsg size 8 {
        family: u8 @ 0,
        prefixlen: u8 @ 1,
        flags: u8 @ 2,
        scope: u8 @ 3,
        index: u32 @ 4,
    }
}

kstruct! {
    /// `struct rtmsg`.
    struct RtMsg size 12 {
        family: u8 @ 0,
        dst_len: u8 @ 1,
        src_len: u8 @ 2,
        tos: u8 @ 3,
        table: u8 @ 4,
        protocol: u8 @ 5,
        scope: u8 @ 6,
        type_: u8 @ 7,
        flags: u32 @ 8,
    }
}

kstruct! {
    /// `struct rtnexthop`.
    struct RtNextHop size 8 {
        len: u16 @ 0,
        flags: u8 @ 2,
        hops: u8 @ 3,
        ifindex: u32 @ 4,
    }
}

/// The bytes of a message header of `size` whose family (its first byte,
/// read already) is `family`: the rest read from `addr + 1`, or `None`.
fn header_bytes(c: &mut Ctx, family: u8, addr: u64, size: usize) -> Option<Vec<u8>> {
    let rest = c.read_bytes(addr + 1, size - 1)?;
    let mut b = vec![family];
    b.extend(rest);
    Some(b)
}

const NLMSG_DONE: u16 = 3;
const RTM_NEWLINK: u16 = 16;
const RTM_SETLINK: u16 = 19;
const RTM_GETNEIGH: u16 = 30;
const RTM_GETMULTICAST: u16 = 58;
const RTM_GETANYCAST: u16 = 62;
const IFINFOMSG_SIZE: u64 = IfInfoMsg::SIZE as u64;
const RTM_NEWADDR: u16 = 20;
const RTM_GETADDR: u16 = 22;
const IFADDRMSG_SIZE: u64 = IfAddrMsg::SIZE as u64;
const RTM_NEWROUTE: u16 = 24;
const RTM_GETROUTE: u16 = 26;
const RTMSG_SIZE: u64 = RtMsg::SIZE as u64;

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
    let Some(b) = header_bytes(c, family, addr, IfInfoMsg::SIZE) else {
        f.push(Field::new("", Value::Unreadable(addr + 1)));
        return vec![Value::structure(f)];
    };
    let m = IfInfoMsg(&b);
    f.push(Field::new(
        "ifi_type",
        c.enum_value(m.type_() as u64, &xlat::ARP_HARDWARE_TYPES, "ARPHRD_???"),
    ));
    f.push(Field::new("ifi_index", ifindex_value(c, m.index())));
    f.push(Field::new(
        "ifi_flags",
        xflags(c, m.flags() as u64, &xlat::IFFFLAGS, "IFF_???"),
    ));
    f.push(Field::new("ifi_change", Value::Hex(m.change() as u64)));
    let mut out = vec![Value::structure(f)];
    if len > IFINFOMSG_SIZE {
        out.push(link_attrs(
            c,
            family,
            addr + IFINFOMSG_SIZE,
            len - IFINFOMSG_SIZE,
        ));
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
    let Some(b) = header_bytes(c, family, addr, IfAddrMsg::SIZE) else {
        f.push(Field::new("", Value::Unreadable(addr + 1)));
        return vec![Value::structure(f)];
    };
    let m = IfAddrMsg(&b);
    f.push(Field::new(
        "ifa_prefixlen",
        Value::UInt(m.prefixlen() as u64),
    ));
    f.push(Field::new(
        "ifa_flags",
        xflags(c, m.flags() as u64, &xlat::IFADDRFLAGS, "IFA_F_???"),
    ));
    f.push(Field::new(
        "ifa_scope",
        c.enum_value(m.scope() as u64, &xlat::ROUTING_SCOPES, ""),
    ));
    f.push(Field::new("ifa_index", ifindex_value(c, m.index())));
    let mut out = vec![Value::structure(f)];
    if len > IFADDRMSG_SIZE {
        let dec = move |c: &mut Ctx, ty: u16, a: u64, l: u64| addr_attr(c, family, ty, a, l);
        out.push(attrs_value(
            c,
            addr + IFADDRMSG_SIZE,
            len - IFADDRMSG_SIZE,
            AttrNames {
                table: &xlat::RTNL_ADDR_ATTRS,
                dflt: "IFA_???",
            },
            &dec,
        ));
    }
    out
}

/// An `IFA_*` attribute of an address of `family`.
fn addr_attr(c: &mut Ctx, family: u8, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        // IFA_ADDRESS, IFA_LOCAL, IFA_BROADCAST, IFA_ANYCAST, IFA_MULTICAST.
        1 | 2 | 4 | 5 | 7 => Some(inet_addr_nla(c, addr, len, family)),
        3 => nla_str(c, addr, len),
        // IFA_CACHEINFO.
        6 => {
            if len < 16 {
                return None;
            }
            Some(crate::syscall::netlink::attr::uint_struct(
                c,
                addr,
                4,
                &["ifa_prefered", "ifa_valid", "cstamp", "tstamp"],
                &[],
            ))
        }
        8 => nla_flags(c, addr, len, 4, &xlat::IFADDRFLAGS, "IFA_F_???"),
        9 => nla_u(c, addr, len, 4),
        10 => nla_s32(c, addr, len),
        _ => None,
    }
}

/// strace's `decode_rtmsg`: `{rtm_family=…, rtm_dst_len=…, …, rtm_flags=…}`,
/// then the `RTA_*` attributes.
fn rtmsg_values(c: &mut Ctx, family: u8, addr: u64, len: u64) -> Vec<Value> {
    let mut f = vec![Field::new(
        "rtm_family",
        c.enum_value(family as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
    )];
    if len < RTMSG_SIZE {
        return vec![Value::Struct(f, true)];
    }
    let Some(b) = header_bytes(c, family, addr, RtMsg::SIZE) else {
        f.push(Field::new("", Value::Unreadable(addr + 1)));
        return vec![Value::structure(f)];
    };
    let m = RtMsg(&b);
    f.push(Field::new("rtm_dst_len", Value::UInt(m.dst_len() as u64)));
    f.push(Field::new("rtm_src_len", Value::UInt(m.src_len() as u64)));
    f.push(Field::new(
        "rtm_tos",
        xflags(
            c,
            m.tos() as u64,
            &xlat::IP_TYPE_OF_SERVICES,
            "IPTOS_TOS_???",
        ),
    ));
    f.push(Field::new(
        "rtm_table",
        c.enum_value(m.table() as u64, &xlat::ROUTING_TABLE_IDS, ""),
    ));
    f.push(Field::new(
        "rtm_protocol",
        c.enum_value(m.protocol() as u64, &xlat::ROUTING_PROTOCOLS, "RTPROT_???"),
    ));
    f.push(Field::new(
        "rtm_scope",
        c.enum_value(m.scope() as u64, &xlat::ROUTING_SCOPES, ""),
    ));
    f.push(Field::new(
        "rtm_type",
        c.enum_value(m.type_() as u64, &xlat::ROUTING_TYPES, "RTN_???"),
    ));
    let flags = m.flags() as u64;
    f.push(Field::new(
        "rtm_flags",
        flags_with_dflt(c, flags, &xlat::IP_ROUTE_FLAGS, "RTM_F_???"),
    ));
    let mut out = vec![Value::structure(f)];
    if len > RTMSG_SIZE {
        let dec = move |c: &mut Ctx, ty: u16, a: u64, l: u64| route_attr(c, family, ty, a, l);
        out.push(attrs_value(
            c,
            addr + RTMSG_SIZE,
            len - RTMSG_SIZE,
            AttrNames {
                table: &xlat::RTNL_ROUTE_ATTRS,
                dflt: "RTA_???",
            },
            &dec,
        ));
    }
    out
}

/// An `RTA_*` attribute of a route of `family`.
fn route_attr(c: &mut Ctx, family: u8, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        // RTA_DST, RTA_SRC, RTA_GATEWAY, RTA_PREFSRC, RTA_NEWDST.
        1 | 2 | 5 | 7 | 19 => Some(inet_addr_nla(c, addr, len, family)),
        // RTA_IIF, RTA_OIF.
        3 | 4 => nla_ifindex(c, addr, len),
        // RTA_PRIORITY, RTA_FLOW, RTA_MP_ALGO, RTA_MARK, RTA_UID.
        6 | 11 | 14 | 16 | 25 => nla_u(c, addr, len, 4),
        // RTA_METRICS.
        8 => Some(attrs_value(
            c,
            addr,
            len,
            AttrNames {
                table: &xlat::RTNL_RTA_METRICS_ATTRS,
                dflt: "RTAX_???",
            },
            &|c, t, a, l| match t {
                1..=15 => nla_u(c, a, l, 4),
                16 => nla_str(c, a, l),
                _ => None,
            },
        )),
        // RTA_MULTIPATH.
        9 => multipath(c, family, addr, len),
        // RTA_PROTOINFO.
        10 => nla_u(c, addr, len, 4),
        // RTA_CACHEINFO.
        12 => {
            let mut spec = Vec::new();
            for n in [
                "rta_clntref",
                "rta_lastuse",
                "rta_expires",
                "rta_error",
                "rta_used",
                "rta_id",
                "rta_ts",
                "rta_tsage",
            ] {
                spec.push((n, 4, if n == "rta_id" { b'x' } else { b'u' }));
            }
            fields_struct(c, addr, len, &spec)
        }
        // RTA_MFC_STATS.
        17 => fields_struct(
            c,
            addr,
            len,
            &[
                ("mfcs_packets", 8, b'u'),
                ("mfcs_bytes", 8, b'u'),
                ("mfcs_wrong_if", 8, b'u'),
            ],
        ),
        // RTA_VIA.
        18 => {
            // struct rtvia: `__kernel_sa_family_t rtvia_family`, then the
            // address.
            const FAM: u64 = 2;
            if len < FAM {
                return None;
            }
            let Some(b) = c.read_bytes(addr, FAM as usize) else {
                return Some(Value::Unreadable(addr));
            };
            let fam = le::<u16>(&b, 0);
            let mut f = vec![Field::new(
                "rtvia_family",
                c.enum_value(fam as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
            )];
            if len > FAM {
                f.push(inet_addr_field(
                    c,
                    addr + FAM,
                    len - FAM,
                    fam as u8,
                    "rtvia_addr",
                ));
            }
            Some(Value::structure(f))
        }
        // RTA_ENCAP_TYPE.
        21 => nla_enum(
            c,
            addr,
            len,
            2,
            &xlat::LWTUNNEL_ENCAP_TYPES,
            "LWTUNNEL_ENCAP_???",
        ),
        // RTA_TABLE.
        15 => nla_enum(c, addr, len, 4, &xlat::ROUTING_TABLE_IDS, ""),
        // RTA_PREF, RTA_TTL_PROPAGATE, RTA_IP_PROTO.
        20 | 26 | 27 => nla_u(c, addr, len, 1),
        // RTA_EXPIRES.
        23 => nla_u(c, addr, len, 8),
        // RTA_SPORT, RTA_DPORT.
        28 | 29 => nla_u(c, addr, len, 2),
        _ => None,
    }
}

/// `RTA_MULTIPATH`: `struct rtnexthop` entries, each with its `RTA_*`
/// attributes.
fn multipath(c: &mut Ctx, family: u8, addr: u64, len: u64) -> Option<Value> {
    const RTNH_SIZE: u64 = RtNextHop::SIZE as u64;
    if len < RTNH_SIZE {
        return None;
    }
    let (mut cur, mut left) = (addr, len);
    let mut items = Vec::new();
    let mut is_array = false;
    loop {
        let Some(b) = c.read_bytes(cur, RTNH_SIZE as usize) else {
            items.push(Value::Unreadable(cur));
            break;
        };
        let nh = RtNextHop(&b);
        let nh_len = nh.len() as u64;
        let n = left.min(nh_len);
        if cur == addr && nh_len < len {
            is_array = true;
        }
        let hdr = Value::structure(vec![
            Field::new("rtnh_len", Value::UInt(nh_len)),
            Field::new(
                "rtnh_flags",
                xflags(
                    c,
                    nh.flags() as u64,
                    &xlat::ROUTE_NEXTHOP_FLAGS,
                    "RTNH_F_???",
                ),
            ),
            Field::new("rtnh_hops", Value::UInt(nh.hops() as u64)),
            Field::new("rtnh_ifindex", ifindex_value(c, nh.ifindex())),
        ]);
        if n > RTNH_SIZE {
            let dec = move |c: &mut Ctx, ty: u16, a: u64, l: u64| route_attr(c, family, ty, a, l);
            let attrs = attrs_value(
                c,
                cur + RTNH_SIZE,
                n - RTNH_SIZE,
                AttrNames {
                    table: &xlat::RTNL_ROUTE_ATTRS,
                    dflt: "RTA_???",
                },
                &dec,
            );
            items.push(Value::Array(vec![hdr, attrs], false));
        } else {
            items.push(hdr);
        }
        let step = (n + 3) & !3;
        if step >= left || step == 0 {
            break;
        }
        cur += step;
        left -= step;
    }
    Some(if is_array {
        Value::Array(items, false)
    } else {
        items.pop().unwrap_or(Value::Unknown)
    })
}

/// strace's `decode_family`: the leading family byte, then the rest as a
/// hex string.
pub(in crate::syscall) fn family_value(c: &mut Ctx, family: u8, addr: u64, len: u64) -> Value {
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
pub(in crate::syscall) fn decode(
    c: &mut Ctx,
    h: &Nlmsghdr,
    addr: u64,
    len: u64,
) -> Option<Vec<Value>> {
    if h.ty == NLMSG_DONE {
        return None;
    }
    let v = match c.read_bytes(addr, 1) {
        Some(b)
            if (RTM_NEWLINK..=RTM_SETLINK).contains(&h.ty)
                || (h.ty == RTM_GETNEIGH && b[0] as i32 == libc::AF_BRIDGE) =>
        {
            return Some(ifinfomsg_values(c, b[0], addr, len));
        }
        Some(b)
            if (RTM_NEWADDR..=RTM_GETADDR).contains(&h.ty)
                || h.ty == RTM_GETMULTICAST
                || h.ty == RTM_GETANYCAST =>
        {
            return Some(ifaddrmsg_values(c, b[0], addr, len));
        }
        Some(b) if (RTM_NEWROUTE..=RTM_GETROUTE).contains(&h.ty) => {
            return Some(rtmsg_values(c, b[0], addr, len));
        }
        Some(b) => match msgs::decode(c, h.ty, addr, len) {
            Some(v) => return Some(v),
            None => family_value(c, b[0], addr, len),
        },
        None => Value::Unreadable(addr),
    };
    Some(vec![v])
}
