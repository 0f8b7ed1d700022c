//! Type 0x94 ioctls as strace 6.1 prints them: the generic file requests
//! that share the type (`FICLONE`, `FICLONERANGE`, `FIDEDUPERANGE`,
//! `FS_IOC_[GS]ETFSLABEL`) and the btrfs requests (`BTRFS_IOC_*`), chosen
//! by name. This file holds the dispatcher, the shared field printers
//! (`UINT64_MAX`, object ids, UUIDs) and the subvolume requests; the other
//! btrfs structures are in `args.rs` (balance, devices,
//! quotas, features) and `search.rs` (tree search, inode
//! lookups, space info).
//!
//! Write requests print their structure at entry; read requests at exit
//! (the address after a failure); read-write requests print the input at
//! entry and, after a success, ` => ` what the kernel wrote back.

mod args;
mod search;
#[cfg(test)]
mod tests;

use crate::syscall::array::array_at;
use crate::syscall::ioctl::misc::{cstring_field, fetch, num};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le16, le32, le64, xflags};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

/// A `%u` value.
fn u(v: u64) -> Value {
    Value::UInt(v)
}

/// A 64-bit field strace prints as `UINT64_MAX` when all ones
/// (`PRINT_FIELD_U64`).
fn u64_max(c: &Ctx, v: u64) -> Value {
    if v != u64::MAX {
        return u(v);
    }
    match c.opts.xlat_style {
        0 => Value::sym("UINT64_MAX"),
        1 => u(v),
        _ => Value::Commented(Box::new(u(v)), Cow::Borrowed("UINT64_MAX")),
    }
}

/// A named constant printed in decimal when it has no name
/// (`printxval_u` with no default).
fn xval_u(c: &Ctx, v: u64, table: &Xlat) -> Value {
    match table.lookup(v) {
        Some(n) => match c.opts.xlat_style {
            0 => Value::sym(n),
            1 => u(v),
            _ => Value::Commented(Box::new(u(v)), Cow::Borrowed(n)),
        },
        None => u(v),
    }
}

/// A named constant printed in hex with a `/* X_??? */` comment when it
/// has no name (`printxval`).
fn xval(c: &Ctx, v: u64, table: &Xlat, dflt: &'static str) -> Value {
    match (table.lookup(v), c.opts.xlat_style) {
        (Some(n), 0) => Value::sym(n),
        (Some(n), 2) => Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(n)),
        (None, 0 | 2) => Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(dflt)),
        _ => Value::Hex(v),
    }
}

/// A tree object id (`BTRFS_FS_TREE_OBJECTID`, `UINT64_MAX`, or decimal).
fn objid(c: &Ctx, v: u64) -> Value {
    xval_u(c, v, &xlat::BTRFS_TREE_OBJECTIDS)
}

/// An item key type (`BTRFS_INODE_ITEM_KEY`, `UINT32_MAX`, or decimal).
fn key_type(c: &Ctx, v: u64) -> Value {
    xval_u(c, v, &xlat::BTRFS_KEY_TYPES)
}

/// 16 bytes as `01234567-89ab-cdef-fedc-ba9876543210`.
fn uuid(b: &[u8]) -> Value {
    let mut s = String::with_capacity(36);
    for (i, x) in b[..16].iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{x:02x}"));
    }
    Value::sym_owned(s)
}

/// A descriptor stored in a 64-bit field (printed as an `int`).
fn fd64(c: &mut Ctx, v: u64) -> Value {
    c.fd_value(v as i32 as i64)
}

/// ` => v`: what the kernel wrote back, after the entry's value.
fn changed(v: Value) -> Value {
    Value::Joined(vec![Value::sym(" => "), v], "")
}

/// A write request: the structure at entry.
fn w_in(c: &mut Ctx, arg: u64, size: usize, f: impl FnOnce(&mut Ctx, &[u8]) -> Value) -> Io {
    Io::Arg(match fetch(c, arg, size) {
        Ok(b) => f(c, &b),
        Err(v) => v,
    })
}

