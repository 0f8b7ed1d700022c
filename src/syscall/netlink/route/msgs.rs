//! The fixed headers of the NETLINK_ROUTE messages other than links,
//! addresses and routes (strace's `rtnl_*.c` decoders): `ndmsg`, `ndtmsg`,
//! `fib_rule_hdr`, `tcmsg`, `tcamsg`, `nhmsg`, `ifaddrlblmsg`,
//! `if_stats_msg`, `dcbmsg`, `br_port_msg`, `netconfmsg` and `rtgenmsg`,
//! each followed by its attribute list. Attribute payloads are decoded by
//! `netlink_route_attrs.rs`; the ones it does not know print as hex strings.

use crate::syscall::layout::kstruct;
use crate::syscall::net::sockaddr::ifindex_value;
use crate::syscall::netlink::attr::{attrs_value, AttrDecoder, AttrNames};
use crate::syscall::netlink::route::attrs as ra;
use crate::syscall::printers::xflags;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat};

kstruct! {
    /// `struct ndmsg`.
    struct NdMsg size 12 {
        family: u8 @ 0,
        ifindex: u32 @ 4,
        state: u16 @ 8,
        flags: u8 @ 10,
        type_: u8 @ 11,
    }
}

kstruct! {
    /// `struct fib_rule_hdr`.
    struct FibRuleHdr size 12 {
        family: u8 @ 0,
        dst_len: u8 @ 1,
        src_len: u8 @ 2,
        tos: u8 @ 3,
        table: u8 @ 4,
        action: u8 @ 7,
        flags: u32 @ 8,
    }
}

kstruct! {
    /// `struct tcmsg`.
    struct TcMsg size 20 {
        family: u8 @ 0,
        ifindex: u32 @ 4,
        handle: u32 @ 8,
        parent: u32 @ 12,
        info: u32 @ 16,
    }
}

kstruct! {
    /// `struct ifaddrlblmsg`.
    struct IfAddrLblMsg size 12 {
        family: u8 @ 0,
        prefixlen: u8 @ 2,
        flags: u8 @ 3,
        index: u32 @ 4,
        seq: u32 @ 8,
    }
}

kstruct! {
    /// `struct dcbmsg`.
    struct DcbMsg size 4 {
        family: u8 @ 0,
        cmd: u8 @ 1,
    }
}

kstruct! {
    /// `struct br_port_msg`.
    struct BrPortMsg size 8 {
        family: u8 @ 0,
        ifindex: u32 @ 4,
    }
}

kstruct! {
    /// `struct if_stats_msg`.
    struct IfStatsMsg size 12 {
        family: u8 @ 0,
        pad1: u8 @ 1,
        pad2: u16 @ 2,
        ifindex: u32 @ 4,
        filter_mask: u32 @ 8,
    }
}

kstruct! {
    /// `struct nhmsg`.
    struct NhMsg size 8 {
        family: u8 @ 0,
        scope: u8 @ 1,
        protocol: u8 @ 2,
        resvd: u8 @ 3,
        flags: u32 @ 4,
    }
}

/// `sizeof(struct rtgenmsg)` as the kernel aligns it (RTM_NEWCACHEREPORT).
const RTGENMSG_ALIGNED: u64 = 4;

