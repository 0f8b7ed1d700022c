//! NETLINK_SOCK_DIAG messages of AF_UNIX (strace's `netlink_unix_diag.c`):
//! `struct unix_diag_req` (what `ss -xa` sends) and `struct unix_diag_msg`
//! replies with their `UNIX_DIAG_*` attributes (name, peer, queue lengths,
//! shutdown, VFS inode, pending connections, memory, uid).

use crate::syscall::layout::kstruct;
use crate::syscall::netlink::attr::{indexed_array, int_array, nla_str, nla_u, AttrNames};
use crate::syscall::netlink::route::msgs::header_then_attrs;
use crate::syscall::netlink::sock_diag::netlink::cookie_value;
use crate::syscall::netlink::sock_diag::request_header;
use crate::syscall::netlink::sock_diag::{bit_flags, TCP_STATE_FLAGS};
use crate::syscall::printers::dev_value;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

kstruct! {
    /// `struct unix_diag_req`.
    struct UnixDiagReq size 24 {
        family: u8 @ 0,
        protocol: u8 @ 1,
        states: u32 @ 4,
        ino: u32 @ 8,
        show: u32 @ 12,
        cookie: [u8; 8] @ 16,
    }
}

kstruct! {
    /// `struct unix_diag_msg`.
    struct UnixDiagMsg size 16 {
        family: u8 @ 0,
        type_: u8 @ 1,
        state: u8 @ 2,
        ino: u32 @ 4,
        cookie: [u8; 8] @ 8,
    }
}

kstruct! {
    /// `struct unix_diag_vfs`.
    struct UnixDiagVfs size 8 {
        ino: u32 @ 0,
        dev: u32 @ 4,
    }
}

const REQ_SIZE: usize = UnixDiagReq::SIZE;
const MSG_SIZE: usize = UnixDiagMsg::SIZE;

/// `{sdiag_family=AF_UNIX, sdiag_protocol=0, udiag_states=…, udiag_ino=…,
/// udiag_show=…, udiag_cookie=[…]}`.
fn req_value(c: &Ctx, b: &[u8]) -> Value {
    let r = UnixDiagReq(b);
    Value::structure(vec![
        Field::new(
            "sdiag_family",
            c.enum_value(r.family() as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
        ),
        Field::new("sdiag_protocol", Value::UInt(r.protocol() as u64)),
        Field::new(
            "udiag_states",
            bit_flags(c, r.states() as u64, 1, TCP_STATE_FLAGS, "1<<TCP_???"),
        ),
        Field::new("udiag_ino", Value::UInt(r.ino() as u64)),
        Field::new(
            "udiag_show",
            crate::syscall::netlink::attr::flags_with_dflt(
                c,
                r.show() as u64,
                &xlat::UNIX_DIAG_SHOW,
                "UDIAG_SHOW_???",
            ),
        ),
        Field::new("udiag_cookie", cookie_value(r.cookie())),
    ])
}

/// `{udiag_family=AF_UNIX, udiag_type=…, udiag_state=…, udiag_ino=…,
/// udiag_cookie=[…]}`.
fn msg_value(c: &Ctx, b: &[u8]) -> Value {
    let m = UnixDiagMsg(b);
    Value::structure(vec![
        Field::new(
            "udiag_family",
            c.enum_value(m.family() as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
        ),
        Field::new(
            "udiag_type",
            c.enum_value(m.type_() as u64, &xlat::SOCKET_TYPES, "SOCK_???"),
        ),
        Field::new(
            "udiag_state",
            c.enum_value(m.state() as u64, &xlat::TCP_STATES, "TCP_???"),
        ),
        Field::new("udiag_ino", Value::UInt(m.ino() as u64)),
        Field::new("udiag_cookie", cookie_value(m.cookie())),
    ])
}

/// A `UNIX_DIAG_*` attribute.
fn attr(c: &mut Ctx, ty: u16, addr: u64, len: u64) -> Option<Value> {
    match ty {
        // UNIX_DIAG_NAME.
        0 => nla_str(c, addr, len),
        // UNIX_DIAG_VFS: {udiag_vfs_ino, udiag_vfs_dev}, the device first.
        1 => {
            if len < UnixDiagVfs::SIZE as u64 {
                return None;
            }
            let Some(b) = c.read_bytes(addr, UnixDiagVfs::SIZE) else {
                return Some(Value::Unreadable(addr));
            };
            let v = UnixDiagVfs(&b);
            Some(Value::structure(vec![
                Field::new("udiag_vfs_dev", dev_value(c, v.dev() as u64)),
                Field::new("udiag_vfs_ino", Value::UInt(v.ino() as u64)),
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
