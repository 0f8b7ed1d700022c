//! Path-based file calls: the open family, access, creat, links, renames,
//! unlink, modes and owners, mknod, truncate and umask; and the small
//! printers the file, stat, descriptor and directory families share.
//!
//! Structures are decoded for the 64-bit layouts (x86_64, aarch64); the i386
//! personality gets the pointer until its layouts are added.

use crate::syscall::printers::{
    dev_value, flags_arg, hex_quoted, id_value, le64, mode_value, struct_at, umode_arg, xflags,
    xint,
};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("open", open),
    ("openat", openat),
    ("openat2", openat2),
    ("creat", creat),
    ("access", access),
    ("faccessat", faccessat),
    ("faccessat2", faccessat2),
    ("unlink", path1),
    ("unlinkat", unlinkat),
    ("rename", path2),
    ("renameat", renameat),
    ("renameat2", renameat2),
    ("link", path2),
    ("linkat", linkat),
    ("symlink", path2),
    ("symlinkat", symlinkat),
    ("readlink", readlink),
    ("readlinkat", readlinkat),
    ("chmod", chmod),
    ("fchmod", fchmod),
    ("fchmodat", fchmodat),
    ("fchmodat2", fchmodat2),
    ("chown", chown),
    ("lchown", chown),
    ("fchown", fchown),
    ("fchownat", fchownat),
    ("mknod", mknod),
    ("mknodat", mknodat),
    ("truncate", truncate),
    ("ftruncate", ftruncate),
    ("umask", umask),
];

// ---- open ----

/// `O_CREAT` or any `__O_TMPFILE` bit makes the mode argument meaningful.
fn needs_mode(flags: u64) -> bool {
    let creat = xlat::OPEN_FLAGS.value("O_CREAT").unwrap_or(0);
    let tmpfile = xlat::OPEN_FLAGS.value("__O_TMPFILE").unwrap_or(0);
    flags & (creat | tmpfile) != 0
}

/// The value of `open` flags: access mode name first, then the other bits
/// (strace's `tprint_open_modes`, which follows `-X`).
pub(in crate::syscall) fn open_flags_value(c: &Ctx, flags: u64) -> Value {
    match c.opts.xlat_style {
        1 => xint(flags),
        2 => {
            let s = crate::syscall::ctx::render_flags(&open_modes(flags));
            Value::Commented(Box::new(xint(flags)), std::borrow::Cow::Owned(s))
        }
        _ => open_modes(flags),
    }
}

/// `open` flags by name whatever `-X` says, as `sprint_open_modes` prints
/// them in `F_GETFL`'s return comment.
pub(in crate::syscall) fn open_modes(flags: u64) -> Value {
    let acc = flags & 3;
    let mut names = Vec::new();
    let mut rest = flags & !3;
    match xlat::OPEN_ACCESS.lookup(acc) {
        Some(n) => names.push(n),
        None => rest |= acc,
    }
    let (more, left) = xlat::OPEN_FLAGS.split_flags(rest);
    names.extend(more);
    Value::Flags {
        names,
        rest: left,
        octal_rest: false,
    }
}

/// Pushes `flags[, mode]` of the open family.
fn open_tail(c: &mut Ctx, flags_arg: usize) {
    let flags = c.arg(flags_arg) as u32 as u64;
    let v = open_flags_value(c, flags);
    c.push(v);
    if needs_mode(flags) {
        umode_arg(c, flags_arg + 1);
    }
}

/// `open(path, flags[, mode])`.
fn open(c: &mut Ctx) -> Step {
    c.path(0);
    open_tail(c, 1);
    Step::Done(RetFmt::Fd)
}

/// `openat(dirfd, path, flags[, mode])`.
fn openat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    open_tail(c, 2);
    Step::Done(RetFmt::Fd)
}

/// The size of `struct open_how` strace decodes.
const OPEN_HOW_SIZE: u64 = 24;

