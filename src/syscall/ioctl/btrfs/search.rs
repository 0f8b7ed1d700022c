//! btrfs ioctls that look things up, as strace 6.1 prints them: tree
//! searches (the key at entry; the item headers the kernel found, with
//! `-v`), inode number to name and path lookups, logical address to inode
//! lookups and the space info array.

use crate::syscall::array::array_at;
use crate::syscall::ioctl::btrfs::{changed, entry_then_exit, key_type, objid, rw, u, u64_max, Io};
use crate::syscall::ioctl::exit_state;
use crate::syscall::ioctl::misc::{cstring_field, fetch};
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

/// `BTRFS_FIRST_FREE_OBJECTID` and `BTRFS_LAST_FREE_OBJECTID`: search key
/// bounds left out without `-v`.
const FIRST_FREE: u64 = 256;
const LAST_FREE: u64 = -256i64 as u64;

/// `sizeof(struct btrfs_ioctl_search_key)`.
const KEY_SIZE: usize = 104;

/// EOVERFLOW: a v2 search whose buffer is too small reports the size it
/// needs.
const EOVERFLOW: i64 = 75;

/// The requests of this file, by name; any other is printed in hex.
pub(in crate::syscall::ioctl::btrfs) fn btrfs(c: &mut Ctx, name: &str, arg: u64) -> Io {
    match name {
        "BTRFS_IOC_TREE_SEARCH" => tree_search(c, arg, false),
        "BTRFS_IOC_TREE_SEARCH_V2" => tree_search(c, arg, true),
        "BTRFS_IOC_INO_LOOKUP" => ino_lookup(c, arg),
        "BTRFS_IOC_INO_PATHS" => rw(
            c,
            arg,
            56,
            |_, b| {
                Value::structure(vec![
                    Field::new("inum", u(le64(b, 0))),
                    Field::new("size", u(le64(b, 8))),
                    Field::new("fspath", Value::Ptr(le64(b, 48))),
                ])
            },
            |c, b| {
                let v = container(c, le64(b, 48), false);
                Value::structure(vec![Field::new("fspath", v)])
            },
        ),
        "BTRFS_IOC_LOGICAL_INO" => rw(c, arg, 56, logical_ino_in, |c, b| {
            let v = container(c, le64(b, 48), true);
            Value::structure(vec![Field::new("inodes", v)])
        }),
        "BTRFS_IOC_SPACE_INFO" => rw(
            c,
            arg,
            16,
            |_, b| Value::structure(vec![Field::new("space_slots", u(le64(b, 0)))]),
            move |c, b| space_info(c, arg, b),
        ),
        _ => Io::Hex,
    }
}

/// `struct btrfs_ioctl_search_key`: the bounds at entry (the default
/// object id bounds left out without `-v`), the item count at exit.
fn search_key(c: &Ctx, b: &[u8], entry: bool) -> Value {
    let nr = Field::new("nr_items", u(le32(b, 64)));
    if !entry {
        return Value::structure(vec![nr]);
    }
    let v = c.opts.verbose;
    let mut f = vec![Field::new("tree_id", objid(c, le64(b, 0)))];
    let (min, max) = (le64(b, 8), le64(b, 16));
    if min != FIRST_FREE || v {
        f.push(Field::new("min_objectid", objid(c, min)));
    }
    if max != LAST_FREE || v {
        f.push(Field::new("max_objectid", objid(c, max)));
    }
    for (name, off) in [
        ("min_offset", 24),
        ("max_offset", 32),
        ("min_transid", 40),
        ("max_transid", 48),
    ] {
        f.push(Field::new(name, u64_max(c, le64(b, off))));
    }
    f.push(Field::new("min_type", key_type(c, le32(b, 56))));
    f.push(Field::new("max_type", key_type(c, le32(b, 60))));
    f.push(nr);
    Value::structure(f)
}

/// `BTRFS_IOC_TREE_SEARCH` (`v2`: `_V2`, with its buffer size).
fn tree_search(c: &mut Ctx, arg: u64, v2: bool) -> Io {
    let size = if v2 { KEY_SIZE + 8 } else { KEY_SIZE };
    if c.exiting() && c.failed() {
        if !v2 || c.retval() != -EOVERFLOW {
            return Io::NoArg;
        }
        let v = match c.read_bytes(arg, size) {
            Some(b) => Value::structure(vec![Field::new("buf_size", u(le64(&b, KEY_SIZE)))]),
            None => Value::Ptr(arg),
        };
        return Io::Arg(changed(v));
    }
    let b = match fetch(c, arg, size) {
        Ok(b) => b,
        Err(v) if c.entering() => return Io::Arg(v),
        Err(v) => return Io::Arg(changed(v)),
    };
    let entry = c.entering();
    let mut f = vec![Field::new("key", search_key(c, &b, entry))];
    let buf_size = if v2 {
        let n = le64(&b, KEY_SIZE);
        f.push(Field::new("buf_size", u(n)));
        n
    } else {
        4096 - KEY_SIZE as u64
    };
    if entry {
        return entry_then_exit(c, Value::structure(f));
    }
    if !c.opts.verbose {
        return Io::Arg(changed(Value::Struct(f, true)));
    }
    let nr = le32(&b, 64);
    let items = search_buf(c, arg + size as u64, buf_size, nr);
    f.push(Field::new("buf", items));
    Io::Arg(changed(Value::structure(f)))
}

