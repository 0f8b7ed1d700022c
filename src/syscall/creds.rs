//! User and group ids: set*uid/set*gid and their `32` forms, getres*id,
//! getgroups/setgroups, as strace prints them (`-1` for "unchanged",
//! `getresuid([0], [0], [0])`, `setgroups(2, [0, 4])`).
//!
//! On i386 the calls without the `32` suffix take 16-bit ids (`old_uid_t`):
//! their `-1` is 0xffff and their group lists have 2-byte elements.

use crate::syscall::array::array_at;
use crate::syscall::printers::{le16, le32};
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::Arch;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("setuid", one_id),
    ("setgid", one_id),
    ("setfsuid", one_id),
    ("setfsgid", one_id),
    ("setreuid", two_ids),
    ("setregid", two_ids),
    ("setresuid", three_ids),
    ("setresgid", three_ids),
    ("getresuid", getres),
    ("getresgid", getres),
    ("getgroups", getgroups),
    ("setgroups", setgroups),
    ("setuid32", one_id32),
    ("setgid32", one_id32),
    ("setfsuid32", one_id32),
    ("setfsgid32", one_id32),
    ("setreuid32", two_ids32),
    ("setregid32", two_ids32),
    ("setresuid32", three_ids32),
    ("setresgid32", three_ids32),
    ("getresuid32", getres32),
    ("getresgid32", getres32),
    ("getgroups32", getgroups32),
    ("setgroups32", setgroups32),
];

/// Bytes of an id for a call without the `32` suffix: 2 on i386.
fn id_size(c: &Ctx) -> usize {
    if c.arch == Arch::I386 {
        2
    } else {
        4
    }
}

/// strace's `printuid`: `-1` for the all-ones id, else unsigned.
fn id_value(v: u64, size: usize) -> Value {
    let all = if size == 2 { 0xffff } else { 0xffff_ffff };
    if v & all == all {
        Value::Int(-1)
    } else {
        Value::UInt(v & all)
    }
}

fn ids(c: &mut Ctx, n: usize, size: usize) -> Step {
    for i in 0..n {
        let v = id_value(c.arg(i), size);
        c.push(v);
    }
    Step::Done(RetFmt::Int)
}

fn one_id(c: &mut Ctx) -> Step {
    let s = id_size(c);
    ids(c, 1, s)
}

fn two_ids(c: &mut Ctx) -> Step {
    let s = id_size(c);
    ids(c, 2, s)
}

fn three_ids(c: &mut Ctx) -> Step {
    let s = id_size(c);
    ids(c, 3, s)
}

fn one_id32(c: &mut Ctx) -> Step {
    ids(c, 1, 4)
}

fn two_ids32(c: &mut Ctx) -> Step {
    ids(c, 2, 4)
}

fn three_ids32(c: &mut Ctx) -> Step {
    ids(c, 3, 4)
}

/// One id read from `bytes` of an id array.
fn elem(b: &[u8], size: usize) -> Value {
    id_value(if size == 2 { le16(b, 0) } else { le32(b, 0) }, size)
}

/// `getresuid(&r, &e, &s)`: each target in brackets at exit.
fn getres_sized(c: &mut Ctx, size: usize) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    for i in 0..3 {
        let addr = c.arg_ulong(i);
        let v = if c.failed() || addr == 0 {
            Value::Ptr(addr)
        } else {
            match c.read_bytes(addr, size) {
                Some(b) => Value::Array(vec![elem(&b, size)], false),
                None => Value::Unreadable(addr),
            }
        };
        c.push(v);
    }
    Step::Done(RetFmt::Int)
}

fn getres(c: &mut Ctx) -> Step {
    let s = id_size(c);
    getres_sized(c, s)
}

fn getres32(c: &mut Ctx) -> Step {
    getres_sized(c, 4)
}

/// `getgroups(size, list)`: the list the kernel filled (as many ids as the
/// result) at exit; with `size` 0 the kernel only counts, and a non-NULL
/// list prints `[]`.
fn getgroups_sized(c: &mut Ctx, size: usize) -> Step {
    if c.entering() {
        c.int(0);
        return Step::Exit;
    }
    let addr = c.arg_ulong(1);
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        let n = if c.arg_int(0) == 0 {
            0
        } else {
            c.retval() as u64
        };
        groups(c, n, addr, size)
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

fn getgroups(c: &mut Ctx) -> Step {
    let s = id_size(c);
    getgroups_sized(c, s)
}

fn getgroups32(c: &mut Ctx) -> Step {
    getgroups_sized(c, 4)
}

/// `setgroups(size, list)`: `size` ids at entry.
fn setgroups_sized(c: &mut Ctx, size: usize) -> Step {
    c.int(0);
    let v = groups(c, c.arg_int(0) as u32 as u64, c.arg_ulong(1), size);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// strace's `print_groups`: a count above NGROUPS_MAX (65536; a negative
/// one is huge as unsigned) prints the address.
fn groups(c: &mut Ctx, n: u64, addr: u64, size: usize) -> Value {
    if n > 65536 {
        return Value::Ptr(addr);
    }
    array_at(c, addr, n, size, |_, b| Some(elem(b, size)))
}

fn setgroups(c: &mut Ctx) -> Step {
    let s = id_size(c);
    setgroups_sized(c, s)
}

fn setgroups32(c: &mut Ctx) -> Step {
    setgroups_sized(c, 4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn ids_and_lists() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(
                three_ids,
                "setresuid",
                &[u32::MAX as u64, 0, 1000],
                0,
                &mut m
            ),
            "setresuid(-1, 0, 1000) = 0"
        );
        let g = m.put(&[0, 0, 0, 0, 4, 0, 0, 0, 24, 0, 0, 0]);
        assert_eq!(
            run(getgroups, "getgroups", &[3, g], 3, &mut m),
            "getgroups(3, [0, 4, 24]) = 3"
        );
        assert_eq!(
            run(getgroups, "getgroups", &[0, g], 3, &mut m),
            "getgroups(0, []) = 3"
        );
        assert_eq!(
            run(getgroups, "getgroups", &[0, 0], 3, &mut m),
            "getgroups(0, NULL) = 3"
        );
        assert_eq!(
            run(setgroups, "setgroups", &[2, g], 0, &mut m),
            "setgroups(2, [0, 4]) = 0"
        );
        let u = m.put(&[0xe8, 3, 0, 0]);
        assert_eq!(
            run(getres, "getresuid", &[u, u, u], 0, &mut m),
            "getresuid([1000], [1000], [1000]) = 0"
        );
    }
}
