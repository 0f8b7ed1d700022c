//! NETLINK_SOCK_DIAG payloads (strace's `netlink_sock_diag.c`).
//!
//! Decoded: `struct inet_diag_req_v2` (AF_INET/AF_INET6 requests, as
//! `ss -tan` sends) with its attribute list, `struct inet_diag_msg` replies
//! with their `INET_DIAG_*` attributes (the larger ones in
//! `netlink_inet_diag.rs`), and the dispatch to the other families
//! (`netlink_unix_diag.rs`, `netlink_netlink_diag.rs`,
//! `netlink_packet_diag.rs`, `netlink_smc_diag.rs`).

pub(in crate::syscall) mod inet;
pub(in crate::syscall) mod netlink;
pub(in crate::syscall) mod packet;
pub(in crate::syscall) mod smc;
pub(in crate::syscall) mod unix;

use crate::syscall::ctx::render_flags;
use crate::syscall::layout::{be16, kstruct, le};
use crate::syscall::net::sockaddr::{ifindex_value, inet6_addr_field, inet_addr_value};
use crate::syscall::netlink::attr::{
    indexed_array, nla_enum, nla_str, nla_u, uint_struct, AttrDecoder, AttrNames,
};
use crate::syscall::netlink::route::msgs::header_then_attrs;
use crate::syscall::netlink::Nlmsghdr;
use crate::syscall::printers::hex_quoted;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

kstruct! {
    /// `struct inet_diag_sockid`.
    pub(in crate::syscall) struct InetDiagSockId size 48 {
        sport: [u8; 2] @ 0,
        dport: [u8; 2] @ 2,
        src: [u8; 16] @ 4,
        dst: [u8; 16] @ 20,
        if_: u32 @ 36,
        cookie0: u32 @ 40,
        cookie1: u32 @ 44,
    }
}

kstruct! {
    /// `struct inet_diag_req_v2`.
    struct InetDiagReqV2 size 56 {
        family: u8 @ 0,
        protocol: u8 @ 1,
        ext: u8 @ 2,
        states: u32 @ 4,
        id: [u8; 48] @ 8,
    }
}

kstruct! {
    /// `struct inet_diag_req`, the request before sock_diag.
    struct InetDiagReq size 60 {
        family: u8 @ 0,
        src_len: u8 @ 1,
        dst_len: u8 @ 2,
        ext: u8 @ 3,
        id: [u8; 48] @ 4,
        states: u32 @ 52,
        dbs: u32 @ 56,
    }
}

kstruct! {
    /// `struct inet_diag_msg`.
    struct InetDiagMsg size 72 {
        family: u8 @ 0,
        state: u8 @ 1,
        timer: u8 @ 2,
        retrans: u8 @ 3,
        id: [u8; 48] @ 4,
        expires: u32 @ 52,
        rqueue: u32 @ 56,
        wqueue: u32 @ 60,
        uid: u32 @ 64,
        inode: u32 @ 68,
    }
}

kstruct! {
    /// `struct tcp_dctcp_info`.
    struct TcpDctcpInfo size 16 {
        enabled: u16 @ 0,
        ce_state: u16 @ 2,
        alpha: u32 @ 4,
        ab_ecn: u32 @ 8,
        ab_tot: u32 @ 12,
    }
}

const NLMSG_DONE: u16 = 3;
const NLM_F_REQUEST: u16 = 1;
/// `AF_SMC` (not in every libc).
const AF_SMC: i32 = 43;
const REQ_V2_SIZE: usize = InetDiagReqV2::SIZE;
const COMPAT_REQ_SIZE: u64 = InetDiagReq::SIZE as u64;
const MSG_SIZE: usize = InetDiagMsg::SIZE;

