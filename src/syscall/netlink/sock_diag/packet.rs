//! NETLINK_SOCK_DIAG messages of AF_PACKET (strace's
//! `netlink_packet_diag.c`): `struct packet_diag_req`, and
//! `struct packet_diag_msg` replies with their `PACKET_DIAG_*` attributes
//! (info, multicast list, rings, fanout, uid, memory info, and the socket
//! filter as classic BPF instructions).

use crate::syscall::layout::kstruct;
use crate::syscall::net::sockaddr::ifindex_value;
use crate::syscall::netlink::attr::{elem_array, flags_with_dflt, nla_u, AttrNames};
use crate::syscall::netlink::route::msgs::header_then_attrs;
use crate::syscall::netlink::sock_diag::netlink::{cookie, meminfo};
use crate::syscall::netlink::sock_diag::request_header;
use crate::syscall::printers::hex_quoted;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

kstruct! {
    /// `struct packet_diag_info`.
    struct PacketDiagInfo size 24 {
        index: u32 @ 0,
        version: u32 @ 4,
        reserve: u32 @ 8,
        copy_thresh: u32 @ 12,
        tstamp: u32 @ 16,
        flags: u32 @ 20,
    }
}

kstruct! {
    /// `struct packet_diag_mclist`.
    struct PacketDiagMclist size 44 {
        index: u32 @ 0,
        count: u32 @ 4,
        type_: u16 @ 8,
        alen: u16 @ 10,
        addr: [u8; 32] @ 12,
    }
}

kstruct! {
    /// `struct packet_diag_req`.
    struct PacketDiagReq size 20 {
        family: u8 @ 0,
        protocol: u8 @ 1,
        ino: u32 @ 4,
        show: u32 @ 8,
        cookie: [u8; 8] @ 12,
    }
}

kstruct! {
    /// `struct packet_diag_msg`.
    struct PacketDiagMsg size 16 {
        family: u8 @ 0,
        type_: u8 @ 1,
        num: u16 @ 2,
        ino: u32 @ 4,
        cookie: [u8; 8] @ 8,
    }
}

const SOCK_FILTER_SIZE: u64 = crate::syscall::net::cbpf::SockFilter::SIZE as u64;

/// `struct packet_diag_info`.
fn info(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if len < PacketDiagInfo::SIZE as u64 {
        return None;
    }
    let Some(b) = c.read_bytes(addr, PacketDiagInfo::SIZE) else {
        return Some(Value::Unreadable(addr));
    };
    let i = PacketDiagInfo(&b);
    Some(Value::structure(vec![
        Field::new("pdi_index", ifindex_value(c, i.index())),
        Field::new(
            "pdi_version",
            c.enum_value(i.version() as u64, &xlat::AF_PACKET_VERSIONS, "TPACKET_???"),
        ),
        Field::new("pdi_reserve", Value::UInt(i.reserve() as u64)),
        Field::new("pdi_copy_thresh", Value::UInt(i.copy_thresh() as u64)),
        Field::new("pdi_tstamp", Value::UInt(i.tstamp() as u64)),
        Field::new(
            "pdi_flags",
            flags_with_dflt(
                c,
                i.flags() as u64,
                &xlat::PACKET_DIAG_INFO_FLAGS,
                "PDI_???",
            ),
        ),
    ]))
}

/// One `struct packet_diag_mclist`.
fn mclist(c: &mut Ctx, b: &[u8]) -> Value {
    let m = PacketDiagMclist(b);
    let alen = m.alen();
    let a = m.addr();
    let n = (alen as usize).min(a.len());
    Value::structure(vec![
        Field::new("pdmc_index", ifindex_value(c, m.index())),
        Field::new("pdmc_count", Value::UInt(m.count() as u64)),
        Field::new("pdmc_type", Value::UInt(m.type_() as u64)),
        Field::new("pdmc_alen", Value::UInt(alen as u64)),
        Field::new("pdmc_addr", Value::sym_owned(hex_quoted(&a[..n]))),
    ])
}

/// A `PACKET_DIAG_*` attribute.
fn attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        0 => info(c, addr, len),
        1 => elem_array(c, addr, len, PacketDiagMclist::SIZE, &mclist),
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
            let n = len / SOCK_FILTER_SIZE;
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
        let size = PacketDiagReq::SIZE as u64;
        return request_header(c, addr, len, "sdiag_family", size, &|c, b| {
            let r = PacketDiagReq(b);
            vec![
                Field::new("sdiag_protocol", Value::Hex(r.protocol() as u64)),
                Field::new("pdiag_ino", Value::UInt(r.ino() as u64)),
                Field::new(
                    "pdiag_show",
                    flags_with_dflt(
                        c,
                        r.show() as u64,
                        &xlat::PACKET_DIAG_SHOW,
                        "PACKET_SHOW_???",
                    ),
                ),
                cookie("pdiag_cookie", r.cookie()),
            ]
        });
    }
    header_then_attrs(
        c,
        addr,
        len,
        "pdiag_family",
        PacketDiagMsg::SIZE as u64,
        &|c, b| {
            let m = PacketDiagMsg(b);
            vec![
                Field::new(
                    "pdiag_type",
                    c.enum_value(m.type_() as u64, &xlat::SOCKET_TYPES, "SOCK_???"),
                ),
                Field::new(
                    "pdiag_num",
                    c.enum_value(m.num() as u64, &xlat::ETHERNET_PROTOCOLS, "ETH_P_???"),
                ),
                Field::new("pdiag_ino", Value::UInt(m.ino() as u64)),
                cookie("pdiag_cookie", m.cookie()),
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
