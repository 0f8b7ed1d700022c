//! Descriptor I/O: read, write, pread64, pwrite64, close, dup*, lseek.

use super::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(super) const DECODERS: &[(&str, Decoder)] = &[
    ("read", read),
    ("write", write),
    ("pread64", pread),
    ("pwrite64", pwrite),
    ("close", close),
    ("dup", dup),
    ("dup2", dup2),
    ("lseek", lseek),
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

/// `pread64(fd, buf, count, offset)`.
fn pread(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    c.outbuf(1);
    c.ulong(2);
    c.long(3);
    Step::Done(RetFmt::Int)
}

/// `pwrite64(fd, buf, count, offset)`.
fn pwrite(c: &mut Ctx) -> Step {
    c.fd(0);
    c.buf(1, c.arg_ulong(2));
    c.ulong(2);
    c.long(3);
    Step::Done(RetFmt::Int)
}

/// `close(fd)`.
fn close(c: &mut Ctx) -> Step {
    c.fd(0);
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

/// `lseek(fd, offset, whence)`.
fn lseek(c: &mut Ctx) -> Step {
    c.fd(0);
    c.long(1);
    let v = c.enum_value(c.arg(2) as u32 as u64, &xlat::WHENCE, "SEEK_???");
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[allow(dead_code)]
fn _unused(_: Value) {}
