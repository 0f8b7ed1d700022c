//! `IFLA_LINKINFO` of NETLINK_ROUTE links (strace's `rtnl_link.c`): the
//! kind and slave kind, and the data each kind selects (bridge and tun
//! link attributes, bridge port attributes of a bridge slave, the CAN
//! device statistics in `IFLA_INFO_XSTATS`); and `IFLA_AF_SPEC` of AF_BRIDGE
//! links (bridge flags, mode, VLAN info and VLAN tunnel info).

use crate::syscall::layout::kstruct;
use crate::syscall::netlink::attr::{
    attrs_value, flags_with_dflt, nla_enum, nla_flags, nla_hwaddr, nla_ifindex, nla_inet, nla_int,
    nla_str, nla_u, AttrNames,
};
use crate::syscall::netlink::route::link_nested::{bridge_id, brport_attrs, nla_clock_t};
use crate::syscall::netlink::sock_diag::bit_flags;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat};
use std::borrow::Cow;
use std::cell::RefCell;

/// strace's `IFNAMSIZ`-sized kind buffers.
const KIND_SIZE: u64 = 16;

fn names(table: &'static Xlat, dflt: &'static str) -> AttrNames {
    AttrNames { table, dflt }
}

/// The kind a `IFLA_INFO_KIND`/`IFLA_INFO_SLAVE_KIND` payload names, as
/// strace keeps it: empty when too long, unreadable or not NUL-terminated.
fn kind_of(c: &mut Ctx, addr: u64, len: u64) -> Vec<u8> {
    if len >= KIND_SIZE {
        return Vec::new();
    }
    match c.read_bytes(addr, len as usize) {
        Some(b) => b.split(|&x| x == 0).next().unwrap_or(&[]).to_vec(),
        None => Vec::new(),
    }
}

/// `decode_nla_uid`/`gid`: `-1` for the all-ones id.
fn nla_id(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_int(c, addr, len, 4, |_, v| {
        if v == u32::MAX as u64 {
            Value::Int(-1)
        } else {
            Value::UInt(v)
        }
    })
}

/// `decode_nla_x16`.
fn nla_x16(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_int(c, addr, len, 2, |_, v| Value::Hex(v))
}

/// `decode_nla_ether_proto`: `htons(ETH_P_…)`.
fn nla_ether_proto(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if !(2..=8).contains(&len) {
        return None;
    }
    nla_int(c, addr, len, 2, |c, v| {
        let p = (v as u16).swap_bytes() as u64;
        Value::Call(
            Cow::Borrowed("htons"),
            vec![c.enum_value(p, &xlat::ETHERNET_PROTOCOLS, "ETH_P_???")],
        )
    })
}

/// strace's `rtnl_ifla_br_boolopt_flags`: bit `1<<opt` per option.
const BOOLOPT_BITS: &[&str] = &[
    "1<<BR_BOOLOPT_NO_LL_LEARN",
    "1<<BR_BOOLOPT_MCAST_VLAN_SNOOPING",
    "1<<BR_BOOLOPT_MST_ENABLE",
];

kstruct! {
    /// `struct br_boolopt_multi`.
    struct BrBooloptMulti size 8 {
        optval: u32 @ 0,
        optmask: u32 @ 4,
    }
}

kstruct! {
    /// `struct bridge_vlan_info`.
    struct BridgeVlanInfo size 4 {
        flags: u16 @ 0,
        vid: u16 @ 2,
    }
}

/// `IFLA_BR_MULTI_BOOLOPT`: `struct br_boolopt_multi`.
fn boolopt(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if len < BrBooloptMulti::SIZE as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, BrBooloptMulti::SIZE) else {
        return Some(Value::Unreadable(addr));
    };
    let o = BrBooloptMulti(&b);
    let f = |c: &Ctx, v: u32| bit_flags(c, v as u64, 0, BOOLOPT_BITS, "1<<BR_BOOLOPT_???");
    Some(Value::structure(vec![
        Field::new("optval", f(c, o.optval())),
        Field::new("optmask", f(c, o.optmask())),
    ]))
}

