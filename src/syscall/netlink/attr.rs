//! Netlink attribute lists (`struct nlattr` arrays, strace's `nlattr.c`):
//! the walker every netlink family decodes its attributes with, and the
//! payload printers the families share (integers, strings, addresses,
//! indexed arrays).
//!
//! An attribute prints as its header alone (`{nla_len=4, nla_type=X}`) or
//! as `[header, payload]`; a list of more than one as an array of those,
//! cut at `-s` elements as strace cuts it. A payload no decoder takes (or
//! one of the wrong size) prints as a hex string.

use crate::syscall::ctx::render_flags;
use crate::syscall::layout::{kstruct, le_uint};
use crate::syscall::net::sockaddr::{ifindex_value, inet_addr_value};
use crate::syscall::netlink::hexstr_value;
use crate::syscall::printers::hex_quoted;
use crate::syscall::{Ctx, Field, Value};
use crate::value::StrVal;
use rtrace_arch::xlat::Xlat;
use std::borrow::Cow;
use std::net::Ipv6Addr;

kstruct! {
    /// `struct nlattr`.
    pub(in crate::syscall) struct NlAttr size 4 {
        len: u16 @ 0,
        type_: u16 @ 2,
    }
}

/// `NLA_HDRLEN`.
const NLA_HDRLEN: u64 = NlAttr::SIZE as u64;
const NLA_F_NESTED: u16 = 0x8000;
const NLA_F_NET_BYTEORDER: u16 = 0x4000;
const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | NLA_F_NET_BYTEORDER);

/// A payload decoder: `(ctx, type without flags, payload address, payload
/// length)`; `None` prints the payload as a hex string.
pub(in crate::syscall) type AttrDecoder<'a> = &'a dyn Fn(&mut Ctx, u16, u64, u64) -> Option<Value>;

/// How a list's attribute types are named.
#[derive(Clone, Copy)]
pub(in crate::syscall) struct AttrNames {
    /// The table of types.
    pub table: &'static Xlat,
    /// The comment of an unknown type (`IFLA_???`).
    pub dflt: &'static str,
}

/// strace's `decode_nlattr`: the attributes at `addr`, `len` bytes.
pub(in crate::syscall) fn attrs_value(
    c: &mut Ctx,
    mut addr: u64,
    mut len: u64,
    names: AttrNames,
    dec: AttrDecoder,
) -> Value {
    let mut items = Vec::new();
    let mut is_array = false;
    let mut more = false;
    let mut elt = 0usize;
    loop {
        if len < NLA_HDRLEN {
            items.push(hexstr_value(c, addr, len));
            break;
        }
        let Some(b) = c.read_bytes(addr, NLA_HDRLEN as usize) else {
            items.push(if is_array {
                Value::Commented(
                    Box::new(Value::sym("...")),
                    Cow::Owned(format!("{addr:#x}")),
                )
            } else {
                Value::Ptr(addr)
            });
            break;
        };
        if !c.opts.verbose && elt + 1 > c.opts.string_limit {
            more = true;
            break;
        }
        let nla_len = NlAttr(&b).len() as u64;
        let nla_type = NlAttr(&b).type_();
        let aligned = (nla_len + 3) & !3;
        let mut next_addr = 0;
        let mut next_len = 0;
        if nla_len >= NLA_HDRLEN {
            next_len = len.saturating_sub(aligned);
            if next_len != 0 && addr.checked_add(aligned).is_some() {
                next_addr = addr + aligned;
            }
        }
        if next_addr != 0 {
            is_array = true;
        }
        items.push(attr_value(c, nla_len, nla_type, addr, len, names, dec));
        if next_addr == 0 {
            break;
        }
        addr = next_addr;
        len = next_len;
        elt += 1;
    }
    if is_array || more {
        Value::Array(items, more)
    } else {
        items.pop().unwrap_or(Value::Unknown)
    }
}