/// A read request: the structure at exit (its address after a failure).
fn r_out(c: &mut Ctx, arg: u64, size: usize, f: impl FnOnce(&mut Ctx, &[u8]) -> Value) -> Io {
    if c.entering() {
        return Io::Exit;
    }
    w_in(c, arg, size, f)
}

/// A read-write request: `input` at entry and, after a success,
/// ` => output` at exit.
fn rw(
    c: &mut Ctx,
    arg: u64,
    size: usize,
    input: impl FnOnce(&mut Ctx, &[u8]) -> Value,
    output: impl FnOnce(&mut Ctx, &[u8]) -> Value,
) -> Io {
    if c.entering() {
        return match fetch(c, arg, size) {
            Ok(b) => {
                let v = input(c, &b);
                entry_then_exit(c, v)
            }
            Err(v) => Io::Arg(v),
        };
    }
    if c.failed() {
        return Io::NoArg;
    }
    Io::Arg(changed(match fetch(c, arg, size) {
        Ok(b) => output(c, &b),
        Err(v) => v,
    }))
}

/// Prints `v` at entry and asks for the exit, which continues the same
/// argument (` => …`).
fn entry_then_exit(c: &mut Ctx, v: Value) -> Io {
    c.push(v);
    c.entry_complete = true;
    Io::Exit
}

/// The type 0x94 requests.
pub(in crate::syscall::ioctl) fn fs_0x94(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let has = |n: &str| names.contains(&n);
    if has("FICLONE") {
        return Io::Arg(Value::Int(arg as i32 as i64));
    }
    if has("FICLONERANGE") {
        return w_in(c, arg, 32, clone_range);
    }
    if has("FIDEDUPERANGE") {
        return dedupe_range(c, arg);
    }
    if has("FS_IOC_GETFSLABEL") {
        return r_out(c, arg, 256, |_, b| cstring_field(b));
    }
    if has("FS_IOC_SETFSLABEL") {
        return w_in(c, arg, 256, |_, b| cstring_field(b));
    }
    match names.iter().find(|n| n.starts_with("BTRFS_IOC_")) {
        Some(n) => btrfs(c, n, arg),
        None => Io::Hex,
    }
}

/// The btrfs requests, by name.
fn btrfs(c: &mut Ctx, name: &str, arg: u64) -> Io {
    match name {
        "BTRFS_IOC_TRANS_START"
        | "BTRFS_IOC_TRANS_END"
        | "BTRFS_IOC_SYNC"
        | "BTRFS_IOC_SCRUB_CANCEL"
        | "BTRFS_IOC_QUOTA_RESCAN_WAIT"
        | "BTRFS_IOC_DEFRAG"
        | "BTRFS_IOC_BALANCE" => Io::NoArg,
        "BTRFS_IOC_BALANCE_CTL" => Io::Arg(xval(
            c,
            arg,
            &xlat::BTRFS_BALANCE_CTL_CMDS,
            "BTRFS_BALANCE_CTL_???",
        )),
        "BTRFS_IOC_START_SYNC" if c.entering() => Io::Exit,
        "BTRFS_IOC_START_SYNC" | "BTRFS_IOC_DEFAULT_SUBVOL" | "BTRFS_IOC_WAIT_SYNC" => {
            Io::Arg(num(c, arg, 8, false))
        }
        "BTRFS_IOC_SUBVOL_GETFLAGS" => r_out(c, arg, 8, subvol_flags),
        "BTRFS_IOC_SUBVOL_SETFLAGS" => w_in(c, arg, 8, subvol_flags),
        "BTRFS_IOC_SNAP_CREATE"
        | "BTRFS_IOC_RESIZE"
        | "BTRFS_IOC_SCAN_DEV"
        | "BTRFS_IOC_FORGET_DEV"
        | "BTRFS_IOC_ADD_DEV"
        | "BTRFS_IOC_RM_DEV"
        | "BTRFS_IOC_SUBVOL_CREATE"
        | "BTRFS_IOC_SNAP_DESTROY"
        | "BTRFS_IOC_DEVICES_READY" => w_in(c, arg, 4096, vol_args),
        "BTRFS_IOC_SNAP_CREATE_V2" | "BTRFS_IOC_SUBVOL_CREATE_V2" => {
            rw(c, arg, 4096, vol_args_v2, |_, b| {
                Value::structure(vec![Field::new("transid", u(le64(b, 8)))])
            })
        }
        "BTRFS_IOC_DEFRAG_RANGE" => w_in(c, arg, 48, defrag_range),
        _ => args::btrfs(c, name, arg),
    }
}

