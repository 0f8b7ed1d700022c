//! Extended attributes: setxattr, getxattr, listxattr, removexattr, their
//! `l` (no symlink following) and `f` (descriptor) variants, and the `*at`
//! calls of Linux 6.13 (setxattrat, getxattrat, listxattrat, removexattrat,
//! whose value travels in a `struct xattr_args`), as strace 7.2's `xattr.c`
//! prints them.
//!
//! Values print as strings of their size (a trailing NUL omitted), or as the
//! address when the size exceeds `XATTR_SIZE_MAX`; names as `-s`-limited C
//! strings; lists as the `ret` bytes the kernel filled, NULs shown.

use crate::syscall::layout::kstruct;
use crate::syscall::printers::{flags_arg, push_nonzero_tail, xflags};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, StrVal, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("setxattr", setxattr),
    ("lsetxattr", setxattr),
    ("fsetxattr", fsetxattr),
    ("getxattr", getxattr),
    ("lgetxattr", getxattr),
    ("fgetxattr", fgetxattr),
    ("listxattr", listxattr),
    ("llistxattr", listxattr),
    ("flistxattr", flistxattr),
    ("removexattr", removexattr),
    ("lremovexattr", removexattr),
    ("fremovexattr", fremovexattr),
    ("setxattrat", setxattrat),
    ("getxattrat", getxattrat),
    ("listxattrat", listxattrat),
    ("removexattrat", removexattrat),
];

/// The kernel's `XATTR_SIZE_MAX`: larger sizes print as the address.
const XATTR_SIZE_MAX: u64 = 65536;

/// The file argument: a path, or a descriptor for the `f` variants.
fn target(c: &mut Ctx, by_fd: bool) {
    if by_fd {
        c.fd(0);
    } else {
        c.path(0);
    }
}

/// strace's `print_xattr_val`: `size` bytes at `addr` as a string without
/// its trailing NUL, then the buffer size `insize`.
fn xattr_val(c: &mut Ctx, addr: u64, insize: u64, size: u64) {
    let v = xattr_val_value(c, addr, size);
    c.push(v);
    c.push(Value::UInt(insize));
}

/// The value alone: `size` bytes at `addr`, or the address.
fn xattr_val_value(c: &mut Ctx, addr: u64, size: u64) -> Value {
    if size > XATTR_SIZE_MAX {
        return Value::Ptr(addr);
    }
    match c.buf_value(addr, size) {
        Value::Str(mut s) => {
            omit_trailing_nul(&mut s);
            Value::Str(s)
        }
        v => v,
    }
}

/// `QUOTE_OMIT_TRAILING_0`: a NUL ending what was read is not shown.
fn omit_trailing_nul(s: &mut StrVal) {
    if s.bytes.last() == Some(&0) {
        s.bytes.pop();
    }
}

fn set_common(c: &mut Ctx, by_fd: bool) -> Step {
    target(c, by_fd);
    c.cstr(1);
    let size = c.arg_ulong(3);
    xattr_val(c, c.arg_ulong(2), size, size);
    flags_arg(c, 4, &xlat::XATTR_FLAGS, "XATTR_???");
    Step::Done(RetFmt::Int)
}

/// `setxattr(path, name, value, size, flags)` and `lsetxattr`.
fn setxattr(c: &mut Ctx) -> Step {
    set_common(c, false)
}

/// `fsetxattr(fd, name, value, size, flags)`.
fn fsetxattr(c: &mut Ctx) -> Step {
    set_common(c, true)
}

fn get_common(c: &mut Ctx, by_fd: bool) -> Step {
    if c.entering() {
        target(c, by_fd);
        c.cstr(1);
        return Step::Exit;
    }
    // A failed call's -1 is above XATTR_SIZE_MAX: the address prints.
    let size = c.retval() as u64;
    xattr_val(c, c.arg_ulong(2), c.arg_ulong(3), size);
    Step::Done(RetFmt::Int)
}

/// `getxattr(path, name, value, size)` and `lgetxattr`: the value at exit.
fn getxattr(c: &mut Ctx) -> Step {
    get_common(c, false)
}

/// `fgetxattr(fd, name, value, size)`.
fn fgetxattr(c: &mut Ctx) -> Step {
    get_common(c, true)
}

fn list_common(c: &mut Ctx, by_fd: bool) -> Step {
    if c.entering() {
        target(c, by_fd);
        return Step::Exit;
    }
    xattr_list(c, 1)
}

