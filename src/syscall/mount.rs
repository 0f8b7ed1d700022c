//! Mounting: mount, umount2 and the new mount API (fsopen, fsconfig, fsmount,
//! fspick, move_mount, open_tree, mount_setattr), as strace 6.1's `mount.c`,
//! `umount.c`, `fsconfig.c`, `fsmount.c`, `fspick.c`, `move_mount.c`,
//! `open_tree.c` and `mount_setattr.c` print them, and open_tree_attr as
//! strace 7.2 prints it.

use crate::syscall::printers::{flags_arg, le64, nonzero_bytes, xflags};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("mount", mount),
    ("umount2", umount2),
    ("fsopen", fsopen),
    ("fsconfig", fsconfig),
    ("fsmount", fsmount),
    ("fspick", fspick),
    ("move_mount", move_mount),
    ("open_tree", open_tree),
    ("mount_setattr", mount_setattr),
    ("open_tree_attr", open_tree_attr),
];

/// The magic number old programs put in the high half of mount's flags.
const MS_MGC_VAL: u64 = 0xc0ed_0000;
/// Where the magic number lives.
const MS_MGC_MSK: u64 = 0xffff_0000;

/// Flags after which the file system type is not read.
const MS_REMOUNT: u64 = 0x20;
/// Flags after which neither the type nor the data is read.
const MS_NO_TYPE_DATA: u64 = 0x1000 | 0x2000 | 0x100000 | 0x40000 | 0x80000 | 0x20000;

/// `mount(source, target, filesystemtype, mountflags, data)`.
fn mount(c: &mut Ctx) -> Step {
    let mut flags = c.arg_ulong(3);
    let old_magic = flags & MS_MGC_MSK == MS_MGC_VAL;
    if old_magic {
        flags &= !MS_MGC_MSK;
    }
    let (ignore_type, ignore_data) = if flags & MS_REMOUNT != 0 {
        (true, false)
    } else if flags & MS_NO_TYPE_DATA != 0 {
        (true, true)
    } else {
        (false, false)
    };
    c.path(0);
    c.path(1);
    if ignore_type {
        c.ptr(2);
    } else {
        c.cstr(2);
    }
    let fv = if old_magic {
        let magic = match c.opts.xlat_style {
            1 => Value::Hex(MS_MGC_VAL),
            2 => Value::Commented(
                Box::new(Value::Hex(MS_MGC_VAL)),
                Cow::Borrowed("MS_MGC_VAL"),
            ),
            _ => Value::sym("MS_MGC_VAL"),
        };
        if flags == 0 {
            magic
        } else {
            let rest = xflags(c, flags, &xlat::MOUNT_FLAGS, "MS_???");
            Value::Joined(vec![magic, rest], "|")
        }
    } else {
        xflags(c, flags, &xlat::MOUNT_FLAGS, "MS_???")
    };
    c.push(fv);
    if ignore_data {
        c.ptr(4);
    } else {
        c.cstr(4);
    }
    Step::Done(RetFmt::Int)
}

/// `umount2(target, flags)`.
fn umount2(c: &mut Ctx) -> Step {
    c.path(0);
    flags_arg(c, 1, &xlat::UMOUNT_FLAGS, "MNT_???");
    Step::Done(RetFmt::Int)
}

/// `fsopen(fsname, flags)`: a new descriptor.
fn fsopen(c: &mut Ctx) -> Step {
    c.cstr(0);
    flags_arg(c, 1, &xlat::FSOPEN_FLAGS, "FSOPEN_???");
    Step::Done(RetFmt::Fd)
}

