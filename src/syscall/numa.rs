//! NUMA memory policy: mbind, set_mempolicy, get_mempolicy, migrate_pages,
//! move_pages, as strace prints them (`mbind(0x7f…, 4096,
//! MPOL_BIND|MPOL_F_STATIC_NODES, [0x00000000000001], 65, MPOL_MF_STRICT)`).
//!
//! A node mask of `maxnode` bits prints as strace's `print_nodemask`: the
//! `(maxnode - 1)` bits' words (`(maxnode + 62) / 64` of them on 64-bit),
//! each as C's `%#0*lx` of width `2 * sizeof(long)` (the `0x` counts, a zero word
//! has no `0x`).

use crate::syscall::array::array_at;
use crate::syscall::printers::{le32, le64};
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("mbind", mbind),
    ("set_mempolicy", set_mempolicy),
    ("get_mempolicy", get_mempolicy),
    ("migrate_pages", migrate_pages),
    ("move_pages", move_pages),
];

/// A policy mode with its mode flags: `MPOL_BIND|MPOL_F_STATIC_NODES`,
/// `0x63 /* MPOL_??? */`.
fn mode_value(c: &Ctx, v: u64) -> Value {
    // MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING
    const FLAGS: u64 = 0xe000;
    let (mode, flags) = (v & !FLAGS, v & FLAGS);
    if flags == 0 {
        return c.enum_value(mode, &xlat::MPOL_MODES, "MPOL_???");
    }
    let Some(m) = xlat::MPOL_MODES.lookup(mode) else {
        return crate::syscall::printers::xflags(c, v, &xlat::MPOL_MODE_FLAGS, "MPOL_???");
    };
    let (names, _) = xlat::MPOL_MODE_FLAGS.split_flags(flags);
    let text = format!("{m}|{}", names.join("|"));
    match c.opts.xlat_style {
        1 => Value::Hex(v),
        2 => Value::Commented(Box::new(Value::Hex(v)), Cow::Owned(text)),
        _ => Value::sym_owned(text),
    }
}

/// A page status of move_pages: a node number, or a negated errno printed
/// as strace's `print_err` does (`-EFAULT`, `-14 /* -EFAULT */`).
fn status_value(c: &Ctx, st: i64) -> Value {
    let name = if st < 0 {
        rtrace_arch::tables::errno_name((-st) as u64)
    } else {
        None
    };
    match (name, c.opts.xlat_style) {
        (Some(n), 0) => Value::sym_owned(format!("-{n}")),
        (Some(n), 2) => Value::Commented(Box::new(Value::Int(st)), Cow::Owned(format!("-{n}"))),
        _ => Value::Int(st),
    }
}

/// strace's `print_nodemask` of a `maxnode`-bit mask at `addr`.
fn nodemask(c: &mut Ctx, addr: u64, maxnode: u64) -> Value {
    let w = c.arch.word_size();
    let bits = 8 * w as u64;
    let n = maxnode.saturating_add(bits - 2) / bits;
    if addr == 0 {
        return Value::Ptr(0);
    }
    if n < maxnode / bits || (maxnode != 0 && n == 0) {
        return Value::Ptr(addr);
    }
    let width = 2 * w;
    array_at(c, addr, n, w, |_, b| {
        let v = if w == 4 { le32(b, 0) } else { le64(b, 0) };
        let s = if v == 0 {
            "0".repeat(width)
        } else {
            format!("{v:#0width$x}")
        };
        Some(Value::Sym(Cow::Owned(s)))
    })
}

/// `mbind(addr, len, mode, nodemask, maxnode, flags)`.
fn mbind(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.ulong(1);
    let v = mode_value(c, c.arg(2));
    c.push(v);
    let v = nodemask(c, c.arg_ulong(3), c.arg_ulong(4));
    c.push(v);
    c.ulong(4);
    c.flags(5, &xlat::MBIND_FLAGS);
    Step::Done(RetFmt::Int)
}

