//! NETLINK_SOCK_DIAG messages of AF_SMC (strace's `netlink_smc_diag.c`):
//! `struct smc_diag_req`, and `struct smc_diag_msg` replies with their
//! `SMC_DIAG_*` attributes (connection, link group and DMB info, shutdown
//! flags, fallback reasons).

use crate::syscall::layout::kstruct;
use crate::syscall::netlink::attr::{nla_flags, AttrNames};
use crate::syscall::netlink::route::msgs::header_then_attrs;
use crate::syscall::netlink::sock_diag::bit_flags;
use crate::syscall::netlink::sock_diag::request_header;
use crate::syscall::netlink::sock_diag::sockid_value;
use crate::syscall::{Ctx, Field, Value};
use crate::value::StrVal;
use rtrace_arch::xlat;
use std::borrow::Cow;

/// strace's `smc_diag_extended_flags`: bit `1<<(attr-1)` per extension.
const SMC_DIAG_EXT_BITS: &[&str] = &["1<<(SMC_DIAG_CONNINFO-1)", "1<<(SMC_DIAG_LGRINFO-1)"];

kstruct! {
    /// `struct smc_diag_cursor`.
    struct SmcDiagCursor size 8 {
        reserved: u16 @ 0,
        wrap: u16 @ 2,
        count: u32 @ 4,
    }
}

kstruct! {
    /// `struct smc_diag_conninfo`.
    struct SmcDiagConninfo size 76 {
        token: u32 @ 0,
        sndbuf_size: u32 @ 4,
        rmbe_size: u32 @ 8,
        peer_rmbe_size: u32 @ 12,
        rx_prod: [u8; 8] @ 16,
        rx_cons: [u8; 8] @ 24,
        tx_prod: [u8; 8] @ 32,
        tx_cons: [u8; 8] @ 40,
        rx_prod_flags: u8 @ 48,
        rx_conn_state_flags: u8 @ 49,
        tx_prod_flags: u8 @ 50,
        tx_conn_state_flags: u8 @ 51,
        tx_prep: [u8; 8] @ 52,
        tx_sent: [u8; 8] @ 60,
        tx_fin: [u8; 8] @ 68,
    }
}

kstruct! {
    /// `struct smc_diag_lgrinfo`: one `struct smc_diag_linkinfo` (146
    /// bytes) and the role.
    struct SmcDiagLgrinfo size 147 {
        link_id: u8 @ 0,
        ibname: [u8; 64] @ 1,
        ibport: u8 @ 65,
        gid: [u8; 40] @ 66,
        peer_gid: [u8; 40] @ 106,
        role: u8 @ 146,
    }
}

kstruct! {
    /// `struct smcd_diag_dmbinfo`.
    struct SmcdDiagDmbinfo size 40 {
        linkid: u32 @ 0,
        peer_gid: u64 @ 8,
        my_gid: u64 @ 16,
        token: u64 @ 24,
        peer_token: u64 @ 32,
    }
}

kstruct! {
    /// `struct smc_diag_fallback`.
    struct SmcDiagFallback size 8 {
        reason: u32 @ 0,
        peer_diagnosis: u32 @ 4,
    }
}

kstruct! {
    /// `struct smc_diag_req`.
    struct SmcDiagReq size 52 {
        family: u8 @ 0,
        ext: u8 @ 3,
        id: [u8; 48] @ 4,
    }
}

kstruct! {
    /// `struct smc_diag_msg`.
    struct SmcDiagMsg size 64 {
        family: u8 @ 0,
        state: u8 @ 1,
        fallback: u8 @ 2,
        shutdown: u8 @ 3,
        id: [u8; 48] @ 4,
        uid: u32 @ 52,
        inode: u64 @ 56,
    }
}

const CONNINFO_SIZE: usize = SmcDiagConninfo::SIZE;
const LGRINFO_SIZE: usize = SmcDiagLgrinfo::SIZE;
const DMBINFO_SIZE: usize = SmcdDiagDmbinfo::SIZE;

/// The payload of `size` bytes at `addr`, `None` when `len` is shorter.
fn payload(c: &mut Ctx, addr: u64, len: u64, size: usize) -> Option<Result<Vec<u8>, Value>> {
    if len < size as u64 {
        return None;
    }
    Some(c.read_bytes(addr, size).ok_or(Value::Unreadable(addr)))
}

