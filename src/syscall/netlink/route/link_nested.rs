//! Nested `IFLA_*` attribute lists of links (strace's `rtnl_link.c`):
//! bridge port attributes (`IFLA_PROTINFO` of AF_BRIDGE links), port
//! profiles (`IFLA_PORT_SELF`, `IFLA_VF_PORTS`), `IFLA_PROTO_DOWN_REASON`,
//! `IFLA_PROP_LIST`, `IFLA_EVENT` and the VF list (`IFLA_VFINFO_LIST`).

use crate::syscall::layout::kstruct;
use crate::syscall::netlink::attr::{
    attrs_value, mac_value, nla_enum, nla_ifindex, nla_int, nla_str, nla_u, AttrNames,
};
use crate::syscall::netlink::route::attrs::fields_struct;
use crate::syscall::printers::hex_quoted;
use crate::syscall::signal::clock_t_styled;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat};

kstruct! {
    /// `struct ifla_bridge_id`.
    struct IflaBridgeId size 8 {
        prio: [u8; 2] @ 0,
        addr: [u8; 6] @ 2,
    }
}

kstruct! {
    /// `struct ifla_port_vsi`.
    struct IflaPortVsi size 8 {
        vsi_mgr_id: u8 @ 0,
        vsi_type_id: [u8; 3] @ 1,
        vsi_type_version: u8 @ 4,
        pad: [u8; 3] @ 5,
    }
}

kstruct! {
    /// `struct ifla_vf_mac`.
    struct IflaVfMac size 36 {
        vf: u32 @ 0,
        mac: [u8; 32] @ 4,
    }
}

kstruct! {
    /// `struct ifla_vf_broadcast`.
    struct IflaVfBroadcast size 32 {
        broadcast: [u8; 32] @ 0,
    }
}

kstruct! {
    /// `struct ifla_vf_link_state`.
    struct IflaVfLinkState size 8 {
        vf: u32 @ 0,
        link_state: u32 @ 4,
    }
}

kstruct! {
    /// `struct ifla_vf_vlan_info`.
    struct IflaVfVlanInfo size 16 {
        vf: u32 @ 0,
        vlan: u32 @ 4,
        qos: u32 @ 8,
        vlan_proto: be16 @ 12,
    }
}

fn names(table: &'static Xlat, dflt: &'static str) -> AttrNames {
    AttrNames { table, dflt }
}

/// `decode_nla_x16`/`x32`: the value in hex.
fn nla_x(c: &mut Ctx, addr: u64, len: u64, size: usize) -> Option<Value> {
    nla_int(c, addr, len, size, |_, v| Value::Hex(v))
}

/// `decode_nla_clock_t`: up to 8 bytes of clock ticks.
pub(in crate::syscall) fn nla_clock_t(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if len > 8 {
        return None;
    }
    nla_int(c, addr, len, len as usize, |c, v| {
        clock_t_styled(c.opts.xlat_style, v)
    })
}

/// `struct ifla_bridge_id`: `{prio=[a, b], addr=MAC}`.
pub(in crate::syscall) fn bridge_id(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if len < IflaBridgeId::SIZE as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, IflaBridgeId::SIZE) else {
        return Some(Value::Unreadable(addr));
    };
    let id = IflaBridgeId(&b);
    let prio = id.prio().iter().map(|&p| Value::UInt(p as u64)).collect();
    Some(Value::structure(vec![
        Field::new("prio", Value::Array(prio, false)),
        Field::new("addr", mac_value(c, &id.addr())),
    ]))
}

/// An `IFLA_BRPORT_*` attribute.
fn brport(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        1 | 4..=12 | 19 | 20 | 25 | 27..=30 | 32 | 33 | 35 | 36 | 39 => nla_u(c, addr, len, 1),
        2 | 15..=18 => nla_u(c, addr, len, 2),
        3 | 37 | 38 => nla_u(c, addr, len, 4),
        13 | 14 => bridge_id(c, addr, len),
        21..=23 => nla_clock_t(c, addr, len),
        31 => nla_x(c, addr, len, 2),
        34 => nla_ifindex(c, addr, len),
        _ => None,
    }
}