/// `fsconfig(fd, cmd, key, value, aux)`: what `key`, `value` and `aux` are
/// depends on the command.
fn fsconfig(c: &mut Ctx) -> Step {
    let cmd = c.arg(1) as u32 as u64;
    let name = xlat::FSCONFIG_CMDS.lookup(cmd).unwrap_or("");
    let aux = c.arg_int(4);
    c.fd(0);
    c.push(c.enum_value(cmd, &xlat::FSCONFIG_CMDS, "FSCONFIG_???"));
    match name {
        "FSCONFIG_SET_FLAG"
        | "FSCONFIG_SET_STRING"
        | "FSCONFIG_SET_BINARY"
        | "FSCONFIG_SET_PATH"
        | "FSCONFIG_SET_PATH_EMPTY"
        | "FSCONFIG_SET_FD" => {
            // Keys and string values: at most 256 bytes with the NUL.
            let v = c.cstrn_value(c.arg_ulong(2), 256);
            c.push(v);
        }
        _ => c.ptr(2),
    }
    match name {
        "FSCONFIG_SET_STRING" => {
            let v = c.cstrn_value(c.arg_ulong(3), 256);
            c.push(v);
        }
        "FSCONFIG_SET_PATH" | "FSCONFIG_SET_PATH_EMPTY" => c.path(3),
        "FSCONFIG_SET_BINARY" if (0..=1024 * 1024).contains(&aux) => {
            let addr = c.arg_ulong(3);
            let v = match c.buf_value(addr, aux as u64) {
                Value::Str(s) => {
                    let mut t = crate::syscall::printers::hex_quoted(&s.bytes);
                    if s.truncated {
                        t.push_str("...");
                    }
                    Value::sym_owned(t)
                }
                v => v,
            };
            c.push(v);
        }
        _ => c.ptr(3),
    }
    match name {
        "FSCONFIG_SET_PATH" | "FSCONFIG_SET_PATH_EMPTY" => c.atfd(4),
        "FSCONFIG_SET_FD" => c.fd(4),
        _ => c.int(4),
    }
    Step::Done(RetFmt::Int)
}

/// `fsmount(fs_fd, flags, attr_flags)`: a new descriptor.
fn fsmount(c: &mut Ctx) -> Step {
    c.fd(0);
    flags_arg(c, 1, &xlat::FSMOUNT_FLAGS, "FSMOUNT_???");
    flags_arg(c, 2, &xlat::FSMOUNT_ATTR_FLAGS, "MOUNT_ATTR_???");
    Step::Done(RetFmt::Fd)
}

/// `fspick(dirfd, path, flags)`: a new descriptor.
fn fspick(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    flags_arg(c, 2, &xlat::FSPICK_FLAGS, "FSPICK_???");
    Step::Done(RetFmt::Fd)
}

/// `move_mount(from_dirfd, from_path, to_dirfd, to_path, flags)`.
fn move_mount(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    c.atfd(2);
    c.path(3);
    flags_arg(c, 4, &xlat::MOVE_MOUNT_FLAGS, "MOVE_MOUNT_???");
    Step::Done(RetFmt::Int)
}

/// `open_tree(dirfd, path, flags)`: a new descriptor.
fn open_tree(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    flags_arg(c, 2, &xlat::OPEN_TREE_FLAGS, "OPEN_TREE_???");
    Step::Done(RetFmt::Fd)
}

/// The first version of `struct mount_attr`.
const MOUNT_ATTR_SIZE_VER0: u64 = 32;

/// `mount_setattr(dirfd, path, flags, attr, size)`.
fn mount_setattr(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    flags_arg(c, 2, &xlat::MOUNT_SETATTR_FLAGS, "AT_???");
    mount_attr_args(c, &xlat::MOUNT_ATTR_FLAGS);
    Step::Done(RetFmt::Int)
}

/// `open_tree_attr(dirfd, path, flags, attr, size)` (Linux 6.15): open_tree
/// with the `struct mount_attr` of mount_setattr; a new descriptor.
fn open_tree_attr(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    flags_arg(c, 2, &xlat::OPEN_TREE_ATTR_FLAGS, "OPEN_TREE_???");
    mount_attr_args(c, &xlat::MOUNT_ATTR_ATTR);
    Step::Done(RetFmt::Fd)
}

