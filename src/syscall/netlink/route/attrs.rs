//! Attribute payloads of the NETLINK_ROUTE messages whose headers
//! `netlink_route_msgs.rs` prints (strace's `rtnl_neigh.c`, `rtnl_rule.c`,
//! `rtnl_netconf.c`, `rtnl_nsid.c`, `rtnl_addrlabel.c`, `rtnl_mdb.c`,
//! `rtnl_cachereport.c`, `rtnl_nh.c`, `rtnl_neightbl.c`; traffic control
//! is in `netlink_route_tc.rs`).
//! A payload no decoder here takes prints as a hex string.

use crate::syscall::layout::{kstruct, le_uint};
use crate::syscall::net::sockaddr::ifindex_value;
use crate::syscall::netlink::attr::{
    attrs_value, inet_addr_field, inet_addr_nla, nla_enum, nla_fd, nla_flags, nla_hwaddr,
    nla_ifindex, nla_inet, nla_int, nla_s32, nla_str, nla_u, AttrNames,
};
use crate::syscall::netlink::hexstr_value;
use crate::syscall::netlink::route::link_nested::nla_clock_t;
use crate::syscall::printers::xflags;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat};
use std::borrow::Cow;

kstruct! {
    /// `struct br_mdb_entry`.
    struct BrMdbEntry size 28 {
        ifindex: u32 @ 0,
        state: u8 @ 4,
        flags: u8 @ 5,
        vid: u16 @ 6,
        /// `addr.u` (an in_addr or in6_addr), then `addr.proto`.
        addr_u: [u8; 16] @ 8,
        addr_proto: be16 @ 24,
    }
}

/// Offset of `addr.u` in `struct br_mdb_entry`.
const BR_MDB_ENTRY_ADDR_U: u64 = 8;

kstruct! {
    /// `struct nexthop_grp`.
    struct NexthopGrp size 8 {
        id: u32 @ 0,
        weight: u8 @ 4,
        resvd1: u8 @ 5,
        resvd2: u16 @ 6,
    }
}

fn names(table: &'static Xlat, dflt: &'static str) -> AttrNames {
    AttrNames { table, dflt }
}

/// `htons(N)` of a big-endian 16-bit payload (`decode_nla_be16`).
fn nla_be16(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_int(c, addr, len, 2, |_, v| {
        Value::Call(
            Cow::Borrowed("htons"),
            vec![Value::UInt((v as u16).swap_bytes() as u64)],
        )
    })
}

/// `htobe64(N)` of a big-endian 64-bit payload (`decode_nla_be64`).
fn nla_be64(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_int(c, addr, len, 8, |_, v| {
        Value::Call(Cow::Borrowed("htobe64"), vec![Value::UInt(v.swap_bytes())])
    })
}

/// `decode_nla_ip_proto`.
fn nla_ip_proto(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_enum(c, addr, len, 1, &xlat::INET_PROTOCOLS, "IPPROTO_???")
}

/// A structure of consecutive little-endian fields `(name, size, kind)`:
/// kind `u` unsigned, `d` signed, `x` hex, `z` zero-padded hex, `-` padding
/// (not printed). `None` when `len` is shorter than the structure.
pub(in crate::syscall) fn fields_struct(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    spec: &[(&'static str, usize, u8)],
) -> Option<Value> {
    let size: usize = spec.iter().map(|f| f.1).sum();
    if len < size as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, size) else {
        return Some(Value::Unreadable(addr));
    };
    let mut o = 0;
    let mut f = Vec::new();
    for &(name, n, kind) in spec {
        let v = le_uint(&b, o, n);
        o += n;
        let shift = 64 - 8 * n as u32;
        f.push(Field::new(
            name,
            match kind {
                b'-' => continue,
                b'd' => Value::Int(((v << shift) as i64) >> shift),
                b'x' => Value::Hex(v),
                b'z' => Value::sym_owned(format!("{:#0w$x}", v, w = 2 + 2 * n)),
                _ => Value::UInt(v),
            },
        ));
    }
    Some(Value::structure(f))
}

/// An `NDA_*` attribute.
pub(in crate::syscall) fn neigh_attr(
    c: &mut Ctx,
    family: u8,
    ty: u16,
    addr: u64,
    len: u64,
) -> Option<Value> {
    match ty {
        // NDA_DST.
        1 => Some(inet_addr_nla(c, addr, len, family)),
        // NDA_FDB_EXT_ATTRS.
        14 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::RTNL_NEIGH_FDB_EXT_ATTRS, "NFEA_???"),
            &|c, t, a, l| {
                (t == 1)
                    .then(|| nla_flags(c, a, l, 1, &xlat::FDB_NOTIFY_FLAGS, "FDB_NOTIFY_???"))
                    .flatten()
            },
        )),
        15 => nla_flags(
            c,
            addr,
            len,
            4,
            &xlat::NEIGHBOR_CACHE_ENTRY_EXT_FLAGS,
            "NTF_EXT_???",
        ),
        16 => nla_flags(
            c,
            addr,
            len,
            2,
            &xlat::NEIGHBOR_CACHE_ENTRY_STATES,
            "NUD_???",
        ),
        17 => nla_flags(
            c,
            addr,
            len,
            1,
            &xlat::NEIGHBOR_CACHE_ENTRY_FLAGS,
            "NTF_???",
        ),
        // NDA_LLADDR.
        2 => nla_hwaddr(c, addr, len),
        // NDA_CACHEINFO.
        3 => {
            if len < 16 {
                return None;
            }
            Some(crate::syscall::netlink::attr::uint_struct(
                c,
                addr,
                4,
                &["ndm_confirmed", "ndm_used", "ndm_updated", "ndm_refcnt"],
                &[],
            ))
        }
        // NDA_PROBES, NDA_VNI, NDA_LINK_NETNSID, NDA_SRC_VNI, NDA_NH_ID.
        4 | 7 | 10 | 11 | 13 => nla_u(c, addr, len, 4),
        5 => nla_u(c, addr, len, 2),
        6 => nla_be16(c, addr, len),
        8 | 9 => nla_ifindex(c, addr, len),
        12 => nla_ip_proto(c, addr, len),
        _ => None,
    }
}