/// The `nla_type` field: `NLA_F_NESTED|IFLA_XDP`, `0x3f /* IFLA_??? */`.
fn type_value(c: &Ctx, ty: u16, names: AttrNames) -> Value {
    let t = (ty & NLA_TYPE_MASK) as u64;
    let base = c.enum_value(t, names.table, names.dflt);
    let mut prefix = String::new();
    if ty & NLA_F_NESTED != 0 {
        prefix.push_str("NLA_F_NESTED|");
    }
    if ty & NLA_F_NET_BYTEORDER != 0 {
        prefix.push_str("NLA_F_NET_BYTEORDER|");
    }
    if prefix.is_empty() {
        return base;
    }
    let style = c.opts.xlat_style;
    if style != 0 {
        // `0x8000|0x2b`, `0x8000 /* NLA_F_NESTED */|0x2b /* IFLA_XDP */`.
        let mut parts = Vec::new();
        for (bit, n) in [
            (NLA_F_NESTED, "NLA_F_NESTED"),
            (NLA_F_NET_BYTEORDER, "NLA_F_NET_BYTEORDER"),
        ] {
            if ty & bit != 0 {
                parts.push(if style == 1 {
                    format!("{bit:#x}")
                } else {
                    format!("{bit:#x} /* {n} */")
                });
            }
        }
        parts.push(match (style, names.table.lookup(t)) {
            (1, _) => format!("{t:#x}"),
            (_, Some(n)) => format!("{t:#x} /* {n} */"),
            (_, None) => format!("{t:#x} /* {} */", names.dflt),
        });
        return Value::sym_owned(parts.join("|"));
    }
    let rest = match names.table.lookup(t) {
        Some(n) => n.to_string(),
        None => format!("{t:#x} /* {} */", names.dflt),
    };
    Value::sym_owned(prefix + &rest)
}

/// A value decoded from `raw` bytes in the `-X` style: `decoded` by default,
/// the bytes as a hex string under `-X raw`, both under `-X verbose`.
fn styled_bytes(c: &Ctx, raw: &[u8], decoded: Value) -> Value {
    match c.opts.xlat_style {
        1 => Value::sym_owned(hex_quoted(raw)),
        2 => Value::Commented(
            Box::new(Value::sym_owned(hex_quoted(raw))),
            Cow::Owned(render_flags(&decoded)),
        ),
        _ => decoded,
    }
}

/// strace's `decode_nlattr_with_data`: one attribute.
fn attr_value(
    c: &mut Ctx,
    nla_len: u64,
    nla_type: u16,
    addr: u64,
    len: u64,
    names: AttrNames,
    dec: AttrDecoder,
) -> Value {
    let n = nla_len.min(len);
    let hdr = Value::structure(vec![
        Field::new("nla_len", Value::UInt(nla_len)),
        Field::new("nla_type", type_value(c, nla_type, names)),
    ]);
    if n <= NLA_HDRLEN {
        return hdr;
    }
    let (pa, pl) = (addr + NLA_HDRLEN, n - NLA_HDRLEN);
    let payload = match dec(c, nla_type & NLA_TYPE_MASK, pa, pl) {
        Some(v) => v,
        None => hexstr_value(c, pa, pl),
    };
    Value::Array(vec![hdr, payload], false)
}

/// A little-endian unsigned integer of `n` bytes (at most 8).
pub(in crate::syscall) fn read_uint(c: &mut Ctx, addr: u64, n: usize) -> Option<u64> {
    let b = c.read_bytes(addr, n)?;
    Some(le_uint(&b, 0, n))
}

/// An integer payload of exactly the first `size` bytes (`decode_nla_u32`
/// and friends): `None` when shorter; the value printed by `f`.
pub(in crate::syscall) fn nla_int(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    size: usize,
    f: impl FnOnce(&mut Ctx, u64) -> Value,
) -> Option<Value> {
    if len < size as u64 {
        return None;
    }
    Some(match read_uint(c, addr, size) {
        Some(v) => f(c, v),
        None => Value::Unreadable(addr),
    })
}

/// `decode_nla_u8`/`u16`/`u32`/`u64`.
pub(in crate::syscall) fn nla_u(c: &mut Ctx, addr: u64, len: u64, size: usize) -> Option<Value> {
    nla_int(c, addr, len, size, |_, v| Value::UInt(v))
}

/// `decode_nla_s32`.
pub(in crate::syscall) fn nla_s32(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_int(c, addr, len, 4, |_, v| Value::Int(v as u32 as i32 as i64))
}

/// `decode_nla_ifindex`.
pub(in crate::syscall) fn nla_ifindex(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_int(c, addr, len, 4, |c, v| ifindex_value(c, v as u32))
}

/// `decode_nla_fd`.
pub(in crate::syscall) fn nla_fd(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    nla_int(c, addr, len, 4, |c, v| c.fd_value(v as u32 as i32 as i64))
}

