//! NETLINK_ROUTE link attributes (`IFLA_*` after `struct ifinfomsg`,
//! strace's `rtnl_link.c`): names, MTUs and counters, MAC addresses,
//! `rtnl_link_stats`/`stats64`, `rtnl_link_ifmap`, and the nested lists
//! `IFLA_XDP`, `IFLA_AF_SPEC` (AF_INET devconf, AF_INET6 flags, devconf,
//! statistics, token, AF_MCTP net; bridge attributes on AF_BRIDGE links)
//! and `IFLA_PROTINFO`. `IFLA_LINKINFO` is `netlink_route_link_info.rs`,
//! the other nested lists `netlink_route_link_nested.rs`.

use crate::syscall::layout::kstruct;
use crate::syscall::netlink::attr::{
    attrs_value, indexed_array, nla_enum, nla_fd, nla_flags, nla_hwaddr, nla_ifindex, nla_inet,
    nla_s32, nla_str, nla_u, uint_struct, AttrNames,
};
use crate::syscall::netlink::route::link_info as info;
use crate::syscall::netlink::route::link_nested as nested;
use crate::syscall::{Ctx, Value};
use rtrace_arch::xlat;

kstruct! {
    /// `struct rtnl_link_ifmap` (28 bytes without its tail padding).
    struct RtnlLinkIfmap size 28 {
        mem_start: u64 @ 0,
        mem_end: u64 @ 8,
        base_addr: u64 @ 16,
        irq: u16 @ 24,
        dma: u8 @ 26,
        port: u8 @ 27,
    }
}

/// `AF_MCTP` (not in every libc).
const AF_MCTP: i32 = 45;

const IFLA_ADDRESS: u16 = 1;
const IFLA_BROADCAST: u16 = 2;
const IFLA_IFNAME: u16 = 3;
const IFLA_MTU: u16 = 4;
const IFLA_LINK: u16 = 5;
const IFLA_QDISC: u16 = 6;
const IFLA_STATS: u16 = 7;
const IFLA_MASTER: u16 = 10;
const IFLA_PROTINFO: u16 = 12;
const IFLA_TXQLEN: u16 = 13;
const IFLA_MAP: u16 = 14;
const IFLA_WEIGHT: u16 = 15;
const IFLA_OPERSTATE: u16 = 16;
const IFLA_LINKMODE: u16 = 17;
const IFLA_LINKINFO: u16 = 18;
const IFLA_NET_NS_PID: u16 = 19;
const IFLA_IFALIAS: u16 = 20;
const IFLA_NUM_VF: u16 = 21;
const IFLA_STATS64: u16 = 23;
const IFLA_AF_SPEC: u16 = 26;
const IFLA_GROUP: u16 = 27;
const IFLA_NET_NS_FD: u16 = 28;
const IFLA_EXT_MASK: u16 = 29;
const IFLA_PROMISCUITY: u16 = 30;
const IFLA_NUM_TX_QUEUES: u16 = 31;
const IFLA_NUM_RX_QUEUES: u16 = 32;
const IFLA_CARRIER: u16 = 33;
const IFLA_CARRIER_CHANGES: u16 = 35;
const IFLA_LINK_NETNSID: u16 = 37;
const IFLA_PHYS_PORT_NAME: u16 = 38;
const IFLA_PROTO_DOWN: u16 = 39;
const IFLA_GSO_MAX_SEGS: u16 = 40;
const IFLA_GSO_MAX_SIZE: u16 = 41;
const IFLA_XDP: u16 = 43;
const IFLA_NEW_NETNSID: u16 = 45;
const IFLA_IF_NETNSID: u16 = 46;
const IFLA_CARRIER_UP_COUNT: u16 = 47;
const IFLA_CARRIER_DOWN_COUNT: u16 = 48;
const IFLA_NEW_IFINDEX: u16 = 49;
const IFLA_MIN_MTU: u16 = 50;
const IFLA_MAX_MTU: u16 = 51;
const IFLA_ALT_IFNAME: u16 = 53;
const IFLA_PERM_ADDRESS: u16 = 54;
const IFLA_PARENT_DEV_NAME: u16 = 56;
const IFLA_PARENT_DEV_BUS_NAME: u16 = 57;
const IFLA_GRO_MAX_SIZE: u16 = 58;
const IFLA_TSO_MAX_SIZE: u16 = 59;
const IFLA_TSO_MAX_SEGS: u16 = 60;
const IFLA_ALLMULTI: u16 = 61;
const IFLA_VFINFO_LIST: u16 = 22;
const IFLA_VF_PORTS: u16 = 24;
const IFLA_PORT_SELF: u16 = 25;
const IFLA_EVENT: u16 = 44;
const IFLA_PROP_LIST: u16 = 52;
const IFLA_PROTO_DOWN_REASON: u16 = 55;