/// An `FRA_*` attribute of a rule of `family`.
pub(in crate::syscall) fn rule_attr(
    c: &mut Ctx,
    family: u8,
    ty: u16,
    addr: u64,
    len: u64,
) -> Option<Value> {
    match ty {
        // FRA_DST, FRA_SRC.
        1 | 2 => Some(inet_addr_nla(c, addr, len, family)),
        3 | 17 => nla_str(c, addr, len),
        4 | 6 | 10 | 11 | 13 | 14 | 16 => nla_u(c, addr, len, 4),
        12 => nla_be64(c, addr, len),
        15 => nla_enum(c, addr, len, 4, &xlat::ROUTING_TABLE_IDS, "RT_TABLE_???"),
        19 => nla_u(c, addr, len, 1),
        20 => {
            if len < 8 {
                return None;
            }
            Some(crate::syscall::netlink::attr::uint_struct(
                c,
                addr,
                4,
                &["start", "end"],
                &[],
            ))
        }
        21 => nla_enum(c, addr, len, 1, &xlat::ROUTING_PROTOCOLS, "RTPROT_???"),
        22 => nla_ip_proto(c, addr, len),
        23 | 24 => {
            if len < 4 {
                return None;
            }
            Some(crate::syscall::netlink::attr::uint_struct(
                c,
                addr,
                2,
                &["start", "end"],
                &[],
            ))
        }
        _ => None,
    }
}

/// A `NETCONFA_*` attribute.
pub(in crate::syscall) fn netconf_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => nla_ifindex(c, addr, len),
        2..=8 => nla_s32(c, addr, len),
        _ => None,
    }
}

/// A `NETNSA_*` attribute.
pub(in crate::syscall) fn nsid_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 | 4 | 5 => nla_s32(c, addr, len),
        2 => nla_u(c, addr, len, 4),
        3 => nla_fd(c, addr, len),
        _ => None,
    }
}

/// An `IFAL_*` attribute of an address label of `family`.
pub(in crate::syscall) fn addrlabel_attr(
    c: &mut Ctx,
    family: u8,
    ty: u16,
    addr: u64,
    len: u64,
) -> Option<Value> {
    match ty {
        1 => Some(inet_addr_nla(c, addr, len, family)),
        2 => nla_u(c, addr, len, 4),
        _ => None,
    }
}

/// `struct br_mdb_entry` (`MDBA_MDB_ENTRY_INFO`), then its attributes.
fn mdb_entry_info(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    const SIZE: u64 = BrMdbEntry::SIZE as u64;
    if len < SIZE {
        return None;
    }
    let entry = match c.read_bytes(addr, SIZE as usize) {
        Some(b) => {
            let e = BrMdbEntry(&b);
            let proto = e.addr_proto();
            let fam = if proto < 256 { proto as u8 } else { 0 };
            let u = inet_addr_field(
                c,
                addr + BR_MDB_ENTRY_ADDR_U,
                e.addr_u().len() as u64,
                fam,
                "u",
            );
            Value::structure(vec![
                Field::new("ifindex", ifindex_value(c, e.ifindex())),
                Field::new(
                    "state",
                    c.enum_value(e.state() as u64, &xlat::MDB_STATES, "MDB_???"),
                ),
                Field::new(
                    "flags",
                    xflags(c, e.flags() as u64, &xlat::MDB_FLAGS, "MDB_FLAGS_???"),
                ),
                Field::new("vid", Value::UInt(e.vid() as u64)),
                Field::new(
                    "addr",
                    Value::structure(vec![
                        u,
                        Field::new(
                            "proto",
                            Value::Call(
                                Cow::Borrowed("htons"),
                                vec![c.enum_value(proto as u64, &xlat::SOCKET_FAMILIES, "AF_???")],
                            ),
                        ),
                    ]),
                ),
            ])
        }
        None => Value::Unreadable(addr),
    };
    let off = 28;
    if len <= off {
        return Some(entry);
    }
    let rest = attrs_value(
        c,
        addr + off,
        len - off,
        names(&xlat::RTNL_MDBA_MDB_EATTR_ATTRS, "MDBA_MDB_EATTR_???"),
        &|c, t, a, l| if t == 1 { nla_clock_t(c, a, l) } else { None },
    );
    Some(Value::Joined(vec![entry, rest], ", "))
}

