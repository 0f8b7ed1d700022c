//! NETLINK_SOCK_DIAG messages of AF_PACKET (strace's
//! `netlink_packet_diag.c`): `struct packet_diag_req`, and
//! `struct packet_diag_msg` replies with their `PACKET_DIAG_*` attributes
//! (info, multicast list, rings, fanout, uid, memory info, and the socket
//! filter as classic BPF instructions).

use crate::syscall::net::sockaddr::ifindex_value;
use crate::syscall::netlink::attr::{elem_array, flags_with_dflt, nla_u, AttrNames};
use crate::syscall::netlink::route::msgs::header_then_attrs;
use crate::syscall::netlink::sock_diag::netlink::{cookie, meminfo};
use crate::syscall::netlink::sock_diag::request_header;
use crate::syscall::printers::hex_quoted;
use crate::syscall::{Ctx, Field, Value};
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
        2 | 3 => crate::syscall::netlink::route::attrs::fields_struct(
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
        // PACKET_DIAG_FILTER: whole `struct sock_filter`s, at most 65535.
        7 => {
            let n = len / 8;
            (n != 0 && n <= u16::MAX as u64)
                .then(|| crate::syscall::net::sock_filter::program(c, addr, n))
        }
        _ => None,
    }
}

/// The payload of an AF_PACKET sock_diag message (`request`: sent with
/// NLM_F_REQUEST).
pub(in crate::syscall) fn decode(c: &mut Ctx, request: bool, addr: u64, len: u64) -> Vec<Value> {
    let names = AttrNames {
        table: &xlat::PACKET_DIAG_ATTRS,
        dflt: "PACKET_DIAG_???",
    };
    if request {
        return request_header(c, addr, len, "sdiag_family", 20, &|c, b| {
            vec![
                Field::new("sdiag_protocol", Value::Hex(b[1] as u64)),
                Field::new("pdiag_ino", Value::UInt(le32(b, 4))),
                Field::new(
                    "pdiag_show",
                    flags_with_dflt(c, le32(b, 8), &xlat::PACKET_DIAG_SHOW, "PACKET_SHOW_???"),
                ),
                cookie("pdiag_cookie", b, 12),
            ]
        });
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

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ctx::DecodeOpts;
    use crate::syscall::netlink::netlink_value;
    use crate::syscall::testutil::run_with;
    use crate::syscall::{Ctx, RetFmt, Step};

    /// `x(buf, len)` with the buffer as NETLINK_SOCK_DIAG messages.
    fn diag(c: &mut Ctx) -> Step {
        let v = netlink_value(c, 4, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    #[test]
    fn socket_filter_attribute() {
        let mut m = FakeMemory::default();
        let mut p = vec![17, 1, 3, 0];
        p.extend([0; 12]);
        // PACKET_DIAG_FILTER: BPF_STMT(BPF_RET|BPF_K, 0x2a) and 3 stray bytes.
        p.extend(23u16.to_le_bytes());
        p.extend(7u16.to_le_bytes());
        p.extend([
            6, 0, 0, 0, 0x2a, 0, 0, 0, 6, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 2, 3, 0,
        ]);
        let mut b = (16 + p.len() as u32).to_le_bytes().to_vec();
        b.extend(20u16.to_le_bytes());
        b.extend(2u16.to_le_bytes());
        b.extend([0; 8]);
        b.extend(p);
        let a = m.put(&b);
        let verbose = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        let out = run_with(diag, "x", &[a, b.len() as u64], 0, &mut m, &verbose);
        assert!(
            out.ends_with(
                "pdiag_cookie=[0, 0]}, [{nla_len=23, nla_type=PACKET_DIAG_FILTER}, \
                 [BPF_STMT(BPF_RET|BPF_K, 0x2a), BPF_STMT(BPF_RET|BPF_K, 0xffff)]]]) = 0"
            ),
            "{out}"
        );
    }
}