/// `struct open_how` of `size` bytes at `addr`, with strace's
/// `/* bytes 24..N */` tail when a larger structure has non-zero bytes there.
fn open_how_value(c: &mut Ctx, addr: u64, size: u64) -> Value {
    if size < OPEN_HOW_SIZE {
        return Value::Ptr(addr);
    }
    let mut v = struct_at(c, addr, Some(OPEN_HOW_SIZE as usize), |c, b| {
        let (flags, mode, resolve) = (le64(b, 0), le64(b, 8), le64(b, 16));
        let mut f = vec![Field::new("flags", open_flags_value(c, flags))];
        if needs_mode(flags) || mode != 0 {
            f.push(Field::new("mode", Value::Oct(mode)));
        }
        let r = xflags(c, resolve, &xlat::OPEN_RESOLVE_FLAGS, "RESOLVE_???");
        f.push(Field::new("resolve", r));
        Value::structure(f)
    });
    if size > OPEN_HOW_SIZE {
        if let Value::Struct(fields, _) = &mut v {
            let total = size.min(4096);
            if let Some(tail) = nonzero_tail(c, addr, OPEN_HOW_SIZE, total) {
                fields.push(Field::new("", tail));
            }
        }
    }
    v
}

/// strace's `print_nonzero_bytes`: bytes `start..total` of a structure when
/// any is non-zero, as `/* bytes S..E */ "\x.."` (limited by `-s`), `???`
/// when they cannot be read, `None` when all are zero.
fn nonzero_tail(c: &mut Ctx, addr: u64, start: u64, total: u64) -> Option<Value> {
    let len = (total - start) as usize;
    let Some(b) = c.read_bytes(addr.wrapping_add(start), len) else {
        return Some(Value::sym("???"));
    };
    if b.iter().all(|&x| x == 0) {
        return None;
    }
    let shown = len.min(c.opts.string_limit);
    let mut s = format!(
        "/* bytes {}..{} */ {}",
        start,
        total - 1,
        hex_quoted(&b[..shown])
    );
    if shown < len {
        s.push_str("...");
    }
    Some(Value::sym_owned(s))
}

/// `openat2(dirfd, path, how, size)`.
fn openat2(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    let (addr, size) = (c.arg_ulong(2), c.arg_ulong(3));
    let v = open_how_value(c, addr, size);
    c.push(v);
    c.ulong(3);
    Step::Done(RetFmt::Fd)
}

/// `creat(path, mode)`.
fn creat(c: &mut Ctx) -> Step {
    c.path(0);
    umode_arg(c, 1);
    Step::Done(RetFmt::Fd)
}

// ---- access ----

/// `access(path, mode)`.
fn access(c: &mut Ctx) -> Step {
    c.path(0);
    flags_arg(c, 1, &xlat::ACCESS_MODES, "?_OK");
    Step::Done(RetFmt::Int)
}

/// `faccessat(dirfd, path, mode)`.
fn faccessat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    flags_arg(c, 2, &xlat::ACCESS_MODES, "?_OK");
    Step::Done(RetFmt::Int)
}

