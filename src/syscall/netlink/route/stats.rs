//! The `IFLA_STATS_*` attributes of RTM_NEWSTATS/RTM_GETSTATS (strace's
//! `rtnl_stats.c`): 64-bit link statistics, the bridge and bond extended
//! statistics (`IFLA_STATS_LINK_XSTATS[_SLAVE]`), offload statistics and
//! the per-family list (`IFLA_STATS_AF_SPEC`, of which AF_MPLS is decoded).

use crate::syscall::layout::{kstruct, le, nth};
use crate::syscall::netlink::attr::{
    attrs_value, flags_with_dflt, indexed_array, nla_u, AttrNames,
};
use crate::syscall::netlink::hexstr_value;
use crate::syscall::netlink::route::link::link_stats;
use crate::syscall::netlink::route::link_info::with_tail;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat};

kstruct! {
    /// `struct bridge_vlan_xstats` past its four 64-bit counters.
    struct BridgeVlanXstats size 40 {
        vid: u16 @ 32,
        flags: u16 @ 34,
        pad2: u32 @ 36,
    }
}

/// `AF_MPLS`.
const AF_MPLS: u16 = 28;

fn names(table: &'static Xlat, dflt: &'static str) -> AttrNames {
    AttrNames { table, dflt }
}

/// A structure of `fields` 64-bit counters (at least `len` bytes long), the
/// bytes after it as a hex string; `extra` adds fields from the bytes.
fn counters(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    fields: &[&'static str],
    size: usize,
    extra: &dyn Fn(&mut Ctx, &[u8]) -> Vec<Field>,
) -> Option<Value> {
    if len < size as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, size) else {
        return Some(Value::Unreadable(addr));
    };
    let mut f: Vec<Field> = fields
        .iter()
        .enumerate()
        .map(|(i, n)| Field::new(n, Value::UInt(nth::<u64>(&b, i))))
        .collect();
    f.extend(extra(c, &b));
    Some(with_tail(c, Value::structure(f), addr, len, size as u64))
}

/// `BRIDGE_XSTATS_VLAN`: `struct bridge_vlan_xstats`.
fn bridge_vlan(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    let names = ["rx_bytes", "rx_packets", "tx_bytes", "tx_packets"];
    counters(c, addr, len, &names, BridgeVlanXstats::SIZE, &|c, b| {
        let x = BridgeVlanXstats(b);
        let mut f = vec![
            Field::new("vid", Value::UInt(x.vid() as u64)),
            Field::new(
                "flags",
                flags_with_dflt(
                    c,
                    x.flags() as u64,
                    &xlat::NL_BRIDGE_VLAN_FLAGS,
                    "BRIDGE_VLAN_INFO_???",
                ),
            ),
        ];
        let pad2 = x.pad2();
        if pad2 != 0 {
            f.push(Field::new("pad2", Value::Hex(pad2 as u64)));
        }
        f
    })
}

/// `BRIDGE_XSTATS_MCAST`: `struct br_mcast_stats`, pairs indexed by
/// direction and two error counters.
fn bridge_mcast(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    const SIZE: usize = 240;
    // (name, offset, pair of directions?)
    const FIELDS: &[(&str, usize, bool)] = &[
        ("igmp_v1queries", 0, true),
        ("igmp_v2queries", 16, true),
        ("igmp_v3queries", 32, true),
        ("igmp_leaves", 48, true),
        ("igmp_v1reports", 64, true),
        ("igmp_v2reports", 80, true),
        ("igmp_v3reports", 96, true),
        ("igmp_parse_errors", 112, false),
        ("mld_v1queries", 120, true),
        ("mld_v2queries", 136, true),
        ("mld_leaves", 152, true),
        ("mld_v1reports", 168, true),
        ("mld_v2reports", 184, true),
        ("mld_parse_errors", 200, false),
        ("mcast_bytes", 208, true),
        ("mcast_packets", 224, true),
    ];
    if len < SIZE as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, SIZE) else {
        return Some(Value::Unreadable(addr));
    };
    let mut f = Vec::new();
    for &(n, o, pair) in FIELDS {
        let v = if pair {
            indexed_array(
                c,
                addr + o as u64,
                16,
                8,
                false,
                &xlat::IFSTATS_XSTATS_BRIDGE_MCAST_INDICES,
                "BR_MCAST_DIR_???",
            )
            .unwrap_or(Value::Unknown)
        } else {
            Value::UInt(le::<u64>(&b, o))
        };
        f.push(Field::new(n, v));
    }
    Some(with_tail(c, Value::structure(f), addr, len, SIZE as u64))
}

/// A `BRIDGE_XSTATS_*` attribute.
fn bridge_xstats(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => bridge_vlan(c, addr, len),
        2 => bridge_mcast(c, addr, len),
        4 => {
            let names = [
                "transition_blk",
                "transition_fwd",
                "rx_bpdu",
                "tx_bpdu",
                "rx_tcn",
                "tx_tcn",
            ];
            counters(c, addr, len, &names, 48, &|_, _| Vec::new())
        }
        _ => None,
    }
}

/// A `BOND_XSTATS_*` attribute: the 802.3ad counters.
fn bond_xstats(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    (ty == 1).then(|| {
        // strace names unknown 802.3ad counters `BOND_XSTATS_???`.
        attrs_value(
            c,
            addr,
            len,
            names(&xlat::IFSTATS_XSTATS_BOND_3AD_ATTRS, "BOND_XSTATS_???"),
            &|c, t, a, l| if t <= 8 { nla_u(c, a, l, 8) } else { None },
        )
    })
}

