//! file_getattr and file_setattr (Linux 6.17): a file's `struct file_attr`
//! (the FS_IOC_FSGETXATTR attributes) by dirfd and path, as strace 7.2's
//! `file_attr.c` prints them.

use crate::syscall::layout::kstruct;
use crate::syscall::printers::{flags_arg, push_nonzero_tail, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("file_getattr", file_getattr),
    ("file_setattr", file_setattr),
];

kstruct! {
    /// `struct file_attr` (linux/fs.h), its first version.
    struct FileAttr size 24 {
        fa_xflags: u64 @ 0,
        fa_extsize: u32 @ 8,
        fa_nextents: u32 @ 12,
        fa_projid: u32 @ 16,
        fa_cowextsize: u32 @ 20,
    }
}

/// strace prints a structure said to be larger than a page as its address.
const PAGE_SIZE: u64 = 4096;

/// `{fa_xflags=FS_XFLAG_APPEND, fa_extsize=0, …}` (`fa_nextents` only for
/// file_getattr), a larger structure's non-zero tail, then the size.
fn attr_and_size(c: &mut Ctx, is_get: bool) {
    let (addr, usize_) = (c.arg_ulong(2), c.arg_ulong(3));
    let fetch = usize_.min(FileAttr::SIZE as u64);
    let short = fetch < FileAttr::SIZE as u64 || usize_ > PAGE_SIZE;
    let v = if short || addr == 0 || (c.exiting() && c.failed()) {
        Value::Ptr(addr)
    } else {
        match c.read_bytes(addr, FileAttr::SIZE) {
            Some(b) => {
                let a = FileAttr(&b);
                let mut f = vec![Field::new(
                    "fa_xflags",
                    xflags(c, a.fa_xflags(), &xlat::FILE_ATTR_XFLAGS, "FS_XFLAG_???"),
                )];
                f.push(Field::new("fa_extsize", Value::UInt(a.fa_extsize() as u64)));
                if is_get {
                    f.push(Field::new(
                        "fa_nextents",
                        Value::UInt(a.fa_nextents() as u64),
                    ));
                }
                f.push(Field::new("fa_projid", xint(a.fa_projid() as u64)));
                f.push(Field::new(
                    "fa_cowextsize",
                    Value::UInt(a.fa_cowextsize() as u64),
                ));
                push_nonzero_tail(c, &mut f, addr, FileAttr::SIZE as u64, usize_);
                Value::structure(f)
            }
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    c.push(Value::UInt(usize_));
}

/// `file_getattr(dirfd, path, attr, size, at_flags)`: the attributes at exit.
fn file_getattr(c: &mut Ctx) -> Step {
    if c.entering() {
        c.atfd(0);
        c.path(1);
        return Step::Exit;
    }
    attr_and_size(c, true);
    flags_arg(c, 4, &xlat::FILE_ATTR_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

/// `file_setattr(dirfd, path, attr, size, at_flags)`.
fn file_setattr(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    attr_and_size(c, false);
    flags_arg(c, 4, &xlat::FILE_ATTR_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}