fn family(c: &Ctx, name: &'static str, f: u8) -> Field {
    Field::new(
        name,
        c.enum_value(f as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
    )
}

fn names(table: &'static Xlat, dflt: &'static str) -> AttrNames {
    AttrNames { table, dflt }
}

/// A header of `size` bytes whose first byte is the family (printed as
/// `fam_name`): the other fields by `fields` (given the whole header) when
/// the payload holds the header, then the attributes after it.
#[allow(clippy::too_many_arguments)]
pub(in crate::syscall) fn header_then_attrs(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    fam_name: &'static str,
    size: u64,
    fields: &dyn Fn(&mut Ctx, &[u8]) -> Vec<Field>,
    an: AttrNames,
    dec: AttrDecoder,
) -> Vec<Value> {
    let Some(f0) = c.read_bytes(addr, 1) else {
        return vec![Value::Unreadable(addr)];
    };
    let mut f = vec![family(c, fam_name, f0[0])];
    if size > 1 {
        if len < size {
            return vec![Value::Struct(f, true)];
        }
        let Some(rest) = c.read_bytes(addr + 1, size as usize - 1) else {
            f.push(Field::new("", Value::Unreadable(addr + 1)));
            return vec![Value::structure(f)];
        };
        let mut b = vec![f0[0]];
        b.extend(rest);
        f.extend(fields(c, &b));
    }
    let mut out = vec![Value::structure(f)];
    let off = (size + 3) & !3;
    if len > off {
        out.push(attrs_value(c, addr + off, len - off, an, dec));
    }
    out
}

/// strace's `ifstats_attr_flags`: bit `1<<attr` of each `IFLA_STATS_*`.
const IFSTATS_FILTER_BITS: &[&str] = &[
    "1<<IFLA_STATS_UNSPEC",
    "1<<IFLA_STATS_LINK_64",
    "1<<IFLA_STATS_LINK_XSTATS",
    "1<<IFLA_STATS_LINK_XSTATS_SLAVE",
    "1<<IFLA_STATS_LINK_OFFLOAD_XSTATS",
    "1<<IFLA_STATS_AF_SPEC",
];

const NONE: AttrDecoder = &|_, _, _, _| None;

/// The payload of a NETLINK_ROUTE message of type `ty` handled here, or
/// `None` for a type this file does not know.
pub(in crate::syscall) fn decode(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Vec<Value>> {
    Some(match ty {
        // RTM_NEWNEIGH, RTM_DELNEIGH, RTM_GETNEIGH (not AF_BRIDGE).
        28..=30 => {
            let fam = c.read_bytes(addr, 1).map_or(0, |b| b[0]);
            header_then_attrs(
                c,
                addr,
                len,
                "ndm_family",
                NdMsg::SIZE as u64,
                &|c, b| {
                    let m = NdMsg(b);
                    vec![
                        Field::new("ndm_ifindex", ifindex_value(c, m.ifindex())),
                        Field::new(
                            "ndm_state",
                            xflags(
                                c,
                                m.state() as u64,
                                &xlat::NEIGHBOR_CACHE_ENTRY_STATES,
                                "NUD_???",
                            ),
                        ),
                        Field::new(
                            "ndm_flags",
                            xflags(
                                c,
                                m.flags() as u64,
                                &xlat::NEIGHBOR_CACHE_ENTRY_FLAGS,
                                "NTF_???",
                            ),
                        ),
                        Field::new(
                            "ndm_type",
                            c.enum_value(m.type_() as u64, &xlat::ROUTING_TYPES, "RTN_???"),
                        ),
                    ]
                },
                names(&xlat::RTNL_NEIGH_ATTRS, "NDA_???"),
                &move |c, t, a, l| ra::neigh_attr(c, fam, t, a, l),
            )
        }
        // RTM_NEWRULE, RTM_DELRULE, RTM_GETRULE.
        32..=34 => {
            let fam = c.read_bytes(addr, 1).map_or(0, |b| b[0]);
            header_then_attrs(
                c,
                addr,
                len,
                "family",
                FibRuleHdr::SIZE as u64,
                &|c, b| {
                    let h = FibRuleHdr(b);
                    vec![
                        Field::new("dst_len", Value::UInt(h.dst_len() as u64)),
                        Field::new("src_len", Value::UInt(h.src_len() as u64)),
                        Field::new(
                            "tos",
                            xflags(
                                c,
                                h.tos() as u64,
                                &xlat::IP_TYPE_OF_SERVICES,
                                "IPTOS_TOS_???",
                            ),
                        ),
                        Field::new(
                            "table",
                            c.enum_value(
                                h.table() as u64,
                                &xlat::ROUTING_TABLE_IDS,
                                "RT_TABLE_???",
                            ),
                        ),
                        Field::new(
                            "action",
                            c.enum_value(h.action() as u64, &xlat::FIB_RULE_ACTIONS, "FR_ACT_???"),
                        ),
                        Field::new(
                            "flags",
                            xflags(c, h.flags() as u64, &xlat::FIB_RULE_FLAGS, "FIB_RULE_???"),
                        ),
                    ]
                },
                names(&xlat::RTNL_RULE_ATTRS, "FRA_???"),
                &move |c, t, a, l| ra::rule_attr(c, fam, t, a, l),
            )
        }
        // RTM_*QDISC, RTM_*TCLASS, RTM_*TFILTER, RTM_*CHAIN.
        36..=38 | 40..=42 | 44..=46 | 100..=102 => header_then_attrs(
            c,
            addr,
            len,
            "tcm_family",
            TcMsg::SIZE as u64,
            &|c, b| {
                let m = TcMsg(b);
                vec![
                    Field::new("tcm_ifindex", ifindex_value(c, m.ifindex())),
                    Field::new("tcm_handle", Value::UInt(m.handle() as u64)),
                    Field::new("tcm_parent", Value::UInt(m.parent() as u64)),
                    Field::new("tcm_info", Value::UInt(m.info() as u64)),
                ]
            },
            names(&xlat::RTNL_TC_ATTRS, "TCA_???"),
            &crate::syscall::netlink::route::tc::tc_attr,
        ),
        // RTM_NEWACTION, RTM_DELACTION, RTM_GETACTION.
        48..=50 => header_then_attrs(
            c,
            addr,
            len,
            "tca_family",
            1,
            &|_, _| Vec::new(),
            names(&xlat::RTNL_TC_ACTION_ATTRS, "TCA_ACT_???"),
            &crate::syscall::netlink::route::tc::tc_action_attr,
        ),
        // RTM_NEWNEIGHTBL, RTM_GETNEIGHTBL, RTM_SETNEIGHTBL.
        64 | 66 | 67 => header_then_attrs(
            c,
            addr,
            len,
            "ndtm_family",
            1,
            &|_, _| Vec::new(),
            names(&xlat::RTNL_NEIGHTBL_ATTRS, "NDTA_???"),
            &ra::neightbl_attr,
        ),
        // RTM_NEWADDRLABEL, RTM_DELADDRLABEL, RTM_GETADDRLABEL.
        72..=74 => {
            let fam = c.read_bytes(addr, 1).map_or(0, |b| b[0]);
            header_then_attrs(
                c,
                addr,
                len,
                "ifal_family",
                IfAddrLblMsg::SIZE as u64,
                &|c, b| {
                    let m = IfAddrLblMsg(b);
                    vec![
                        Field::new("ifal_prefixlen", Value::UInt(m.prefixlen() as u64)),
                        Field::new("ifal_flags", Value::UInt(m.flags() as u64)),
                        Field::new("ifal_index", ifindex_value(c, m.index())),
                        Field::new("ifal_seq", Value::UInt(m.seq() as u64)),
                    ]
                },
                names(&xlat::RTNL_ADDRLABEL_ATTRS, "IFAL_???"),
                &move |c, t, a, l| ra::addrlabel_attr(c, fam, t, a, l),
            )
        }
        // RTM_GETDCB, RTM_SETDCB.
        78 | 79 => header_then_attrs(
            c,
            addr,
            len,
            "dcb_family",
            DcbMsg::SIZE as u64,
            &|c, b| {
                vec![Field::new(
                    "cmd",
                    c.enum_value(DcbMsg(b).cmd() as u64, &xlat::DCB_COMMANDS, "DCB_CMD_???"),
                )]
            },
            names(&xlat::RTNL_DCB_ATTRS, "DCB_ATTR_???"),
            NONE,
        ),
        // RTM_NEWNETCONF, RTM_DELNETCONF, RTM_GETNETCONF.
        80..=82 => header_then_attrs(
            c,
            addr,
            len,
            "ncm_family",
            1,
            &|_, _| Vec::new(),
            names(&xlat::RTNL_NETCONF_ATTRS, "NETCONFA_???"),
            &ra::netconf_attr,
        ),
        // RTM_NEWMDB, RTM_DELMDB, RTM_GETMDB.
        84..=86 => header_then_attrs(
            c,
            addr,
            len,
            "family",
            BrPortMsg::SIZE as u64,
            &|c, b| {
                vec![Field::new(
                    "ifindex",
                    ifindex_value(c, BrPortMsg(b).ifindex()),
                )]
            },
            names(&xlat::RTNL_MDB_ATTRS, "MDBA_???"),
            &ra::mdb_attr,
        ),
        // RTM_NEWNSID, RTM_DELNSID, RTM_GETNSID.
        88..=90 => header_then_attrs(
            c,
            addr,
            len,
            "rtgen_family",
            1,
            &|_, _| Vec::new(),
            names(&xlat::RTNL_NSID_ATTRS, "NETNSA_???"),
            &ra::nsid_attr,
        ),
        // RTM_NEWSTATS, RTM_GETSTATS.
        92 | 94 => header_then_attrs(
            c,
            addr,
            len,
            "family",
            IfStatsMsg::SIZE as u64,
            &|c, b| {
                let m = IfStatsMsg(b);
                let mut f = Vec::new();
                if m.pad1() != 0 {
                    f.push(Field::new("pad1", Value::Hex(m.pad1() as u64)));
                }
                let pad2 = m.pad2();
                if pad2 != 0 {
                    f.push(Field::new("pad2", Value::Hex(pad2 as u64)));
                }
                f.push(Field::new("ifindex", ifindex_value(c, m.ifindex())));
                f.push(Field::new(
                    "filter_mask",
                    crate::syscall::netlink::sock_diag::bit_flags(
                        c,
                        m.filter_mask() as u64,
                        0,
                        IFSTATS_FILTER_BITS,
                        "1<<IFLA_STATS_???",
                    ),
                ));
                f
            },
            names(&xlat::IFSTATS_ATTRS, "IFLA_STATS_???"),
            &crate::syscall::netlink::route::stats::stats_attr,
        ),
        // RTM_NEWCACHEREPORT.
        96 => {
            let Some(f0) = c.read_bytes(addr, 1) else {
                return Some(vec![Value::Unreadable(addr)]);
            };
            let fv = match xlat::RTNL_FAMILY.lookup(f0[0] as u64) {
                Some(_) => c.enum_value(f0[0] as u64, &xlat::RTNL_FAMILY, ""),
                None => c.enum_value(f0[0] as u64, &xlat::SOCKET_FAMILIES, "RTNL_FAMILY_???"),
            };
            let mut out = vec![Value::structure(vec![Field::new("rtgen_family", fv)])];
            if len > RTGENMSG_ALIGNED {
                out.push(ra::cachereport_attrs(
                    c,
                    f0[0],
                    addr + RTGENMSG_ALIGNED,
                    len - RTGENMSG_ALIGNED,
                ));
            }
            out
        }
        // RTM_NEWNEXTHOP, RTM_DELNEXTHOP, RTM_GETNEXTHOP.
        104..=106 => {
            let fam = c.read_bytes(addr, 1).map_or(0, |b| b[0]);
            header_then_attrs(
                c,
                addr,
                len,
                "nh_family",
                NhMsg::SIZE as u64,
                &|c, b| {
                    let m = NhMsg(b);
                    let mut f = vec![
                        Field::new(
                            "nh_scope",
                            c.enum_value(m.scope() as u64, &xlat::ROUTING_SCOPES, ""),
                        ),
                        Field::new(
                            "nh_protocol",
                            c.enum_value(
                                m.protocol() as u64,
                                &xlat::ROUTING_PROTOCOLS,
                                "RTPROT_???",
                            ),
                        ),
                    ];
                    if m.resvd() != 0 {
                        f.push(Field::new("resvd", Value::Hex(m.resvd() as u64)));
                    }
                    f.push(Field::new(
                        "nh_flags",
                        xflags(
                            c,
                            m.flags() as u64,
                            &xlat::ROUTE_NEXTHOP_FLAGS,
                            "RTNH_F_???",
                        ),
                    ));
                    f
                },
                names(&xlat::RTNL_NEXTHOP_ATTRS, "NHA_???"),
                &move |c, t, a, l| ra::nexthop_attr(c, fam, t, a, l),
            )
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::netlink::netlink_value;
    use crate::syscall::testutil::run;
    use crate::syscall::{Ctx, RetFmt, Step};

    /// `x(buf, len)` with the buffer as NETLINK_ROUTE messages.
    fn route(c: &mut Ctx) -> Step {
        let v = netlink_value(c, 0, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    /// A message of type `ty` with NLM_F_DUMP and `payload`.
    fn msg(ty: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = ((16 + payload.len()) as u32).to_le_bytes().to_vec();
        v.extend(ty.to_le_bytes());
        v.extend(0x300u16.to_le_bytes());
        v.extend([0; 8]);
        v.extend(payload);
        v
    }

    fn nla(ty: u16, data: &[u8]) -> Vec<u8> {
        let mut v = ((4 + data.len()) as u16).to_le_bytes().to_vec();
        v.extend(ty.to_le_bytes());
        v.extend(data);
        v
    }

    #[test]
    fn neighbour_header_and_unknown_attribute() {
        let mut m = FakeMemory::default();
        let mut p = vec![1, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0x08, 0];
        p.extend(nla(0x3fff, b"abcd"));
        let b = msg(30, &p);
        let a = m.put(&b);
        assert_eq!(
            run(route, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=36, nlmsg_type=RTM_GETNEIGH, nlmsg_flags=NLM_F_DUMP, nlmsg_seq=0, \
             nlmsg_pid=0}, {ndm_family=AF_UNIX, ndm_ifindex=0, ndm_state=NUD_PERMANENT, \
             ndm_flags=NTF_PROXY, ndm_type=RTN_UNSPEC}, [{nla_len=8, nla_type=0x3fff /* NDA_??? \
             */}, \"\\x61\\x62\\x63\\x64\"]]) = 0"
        );
    }

    #[test]
    fn short_header_and_rtgenmsg() {
        let mut m = FakeMemory::default();
        // A tcmsg shorter than its structure.
        let b = msg(38, &[1, 0, 0, 0]);
        let a = m.put(&b);
        assert_eq!(
            run(route, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=20, nlmsg_type=RTM_GETQDISC, nlmsg_flags=NLM_F_DUMP, nlmsg_seq=0, \
             nlmsg_pid=0}, {tcm_family=AF_UNIX, ...}]) = 0"
        );
        // RTM_GETNSID with NETNSA_NSID.
        let mut p = vec![1, 0, 0, 0];
        p.extend(nla(1, &(-1i32).to_le_bytes()));
        let b = msg(90, &p);
        let a = m.put(&b);
        assert_eq!(
            run(route, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=28, nlmsg_type=RTM_GETNSID, nlmsg_flags=NLM_F_DUMP, nlmsg_seq=0, \
             nlmsg_pid=0}, {rtgen_family=AF_UNIX}, [{nla_len=8, nla_type=NETNSA_NSID}, -1]]) = 0"
        );
    }

    #[test]
    fn mdb_router_port_and_tc_stats() {
        let mut m = FakeMemory::default();
        let mut port = 0u32.to_le_bytes().to_vec();
        port.extend(nla(2, &[0]));
        port.extend([0; 3]);
        let mut p = vec![1, 0, 0, 0, 0, 0, 0, 0];
        p.extend(nla(2, &nla(1, &port)));
        let b = msg(86, &p);
        let a = m.put(&b);
        assert_eq!(
            run(route, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=44, nlmsg_type=RTM_GETMDB, nlmsg_flags=NLM_F_DUMP, nlmsg_seq=0, \
             nlmsg_pid=0}, {family=AF_UNIX, ifindex=0}, [{nla_len=20, nla_type=MDBA_ROUTER}, \
             [{nla_len=16, nla_type=MDBA_ROUTER_PORT}, 0, [{nla_len=5, \
             nla_type=MDBA_ROUTER_PATTR_TYPE}, MDB_RTR_TYPE_DISABLED]]]]) = 0"
        );
        let mut basic = 5u64.to_le_bytes().to_vec();
        basic.extend(6u32.to_le_bytes());
        let mut p = vec![1, 0, 0, 0];
        p.extend([0; 16]);
        p.extend(nla(7, &nla(1, &basic)));
        let b = msg(38, &p);
        let a = m.put(&b);
        assert_eq!(
            run(route, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=56, nlmsg_type=RTM_GETQDISC, nlmsg_flags=NLM_F_DUMP, nlmsg_seq=0, \
             nlmsg_pid=0}, {tcm_family=AF_UNIX, tcm_ifindex=0, tcm_handle=0, tcm_parent=0, \
             tcm_info=0}, [{nla_len=20, nla_type=TCA_STATS2}, [{nla_len=16, \
             nla_type=TCA_STATS_BASIC}, {bytes=5, packets=6}]]]) = 0"
        );
    }

    #[test]
    fn bridge_port_id_and_multipath() {
        let mut m = FakeMemory::default();
        // RTM_GETLINK of AF_BRIDGE with IFLA_PROTINFO → IFLA_BRPORT_ROOT_ID.
        let mut p = vec![7, 0, 0, 0];
        p.extend([0; 12]);
        let id = [1, 2, 0xab, 0xcd, 0xef, 0, 0, 1];
        p.extend(nla(12, &nla(13, &id)));
        let b = msg(18, &p);
        let a = m.put(&b);
        let out = run(route, "x", &[a, b.len() as u64], 0, &mut m);
        assert!(
            out.ends_with(
                "[{nla_len=16, nla_type=IFLA_PROTINFO}, [{nla_len=12, \
                 nla_type=IFLA_BRPORT_ROOT_ID}, {prio=[1, 2], addr=ab:cd:ef:00:00:01}]]]) = 0"
            ),
            "{out}"
        );
        // RTM_GETROUTE with RTA_MULTIPATH of one next hop and RTA_DST.
        let mut p = vec![2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut nh = vec![16, 0, 1, 3, 0, 0, 0, 0];
        nh.extend(nla(1, &[10, 0, 0, 1]));
        p.extend(nla(9, &nh));
        let b = msg(26, &p);
        let a = m.put(&b);
        let out = run(route, "x", &[a, b.len() as u64], 0, &mut m);
        assert!(
            out.ends_with(
                "[{nla_len=20, nla_type=RTA_MULTIPATH}, [{rtnh_len=16, rtnh_flags=RTNH_F_DEAD, \
                 rtnh_hops=3, rtnh_ifindex=0}, [{nla_len=8, nla_type=RTA_DST}, \
                 inet_addr(\"10.0.0.1\")]]]]) = 0"
            ),
            "{out}"
        );
    }
}