/// The bridge port attributes of an AF_BRIDGE link's `IFLA_PROTINFO`.
pub(in crate::syscall) fn brport_attrs(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_IFLA_BRPORT_ATTRS, "IFLA_BRPORT_???"),
        &brport,
    )
}

/// `struct ifla_port_vsi`.
fn port_vsi(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if len < IflaPortVsi::SIZE as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, IflaPortVsi::SIZE) else {
        return Some(Value::Unreadable(addr));
    };
    let v = IflaPortVsi(&b);
    let mut f = vec![
        Field::new("vsi_mgr_id", Value::UInt(v.vsi_mgr_id() as u64)),
        Field::new(
            "vsi_type_id",
            Value::sym_owned(hex_quoted(&v.vsi_type_id())),
        ),
        Field::new("vsi_type_version", Value::UInt(v.vsi_type_version() as u64)),
    ];
    if v.pad().iter().any(|&x| x != 0) {
        f.push(Field::new("pad", Value::sym_owned(hex_quoted(&v.pad()))));
    }
    Some(Value::structure(f))
}

/// `IFLA_PORT_SELF` and each `IFLA_VF_PORT`: the `IFLA_PORT_*` list.
pub(in crate::syscall) fn port_attrs(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_IFLA_PORT_ATTRS, "IFLA_PORT_???"),
        &|c, ty, a, l| match ty {
            1 => nla_u(c, a, l, 4),
            2 => nla_str(c, a, l),
            3 => port_vsi(c, a, l),
            6 => nla_u(c, a, l, 1),
            7 => nla_u(c, a, l, 2),
            _ => None,
        },
    )
}

/// `IFLA_VF_PORTS`: `IFLA_VF_PORT` entries.
pub(in crate::syscall) fn vf_ports(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_IFLA_VF_PORT_ATTRS, "IFLA_VF_PORT_???"),
        &|c, ty, a, l| (ty == 1).then(|| port_attrs(c, a, l)),
    )
}

/// `IFLA_PROTO_DOWN_REASON`: the mask and value in hex.
pub(in crate::syscall) fn proto_down_reason(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(
            &xlat::RTNL_IFLA_PROTO_DOWN_REASON_ATTRS,
            "IFLA_PROTO_DOWN_REASON_???",
        ),
        &|c, ty, a, l| match ty {
            1 | 2 => nla_x(c, a, l, 4),
            _ => None,
        },
    )
}

/// `IFLA_PROP_LIST`: link attributes of which only `IFLA_ALT_IFNAME` is
/// decoded.
pub(in crate::syscall) fn prop_list(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_LINK_ATTRS, "IFLA_???"),
        &|c, ty, a, l| if ty == 53 { nla_str(c, a, l) } else { None },
    )
}

/// `IFLA_EVENT`.
pub(in crate::syscall) fn event(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_enum(c, addr, len, 4, &xlat::RTNL_IFLA_EVENTS, "IFLA_EVENT_???")
}

/// A MAC array of `n` bytes after a `u32 vf` (`struct ifla_vf_mac`) or
/// alone (`struct ifla_vf_broadcast`).
fn vf_mac(c: &mut Ctx, addr: u64, len: u64, with_vf: bool) -> Option<Value> {
    let size = if with_vf {
        IflaVfMac::SIZE
    } else {
        IflaVfBroadcast::SIZE
    };
    if len < size as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, size) else {
        return Some(Value::Unreadable(addr));
    };
    let mut f = Vec::new();
    if with_vf {
        let m = IflaVfMac(&b);
        f.push(Field::new("vf", Value::UInt(m.vf() as u64)));
        f.push(Field::new("mac", mac_value(c, &m.mac())));
    } else {
        let m = IflaVfBroadcast(&b);
        f.push(Field::new("broadcast", mac_value(c, &m.broadcast())));
    }
    Some(Value::structure(f))
}

