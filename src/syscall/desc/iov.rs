//! The vector forms of descriptor I/O: readv, writev, preadv/pwritev and
//! their `2` forms with `RWF_*` flags, vmsplice; one iovec printer
//! (strace's `tprint_iov_upto`) for all of them.

use crate::syscall::desc::offset_arg;
use crate::syscall::printers::{flags_arg, le32, le64};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("readv", readv),
    ("writev", writev),
    ("preadv", preadv),
    ("pwritev", pwritev),
    ("preadv2", preadv2),
    ("pwritev2", pwritev2),
    ("vmsplice", vmsplice),
];

/// The most iovec entries read at once (the kernel's `UIO_MAXIOV` is 1024).
const IOV_READ_MAX: u64 = 4096;

/// `tprint_iov_upto`: `[{iov_base="…", iov_len=N}, …]` of `n` entries at
/// `addr`. Bases print as strings of at most the bytes left of `data` (None:
/// all of `iov_len`), or as addresses when `addrs` (a failed read). Without
/// `-v` at most `-s` entries print, then `...`; an unreadable entry after the
/// first ends the array with `... /* addr */`, as strace's `print_array`.
fn iov_value(c: &mut Ctx, addr: u64, n: u64, mut data: Option<u64>, addrs: bool) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    if n == 0 {
        return Value::Array(Vec::new(), false);
    }
    let w = c.arch.word_size() as u64;
    if n.checked_mul(2 * w)
        .and_then(|s| addr.checked_add(s))
        .is_none()
    {
        return Value::Ptr(addr);
    }
    let limit = c.opts.string_limit as u64;
    let abbrev = !c.opts.verbose && n > limit;
    let want = if abbrev { limit + 1 } else { n }.min(IOV_READ_MAX);
    let mut raw = vec![0u8; (want * 2 * w) as usize];
    let got = c.mem.read(addr, &mut raw) as u64 / (2 * w);
    if got == 0 {
        return Value::Unreadable(addr);
    }
    let word = |i: u64| {
        let off = (i * w) as usize;
        if w == 4 {
            le32(&raw, off)
        } else {
            le64(&raw, off)
        }
    };
    let mut items = Vec::new();
    for i in 0..want {
        if i >= got {
            let at = format!("{:#x}", addr + i * 2 * w);
            items.push(Value::Commented(
                Box::new(Value::sym("...")),
                Cow::Owned(at),
            ));
            return Value::Array(items, false);
        }
        if abbrev && i == limit {
            return Value::Array(items, true);
        }
        let (base, len) = (word(2 * i), word(2 * i + 1));
        let base_v = if addrs {
            Value::Ptr(base)
        } else {
            let shown = data.map_or(len, |d| len.min(d));
            data = data.map(|d| d - shown);
            c.buf_value(base, shown)
        };
        items.push(Value::structure(vec![
            Field::new("iov_base", base_v),
            Field::new("iov_len", Value::UInt(len)),
        ]));
    }
    Value::Array(items, false)
}

/// The exit half of the readv family: the iovec as filled, then the count.
fn readv_tail(c: &mut Ctx) {
    let (addr, n) = (c.arg_ulong(1), c.arg_ulong(2));
    let (data, addrs) = if c.failed() {
        (None, true)
    } else {
        (Some(c.retval() as u64), false)
    };
    let v = iov_value(c, addr, n, data, addrs);
    c.push(v);
    c.push(Value::UInt(n));
}

/// `readv(fd, iov, iovcnt)`.
fn readv(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    readv_tail(c);
    Step::Done(RetFmt::Int)
}

/// `writev(fd, iov, iovcnt)`.
fn writev(c: &mut Ctx) -> Step {
    c.fd(0);
    let (addr, n) = (c.arg_ulong(1), c.arg_ulong(2));
    let v = iov_value(c, addr, n, None, false);
    c.push(v);
    c.push(Value::UInt(n));
    Step::Done(RetFmt::Int)
}

/// `vmsplice(fd, iov, nr_segs, flags)`: the iovec as writev prints it.
fn vmsplice(c: &mut Ctx) -> Step {
    writev(c);
    flags_arg(c, 3, &xlat::SPLICE_FLAGS, "SPLICE_F_???");
    Step::Done(RetFmt::Int)
}

/// The preadv family: the iovec at exit, the offset and, for preadv2, the
/// `RWF_*` flags (argument 5 in every personality this decodes).
fn do_preadv(c: &mut Ctx, with_flags: bool) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    readv_tail(c);
    offset_arg(c, 3);
    if with_flags {
        flags_arg(c, 5, &xlat::RWF_FLAGS, "RWF_???");
    }
    Step::Done(RetFmt::Int)
}

/// `preadv(fd, iov, iovcnt, offset)`.
fn preadv(c: &mut Ctx) -> Step {
    do_preadv(c, false)
}

/// `preadv2(fd, iov, iovcnt, offset, flags)`.
fn preadv2(c: &mut Ctx) -> Step {
    do_preadv(c, true)
}

/// The pwritev family, decoded at entry.
fn do_pwritev(c: &mut Ctx, with_flags: bool) -> Step {
    writev(c);
    offset_arg(c, 3);
    if with_flags {
        flags_arg(c, 5, &xlat::RWF_FLAGS, "RWF_???");
    }
    Step::Done(RetFmt::Int)
}

