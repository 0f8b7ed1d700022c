//! NETLINK_SOCK_DIAG messages of AF_NETLINK (strace's
//! `netlink_netlink_diag.c`): `struct netlink_diag_req`, and
//! `struct netlink_diag_msg` replies with their `NETLINK_DIAG_*` attributes
//! (memory info, groups, rings, flags).

use crate::syscall::layout::{kstruct, le, nth};
use crate::syscall::netlink::attr::{
    elem_array, flags_with_dflt, indexed_array, nla_int, AttrNames,
};
use crate::syscall::netlink::route::attrs::fields_struct;
use crate::syscall::netlink::route::msgs::header_then_attrs;
use crate::syscall::netlink::sock_diag::request_header;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

const NDIAG_PROTO_ALL: u8 = 255;

kstruct! {
    /// `struct netlink_diag_req`.
    struct NetlinkDiagReq size 20 {
        family: u8 @ 0,
        protocol: u8 @ 1,
        ino: u32 @ 4,
        show: u32 @ 8,
        cookie: [u8; 8] @ 12,
    }
}

kstruct! {
    /// `struct netlink_diag_msg`.
    struct NetlinkDiagMsg size 28 {
        family: u8 @ 0,
        type_: u8 @ 1,
        protocol: u8 @ 2,
        state: u8 @ 3,
        portid: u32 @ 4,
        dst_portid: u32 @ 8,
        dst_group: u32 @ 12,
        ino: u32 @ 16,
        cookie: [u8; 8] @ 20,
    }
}

/// A `__u32 cookie[2]`: `[a, b]`.
pub(in crate::syscall) fn cookie_value(raw: [u8; 8]) -> Value {
    Value::Array(
        vec![
            Value::UInt(nth::<u32>(&raw, 0) as u64),
            Value::UInt(nth::<u32>(&raw, 1) as u64),
        ],
        false,
    )
}

/// `PRINT_FIELD_COOKIE`: `name=[a, b]`.
pub(in crate::syscall) fn cookie(name: &'static str, raw: [u8; 8]) -> Field {
    Field::new(name, cookie_value(raw))
}

/// `decode_nla_meminfo`: `[[SK_MEMINFO_RMEM_ALLOC]=…, …]`.
pub(in crate::syscall) fn meminfo(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    indexed_array(
        c,
        addr,
        len,
        4,
        false,
        &xlat::NETLINK_SK_MEMINFO_INDICES,
        "SK_MEMINFO_???",
    )
}

/// A `NETLINK_DIAG_*` attribute.
fn attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        0 => meminfo(c, addr, len),
        // NETLINK_DIAG_GROUPS: words in zero-padded hex.
        1 => elem_array(c, addr, len, 8, &|_, b| {
            let v = le::<u64>(b, 0);
            Value::sym_owned(format!("{v:#018x}"))
        }),
        2 | 3 => fields_struct(
            c,
            addr,
            len,
            &[
                ("ndr_block_size", 4, b'u'),
                ("ndr_block_nr", 4, b'u'),
                ("ndr_frame_size", 4, b'u'),
                ("ndr_frame_nr", 4, b'u'),
            ],
        ),
        4 => nla_int(c, addr, len, 4, |c, v| {
            flags_with_dflt(c, v, &xlat::NETLINK_SOCKET_FLAGS, "NDIAG_FLAG_???")
        }),
        _ => None,
    }
}