/// A `struct smc_diag_cursor`.
fn cursor(raw: [u8; 8]) -> Value {
    let k = SmcDiagCursor(&raw);
    Value::structure(vec![
        Field::new("reserved", Value::UInt(k.reserved() as u64)),
        Field::new("wrap", Value::UInt(k.wrap() as u64)),
        Field::new("count", Value::UInt(k.count() as u64)),
    ])
}

/// A NUL-terminated string in a fixed array (`PRINT_FIELD_CSTRING`).
fn cstring(b: &[u8]) -> Value {
    let end = b.iter().position(|&x| x == 0);
    Value::Str(StrVal {
        bytes: b[..end.unwrap_or(b.len())].to_vec(),
        truncated: end.is_none(),
        c_string: true,
    })
}

/// `SMC_DIAG_CONNINFO`.
fn conninfo(b: &[u8]) -> Value {
    let i = SmcDiagConninfo(b);
    let flags = |v: u8| Value::Hex(v as u64);
    Value::structure(vec![
        Field::new("token", Value::UInt(i.token() as u64)),
        Field::new("sndbuf_size", Value::UInt(i.sndbuf_size() as u64)),
        Field::new("rmbe_size", Value::UInt(i.rmbe_size() as u64)),
        Field::new("peer_rmbe_size", Value::UInt(i.peer_rmbe_size() as u64)),
        Field::new("rx_prod", cursor(i.rx_prod())),
        Field::new("rx_cons", cursor(i.rx_cons())),
        Field::new("tx_prod", cursor(i.tx_prod())),
        Field::new("tx_cons", cursor(i.tx_cons())),
        Field::new("rx_prod_flags", flags(i.rx_prod_flags())),
        Field::new("rx_conn_state_flags", flags(i.rx_conn_state_flags())),
        Field::new("tx_prod_flags", flags(i.tx_prod_flags())),
        Field::new("tx_conn_state_flags", flags(i.tx_conn_state_flags())),
        Field::new("tx_prep", cursor(i.tx_prep())),
        Field::new("tx_sent", cursor(i.tx_sent())),
        Field::new("tx_fin", cursor(i.tx_fin())),
    ])
}

/// `SMC_DIAG_LGRINFO`: the one link and the role.
fn lgrinfo(c: &Ctx, b: &[u8]) -> Value {
    let g = SmcDiagLgrinfo(b);
    let link = Value::structure(vec![
        Field::new("link_id", Value::UInt(g.link_id() as u64)),
        Field::new("ibname", cstring(&g.ibname())),
        Field::new("ibport", Value::UInt(g.ibport() as u64)),
        Field::new("gid", cstring(&g.gid())),
        Field::new("peer_gid", cstring(&g.peer_gid())),
    ]);
    Value::structure(vec![
        Field::new("lnk", Value::Array(vec![link], false)),
        Field::new(
            "role",
            c.enum_value(g.role() as u64, &xlat::SMC_LINK_GROUP_ROLES, "SMC_???"),
        ),
    ])
}

/// A reason code of `SMC_DIAG_FALLBACK`, always with its name as a
/// comment (`PRINT_FIELD_XVAL_VERBOSE`: the names are not in the UAPI).
fn decl_code(c: &Ctx, v: u64) -> Value {
    let n = xlat::SMC_DECL_CODES.lookup(v).unwrap_or("SMC_CLC_DECL_???");
    let num = if v == 0 {
        Value::UInt(0)
    } else {
        Value::Hex(v)
    };
    match c.opts.xlat_style {
        1 => num,
        _ => Value::Commented(Box::new(num), Cow::Borrowed(n)),
    }
}