/// `IFLA_BR_MCAST_QUERIER_STATE`: the `BRIDGE_QUERIER_*` list.
fn querier_state(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(
            &xlat::RTNL_IFLA_BR_MCAST_QUERIER_ATTRS,
            "BRIDGE_QUERIER_???",
        ),
        &|c, ty, a, l| match ty {
            1 => nla_inet(c, a, l, libc::AF_INET as u8),
            2 | 6 => nla_ifindex(c, a, l),
            3 | 7 => nla_clock_t(c, a, l),
            5 => nla_inet(c, a, l, libc::AF_INET6 as u8),
            _ => None,
        },
    )
}

/// An `IFLA_BR_*` attribute (`IFLA_INFO_DATA` of a bridge).
fn bridge_data(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1..=4 | 16..=19 | 30..=35 => nla_clock_t(c, addr, len),
        5 | 13 | 26..=29 => nla_u(c, addr, len, 4),
        6 | 12 | 39 => nla_u(c, addr, len, 2),
        7 | 14 | 15 | 22..=25 | 36..=38 | 41..=45 => nla_u(c, addr, len, 1),
        8 => nla_ether_proto(c, addr, len),
        9 => nla_x16(c, addr, len),
        10 | 11 => bridge_id(c, addr, len),
        20 => nla_hwaddr(c, addr, len),
        46 => boolopt(c, addr, len),
        47 => Some(querier_state(c, addr, len)),
        _ => None,
    }
}

/// An `IFLA_TUN_*` attribute (`IFLA_INFO_DATA` of a tun device).
fn tun_data(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 | 2 => nla_id(c, addr, len),
        3 => nla_enum(c, addr, len, 1, &xlat::TUN_DEVICE_TYPES, "IFF_???"),
        4..=7 => nla_u(c, addr, len, 1),
        8 | 9 => nla_u(c, addr, len, 4),
        _ => None,
    }
}

/// `IFLA_INFO_XSTATS` of a CAN device: `struct can_device_stats`.
fn can_xstats(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    crate::syscall::netlink::route::attrs::fields_struct(
        c,
        addr,
        len,
        &[
            ("bus_error", 4, b'u'),
            ("error_warning", 4, b'u'),
            ("error_passive", 4, b'u'),
            ("bus_off", 4, b'u'),
            ("arbitration_lost", 4, b'u'),
            ("restarts", 4, b'u'),
        ],
    )
}

/// `IFLA_LINKINFO`: the kinds seen earlier in the list pick the decoders
/// of the data attributes after them.
pub(in crate::syscall) fn linkinfo(c: &mut Ctx, addr: u64, len: u64) -> Value {
    let kind = RefCell::new(Vec::new());
    let slave_kind = RefCell::new(Vec::new());
    let dec = |c: &mut Ctx, ty: u16, a: u64, l: u64| -> Option<Value> {
        match ty {
            1 => {
                *kind.borrow_mut() = kind_of(c, a, l);
                nla_str(c, a, l)
            }
            4 => {
                *slave_kind.borrow_mut() = kind_of(c, a, l);
                nla_str(c, a, l)
            }
            2 => match kind.borrow().as_slice() {
                b"bridge" => Some(attrs_value(
                    c,
                    a,
                    l,
                    names(&xlat::RTNL_IFLA_INFO_DATA_BRIDGE_ATTRS, "IFLA_BR_???"),
                    &bridge_data,
                )),
                b"tun" => Some(attrs_value(
                    c,
                    a,
                    l,
                    names(&xlat::RTNL_IFLA_INFO_DATA_TUN_ATTRS, "IFLA_TUN_???"),
                    &tun_data,
                )),
                _ => None,
            },
            3 if kind.borrow().as_slice() == b"can" => can_xstats(c, a, l),
            5 if slave_kind.borrow().as_slice() == b"bridge" => Some(brport_attrs(c, a, l)),
            _ => None,
        }
    };
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_IFLA_INFO_ATTRS, "IFLA_INFO_???"),
        &dec,
    )
}

