//! cachestat (Linux 6.5): the page cache state of a file range,
//! `cachestat(fd, {off=0, len=4096}, {nr_cache=1, ...}, 0)`.

use crate::syscall::printers::{le64, struct_at, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[("cachestat", cachestat)];

/// `struct cachestat_range` is two `__u64`; `struct cachestat` five.
const RANGE_SIZE: usize = 16;
const STAT_SIZE: usize = 40;

/// `cachestat(fd, cstat_range, cstat, flags)`: the result struct at exit.
fn cachestat(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        let addr = c.arg_ulong(1);
        let r = range_at(c, addr);
        c.push(r);
        return Step::Exit;
    }
    let addr = c.arg_ulong(2);
    let size = Some(STAT_SIZE);
    let v = struct_at(c, addr, size, |_, b| {
        let names = [
            "nr_cache",
            "nr_dirty",
            "nr_writeback",
            "nr_evicted",
            "nr_recently_evicted",
        ];
        let f = names
            .iter()
            .enumerate()
            .map(|(i, n)| Field::new(n, Value::UInt(le64(b, 8 * i))))
            .collect();
        Value::structure(f)
    });
    c.push(v);
    c.push(xint(c.arg(3) as u32 as u64));
    Step::Done(RetFmt::Int)
}

/// `{off=0, len=4096}`, read at entry (the call failing does not matter).
fn range_at(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    match c.read_bytes(addr, RANGE_SIZE) {
        Some(b) => Value::structure(vec![
            Field::new("off", Value::UInt(le64(&b, 0))),
            Field::new("len", Value::UInt(le64(&b, 8))),
        ]),
        None => Value::Unreadable(addr),
    }
}