/// strace's `tcp_state_flags`: bit `1<<state` per TCP state.
pub(in crate::syscall) const TCP_STATE_FLAGS: &[&str] = &[
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
    "1<<TCP_NEW_SYN_RECV",
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
pub(in crate::syscall) fn bit_flags(
    c: &Ctx,
    v: u64,
    first: u32,
    names: &[&'static str],
    dflt: &'static str,
) -> Value {
    if v == 0 {
        return Value::UInt(0);
    }
    if c.opts.xlat_style != 0 {
        let text = render_flags(&bit_flags_plain(v, first, names, dflt));
        return match c.opts.xlat_style {
            1 => Value::Hex(v),
            _ => Value::Commented(Box::new(Value::Hex(v)), Cow::Owned(text)),
        };
    }
    bit_flags_plain(v, first, names, dflt)
}

fn bit_flags_plain(v: u64, first: u32, names: &[&'static str], dflt: &'static str) -> Value {
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

/// `decoded`, or under `-X raw`/`-X verbose` the field's bytes (with
/// `decoded` as a comment).
fn styled(c: &Ctx, raw: &[u8], decoded: Value) -> Value {
    match c.opts.xlat_style {
        1 => Value::sym_owned(hex_quoted(raw)),
        2 => Value::Commented(
            Box::new(Value::sym_owned(hex_quoted(raw))),
            Cow::Owned(render_flags(&decoded)),
        ),
        _ => decoded,
    }
}

/// `htons(N)` of a port in network order (its bytes under `-X raw`).
fn htons(c: &Ctx, b: [u8; 2]) -> Value {
    let call = Value::Call(
        Cow::Borrowed("htons"),
        vec![Value::UInt(be16(&b, 0) as u64)],
    );
    styled(c, &b, call)
}

/// An IPv4 address in a 16-byte field (`idiag_src`): only its first 4
/// bytes are decoded, all 16 print under `-X raw`.
fn inet4_field(c: &Ctx, b: [u8; 16]) -> Value {
    let decoded = match c.opts.xlat_style {
        0 => return inet_addr_value(c, &b[..4]),
        _ => {
            let ip = std::net::Ipv4Addr::new(b[0], b[1], b[2], b[3]);
            Value::sym_owned(format!("inet_addr(\"{ip}\")"))
        }
    };
    styled(c, &b, decoded)
}

/// strace's `print_inet_diag_sockid` of the `struct inet_diag_sockid` in
/// `b`.
pub(in crate::syscall) fn sockid_value(c: &Ctx, b: &[u8], family: u8) -> Value {
    let id = InetDiagSockId(b);
    let mut f = vec![
        Field::new("idiag_sport", htons(c, id.sport())),
        Field::new("idiag_dport", htons(c, id.dport())),
    ];
    if family as i32 == libc::AF_INET6 {
        f.push(inet6_addr_field(c, &id.src(), "idiag_src"));
        f.push(inet6_addr_field(c, &id.dst(), "idiag_dst"));
    } else {
        f.push(Field::new("idiag_src", inet4_field(c, id.src())));
        f.push(Field::new("idiag_dst", inet4_field(c, id.dst())));
    }
    f.push(Field::new("idiag_if", ifindex_value(c, id.if_())));
    f.push(Field::new(
        "idiag_cookie",
        Value::Array(
            vec![
                Value::UInt(id.cookie0() as u64),
                Value::UInt(id.cookie1() as u64),
            ],
            false,
        ),
    ));
    Value::structure(f)
}

/// strace's `decode_inet_diag_req_v2`: the fields after the family.
fn req_v2_fields(c: &mut Ctx, b: &[u8]) -> Vec<Field> {
    let r = InetDiagReqV2(b);
    vec![
        Field::new(
            "sdiag_protocol",
            c.enum_value(r.protocol() as u64, &xlat::INET_PROTOCOLS, "IPPROTO_???"),
        ),
        Field::new("idiag_ext", ext_flags(c, r.ext())),
        Field::new(
            "idiag_states",
            bit_flags(c, r.states() as u64, 1, TCP_STATE_FLAGS, "1<<TCP_???"),
        ),
        Field::new("id", sockid_value(c, &r.id(), r.family())),
    ]
}

/// strace's `decode_inet_diag_req_compat` (TCPDIAG_GETSOCK,
/// DCCPDIAG_GETSOCK): the fields of `struct inet_diag_req` after the family.
fn req_compat_fields(c: &mut Ctx, b: &[u8]) -> Vec<Field> {
    let r = InetDiagReq(b);
    vec![
        Field::new("idiag_src_len", Value::UInt(r.src_len() as u64)),
        Field::new("idiag_dst_len", Value::UInt(r.dst_len() as u64)),
        Field::new("idiag_ext", ext_flags(c, r.ext())),
        Field::new("id", sockid_value(c, &r.id(), r.family())),
        Field::new(
            "idiag_states",
            bit_flags(c, r.states() as u64, 1, TCP_STATE_FLAGS, "1<<TCP_???"),
        ),
        Field::new("idiag_dbs", Value::UInt(r.dbs() as u64)),
    ]
}

fn ext_flags(c: &Ctx, v: u8) -> Value {
    bit_flags(c, v as u64, 0, INET_DIAG_EXT_FLAGS, "1<<(INET_DIAG_???-1)")
}

/// strace's `decode_inet_diag_msg`: the fields after the family (`…,
/// idiag_inode=…`).
fn msg_fields(c: &mut Ctx, b: &[u8]) -> Vec<Field> {
    let m = InetDiagMsg(b);
    vec![
        Field::new(
            "idiag_state",
            c.enum_value(m.state() as u64, &xlat::TCP_STATES, "TCP_???"),
        ),
        Field::new("idiag_timer", Value::UInt(m.timer() as u64)),
        Field::new("idiag_retrans", Value::UInt(m.retrans() as u64)),
        Field::new("id", sockid_value(c, &m.id(), m.family())),
        Field::new("idiag_expires", Value::UInt(m.expires() as u64)),
        Field::new("idiag_rqueue", Value::UInt(m.rqueue() as u64)),
        Field::new("idiag_wqueue", Value::UInt(m.wqueue() as u64)),
        Field::new("idiag_uid", Value::UInt(m.uid() as u64)),
        Field::new("idiag_inode", Value::UInt(m.inode() as u64)),
    ]
}

/// The bits of `struct inet_diag_sockopt`, in order.
const SOCKOPT_BITS: &[&str] = &[
    "recverr",
    "is_icsk",
    "freebind",
    "hdrincl",
    "mc_loop",
    "transparent",
    "mc_all",
    "nodefrag",
    "bind_address_no_port",
    "recverr_rfc4884",
    "defer_connect",
];

/// `INET_DIAG_SHUTDOWN`: `0x3 /* RCV_SHUTDOWN|SEND_SHUTDOWN */` (the
/// names are not in the UAPI, so strace prints the number too).
fn shutdown_value(v: u64) -> Value {
    if v == 0 {
        return Value::UInt(0);
    }
    let mut names = Vec::new();
    if v & 1 != 0 {
        names.push("RCV_SHUTDOWN".to_string());
    }
    if v & 2 != 0 {
        names.push("SEND_SHUTDOWN".to_string());
    }
    let rest = v & !3;
    let text = if names.is_empty() {
        "???_SHUTDOWN".to_string()
    } else {
        if rest != 0 {
            names.push(format!("{rest:#x}"));
        }
        names.join("|")
    };
    Value::Commented(Box::new(Value::Hex(v)), Cow::Owned(text))
}

/// An `INET_DIAG_*` attribute.
fn msg_attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    let fixed = |c: &mut Ctx, size: u64, names: &[&'static str], hex: &[&str]| {
        (len >= size).then(|| uint_struct(c, addr, (size as usize) / names.len(), names, hex))
    };
    match ty {
        // INET_DIAG_MEMINFO.
        1 => fixed(
            c,
            16,
            &["idiag_rmem", "idiag_wmem", "idiag_fmem", "idiag_tmem"],
            &[],
        ),
        // INET_DIAG_VEGASINFO.
        3 => fixed(
            c,
            16,
            &["tcpv_enabled", "tcpv_rttcnt", "tcpv_rtt", "tcpv_minrtt"],
            &[],
        ),
        // INET_DIAG_CONG.
        4 => nla_str(c, addr, len),
        // INET_DIAG_TOS, INET_DIAG_TCLASS, INET_DIAG_SKV6ONLY.
        5 | 6 | 11 => nla_u(c, addr, len, 1),
        // INET_DIAG_SKMEMINFO.
        7 => indexed_array(
            c,
            addr,
            len,
            4,
            false,
            &xlat::NETLINK_SK_MEMINFO_INDICES,
            "SK_MEMINFO_???",
        ),
        // INET_DIAG_SHUTDOWN.
        8 => {
            if !(1..=8).contains(&len) {
                return None;
            }
            let v = c.read_bytes(addr, 1)?[0] as u64;
            Some(if c.opts.xlat_style == 1 {
                Value::Hex(v)
            } else {
                shutdown_value(v)
            })
        }
        // INET_DIAG_DCTCPINFO.
        9 => {
            if len < TcpDctcpInfo::SIZE as u64 {
                return None;
            }
            let Some(b) = c.read_bytes(addr, TcpDctcpInfo::SIZE) else {
                return Some(Value::Unreadable(addr));
            };
            let d = TcpDctcpInfo(&b);
            Some(Value::structure(vec![
                Field::new("dctcp_enabled", Value::UInt(d.enabled() as u64)),
                Field::new("dctcp_ce_state", Value::UInt(d.ce_state() as u64)),
                Field::new("dctcp_alpha", Value::UInt(d.alpha() as u64)),
                Field::new("dctcp_ab_ecn", Value::UInt(d.ab_ecn() as u64)),
                Field::new("dctcp_ab_tot", Value::UInt(d.ab_tot() as u64)),
            ]))
        }
        // INET_DIAG_PROTOCOL.
        10 => nla_enum(c, addr, len, 0, &xlat::INET_PROTOCOLS, "IPPROTO_???"),
        // INET_DIAG_MARK, INET_DIAG_CLASS_ID.
        15 | 17 => nla_u(c, addr, len, 4),
        // INET_DIAG_BBRINFO.
        16 => fixed(
            c,
            20,
            &[
                "bbr_bw_lo",
                "bbr_bw_hi",
                "bbr_min_rtt",
                "bbr_pacing_gain",
                "bbr_cwnd_gain",
            ],
            &["bbr_bw_lo", "bbr_bw_hi"],
        ),
        // INET_DIAG_CGROUP_ID.
        21 => nla_u(c, addr, len, 8),
        // INET_DIAG_SOCKOPT: the bits that are set.
        22 => {
            if len < 2 {
                return None;
            }
            // struct inet_diag_sockopt: 16 bits.
            let b = c.read_bytes(addr, 2)?;
            let v = le::<u16>(&b, 0);
            // All the bits under -v, else those set.
            let all = c.opts.verbose;
            let mut f: Vec<Field> = SOCKOPT_BITS
                .iter()
                .enumerate()
                .filter(|(i, _)| all || v & (1 << i) != 0)
                .map(|(i, n)| Field::new(n, Value::UInt((v >> i) as u64 & 1)))
                .collect();
            if all || v >> 11 != 0 {
                f.push(Field::new(
                    "unused",
                    Value::Commented(
                        Box::new(Value::Hex((v >> 11) as u64)),
                        Cow::Borrowed("bits 3..8"),
                    ),
                ));
            }
            let v = Value::structure(f);
            // Bytes past the structure, when any is set.
            let end = len.min(4096);
            Some(
                match crate::syscall::printers::nonzero_bytes(c, addr, 2, end) {
                    Some(t) => Value::Joined(vec![v, t], ", "),
                    None => v,
                },
            )
        }
        _ => crate::syscall::netlink::sock_diag::inet::msg_attr(c, ty, addr, len),
    }
}

/// A sock_diag request of another family: its header of `size` bytes
/// (`fam_name` names the family field, `fields` prints the rest) without
/// the attributes after it, which strace does not decode.
pub(in crate::syscall) fn request_header(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    fam_name: &'static str,
    size: u64,
    fields: &dyn Fn(&mut Ctx, &[u8]) -> Vec<Field>,
) -> Vec<Value> {
    let unused = AttrNames {
        table: &xlat::SOCKET_FAMILIES,
        dflt: "",
    };
    let none: AttrDecoder = &|_, _, _, _| None;
    header_then_attrs(c, addr, len.min(size), fam_name, size, fields, unused, none)
}

/// The payload of a NETLINK_SOCK_DIAG message, or `None` for the generic form.
pub(in crate::syscall) fn decode(
    c: &mut Ctx,
    h: &Nlmsghdr,
    addr: u64,
    len: u64,
) -> Option<Vec<Value>> {
    if h.ty == NLMSG_DONE {
        return None;
    }
    let Some(fb) = c.read_bytes(addr, 1) else {
        return Some(vec![Value::Unreadable(addr)]);
    };
    let family = fb[0] as i32;
    let request = h.flags & NLM_F_REQUEST != 0;
    if len <= 1 {
        return Some(vec![crate::syscall::netlink::route::family_value(
            c, fb[0], addr, len,
        )]);
    }
    match family {
        libc::AF_UNIX => return unix::decode(c, request, addr, len),
        libc::AF_NETLINK => {
            return Some(crate::syscall::netlink::sock_diag::netlink::decode(
                c, request, addr, len,
            ))
        }
        libc::AF_PACKET => {
            return Some(crate::syscall::netlink::sock_diag::packet::decode(
                c, request, addr, len,
            ))
        }
        AF_SMC => {
            return Some(crate::syscall::netlink::sock_diag::smc::decode(
                c, request, addr, len,
            ))
        }
        libc::AF_INET | libc::AF_INET6 => {}
        _ => {
            return Some(vec![crate::syscall::netlink::route::family_value(
                c, fb[0], addr, len,
            )])
        }
    }
    let req_names = AttrNames {
        table: &xlat::INET_DIAG_REQ_ATTRS,
        dflt: "INET_DIAG_REQ_???",
    };
    let req_attr: AttrDecoder = &crate::syscall::netlink::sock_diag::inet::req_attr;
    // TCPDIAG_GETSOCK, DCCPDIAG_GETSOCK.
    Some(if request && (h.ty == 18 || h.ty == 19) {
        header_then_attrs(
            c,
            addr,
            len,
            "idiag_family",
            COMPAT_REQ_SIZE,
            &req_compat_fields,
            req_names,
            req_attr,
        )
    } else if request {
        header_then_attrs(
            c,
            addr,
            len,
            "sdiag_family",
            REQ_V2_SIZE as u64,
            &req_v2_fields,
            req_names,
            req_attr,
        )
    } else {
        let names = AttrNames {
            table: &xlat::INET_DIAG_ATTRS,
            dflt: "INET_DIAG_???",
        };
        header_then_attrs(
            c,
            addr,
            len,
            "idiag_family",
            MSG_SIZE as u64,
            &msg_fields,
            names,
            &msg_attr,
        )
    })
}