/// The fields of `struct rtnl_link_stats` / `rtnl_link_stats64`, in order.
const LINK_STATS: &[&str] = &[
    "rx_packets",
    "tx_packets",
    "rx_bytes",
    "tx_bytes",
    "rx_errors",
    "tx_errors",
    "rx_dropped",
    "tx_dropped",
    "multicast",
    "collisions",
    "rx_length_errors",
    "rx_over_errors",
    "rx_crc_errors",
    "rx_frame_errors",
    "rx_fifo_errors",
    "rx_missed_errors",
    "tx_aborted_errors",
    "tx_carrier_errors",
    "tx_fifo_errors",
    "tx_heartbeat_errors",
    "tx_window_errors",
    "rx_compressed",
    "tx_compressed",
    "rx_nohandler",
    "rx_otherhost_dropped",
];

/// Fields up to `tx_compressed` (the oldest layout).
const STATS_MIN_FIELDS: usize = 23;

/// `rtnl_link_stats` (`size` 4, up to `rx_nohandler`) or `stats64` (`size`
/// 8, up to `rx_otherhost_dropped`): the full layout, or exactly the oldest
/// one (or, for `stats64`, exactly the one up to `rx_nohandler`); any other
/// length is not decoded.
pub(in crate::syscall) fn link_stats(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    size: usize,
) -> Option<Value> {
    let full = if size == 4 { 24 } else { 25 };
    let n = if len >= (full * size) as u64 {
        full
    } else if len == (STATS_MIN_FIELDS * size) as u64 {
        STATS_MIN_FIELDS
    } else if size == 8 && len == 24 * 8 {
        24
    } else {
        return None;
    };
    Some(uint_struct(c, addr, size, &LINK_STATS[..n], &[]))
}

/// `struct rtnl_link_ifmap` (`mem_start`…`port`, 28 bytes without padding).
fn ifmap(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if len < RtnlLinkIfmap::SIZE as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, RtnlLinkIfmap::SIZE) else {
        return Some(Value::Unreadable(addr));
    };
    let m = RtnlLinkIfmap(&b);
    use crate::syscall::Field;
    Some(Value::structure(vec![
        Field::new("mem_start", Value::Hex(m.mem_start())),
        Field::new("mem_end", Value::Hex(m.mem_end())),
        Field::new("base_addr", Value::Hex(m.base_addr())),
        Field::new("irq", Value::UInt(m.irq() as u64)),
        Field::new("dma", Value::UInt(m.dma() as u64)),
        Field::new("port", Value::UInt(m.port() as u64)),
    ]))
}

/// `IFLA_XDP`.
fn xdp(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 | 8 => nla_fd(c, addr, len),
        2 => nla_enum(
            c,
            addr,
            len,
            1,
            &xlat::RTNL_IFLA_XDP_ATTACHED_MODE,
            "XDP_ATTACHED_???",
        ),
        3 => {
            if len < 4 {
                return None;
            }
            nla_flags(c, addr, 4, 4, &xlat::XDP_FLAGS, "XDP_FLAGS_???")
        }
        4..=7 => nla_u(c, addr, len, 4),
        _ => None,
    }
}

/// `IFLA_AF_SPEC` → AF_INET: `IFLA_INET_CONF`.
fn af_inet(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => indexed_array(
            c,
            addr,
            len,
            4,
            true,
            &xlat::INET_DEVCONF_INDICES,
            "IPV4_DEVCONF_???",
        ),
        _ => None,
    }
}

/// AF_INET6 attributes (`IFLA_AF_SPEC` → AF_INET6, and `IFLA_PROTINFO` of
/// AF_INET6 links).
pub(in crate::syscall) fn af_inet6(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => nla_flags(c, addr, len, 4, &xlat::INET6_IF_FLAGS, "IF_???"),
        2 => indexed_array(
            c,
            addr,
            len,
            4,
            true,
            &xlat::INET6_DEVCONF_INDICES,
            "DEVCONF_???",
        ),
        3 => indexed_array(
            c,
            addr,
            len,
            8,
            false,
            &xlat::SNMP_IP_STATS,
            "IPSTATS_MIB_???",
        ),
        5 => {
            if len < 16 {
                return None;
            }
            Some(uint_struct(
                c,
                addr,
                4,
                &["max_reasm_len", "tstamp", "reachable_time", "retrans_time"],
                &[],
            ))
        }
        6 => indexed_array(
            c,
            addr,
            len,
            8,
            false,
            &xlat::SNMP_ICMP6_STATS,
            "ICMP6_MIB_???",
        ),
        7 => nla_inet(c, addr, len, libc::AF_INET6 as u8),
        // IFLA_INET6_RA_MTU.
        9 => nla_u(c, addr, len, 4),
        8 => nla_enum(
            c,
            addr,
            len,
            1,
            &xlat::IN6_ADDR_GEN_MODE,
            "IN6_ADDR_GEN_MODE_???",
        ),
        _ => None,
    }
}

const INET6_NAMES: AttrNames = AttrNames {
    table: &xlat::RTNL_IFLA_AF_SPEC_INET6_ATTRS,
    dflt: "IFLA_INET6_???",
};

