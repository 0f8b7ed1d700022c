//! Descriptor I/O: read, write and their positional forms, close,
//! close_range, the dup family, lseek, pipes, syncing, preallocation and the
//! in-kernel copies (sendfile, copy_file_range, splice), memfd_create.

pub(in crate::syscall) mod iov;

use crate::syscall::printers::{enum_arg, flags_arg, le32, lld_arg, num_at, xint};
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("read", read),
    ("write", write),
    ("pread64", pread),
    ("pwrite64", pwrite),
    ("close", fd_only),
    ("fsync", fd_only),
    ("fdatasync", fd_only),
    ("close_range", close_range),
    ("dup", dup),
    ("dup2", dup2),
    ("dup3", dup3),
    ("lseek", lseek),
    ("pipe", pipe),
    ("pipe2", pipe2),
    ("fadvise64", fadvise64),
    ("fallocate", fallocate),
    ("sync_file_range", sync_file_range),
    ("sendfile", sendfile),
    ("copy_file_range", copy_file_range),
    ("splice", splice),
    ("memfd_create", memfd_create),
];

/// `read(fd, buf, count)`: the buffer is printed at exit with what was read.
fn read(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    c.outbuf(1);
    c.ulong(2);
    Step::Done(RetFmt::Int)
}

/// `write(fd, buf, count)`.
fn write(c: &mut Ctx) -> Step {
    c.fd(0);
    c.buf(1, c.arg_ulong(2));
    c.ulong(2);
    Step::Done(RetFmt::Int)
}

/// A 64-bit offset starting at argument `i`: one register on 64-bit
/// personalities, a low/high pair on i386 (strace's `print_arg_lld`).
pub(in crate::syscall) fn offset_arg(c: &mut Ctx, i: usize) {
    if c.arch.word_size() == 4 {
        let v = (c.arg(i) as u32 as u64) | ((c.arg(i + 1) as u32 as u64) << 32);
        c.push(Value::Int(v as i64));
    } else {
        lld_arg(c, i);
    }
}

/// `pread64(fd, buf, count, offset)`.
fn pread(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    c.outbuf(1);
    c.ulong(2);
    offset_arg(c, 3);
    Step::Done(RetFmt::Int)
}

/// `pwrite64(fd, buf, count, offset)`.
fn pwrite(c: &mut Ctx) -> Step {
    c.fd(0);
    c.buf(1, c.arg_ulong(2));
    c.ulong(2);
    offset_arg(c, 3);
    Step::Done(RetFmt::Int)
}

// ---- descriptors ----

/// A call whose only argument is a descriptor (`close`, `fsync`).
fn fd_only(c: &mut Ctx) -> Step {
    c.fd(0);
    Step::Done(RetFmt::Int)
}

/// `close_range(first, last, flags)`: the bounds are plain unsigned numbers.
fn close_range(c: &mut Ctx) -> Step {
    c.uint(0);
    c.uint(1);
    flags_arg(c, 2, &xlat::CLOSE_RANGE_FLAGS, "CLOSE_RANGE_???");
    Step::Done(RetFmt::Int)
}

/// `dup(fd)`.
fn dup(c: &mut Ctx) -> Step {
    c.fd(0);
    Step::Done(RetFmt::Fd)
}

/// `dup2(old, new)`.
fn dup2(c: &mut Ctx) -> Step {
    c.fd(0);
    c.fd(1);
    Step::Done(RetFmt::Fd)
}

/// `dup3(old, new, flags)`.
fn dup3(c: &mut Ctx) -> Step {
    dup2(c);
    flags_arg(c, 2, &xlat::OPEN_FLAGS, "O_???");
    Step::Done(RetFmt::Fd)
}

/// `lseek(fd, offset, whence)`.
fn lseek(c: &mut Ctx) -> Step {
    c.fd(0);
    c.long(1);
    enum_arg(c, 2, &xlat::WHENCE, "SEEK_???");
    Step::Done(RetFmt::Int)
}

/// The descriptor pair a pipe call wrote, or the pointer.
fn pipe_fds(c: &mut Ctx) {
    let addr = c.arg_ulong(0);
    let v = match c.read_bytes(addr, 8) {
        Some(b) if !c.failed() => {
            let r = le32(&b, 0) as i32 as i64;
            let w = le32(&b, 4) as i32 as i64;
            Value::Array(vec![c.fd_value(r), c.fd_value(w)], false)
        }
        _ => Value::Ptr(addr),
    };
    c.push(v);
}

/// `pipe(fds)`: printed at exit.
fn pipe(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    pipe_fds(c);
    Step::Done(RetFmt::Int)
}

/// `pipe2(fds, flags)`: everything prints at exit, as strace does.
fn pipe2(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    pipe_fds(c);
    flags_arg(c, 1, &xlat::OPEN_FLAGS, "O_???");
    Step::Done(RetFmt::Int)
}

// ---- ranges ----

/// `fadvise64(fd, offset, len, advice)`.
fn fadvise64(c: &mut Ctx) -> Step {
    c.fd(0);
    lld_arg(c, 1);
    c.ulong(2);
    enum_arg(c, 3, &xlat::FADVISE_ADVICE, "POSIX_FADV_???");
    Step::Done(RetFmt::Int)
}

