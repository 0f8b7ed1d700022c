//! Device-mapper ioctls (type 0xfd, linux/dm-ioctl.h) as strace 6.1
//! prints them: `[{header}, payload...]`, the `struct dm_ioctl` header
//! (its device, counters and flags, as far as the ABI version and
//! `data_size` allow) followed, with `-v`, by what the data area holds for
//! the request: target specs, dependencies, device names, target
//! versions, target messages or strings (`...` without `-v`). The input
//! prints at entry; at exit, after a success or when the kernel changed
//! the header, ` => ` and the output.

#[cfg(test)]
mod tests;

use crate::syscall::array::array_at;
use crate::syscall::ioctl::exit_state;
use crate::syscall::ioctl::misc::cstring_field;
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{dev_value, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use crate::value::StrVal;
use rtrace_arch::xlat;
use std::borrow::Cow;

/// `offsetof(struct dm_ioctl, data)`: the header strace reads.
const HDR: usize = 305;
/// `DM_VERSION_MAJOR`: other ABI versions print only `version`.
const VERSION_MAJOR: u64 = 4;
/// `DM_SUSPEND_FLAG` and `DM_DATA_OUT_FLAG`.
const SUSPEND_FLAG: u64 = 0x2;
const DATA_OUT_FLAG: u64 = 0x10000;

/// The requests strace decodes (`DM_GET_TARGET_VERSION` prints in hex).
const KNOWN: &[&str] = &[
    "DM_VERSION",
    "DM_REMOVE_ALL",
    "DM_LIST_DEVICES",
    "DM_DEV_CREATE",
    "DM_DEV_REMOVE",
    "DM_DEV_RENAME",
    "DM_DEV_SUSPEND",
    "DM_DEV_STATUS",
    "DM_DEV_WAIT",
    "DM_TABLE_LOAD",
    "DM_TABLE_CLEAR",
    "DM_TABLE_DEPS",
    "DM_TABLE_STATUS",
    "DM_LIST_VERSIONS",
    "DM_TARGET_MSG",
    "DM_DEV_SET_GEOMETRY",
    "DM_DEV_ARM_POLL",
];

/// A `%u` value.
fn u(v: u64) -> Value {
    Value::UInt(v)
}

/// The header fields whose change makes a failed call print its output
/// (version, `data_size`, `data_start`, flags), hashed into 62 bits.
fn header_key(h: &[u8]) -> u64 {
    let mut x: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in h[0..20].iter().chain(&h[28..32]) {
        x = (x ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    x >> 2
}

/// The device-mapper requests (type 0xfd).
pub(in crate::syscall::ioctl) fn dm(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(&name) = names.iter().find(|n| KNOWN.contains(n)) else {
        return Io::Hex;
    };
    let hdr = c.read_bytes(arg, HDR).filter(|h| le32(h, 12) >= 12);
    if c.entering() {
        let Some(h) = hdr else {
            return Io::Hex;
        };
        let v = decode(c, name, arg, &h);
        c.push(v);
        c.entry_complete = true;
        return Io::ExitWith(header_key(&h));
    }
    let Some(h) = hdr else {
        // strace leaves the argument to the generic decoder: its address.
        return Io::Arg(Value::Joined(vec![Value::sym(", "), xint(arg)], ""));
    };
    if c.failed() && header_key(&h) == exit_state(c) {
        return Io::NoArg;
    }
    let v = decode(c, name, arg, &h);
    Io::Arg(Value::Joined(vec![Value::sym(" => "), v], ""))
}

/// `[{header}, payload...]` of request `name` with header `h` at `arg`.
fn decode(c: &mut Ctx, name: &str, arg: u64, h: &[u8]) -> Value {
    let mut items = Vec::new();
    if let Some(hdr) = header(c, name, h, &mut items) {
        payload(c, name, arg, &hdr, &mut items);
    }
    Value::Array(items, false)
}

/// The header values the payload decoders need.
struct Hdr {
    minor: u64,
    data_size: u64,
    data_start: u64,
    target_count: u64,
    flags: u64,
}

/// Pushes the header structure; `None` when the payload cannot be
/// trusted (unsupported ABI version or a `data_size` too small).
fn header(c: &mut Ctx, name: &str, h: &[u8], items: &mut Vec<Value>) -> Option<Hdr> {
    let ver: Vec<Value> = (0..3).map(|i| u(le32(h, 4 * i))).collect();
    let ver = Value::Array(ver, false);
    let hdr = Hdr {
        minor: le32(h, 4),
        data_size: le32(h, 12),
        data_start: le32(h, 16),
        target_count: le32(h, 20),
        flags: le32(h, 28),
    };
    if le32(h, 0) != VERSION_MAJOR {
        let ver = Value::Commented(
            Box::new(ver),
            Cow::Borrowed("unsupported device mapper ABI version"),
        );
        items.push(Value::structure(vec![Field::new("version", ver)]));
        return None;
    }
    let mut f = vec![Field::new("version", ver)];
    if hdr.data_size < HDR as u64 {
        let size = Value::Commented(
            Box::new(u(hdr.data_size)),
            Cow::Borrowed("data_size too small"),
        );
        f.push(Field::new("data_size", size));
        items.push(Value::structure(f));
        return None;
    }
    f.push(Field::new("data_size", u(hdr.data_size)));
    let no_params = [
        "DM_VERSION",
        "DM_REMOVE_ALL",
        "DM_DEV_CREATE",
        "DM_DEV_REMOVE",
        "DM_DEV_SUSPEND",
        "DM_DEV_STATUS",
        "DM_TABLE_CLEAR",
        "DM_DEV_ARM_POLL",
    ];
    if !no_params.contains(&name) {
        f.push(Field::new("data_start", u(hdr.data_start)));
    }
    if !matches!(
        name,
        "DM_REMOVE_ALL" | "DM_LIST_DEVICES" | "DM_LIST_VERSIONS"
    ) {
        let dev = le64(h, 40);
        if dev != 0 {
            f.push(Field::new("dev", dev_value(c, dev)));
        }
        if h[48] != 0 {
            f.push(Field::new("name", cstring_field(&h[48..176])));
        }
        if h[176] != 0 {
            f.push(Field::new("uuid", cstring_field(&h[176..HDR])));
        }
    }
    counters(c, name, h, &hdr, &mut f);
    f.push(Field::new(
        "flags",
        xflags(c, hdr.flags, &xlat::DM_FLAGS, "DM_???"),
    ));
    items.push(Value::structure(f));
    Some(hdr)
}

/// The counters a request passes in, or the kernel reports back.
fn counters(c: &Ctx, name: &str, h: &[u8], hdr: &Hdr, f: &mut Vec<Field>) {
    let event_nr = || Field::new("event_nr", u(le32(h, 32)));
    if c.entering() {
        match name {
            "DM_TABLE_LOAD" => f.push(Field::new("target_count", u(hdr.target_count))),
            "DM_DEV_SUSPEND" if hdr.flags & SUSPEND_FLAG != 0 => {}
            "DM_DEV_SUSPEND" | "DM_DEV_RENAME" | "DM_DEV_REMOVE" | "DM_DEV_WAIT" => {
                f.push(event_nr())
            }
            _ => {}
        }
        return;
    }
    if c.failed() {
        return;
    }
    if matches!(
        name,
        "DM_DEV_CREATE"
            | "DM_DEV_RENAME"
            | "DM_DEV_SUSPEND"
            | "DM_DEV_STATUS"
            | "DM_DEV_WAIT"
            | "DM_TABLE_LOAD"
            | "DM_TABLE_CLEAR"
            | "DM_TABLE_DEPS"
            | "DM_TABLE_STATUS"
            | "DM_TARGET_MSG"
    ) {
        f.push(Field::new("target_count", u(hdr.target_count)));
        f.push(Field::new("open_count", u(le32(h, 24))));
        f.push(event_nr());
    }
}

/// Pushes what the data area holds for request `name`.
fn payload(c: &mut Ctx, name: &str, arg: u64, hdr: &Hdr, items: &mut Vec<Value>) {
    let entry = c.entering();
    let out = c.exiting() && !c.failed();
    match name {
        "DM_DEV_WAIT" | "DM_TABLE_STATUS" if out => target_specs(c, arg, hdr, items),
        "DM_TABLE_LOAD" if entry => target_specs(c, arg, hdr, items),
        "DM_TABLE_DEPS" if out => target_deps(c, arg, hdr, items),
        "DM_LIST_DEVICES" if out => name_list(c, arg, hdr, items),
        "DM_LIST_VERSIONS" if out => target_versions(c, arg, hdr, items),
        "DM_TARGET_MSG" if entry => target_msg(c, arg, hdr, items),
        "DM_TARGET_MSG" if out && hdr.flags & DATA_OUT_FLAG != 0 => string(c, arg, hdr, items),
        "DM_DEV_RENAME" | "DM_DEV_SET_GEOMETRY" if entry => string(c, arg, hdr, items),
        _ => {}
    }
}

/// `??? /* misplaced WHAT */`.
fn misplaced(what: &'static str) -> Value {
    Value::Commented(Box::new(Value::sym("???")), Cow::Borrowed(what))
}

/// A NUL-terminated string of at most `len` bytes (strace's `printstr_ex`
/// with `QUOTE_0_TERMINATED`), and its length with the NUL when one was
/// read (0 otherwise).
fn data_str(c: &mut Ctx, addr: u64, len: u64) -> (Value, u64) {
    if len == 0 {
        let empty = StrVal {
            c_string: true,
            ..Default::default()
        };
        return (Value::Str(empty), 0);
    }
    let limit = c.opts.string_limit;
    let want = (limit as u64 + 1).min(len) as usize;
    match c.umovestr(addr, want) {
        Some((mut bytes, nul)) => {
            let rc = if nul { bytes.len() as u64 + 1 } else { 0 };
            bytes.truncate(limit);
            let s = StrVal {
                bytes,
                truncated: !nul,
                c_string: true,
            };
            (Value::Str(s), rc)
        }
        None => (Value::Unreadable(addr), 0),
    }
}

/// The `struct dm_target_spec`s of `DM_TABLE_LOAD` (entry) and of
/// `DM_TABLE_STATUS`/`DM_DEV_WAIT` (exit), each followed by its string.
fn target_specs(c: &mut Ctx, arg: u64, hdr: &Hdr, items: &mut Vec<Value>) {
    if !c.opts.verbose {
        if hdr.target_count != 0 {
            items.push(Value::sym("..."));
        }
        return;
    }
    let mut offset = hdr.data_start as u32;
    let mut end = 0u32;
    for i in 0..hdr.target_count {
        if i != 0 && offset <= end {
            items.push(misplaced("misplaced struct dm_target_spec"));
            return;
        }
        end = offset.wrapping_add(40);
        if end <= offset || end as u64 > hdr.data_size {
            items.push(misplaced("misplaced struct dm_target_spec"));
            return;
        }
        if i >= c.opts.string_limit as u64 {
            items.push(Value::sym("..."));
            return;
        }
        let at = arg.wrapping_add(offset as u64);
        let Some(s) = c.read_bytes(at, 40) else {
            items.push(Value::Unreadable(at));
            return;
        };
        let mut f = vec![
            Field::new("sector_start", u(le64(&s, 0))),
            Field::new("length", u(le64(&s, 8))),
        ];
        if c.exiting() {
            f.push(Field::new(
                "status",
                Value::Int(le32(&s, 16) as u32 as i32 as i64),
            ));
        }
        f.push(Field::new("target_type", cstring_field(&s[24..40])));
        let len = hdr.data_size - end as u64;
        let (v, _) = data_str(c, arg.wrapping_add(end as u64), len);
        f.push(Field::new("string", v));
        items.push(Value::structure(f));
        let next = le32(&s, 20) as u32;
        offset = if c.entering() {
            offset.wrapping_add(next)
        } else {
            (hdr.data_start as u32).wrapping_add(next)
        };
    }
}

/// The `struct dm_target_deps` of `DM_TABLE_DEPS`.
fn target_deps(c: &mut Ctx, arg: u64, hdr: &Hdr, items: &mut Vec<Value>) {
    if hdr.data_start == hdr.data_size {
        return;
    }
    if !c.opts.verbose {
        items.push(Value::sym("..."));
        return;
    }
    let offset = hdr.data_start as u32;
    let end = offset.wrapping_add(8);
    if end <= offset || end as u64 > hdr.data_size {
        items.push(misplaced("misplaced struct dm_target_deps"));
        return;
    }
    let at = arg.wrapping_add(offset as u64);
    let Some(s) = c.read_bytes(at, 8) else {
        items.push(Value::Unreadable(at));
        return;
    };
    let count = le32(&s, 0);
    if count > (hdr.data_size - end as u64) / 8 {
        items.push(misplaced("misplaced struct dm_target_deps"));
        return;
    }
    let deps = array_at(c, arg.wrapping_add(end as u64), count, 8, |c, e| {
        Some(dev_value(c, le64(e, 0)))
    });
    items.push(Value::structure(vec![
        Field::new("count", u(count)),
        Field::new("deps", deps),
    ]));
}

/// Walks a chain of records linked by a `next` offset (the device names
/// of `DM_LIST_DEVICES`, the targets of `DM_LIST_VERSIONS`): `head` is the
/// size of a record before its name, `what` the structure's name;
/// `record` prints one record from its fixed part and address and returns
/// its `next`.
fn chain(
    c: &mut Ctx,
    arg: u64,
    hdr: &Hdr,
    items: &mut Vec<Value>,
    head: u32,
    what: &'static str,
    mut record: impl FnMut(&mut Ctx, &[u8], u64, u64) -> (Value, u64),
) {
    if hdr.data_start == hdr.data_size {
        return;
    }
    if !c.opts.verbose {
        items.push(Value::sym("..."));
        return;
    }
    let mut offset = hdr.data_start as u32;
    let mut end = 0u32;
    for count in 0u64.. {
        if count != 0 && offset <= end {
            items.push(misplaced(what));
            return;
        }
        end = offset.wrapping_add(head);
        if end <= offset || end as u64 > hdr.data_size {
            items.push(misplaced(what));
            return;
        }
        if count >= c.opts.string_limit as u64 {
            items.push(Value::sym("..."));
            return;
        }
        let at = arg.wrapping_add(offset as u64);
        let Some(s) = c.read_bytes(at, 16) else {
            items.push(Value::Unreadable(at));
            return;
        };
        let (v, next) = record(c, &s, at, hdr.data_size - end as u64);
        items.push(v);
        if next == 0 {
            return;
        }
        offset = offset.wrapping_add(next as u32);
    }
}

/// The `struct dm_name_list` records of `DM_LIST_DEVICES`; from ABI 4.37
/// a record's name may be followed by its event number.
fn name_list(c: &mut Ctx, arg: u64, hdr: &Hdr, items: &mut Vec<Value>) {
    let minor = hdr.minor;
    chain(
        c,
        arg,
        hdr,
        items,
        12,
        "misplaced struct dm_name_list",
        |c, s, at, left| {
            let next = le32(s, 8);
            let mut f = vec![Field::new("dev", dev_value(c, le64(s, 0)))];
            let (name, rc) = data_str(c, at + 12, left);
            f.push(Field::new("name", name));
            if rc > 0 && minor >= 37 {
                let ev = (at + 12 + rc + 7) & !7;
                if ev + 4 <= at + next {
                    if let Some(b) = c.read_bytes(ev, 4) {
                        f.push(Field::new("event_nr", u(le32(&b, 0))));
                    }
                }
            }
            (Value::structure(f), next)
        },
    );
}

/// The `struct dm_target_versions` records of `DM_LIST_VERSIONS`.
fn target_versions(c: &mut Ctx, arg: u64, hdr: &Hdr, items: &mut Vec<Value>) {
    let what = "misplaced struct dm_target_versions";
    chain(c, arg, hdr, items, 16, what, |c, s, at, left| {
        let (name, _) = data_str(c, at + 16, left);
        let ver = (1..4).map(|i| u(le32(s, 4 * i))).collect();
        let v = Value::structure(vec![
            Field::new("name", name),
            Field::new("version", Value::Array(ver, false)),
        ]);
        (v, le32(s, 0))
    });
}

/// The `struct dm_target_msg` of `DM_TARGET_MSG`.
fn target_msg(c: &mut Ctx, arg: u64, hdr: &Hdr, items: &mut Vec<Value>) {
    if hdr.data_start == hdr.data_size {
        return;
    }
    if !c.opts.verbose {
        items.push(Value::sym("..."));
        return;
    }
    let offset = hdr.data_start as u32;
    let end = offset.wrapping_add(8);
    if end <= offset || end as u64 > hdr.data_size {
        items.push(misplaced("misplaced struct dm_target_msg"));
        return;
    }
    let at = arg.wrapping_add(offset as u64);
    let Some(s) = c.read_bytes(at, 8) else {
        items.push(Value::Unreadable(at));
        return;
    };
    let (msg, _) = data_str(c, arg.wrapping_add(end as u64), hdr.data_size - end as u64);
    items.push(Value::structure(vec![
        Field::new("sector", u(le64(&s, 0))),
        Field::new("message", msg),
    ]));
}

/// The string of `DM_DEV_RENAME`, `DM_DEV_SET_GEOMETRY` and of a target
/// message's answer.
fn string(c: &mut Ctx, arg: u64, hdr: &Hdr, items: &mut Vec<Value>) {
    if !c.opts.verbose {
        items.push(Value::sym("..."));
        return;
    }
    if hdr.data_start > hdr.data_size {
        items.push(misplaced("misplaced string"));
        return;
    }
    let len = hdr.data_size - hdr.data_start;
    let (v, _) = data_str(c, arg.wrapping_add(hdr.data_start), len);
    items.push(Value::structure(vec![Field::new("string", v)]));
}
