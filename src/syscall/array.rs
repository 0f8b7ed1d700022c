//! Arrays in tracee memory as strace's `print_array` prints them, and iovec
//! arrays limited by a byte count (`tprint_iov_upto`), for the network and
//! polling families.
//!
//! An array is read with one memory read (at most `-s` + 1 elements without
//! `-v`). `NULL` prints `NULL`, zero elements `[]`, an unreadable or
//! wrapping array its address; an element that cannot be read after the
//! first ends the array with `... /* 0xaddr */`; without `-v`, elements past
//! `-s` become `...`.

use crate::syscall::printers::{le32, le64};
use crate::syscall::{Ctx, Field, Value};
use std::borrow::Cow;

/// strace's `print_array` over `n` elements of `size` bytes at `addr`;
/// `f` decodes one element (and may stop the array by returning `None`).
pub(in crate::syscall) fn array_at(
    c: &mut Ctx,
    addr: u64,
    n: u64,
    size: usize,
    mut f: impl FnMut(&mut Ctx, &[u8]) -> Option<Value>,
) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    if n == 0 {
        return Value::Array(Vec::new(), false);
    }
    let total = n.checked_mul(size as u64);
    if total.and_then(|t| addr.checked_add(t)).is_none() {
        return Value::Ptr(addr);
    }
    let limit = c.opts.string_limit as u64;
    let abbrev = !c.opts.verbose && n > limit;
    // Read one element past the abbreviation point: strace fetches it
    // before printing `...` in its place.
    let want = if abbrev { limit + 1 } else { n }.min(65536);
    let mut raw = vec![0u8; want as usize * size];
    let got = (c.mem.read(addr, &mut raw) / size) as u64;
    if got == 0 {
        return Value::Unreadable(addr);
    }
    let mut items = Vec::new();
    for i in 0..want {
        if i >= got {
            let at = format!("{:#x}", addr + i * size as u64);
            items.push(Value::Commented(
                Box::new(Value::sym("...")),
                Cow::Owned(at),
            ));
            return Value::Array(items, false);
        }
        if abbrev && i == limit {
            return Value::Array(items, true);
        }
        let off = i as usize * size;
        match f(c, &raw[off..off + size]) {
            Some(v) => items.push(v),
            None => return Value::Array(items, false),
        }
    }
    Value::Array(items, false)
}

/// strace's `tprint_iov_upto`: `[{iov_base="…", iov_len=N}, …]` of `n`
/// entries at `addr`; bases print at most the bytes left of `data` (`None`:
/// each whole `iov_len`); `base_f` prints a base and its shown length (a
/// string, or netlink messages on a netlink socket).
pub(in crate::syscall) fn iov_upto(
    c: &mut Ctx,
    addr: u64,
    n: u64,
    mut data: Option<u64>,
    mut base_f: impl FnMut(&mut Ctx, u64, u64) -> Value,
) -> Value {
    let w = c.arch.word_size();
    array_at(c, addr, n, 2 * w, |c, b| {
        let (base, len) = if w == 4 {
            (le32(b, 0), le32(b, 4))
        } else {
            (le64(b, 0), le64(b, 8))
        };
        let shown = data.map_or(len, |d| len.min(d));
        data = data.map(|d| d - shown);
        let base_v = base_f(c, base, shown);
        Some(Value::structure(vec![
            Field::new("iov_base", base_v),
            Field::new("iov_len", Value::UInt(len)),
        ]))
    })
}