/// `IFLA_AF_SPEC`: a list keyed by address family.
fn af_spec(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty as i32 {
        libc::AF_INET => Some(attrs_value(
            c,
            addr,
            len,
            AttrNames {
                table: &xlat::RTNL_IFLA_AF_SPEC_INET_ATTRS,
                dflt: "IFLA_INET_???",
            },
            &af_inet,
        )),
        libc::AF_INET6 => Some(attrs_value(c, addr, len, INET6_NAMES, &af_inet6)),
        AF_MCTP => Some(info::mctp_af_spec(c, addr, len)),
        _ => None,
    }
}

/// The attributes after an `ifinfomsg` of `family`.
pub(in crate::syscall) fn link_attrs(c: &mut Ctx, family: u8, addr: u64, len: u64) -> Value {
    let dec = move |c: &mut Ctx, ty: u16, a: u64, l: u64| link_attr(c, family, ty, a, l);
    attrs_value(
        c,
        addr,
        len,
        AttrNames {
            table: &xlat::RTNL_LINK_ATTRS,
            dflt: "IFLA_???",
        },
        &dec,
    )
}

fn link_attr(c: &mut Ctx, family: u8, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        IFLA_ADDRESS | IFLA_BROADCAST | IFLA_PERM_ADDRESS => nla_hwaddr(c, addr, len),
        IFLA_IFNAME
        | IFLA_QDISC
        | IFLA_IFALIAS
        | IFLA_PHYS_PORT_NAME
        | IFLA_ALT_IFNAME
        | IFLA_PARENT_DEV_NAME
        | IFLA_PARENT_DEV_BUS_NAME => nla_str(c, addr, len),
        IFLA_MTU
        | IFLA_LINK
        | IFLA_MASTER
        | IFLA_TXQLEN
        | IFLA_WEIGHT
        | IFLA_NET_NS_PID
        | IFLA_NUM_VF
        | IFLA_GROUP
        | IFLA_PROMISCUITY
        | IFLA_NUM_TX_QUEUES
        | IFLA_NUM_RX_QUEUES
        | IFLA_CARRIER_CHANGES
        | IFLA_GSO_MAX_SEGS
        | IFLA_GSO_MAX_SIZE
        | IFLA_CARRIER_UP_COUNT
        | IFLA_CARRIER_DOWN_COUNT
        | IFLA_MIN_MTU
        | IFLA_MAX_MTU
        | IFLA_GRO_MAX_SIZE
        | IFLA_TSO_MAX_SIZE
        | IFLA_TSO_MAX_SEGS
        | IFLA_ALLMULTI => nla_u(c, addr, len, 4),
        IFLA_OPERSTATE | IFLA_LINKMODE | IFLA_CARRIER | IFLA_PROTO_DOWN => nla_u(c, addr, len, 1),
        IFLA_LINK_NETNSID | IFLA_NEW_NETNSID | IFLA_IF_NETNSID => nla_s32(c, addr, len),
        IFLA_NET_NS_FD => nla_fd(c, addr, len),
        IFLA_NEW_IFINDEX => nla_ifindex(c, addr, len),
        IFLA_EXT_MASK => nla_flags(
            c,
            addr,
            len,
            4,
            &xlat::RTNL_IFLA_EXT_FILTER,
            "RTEXT_FILTER_???",
        ),
        IFLA_STATS => link_stats(c, addr, len, 4),
        IFLA_STATS64 => link_stats(c, addr, len, 8),
        IFLA_MAP => ifmap(c, addr, len),
        IFLA_LINKINFO => Some(info::linkinfo(c, addr, len)),
        IFLA_XDP => Some(attrs_value(
            c,
            addr,
            len,
            AttrNames {
                table: &xlat::RTNL_IFLA_XDP_ATTRS,
                dflt: "IFLA_XDP_???",
            },
            &xdp,
        )),
        IFLA_AF_SPEC if family as i32 == libc::AF_BRIDGE => {
            Some(info::bridge_af_spec(c, addr, len))
        }
        IFLA_AF_SPEC => Some(attrs_value(
            c,
            addr,
            len,
            AttrNames {
                table: &xlat::SOCKET_FAMILIES,
                dflt: "AF_???",
            },
            &af_spec,
        )),
        IFLA_PROTINFO if family as i32 == libc::AF_INET6 => {
            Some(attrs_value(c, addr, len, INET6_NAMES, &af_inet6))
        }
        IFLA_PROTINFO if family as i32 == libc::AF_BRIDGE => {
            Some(nested::brport_attrs(c, addr, len))
        }
        IFLA_VF_PORTS => Some(nested::vf_ports(c, addr, len)),
        IFLA_VFINFO_LIST => Some(nested::vfinfo_list(c, addr, len)),
        IFLA_PORT_SELF => Some(nested::port_attrs(c, addr, len)),
        IFLA_EVENT => nested::event(c, addr, len),
        IFLA_PROP_LIST => Some(nested::prop_list(c, addr, len)),
        IFLA_PROTO_DOWN_REASON => Some(nested::proto_down_reason(c, addr, len)),
        _ => None,
    }
}