/// `struct bridge_vlan_info` (`{flags=…, vid=…}`), then any bytes after it
/// as a hex string.
fn vlan_info(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    const SIZE: usize = BridgeVlanInfo::SIZE;
    if len < SIZE as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, SIZE) else {
        return Some(Value::Unreadable(addr));
    };
    let v = BridgeVlanInfo(&b);
    let flags = v.flags() as u64;
    let s = Value::structure(vec![
        Field::new(
            "flags",
            flags_with_dflt(
                c,
                flags,
                &xlat::NL_BRIDGE_VLAN_FLAGS,
                "BRIDGE_VLAN_INFO_???",
            ),
        ),
        Field::new("vid", Value::UInt(v.vid() as u64)),
    ]);
    Some(with_tail(c, s, addr, len, SIZE as u64))
}

/// strace's fixed structure followed by `tprint_array_next()` and the rest
/// of the payload (past `size` bytes) as a hex string.
pub(in crate::syscall) fn with_tail(
    c: &mut Ctx,
    v: Value,
    addr: u64,
    len: u64,
    size: u64,
) -> Value {
    if len <= size {
        return v;
    }
    let tail = crate::syscall::netlink::hexstr_value(c, addr + size, len - size);
    Value::Joined(vec![v, tail], ", ")
}

/// An `IFLA_BRIDGE_VLAN_TUNNEL_*` attribute.
fn vlan_tunnel(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 => nla_u(c, addr, len, 4),
        2 => nla_u(c, addr, len, 2),
        3 => nla_flags(
            c,
            addr,
            len,
            2,
            &xlat::NL_BRIDGE_VLAN_FLAGS,
            "BRIDGE_VLAN_INFO_???",
        ),
        _ => None,
    }
}

/// An `IFLA_BRIDGE_*` attribute (`IFLA_AF_SPEC` of an AF_BRIDGE link).
fn bridge_af(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        0 => nla_flags(
            c,
            addr,
            len,
            2,
            &xlat::RTNL_IFLA_BRIDGE_FLAGS,
            "BRIDGE_FLAGS_???",
        ),
        1 => nla_enum(
            c,
            addr,
            len,
            2,
            &xlat::RTNL_IFLA_BRIDGE_MODES,
            "BRIDGE_MODE_???",
        ),
        2 => vlan_info(c, addr, len),
        3 => Some(attrs_value(
            c,
            addr,
            len,
            names(
                &xlat::RTNL_IFLA_AF_SPEC_BRIDGE_VLAN_TUNNEL_INFO_ATTRS,
                "IFLA_BRIDGE_VLAN_TUNNEL_???",
            ),
            &vlan_tunnel,
        )),
        _ => None,
    }
}

/// `IFLA_AF_SPEC` of an AF_BRIDGE link: `IFLA_BRIDGE_*` attributes rather
/// than a list keyed by address family.
pub(in crate::syscall) fn bridge_af_spec(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_IFLA_AF_SPEC_BRIDGE_ATTRS, "IFLA_BRIDGE_???"),
        &bridge_af,
    )
}