/// `[flags]` of the subvolume flag requests (`printflags64`, unbracketed).
fn subvol_flags(c: &mut Ctx, b: &[u8]) -> Value {
    xflags(
        c,
        le64(b, 0),
        &xlat::BTRFS_SNAP_FLAGS_V2,
        "BTRFS_SUBVOL_???",
    )
}

/// `struct btrfs_ioctl_vol_args`.
fn vol_args(c: &mut Ctx, b: &[u8]) -> Value {
    let fd = fd64(c, le64(b, 0));
    Value::structure(vec![
        Field::new("fd", fd),
        Field::new("name", cstring_field(&b[8..4096])),
    ])
}

/// `struct btrfs_ioctl_vol_args_v2` (its input part).
fn vol_args_v2(c: &mut Ctx, b: &[u8]) -> Value {
    let flags = le64(b, 16);
    let mut f = vec![
        Field::new("fd", fd64(c, le64(b, 0))),
        Field::new(
            "flags",
            xflags(c, flags, &xlat::BTRFS_SNAP_FLAGS_V2, "BTRFS_SUBVOL_???"),
        ),
    ];
    // BTRFS_SUBVOL_QGROUP_INHERIT
    if flags & 4 != 0 {
        f.push(Field::new("size", u(le64(b, 24))));
        let v = qgroup_inherit(c, le64(b, 32));
        f.push(Field::new("qgroup_inherit", v));
    }
    f.push(Field::new("name", cstring_field(&b[56..4096])));
    Value::structure(f)
}

/// `struct btrfs_qgroup_limit`.
fn qgroup_limit(c: &Ctx, b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new(
            "flags",
            xflags(
                c,
                le64(b, 0),
                &xlat::BTRFS_QGROUP_LIMIT_FLAGS,
                "BTRFS_QGROUP_LIMIT_???",
            ),
        ),
        Field::new("max_rfer", u(le64(b, 8))),
        Field::new("max_excl", u(le64(b, 16))),
        Field::new("rsv_rfer", u(le64(b, 24))),
        Field::new("rsv_excl", u(le64(b, 32))),
    ])
}

/// `struct btrfs_qgroup_inherit` at `addr`, its group ids with `-v`.
fn qgroup_inherit(c: &mut Ctx, addr: u64) -> Value {
    let b = match fetch(c, addr, 72) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let n = le64(&b, 8);
    let mut f = vec![
        Field::new(
            "flags",
            xflags(
                c,
                le64(&b, 0),
                &xlat::BTRFS_QGROUP_INHERIT_FLAGS,
                "BTRFS_QGROUP_INHERIT_???",
            ),
        ),
        Field::new("num_qgroups", u(n)),
        Field::new("num_ref_copies", u(le64(&b, 16))),
        Field::new("num_excl_copies", u(le64(&b, 24))),
        Field::new("lim", qgroup_limit(c, &b[32..72])),
    ];
    if !c.opts.verbose {
        return Value::Struct(f, true);
    }
    let groups = array_at(c, addr + 72, n, 8, |_, e| Some(u(le64(e, 0))));
    f.push(Field::new("qgroups", groups));
    Value::structure(f)
}

