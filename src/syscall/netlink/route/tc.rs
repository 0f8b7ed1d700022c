//! Traffic control attributes of NETLINK_ROUTE (strace's `rtnl_tc.c` and
//! `rtnl_tc_action.c`): `TCA_*` after a `tcmsg` (statistics, rate
//! estimator, size table) and `TCA_ACT_*` after a `tcamsg`.

use crate::syscall::netlink::attr::{attrs_value, int_array, nla_flags, nla_str, nla_u, AttrNames};
use crate::syscall::netlink::route::attrs::fields_struct;
use crate::syscall::{Ctx, Value};
use rtrace_arch::xlat::{self, Xlat};

fn names(table: &'static Xlat, dflt: &'static str) -> AttrNames {
    AttrNames { table, dflt }
}

/// `TCA_STATS`: `struct tc_stats` up to `backlog`.
fn tc_stats(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    let mut spec = vec![("bytes", 8, b'u')];
    for n in [
        "packets",
        "drops",
        "overlimits",
        "bps",
        "pps",
        "qlen",
        "backlog",
    ] {
        spec.push((n, 4, b'u'));
    }
    fields_struct(c, addr, len, &spec)
}

/// `decode_nla_tc_stats`: the `TCA_STATS_*` attributes (`TCA_STATS2`,
/// `TCA_ACT_STATS`).
fn nla_tc_stats(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_TCA_STATS_ATTRS, "TCA_STATS_???"),
        &|c, t, a, l| match t {
            // TCA_STATS_BASIC, TCA_STATS_BASIC_HW.
            1 | 7 => fields_struct(c, a, l, &[("bytes", 8, b'u'), ("packets", 4, b'u')]),
            2 => fields_struct(c, a, l, &[("bps", 4, b'u'), ("pps", 4, b'u')]),
            3 => fields_struct(
                c,
                a,
                l,
                &[
                    ("qlen", 4, b'u'),
                    ("backlog", 4, b'u'),
                    ("drops", 4, b'u'),
                    ("requeues", 4, b'u'),
                    ("overlimits", 4, b'u'),
                ],
            ),
            5 => fields_struct(c, a, l, &[("bps", 8, b'u'), ("pps", 8, b'u')]),
            8 => nla_u(c, a, l, 8),
            _ => None,
        },
    )
}

/// `TCA_STAB`: the size table's spec and data.
fn tca_stab(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_TCA_STAB_ATTRS, "TCA_STAB_???"),
        &|c, t, a, l| match t {
            1 => fields_struct(
                c,
                a,
                l,
                &[
                    ("cell_log", 1, b'u'),
                    ("size_log", 1, b'u'),
                    ("cell_align", 2, b'd'),
                    ("overhead", 4, b'd'),
                    ("linklayer", 4, b'u'),
                    ("mpu", 4, b'u'),
                    ("mtu", 4, b'u'),
                    ("tsize", 4, b'u'),
                ],
            ),
            2 => int_array(c, a, l, 2, false, None),
            _ => None,
        },
    )
}

/// A `TCA_*` attribute.
pub(in crate::syscall) fn tc_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        // TCA_KIND.
        1 => nla_str(c, addr, len),
        3 => tc_stats(c, addr, len),
        // TCA_RATE.
        5 => fields_struct(
            c,
            addr,
            len,
            &[("interval", 1, b'd'), ("ewma_log", 1, b'u')],
        ),
        7 => Some(nla_tc_stats(c, addr, len)),
        8 => Some(tca_stab(c, addr, len)),
        // TCA_FCNT, TCA_CHAIN, TCA_INGRESS_BLOCK, TCA_EGRESS_BLOCK, TCA_DUMP_FLAGS.
        6 | 11 | 13 | 14 | 15 => nla_u(c, addr, len, 4),
        // TCA_HW_OFFLOAD.
        12 => nla_u(c, addr, len, 1),
        _ => None,
    }
}

/// A `TCA_ACT_*` attribute.
pub(in crate::syscall) fn tc_action_attr(
    c: &mut Ctx,
    ty: u16,
    addr: u64,
    len: u64,
) -> Option<Value> {
    match ty {
        // TCA_ACT_KIND.
        1 => nla_str(c, addr, len),
        // TCA_ACT_INDEX, TCA_ACT_IN_HW_COUNT.
        3 | 10 => nla_u(c, addr, len, 4),
        4 => Some(nla_tc_stats(c, addr, len)),
        7 => nla_flags(
            c,
            addr,
            len,
            4,
            &xlat::RTNL_TCA_ACT_FLAGS,
            "TCA_ACT_FLAGS_???",
        ),
        8 | 9 => nla_flags(
            c,
            addr,
            len,
            4,
            &xlat::RTNL_TCA_ACT_HW_STATS,
            "TCA_ACT_HW_STATS_???",
        ),
        _ => None,
    }
}