/// `faccessat2(dirfd, path, mode, flags)`.
fn faccessat2(c: &mut Ctx) -> Step {
    faccessat(c);
    flags_arg(c, 3, &xlat::FACCESSAT_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

// ---- names ----

/// A call whose only argument is a path (`unlink`).
fn path1(c: &mut Ctx) -> Step {
    c.path(0);
    Step::Done(RetFmt::Int)
}

/// A call of two paths (`rename`, `link`, `symlink`).
fn path2(c: &mut Ctx) -> Step {
    c.path(0);
    c.path(1);
    Step::Done(RetFmt::Int)
}

/// `unlinkat(dirfd, path, flags)`.
fn unlinkat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    flags_arg(c, 2, &xlat::AT_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

/// `renameat(olddirfd, old, newdirfd, new)`.
fn renameat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    c.atfd(2);
    c.path(3);
    Step::Done(RetFmt::Int)
}

/// `renameat2(olddirfd, old, newdirfd, new, flags)`; strace's fallback
/// comment for this table really is `RENAME_??`.
fn renameat2(c: &mut Ctx) -> Step {
    renameat(c);
    flags_arg(c, 4, &xlat::RENAMEAT2_FLAGS, "RENAME_??");
    Step::Done(RetFmt::Int)
}

/// `linkat(olddirfd, old, newdirfd, new, flags)`.
fn linkat(c: &mut Ctx) -> Step {
    renameat(c);
    flags_arg(c, 4, &xlat::AT_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

/// `symlinkat(target, newdirfd, linkpath)`.
fn symlinkat(c: &mut Ctx) -> Step {
    c.path(0);
    c.atfd(1);
    c.path(2);
    Step::Done(RetFmt::Int)
}

/// The exit half of readlink: the `ret` bytes written (not NUL-terminated,
/// so `-s` limited like a buffer), then the buffer size.
fn readlink_tail(c: &mut Ctx, buf: usize) -> Step {
    c.outbuf(buf);
    c.ulong(buf + 1);
    Step::Done(RetFmt::Int)
}

/// `readlink(path, buf, bufsiz)`.
fn readlink(c: &mut Ctx) -> Step {
    if c.entering() {
        c.path(0);
        return Step::Exit;
    }
    readlink_tail(c, 1)
}

/// `readlinkat(dirfd, path, buf, bufsiz)`.
fn readlinkat(c: &mut Ctx) -> Step {
    if c.entering() {
        c.atfd(0);
        c.path(1);
        return Step::Exit;
    }
    readlink_tail(c, 2)
}

// ---- modes, owners, nodes ----

/// `chmod(path, mode)`.
fn chmod(c: &mut Ctx) -> Step {
    c.path(0);
    umode_arg(c, 1);
    Step::Done(RetFmt::Int)
}

/// `fchmod(fd, mode)`.
fn fchmod(c: &mut Ctx) -> Step {
    c.fd(0);
    umode_arg(c, 1);
    Step::Done(RetFmt::Int)
}

/// `fchmodat(dirfd, path, mode)`: the kernel takes no flags argument.
fn fchmodat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    umode_arg(c, 2);
    Step::Done(RetFmt::Int)
}

/// `fchmodat2(dirfd, path, mode, flags)` (Linux 6.6).
fn fchmodat2(c: &mut Ctx) -> Step {
    fchmodat(c);
    flags_arg(c, 3, &xlat::FACCESSAT_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

/// Pushes the owner and group arguments `i`, `i + 1`.
fn ids(c: &mut Ctx, i: usize) {
    c.push(id_value(c.arg(i) as u32));
    c.push(id_value(c.arg(i + 1) as u32));
}

/// `chown(path, owner, group)` and `lchown`.
fn chown(c: &mut Ctx) -> Step {
    c.path(0);
    ids(c, 1);
    Step::Done(RetFmt::Int)
}

/// `fchown(fd, owner, group)`.
fn fchown(c: &mut Ctx) -> Step {
    c.fd(0);
    ids(c, 1);
    Step::Done(RetFmt::Int)
}

/// `fchownat(dirfd, path, owner, group, flags)`.
fn fchownat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    ids(c, 2);
    flags_arg(c, 4, &xlat::AT_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

/// Pushes `path, mode[, dev]` of mknod: the device only for device nodes.
fn mknod_tail(c: &mut Ctx, i: usize) {
    c.path(i);
    let mode = c.arg(i + 1) & 0xffff;
    let v = mode_value(c, mode);
    c.push(v);
    let fmt = mode & libc::S_IFMT as u64;
    if fmt == libc::S_IFCHR as u64 || fmt == libc::S_IFBLK as u64 {
        let v = dev_value(c, c.arg(i + 2) as u32 as u64);
        c.push(v);
    }
}

/// `mknod(path, mode, dev)`.
fn mknod(c: &mut Ctx) -> Step {
    mknod_tail(c, 0);
    Step::Done(RetFmt::Int)
}

/// `mknodat(dirfd, path, mode, dev)`.
fn mknodat(c: &mut Ctx) -> Step {
    c.atfd(0);
    mknod_tail(c, 1);
    Step::Done(RetFmt::Int)
}

/// `truncate(path, length)`: strace prints the length unsigned.
fn truncate(c: &mut Ctx) -> Step {
    c.path(0);
    c.ulong(1);
    Step::Done(RetFmt::Int)
}

/// `ftruncate(fd, length)`: strace prints the length unsigned.
fn ftruncate(c: &mut Ctx) -> Step {
    c.fd(0);
    c.ulong(1);
    Step::Done(RetFmt::Int)
}

/// `umask(mask)`: returns the previous mask, in octal.
fn umask(c: &mut Ctx) -> Step {
    umode_arg(c, 0);
    Step::Done(RetFmt::Oct)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::DecodeOpts;

    const CWD: u64 = -100i64 as u64;

    #[test]
    fn open_family() {
        let mut m = FakeMemory::default();
        let p = m.put(b"a.txt\0");
        assert_eq!(
            run(open, "open", &[p, 0o1101, 0o644], 3, &mut m),
            "open(\"a.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"
        );
        assert_eq!(
            run(openat, "openat", &[CWD, p, 0o2000000], 3, &mut m),
            "openat(AT_FDCWD, \"a.txt\", O_RDONLY|O_CLOEXEC) = 3"
        );
        assert_eq!(
            run(open, "open", &[p, 0x4000_0000], -2, &mut m),
            "open(\"a.txt\", O_RDONLY|0x40000000) = -1 ENOENT (No such file or directory)"
        );
        assert_eq!(
            run(creat, "creat", &[p, 0o600], 3, &mut m),
            "creat(\"a.txt\", 0600) = 3"
        );
        assert_eq!(
            run(open, "open", &[0x10, 0], -14, &mut m),
            "open(0x10, O_RDONLY) = -1 EFAULT (Bad address)"
        );
    }

    #[test]
    fn openat2_how() {
        let mut m = FakeMemory::default();
        let p = m.put(b"h.txt\0");
        let mut how = Vec::new();
        for v in [0o301u64, 0o600, 0] {
            how.extend_from_slice(&v.to_le_bytes());
        }
        let h = m.put(&how);
        assert_eq!(
            run(openat2, "openat2", &[CWD, p, h, 24], 3, &mut m),
            "openat2(AT_FDCWD, \"h.txt\", {flags=O_WRONLY|O_CREAT|O_EXCL, mode=0600, resolve=0}, 24) = 3"
        );
        let mut how = Vec::new();
        for v in [0o2000000u64, 0, 0xc] {
            how.extend_from_slice(&v.to_le_bytes());
        }
        how.extend_from_slice(&[0, 0, 1, 0, 0, 0, 0, 0]);
        let h = m.put(&how);
        assert_eq!(
            run(openat2, "openat2", &[CWD, p, h, 32], 3, &mut m),
            "openat2(AT_FDCWD, \"h.txt\", {flags=O_RDONLY|O_CLOEXEC, \
             resolve=RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH, \
             /* bytes 24..31 */ \"\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\"}, 32) = 3"
        );
        assert_eq!(
            run(openat2, "openat2", &[CWD, p, h, 16], -22, &mut m),
            format!("openat2(AT_FDCWD, \"h.txt\", {h:#x}, 16) = -1 EINVAL (Invalid argument)")
        );
    }

    #[test]
    fn access_and_flags() {
        let mut m = FakeMemory::default();
        let p = m.put(b"x\0");
        assert_eq!(
            run(access, "access", &[p, 6], 0, &mut m),
            "access(\"x\", R_OK|W_OK) = 0"
        );
        assert_eq!(
            run(access, "access", &[p, 0], 0, &mut m),
            "access(\"x\", F_OK) = 0"
        );
        assert_eq!(
            run(access, "access", &[p, 0x10], -22, &mut m),
            "access(\"x\", 0x10 /* ?_OK */) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(faccessat2, "faccessat2", &[CWD, p, 4, 0x200], 0, &mut m),
            "faccessat2(AT_FDCWD, \"x\", R_OK, AT_EACCESS) = 0"
        );
        assert_eq!(
            run(unlinkat, "unlinkat", &[CWD, p, 0x200], 0, &mut m),
            "unlinkat(AT_FDCWD, \"x\", AT_REMOVEDIR) = 0"
        );
        assert_eq!(
            run(renameat2, "renameat2", &[CWD, p, CWD, p, 0x80], -22, &mut m),
            "renameat2(AT_FDCWD, \"x\", AT_FDCWD, \"x\", 0x80 /* RENAME_?? */) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn links_and_readlink() {
        let mut m = FakeMemory::default();
        let a = m.put(b"a.txt\0");
        let s = m.put(b"s1\0");
        let buf = m.put(b"a.txtGARBAGE");
        assert_eq!(
            run(symlinkat, "symlinkat", &[a, CWD, s], 0, &mut m),
            "symlinkat(\"a.txt\", AT_FDCWD, \"s1\") = 0"
        );
        assert_eq!(
            run(readlink, "readlink", &[s, buf, 64], 5, &mut m),
            "readlink(\"s1\", \"a.txt\", 64) = 5"
        );
        assert_eq!(
            run(readlinkat, "readlinkat", &[CWD, s, buf, 3], 3, &mut m),
            "readlinkat(AT_FDCWD, \"s1\", \"a.t\", 3) = 3"
        );
        assert_eq!(
            run(readlink, "readlink", &[s, buf, 64], -2, &mut m),
            format!("readlink(\"s1\", {buf:#x}, 64) = -1 ENOENT (No such file or directory)")
        );
        assert_eq!(
            run(linkat, "linkat", &[CWD, a, 5, s, 0x1400], 0, &mut m),
            "linkat(AT_FDCWD, \"a.txt\", 5, \"s1\", AT_SYMLINK_FOLLOW|AT_EMPTY_PATH) = 0"
        );
    }

    #[test]
    fn modes_owners_nodes() {
        let mut m = FakeMemory::default();
        let p = m.put(b"x\0");
        assert_eq!(
            run(fchmodat, "fchmodat", &[CWD, p, 0o4755], 0, &mut m),
            "fchmodat(AT_FDCWD, \"x\", 04755) = 0"
        );
        assert_eq!(
            run(chown, "chown", &[p, u32::MAX as u64, 1234], 0, &mut m),
            "chown(\"x\", -1, 1234) = 0"
        );
        assert_eq!(
            run(fchown, "fchown", &[3, 0, 4294967294], 0, &mut m),
            "fchown(3, 0, 4294967294) = 0"
        );
        assert_eq!(
            run(mknod, "mknod", &[p, 0o10644, 0], 0, &mut m),
            "mknod(\"x\", S_IFIFO|0644) = 0"
        );
        assert_eq!(
            run(mknodat, "mknodat", &[CWD, p, 0o64755, 0x12345], 0, &mut m),
            "mknodat(AT_FDCWD, \"x\", S_IFBLK|S_ISUID|0755, makedev(0x123, 0x45)) = 0"
        );
        assert_eq!(
            run(mknod, "mknod", &[p, 0o170644, 0], -22, &mut m),
            "mknod(\"x\", 0170644) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(umask, "umask", &[0o777777], 0o22, &mut m),
            "umask(0177777) = 022"
        );
        assert_eq!(run(umask, "umask", &[0], 0, &mut m), "umask(000) = 000");
        assert_eq!(
            run(truncate, "truncate", &[p, u64::MAX], -22, &mut m),
            "truncate(\"x\", 18446744073709551615) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn raw_xlat_style() {
        let mut m = FakeMemory::default();
        let p = m.put(b"x\0");
        let o = DecodeOpts {
            xlat_style: 1,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(access, "access", &[p, 6], 0, &mut m, &o),
            "access(\"x\", 0x6) = 0"
        );
    }
}