/// `MDBA_ROUTER_PORT`: the port's ifindex, then its attributes.
fn mdb_router_port(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    let idx = nla_ifindex(c, addr, len)?;
    if len <= 4 {
        return Some(idx);
    }
    let rest = attrs_value(
        c,
        addr + 4,
        len - 4,
        names(&xlat::RTNL_MDBA_ROUTER_PATTR_ATTRS, "MDBA_ROUTER_PATTR_???"),
        &|c, t, a, l| match t {
            1 | 3 | 4 => nla_clock_t(c, a, l),
            2 => nla_enum(
                c,
                a,
                l,
                1,
                &xlat::MULTICAST_ROUTER_TYPES,
                "MDB_RTR_TYPE_???",
            ),
            _ => None,
        },
    );
    Some(Value::Joined(vec![idx, rest], ", "))
}

/// An `MDBA_*` attribute.
pub(in crate::syscall) fn mdb_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        // MDBA_MDB → MDBA_MDB_ENTRY → MDBA_MDB_ENTRY_INFO.
        1 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::RTNL_MDBA_MDB_ATTRS, "MDBA_MDB_???"),
            &|c, t, a, l| {
                (t == 1).then(|| {
                    attrs_value(
                        c,
                        a,
                        l,
                        names(&xlat::RTNL_MDBA_MDB_ENTRY_ATTRS, "MDBA_MDB_ENTRY_???"),
                        &|c, t, a, l| {
                            if t == 1 {
                                mdb_entry_info(c, a, l)
                            } else {
                                None
                            }
                        },
                    )
                })
            },
        )),
        // MDBA_ROUTER → MDBA_ROUTER_PORT.
        2 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::RTNL_MDBA_ROUTER_ATTRS, "MDBA_ROUTER_???"),
            &|c, t, a, l| {
                if t == 1 {
                    mdb_router_port(c, a, l)
                } else {
                    None
                }
            },
        )),
        _ => None,
    }
}

/// The attributes of an `RTM_NEWCACHEREPORT` of `family` (RTNL_FAMILY_IPMR
/// or RTNL_FAMILY_IP6MR; any other family's, a hex string).
pub(in crate::syscall) fn cachereport_attrs(c: &mut Ctx, family: u8, addr: u64, len: u64) -> Value {
    let v6 = match family {
        0x80 => false,
        0x81 => true,
        _ => return hexstr_value(c, addr, len),
    };
    let an = if v6 {
        names(&xlat::RTNL_IP6MRA_CREPORT_ATTR, "IP6MRA_CREPORT_???")
    } else {
        names(&xlat::RTNL_IPMRA_CREPORT_ATTR, "IPMRA_CREPORT_???")
    };
    let dec = move |c: &mut Ctx, ty: u16, a: u64, l: u64| match ty {
        1 if v6 => nla_enum(c, a, l, 1, &xlat::RTNL_IP6MRA_MSG_TYPES, "MRT6MSG_???"),
        1 => nla_enum(c, a, l, 1, &xlat::RTNL_IPMRA_MSG_TYPES, "IGMPMSG_???"),
        2 => nla_u(c, a, l, 4),
        3 | 4 if v6 => nla_inet(c, a, l, libc::AF_INET6 as u8),
        3 | 4 => nla_inet(c, a, l, libc::AF_INET as u8),
        6 if !v6 => nla_u(c, a, l, 4),
        _ => None,
    };
    attrs_value(c, addr, len, an, &dec)
}