/// `IFLA_AF_SPEC` → AF_MCTP: `IFLA_MCTP_NET`.
pub(in crate::syscall) fn mctp_af_spec(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_IFLA_AF_SPEC_MCTP_ATTRS, "IFLA_MCTP_???"),
        &|c, ty, a, l| if ty == 1 { nla_u(c, a, l, 4) } else { None },
    )
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::netlink::route::link::link_attrs;
    use crate::syscall::testutil::nla;
    use crate::syscall::testutil::run;
    use crate::syscall::{Ctx, RetFmt, Step};

    /// `x(buf, len, family)` with the buffer as IFLA_* attributes of a link
    /// of `family`.
    fn link(c: &mut Ctx) -> Step {
        let v = link_attrs(c, c.arg_ulong(2) as u8, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    #[test]
    fn kind_picks_the_data_decoder() {
        let mut m = FakeMemory::default();
        // A bridge: STP state, VLAN protocol 802.1Q, a querier address.
        let mut data = nla(5, &7u32.to_le_bytes());
        data.extend(nla(8, &[0x81, 0x00]));
        data.extend(nla(47, &nla(1, &[127, 0, 0, 1])));
        let mut info = nla(1, b"bridge\0");
        info.extend(nla(2, &data));
        let b = nla(18, &info);
        let a = m.put(&b);
        assert_eq!(
            run(link, "x", &[a, b.len() as u64, 0], 0, &mut m),
            "x([{nla_len=48, nla_type=IFLA_LINKINFO}, [[{nla_len=11, \
             nla_type=IFLA_INFO_KIND}, \"bridge\"], [{nla_len=32, nla_type=IFLA_INFO_DATA}, \
             [[{nla_len=8, nla_type=IFLA_BR_STP_STATE}, 7], [{nla_len=6, \
             nla_type=IFLA_BR_VLAN_PROTOCOL}, htons(ETH_P_8021Q)], [{nla_len=12, \
             nla_type=IFLA_BR_MCAST_QUERIER_STATE}, [{nla_len=8, \
             nla_type=BRIDGE_QUERIER_IP_ADDRESS}, inet_addr(\"127.0.0.1\")]]]]]]) = 0"
        );
        // A tun device owned by nobody in particular; an unknown kind's data.
        let mut info = nla(1, b"tun\0");
        info.extend(nla(2, &nla(1, &u32::MAX.to_le_bytes())));
        let b = nla(18, &info);
        let a = m.put(&b);
        assert_eq!(
            run(link, "x", &[a, b.len() as u64, 0], 0, &mut m),
            "x([{nla_len=24, nla_type=IFLA_LINKINFO}, [[{nla_len=8, nla_type=IFLA_INFO_KIND}, \
             \"tun\"], [{nla_len=12, nla_type=IFLA_INFO_DATA}, [{nla_len=8, \
             nla_type=IFLA_TUN_OWNER}, -1]]]]) = 0"
        );
        let mut info = nla(1, b"veth\0");
        info.extend(nla(2, &[1, 2, 3, 4]));
        let b = nla(18, &info);
        let a = m.put(&b);
        assert!(run(link, "x", &[a, b.len() as u64, 0], 0, &mut m)
            .contains("nla_type=IFLA_INFO_DATA}, \"\\x01\\x02\\x03\\x04\"]"));
    }

    #[test]
    fn bridge_af_spec_and_vlan_info_tail() {
        let mut m = FakeMemory::default();
        let mut spec = nla(0, &2u16.to_le_bytes());
        spec.extend(nla(2, &[1, 0, 5, 0, 0xaa, 0xbb]));
        let b = nla(26, &spec);
        let a = m.put(&b);
        assert_eq!(
            run(
                link,
                "x",
                &[a, b.len() as u64, libc::AF_BRIDGE as u64],
                0,
                &mut m
            ),
            "x([{nla_len=24, nla_type=IFLA_AF_SPEC}, [[{nla_len=6, \
             nla_type=IFLA_BRIDGE_FLAGS}, BRIDGE_FLAGS_SELF], [{nla_len=10, \
             nla_type=IFLA_BRIDGE_VLAN_INFO}, {flags=BRIDGE_VLAN_INFO_MASTER, vid=5}, \
             \"\\xaa\\xbb\"]]]) = 0"
        );
        // The same list on an AF_INET link is keyed by family.
        let b = nla(26, &nla(45, &nla(1, &3u32.to_le_bytes())));
        let a = m.put(&b);
        assert_eq!(
            run(
                link,
                "x",
                &[a, b.len() as u64, libc::AF_INET as u64],
                0,
                &mut m
            ),
            "x([{nla_len=16, nla_type=IFLA_AF_SPEC}, [{nla_len=12, nla_type=AF_MCTP}, \
             [{nla_len=8, nla_type=IFLA_MCTP_NET}, 3]]]) = 0"
        );
    }
}
