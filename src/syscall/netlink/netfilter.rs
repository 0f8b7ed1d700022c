//! NETLINK_NETFILTER messages (strace's `netlink_netfilter.c` and the
//! netfilter parts of `netlink.c`): the message type split into subsystem
//! and message (`NFNL_SUBSYS_CTNETLINK<<8|IPCTNL_MSG_CT_NEW`), the per-type
//! request flags, and the `struct nfgenmsg` payload followed by attributes
//! strace does not name (`{nla_len=4, nla_type=0xbcd}`).

use crate::syscall::ctx::render_flags;
use crate::syscall::layout::kstruct;
use crate::syscall::netlink::attr::{attrs_value, AttrNames};
use crate::syscall::netlink::{hexstr_value, Nlmsghdr};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat, XlatKind};
use std::borrow::Cow;

kstruct! {
    /// `struct nfgenmsg`.
    struct NfGenMsg size 4 {
        nfgen_family: u8 @ 0,
        version: u8 @ 1,
        res_id: be16 @ 2,
    }
}

const NFGENMSG_SIZE: u64 = NfGenMsg::SIZE as u64;

const NLMSG_DONE: u16 = 3;
const NLMSG_MIN_TYPE: u16 = 16;
const NFNL_MSG_BATCH_BEGIN: u16 = 16;
const NFNL_MSG_BATCH_END: u16 = 17;
const NFNL_SUBSYS_CTNETLINK: u8 = 1;
const NFNL_SUBSYS_CTNETLINK_EXP: u8 = 2;
const NFNL_SUBSYS_ACCT: u8 = 7;
const NFNL_SUBSYS_CTNETLINK_TIMEOUT: u8 = 8;
const NFNL_SUBSYS_CTHELPER: u8 = 9;
const NFNL_SUBSYS_NFTABLES: u8 = 10;
const NFNL_SUBSYS_NFT_COMPAT: u8 = 11;
const NFNL_SUBSYS_HOOK: u8 = 12;

/// A table with no names: attribute types print as bare numbers.
pub(in crate::syscall) static NO_NAMES: Xlat = Xlat {
    name: "",
    kind: XlatKind::Enum,
    entries: &[],
};

/// The message types of each subsystem, by subsystem id.
fn subsys_types(subsys: u8) -> Option<(&'static Xlat, &'static str)> {
    Some(match subsys {
        1 => (&xlat::NF_CTNETLINK_MSG_TYPES, "IPCTNL_MSG_CT_???"),
        2 => (&xlat::NF_CTNETLINK_EXP_MSG_TYPES, "IPCTNL_MSG_EXP_???"),
        3 => (&xlat::NF_QUEUE_MSG_TYPES, "NFQNL_MSG_???"),
        4 => (&xlat::NF_ULOG_MSG_TYPES, "NFULNL_MSG_???"),
        5 => (&xlat::NF_OSF_MSG_TYPES, "OSF_MSG_???"),
        6 => (&xlat::NF_IPSET_MSG_TYPES, "IPSET_CMD_???"),
        7 => (&xlat::NF_ACCT_MSG_TYPES, "NFNL_MSG_ACCT_???"),
        8 => (&xlat::NF_CTTIMEOUT_MSG_TYPES, "IPCTNL_MSG_TIMEOUT_???"),
        9 => (&xlat::NF_CTHELPER_MSG_TYPES, "NFNL_MSG_CTHELPER_???"),
        10 => (&xlat::NF_NFTABLES_MSG_TYPES, "NFT_MSG_???"),
        11 => (&xlat::NF_NFT_COMPAT_MSG_TYPES, "NFNL_MSG_COMPAT_???"),
        12 => (&xlat::NF_HOOK_MSG_TYPES, "NFT_MSG_HOOK_???"),
        _ => return None,
    })
}

/// The `nlmsg_type` of a netfilter message: a batch control type, or
/// `SUBSYS<<8|MSG`.
pub(in crate::syscall) fn type_value(c: &Ctx, ty: u16) -> Value {
    if xlat::NL_NETFILTER_MSG_TYPES.lookup(ty as u64).is_some() {
        return c.enum_value(ty as u64, &xlat::NL_NETFILTER_MSG_TYPES, "");
    }
    let subsys = (ty >> 8) as u8;
    let msg = ty as u8;
    let sv = c.enum_value(
        subsys as u64,
        &xlat::NL_NETFILTER_SUBSYS_IDS,
        "NFNL_SUBSYS_???",
    );
    let mv = match subsys_types(subsys) {
        Some((t, d)) => c.enum_value(msg as u64, t, d),
        None => Value::Hex(msg as u64),
    };
    Value::sym_owned(format!("{}<<8|{}", render_flags(&sv), render_flags(&mv)))
}

