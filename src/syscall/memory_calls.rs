//! Memory mapping calls: mmap (and i386's old_mmap and mmap2), munmap,
//! mprotect, pkey_mprotect, brk, mremap, madvise, msync, mlock, mlock2,
//! munlock, mlockall, munlockall, mincore, membarrier, pkey_alloc, pkey_free.

use crate::syscall::printers::{enum_arg, flags_arg, le32, xflags, xint};
use crate::syscall::{Ctx, Decoder, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("mmap", mmap),
    ("mmap2", mmap2),
    ("munmap", addr_len),
    ("mprotect", mprotect),
    ("pkey_mprotect", pkey_mprotect),
    ("brk", brk),
    ("mremap", mremap),
    ("madvise", madvise),
    ("msync", msync),
    ("mlock", addr_len),
    ("munlock", addr_len),
    ("mlock2", mlock2),
    ("mlockall", mlockall),
    ("munlockall", no_args),
    ("mincore", mincore),
    ("membarrier", membarrier),
    ("pkey_alloc", pkey_alloc),
    ("pkey_free", pkey_free),
];

/// The page size strace assumes for `mmap2` offsets and `mincore` vectors.
const PAGE_SIZE: u64 = 4096;

/// `MAP_TYPE`: the bits of the mapping type.
const MAP_TYPE: u64 = 0xf;
/// `MAP_HUGE_SHIFT` and `MAP_HUGE_MASK`: the huge page size's log2.
const MAP_HUGE_SHIFT: u64 = 26;
const MAP_HUGE_MASK: u64 = 0x3f;

/// strace's `print_mmap_flags`: the mapping type (`MAP_PRIVATE`, `MAP_FILE`
/// for 0), the other flags, then `21<<MAP_HUGE_SHIFT`.
pub(in crate::syscall) fn mmap_flags_value(c: &Ctx, flags: u64) -> Value {
    if c.opts.xlat_style == 1 {
        return xint(flags);
    }
    let ty = flags & MAP_TYPE;
    let mut s = match (ty, xlat::MMAP_TYPE.lookup(ty)) {
        (0, _) => "MAP_FILE".to_string(),
        (_, Some(n)) => n.to_string(),
        (_, None) => format!("{ty:#x} /* MAP_??? */"),
    };
    let huge = flags & (MAP_HUGE_MASK << MAP_HUGE_SHIFT);
    let rest = flags & !MAP_TYPE & !(MAP_HUGE_MASK << MAP_HUGE_SHIFT);
    if rest != 0 {
        let (names, left) = xlat::MMAP_FLAGS.split_flags(rest);
        for n in names {
            s.push('|');
            s.push_str(n);
        }
        if left != 0 {
            s.push_str(&format!("|{left:#x}"));
        }
    }
    if huge != 0 {
        s.push_str(&format!("|{}<<MAP_HUGE_SHIFT", huge >> MAP_HUGE_SHIFT));
    }
    if c.opts.xlat_style == 2 {
        return Value::Commented(Box::new(xint(flags)), Cow::Owned(s));
    }
    Value::sym_owned(s)
}

/// `PROT_READ|PROT_WRITE`, `PROT_NONE`.
fn prot_value(c: &Ctx, prot: u64) -> Value {
    xflags(c, prot, &xlat::MMAP_PROT, "PROT_???")
}

/// The six mmap arguments, with the offset already in bytes.
fn print_mmap(c: &mut Ctx, a: [u64; 6], offset: u64) {
    c.push(Value::Ptr(a[0]));
    c.push(Value::UInt(a[1]));
    let v = prot_value(c, a[2]);
    c.push(v);
    let v = mmap_flags_value(c, a[3]);
    c.push(v);
    let v = c.fd_value(a[4] as u32 as i32 as i64);
    c.push(v);
    c.push(xint(offset));
}

/// `mmap(addr, length, prot, flags, fd, offset)`; on i386 the old form whose
/// only argument points to the six.
fn mmap(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    let a: [u64; 6] = std::array::from_fn(|i| c.arg_ulong(i));
    if w == 4 {
        let addr = c.arg_ulong(0);
        match c.read_bytes(addr, 24) {
            Some(b) => {
                let a: [u64; 6] = std::array::from_fn(|i| le32(&b, 4 * i));
                print_mmap(c, a, a[5]);
            }
            None => c.push(Value::Ptr(addr)),
        }
    } else {
        print_mmap(c, a, a[5]);
    }
    Step::Done(RetFmt::Hex)
}