/// `fallocate(fd, mode, offset, len)`.
fn fallocate(c: &mut Ctx) -> Step {
    c.fd(0);
    flags_arg(c, 1, &xlat::FALLOC_FLAGS, "FALLOC_FL_???");
    lld_arg(c, 2);
    lld_arg(c, 3);
    Step::Done(RetFmt::Int)
}

/// `sync_file_range(fd, offset, nbytes, flags)`.
fn sync_file_range(c: &mut Ctx) -> Step {
    c.fd(0);
    lld_arg(c, 1);
    lld_arg(c, 2);
    flags_arg(c, 3, &xlat::SYNC_FILE_RANGE_FLAGS, "SYNC_FILE_RANGE_???");
    Step::Done(RetFmt::Int)
}

// ---- copies ----

/// `sendfile(out, in, offset, count)`: the offset as it was at entry and,
/// when data moved, as the kernel left it (`[2] => [7]`). The entry value is
/// kept in `saved` and printed at exit, so the line reads as strace's when
/// the call is not interrupted.
fn sendfile(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    let off = c.arg_ulong(2);
    if c.entering() {
        c.fd(0);
        c.fd(1);
        let v = num_at(c, off, w, false);
        match v {
            Value::Array(ref items, _) if c.arg_ulong(3) != 0 => {
                if let Some(Value::UInt(old)) = items.first() {
                    c.saved = *old;
                }
                return Step::Exit;
            }
            _ => {
                c.push(v);
                c.ulong(3);
                return Step::Done(RetFmt::Int);
            }
        }
    }
    let old = Value::Array(vec![Value::UInt(c.saved)], false);
    let v = if !c.failed() && c.retval() != 0 {
        Value::Changed(Box::new(old), Box::new(num_at(c, off, w, false)))
    } else {
        old
    };
    c.push(v);
    c.ulong(3);
    Step::Done(RetFmt::Int)
}

/// `copy_file_range(fd_in, off_in, fd_out, off_out, len, flags)`: the offsets
/// as they were at entry.
fn copy_file_range(c: &mut Ctx) -> Step {
    c.fd(0);
    let v = num_at(c, c.arg_ulong(1), 8, true);
    c.push(v);
    c.fd(2);
    let v = num_at(c, c.arg_ulong(3), 8, true);
    c.push(v);
    c.ulong(4);
    c.uint(5);
    Step::Done(RetFmt::Int)
}

/// `splice(fd_in, off_in, fd_out, off_out, len, flags)`.
fn splice(c: &mut Ctx) -> Step {
    copy_file_range(c);
    c.entry_args.pop();
    flags_arg(c, 5, &xlat::SPLICE_FLAGS, "SPLICE_F_???");
    Step::Done(RetFmt::Int)
}

/// `memfd_create(name, flags)`: the hugetlb page size bits print as
/// `21<<MFD_HUGE_SHIFT`.
fn memfd_create(c: &mut Ctx) -> Step {
    // The name: at most MFD_NAME_MAX_LEN (249) bytes and its NUL.
    let v = c.cstrn_value(c.arg_ulong(0), 250);
    c.push(v);
    let flags = c.arg(1) as u32 as u64;
    let v = memfd_flags_value(c, flags);
    c.push(v);
    Step::Done(RetFmt::Fd)
}