/// `set_mempolicy(mode, nodemask, maxnode)`.
fn set_mempolicy(c: &mut Ctx) -> Step {
    let v = mode_value(c, c.arg(0) as u32 as u64);
    c.push(v);
    let v = nodemask(c, c.arg_ulong(1), c.arg_ulong(2));
    c.push(v);
    c.ulong(2);
    Step::Done(RetFmt::Int)
}

/// `get_mempolicy(&mode, nodemask, maxnode, addr, flags)`: all at exit.
fn get_mempolicy(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let addr = c.arg_ulong(0);
    let v = if c.failed() || addr == 0 {
        Value::Ptr(addr)
    } else {
        match c.read_bytes(addr, 4) {
            Some(b) => Value::Array(vec![mode_value(c, le32(&b, 0))], false),
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    let mask = c.arg_ulong(1);
    let v = if c.failed() {
        Value::Ptr(mask)
    } else {
        nodemask(c, mask, c.arg_ulong(2))
    };
    c.push(v);
    c.ulong(2);
    c.ptr(3);
    c.flags(4, &xlat::GET_MEMPOLICY_FLAGS);
    Step::Done(RetFmt::Int)
}

/// `migrate_pages(pid, maxnode, old_nodes, new_nodes)`.
fn migrate_pages(c: &mut Ctx) -> Step {
    c.pid(0);
    c.ulong(1);
    let max = c.arg_ulong(1);
    for i in 2..4 {
        let v = nodemask(c, c.arg_ulong(i), max);
        c.push(v);
    }
    Step::Done(RetFmt::Int)
}

/// `move_pages(pid, count, pages, nodes, status, flags)`: the page
/// addresses and target nodes at entry, the status of each page at exit.
fn move_pages(c: &mut Ctx) -> Step {
    let n = c.arg_ulong(1);
    let w = c.arch.word_size();
    if c.entering() {
        c.pid(0);
        c.ulong(1);
        let v = array_at(c, c.arg_ulong(2), n, w, |_, b| {
            Some(Value::Ptr(if w == 4 { le32(b, 0) } else { le64(b, 0) }))
        });
        c.push(v);
        let v = array_at(c, c.arg_ulong(3), n, 4, |_, b| {
            Some(Value::Int(le32(b, 0) as u32 as i32 as i64))
        });
        c.push(v);
        return Step::Exit;
    }
    let st = c.arg_ulong(4);
    // An empty array prints as `[]` even when the call failed (strace's
    // print_array looks at the count before fetching anything).
    let v = if c.failed() && n != 0 {
        Value::Ptr(st)
    } else {
        array_at(c, st, n, 4, |c, b| {
            Some(status_value(c, le32(b, 0) as u32 as i32 as i64))
        })
    };
    c.push(v);
    c.flags(5, &xlat::MBIND_FLAGS);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn modes_masks_and_statuses() {
        let mut m = FakeMemory::default();
        let mask = m.put(&0u64.to_le_bytes());
        // maxnode 0: an empty mask; 1: no whole word, the address.
        assert_eq!(
            run(set_mempolicy, "set_mempolicy", &[0, mask, 0], -22, &mut m),
            "set_mempolicy(MPOL_DEFAULT, [], 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(set_mempolicy, "set_mempolicy", &[0x8001, mask, 1], -22, &mut m),
            format!("set_mempolicy(MPOL_PREFERRED|MPOL_F_STATIC_NODES, {mask:#x}, 1) = -1 EINVAL (Invalid argument)")
        );
        let pages = m.put(&[0u8; 16]);
        let st = m.put(&[0xf2, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        assert_eq!(
            run(
                move_pages,
                "move_pages",
                &[1, 2, pages, 0, st, 2],
                0,
                &mut m
            ),
            "move_pages(1, 2, [NULL, NULL], NULL, [-EFAULT, 0], MPOL_MF_MOVE) = 0"
        );
    }
}