/// Arguments 3 and 4: a `struct mount_attr` (its `MOUNT_ATTR_*` bits named
/// by `attrs`) and its size.
fn mount_attr_args(c: &mut Ctx, attrs: &Xlat) {
    let addr = c.arg_ulong(3);
    let size = c.arg_ulong(4);
    let v = if size < MOUNT_ATTR_SIZE_VER0 || addr == 0 {
        Value::Ptr(addr)
    } else if let Some(b) = c.read_bytes(addr, MOUNT_ATTR_SIZE_VER0 as usize) {
        let userns = le64(&b, 24);
        // The descriptor (with its -y path) only with MOUNT_ATTR_IDMAP.
        let idmap = (le64(&b, 0) | le64(&b, 8)) & 0x100000 != 0;
        let userns = if userns > i32::MAX as u64 || !idmap {
            Value::UInt(userns)
        } else {
            c.fd_value(userns as i64)
        };
        Value::structure(vec![
            Field::new("attr_set", xflags(c, le64(&b, 0), attrs, "MOUNT_ATTR_???")),
            Field::new("attr_clr", xflags(c, le64(&b, 8), attrs, "MOUNT_ATTR_???")),
            Field::new(
                "propagation",
                c.enum_value(le64(&b, 16), &xlat::MOUNT_PROPAGATION, "MS_???"),
            ),
            Field::new("userns_fd", userns),
        ])
    } else {
        Value::Unreadable(addr)
    };
    // A larger structure: its non-zero tail, or `???`.
    let v = match v {
        Value::Struct(mut f, more) if size > MOUNT_ATTR_SIZE_VER0 => {
            let end = size.min(4096);
            if let Some(t) = nonzero_bytes(c, addr, MOUNT_ATTR_SIZE_VER0, end) {
                let t = if t == Value::Unknown {
                    Value::sym("???")
                } else {
                    t
                };
                f.push(Field {
                    name: Cow::Borrowed(""),
                    value: t,
                });
            }
            Value::Struct(f, more)
        }
        v => v,
    };
    c.push(v);
    c.push(Value::UInt(size));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn mounts() {
        let mut m = FakeMemory::default();
        let none = m.put(b"none\0");
        let dir = m.put(b"/mnt\0");
        let ty = m.put(b"tmpfs\0");
        let data = m.put(b"size=1m\0");
        assert_eq!(
            run(mount, "mount", &[none, dir, ty, 6, data], 0, &mut m),
            "mount(\"none\", \"/mnt\", \"tmpfs\", MS_NOSUID|MS_NODEV, \"size=1m\") = 0"
        );
        assert_eq!(
            run(mount, "mount", &[none, dir, 0, 0x5000, 0], -2, &mut m),
            "mount(\"none\", \"/mnt\", NULL, MS_BIND|MS_REC, NULL) = -1 ENOENT (No such file or directory)"
        );
        assert_eq!(
            run(mount, "mount", &[0, dir, ty, 0x21, 0], 0, &mut m),
            "mount(NULL, \"/mnt\", 0x10010, MS_RDONLY|MS_REMOUNT, NULL) = 0"
                .replace("0x10010", &format!("{ty:#x}"))
        );
        assert_eq!(
            run(mount, "mount", &[none, dir, ty, 0xc0ed_0001, 0], 0, &mut m),
            "mount(\"none\", \"/mnt\", \"tmpfs\", MS_MGC_VAL|MS_RDONLY, NULL) = 0"
        );
        assert_eq!(
            run(umount2, "umount2", &[dir, 10], 0, &mut m),
            "umount2(\"/mnt\", MNT_DETACH|UMOUNT_NOFOLLOW) = 0"
        );
    }

    #[test]
    fn new_mount_api() {
        let mut m = FakeMemory::default();
        let ty = m.put(b"tmpfs\0");
        let key = m.put(b"source\0");
        assert_eq!(
            run(fsopen, "fsopen", &[ty, 1], 3, &mut m),
            "fsopen(\"tmpfs\", FSOPEN_CLOEXEC) = 3"
        );
        assert_eq!(
            run(fsconfig, "fsconfig", &[3, 1, key, ty, 0], 0, &mut m),
            "fsconfig(3, FSCONFIG_SET_STRING, \"source\", \"tmpfs\", 0) = 0"
        );
        assert_eq!(
            run(fsconfig, "fsconfig", &[3, 6, 0, 0, 0], 0, &mut m),
            "fsconfig(3, FSCONFIG_CMD_CREATE, NULL, NULL, 0) = 0"
        );
        assert_eq!(
            run(fsmount, "fsmount", &[3, 1, 0x12], 4, &mut m),
            "fsmount(3, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID|MOUNT_ATTR_NOATIME) = 4"
        );
        assert_eq!(
            run(
                open_tree,
                "open_tree",
                &[-100i64 as u64, key, 0x88001],
                5,
                &mut m
            ),
            "open_tree(AT_FDCWD, \"source\", OPEN_TREE_CLONE|OPEN_TREE_CLOEXEC|AT_RECURSIVE) = 5"
        );
        assert_eq!(
            run(
                move_mount,
                "move_mount",
                &[4, key, -100i64 as u64, key, 0x44],
                0,
                &mut m
            ),
            "move_mount(4, \"source\", AT_FDCWD, \"source\", MOVE_MOUNT_F_EMPTY_PATH|MOVE_MOUNT_T_EMPTY_PATH) = 0"
        );
    }
}