/// An `NDTA_*` attribute.
pub(in crate::syscall) fn neightbl_attr(
    c: &mut Ctx,
    ty: u16,
    addr: u64,
    len: u64,
) -> Option<Value> {
    match ty {
        // NDTA_NAME.
        1 => nla_str(c, addr, len),
        // NDTA_THRESH1..3.
        2..=4 => nla_u(c, addr, len, 4),
        // NDTA_CONFIG.
        5 => fields_struct(
            c,
            addr,
            len,
            &[
                ("ndtc_key_len", 2, b'u'),
                ("ndtc_entry_size", 2, b'u'),
                ("ndtc_entries", 4, b'u'),
                ("ndtc_last_flush", 4, b'u'),
                ("ndtc_last_rand", 4, b'u'),
                ("ndtc_hash_rnd", 4, b'u'),
                ("ndtc_hash_mask", 4, b'z'),
                ("ndtc_hash_chain_gc", 4, b'u'),
                ("ndtc_proxy_qlen", 4, b'u'),
            ],
        ),
        // NDTA_PARMS.
        6 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::RTNL_NEIGHTBL_PARMS_ATTRS, "NDTPA_???"),
            &|c, t, a, l| match t {
                1 => nla_ifindex(c, a, l),
                2 | 8..=11 | 14 | 16 | 17 => nla_u(c, a, l, 4),
                3..=7 | 12 | 13 | 15 | 19 => nla_u(c, a, l, 8),
                _ => None,
            },
        )),
        // NDTA_STATS.
        7 => {
            const STATS: [&str; 11] = [
                "ndts_allocs",
                "ndts_destroys",
                "ndts_hash_grows",
                "ndts_res_failed",
                "ndts_lookups",
                "ndts_hits",
                "ndts_rcv_probes_mcast",
                "ndts_rcv_probes_ucast",
                "ndts_periodic_gc_runs",
                "ndts_forced_gc_runs",
                "ndts_table_fulls",
            ];
            let n = if len >= 88 {
                11
            } else if len == 80 {
                10
            } else {
                return None;
            };
            let spec: Vec<_> = STATS[..n].iter().map(|s| (*s, 8, b'u')).collect();
            fields_struct(c, addr, len, &spec)
        }
        // NDTA_GC_INTERVAL.
        8 => nla_u(c, addr, len, 8),
        _ => None,
    }
}

/// `NHA_GROUP`: an array of `struct nexthop_grp`, cut at `-s` elements.
fn nh_group(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    let cnt = len / 8;
    if cnt == 0 {
        return None;
    }
    let mut items = Vec::new();
    let mut more = false;
    for i in 0..cnt {
        if !c.opts.verbose && i as usize >= c.opts.string_limit {
            more = true;
            break;
        }
        let a = addr + i * NexthopGrp::SIZE as u64;
        let Some(b) = c.read_bytes(a, NexthopGrp::SIZE) else {
            if i == 0 {
                return Some(Value::Unreadable(addr));
            }
            items.push(Value::Commented(
                Box::new(Value::sym("...")),
                Cow::Owned(format!("{a:#x}")),
            ));
            break;
        };
        let g = NexthopGrp(&b);
        let mut f = vec![
            Field::new("id", Value::UInt(g.id() as u64)),
            Field::new("weight", Value::UInt(g.weight() as u64)),
        ];
        if g.resvd1() != 0 {
            f.push(Field::new("resvd1", Value::Hex(g.resvd1() as u64)));
        }
        let r2 = g.resvd2();
        if r2 != 0 {
            f.push(Field::new("resvd2", Value::Hex(r2 as u64)));
        }
        items.push(Value::structure(f));
    }
    Some(Value::Array(items, more))
}

/// An `NHA_*` attribute of a next hop of `family`.
pub(in crate::syscall) fn nexthop_attr(
    c: &mut Ctx,
    family: u8,
    ty: u16,
    addr: u64,
    len: u64,
) -> Option<Value> {
    match ty {
        1 | 4 | 9 | 11 => nla_u(c, addr, len, 4),
        2 => nh_group(c, addr, len),
        3 => nla_enum(
            c,
            addr,
            len,
            2,
            &xlat::RTNL_NEXTHOP_GRP_TYPES,
            "NEXTHOP_GRP_TYPE_???",
        ),
        5 | 10 => nla_ifindex(c, addr, len),
        6 => Some(inet_addr_nla(c, addr, len, family)),
        7 => nla_enum(
            c,
            addr,
            len,
            2,
            &xlat::LWTUNNEL_ENCAP_TYPES,
            "LWTUNNEL_ENCAP_???",
        ),
        12 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::RTNL_NHA_RES_GROUP_ATTRS, "NHA_RES_GROUP_???"),
            &|c, t, a, l| match t {
                1 => nla_u(c, a, l, 2),
                2..=4 => nla_clock_t(c, a, l),
                _ => None,
            },
        )),
        13 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::RTNL_NHA_RES_BUCKET_ATTRS, "NHA_RES_BUCKET_???"),
            &|c, t, a, l| match t {
                1 => nla_u(c, a, l, 2),
                2 => nla_clock_t(c, a, l),
                3 => nla_u(c, a, l, 4),
                _ => None,
            },
        )),
        _ => None,
    }
}