/// An `IFLA_VF_*` attribute of one VF.
fn vf_info(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    let u32s = |c: &mut Ctx, names: &[&'static str]| {
        let spec: Vec<_> = names.iter().map(|n| (*n, 4, b'u')).collect();
        fields_struct(c, addr, len, &spec)
    };
    match ty {
        1 => vf_mac(c, addr, len, true),
        2 => u32s(c, &["vf", "vlan", "qos"]),
        3 => u32s(c, &["vf", "rate"]),
        4 | 7 | 9 => u32s(c, &["vf", "setting"]),
        5 => {
            if len < IflaVfLinkState::SIZE as u64 {
                return None;
            }
            let Some(b) = c.read_bytes(addr, IflaVfLinkState::SIZE) else {
                return Some(Value::Unreadable(addr));
            };
            let s = IflaVfLinkState(&b);
            Some(Value::structure(vec![
                Field::new("vf", Value::UInt(s.vf() as u64)),
                Field::new(
                    "link_state",
                    c.enum_value(
                        s.link_state() as u64,
                        &xlat::RTNL_IFLA_VF_LINK_STATES,
                        "IFLA_VF_LINK_STATE_???",
                    ),
                ),
            ]))
        }
        6 => u32s(c, &["vf", "min_tx_rate", "max_tx_rate"]),
        8 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::RTNL_IFLA_VF_STATS_ATTRS, "IFLA_VF_STATS_???"),
            &|c, t, a, l| {
                if t != 6 && t <= 8 {
                    nla_u(c, a, l, 8)
                } else {
                    None
                }
            },
        )),
        10 | 11 => match len {
            12 => fields_struct(c, addr, len, &[("vf", 4, b'u'), ("guid", 8, b'x')]),
            16 => fields_struct(
                c,
                addr,
                len,
                &[("vf", 4, b'u'), ("", 4, b'-'), ("guid", 8, b'x')],
            ),
            _ => None,
        },
        12 => Some(attrs_value(
            c,
            addr,
            len,
            names(&xlat::RTNL_IFLA_VF_VLAN_LIST_ATTRS, "IFLA_VF_VLAN_INFO_???"),
            &|c, t, a, l| {
                if t != 1 || l < IflaVfVlanInfo::SIZE as u64 {
                    return None;
                }
                let Some(b) = c.read_bytes(a, IflaVfVlanInfo::SIZE) else {
                    return Some(Value::Unreadable(a));
                };
                let v = IflaVfVlanInfo(&b);
                let proto = v.vlan_proto() as u64;
                Some(Value::structure(vec![
                    Field::new("vf", Value::UInt(v.vf() as u64)),
                    Field::new("vlan", Value::UInt(v.vlan() as u64)),
                    Field::new("qos", Value::UInt(v.qos() as u64)),
                    Field::new(
                        "vlan_proto",
                        Value::Call(
                            std::borrow::Cow::Borrowed("htons"),
                            vec![c.enum_value(proto, &xlat::ETHERNET_PROTOCOLS, "ETH_P_???")],
                        ),
                    ),
                ]))
            },
        )),
        13 => vf_mac(c, addr, len, false),
        _ => None,
    }
}

/// `IFLA_VFINFO_LIST`: `IFLA_VF_INFO` entries.
pub(in crate::syscall) fn vfinfo_list(c: &mut Ctx, addr: u64, len: u64) -> Value {
    attrs_value(
        c,
        addr,
        len,
        names(&xlat::RTNL_IFLA_VFINFO_LIST_ATTRS, "IFLA_VF_INFO_???"),
        &|c, t, a, l| {
            (t == 1).then(|| {
                attrs_value(
                    c,
                    a,
                    l,
                    names(&xlat::RTNL_IFLA_VF_INFO_ATTRS, "IFLA_VF_???"),
                    &vf_info,
                )
            })
        },
    )
}
