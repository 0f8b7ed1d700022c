//! Small calls strace decodes and rstrace printed raw before: getcpu,
//! memfd_secret, readahead, remap_file_pages, set_mempolicy_home_node, tee,
//! futimesat, utime, utimes, ustat, userfaultfd, futex_waitv and modify_ldt.

use crate::syscall::array::array_at;
use crate::syscall::printers::{le32, le64, num_at, time_string, xflags, xint};
use crate::syscall::time::timespec_at;
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("getcpu", getcpu),
    ("memfd_secret", memfd_secret),
    ("readahead", readahead),
    ("remap_file_pages", remap_file_pages),
    ("set_mempolicy_home_node", set_mempolicy_home_node),
    ("tee", tee),
    ("futimesat", futimesat),
    ("utimes", utimes),
    ("utime", utime),
    ("ustat", ustat),
    ("userfaultfd", userfaultfd),
    ("futex_waitv", futex_waitv),
    ("modify_ldt", modify_ldt),
];

/// `getcpu(cpu, node, tcache)`: everything prints at exit.
fn getcpu(c: &mut Ctx) -> Step {
    if c.entering() {
        c.sep_at_exit = true;
        return Step::Exit;
    }
    for i in 0..2 {
        let addr = c.arg_ulong(i);
        let v = if c.failed() {
            Value::Ptr(addr)
        } else {
            num_at(c, addr, 4, false)
        };
        c.push(v);
    }
    c.ptr(2);
    Step::Done(RetFmt::Int)
}

fn memfd_secret(c: &mut Ctx) -> Step {
    let f = xflags(c, c.arg(0) as u32 as u64, &xlat::MEMFD_SECRET_FLAGS, "");
    c.push(f);
    Step::Done(RetFmt::Fd)
}

fn readahead(c: &mut Ctx) -> Step {
    c.int(0);
    c.push(Value::Int(c.arg(1) as i64));
    c.ulong(2);
    Step::Done(RetFmt::Int)
}

/// `remap_file_pages(addr, size, prot, pgoff, flags)`.
fn remap_file_pages(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.ulong(1);
    let p = xflags(c, c.arg_ulong(2), &xlat::MMAP_PROT, "PROT_???");
    c.push(p);
    c.ulong(3);
    let f = crate::syscall::memory_calls::mmap_flags_value(c, c.arg_ulong(4));
    c.push(f);
    Step::Done(RetFmt::Int)
}

fn set_mempolicy_home_node(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.ulong(1);
    c.ulong(2);
    c.push(xint(c.arg_ulong(3)));
    Step::Done(RetFmt::Int)
}

fn tee(c: &mut Ctx) -> Step {
    c.fd(0);
    c.fd(1);
    c.ulong(2);
    let f = xflags(
        c,
        c.arg(3) as u32 as u64,
        &xlat::SPLICE_FLAGS,
        "SPLICE_F_???",
    );
    c.push(f);
    Step::Done(RetFmt::Int)
}

/// `{tv_sec=S, tv_usec=U}` with strace's time comment when `U` is valid.
fn timeval_utimes(sec: i64, usec: u64) -> Value {
    let v = Value::structure(vec![
        Field::new("tv_sec", Value::Int(sec)),
        Field::new("tv_usec", Value::UInt(usec)),
    ]);
    if usec >= 1_000_000 {
        return v;
    }
    match time_string(sec, usec * 1000) {
        Some(t) => {
            let t = if usec > 0 {
                t.replacen(&format!(".{:09}", usec * 1000), &format!(".{usec:06}"), 1)
            } else {
                t
            };
            Value::Commented(Box::new(v), Cow::Owned(t))
        }
        None => v,
    }
}