/// The payload of an AF_NETLINK sock_diag message (`request`: sent with
/// NLM_F_REQUEST).
pub(in crate::syscall) fn decode(c: &mut Ctx, request: bool, addr: u64, len: u64) -> Vec<Value> {
    let names = AttrNames {
        table: &xlat::NETLINK_DIAG_ATTRS,
        dflt: "NETLINK_DIAG_???",
    };
    if request {
        let size = NetlinkDiagReq::SIZE as u64;
        return request_header(c, addr, len, "sdiag_family", size, &|c, b| {
            let r = NetlinkDiagReq(b);
            let proto = if r.protocol() == NDIAG_PROTO_ALL {
                c.enum_value(255, &NDIAG_ALL, "")
            } else {
                c.enum_value(r.protocol() as u64, &xlat::NETLINK_PROTOCOLS, "NETLINK_???")
            };
            vec![
                Field::new("sdiag_protocol", proto),
                Field::new("ndiag_ino", Value::UInt(r.ino() as u64)),
                Field::new(
                    "ndiag_show",
                    flags_with_dflt(
                        c,
                        r.show() as u64,
                        &xlat::NETLINK_DIAG_SHOW,
                        "NDIAG_SHOW_???",
                    ),
                ),
                cookie("ndiag_cookie", r.cookie()),
            ]
        });
    }
    header_then_attrs(
        c,
        addr,
        len,
        "ndiag_family",
        NetlinkDiagMsg::SIZE as u64,
        &|c, b| {
            let m = NetlinkDiagMsg(b);
            vec![
                Field::new(
                    "ndiag_type",
                    c.enum_value(m.type_() as u64, &xlat::SOCKET_TYPES, "SOCK_???"),
                ),
                Field::new(
                    "ndiag_protocol",
                    c.enum_value(m.protocol() as u64, &xlat::NETLINK_PROTOCOLS, "NETLINK_???"),
                ),
                Field::new(
                    "ndiag_state",
                    c.enum_value(m.state() as u64, &xlat::NETLINK_STATES, "NETLINK_???"),
                ),
                Field::new("ndiag_portid", Value::UInt(m.portid() as u64)),
                Field::new("ndiag_dst_portid", Value::UInt(m.dst_portid() as u64)),
                Field::new("ndiag_dst_group", Value::UInt(m.dst_group() as u64)),
                Field::new("ndiag_ino", Value::UInt(m.ino() as u64)),
                cookie("ndiag_cookie", m.cookie()),
            ]
        },
        names,
        &attr,
    )
}

/// `NDIAG_PROTO_ALL`, the only name of its kind.
static NDIAG_ALL: xlat::Xlat = xlat::Xlat {
    name: "",
    kind: xlat::XlatKind::Enum,
    entries: &[(255, "NDIAG_PROTO_ALL")],
};

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::netlink::netlink_value;
    use crate::syscall::testutil::run;
    use crate::syscall::{Ctx, RetFmt, Step};

    /// `x(buf, len)` with the buffer as NETLINK_SOCK_DIAG messages.
    fn diag(c: &mut Ctx) -> Step {
        let v = netlink_value(c, 4, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    fn msg(flags: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = ((16 + payload.len()) as u32).to_le_bytes().to_vec();
        v.extend(20u16.to_le_bytes());
        v.extend(flags.to_le_bytes());
        v.extend([0; 8]);
        v.extend(payload);
        v
    }

    #[test]
    fn netlink_packet_and_smc_families() {
        let mut m = FakeMemory::default();
        // netlink_diag_msg with NETLINK_DIAG_FLAGS.
        let mut p = vec![16, 3, 0, 1];
        p.extend([0; 24]);
        p.extend([8, 0, 4, 0]);
        p.extend(3u32.to_le_bytes());
        let b = msg(0x300, &p);
        let a = m.put(&b);
        assert_eq!(
            run(diag, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=52, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_DUMP, \
             nlmsg_seq=0, nlmsg_pid=0}, {ndiag_family=AF_NETLINK, ndiag_type=SOCK_RAW, \
             ndiag_protocol=NETLINK_ROUTE, ndiag_state=NETLINK_CONNECTED, ndiag_portid=0, \
             ndiag_dst_portid=0, ndiag_dst_group=0, ndiag_ino=0, ndiag_cookie=[0, 0]}, \
             [{nla_len=8, nla_type=NETLINK_DIAG_FLAGS}, \
             NDIAG_FLAG_CB_RUNNING|NDIAG_FLAG_PKTINFO]]) = 0"
        );
        // A packet_diag_req with NLM_F_REQUEST.
        let mut p = vec![17, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0];
        p.extend([0; 8]);
        let b = msg(1, &p);
        let a = m.put(&b);
        assert_eq!(
            run(diag, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=36, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST, \
             nlmsg_seq=0, nlmsg_pid=0}, {sdiag_family=AF_PACKET, sdiag_protocol=0, pdiag_ino=5, \
             pdiag_show=PACKET_SHOW_INFO, pdiag_cookie=[0, 0]}]) = 0"
        );
        // A short smc_diag_req, and an unknown family.
        let b = msg(1, &[43, 1, 2, 3]);
        let a = m.put(&b);
        assert_eq!(
            run(diag, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=20, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST, \
             nlmsg_seq=0, nlmsg_pid=0}, {diag_family=AF_SMC, ...}]) = 0"
        );
        let b = msg(1, &[0]);
        let a = m.put(&b);
        assert_eq!(
            run(diag, "x", &[a, b.len() as u64], 0, &mut m),
            "x([{nlmsg_len=17, nlmsg_type=SOCK_DIAG_BY_FAMILY, nlmsg_flags=NLM_F_REQUEST, \
             nlmsg_seq=0, nlmsg_pid=0}, {family=AF_UNSPEC}]) = 0"
        );
    }
}