/// strace's `print_xattr_list`: the list argument `i` (the names the kernel
/// wrote, or the address) and its size `i + 1`.
fn xattr_list(c: &mut Ctx, i: usize) -> Step {
    let addr = c.arg_ulong(i);
    let size = c.arg_ulong(i + 1);
    let v = if size == 0 || c.failed() {
        Value::Ptr(addr)
    } else {
        c.buf_value(addr, c.retval() as u64)
    };
    c.push(v);
    c.push(Value::UInt(size));
    Step::Done(RetFmt::Int)
}

/// `listxattr(path, list, size)` and `llistxattr`: the names at exit.
fn listxattr(c: &mut Ctx) -> Step {
    list_common(c, false)
}

/// `flistxattr(fd, list, size)`.
fn flistxattr(c: &mut Ctx) -> Step {
    list_common(c, true)
}

/// `removexattr(path, name)` and `lremovexattr`.
fn removexattr(c: &mut Ctx) -> Step {
    c.path(0);
    c.cstr(1);
    Step::Done(RetFmt::Int)
}

/// `fremovexattr(fd, name)`.
fn fremovexattr(c: &mut Ctx) -> Step {
    c.fd(0);
    c.cstr(1);
    Step::Done(RetFmt::Int)
}

kstruct! {
    /// `struct xattr_args` (linux/xattr.h), the first version.
    struct XattrArgs size 16 {
        value: u64 @ 0,
        size: u32 @ 8,
        flags: u32 @ 12,
    }
}

/// `dirfd, path, at_flags`: the first arguments of the `*xattrat` calls.
fn dirfd_path_flags(c: &mut Ctx) {
    c.atfd(0);
    c.path(1);
    flags_arg(c, 2, &xlat::XATTRAT_FLAGS, "AT_???");
}

/// The `struct xattr_args` of `size` bytes at `addr`, or why it prints as
/// the address: shorter than the first version, NULL, unreadable.
fn read_xattr_args(c: &mut Ctx, addr: u64, size: u64) -> Result<Vec<u8>, Value> {
    if size < XattrArgs::SIZE as u64 || addr == 0 {
        return Err(Value::Ptr(addr));
    }
    c.read_bytes(addr, XattrArgs::SIZE)
        .ok_or(Value::Unreadable(addr))
}

/// `{value="bar", size=3, flags=XATTR_CREATE}`: the value as `val_size`
/// bytes when `val_size` is known, else its address; a larger structure's
/// non-zero tail after it.
fn xattr_args_value(c: &mut Ctx, b: &[u8], addr: u64, size: u64, val_size: Option<u64>) -> Value {
    let a = XattrArgs(b);
    let value = match val_size {
        Some(n) => xattr_val_value(c, a.value(), n),
        None => Value::Ptr(a.value()),
    };
    let mut f = vec![
        Field::new("value", value),
        Field::new("size", Value::UInt(a.size() as u64)),
        Field::new(
            "flags",
            xflags(c, a.flags() as u64, &xlat::XATTR_FLAGS, "XATTR_???"),
        ),
    ];
    push_nonzero_tail(c, &mut f, addr, XattrArgs::SIZE as u64, size);
    Value::structure(f)
}

/// `setxattrat(dirfd, path, at_flags, name, args, size)` (Linux 6.13).
fn setxattrat(c: &mut Ctx) -> Step {
    dirfd_path_flags(c);
    c.cstr(3);
    let (addr, size) = (c.arg_ulong(4), c.arg_ulong(5));
    let v = match read_xattr_args(c, addr, size) {
        Ok(b) => {
            let n = XattrArgs(&b).size() as u64;
            xattr_args_value(c, &b, addr, size, Some(n))
        }
        Err(v) => v,
    };
    c.push(v);
    c.push(Value::UInt(size));
    Step::Done(RetFmt::Int)
}

/// `getxattrat(dirfd, path, at_flags, name, args, size)`: with a buffer
/// (`args.size` not 0) the structure prints at exit with the value read.
fn getxattrat(c: &mut Ctx) -> Step {
    let (addr, size) = (c.arg_ulong(4), c.arg_ulong(5));
    if c.entering() {
        dirfd_path_flags(c);
        c.cstr(3);
        let v = match read_xattr_args(c, addr, size) {
            Ok(b) if XattrArgs(&b).size() != 0 => return Step::Exit,
            Ok(b) => xattr_args_value(c, &b, addr, size, None),
            Err(v) => v,
        };
        c.push(v);
        c.push(Value::UInt(size));
        return Step::Done(RetFmt::Int);
    }
    // A failed call's -1 is above XATTR_SIZE_MAX: the value's address prints.
    let v = match read_xattr_args(c, addr, size) {
        Ok(b) => {
            let n = c.retval() as u64;
            xattr_args_value(c, &b, addr, size, Some(n))
        }
        Err(_) => Value::Ptr(addr),
    };
    c.push(v);
    c.push(Value::UInt(size));
    Step::Done(RetFmt::Int)
}