/// The value of memfd_create's flags.
fn memfd_flags_value(c: &Ctx, flags: u64) -> Value {
    if flags == 0 || c.opts.xlat_style == 1 {
        return xint(flags);
    }
    let shift = libc::MFD_HUGE_SHIFT as u64;
    let mask = (libc::MFD_HUGE_MASK as u64) << shift;
    let (huge, rest) = (flags & mask, flags & !mask);
    let mut s = String::new();
    if rest != 0 || huge == 0 {
        // The names as -X abbrev prints them, also inside -X verbose's comment.
        let (names, left) = xlat::MEMFD_CREATE_FLAGS.split_flags(rest);
        let v = if names.is_empty() {
            Value::Commented(Box::new(Value::Hex(rest)), Cow::Borrowed("MFD_???"))
        } else {
            Value::Flags {
                names,
                rest: left,
                octal_rest: false,
            }
        };
        s = crate::syscall::ctx::render_flags(&v);
    }
    if huge != 0 {
        if rest != 0 {
            s.push('|');
        }
        s.push_str(&format!("{}<<MFD_HUGE_SHIFT", huge >> shift));
    }
    if c.opts.xlat_style == 2 {
        return Value::Commented(Box::new(Value::Hex(flags)), Cow::Owned(s));
    }
    Value::sym_owned(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_env, run_with, Env};
    use crate::syscall::DecodeOpts;

    #[test]
    fn read_write() {
        let mut m = FakeMemory::default();
        let b = m.put(b"hXYlo world");
        assert_eq!(
            run(read, "read", &[3, b, 5], 5, &mut m),
            "read(3, \"hXYlo\", 5) = 5"
        );
        assert_eq!(
            run(read, "read", &[u32::MAX as u64, b, 16], -9, &mut m),
            format!("read(-1, {b:#x}, 16) = -1 EBADF (Bad file descriptor)")
        );
        assert_eq!(
            run(pwrite, "pwrite64", &[3, b, 2, 1], 2, &mut m),
            "pwrite64(3, \"hX\", 2, 1) = 2"
        );
        assert_eq!(
            run(pread, "pread64", &[3, b, 4, u64::MAX], -22, &mut m),
            format!("pread64(3, {b:#x}, 4, -1) = -1 EINVAL (Invalid argument)")
        );
        let o = DecodeOpts {
            string_limit: 4,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(write, "write", &[3, b, 11], 11, &mut m, &o),
            "write(3, \"hXYl\"..., 11) = 11"
        );
    }

    #[test]
    fn descriptors() {
        let mut m = FakeMemory::default();
        let fds = m.put(&[3, 0, 0, 0, 4, 0, 0, 0]);
        let env = Env {
            fds: vec![(3, "pipe:[10986]"), (4, "pipe:[10986]")],
            opts: DecodeOpts {
                fd_paths: true,
                ..DecodeOpts::default()
            },
            ..Env::default()
        };
        assert_eq!(
            run_env(pipe, "pipe", &[fds], 0, &mut m, &env),
            "pipe([3<pipe:[10986]>, 4<pipe:[10986]>]) = 0"
        );
        assert_eq!(
            run(pipe2, "pipe2", &[fds, 0o2004000], 0, &mut m),
            "pipe2([3, 4], O_NONBLOCK|O_CLOEXEC) = 0"
        );
        assert_eq!(
            run(pipe2, "pipe2", &[8, 0x100], -22, &mut m),
            "pipe2(0x8, O_NOCTTY) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(dup3, "dup3", &[3, 31, 0o2000000], 31, &mut m),
            "dup3(3, 31, O_CLOEXEC) = 31"
        );
        assert_eq!(
            run(
                close_range,
                "close_range",
                &[100, u32::MAX as u64, 4],
                0,
                &mut m
            ),
            "close_range(100, 4294967295, CLOSE_RANGE_CLOEXEC) = 0"
        );
        assert_eq!(
            run(lseek, "lseek", &[3, -100i64 as u64, 7], -22, &mut m),
            "lseek(3, -100, 0x7 /* SEEK_??? */) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(fadvise64, "fadvise64", &[3, 4, 100, 4], 0, &mut m),
            "fadvise64(3, 4, 100, POSIX_FADV_DONTNEED) = 0"
        );
        assert_eq!(
            run(fallocate, "fallocate", &[3, 1, 4096, 4096], 0, &mut m),
            "fallocate(3, FALLOC_FL_KEEP_SIZE, 4096, 4096) = 0"
        );
        assert_eq!(
            run(sync_file_range, "sync_file_range", &[3, 0, 0, 8], -22, &mut m),
            "sync_file_range(3, 0, 0, 0x8 /* SYNC_FILE_RANGE_??? */) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn copies() {
        let mut m = FakeMemory::default();
        let off = m.put(&2u64.to_le_bytes());
        // The fake tracee's offset does not move; the exit re-read shows it.
        assert_eq!(
            run(sendfile, "sendfile", &[3, 4, off, 5], 5, &mut m),
            "sendfile(3, 4, [2] => [2], 5) = 5"
        );
        assert_eq!(
            run(sendfile, "sendfile", &[3, 4, 0, 3], 3, &mut m),
            "sendfile(3, 4, NULL, 3) = 3"
        );
        assert_eq!(
            run(sendfile, "sendfile", &[3, 4, off, 5], -9, &mut m),
            "sendfile(3, 4, [2], 5) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(
                copy_file_range,
                "copy_file_range",
                &[4, off, 3, 0, 5, 0],
                5,
                &mut m
            ),
            "copy_file_range(4, [2], 3, NULL, 5, 0) = 5"
        );
        assert_eq!(
            run(splice, "splice", &[4, off, 6, 0, 5, 3], 5, &mut m),
            "splice(4, [2], 6, NULL, 5, SPLICE_F_MOVE|SPLICE_F_NONBLOCK) = 5"
        );
        let n = m.put(b"rtrace\0");
        assert_eq!(
            run(memfd_create, "memfd_create", &[n, 3], 3, &mut m),
            "memfd_create(\"rtrace\", MFD_CLOEXEC|MFD_ALLOW_SEALING) = 3"
        );
        assert_eq!(
            run(
                memfd_create,
                "memfd_create",
                &[n, 4 | (21 << 26)],
                3,
                &mut m
            ),
            "memfd_create(\"rtrace\", MFD_HUGETLB|21<<MFD_HUGE_SHIFT) = 3"
        );
        assert_eq!(
            run(memfd_create, "memfd_create", &[n, 0x100], -22, &mut m),
            "memfd_create(\"rtrace\", 0x100 /* MFD_??? */) = -1 EINVAL (Invalid argument)"
        );
    }
}