/// `struct btrfs_ioctl_defrag_range_args`.
fn defrag_range(c: &mut Ctx, b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("start", u(le64(b, 0))),
        Field::new("len", u64_max(c, le64(b, 8))),
        Field::new(
            "flags",
            xflags(
                c,
                le64(b, 16),
                &xlat::BTRFS_DEFRAG_FLAGS,
                "BTRFS_DEFRAG_RANGE_???",
            ),
        ),
        Field::new("extent_thresh", u(le32(b, 24))),
        Field::new(
            "compress_type",
            xval(
                c,
                le32(b, 28),
                &xlat::BTRFS_COMPRESS_TYPES,
                "BTRFS_COMPRESS_???",
            ),
        ),
    ])
}

/// `struct file_clone_range`.
fn clone_range(c: &mut Ctx, b: &[u8]) -> Value {
    let fd = fd64(c, le64(b, 0));
    Value::structure(vec![
        Field::new("src_fd", fd),
        Field::new("src_offset", u(le64(b, 8))),
        Field::new("src_length", u(le64(b, 16))),
        Field::new("dest_offset", u(le64(b, 24))),
    ])
}

/// `FIDEDUPERANGE`: the range and its destinations at entry; after a
/// success, what was deduplicated in each. Without `-v` at most two
/// destinations print.
fn dedupe_range(c: &mut Ctx, arg: u64) -> Io {
    if c.exiting() && c.failed() {
        return Io::NoArg;
    }
    let b = match fetch(c, arg, 24) {
        Ok(b) => b,
        Err(v) if c.entering() => return Io::Arg(v),
        Err(v) => return Io::Arg(changed(v)),
    };
    let count = le16(&b, 16);
    let mut f = Vec::new();
    if c.entering() {
        f.push(Field::new("src_offset", u(le64(&b, 0))));
        f.push(Field::new("src_length", u(le64(&b, 8))));
        f.push(Field::new("dest_count", u(count)));
    }
    let (info, whole) = dedupe_info(c, arg + 24, count);
    f.push(Field::new("info", info));
    let v = Value::structure(f);
    if c.exiting() {
        return Io::Arg(changed(v));
    }
    if !whole {
        return Io::Arg(v);
    }
    entry_then_exit(c, v)
}

/// The `struct file_dedupe_range_info` array of `FIDEDUPERANGE`, and
/// whether it printed to its end (strace decodes the exit only then).
fn dedupe_info(c: &mut Ctx, addr: u64, n: u64) -> (Value, bool) {
    if n == 0 {
        return (Value::Array(Vec::new(), false), false);
    }
    let lim = c.opts.string_limit as u64;
    let abbrev_at = if !c.opts.verbose && lim < n { lim } else { n };
    let shown = if !c.opts.verbose && n > 2 { 2 } else { n };
    let mut items = Vec::new();
    for i in 0..n {
        let at = addr + 32 * i;
        let Some(e) = c.read_bytes(at, 32) else {
            if i == 0 {
                return (Value::Unreadable(at), false);
            }
            let more =
                Value::Commented(Box::new(Value::sym("...")), Cow::Owned(format!("{at:#x}")));
            items.push(more);
            return (Value::Array(items, false), false);
        };
        if i >= abbrev_at || i >= shown {
            return (Value::Array(items, true), true);
        }
        let v = if c.entering() {
            let fd = fd64(c, le64(&e, 0));
            Value::structure(vec![
                Field::new("dest_fd", fd),
                Field::new("dest_offset", u(le64(&e, 8))),
            ])
        } else {
            Value::structure(vec![
                Field::new("bytes_deduped", u(le64(&e, 16))),
                Field::new("status", Value::Int(le32(&e, 24) as u32 as i32 as i64)),
            ])
        };
        items.push(v);
    }
    (Value::Array(items, false), true)
}
