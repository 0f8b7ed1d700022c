//! NETLINK_SOCK_DIAG payloads (strace's `netlink_sock_diag.c`).
//!
//! Decoded: `struct inet_diag_req_v2` (AF_INET/AF_INET6 requests, as
//! `ss -tan` sends). Not decoded yet (printed as a hex string, where strace
//! decodes them): replies (`inet_diag_msg` and its attributes), request
//! attributes (bytecode), and the requests of the other families
//! (unix_diag_req, netlink_diag_req, packet_diag_req, smc_diag_req).

use super::netlink::{hexstr_value, Nlmsghdr};
use super::sockaddr::{ifindex_value, inet6_addr_field, inet_addr_value};
use super::{Ctx, Field, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

const NLMSG_DONE: u16 = 3;
const NLM_F_REQUEST: u16 = 1;
/// `sizeof(struct inet_diag_req_v2)`.
const REQ_V2_SIZE: usize = 56;

/// strace's `tcp_state_flags`: bit `1<<state` per TCP state.
const TCP_STATE_FLAGS: &[&str] = &[
    "1<<TCP_ESTABLISHED",
    "1<<TCP_SYN_SENT",
    "1<<TCP_SYN_RECV",
    "1<<TCP_FIN_WAIT1",
    "1<<TCP_FIN_WAIT2",
    "1<<TCP_TIME_WAIT",
    "1<<TCP_CLOSE",
    "1<<TCP_CLOSE_WAIT",
    "1<<TCP_LAST_ACK",
    "1<<TCP_LISTEN",
    "1<<TCP_CLOSING",
];

/// strace's `inet_diag_extended_flags`: bit `1<<(attr-1)` per extension.
const INET_DIAG_EXT_FLAGS: &[&str] = &[
    "1<<(INET_DIAG_MEMINFO-1)",
    "1<<(INET_DIAG_INFO-1)",
    "1<<(INET_DIAG_VEGASINFO-1)",
    "1<<(INET_DIAG_CONG-1)",
    "1<<(INET_DIAG_TOS-1)",
    "1<<(INET_DIAG_TCLASS-1)",
    "1<<(INET_DIAG_SKMEMINFO-1)",
    "1<<(INET_DIAG_SHUTDOWN-1)",
];

/// Flags from a list of names for bits `first`, `first+1`, …; the rest in hex.
fn bit_flags(v: u64, first: u32, names: &[&'static str], dflt: &'static str) -> Value {
    if v == 0 {
        return Value::UInt(0);
    }
    let mut rest = v;
    let mut out = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let bit = 1u64 << (first + i as u32);
        if rest & bit != 0 {
            out.push(*n);
            rest &= !bit;
        }
    }
    if out.is_empty() {
        return Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(dflt));
    }
    Value::Flags {
        names: out,
        rest,
        octal_rest: false,
    }
}

fn htons(b: &[u8]) -> Value {
    Value::Call(
        Cow::Borrowed("htons"),
        vec![Value::UInt(u16::from_be_bytes([b[0], b[1]]) as u64)],
    )
}

fn le32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

/// strace's `print_inet_diag_sockid`.
fn sockid_value(c: &Ctx, b: &[u8], family: u8) -> Value {
    let mut f = vec![
        Field::new("idiag_sport", htons(&b[0..2])),
        Field::new("idiag_dport", htons(&b[2..4])),
    ];
    if family as i32 == libc::AF_INET6 {
        f.push(inet6_addr_field(c, &b[4..20], "idiag_src"));
        f.push(inet6_addr_field(c, &b[20..36], "idiag_dst"));
    } else {
        f.push(Field::new("idiag_src", inet_addr_value(c, &b[4..8])));
        f.push(Field::new("idiag_dst", inet_addr_value(c, &b[20..24])));
    }
    f.push(Field::new("idiag_if", ifindex_value(c, le32(b, 36))));
    f.push(Field::new(
        "idiag_cookie",
        Value::Array(
            vec![
                Value::UInt(le32(b, 40) as u64),
                Value::UInt(le32(b, 44) as u64),
            ],
            false,
        ),
    ));
    Value::structure(f)
}

/// strace's `decode_inet_diag_req_v2`.
fn req_v2_values(c: &mut Ctx, b: &[u8], addr: u64, len: u64) -> Vec<Value> {
    let family = b[0];
    let f = vec![
        Field::new(
            "sdiag_family",
            c.enum_value(family as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
        ),
        Field::new(
            "sdiag_protocol",
            c.enum_value(b[1] as u64, &xlat::INET_PROTOCOLS, "IPPROTO_???"),
        ),
        Field::new(
            "idiag_ext",
            bit_flags(b[2] as u64, 0, INET_DIAG_EXT_FLAGS, "1<<(INET_DIAG_???-1)"),
        ),
        Field::new(
            "idiag_states",
            bit_flags(le32(b, 4) as u64, 1, TCP_STATE_FLAGS, "1<<TCP_???"),
        ),
        Field::new("id", sockid_value(c, &b[8..56], family)),
    ];
    let mut out = vec![Value::structure(f)];
    if len > REQ_V2_SIZE as u64 {
        out.push(hexstr_value(
            c,
            addr + REQ_V2_SIZE as u64,
            len - REQ_V2_SIZE as u64,
        ));
    }
    out
}

/// The payload of a NETLINK_SOCK_DIAG message, or `None` for the generic form.
pub(super) fn decode(c: &mut Ctx, h: &Nlmsghdr, addr: u64, len: u64) -> Option<Vec<Value>> {
    if h.ty == NLMSG_DONE || h.flags & NLM_F_REQUEST == 0 || len < REQ_V2_SIZE as u64 {
        return None;
    }
    if c.opts.xlat_style != 0 {
        return None;
    }
    let b = c.read_bytes(addr, REQ_V2_SIZE)?;
    let family = b[0] as i32;
    if family != libc::AF_INET && family != libc::AF_INET6 {
        return None;
    }
    Some(req_v2_values(c, &b, addr, len))
}