/// `mmap2(addr, length, prot, flags, fd, pgoffset)`: the offset in pages.
fn mmap2(c: &mut Ctx) -> Step {
    let a: [u64; 6] = std::array::from_fn(|i| c.arg_ulong(i));
    print_mmap(c, a, a[5].wrapping_mul(PAGE_SIZE));
    Step::Done(RetFmt::Hex)
}

/// `munmap(addr, length)`, `mlock`, `munlock`.
fn addr_len(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.ulong(1);
    Step::Done(RetFmt::Int)
}

/// `mprotect(addr, length, prot)`.
fn mprotect(c: &mut Ctx) -> Step {
    addr_len(c);
    let v = prot_value(c, c.arg_ulong(2));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `pkey_mprotect(addr, length, prot, pkey)`.
fn pkey_mprotect(c: &mut Ctx) -> Step {
    mprotect(c);
    c.int(3);
    Step::Done(RetFmt::Int)
}

/// `brk(addr)`: the new break, in hex.
fn brk(c: &mut Ctx) -> Step {
    c.ptr(0);
    Step::Done(RetFmt::Hex)
}

/// `mremap(old_address, old_size, new_size, flags[, new_address])`.
fn mremap(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.ulong(1);
    c.ulong(2);
    let flags = c.arg_ulong(3);
    let v = xflags(c, flags, &xlat::MREMAP_FLAGS, "MREMAP_???");
    c.push(v);
    // MREMAP_MAYMOVE|MREMAP_FIXED: the new address is meaningful.
    if flags & 3 == 3 {
        c.ptr(4);
    }
    Step::Done(RetFmt::Hex)
}

/// `madvise(addr, length, advice)`.
fn madvise(c: &mut Ctx) -> Step {
    addr_len(c);
    enum_arg(c, 2, &xlat::MADVISE_ADVICE, "MADV_???");
    Step::Done(RetFmt::Int)
}

/// `msync(addr, length, flags)`.
fn msync(c: &mut Ctx) -> Step {
    addr_len(c);
    flags_arg(c, 2, &xlat::MSYNC_FLAGS, "MS_???");
    Step::Done(RetFmt::Int)
}

/// `mlock2(addr, length, flags)`.
fn mlock2(c: &mut Ctx) -> Step {
    addr_len(c);
    flags_arg(c, 2, &xlat::MLOCK_FLAGS, "MLOCK_???");
    Step::Done(RetFmt::Int)
}

/// `mlockall(flags)`.
fn mlockall(c: &mut Ctx) -> Step {
    flags_arg(c, 0, &xlat::MLOCKALL_FLAGS, "MCL_???");
    Step::Done(RetFmt::Int)
}

/// A call without arguments.
fn no_args(_: &mut Ctx) -> Step {
    Step::Done(RetFmt::Int)
}

/// `mincore(addr, length, vec)`: one residency bit per page at exit, the
/// array cut after `-s` entries unless `-v`.
fn mincore(c: &mut Ctx) -> Step {
    if c.entering() {
        addr_len(c);
        return Step::Exit;
    }
    let vec = c.arg_ulong(2);
    let len = c.arg_ulong(1);
    let n = len.div_ceil(PAGE_SIZE);
    let v = byte_array(c, vec, n);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// An array of `n` bytes at `addr` printed as `[0, 1, ...]` (low bit only).
fn byte_array(c: &mut Ctx, addr: u64, n: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    if n == 0 {
        return Value::Array(Vec::new(), false);
    }
    if c.failed() {
        return Value::Ptr(addr);
    }
    let limit = if c.opts.verbose {
        n
    } else {
        n.min(c.opts.string_limit as u64)
    };
    // Only the shown part is read: strace stops fetching at the cut too.
    let want = (limit as usize).min(1 << 20);
    match c.read_bytes(addr, want.max(1)) {
        Some(b) => Value::Array(
            b.iter()
                .take(want)
                .map(|x| Value::UInt((x & 1) as u64))
                .collect(),
            (want as u64) < n,
        ),
        None => Value::Unreadable(addr),
    }
}

/// `membarrier(cmd, flags[, cpu_id])`: `MEMBARRIER_CMD_QUERY` returns the
/// supported commands, printed as `= 0x3ff (MEMBARRIER_CMD_GLOBAL|...)`.
fn membarrier(c: &mut Ctx) -> Step {
    let cmd = c.arg(0) as u32 as u64;
    let query = cmd == 0;
    if c.entering() {
        enum_arg(c, 0, &xlat::MEMBARRIER_CMDS, "MEMBARRIER_CMD_???");
        if !query {
            flags_tail(c);
            return Step::Done(RetFmt::Int);
        }
        // The flags print at exit so the annotated return can follow them.
        return Step::Exit;
    }
    flags_tail(c);
    let r = c.retval();
    if c.failed() || r == 0 {
        return Step::Done(RetFmt::Int);
    }
    let (names, rest) = xlat::MEMBARRIER_CMDS.split_flags(r as u64);
    let mut s = names.join("|");
    if rest != 0 {
        if !s.is_empty() {
            s.push('|');
        }
        s.push_str(&format!("{rest:#x}"));
    }
    Step::Done(RetFmt::Value(Ret::Annotated(
        Box::new(Ret::Hex(r as u64)),
        Cow::Owned(s),
    )))
}

/// membarrier's flags and, with `MEMBARRIER_CMD_FLAG_CPU`, the cpu id.
fn flags_tail(c: &mut Ctx) {
    flags_arg(c, 1, &xlat::MEMBARRIER_FLAGS, "MEMBARRIER_CMD_FLAG_???");
    if c.arg(1) as u32 & 1 != 0 {
        c.int(2);
    }
}

/// pkey_alloc's access rights as strace 6.1 names them (with powerpc's
/// `PKEY_DISABLE_EXECUTE`, which it prints on every architecture).
static PKEY_ACCESS: rtrace_arch::Xlat = rtrace_arch::Xlat {
    name: "pkey_access",
    kind: rtrace_arch::xlat::XlatKind::Flags,
    entries: &[
        (1, "PKEY_DISABLE_ACCESS"),
        (2, "PKEY_DISABLE_WRITE"),
        (4, "PKEY_DISABLE_EXECUTE"),
    ],
};

/// `pkey_alloc(flags, access_rights)`: both are full `unsigned long`s.
fn pkey_alloc(c: &mut Ctx) -> Step {
    c.push(xint(c.arg_ulong(0)));
    let v = xflags(c, c.arg_ulong(1), &PKEY_ACCESS, "PKEY_???");
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `pkey_free(pkey)`.
fn pkey_free(c: &mut Ctx) -> Step {
    c.int(0);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::DecodeOpts;

    #[test]
    fn mmaps() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(mmap, "mmap", &[0, 8192, 3, 0x22, u32::MAX as u64, 0], 0x7f49_c6fd_a000, &mut m),
            "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f49c6fda000"
        );
        assert_eq!(
            run(mmap, "mmap", &[0x7f49_c6e1_5000, 1400832, 5, 0x812, 3, 0x26000], 0x7f49_c6e1_5000, &mut m),
            "mmap(0x7f49c6e15000, 1400832, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE, 3, 0x26000) = 0x7f49c6e15000"
        );
        assert_eq!(
            run(mmap, "mmap", &[0x1000_0000, 8192, 0, 0x104021, u64::MAX, 0], 0x1000_0000, &mut m),
            "mmap(0x10000000, 8192, PROT_NONE, MAP_SHARED|MAP_ANONYMOUS|MAP_NORESERVE|MAP_FIXED_NOREPLACE, -1, 0) = 0x10000000"
        );
        assert_eq!(
            run(mmap, "mmap", &[0, 4096, 1, 0x5404_0022, u64::MAX, 0], -12, &mut m),
            "mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_SHIFT, -1, 0) = -1 ENOMEM (Cannot allocate memory)"
        );
        assert_eq!(
            run(mmap, "mmap", &[0, 4096, 1, 0x10, 99, 4096], -9, &mut m),
            "mmap(NULL, 4096, PROT_READ, MAP_FILE|MAP_FIXED, 99, 0x1000) = -1 EBADF (Bad file descriptor)"
        );
        let opts = DecodeOpts {
            xlat_style: 2,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(mmap, "mmap", &[0, 8192, 3, 0x22, u64::MAX, 0], 0x1000, &mut m, &opts),
            "mmap(NULL, 8192, 0x3 /* PROT_READ|PROT_WRITE */, 0x22 /* MAP_PRIVATE|MAP_ANONYMOUS */, -1, 0) = 0x1000"
        );
    }

    #[test]
    fn protections_and_advice() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(mprotect, "mprotect", &[0x1000_0000, 4096, 0x0100_0007], -22, &mut m),
            "mprotect(0x10000000, 4096, PROT_READ|PROT_WRITE|PROT_EXEC|PROT_GROWSDOWN) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(addr_len, "munmap", &[0x7000, 65536], 0, &mut m),
            "munmap(0x7000, 65536) = 0"
        );
        assert_eq!(
            run(brk, "brk", &[0], 0x5653_0bac_d000, &mut m),
            "brk(NULL) = 0x56530bacd000"
        );
        assert_eq!(
            run(
                mremap,
                "mremap",
                &[0x1000_0000, 8192, 16384, 1],
                0x1000_0000,
                &mut m
            ),
            "mremap(0x10000000, 8192, 16384, MREMAP_MAYMOVE) = 0x10000000"
        );
        assert_eq!(
            run(
                mremap,
                "mremap",
                &[0x1000, 4096, 4096, 3, 0x2000],
                0x2000,
                &mut m
            ),
            "mremap(0x1000, 4096, 4096, MREMAP_MAYMOVE|MREMAP_FIXED, 0x2000) = 0x2000"
        );
        assert_eq!(
            run(madvise, "madvise", &[0x1000, 4096, 12345], -22, &mut m),
            "madvise(0x1000, 4096, 0x3039 /* MADV_??? */) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(madvise, "madvise", &[0x1000, 65536, 4], 0, &mut m),
            "madvise(0x1000, 65536, MADV_DONTNEED) = 0"
        );
        assert_eq!(
            run(msync, "msync", &[0x1000, 4096, 6], 0, &mut m),
            "msync(0x1000, 4096, MS_SYNC|MS_INVALIDATE) = 0"
        );
        assert_eq!(
            run(mlock2, "mlock2", &[0x1000, 4096, 1], 0, &mut m),
            "mlock2(0x1000, 4096, MLOCK_ONFAULT) = 0"
        );
        assert_eq!(
            run(mlockall, "mlockall", &[3], 0, &mut m),
            "mlockall(MCL_CURRENT|MCL_FUTURE) = 0"
        );
        assert_eq!(
            run(no_args, "munlockall", &[], 0, &mut m),
            "munlockall() = 0"
        );
        assert_eq!(
            run(pkey_alloc, "pkey_alloc", &[0, 3], 1, &mut m),
            "pkey_alloc(0, PKEY_DISABLE_ACCESS|PKEY_DISABLE_WRITE) = 1"
        );
        assert_eq!(
            run(
                pkey_mprotect,
                "pkey_mprotect",
                &[0x1000, 4096, 1, 1],
                -12,
                &mut m
            ),
            "pkey_mprotect(0x1000, 4096, PROT_READ, 1) = -1 ENOMEM (Cannot allocate memory)"
        );
    }

    #[test]
    fn mincore_and_membarrier() {
        let mut m = FakeMemory::default();
        let vec = m.put(&[0, 1, 3, 0]);
        assert_eq!(
            run(mincore, "mincore", &[0x1000, 16384, vec], 0, &mut m),
            "mincore(0x1000, 16384, [0, 1, 1, 0]) = 0"
        );
        let big = m.put(&[0; 40]);
        let s = run(mincore, "mincore", &[0x1000, 40 * 4096, big], 0, &mut m);
        assert!(s.ends_with("0, 0, ...]) = 0"), "{s}");
        assert_eq!(
            run(membarrier, "membarrier", &[0, 0], 0x1ff, &mut m),
            "membarrier(MEMBARRIER_CMD_QUERY, 0) = 0x1ff (MEMBARRIER_CMD_GLOBAL|MEMBARRIER_CMD_GLOBAL_EXPEDITED|MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED|MEMBARRIER_CMD_PRIVATE_EXPEDITED|MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED|MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE|MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE|MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ|MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ)"
        );
        assert_eq!(
            run(membarrier, "membarrier", &[0x10, 0], 0, &mut m),
            "membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) = 0"
        );
    }

    #[test]
    fn pkey_alloc_wide_flags() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(
                pkey_alloc,
                "pkey_alloc",
                &[0, 0xbadc0ded_00000002],
                -22,
                &mut m
            ),
            "pkey_alloc(0, PKEY_DISABLE_WRITE|0xbadc0ded00000000) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(pkey_alloc, "pkey_alloc", &[0, 7], -22, &mut m),
            "pkey_alloc(0, PKEY_DISABLE_ACCESS|PKEY_DISABLE_WRITE|PKEY_DISABLE_EXECUTE) = -1 EINVAL (Invalid argument)"
        );
    }
}
