//! NETLINK_SOCK_DIAG messages of AF_PACKET (strace's
//! `netlink_packet_diag.c`): `struct packet_diag_req`, and
//! `struct packet_diag_msg` replies with their `PACKET_DIAG_*` attributes
//! (info, multicast list, rings, fanout, uid, memory info). The socket
//! filter (`PACKET_DIAG_FILTER`) prints as a hex string (the classic BPF
//! printer is private to `sockopt.rs`).

use super::netlink_attr::{elem_array, flags_with_dflt, nla_u, AttrNames};
use super::netlink_netlink_diag::{cookie, meminfo};
use super::netlink_route_msgs::header_then_attrs;
use super::printers::hex_quoted;
use super::sockaddr::ifindex_value;
use super::{Ctx, Field, Value};
use rtrace_arch::xlat;

fn le32(b: &[u8], o: usize) -> u64 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as u64
}

fn le16(b: &[u8], o: usize) -> u64 {
    u16::from_le_bytes([b[o], b[o + 1]]) as u64
}

/// `struct packet_diag_info`.
fn info(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if len < 24 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, 24) else {
        return Some(Value::Unreadable(addr));
    };
    Some(Value::structure(vec![
        Field::new("pdi_index", ifindex_value(c, le32(&b, 0) as u32)),
        Field::new(
            "pdi_version",
            c.enum_value(le32(&b, 4), &xlat::AF_PACKET_VERSIONS, "TPACKET_???"),
        ),
        Field::new("pdi_reserve", Value::UInt(le32(&b, 8))),
        Field::new("pdi_copy_thresh", Value::UInt(le32(&b, 12))),
        Field::new("pdi_tstamp", Value::UInt(le32(&b, 16))),
        Field::new(
            "pdi_flags",
            flags_with_dflt(c, le32(&b, 20), &xlat::PACKET_DIAG_INFO_FLAGS, "PDI_???"),
        ),
    ]))
}

/// One `struct packet_diag_mclist`.
fn mclist(c: &mut Ctx, b: &[u8]) -> Value {
    let alen = le16(b, 10);
    let n = (alen as usize).min(32);
    Value::structure(vec![
        Field::new("pdmc_index", ifindex_value(c, le32(b, 0) as u32)),
        Field::new("pdmc_count", Value::UInt(le32(b, 4))),
        Field::new("pdmc_type", Value::UInt(le16(b, 8))),
        Field::new("pdmc_alen", Value::UInt(alen)),
        Field::new("pdmc_addr", Value::sym_owned(hex_quoted(&b[12..12 + n]))),
    ])
}

/// A `PACKET_DIAG_*` attribute.
fn attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        0 => info(c, addr, len),
        1 => elem_array(c, addr, len, 44, &mclist),
        2 | 3 => super::netlink_route_attrs::fields_struct(
            c,
            addr,
            len,
            &[
                ("pdr_block_size", 4, b'u'),
                ("pdr_block_nr", 4, b'u'),
                ("pdr_frame_size", 4, b'u'),
                ("pdr_frame_nr", 4, b'u'),
                ("pdr_retire_tmo", 4, b'u'),
                ("pdr_sizeof_priv", 4, b'u'),
                ("pdr_features", 4, b'u'),
            ],
        ),
        4 | 5 => nla_u(c, addr, len, 4),
        6 => meminfo(c, addr, len),
        _ => None,
    }
}

/// The payload of an AF_PACKET sock_diag message (`request`: sent with
/// NLM_F_REQUEST).
pub(super) fn decode(c: &mut Ctx, request: bool, addr: u64, len: u64) -> Vec<Value> {
    let names = AttrNames {
        table: &xlat::PACKET_DIAG_ATTRS,
        dflt: "PACKET_DIAG_???",
    };
    if request {
        return header_then_attrs(
            c,
            addr,
            len,
            "sdiag_family",
            20,
            &|c, b| {
                vec![
                    Field::new("sdiag_protocol", Value::Hex(b[1] as u64)),
                    Field::new("pdiag_ino", Value::UInt(le32(b, 4))),
                    Field::new(
                        "pdiag_show",
                        flags_with_dflt(c, le32(b, 8), &xlat::PACKET_DIAG_SHOW, "PACKET_SHOW_???"),
                    ),
                    cookie("pdiag_cookie", b, 12),
                ]
            },
            names,
            &|_, _, _, _| None,
        )
        .into_iter()
        .take(1)
        .collect();
    }
    header_then_attrs(
        c,
        addr,
        len,
        "pdiag_family",
        16,
        &|c, b| {
            vec![
                Field::new(
                    "pdiag_type",
                    c.enum_value(b[1] as u64, &xlat::SOCKET_TYPES, "SOCK_???"),
                ),
                Field::new(
                    "pdiag_num",
                    c.enum_value(le16(b, 2), &xlat::ETHERNET_PROTOCOLS, "ETH_P_???"),
                ),
                Field::new("pdiag_ino", Value::UInt(le32(b, 4))),
                cookie("pdiag_cookie", b, 8),
            ]
        },
        names,
        &attr,
    )
}