/// `futimesat(dirfd, path, times)`.
fn futimesat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    let v = timeval_pair(c, c.arg_ulong(2));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `utimes(path, times)`.
fn utimes(c: &mut Ctx) -> Step {
    c.path(0);
    let v = timeval_pair(c, c.arg_ulong(1));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `utime(path, times)`: `{actime=S /* date */, modtime=S /* date */}`.
fn utime(c: &mut Ctx) -> Step {
    c.path(0);
    let w = c.arch.word_size();
    let v = crate::syscall::printers::struct_at(c, c.arg_ulong(1), Some(2 * w), |_, b| {
        let t = |i: usize| {
            let sec = if w == 4 {
                le32(b, 4 * i) as u32 as i32 as i64
            } else {
                le64(b, 8 * i) as i64
            };
            match time_string(sec, 0) {
                Some(s) => Value::Commented(Box::new(Value::Int(sec)), Cow::Owned(s)),
                None => Value::Int(sec),
            }
        };
        Value::structure(vec![
            Field::new("actime", t(0)),
            Field::new("modtime", t(1)),
        ])
    });
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `ustat(dev, ubuf)`: the device, then `{f_tfree=N, f_tinode=N}` at exit.
fn ustat(c: &mut Ctx) -> Step {
    if c.entering() {
        let d = crate::syscall::printers::dev_value(c, c.arg(0) as u32 as u64);
        c.push(d);
        return Step::Exit;
    }
    let w = c.arch.word_size();
    let size = if w == 4 { 20 } else { 32 };
    let v = crate::syscall::printers::struct_at(c, c.arg_ulong(1), Some(size), |_, b| {
        let inode = if w == 4 { le32(b, 4) } else { le64(b, 8) };
        Value::structure(vec![
            Field::new("f_tfree", Value::UInt(le32(b, 0))),
            Field::new("f_tinode", Value::UInt(inode)),
        ])
    });
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// userfaultfd's flags (`uffd_flags`): its own bit and two open flags.
static UFFD_FLAGS: rtrace_arch::Xlat = rtrace_arch::Xlat {
    name: "uffd_flags",
    kind: rtrace_arch::xlat::XlatKind::Flags,
    entries: &[
        (1, "UFFD_USER_MODE_ONLY"),
        (0o4000, "O_NONBLOCK"),
        (0o2000000, "O_CLOEXEC"),
    ],
};

/// `userfaultfd(flags)`.
fn userfaultfd(c: &mut Ctx) -> Step {
    let f = xflags(c, c.arg(0) as u32 as u64, &UFFD_FLAGS, "UFFD_???");
    c.push(f);
    Step::Done(RetFmt::Fd)
}

/// `[{tv_sec=S, tv_usec=U}, {…}]`: the two timevals of utimes/futimesat.
fn timeval_pair(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    crate::syscall::printers::struct_at(c, addr, Some(4 * w), |_, b| {
        let word = |i: usize| {
            if w == 4 {
                le32(b, 4 * i) as i32 as i64 as u64
            } else {
                le64(b, 8 * i)
            }
        };
        let usec = |i: usize| {
            if w == 4 {
                le32(b, 4 * i)
            } else {
                le64(b, 8 * i)
            }
        };
        Value::Array(
            vec![
                timeval_utimes(word(0) as i64, usec(1)),
                timeval_utimes(word(2) as i64, usec(3)),
            ],
            false,
        )
    })
}

/// The kernel's `FUTEX_WAITV_MAX`.
const FUTEX_WAITV_MAX: u32 = 128;

/// `futex_waitv(waiters, nr_futexes, flags, timeout, clockid)`.
fn futex_waitv(c: &mut Ctx) -> Step {
    let n = c.arg(1) as u32;
    let mut count = 0u32;
    let v = array_at(c, c.arg_ulong(0), n as u64, 24, |c, b| {
        count += 1;
        if count > FUTEX_WAITV_MAX {
            return None;
        }
        let mut f = vec![
            Field::new("val", xint(le64(b, 0))),
            Field::new("uaddr", Value::Ptr(le64(b, 8))),
            Field::new(
                "flags",
                xflags(c, le32(b, 16), &xlat::FUTEX_WAITER_FLAGS, "FUTEX_???"),
            ),
        ];
        if le32(b, 20) != 0 {
            f.push(Field::new("__reserved", xint(le32(b, 20))));
        }
        Some(Value::structure(f))
    });
    let v = match v {
        Value::Array(items, false) if count > FUTEX_WAITV_MAX => Value::Array(items, true),
        other => other,
    };
    c.push(v);
    c.push(Value::UInt(n as u64));
    c.push(xint(c.arg(2) as u32 as u64));
    let t = timespec_at(c, c.arg_ulong(3));
    c.push(t);
    let clk = c.enum_value(c.arg(4) as u32 as u64, &xlat::CLOCKS, "CLOCK_???");
    c.push(clk);
    Step::Done(RetFmt::Int)
}

/// `modify_ldt(func, ptr, bytecount)`. The kernel's result is an `int`
/// that x86_64 does not sign-extend: strace still reads
/// `0xfffff000..` as a negated errno (`= 4294967258 ENOSYS (...)`).
fn modify_ldt(c: &mut Ctx) -> Step {
    if c.exiting() {
        let r = c.retval();
        if c.failed() || (r as u64) < 0xffff_f000 {
            return Step::Done(RetFmt::Int);
        }
        let errno = u64::from((r as u32).wrapping_neg());
        if errno == 0 {
            return Step::Done(RetFmt::Int);
        }
        return Step::Done(RetFmt::Value(Ret::ErrValue { value: r, errno }));
    }
    c.int(0);
    let (addr, len) = (c.arg_ulong(1), c.arg_ulong(2));
    let v = if len != 16 || addr == 0 {
        Value::Ptr(addr)
    } else {
        match c.read_bytes(addr, 16) {
            Some(b) => crate::syscall::ldt::user_desc(&b, c.arch.word_size() == 8),
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    c.ulong(2);
    c.entry_complete = true;
    Step::Exit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn misc() {
        let mut m = FakeMemory::default();
        let e = -22;
        assert_eq!(
            run(
                readahead,
                "readahead",
                &[0x8000_0000, 1 << 63, 0],
                e,
                &mut m
            ),
            "readahead(-2147483648, -9223372036854775808, 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(memfd_secret, "memfd_secret", &[0x80000], 3, &mut m),
            "memfd_secret(O_CLOEXEC) = 3"
        );
        assert_eq!(
            run(tee, "tee", &[u64::MAX, 3, 5, 15], e, &mut m),
            "tee(-1, 3, 5, SPLICE_F_MOVE|SPLICE_F_NONBLOCK|SPLICE_F_MORE|SPLICE_F_GIFT) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(remap_file_pages, "remap_file_pages", &[0x1000, 4096, 3, 0, 0x22], e, &mut m),
            "remap_file_pages(0x1000, 4096, PROT_READ|PROT_WRITE, 0, MAP_PRIVATE|MAP_ANONYMOUS) = -1 EINVAL (Invalid argument)"
        );
        let mut w = 1u64.to_le_bytes().to_vec();
        w.extend_from_slice(&0x1000u64.to_le_bytes());
        w.extend_from_slice(&0x82u32.to_le_bytes());
        w.extend_from_slice(&0u32.to_le_bytes());
        let w = m.put(&w);
        assert_eq!(
            run(futex_waitv, "futex_waitv", &[w, 1, 0, 0, 1], e, &mut m),
            "futex_waitv([{val=0x1, uaddr=0x1000, flags=FUTEX_32|FUTEX_PRIVATE_FLAG}], 1, 0, NULL, CLOCK_MONOTONIC) = -1 EINVAL (Invalid argument)"
        );
        let cpu = m.put(&1u32.to_le_bytes());
        assert_eq!(
            run(getcpu, "getcpu", &[cpu, 0, 0], 0, &mut m),
            "getcpu([1], NULL, NULL) = 0"
        );
        let mut tv = Vec::new();
        for v in [1492356708u64, 567891, 1492357086, 678902] {
            tv.extend_from_slice(&v.to_le_bytes());
        }
        let tv = m.put(&tv);
        let p = m.put(b"f\0");
        assert_eq!(
            run(futimesat, "futimesat", &[(-100i64) as u64, p, tv], e, &mut m),
            "futimesat(AT_FDCWD, \"f\", [{tv_sec=1492356708, tv_usec=567891} /* 2017-04-16T15:31:48.567891+0000 */, {tv_sec=1492357086, tv_usec=678902} /* 2017-04-16T15:38:06.678902+0000 */]) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn utime_ustat_userfaultfd() {
        let mut m = FakeMemory::default();
        let p = m.put(b"f\0");
        let mut ub = 1492350678u64.to_le_bytes().to_vec();
        ub.extend_from_slice(&0u64.to_le_bytes());
        let ub = m.put(&ub);
        assert_eq!(
            run(utime, "utime", &[p, ub], -2, &mut m),
            "utime(\"f\", {actime=1492350678 /* 2017-04-16T13:51:18+0000 */, modtime=0}) = -1 ENOENT (No such file or directory)"
        );
        assert_eq!(
            run(utime, "utime", &[p, 0], 0, &mut m),
            "utime(\"f\", NULL) = 0"
        );
        let mut tv = Vec::new();
        for v in [1492358607u64, 1000000, 1, 2] {
            tv.extend_from_slice(&v.to_le_bytes());
        }
        let tv = m.put(&tv);
        assert_eq!(
            run(utimes, "utimes", &[p, tv], -22, &mut m),
            "utimes(\"f\", [{tv_sec=1492358607, tv_usec=1000000}, {tv_sec=1, tv_usec=2} /* 1970-01-01T00:00:01.000002+0000 */]) = -1 EINVAL (Invalid argument)"
        );
        let mut us = 7u32.to_le_bytes().to_vec();
        us.extend_from_slice(&[0; 4]);
        us.extend_from_slice(&9u64.to_le_bytes());
        us.extend_from_slice(&[0; 16]);
        let us = m.put(&us);
        assert_eq!(
            run(ustat, "ustat", &[0xfacefeed_ffffffff, us], 0, &mut m),
            "ustat(makedev(0xfff, 0xfffff), {f_tfree=7, f_tinode=9}) = 0"
        );
        assert_eq!(
            run(ustat, "ustat", &[0x801, 0], -22, &mut m),
            "ustat(makedev(0x8, 0x1), NULL) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(userfaultfd, "userfaultfd", &[0x80801], 3, &mut m),
            "userfaultfd(UFFD_USER_MODE_ONLY|O_NONBLOCK|O_CLOEXEC) = 3"
        );
        assert_eq!(
            run(userfaultfd, "userfaultfd", &[0xffff_ffff], -22, &mut m),
            "userfaultfd(UFFD_USER_MODE_ONLY|O_NONBLOCK|O_CLOEXEC|0xfff7f7fe) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn modify_ldt_user_desc() {
        let mut m = FakeMemory::default();
        let mut d = Vec::new();
        for w in [u32::MAX, 0, 0, 0b0110_0001] {
            d.extend_from_slice(&w.to_le_bytes());
        }
        let d = m.put(&d);
        assert_eq!(
            run(modify_ldt, "modify_ldt", &[1, d, 16], -38, &mut m),
            "modify_ldt(1, {entry_number=-1, base_addr=00000000, limit=00000000, seg_32bit=1, contents=0, read_exec_only=0, limit_in_pages=0, seg_not_present=1, useable=1, lm=0}, 16) = -1 ENOSYS (Function not implemented)"
        );
        // The kernel's `int` -ENOSYS, not sign-extended on x86_64.
        assert_eq!(
            run(modify_ldt, "modify_ldt", &[0, 0, 0], 0xffff_ffda, &mut m),
            "modify_ldt(0, NULL, 0) = 4294967258 ENOSYS (Function not implemented)"
        );
        assert_eq!(
            run(modify_ldt, "modify_ldt", &[0, 0, 0], 16, &mut m),
            "modify_ldt(0, NULL, 0) = 16"
        );
    }
}