/// `IFLA_STATS_LINK_XSTATS[_SLAVE]`: `LINK_XSTATS_TYPE_*` lists.
fn link_xstats(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::IFSTATS_XSTATS_TYPE_ATTRS, "LINK_XSTATS_TYPE_???"),
        &|c, ty, a, l| match ty {
            1 => Some(attrs_value(
                c,
                a,
                l,
                names(&xlat::IFSTATS_XSTATS_BRIDGE_ATTRS, "BRIDGE_XSTATS_???"),
                &bridge_xstats,
            )),
            2 => Some(attrs_value(
                c,
                a,
                l,
                names(&xlat::IFSTATS_XSTATS_BOND_ATTRS, "BOND_XSTATS_???"),
                &bond_xstats,
            )),
            _ => None,
        },
    )
}

/// `IFLA_STATS_AF_SPEC` → AF_MPLS: `MPLS_STATS_LINK`.
fn mpls(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::IFSTATS_AF_SPEC_MPLS_ATTRS, "MPLS_STATS_???"),
        &|c, ty, a, l| {
            let names = [
                "rx_packets",
                "tx_packets",
                "rx_bytes",
                "tx_bytes",
                "rx_errors",
                "tx_errors",
                "rx_dropped",
                "tx_dropped",
                "rx_noroute",
            ];
            (ty == 1)
                .then(|| counters(c, a, l, &names, 72, &|_, _| Vec::new()))
                .flatten()
        },
    )
}

/// An `IFLA_STATS_*` attribute.
pub(in crate::syscall) fn stats_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => link_stats(c, addr, len, 8),
        2 | 3 => Some(link_xstats(c, addr, len)),
        4 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::IFSTATS_OFFLOAD_ATTRS, "IFLA_OFFLOAD_XSTATS_???"),
            &|c, t, a, l| if t == 1 { link_stats(c, a, l, 8) } else { None },
        )),
        // Keyed by family; strace compares the family as one byte.
        5 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::SOCKET_FAMILIES, "AF_???"),
            &|c, t, a, l| {
                Some(if t & 0xff == AF_MPLS {
                    mpls(c, a, l)
                } else {
                    hexstr_value(c, a, l)
                })
            },
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ctx::DecodeOpts;
    use crate::syscall::testutil::nla;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::{RetFmt, Step};

    /// `x(buf, len)` with the buffer as IFLA_STATS_* attributes.
    fn stats(c: &mut Ctx) -> Step {
        let v = attrs_value(
            c,
            c.arg_ulong(0),
            c.arg_ulong(1),
            names(&xlat::IFSTATS_ATTRS, "IFLA_STATS_???"),
            &stats_attr,
        );
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    #[test]
    fn bridge_vlan_xstats_with_tail() {
        let mut m = FakeMemory::default();
        let mut st: Vec<u8> = (1..=4u64).flat_map(|i| i.to_le_bytes()).collect();
        st.extend(10u16.to_le_bytes());
        st.extend(2u16.to_le_bytes());
        st.extend(0u32.to_le_bytes());
        st.extend([0xfe, 0xed, 0, 0]);
        let b = nla(2, &nla(1, &nla(1, &st)));
        let a = m.put(&b);
        let want = "x([{nla_len=56, nla_type=IFLA_STATS_LINK_XSTATS}, [{nla_len=52, \
             nla_type=LINK_XSTATS_TYPE_BRIDGE}, [{nla_len=48, nla_type=BRIDGE_XSTATS_VLAN}, \
             {rx_bytes=1, rx_packets=2, tx_bytes=3, tx_packets=4, vid=10, \
             flags=BRIDGE_VLAN_INFO_PVID}, \"\\xfe\\xed\\x00\\x00\"]]]) = 0";
        assert_eq!(run(stats, "x", &[a, b.len() as u64], 0, &mut m), want);
        let raw = DecodeOpts {
            xlat_style: 1,
            ..DecodeOpts::default()
        };
        let out = run_with(stats, "x", &[a, b.len() as u64], 0, &mut m, &raw);
        assert!(out.contains("vid=10, flags=0x2}"), "{out}");
    }

    #[test]
    fn mpls_af_spec_and_stats64_sizes() {
        let mut m = FakeMemory::default();
        let st: Vec<u8> = (0..9u64).flat_map(|i| i.to_le_bytes()).collect();
        let mut b = nla(5, &nla(28, &nla(1, &st)));
        // 24 counters exactly: up to rx_nohandler; 24 and a half: not decoded.
        b.extend(nla(1, &[0; 192]));
        b.extend(nla(1, &[0; 196]));
        let a = m.put(&b);
        let out = run(stats, "x", &[a, b.len() as u64], 0, &mut m);
        assert!(
            out.starts_with(
                "x([[{nla_len=84, nla_type=IFLA_STATS_AF_SPEC}, [{nla_len=80, \
                 nla_type=AF_MPLS}, [{nla_len=76, nla_type=MPLS_STATS_LINK}, {rx_packets=0, \
                 tx_packets=1, rx_bytes=2, tx_bytes=3, rx_errors=4, tx_errors=5, \
                 rx_dropped=6, tx_dropped=7, rx_noroute=8}]]], [{nla_len=196, \
                 nla_type=IFLA_STATS_LINK_64}, {rx_packets=0,"
            ),
            "{out}"
        );
        assert!(
            out.contains("rx_nohandler=0}], [{nla_len=200, nla_type=IFLA_STATS_LINK_64}, \"\\x00"),
            "{out}"
        );
    }
}