/// `decode_nla_xval`: an enum of `size` bytes (0: the whole payload, at
/// most 8 bytes).
pub(in crate::syscall) fn nla_enum(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    size: usize,
    table: &Xlat,
    dflt: &'static str,
) -> Option<Value> {
    if len > 8 || len < size as u64 {
        return None;
    }
    let n = if size == 0 { len as usize } else { size };
    nla_int(c, addr, len, n, |c, v| c.enum_value(v, table, dflt))
}

/// `decode_nla_flags`: flags of `size` bytes.
pub(in crate::syscall) fn nla_flags(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    size: usize,
    table: &Xlat,
    dflt: &'static str,
) -> Option<Value> {
    if len > 8 || len < size as u64 {
        return None;
    }
    nla_int(c, addr, len, size, |c, v| {
        flags_with_dflt(c, v, table, dflt)
    })
}

/// strace's `printflags`: names, or `0x80 /* RTEXT_FILTER_??? */` when no
/// bit has a name.
pub(in crate::syscall) fn flags_with_dflt(
    c: &Ctx,
    v: u64,
    table: &Xlat,
    dflt: &'static str,
) -> Value {
    if v == 0 {
        return match (table.lookup(0), c.opts.xlat_style) {
            (Some(n), 0) => Value::sym(n),
            (Some(n), 2) => Value::Commented(Box::new(Value::UInt(0)), Cow::Borrowed(n)),
            _ => Value::UInt(0),
        };
    }
    if c.opts.xlat_style == 1 {
        return Value::Hex(v);
    }
    let (names, rest) = table.split_flags(v);
    if names.is_empty() {
        return Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(dflt));
    }
    let f = Value::Flags {
        names,
        rest,
        octal_rest: false,
    };
    if c.opts.xlat_style == 2 {
        return Value::Commented(Box::new(Value::Hex(v)), Cow::Owned(render_flags(&f)));
    }
    f
}

/// `decode_nla_str`: the payload as a string without its trailing NUL;
/// `...` when there is none (or `-s` cut it).
pub(in crate::syscall) fn nla_str(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    let n = len.min(c.opts.string_limit as u64) as usize;
    let Some(mut bytes) = c.read_data(addr, n) else {
        return Some(Value::Unreadable(addr));
    };
    let terminated = bytes.last() == Some(&0);
    if terminated {
        bytes.pop();
    }
    Some(Value::Str(StrVal {
        bytes,
        truncated: !terminated,
        c_string: true,
    }))
}

/// `decode_nla_hwaddr`: `02:fc:00:00:00:01` (at most 32 bytes).
pub(in crate::syscall) fn nla_hwaddr(c: &mut Ctx, addr: u64, len: u64) -> Option<Value> {
    if len > 32 {
        return None;
    }
    Some(match c.read_bytes(addr, len as usize) {
        Some(b) => {
            let s: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
            styled_bytes(c, &b, Value::sym_owned(s.join(":")))
        }
        None => Value::Unreadable(addr),
    })
}

/// A MAC address of 6 bytes (`PRINT_FIELD_MAC`), styled by `-X`.
pub(in crate::syscall) fn mac_value(c: &Ctx, b: &[u8]) -> Value {
    let s: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
    styled_bytes(c, b, Value::sym_owned(s.join(":")))
}

/// `inet_addr("…")` / `inet_pton(AF_INET6, "…")` of an address of `family`
/// (strace's `decode_inet_addr`): the hex string when the length does not
/// fit the family.
pub(in crate::syscall) fn inet_addr_nla(c: &mut Ctx, addr: u64, len: u64, family: u8) -> Value {
    let want = match family as i32 {
        libc::AF_INET => 4,
        libc::AF_INET6 => 16,
        _ => return hexstr_value(c, addr, len),
    };
    if len < want {
        return hexstr_value(c, addr, len);
    }
    match c.read_bytes(addr, want as usize) {
        Some(b) => inet_text(c, &b),
        None => Value::Unreadable(addr),
    }
}

/// `inet_addr("1.2.3.4")` or `inet_pton(AF_INET6, "::1")` of 4 or 16 bytes.
pub(in crate::syscall) fn inet_text(c: &Ctx, b: &[u8]) -> Value {
    if b.len() == 4 {
        return inet_addr_value(c, b);
    }
    let mut w = [0u8; 16];
    w.copy_from_slice(&b[..16]);
    let call = Value::Call(
        Cow::Borrowed("inet_pton"),
        vec![
            Value::sym("AF_INET6"),
            Value::Str(StrVal {
                bytes: Ipv6Addr::from(w).to_string().into_bytes(),
                truncated: false,
                c_string: true,
            }),
        ],
    );
    styled_bytes(c, &w, call)
}

