//! Extended attributes: setxattr, getxattr, listxattr, removexattr and their
//! `l` (no symlink following) and `f` (descriptor) variants, as strace's
//! `xattr.c` prints them.
//!
//! Values print as strings of their size (a trailing NUL omitted), or as the
//! address when the size exceeds `XATTR_SIZE_MAX`; names as `-s`-limited C
//! strings; lists as the `ret` bytes the kernel filled, NULs shown.

use crate::syscall::printers::flags_arg;
use crate::syscall::{Ctx, Decoder, RetFmt, Step, StrVal, Value};
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
    let v = if size > XATTR_SIZE_MAX {
        Value::Ptr(addr)
    } else {
        match c.buf_value(addr, size) {
            Value::Str(mut s) => {
                omit_trailing_nul(&mut s);
                Value::Str(s)
            }
            v => v,
        }
    };
    c.push(v);
    c.push(Value::UInt(insize));
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
    let addr = c.arg_ulong(1);
    let size = c.arg_ulong(2);
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
}