/// `listxattrat(dirfd, path, at_flags, list, size)`: the names at exit.
fn listxattrat(c: &mut Ctx) -> Step {
    if c.entering() {
        dirfd_path_flags(c);
        return Step::Exit;
    }
    xattr_list(c, 3)
}

/// `removexattrat(dirfd, path, at_flags, name)`.
fn removexattrat(c: &mut Ctx) -> Step {
    dirfd_path_flags(c);
    c.cstr(3);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn xattrs() {
        let mut m = FakeMemory::default();
        let p = m.put(b"/f\0");
        let n = m.put(b"user.foo\0");
        let v = m.put(b"bar\0");
        assert_eq!(
            run(setxattr, "setxattr", &[p, n, v, 3, 1], 0, &mut m),
            "setxattr(\"/f\", \"user.foo\", \"bar\", 3, XATTR_CREATE) = 0"
        );
        assert_eq!(
            run(fsetxattr, "fsetxattr", &[3, n, v, 4, 4], -22, &mut m),
            "fsetxattr(3, \"user.foo\", \"bar\", 4, 0x4 /* XATTR_??? */) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(getxattr, "getxattr", &[p, n, v, 256], 3, &mut m),
            "getxattr(\"/f\", \"user.foo\", \"bar\", 256) = 3"
        );
        assert_eq!(
            run(fgetxattr, "fgetxattr", &[3, n, 0x1000, 1], -9, &mut m),
            "fgetxattr(3, \"user.foo\", 0x1000, 1) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(listxattr, "listxattr", &[p, n, 256], 9, &mut m),
            "listxattr(\"/f\", \"user.foo\\0\", 256) = 9"
        );
        assert_eq!(
            run(listxattr, "llistxattr", &[p, 0, 0], 0, &mut m),
            "llistxattr(\"/f\", NULL, 0) = 0"
        );
        assert_eq!(
            run(fremovexattr, "fremovexattr", &[-1i64 as u64, n], -9, &mut m),
            "fremovexattr(-1, \"user.foo\") = -1 EBADF (Bad file descriptor)"
        );
    }

    #[test]
    fn xattrat() {
        let mut m = FakeMemory::default();
        let p = m.put(b"f\0");
        let n = m.put(b"user.foo\0");
        let v = m.put(b"bar\0");
        let mut args = v.to_le_bytes().to_vec();
        args.extend_from_slice(&3u32.to_le_bytes());
        args.extend_from_slice(&1u32.to_le_bytes());
        args.extend_from_slice(&0x1234u64.to_le_bytes());
        let a = m.put(&args);
        let fdcwd = -100i64 as u64;
        assert_eq!(
            run(setxattrat, "setxattrat", &[fdcwd, p, 0x100, n, a, 16], 0, &mut m),
            "setxattrat(AT_FDCWD, \"f\", AT_SYMLINK_NOFOLLOW, \"user.foo\", {value=\"bar\", size=3, flags=XATTR_CREATE}, 16) = 0"
        );
        assert_eq!(
            run(setxattrat, "setxattrat", &[fdcwd, p, 0, n, a, 24], -7, &mut m),
            "setxattrat(AT_FDCWD, \"f\", 0, \"user.foo\", {value=\"bar\", size=3, flags=XATTR_CREATE, /* bytes 16..23 */ \"\\x34\\x12\\x00\\x00\\x00\\x00\\x00\\x00\"}, 24) = -1 E2BIG (Argument list too long)"
        );
        assert_eq!(
            run(setxattrat, "setxattrat", &[3, p, 0x8000, n, a, 8], -22, &mut m),
            format!("setxattrat(3, \"f\", 0x8000 /* AT_??? */, \"user.foo\", {a:#x}, 8) = -1 EINVAL (Invalid argument)")
        );
        assert_eq!(
            run(
                removexattrat,
                "removexattrat",
                &[fdcwd, 0, 3, 0],
                -22,
                &mut m
            ),
            "removexattrat(AT_FDCWD, NULL, 0x3 /* AT_??? */, NULL) = -1 EINVAL (Invalid argument)"
        );
    }
}
