//! NETLINK_SOCK_DIAG messages of AF_UNIX (strace's `netlink_unix_diag.c`):
//! `struct unix_diag_req` (what `ss -xa` sends) and `struct unix_diag_msg`
//! replies with their `UNIX_DIAG_*` attributes (name, peer, queue lengths,
//! shutdown, VFS inode, pending connections, memory, uid).

use crate::syscall::netlink::attr::{indexed_array, int_array, nla_str, nla_u, AttrNames};
use crate::syscall::netlink::route::msgs::header_then_attrs;
use crate::syscall::netlink::sock_diag::request_header;
use crate::syscall::netlink::sock_diag::{bit_flags, TCP_STATE_FLAGS};
use crate::syscall::printers::dev_value;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// `sizeof(struct unix_diag_req)`.
const REQ_SIZE: usize = 24;
/// `sizeof(struct unix_diag_msg)`.
const MSG_SIZE: usize = 16;

fn le32(b: &[u8], o: usize) -> u64 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as u64
}

/// `udiag_cookie=[a, b]`.
fn cookie(b: &[u8], o: usize) -> Value {
    Value::Array(
        vec![Value::UInt(le32(b, o)), Value::UInt(le32(b, o + 4))],
        false,
    )
}

/// `{sdiag_family=AF_UNIX, sdiag_protocol=0, udiag_states=…, udiag_ino=…,
/// udiag_show=…, udiag_cookie=[…]}`.
fn req_value(c: &Ctx, b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new(
            "sdiag_family",
            c.enum_value(b[0] as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
        ),
        Field::new("sdiag_protocol", Value::UInt(b[1] as u64)),
        Field::new(
            "udiag_states",
            bit_flags(c, le32(b, 4), 1, TCP_STATE_FLAGS, "1<<TCP_???"),
        ),
        Field::new("udiag_ino", Value::UInt(le32(b, 8))),
        Field::new(
            "udiag_show",
            crate::syscall::netlink::attr::flags_with_dflt(
                c,
                le32(b, 12),
                &xlat::UNIX_DIAG_SHOW,
                "UDIAG_SHOW_???",
            ),
        ),
        Field::new("udiag_cookie", cookie(b, 16)),
    ])
}

/// `{udiag_family=AF_UNIX, udiag_type=…, udiag_state=…, udiag_ino=…,
/// udiag_cookie=[…]}`.
fn msg_value(c: &Ctx, b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new(
            "udiag_family",
            c.enum_value(b[0] as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
        ),
        Field::new(
            "udiag_type",
            c.enum_value(b[1] as u64, &xlat::SOCKET_TYPES, "SOCK_???"),
        ),
        Field::new(
            "udiag_state",
            c.enum_value(b[2] as u64, &xlat::TCP_STATES, "TCP_???"),
        ),
        Field::new("udiag_ino", Value::UInt(le32(b, 4))),
        Field::new("udiag_cookie", cookie(b, 8)),
    ])
}

/// A `UNIX_DIAG_*` attribute.
fn attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        // UNIX_DIAG_NAME.
        0 => nla_str(c, addr, len),
        // UNIX_DIAG_VFS: {udiag_vfs_ino, udiag_vfs_dev}, the device first.
        1 => {
            if len < 8 {
                return None;
            }
            let Some(b) = c.read_bytes(addr, 8) else {
                return Some(Value::Unreadable(addr));
            };
            Some(Value::structure(vec![
                Field::new("udiag_vfs_dev", dev_value(c, le32(&b, 4))),
                Field::new("udiag_vfs_ino", Value::UInt(le32(&b, 0))),
            ]))
        }
        // UNIX_DIAG_PEER, UNIX_DIAG_UID.
        2 | 7 => nla_u(c, addr, len, 4),
        // UNIX_DIAG_ICONS.
        3 => int_array(c, addr, len, 4, false, None),
        // UNIX_DIAG_RQLEN.
        4 => {
            if len < 8 {
                return None;
            }
            Some(crate::syscall::netlink::attr::uint_struct(
                c,
                addr,
                4,
                &["udiag_rqueue", "udiag_wqueue"],
                &[],
            ))
        }
        // UNIX_DIAG_MEMINFO.
        5 => indexed_array(
            c,
            addr,
            len,
            4,
            false,
            &xlat::NETLINK_SK_MEMINFO_INDICES,
            "SK_MEMINFO_???",
        ),
        // UNIX_DIAG_SHUTDOWN.
        6 => nla_u(c, addr, len, 1),
        _ => None,
    }
}

/// The fields of `value` (a structure) after the first, the family.
fn rest_fields(value: Value) -> Vec<Field> {
    match value {
        Value::Struct(f, _) => f.into_iter().skip(1).collect(),
        _ => Vec::new(),
    }
}

/// The payload of an AF_UNIX sock_diag message (`request`: sent with
/// NLM_F_REQUEST): the header (`{…, ...}` when short), then for a reply
/// its attributes.
pub(in crate::syscall) fn decode(
    c: &mut Ctx,
    request: bool,
    addr: u64,
    len: u64,
) -> Option<Vec<Value>> {
    if request {
        return Some(request_header(
            c,
            addr,
            len,
            "sdiag_family",
            REQ_SIZE as u64,
            &|c, b| rest_fields(req_value(c, b)),
        ));
    }
    Some(header_then_attrs(
        c,
        addr,
        len,
        "udiag_family",
        MSG_SIZE as u64,
        &|c, b| rest_fields(msg_value(c, b)),
        NAMES,
        &attr,
    ))
}

const NAMES: AttrNames = AttrNames {
    table: &xlat::UNIX_DIAG_ATTRS,
    dflt: "UNIX_DIAG_???",
};