/// strace's `decode_inet_addr` with a field name: `name=inet_addr("…")`,
/// `inet_pton(AF_INET6, "…", &name)`, or `name="\x…"` when the length does
/// not fit the family.
pub(in crate::syscall) fn inet_addr_field(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    family: u8,
    name: &'static str,
) -> Field {
    let want = match family as i32 {
        libc::AF_INET => 4,
        libc::AF_INET6 => 16,
        _ => 0,
    };
    if want == 0 || len < want {
        return Field::new(name, hexstr_value(c, addr, len));
    }
    let Some(b) = c.read_bytes(addr, want as usize) else {
        return Field::new(name, Value::Unreadable(addr));
    };
    if want == 4 {
        return Field::new(name, inet_addr_value(c, &b));
    }
    let mut w = [0u8; 16];
    w.copy_from_slice(&b);
    let text = Ipv6Addr::from(w).to_string();
    let call = |amp: bool| {
        let mut args = vec![
            Value::sym("AF_INET6"),
            Value::Str(StrVal {
                bytes: text.clone().into_bytes(),
                truncated: false,
                c_string: true,
            }),
        ];
        if amp {
            args.push(Value::sym_owned(format!("&{name}")));
        }
        Value::Call(Cow::Borrowed("inet_pton"), args)
    };
    match c.opts.xlat_style {
        0 => Field::new("", call(true)),
        1 => Field::new(name, Value::sym_owned(hex_quoted(&w))),
        _ => Field::new(
            name,
            Value::Commented(
                Box::new(Value::sym_owned(hex_quoted(&w))),
                Cow::Owned(render_flags(&call(false))),
            ),
        ),
    }
}

/// `decode_nla_in_addr`/`in6_addr`.
pub(in crate::syscall) fn nla_inet(c: &mut Ctx, addr: u64, len: u64, family: u8) -> Option<Value> {
    let want = if family as i32 == libc::AF_INET {
        4
    } else {
        16
    };
    if len < want {
        return None;
    }
    Some(inet_addr_nla(c, addr, want, family))
}

/// strace's `print_array_ex` with `PAF_PRINT_INDICES`: `[[NAME]=v, [5 /*
/// DFLT */]=v, …]` of `elem`-byte integers, cut at `-s` elements; `None`
/// when not one element fits.
pub(in crate::syscall) fn indexed_array(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    elem: usize,
    signed: bool,
    table: &Xlat,
    dflt: &'static str,
) -> Option<Value> {
    int_array(c, addr, len, elem, signed, Some((table, dflt)))
}