/// The `struct btrfs_ioctl_search_header`s of a search's result buffer
/// (each followed by its item's `len` bytes).
fn search_buf(c: &mut Ctx, addr: u64, size: u64, nr: u64) -> Value {
    let mut items = Vec::new();
    let mut off = 0u64;
    for i in 0..nr {
        let at = addr.wrapping_add(off);
        if at < addr || off + 32 > size || i > c.opts.string_limit as u64 {
            return Value::Array(items, true);
        }
        let Some(h) = c.read_bytes(at, 32) else {
            let more =
                Value::Commented(Box::new(Value::sym("...")), Cow::Owned(format!("{at:#x}")));
            items.push(more);
            return Value::Array(items, false);
        };
        items.push(Value::structure(vec![
            Field::new("transid", u(le64(&h, 0))),
            Field::new("objectid", objid(c, le64(&h, 8))),
            Field::new("offset", u(le64(&h, 16))),
            Field::new("type", key_type(c, le32(&h, 24))),
            Field::new("len", u(le32(&h, 28))),
        ]));
        off += 32 + le32(&h, 28);
    }
    Value::Array(items, false)
}

/// `BTRFS_IOC_INO_LOOKUP`: the tree and object at entry; the name at exit,
/// after the tree id the kernel chose when the caller passed 0.
fn ino_lookup(c: &mut Ctx, arg: u64) -> Io {
    if c.entering() {
        let b = match fetch(c, arg, 4096) {
            Ok(b) => b,
            Err(v) => return Io::Arg(v),
        };
        let tree = le64(&b, 0);
        let v = Value::structure(vec![
            Field::new("treeid", objid(c, tree)),
            Field::new("objectid", objid(c, le64(&b, 8))),
        ]);
        c.push(v);
        c.entry_complete = true;
        return Io::ExitWith((tree == 0) as u64);
    }
    if c.failed() {
        return Io::NoArg;
    }
    let v = match fetch(c, arg, 4096) {
        Ok(b) => {
            let mut f = Vec::new();
            if exit_state(c) & 1 == 1 {
                f.push(Field::new("treeid", objid(c, le64(&b, 0))));
            }
            f.push(Field::new("name", cstring_field(&b[16..4096])));
            Value::structure(f)
        }
        Err(v) => v,
    };
    Io::Arg(changed(v))
}

/// `struct btrfs_ioctl_logical_ino_args` at entry.
fn logical_ino_in(c: &mut Ctx, b: &[u8]) -> Value {
    let mut f = vec![
        Field::new("logical", u(le64(b, 0))),
        Field::new("size", u(le64(b, 8))),
    ];
    if b[16..40].iter().any(|&x| x != 0) {
        let r = (0..3).map(|i| xint(le64(b, 16 + 8 * i))).collect();
        f.push(Field::new("reserved", Value::Array(r, false)));
    }
    f.push(Field::new(
        "flags",
        xflags(
            c,
            le64(b, 40),
            &xlat::BTRFS_LOGICAL_INO_ARGS_FLAGS,
            "BTRFS_LOGICAL_INO_ARGS_???",
        ),
    ));
    f.push(Field::new("inodes", Value::Ptr(le64(b, 48))));
    Value::structure(f)
}

/// `struct btrfs_data_container` at `addr`: its counters, then with `-v`
/// its values: paths (`inodes` false) or `{inum, offset, root}` records.
fn container(c: &mut Ctx, addr: u64, inodes: bool) -> Value {
    let b = match fetch(c, addr, 16) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let cnt = le32(&b, 8);
    let mut f = vec![
        Field::new("bytes_left", u(le32(&b, 0))),
        Field::new("bytes_missing", u(le32(&b, 4))),
        Field::new("elem_cnt", u(cnt)),
        Field::new("elem_missed", u(le32(&b, 12))),
    ];
    if !c.opts.verbose {
        return Value::Struct(f, true);
    }
    let val = addr + 16;
    let v = if inodes {
        array_at(c, val, cnt / 3, 24, |_, e| {
            Some(Value::structure(vec![
                Field::new("inum", u(le64(e, 0))),
                Field::new("offset", u(le64(e, 8))),
                Field::new("root", u(le64(e, 16))),
            ]))
        })
    } else {
        array_at(c, val, cnt, 8, |c, e| {
            Some(c.path_value(val.wrapping_add(le64(e, 0))))
        })
    };
    f.push(Field::new("val", v));
    Value::structure(f)
}

/// `struct btrfs_ioctl_space_args` at exit (`b`: its header, at `arg`).
fn space_info(c: &mut Ctx, arg: u64, b: &[u8]) -> Value {
    let (slots, total) = (le64(b, 0), le64(b, 8));
    let mut f = vec![Field::new("total_spaces", u(total))];
    if slots == 0 && total != 0 {
        return Value::structure(f);
    }
    if !c.opts.verbose {
        return Value::Struct(f, true);
    }
    let spaces = array_at(c, arg + 16, total, 24, |c, e| {
        Some(Value::structure(vec![
            Field::new(
                "flags",
                xflags(
                    c,
                    le64(e, 0),
                    &xlat::BTRFS_SPACE_INFO_FLAGS,
                    "BTRFS_SPACE_INFO_???",
                ),
            ),
            Field::new("total_bytes", u(le64(e, 8))),
            Field::new("used_bytes", u(le64(e, 16))),
        ]))
    });
    f.push(Field::new("spaces", spaces));
    Value::structure(f)
}
