//! Socket option values strace 7.2 decodes that 6.1 printed as plain
//! numbers or strings: SOL_TIPC's (`TIPC_IMPORTANCE` levels,
//! `struct tipc_group_req`, the `int` of the others) and SOL_IP's
//! `IP_LOCAL_PORT_RANGE` (`[0x80001000 /* 4096..32768 */]`) and
//! `IP_PROTOCOL` (getsockopt's `[IPPROTO_UDP]`), whose values of another
//! length than an `int` print as strings in hex (`"\x01\x02"`).
//! `sockopt.rs` asks here first; `None` leaves the value to it.

use crate::syscall::printers::{hex_quoted, le32};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(super) const SOL_TIPC: u32 = 271;
const SOL_IP: u32 = 0;
const IP_LOCAL_PORT_RANGE: u32 = 51;
const IP_PROTOCOL: u32 = 52;
const TIPC_IMPORTANCE: u32 = 127;
const TIPC_GROUP_JOIN: u32 = 135;
/// `sizeof(struct tipc_group_req)`.
const GROUP_REQ_LEN: i32 = 16;

/// The `u32` at `addr` through `f`, in brackets (`[…]`).
fn u32_at(c: &mut Ctx, addr: u64, f: impl FnOnce(&Ctx, u64) -> Value) -> Value {
    match c.read_pod::<u32>(addr) {
        Some(v) => Value::Array(vec![f(c, v as u64)], false),
        None => Value::Unreadable(addr),
    }
}

/// `len` bytes at `addr` as a string of `\xNN` escapes (strace's
/// `QUOTE_FORCE_HEX`), cut at `-s`; the address when unreadable or when
/// the call's structures print as addresses (`-e verbose=`).
fn hex_buf(c: &mut Ctx, addr: u64, len: i32) -> Value {
    if !c.opts.deref {
        return Value::Ptr(addr);
    }
    match c.buf_value(addr, len as u32 as u64) {
        Value::Str(s) => {
            let mut t = hex_quoted(&s.bytes);
            if s.truncated {
                t.push_str("...");
            }
            Value::sym_owned(t)
        }
        v => v,
    }
}

/// `IP_LOCAL_PORT_RANGE`: the low port in the low 16 bits, the high one
/// above, each left out of the comment when 0.
fn port_range(c: &Ctx, v: u64) -> Value {
    if v == 0 || c.opts.xlat_style == 1 {
        return crate::syscall::printers::xint(v);
    }
    let part = |p: u64| if p == 0 { String::new() } else { p.to_string() };
    let text = format!("{}..{}", part(v & 0xffff), part(v >> 16));
    Value::Commented(Box::new(Value::Hex(v)), Cow::Owned(text))
}

fn group_req(c: &mut Ctx, addr: u64) -> Value {
    let Some(b) = c.read_bytes(addr, GROUP_REQ_LEN as usize) else {
        return Value::Unreadable(addr);
    };
    let scope = c.enum_value(le32(&b, 8), &xlat::TIPC_SCOPES, "TIPC_???_SCOPE");
    let flags = crate::syscall::printers::xflags(
        c,
        le32(&b, 12),
        &xlat::TIPC_GROUP_FLAGS,
        "TIPC_GROUP_???",
    );
    Value::structure(vec![
        Field::new("type", Value::UInt(le32(&b, 0))),
        Field::new("instance", Value::UInt(le32(&b, 4))),
        Field::new("scope", scope),
        Field::new("flags", flags),
    ])
}

/// The value of option `name` at `level`, `len` bytes at `addr` (the
/// length the kernel returned, for getsockopt); `None` for the options
/// `sockopt.rs` decodes.
pub(super) fn value(
    c: &mut Ctx,
    get: bool,
    level: u32,
    name: u32,
    addr: u64,
    len: i32,
) -> Option<Value> {
    let v = match (level, name) {
        (SOL_TIPC, TIPC_GROUP_JOIN) if len < GROUP_REQ_LEN => Value::Ptr(addr),
        (SOL_TIPC, TIPC_GROUP_JOIN) => group_req(c, addr),
        (SOL_TIPC, _) if len < 4 => Value::Ptr(addr),
        (SOL_TIPC, TIPC_IMPORTANCE) => u32_at(c, addr, |c, v| {
            c.enum_value(v, &xlat::TIPC_IMPORTANCE, "TIPC_???_IMPORTANCE")
        }),
        (SOL_TIPC, _) => match c.read_pod::<i32>(addr) {
            Some(v) => Value::Array(vec![Value::Int(v as i64)], false),
            None => Value::Unreadable(addr),
        },
        (SOL_IP, IP_LOCAL_PORT_RANGE) if len == 4 => u32_at(c, addr, port_range),
        (SOL_IP, IP_PROTOCOL) if get && len == 4 => u32_at(c, addr, |c, v| {
            c.enum_value(v, &xlat::INET_PROTOCOLS, "IPPROTO_???")
        }),
        (SOL_IP, IP_LOCAL_PORT_RANGE) => hex_buf(c, addr, len),
        (SOL_IP, IP_PROTOCOL) if get => hex_buf(c, addr, len),
        _ => return None,
    };
    Some(v)
}