/// An array of `elem`-byte integers (`[11, 12, 13]`), with indices when
/// `names` is given.
pub(in crate::syscall) fn int_array(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    elem: usize,
    signed: bool,
    names: Option<(&Xlat, &'static str)>,
) -> Option<Value> {
    let num = |v: u64| {
        if signed {
            let shift = 64 - 8 * elem as u32;
            (((v << shift) as i64) >> shift).to_string()
        } else {
            v.to_string()
        }
    };
    walk_array(c, addr, len, elem, &|c, i, b| {
        let num = num(le_uint(b, 0, elem));
        match names {
            Some((t, d)) => {
                let idx = match t.lookup(i) {
                    Some(n) if c.opts.xlat_style == 0 => n.to_string(),
                    Some(n) if c.opts.xlat_style == 2 => format!("{i} /* {n} */"),
                    Some(_) => i.to_string(),
                    None if c.opts.xlat_style == 1 => i.to_string(),
                    None => format!("{i} /* {d} */"),
                };
                Value::sym_owned(format!("[{idx}]={num}"))
            }
            None => Value::sym_owned(num),
        }
    })
}

/// strace's `print_array` of `elem`-byte elements printed by `f`, cut at
/// `-s` elements (`... /* addr */` where memory ends); `None` when not one
/// element fits.
pub(in crate::syscall) fn elem_array(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    elem: usize,
    f: &dyn Fn(&mut Ctx, &[u8]) -> Value,
) -> Option<Value> {
    walk_array(c, addr, len, elem, &|c, _, b| f(c, b))
}

/// The walk under [`int_array`] and [`elem_array`]: element `i` (its
/// bytes) printed by `f`, cut at `-s` elements, `... /* addr */` where
/// memory ends, `None` when not one element fits.
fn walk_array(
    c: &mut Ctx,
    addr: u64,
    len: u64,
    elem: usize,
    f: &dyn Fn(&mut Ctx, u64, &[u8]) -> Value,
) -> Option<Value> {
    let cnt = len / elem as u64;
    if cnt == 0 {
        return None;
    }
    let mut items = Vec::new();
    let mut more = false;
    for i in 0..cnt {
        if !c.opts.verbose && i as usize >= c.opts.string_limit {
            more = true;
            break;
        }
        let a = addr + i * elem as u64;
        let Some(b) = c.read_bytes(a, elem) else {
            if i == 0 {
                return Some(Value::Unreadable(addr));
            }
            items.push(Value::Commented(
                Box::new(Value::sym("...")),
                Cow::Owned(format!("{a:#x}")),
            ));
            break;
        };
        items.push(f(c, i, &b));
    }
    Some(Value::Array(items, more))
}

/// A structure of consecutive little-endian fields of `size` bytes each,
/// `names` in order (`IFLA_STATS`, `INET_DIAG_MEMINFO`); `hex` names the
/// fields printed in hex.
pub(in crate::syscall) fn uint_struct(
    c: &mut Ctx,
    addr: u64,
    size: usize,
    names: &[&'static str],
    hex: &[&str],
) -> Value {
    let Some(b) = c.read_bytes(addr, size * names.len()) else {
        return Value::Unreadable(addr);
    };
    let f = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let v = le_uint(&b, i * size, size);
            let v = if hex.contains(n) {
                Value::Hex(v)
            } else {
                Value::UInt(v)
            };
            Field::new(n, v)
        })
        .collect();
    Value::structure(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::nla;
    use crate::syscall::testutil::run;
    use crate::syscall::{RetFmt, Step};
    use rtrace_arch::xlat;

    /// `x(buf, len)` with the buffer as IFLA_* attributes.
    fn link(c: &mut Ctx) -> Step {
        let v =
            crate::syscall::netlink::route::link::link_attrs(c, 0, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    #[test]
    fn nested_short_and_unknown() {
        let mut m = FakeMemory::default();
        let mut b = nla(3, b"lo\0");
        let mut xdp = nla(2, &[1]);
        xdp.extend(nla(3, &0x12u32.to_le_bytes()));
        b.extend(nla(43 | 0x8000, &xdp));
        b.extend(nla(0x3f, &[1, 2]));
        b.extend([9, 9]);
        let a = m.put(&b);
        assert_eq!(
            run(link, "x", &[a, b.len() as u64], 0, &mut m),
            "x([[{nla_len=7, nla_type=IFLA_IFNAME}, \"lo\"], [{nla_len=20, \
             nla_type=NLA_F_NESTED|IFLA_XDP}, [[{nla_len=5, nla_type=IFLA_XDP_ATTACHED}, \
             XDP_ATTACHED_DRV], [{nla_len=8, nla_type=IFLA_XDP_FLAGS}, \
             XDP_FLAGS_SKB_MODE|XDP_FLAGS_REPLACE]]], [{nla_len=6, nla_type=0x3f /* IFLA_??? \
             */}, \"\\x01\\x02\"], \"\\x09\\x09\"]) = 0"
        );
    }

    #[test]
    fn indexed_arrays_cut_at_the_string_limit() {
        let mut m = FakeMemory::default();
        let vals: Vec<u8> = (0..40i32).flat_map(|i| (i - 1).to_le_bytes()).collect();
        let a = m.put(&vals);
        let f = |c: &mut Ctx| -> Step {
            let v = indexed_array(
                c,
                c.arg_ulong(0),
                c.arg_ulong(1),
                4,
                true,
                &xlat::INET6_DEVCONF_INDICES,
                "DEVCONF_???",
            )
            .unwrap();
            c.push(v);
            Step::Done(RetFmt::Int)
        };
        let out = run(f, "x", &[a, 12], 0, &mut m);
        assert_eq!(
            out,
            "x([[DEVCONF_FORWARDING]=-1, [DEVCONF_HOPLIMIT]=0, [DEVCONF_MTU6]=1]) = 0"
        );
        let out = run(f, "x", &[a, 160], 0, &mut m);
        assert!(
            out.ends_with("[DEVCONF_MLDV2_UNSOLICITED_REPORT_INTERVAL]=30, ...]) = 0"),
            "{out}"
        );
    }
}
