//! NETLINK_SOCK_DIAG messages of AF_SMC (strace's `netlink_smc_diag.c`):
//! `struct smc_diag_req`, and `struct smc_diag_msg` replies with their
//! `SMC_DIAG_*` attributes (connection, link group and DMB info, shutdown
//! flags, fallback reasons).

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

fn le32(b: &[u8], o: usize) -> u64 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as u64
}

fn le64(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

/// `sizeof(struct smc_diag_conninfo)`.
const CONNINFO_SIZE: usize = 76;
/// `sizeof(struct smc_diag_lgrinfo)`: one `smc_diag_linkinfo` (146 bytes)
/// and the role.
const LGRINFO_SIZE: usize = 147;
/// `sizeof(struct smcd_diag_dmbinfo)`.
const DMBINFO_SIZE: usize = 40;

/// The payload of `size` bytes at `addr`, `None` when `len` is shorter.
fn payload(c: &mut Ctx, addr: u64, len: u64, size: usize) -> Option<Result<Vec<u8>, Value>> {
    if len < size as u64 {
        return None;
    }
    Some(c.read_bytes(addr, size).ok_or(Value::Unreadable(addr)))
}

/// `struct smc_diag_cursor` at `o`.
fn cursor(b: &[u8], o: usize) -> Value {
    Value::structure(vec![
        Field::new(
            "reserved",
            Value::UInt(u16::from_le_bytes([b[o], b[o + 1]]) as u64),
        ),
        Field::new(
            "wrap",
            Value::UInt(u16::from_le_bytes([b[o + 2], b[o + 3]]) as u64),
        ),
        Field::new("count", Value::UInt(le32(b, o + 4))),
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
    let mut f = vec![
        Field::new("token", Value::UInt(le32(b, 0))),
        Field::new("sndbuf_size", Value::UInt(le32(b, 4))),
        Field::new("rmbe_size", Value::UInt(le32(b, 8))),
        Field::new("peer_rmbe_size", Value::UInt(le32(b, 12))),
    ];
    for (i, n) in ["rx_prod", "rx_cons", "tx_prod", "tx_cons"]
        .iter()
        .enumerate()
    {
        f.push(Field::new(n, cursor(b, 16 + 8 * i)));
    }
    let flags = [
        "rx_prod_flags",
        "rx_conn_state_flags",
        "tx_prod_flags",
        "tx_conn_state_flags",
    ];
    for (i, n) in flags.iter().enumerate() {
        f.push(Field::new(n, Value::Hex(b[48 + i] as u64)));
    }
    for (i, n) in ["tx_prep", "tx_sent", "tx_fin"].iter().enumerate() {
        f.push(Field::new(n, cursor(b, 52 + 8 * i)));
    }
    Value::structure(f)
}

/// `SMC_DIAG_LGRINFO`: the one link and the role.
fn lgrinfo(c: &Ctx, b: &[u8]) -> Value {
    let link = Value::structure(vec![
        Field::new("link_id", Value::UInt(b[0] as u64)),
        Field::new("ibname", cstring(&b[1..65])),
        Field::new("ibport", Value::UInt(b[65] as u64)),
        Field::new("gid", cstring(&b[66..106])),
        Field::new("peer_gid", cstring(&b[106..146])),
    ]);
    Value::structure(vec![
        Field::new("lnk", Value::Array(vec![link], false)),
        Field::new(
            "role",
            c.enum_value(b[146] as u64, &xlat::SMC_LINK_GROUP_ROLES, "SMC_???"),
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
            Value::structure(vec![
                Field::new("linkid", Value::UInt(le32(&b, 0))),
                Field::new("peer_gid", Value::Hex(le64(&b, 8))),
                Field::new("my_gid", Value::Hex(le64(&b, 16))),
                Field::new("token", Value::Hex(le64(&b, 24))),
                Field::new("peer_token", Value::Hex(le64(&b, 32))),
            ])
        }),
        5 => payload(c, addr, len, 8)?.map(|b| {
            Value::structure(vec![
                Field::new("reason", decl_code(c, le32(&b, 0))),
                Field::new("peer_diagnosis", decl_code(c, le32(&b, 4))),
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
        return request_header(c, addr, len, "diag_family", 52, &|c, b| {
            vec![
                Field::new(
                    "diag_ext",
                    bit_flags(c, b[3] as u64, 0, SMC_DIAG_EXT_BITS, "1<<(SMC_DIAG_???-1)"),
                ),
                Field::new("id", sockid_value(c, &b[4..52], libc::AF_INET as u8)),
            ]
        });
    }
    header_then_attrs(
        c,
        addr,
        len,
        "diag_family",
        64,
        &|c, b| {
            vec![
                Field::new(
                    "diag_state",
                    c.enum_value(b[1] as u64, &xlat::SMC_STATES, "SMC_???"),
                ),
                Field::new(
                    "diag_fallback",
                    c.enum_value(b[2] as u64, &xlat::SMC_DIAG_MODE, "SMC_DIAG_MODE_???"),
                ),
                Field::new("diag_shutdown", Value::UInt(b[3] as u64)),
                Field::new("id", sockid_value(c, &b[4..52], libc::AF_INET as u8)),
                Field::new("diag_uid", Value::UInt(le32(b, 52))),
                Field::new(
                    "diag_inode",
                    Value::UInt(u64::from_le_bytes(b[56..64].try_into().unwrap())),
                ),
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
