//! NETLINK_SOCK_DIAG messages of AF_SMC (strace's `netlink_smc_diag.c`):
//! `struct smc_diag_req` and the `struct smc_diag_msg` header of replies.
//! Their `SMC_DIAG_*` attributes are named but print as hex strings.

use super::netlink_attr::AttrNames;
use super::netlink_diag::bit_flags;
use super::netlink_diag::sockid_value;
use super::netlink_route_msgs::header_then_attrs;
use super::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// strace's `smc_diag_extended_flags`: bit `1<<(attr-1)` per extension.
const SMC_DIAG_EXT_BITS: &[&str] = &["1<<(SMC_DIAG_CONNINFO-1)", "1<<(SMC_DIAG_LGRINFO-1)"];

fn le32(b: &[u8], o: usize) -> u64 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as u64
}

/// The payload of an AF_SMC sock_diag message (`request`: sent with
/// NLM_F_REQUEST).
pub(super) fn decode(c: &mut Ctx, request: bool, addr: u64, len: u64) -> Vec<Value> {
    let names = AttrNames {
        table: &xlat::SMC_DIAG_ATTRS,
        dflt: "SMC_DIAG_???",
    };
    if request {
        let mut v = header_then_attrs(
            c,
            addr,
            len,
            "diag_family",
            52,
            &|c, b| {
                vec![
                    Field::new(
                        "diag_ext",
                        bit_flags(c, b[3] as u64, 0, SMC_DIAG_EXT_BITS, "1<<(SMC_DIAG_???-1)"),
                    ),
                    Field::new("id", sockid_value(c, &b[4..52], libc::AF_INET as u8)),
                ]
            },
            names,
            &|_, _, _, _| None,
        );
        v.truncate(1);
        return v;
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
        &|_, _, _, _| None,
    )
}
