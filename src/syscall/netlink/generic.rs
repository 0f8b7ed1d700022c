//! NETLINK_GENERIC message types (strace's `genl_families_xlat` in
//! `socketutils.c`): generic netlink family ids are assigned at run time,
//! so their names (`nlctrl`, `devlink`, …) come from a
//! `CTRL_CMD_GETFAMILY` dump the tracer sends to the kernel once, on the
//! first generic netlink message it prints.

use crate::sys::net;
use crate::syscall::layout::{kstruct, le};
use crate::syscall::netlink::attr::NlAttr;
use crate::syscall::netlink::NlMsgHdr;
use crate::syscall::{Ctx, Value};
use std::borrow::Cow;
use std::cell::RefCell;
use std::os::fd::AsFd;

kstruct! {
    /// `struct genlmsghdr`.
    struct GenlMsgHdr size 4 {
        cmd: u8 @ 0,
        version: u8 @ 1,
        reserved: u16 @ 2,
    }
}

const GENL_ID_CTRL: u16 = 0x10;
const CTRL_CMD_NEWFAMILY: u8 = 1;
const CTRL_CMD_GETFAMILY: u8 = 3;
const CTRL_ATTR_FAMILY_ID: u16 = 1;
const CTRL_ATTR_FAMILY_NAME: u16 = 2;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;

thread_local! {
    /// Family id → name, once queried.
    static FAMILIES: RefCell<Option<Vec<(u16, String)>>> = const { RefCell::new(None) };
}

/// The families in one `CTRL_CMD_NEWFAMILY` message body (after the
/// netlink header): `(id, name)` when both attributes are there.
fn parse_family(body: &[u8]) -> Option<(u16, String)> {
    if body.len() < GenlMsgHdr::SIZE || GenlMsgHdr(body).cmd() != CTRL_CMD_NEWFAMILY {
        return None;
    }
    let (mut id, mut name) = (None, None);
    let mut a = &body[GenlMsgHdr::SIZE..];
    while a.len() >= NlAttr::SIZE {
        let l = NlAttr(a).len() as usize;
        let t = NlAttr(a).type_() & 0x3fff;
        if l < NlAttr::SIZE || l > a.len() {
            break;
        }
        let p = &a[NlAttr::SIZE..l];
        match t {
            CTRL_ATTR_FAMILY_ID if p.len() >= 2 => id = Some(le::<u16>(p, 0)),
            CTRL_ATTR_FAMILY_NAME => {
                let s = p.split(|&x| x == 0).next().unwrap_or(p);
                name = Some(String::from_utf8_lossy(s).into_owned());
            }
            _ => {}
        }
        a = &a[((l + 3) & !3).min(a.len())..];
    }
    Some((id?, name?))
}

/// Splits a buffer of netlink messages into `(type, body)` pairs.
fn messages(mut buf: &[u8]) -> Vec<(u16, &[u8])> {
    let mut out = Vec::new();
    while buf.len() >= NlMsgHdr::SIZE {
        let h = NlMsgHdr(buf);
        let l = h.len() as usize;
        if l < NlMsgHdr::SIZE || l > buf.len() {
            break;
        }
        out.push((h.type_(), &buf[NlMsgHdr::SIZE..l]));
        buf = &buf[((l + 3) & !3).min(buf.len())..];
    }
    out
}

/// Asks the kernel for its generic netlink families.
fn query_families() -> Vec<(u16, String)> {
    let mut found = Vec::new();
    // The socket closes at the end of this block.
    {
        let Ok(sock) = net::netlink(net::Netlink::Generic) else {
            return found;
        };
        let fd = sock.as_fd();
        let mut req = 20u32.to_le_bytes().to_vec();
        req.extend(GENL_ID_CTRL.to_le_bytes());
        req.extend(0x301u16.to_le_bytes());
        req.extend([0; 8]);
        req.extend([CTRL_CMD_GETFAMILY, 1, 0, 0]);
        let sent = net::send(fd, &req);
        let mut buf = vec![0u8; 32768];
        'recv: loop {
            if sent <= 0 {
                break;
            }
            let n = net::recv(fd, &mut buf);
            if n <= 0 {
                break;
            }
            for (ty, body) in messages(&buf[..n as usize]) {
                if ty == NLMSG_DONE || ty == NLMSG_ERROR {
                    break 'recv;
                }
                if ty == GENL_ID_CTRL {
                    found.extend(parse_family(body));
                }
            }
        }
    }
    found
}

/// The `nlmsg_type` of a generic netlink message: the family name.
pub(in crate::syscall) fn type_value(c: &Ctx, ty: u16) -> Value {
    let name = FAMILIES.with(|f| {
        f.borrow_mut()
            .get_or_insert_with(query_families)
            .iter()
            .find(|e| e.0 == ty)
            .map(|e| e.1.clone())
    });
    match (name, c.opts.xlat_style) {
        (Some(_), 1) => Value::Hex(ty as u64),
        (Some(n), 2) => Value::Commented(Box::new(Value::Hex(ty as u64)), Cow::Owned(n)),
        (Some(n), _) => Value::sym_owned(n),
        (None, 1) => Value::Hex(ty as u64),
        (None, _) => Value::Commented(
            Box::new(Value::Hex(ty as u64)),
            Cow::Borrowed("GENERIC_FAMILY_???"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_family_message() {
        let mut b = 36u32.to_le_bytes().to_vec();
        b.extend(GENL_ID_CTRL.to_le_bytes());
        b.extend([0; 10]);
        b.extend([CTRL_CMD_NEWFAMILY, 2, 0, 0]);
        b.extend(11u16.to_le_bytes());
        b.extend(CTRL_ATTR_FAMILY_NAME.to_le_bytes());
        b.extend(b"nlctrl\0\0");
        b.extend(6u16.to_le_bytes());
        b.extend(CTRL_ATTR_FAMILY_ID.to_le_bytes());
        b.extend(0x10u16.to_le_bytes());
        b.resize(40, 0);
        b[0] = 40;
        let m = messages(&b);
        assert_eq!(m.len(), 1);
        assert_eq!(parse_family(m[0].1), Some((0x10, "nlctrl".to_string())));
    }

    #[test]
    fn the_kernel_knows_nlctrl() {
        // GENL_ID_CTRL is the control family itself, always registered.
        let f = query_families();
        assert!(
            f.iter().any(|e| e == &(0x10, "nlctrl".to_string())),
            "{f:?}"
        );
    }
}