/// `pwritev(fd, iov, iovcnt, offset)`.
fn pwritev(c: &mut Ctx) -> Step {
    do_pwritev(c, false)
}

/// `pwritev2(fd, iov, iovcnt, offset, flags)`.
fn pwritev2(c: &mut Ctx) -> Step {
    do_pwritev(c, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::DecodeOpts;

    /// An iovec array over `bufs` placed in `m`: (array, buffer addresses).
    fn iov(m: &mut FakeMemory, bufs: &[&[u8]]) -> (u64, Vec<u64>) {
        let mut v = Vec::new();
        let mut addrs = Vec::new();
        for b in bufs {
            let a = m.put(b);
            addrs.push(a);
            v.extend_from_slice(&a.to_le_bytes());
            v.extend_from_slice(&(b.len() as u64).to_le_bytes());
        }
        (m.put(&v), addrs)
    }

    #[test]
    fn iovecs() {
        let mut m = FakeMemory::default();
        let (v, _) = iov(&mut m, &[b"abc", b"defgh"]);
        assert_eq!(
            run(writev, "writev", &[3, v, 2], 8, &mut m),
            "writev(3, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"defgh\", iov_len=5}], 2) = 8"
        );
        let (r, bases) = iov(&mut m, &[b" wor", b"ld\nabc"]);
        assert_eq!(
            run(readv, "readv", &[3, r, 2], 6, &mut m),
            "readv(3, [{iov_base=\" wor\", iov_len=4}, {iov_base=\"ld\", iov_len=6}], 2) = 6"
        );
        assert_eq!(
            run(preadv, "preadv", &[3, r, 2, 0], -9, &mut m),
            format!(
                "preadv(3, [{{iov_base={:#x}, iov_len=4}}, {{iov_base={:#x}, iov_len=6}}], 2, 0) \
                 = -1 EBADF (Bad file descriptor)",
                bases[0], bases[1]
            )
        );
        assert_eq!(
            run(preadv2, "preadv2", &[3, r, 1, 3, 0, 0], 4, &mut m),
            "preadv2(3, [{iov_base=\" wor\", iov_len=4}], 1, 3, 0) = 4"
        );
        assert_eq!(
            run(pwritev2, "pwritev2", &[3, v, 1, 30, 0, 2], 3, &mut m),
            "pwritev2(3, [{iov_base=\"abc\", iov_len=3}], 1, 30, RWF_DSYNC) = 3"
        );
        assert_eq!(
            run(pwritev2, "pwritev2", &[3, v, 1, 0, 0, 0x40], 3, &mut m),
            "pwritev2(3, [{iov_base=\"abc\", iov_len=3}], 1, 0, RWF_ATOMIC) = 3"
        );
        assert_eq!(
            run(
                pwritev2,
                "pwritev2",
                &[3, v, 1, 0, 0, 0x8000_0000],
                3,
                &mut m
            ),
            "pwritev2(3, [{iov_base=\"abc\", iov_len=3}], 1, 0, 0x80000000 /* RWF_??? */) = 3"
        );
        assert_eq!(
            run(writev, "writev", &[3, 0, 0], -9, &mut m),
            "writev(3, NULL, 0) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(writev, "writev", &[3, v, 0], 0, &mut m),
            "writev(3, [], 0) = 0"
        );
        assert_eq!(
            run(writev, "writev", &[3, 0x10, 2], -14, &mut m),
            "writev(3, 0x10, 2) = -1 EFAULT (Bad address)"
        );
    }

    #[test]
    fn iovec_partly_unreadable() {
        let mut m = FakeMemory::default();
        // The array's second entry lies past the end of readable memory.
        let (v, _) = iov(&mut m, &[b"zz"]);
        assert_eq!(
            run(writev, "writev", &[3, v, 3], -14, &mut m),
            format!(
                "writev(3, [{{iov_base=\"zz\", iov_len=2}}, ... /* {:#x} */], 3) \
                 = -1 EFAULT (Bad address)",
                v + 16
            )
        );
    }

    #[test]
    fn iovec_abbrev() {
        let mut m = FakeMemory::default();
        let bufs: Vec<&[u8]> = vec![b"ab"; 4];
        let (v, _) = iov(&mut m, &bufs);
        let o = DecodeOpts {
            string_limit: 2,
            ..DecodeOpts::default()
        };
        let e = "{iov_base=\"ab\", iov_len=2}";
        assert_eq!(
            run_with(writev, "writev", &[3, v, 4], 8, &mut m, &o),
            format!("writev(3, [{e}, {e}, ...], 4) = 8")
        );
        let o = DecodeOpts {
            string_limit: 2,
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(writev, "writev", &[3, v, 4], 8, &mut m, &o),
            format!("writev(3, [{e}, {e}, {e}, {e}], 4) = 8")
        );
    }

    #[test]
    fn vmsplice_iov() {
        let mut m = FakeMemory::default();
        let (v, _) = iov(&mut m, &[b"012", b"34567"]);
        assert_eq!(
            run(vmsplice, "vmsplice", &[1, v, 2, 2], 8, &mut m),
            "vmsplice(1, [{iov_base=\"012\", iov_len=3}, {iov_base=\"34567\", iov_len=5}], 2, SPLICE_F_NONBLOCK) = 8"
        );
    }
}