/// An `SMC_DIAG_*` attribute of a reply.
fn attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    let v = match ty {
        1 => payload(c, addr, len, CONNINFO_SIZE)?.map(|b| conninfo(&b)),
        2 => payload(c, addr, len, LGRINFO_SIZE)?.map(|b| lgrinfo(c, &b)),
        3 => return nla_flags(c, addr, len, 1, &xlat::SOCK_SHUTDOWN_FLAGS, "???_SHUTDOWN"),
        4 => payload(c, addr, len, DMBINFO_SIZE)?.map(|b| {
            let d = SmcdDiagDmbinfo(&b);
            Value::structure(vec![
                Field::new("linkid", Value::UInt(d.linkid() as u64)),
                Field::new("peer_gid", Value::Hex(d.peer_gid())),
                Field::new("my_gid", Value::Hex(d.my_gid())),
                Field::new("token", Value::Hex(d.token())),
                Field::new("peer_token", Value::Hex(d.peer_token())),
            ])
        }),
        5 => payload(c, addr, len, SmcDiagFallback::SIZE)?.map(|b| {
            let f = SmcDiagFallback(&b);
            Value::structure(vec![
                Field::new("reason", decl_code(c, f.reason() as u64)),
                Field::new("peer_diagnosis", decl_code(c, f.peer_diagnosis() as u64)),
            ])
        }),
        _ => return None,
    };
    Some(v.unwrap_or_else(|e| e))
}

/// The payload of an AF_SMC sock_diag message (`request`: sent with
/// NLM_F_REQUEST).
pub(in crate::syscall) fn decode(c: &mut Ctx, request: bool, addr: u64, len: u64) -> Vec<Value> {
    let names = AttrNames {
        table: &xlat::SMC_DIAG_ATTRS,
        dflt: "SMC_DIAG_???",
    };
    if request {
        let size = SmcDiagReq::SIZE as u64;
        return request_header(c, addr, len, "diag_family", size, &|c, b| {
            let r = SmcDiagReq(b);
            vec![
                Field::new(
                    "diag_ext",
                    bit_flags(
                        c,
                        r.ext() as u64,
                        0,
                        SMC_DIAG_EXT_BITS,
                        "1<<(SMC_DIAG_???-1)",
                    ),
                ),
                Field::new("id", sockid_value(c, &r.id(), libc::AF_INET as u8)),
            ]
        });
    }
    header_then_attrs(
        c,
        addr,
        len,
        "diag_family",
        SmcDiagMsg::SIZE as u64,
        &|c, b| {
            let m = SmcDiagMsg(b);
            vec![
                Field::new(
                    "diag_state",
                    c.enum_value(m.state() as u64, &xlat::SMC_STATES, "SMC_???"),
                ),
                Field::new(
                    "diag_fallback",
                    c.enum_value(
                        m.fallback() as u64,
                        &xlat::SMC_DIAG_MODE,
                        "SMC_DIAG_MODE_???",
                    ),
                ),
                Field::new("diag_shutdown", Value::UInt(m.shutdown() as u64)),
                Field::new("id", sockid_value(c, &m.id(), libc::AF_INET as u8)),
                Field::new("diag_uid", Value::UInt(m.uid() as u64)),
                Field::new("diag_inode", Value::UInt(m.inode())),
            ]
        },
        names,
        &attr,
    )
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::netlink::netlink_value;
    use crate::syscall::testutil::nla;
    use crate::syscall::testutil::run;
    use crate::syscall::{Ctx, RetFmt, Step};

    /// `x(buf, len)` with the buffer as NETLINK_SOCK_DIAG messages.
    fn diag(c: &mut Ctx) -> Step {
        let v = netlink_value(c, 4, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    #[test]
    fn reply_attributes() {
        let mut m = FakeMemory::default();
        let mut p = vec![43, 1, 0, 0];
        p.extend([0; 60]);
        p.extend(nla(3, &[3]));
        let mut fb = 0x0302_0000u32.to_le_bytes().to_vec();
        fb.extend(0u32.to_le_bytes());
        p.extend(nla(5, &fb));
        let mut b = (16 + p.len() as u32).to_le_bytes().to_vec();
        b.extend(20u16.to_le_bytes());
        b.extend(2u16.to_le_bytes());
        b.extend([0; 8]);
        b.extend(p);
        let a = m.put(&b);
        let out = run(diag, "x", &[a, b.len() as u64], 0, &mut m);
        assert!(
            out.ends_with(
                "diag_uid=0, diag_inode=0}, [[{nla_len=5, nla_type=SMC_DIAG_SHUTDOWN}, \
                 RCV_SHUTDOWN|SEND_SHUTDOWN], [{nla_len=12, nla_type=SMC_DIAG_FALLBACK}, \
                 {reason=0x3020000 /* SMC_CLC_DECL_IPSEC */, \
                 peer_diagnosis=0 /* SMC_CLC_DECL_??? */}]]]) = 0"
            ),
            "{out}"
        );
    }
}
