//! Path-based file calls: open, openat, creat, access, faccessat.

use super::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(super) const DECODERS: &[(&str, Decoder)] = &[
    ("open", open),
    ("openat", openat),
    ("creat", creat),
    ("access", access),
    ("faccessat", faccessat),
    ("faccessat2", faccessat2),
];

/// `O_CREAT` and `__O_TMPFILE` are the flags that make the mode meaningful.
fn needs_mode(c: &Ctx, flags: u64) -> bool {
    let creat = xlat::OPEN_FLAGS.value("O_CREAT").unwrap_or(0o100);
    let tmpfile = xlat::OPEN_FLAGS.value("O_TMPFILE").unwrap_or(0o20200000);
    let _ = c;
    flags & creat != 0 || flags & tmpfile == tmpfile
}

/// The value of `open` flags: access mode name first, then the other bits.
pub(super) fn open_flags_value(c: &Ctx, flags: u64) -> Value {
    if c.opts.xlat_style == 1 {
        return Value::Hex(flags);
    }
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

fn open_tail(c: &mut Ctx, flags_arg: usize) {
    let flags = c.arg(flags_arg) as u32 as u64;
    let v = open_flags_value(c, flags);
    c.push(v);
    if needs_mode(c, flags) {
        c.oct(flags_arg + 1);
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

/// `creat(path, mode)`.
fn creat(c: &mut Ctx) -> Step {
    c.path(0);
    c.oct(1);
    Step::Done(RetFmt::Fd)
}

fn access_mode(c: &mut Ctx, i: usize) {
    let m = c.arg(i) as u32 as u64;
    let v = if m == 0 {
        Value::sym("F_OK")
    } else {
        c.flags_value(m, &xlat::ACCESS_MODES)
    };
    c.push(v);
}

/// `access(path, mode)`.
fn access(c: &mut Ctx) -> Step {
    c.path(0);
    access_mode(c, 1);
    Step::Done(RetFmt::Int)
}

/// `faccessat(dirfd, path, mode)`.
fn faccessat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    access_mode(c, 2);
    Step::Done(RetFmt::Int)
}

/// `faccessat2(dirfd, path, mode, flags)`.
fn faccessat2(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    access_mode(c, 2);
    c.flags(3, &xlat::AT_FLAGS);
    Step::Done(RetFmt::Int)
}