/// The type-specific flags of a netfilter message type (strace's
/// `decode_nlmsg_flags_netfilter`).
pub(in crate::syscall) fn flags_table(ty: u16) -> Option<&'static Xlat> {
    let (new, get, del) = (
        &xlat::NETLINK_NEW_FLAGS,
        &xlat::NETLINK_GET_FLAGS,
        &xlat::NETLINK_DELETE_FLAGS,
    );
    let msg = ty as u8;
    Some(match (ty >> 8) as u8 {
        NFNL_SUBSYS_CTNETLINK => match msg {
            0 => new,
            1 | 3..=7 => get,
            2 => del,
            _ => return None,
        },
        NFNL_SUBSYS_CTNETLINK_EXP => match msg {
            0 => new,
            1 | 3 => get,
            2 => del,
            _ => return None,
        },
        NFNL_SUBSYS_ACCT => match msg {
            0 => new,
            1 | 2 => get,
            3 => del,
            _ => return None,
        },
        NFNL_SUBSYS_CTNETLINK_TIMEOUT | NFNL_SUBSYS_CTHELPER => match msg {
            0 => new,
            1 => get,
            2 => del,
            _ => return None,
        },
        NFNL_SUBSYS_NFTABLES => match msg {
            0 | 3 | 6 | 9 | 0xc | 0xf | 0x12 | 0x16 => new,
            1 | 4 | 7 | 0xa | 0xd | 0x10 | 0x13 | 0x15 | 0x17 => get,
            2 | 5 | 8 | 0xb | 0xe | 0x14 | 0x18 => del,
            _ => return None,
        },
        NFNL_SUBSYS_NFT_COMPAT | NFNL_SUBSYS_HOOK if msg == 0 => get,
        _ => return None,
    })
}

/// strace's `decode_netlink_netfilter`: `{nfgen_family=…, version=…,
/// res_id=…}`, then the attributes (a hex string for batch messages).
pub(in crate::syscall) fn decode(
    c: &mut Ctx,
    h: &Nlmsghdr,
    addr: u64,
    len: u64,
) -> Option<Vec<Value>> {
    if h.ty == NLMSG_DONE {
        return None;
    }
    if len < NFGENMSG_SIZE {
        return Some(vec![hexstr_value(c, addr, len)]);
    }
    let Some(b) = c.read_bytes(addr, NfGenMsg::SIZE) else {
        return Some(vec![Value::Unreadable(addr)]);
    };
    let m = NfGenMsg(&b);
    let subsys = (h.ty >> 8) as u8;
    let res_id = m.res_id();
    // The field as the host reads it, before ntohs.
    let raw = res_id.swap_bytes();
    let nft = subsys == NFNL_SUBSYS_NFTABLES;
    let named = |c: &Ctx, text: &'static str| match c.opts.xlat_style {
        1 => Value::Hex(raw as u64),
        2 => Value::Commented(Box::new(Value::Hex(raw as u64)), Cow::Borrowed(text)),
        _ => Value::sym(text),
    };
    let rv = if nft && res_id == NFNL_SUBSYS_NFTABLES as u16 {
        named(c, "htons(NFNL_SUBSYS_NFTABLES)")
    } else if nft && raw == NFNL_SUBSYS_NFTABLES as u16 {
        named(c, "NFNL_SUBSYS_NFTABLES")
    } else {
        Value::Call(Cow::Borrowed("htons"), vec![Value::UInt(res_id as u64)])
    };
    let mut out = vec![Value::structure(vec![
        Field::new(
            "nfgen_family",
            c.enum_value(m.nfgen_family() as u64, &xlat::SOCKET_FAMILIES, "AF_???"),
        ),
        Field::new(
            "version",
            c.enum_value(
                m.version() as u64,
                &xlat::NETFILTER_VERSIONS,
                "NFNETLINK_???",
            ),
        ),
        Field::new("res_id", rv),
    ])];
    if len > NFGENMSG_SIZE {
        let batch = (NFNL_MSG_BATCH_BEGIN..=NFNL_MSG_BATCH_END).contains(&h.ty);
        out.push(if batch || h.ty < NLMSG_MIN_TYPE {
            hexstr_value(c, addr + NFGENMSG_SIZE, len - NFGENMSG_SIZE)
        } else {
            attrs_value(
                c,
                addr + NFGENMSG_SIZE,
                len - NFGENMSG_SIZE,
                AttrNames {
                    table: &NO_NAMES,
                    dflt: "",
                },
                &|_, _, _, _| None,
            )
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::netlink::netlink_value;
    use crate::syscall::testutil::run;
    use crate::syscall::{RetFmt, Step};

    fn nf(c: &mut Ctx) -> Step {
        let v = netlink_value(c, 12, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    #[test]
    fn subsystem_types_and_nfgenmsg() {
        let mut m = FakeMemory::default();
        let mut b = 24u32.to_le_bytes().to_vec();
        b.extend(0xa00u16.to_le_bytes());
        b.extend(1u16.to_le_bytes());
        b.extend([0; 8]);
        b.extend([1, 0, 0, 10]);
        b.extend([4, 0, 0xcd, 0x0b]);
        let a = m.put(&b);
        assert_eq!(
            run(nf, "x", &[a, 24], 0, &mut m),
            "x([{nlmsg_len=24, nlmsg_type=NFNL_SUBSYS_NFTABLES<<8|NFT_MSG_NEWTABLE, \
             nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=0, nlmsg_pid=0}, {nfgen_family=AF_UNIX, \
             version=NFNETLINK_V0, res_id=htons(NFNL_SUBSYS_NFTABLES)}, {nla_len=4, \
             nla_type=0xbcd}]) = 0"
        );
        let mut b = 16u32.to_le_bytes().to_vec();
        b.extend(0xffffu16.to_le_bytes());
        b.extend(1u16.to_le_bytes());
        b.extend([0; 8]);
        let a = m.put(&b);
        assert_eq!(
            run(nf, "x", &[a, 16], 0, &mut m),
            "x({nlmsg_len=16, nlmsg_type=0xff /* NFNL_SUBSYS_??? */<<8|0xff, \
             nlmsg_flags=NLM_F_REQUEST, nlmsg_seq=0, nlmsg_pid=0}) = 0"
        );
    }
}
