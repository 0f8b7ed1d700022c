//! The stat family: stat, lstat, fstat, newfstatat, statx, statfs, fstatfs,
//! utimensat; and the printers of what they carry: symbolic modes
//! (`S_IFREG|0644`), device numbers (`makedev(0x8, 0x1)`) and timestamps with
//! strace's local-time comments (`/* 2023-11-14T22:13:20.123456789+0000 */`).
//!
//! `struct stat` differs between x86_64 and aarch64 (asm-generic); both are
//! decoded, chosen by personality. i386 gets the pointer for now.

use crate::syscall::printers::{
    dev_value, flags_arg, layout64, le16, le32, le64, mode_value, struct_at, timespec_value,
    with_time, xflags, xint,
};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::{xlat, Arch};
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("stat", stat),
    ("lstat", stat),
    ("fstat", fstat),
    ("newfstatat", newfstatat),
    ("statx", statx),
    ("statfs", statfs),
    ("fstatfs", fstatfs),
    ("utimensat", utimensat),
];

// ---- struct stat ----

/// The fields of a `struct stat` strace prints.
struct Stat {
    dev: u64,
    ino: u64,
    mode: u64,
    nlink: u64,
    uid: u64,
    gid: u64,
    rdev: u64,
    size: u64,
    blksize: u64,
    blocks: u64,
    /// `(seconds, nanoseconds)` of atime, mtime, ctime.
    times: [(i64, u64); 3],
}

/// The size of the kernel's `struct stat` in this personality, if decoded.
fn stat_size(arch: Arch) -> Option<usize> {
    match arch {
        Arch::X86_64 => Some(144),
        Arch::Aarch64 => Some(128),
        Arch::I386 => None,
    }
}

/// Parses x86_64's `struct stat` or asm-generic's (aarch64).
fn parse_stat(arch: Arch, b: &[u8]) -> Stat {
    let t = |o| (le64(b, o) as i64, le64(b, o + 8));
    let times = [t(72), t(88), t(104)];
    if arch == Arch::Aarch64 {
        Stat {
            dev: le64(b, 0),
            ino: le64(b, 8),
            mode: le32(b, 16),
            nlink: le32(b, 20),
            uid: le32(b, 24),
            gid: le32(b, 28),
            rdev: le64(b, 32),
            size: le64(b, 48),
            blksize: le32(b, 56),
            blocks: le64(b, 64),
            times,
        }
    } else {
        Stat {
            dev: le64(b, 0),
            ino: le64(b, 8),
            nlink: le64(b, 16),
            mode: le32(b, 24),
            uid: le32(b, 28),
            gid: le32(b, 32),
            rdev: le64(b, 40),
            size: le64(b, 48),
            blksize: le64(b, 56),
            blocks: le64(b, 64),
            times,
        }
    }
}

/// `print_struct_stat`: `{st_mode=…, st_size=…, ...}`, or every field under `-v`.
fn stat_value(c: &Ctx, st: &Stat) -> Value {
    let verbose = c.opts.verbose;
    let mut f = Vec::new();
    if verbose {
        f.push(Field::new("st_dev", dev_value(c, st.dev)));
        f.push(Field::new("st_ino", Value::UInt(st.ino)));
        f.push(Field::new("st_mode", mode_value(c, st.mode)));
        f.push(Field::new("st_nlink", Value::UInt(st.nlink)));
        f.push(Field::new("st_uid", Value::UInt(st.uid)));
        f.push(Field::new("st_gid", Value::UInt(st.gid)));
        f.push(Field::new("st_blksize", Value::UInt(st.blksize)));
        f.push(Field::new("st_blocks", Value::UInt(st.blocks)));
    } else {
        f.push(Field::new("st_mode", mode_value(c, st.mode)));
    }
    let fmt = st.mode & libc::S_IFMT as u64;
    if fmt == libc::S_IFCHR as u64 || fmt == libc::S_IFBLK as u64 {
        f.push(Field::new("st_rdev", dev_value(c, st.rdev)));
    } else {
        f.push(Field::new("st_size", Value::UInt(st.size)));
    }
    if verbose {
        let names = [
            ("st_atime", "st_atime_nsec"),
            ("st_mtime", "st_mtime_nsec"),
            ("st_ctime", "st_ctime_nsec"),
        ];
        for ((sec_name, nsec_name), (sec, nsec)) in names.into_iter().zip(st.times) {
            f.push(Field::new(sec_name, with_time(Value::Int(sec), sec, nsec)));
            f.push(Field::new(nsec_name, Value::UInt(nsec)));
        }
    }
    Value::Struct(f, !verbose)
}

/// Pushes the `struct stat` pointed to by argument `i` (at exit).
fn stat_out(c: &mut Ctx, i: usize) {
    let addr = c.arg_ulong(i);
    let size = stat_size(c.arch);
    let v = struct_at(c, addr, size, |c, b| stat_value(c, &parse_stat(c.arch, b)));
    c.push(v);
}

/// `stat(path, buf)` and `lstat`.
fn stat(c: &mut Ctx) -> Step {
    if c.entering() {
        c.path(0);
        return Step::Exit;
    }
    stat_out(c, 1);
    Step::Done(RetFmt::Int)
}

/// `fstat(fd, buf)`.
fn fstat(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    stat_out(c, 1);
    Step::Done(RetFmt::Int)
}

/// `newfstatat(dirfd, path, buf, flags)`: strace prints the flags at exit.
fn newfstatat(c: &mut Ctx) -> Step {
    if c.entering() {
        c.atfd(0);
        c.path(1);
        return Step::Exit;
    }
    stat_out(c, 2);
    flags_arg(c, 3, &xlat::AT_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

// ---- statx ----

/// The size of `struct statx`.
const STATX_SIZE: usize = 256;

/// `{tv_sec=…, tv_nsec=…} /* time */` of a `struct statx_timestamp` at `off`.
fn statx_time(b: &[u8], off: usize) -> Value {
    let (sec, nsec) = (le64(b, off) as i64, le32(b, off + 8));
    with_time(timespec_value(sec, nsec), sec, nsec)
}

/// `struct statx`: fields present in `stx_mask`, the abbreviated form unless `-v`.
fn statx_value(c: &Ctx, b: &[u8]) -> Value {
    let mask = le32(b, 0) as u32;
    let has = |bit: u32| mask & bit != 0;
    let verbose = c.opts.verbose;
    let mut f = vec![Field::new(
        "stx_mask",
        xflags(c, mask as u64, &xlat::STATX_MASKS, "STATX_???"),
    )];
    let u = |off: usize| Value::UInt(le32(b, off));
    if verbose {
        f.push(Field::new("stx_blksize", u(4)));
    }
    let attrs = xflags(c, le64(b, 8), &xlat::STATX_ATTRS, "STATX_ATTR_???");
    f.push(Field::new("stx_attributes", attrs));
    if verbose {
        for (bit, name, off) in [
            (libc::STATX_NLINK, "stx_nlink", 16),
            (libc::STATX_UID, "stx_uid", 20),
            (libc::STATX_GID, "stx_gid", 24),
        ] {
            if has(bit) {
                f.push(Field::new(name, u(off)));
            }
        }
    }
    if has(libc::STATX_TYPE | libc::STATX_MODE) {
        let mode = le16(b, 28);
        f.push(Field::new("stx_mode", mode_value(c, mode)));
    }
    if verbose && has(libc::STATX_INO) {
        f.push(Field::new("stx_ino", Value::UInt(le64(b, 32))));
    }
    if has(libc::STATX_SIZE) {
        f.push(Field::new("stx_size", Value::UInt(le64(b, 40))));
    }
    if !verbose {
        return Value::Struct(f, true);
    }
    if has(libc::STATX_BLOCKS) {
        f.push(Field::new("stx_blocks", Value::UInt(le64(b, 48))));
    }
    let amask = xflags(c, le64(b, 56), &xlat::STATX_ATTRS, "STATX_ATTR_???");
    f.push(Field::new("stx_attributes_mask", amask));
    for (bit, name, off) in [
        (libc::STATX_ATIME, "stx_atime", 64),
        (libc::STATX_BTIME, "stx_btime", 80),
        (libc::STATX_CTIME, "stx_ctime", 96),
        (libc::STATX_MTIME, "stx_mtime", 112),
    ] {
        if has(bit) {
            f.push(Field::new(name, statx_time(b, off)));
        }
    }
    f.push(Field::new("stx_rdev_major", u(128)));
    f.push(Field::new("stx_rdev_minor", u(132)));
    f.push(Field::new("stx_dev_major", u(136)));
    f.push(Field::new("stx_dev_minor", u(140)));
    if has(libc::STATX_MNT_ID) {
        f.push(Field::new("stx_mnt_id", xint(le64(b, 144))));
    }
    if has(libc::STATX_DIOALIGN) {
        f.push(Field::new("stx_dio_mem_align", u(152)));
        f.push(Field::new("stx_dio_offset_align", u(156)));
    }
    Value::Struct(f, false)
}

/// statx flags: the sync type (`AT_STATX_SYNC_AS_STAT` when zero), then the
/// other `AT_*` bits, the unknown rest in hex without a comment.
fn statx_flags_value(c: &Ctx, flags: u64) -> Value {
    let sync_mask = libc::AT_STATX_SYNC_TYPE as u64;
    let sync = flags & sync_mask;
    if c.opts.xlat_style != 0 {
        // strace prints the two parts separately under -X raw and -X verbose,
        // and (a quirk of printflags_in) nothing for a zero sync type in raw.
        let sync_v = xflags(c, sync, &xlat::AT_STATX_SYNC_TYPES, "");
        let mut s = match (c.opts.xlat_style, sync) {
            (1, 0) => String::new(),
            _ => crate::syscall::ctx::render_flags(&sync_v),
        };
        let rest = flags & !sync_mask;
        if rest != 0 {
            s.push('|');
            s.push_str(&crate::syscall::ctx::render_flags(&xflags(
                c,
                rest,
                &xlat::AT_FLAGS,
                "",
            )));
        }
        return Value::sym_owned(s);
    }
    let mut names = match xlat::AT_STATX_SYNC_TYPES.lookup(sync) {
        Some(n) => vec![n],
        None => xlat::AT_STATX_SYNC_TYPES.split_flags(sync).0,
    };
    let (more, rest) = xlat::AT_FLAGS.split_flags(flags & !sync_mask);
    names.extend(more);
    Value::Flags {
        names,
        rest,
        octal_rest: false,
    }
}

/// `statx(dirfd, path, flags, mask, buf)`.
fn statx(c: &mut Ctx) -> Step {
    if c.entering() {
        c.atfd(0);
        c.path(1);
        let v = statx_flags_value(c, c.arg(2) as u32 as u64);
        c.push(v);
        flags_arg(c, 3, &xlat::STATX_MASKS, "STATX_???");
        return Step::Exit;
    }
    let addr = c.arg_ulong(4);
    let v = struct_at(c, addr, Some(STATX_SIZE), statx_value);
    c.push(v);
    Step::Done(RetFmt::Int)
}

// ---- statfs ----

/// `struct statfs` of the 64-bit ABIs (x86_64 and asm-generic agree).
fn statfs_value(c: &Ctx, b: &[u8]) -> Value {
    let u = |off: usize| Value::UInt(le64(b, off));
    let f_type = c.enum_value(le64(b, 0), &xlat::FSMAGIC, "");
    let fsid = Value::structure(vec![Field::new(
        "val",
        Value::Array(vec![xint(le32(b, 56)), xint(le32(b, 60))], false),
    )]);
    let mut f = vec![
        Field::new("f_type", f_type),
        Field::new("f_bsize", u(8)),
        Field::new("f_blocks", u(16)),
        Field::new("f_bfree", u(24)),
        Field::new("f_bavail", u(32)),
        Field::new("f_files", u(40)),
        Field::new("f_ffree", u(48)),
        Field::new("f_fsid", fsid),
        Field::new("f_namelen", u(64)),
        Field::new("f_frsize", u(72)),
    ];
    let flags = le64(b, 80);
    let valid = xlat::STATFS_FLAGS.value("ST_VALID").unwrap_or(0);
    if flags & valid != 0 {
        f.push(Field::new(
            "f_flags",
            xflags(c, flags, &xlat::STATFS_FLAGS, "ST_???"),
        ));
    }
    Value::structure(f)
}

/// Pushes the `struct statfs` pointed to by argument `i` (at exit).
fn statfs_out(c: &mut Ctx, i: usize) {
    let addr = c.arg_ulong(i);
    let size = layout64(c, 120);
    let v = struct_at(c, addr, size, statfs_value);
    c.push(v);
}

/// `statfs(path, buf)`.
fn statfs(c: &mut Ctx) -> Step {
    if c.entering() {
        c.path(0);
        return Step::Exit;
    }
    statfs_out(c, 1);
    Step::Done(RetFmt::Int)
}

/// `fstatfs(fd, buf)`.
fn fstatfs(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    statfs_out(c, 1);
    Step::Done(RetFmt::Int)
}

// ---- utimensat ----

/// One `struct timespec` of a utimensat pair: `UTIME_NOW`/`UTIME_OMIT` by
/// name, else the time with its comment.
fn utime_value(c: &Ctx, sec: i64, nsec: u64) -> Value {
    let special = match nsec as i64 {
        libc::UTIME_NOW => Some("UTIME_NOW"),
        libc::UTIME_OMIT => Some("UTIME_OMIT"),
        _ => None,
    };
    match (special, c.opts.xlat_style) {
        (Some(n), 0) => Value::sym(n),
        (Some(_), 1) => timespec_value(sec, nsec),
        (Some(n), _) => Value::Commented(Box::new(timespec_value(sec, nsec)), Cow::Borrowed(n)),
        (None, _) => with_time(timespec_value(sec, nsec), sec, nsec),
    }
}

/// `utimensat(dirfd, path, times[2], flags)`.
fn utimensat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    let addr = c.arg_ulong(2);
    let v = struct_at(c, addr, layout64(c, 32), |c, b| {
        let t = |o| utime_value(c, le64(b, o) as i64, le64(b, o + 8));
        Value::Array(vec![t(0), t(16)], false)
    });
    c.push(v);
    flags_arg(c, 3, &xlat::AT_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_env, Env};
    use crate::syscall::DecodeOpts;

    const CWD: u64 = -100i64 as u64;

    /// An x86_64 `struct stat`: ext4 regular file, 70 bytes.
    fn x86_stat(mode: u32, rdev: u64) -> Vec<u8> {
        let mut b = vec![0u8; 144];
        let mut put = |off: usize, v: &[u8]| b[off..off + v.len()].copy_from_slice(v);
        put(0, &0xfe00u64.to_le_bytes());
        put(8, &10011506u64.to_le_bytes());
        put(16, &1u64.to_le_bytes());
        put(24, &mode.to_le_bytes());
        put(40, &rdev.to_le_bytes());
        put(48, &70u64.to_le_bytes());
        put(56, &4096u64.to_le_bytes());
        put(64, &8u64.to_le_bytes());
        put(72, &1700000000u64.to_le_bytes());
        put(80, &123456789u64.to_le_bytes());
        put(88, &1700000001u64.to_le_bytes());
        put(104, &1700000002u64.to_le_bytes());
        put(112, &5u64.to_le_bytes());
        b
    }

    fn verbose() -> Env {
        Env {
            opts: DecodeOpts {
                verbose: true,
                ..DecodeOpts::default()
            },
            ..Env::default()
        }
    }

    #[test]
    fn stat_abbrev_and_verbose() {
        let mut m = FakeMemory::default();
        let p = m.put(b"a.txt\0");
        let st = m.put(&x86_stat(0o100644, 0));
        assert_eq!(
            run(newfstatat, "newfstatat", &[CWD, p, st, 0], 0, &mut m),
            "newfstatat(AT_FDCWD, \"a.txt\", {st_mode=S_IFREG|0644, st_size=70, ...}, 0) = 0"
        );
        assert_eq!(
            run_env(fstat, "fstat", &[3, st], 0, &mut m, &verbose()),
            "fstat(3, {st_dev=makedev(0xfe, 0), st_ino=10011506, st_mode=S_IFREG|0644, \
             st_nlink=1, st_uid=0, st_gid=0, st_blksize=4096, st_blocks=8, st_size=70, \
             st_atime=1700000000 /* 2023-11-14T22:13:20.123456789+0000 */, \
             st_atime_nsec=123456789, st_mtime=1700000001 /* 2023-11-14T22:13:21+0000 */, \
             st_mtime_nsec=0, st_ctime=1700000002 /* 2023-11-14T22:13:22.000000005+0000 */, \
             st_ctime_nsec=5}) = 0"
        );
        let dev = m.put(&x86_stat(0o20600, 0x103));
        assert_eq!(
            run(stat, "stat", &[p, dev], 0, &mut m),
            "stat(\"a.txt\", {st_mode=S_IFCHR|0600, st_rdev=makedev(0x1, 0x3), ...}) = 0"
        );
        assert_eq!(
            run(stat, "stat", &[p, 0x7ffd0000], -2, &mut m),
            "stat(\"a.txt\", 0x7ffd0000) = -1 ENOENT (No such file or directory)"
        );
        assert_eq!(
            run(fstat, "fstat", &[3, 8], -14, &mut m),
            "fstat(3, 0x8) = -1 EFAULT (Bad address)"
        );
    }

    #[test]
    fn stat_aarch64_layout() {
        let mut m = FakeMemory::default();
        let mut b = vec![0u8; 128];
        b[16..20].copy_from_slice(&0o40755u32.to_le_bytes());
        b[48..56].copy_from_slice(&4096u64.to_le_bytes());
        let st = m.put(&b);
        let env = Env {
            arch: Arch::Aarch64,
            ..Env::default()
        };
        assert_eq!(
            run_env(fstat, "fstat", &[3, st], 0, &mut m, &env),
            "fstat(3, {st_mode=S_IFDIR|0755, st_size=4096, ...}) = 0"
        );
        let env = Env {
            arch: Arch::I386,
            ..Env::default()
        };
        assert_eq!(
            run_env(fstat, "fstat", &[3, st], 0, &mut m, &env),
            format!("fstat(3, {st:#x}) = 0")
        );
    }

    #[test]
    fn statx_forms() {
        let mut m = FakeMemory::default();
        let p = m.put(b"a.txt\0");
        let mut b = vec![0u8; 256];
        b[0..4].copy_from_slice(&0x17ffu32.to_le_bytes());
        b[4..8].copy_from_slice(&4096u32.to_le_bytes());
        b[16..20].copy_from_slice(&1u32.to_le_bytes());
        b[28..30].copy_from_slice(&0o100644u16.to_le_bytes());
        b[32..40].copy_from_slice(&77u64.to_le_bytes());
        b[40..48].copy_from_slice(&70u64.to_le_bytes());
        b[48..56].copy_from_slice(&8u64.to_le_bytes());
        b[56..64].copy_from_slice(&0x30u64.to_le_bytes());
        for off in [64, 96, 112] {
            b[off..off + 8].copy_from_slice(&1700000000u64.to_le_bytes());
        }
        b[136..140].copy_from_slice(&254u32.to_le_bytes());
        b[144..152].copy_from_slice(&0x1bu64.to_le_bytes());
        let sx = m.put(&b);
        assert_eq!(
            run(statx, "statx", &[CWD, p, 0, 0x7ff, sx], 0, &mut m),
            "statx(AT_FDCWD, \"a.txt\", AT_STATX_SYNC_AS_STAT, STATX_BASIC_STATS, \
             {stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_attributes=0, \
             stx_mode=S_IFREG|0644, stx_size=70, ...}) = 0"
        );
        assert_eq!(
            run_env(
                statx,
                "statx",
                &[3, p, 0x1000, 2, sx],
                0,
                &mut m,
                &verbose()
            ),
            "statx(3, \"a.txt\", AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH, STATX_MODE, \
             {stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_blksize=4096, stx_attributes=0, \
             stx_nlink=1, stx_uid=0, stx_gid=0, stx_mode=S_IFREG|0644, stx_ino=77, \
             stx_size=70, stx_blocks=8, \
             stx_attributes_mask=STATX_ATTR_IMMUTABLE|STATX_ATTR_APPEND, \
             stx_atime={tv_sec=1700000000, tv_nsec=0} /* 2023-11-14T22:13:20+0000 */, \
             stx_ctime={tv_sec=1700000000, tv_nsec=0} /* 2023-11-14T22:13:20+0000 */, \
             stx_mtime={tv_sec=1700000000, tv_nsec=0} /* 2023-11-14T22:13:20+0000 */, \
             stx_rdev_major=0, stx_rdev_minor=0, stx_dev_major=254, stx_dev_minor=0, \
             stx_mnt_id=0x1b}) = 0"
        );
        assert_eq!(
            run(
                statx,
                "statx",
                &[CWD, p, 0x1000_6000, 0x8000_0000, 0x10],
                -22,
                &mut m
            ),
            "statx(AT_FDCWD, \"a.txt\", AT_STATX_FORCE_SYNC|AT_STATX_DONT_SYNC|0x10000000, \
             0x80000000 /* STATX_??? */, 0x10) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn statfs_full() {
        let mut m = FakeMemory::default();
        let p = m.put(b"/proc\0");
        let mut b = vec![0u8; 120];
        b[0..8].copy_from_slice(&0x9fa0u64.to_le_bytes());
        b[8..16].copy_from_slice(&4096u64.to_le_bytes());
        b[56..60].copy_from_slice(&0x15u32.to_le_bytes());
        b[64..72].copy_from_slice(&255u64.to_le_bytes());
        b[72..80].copy_from_slice(&4096u64.to_le_bytes());
        b[80..88].copy_from_slice(&0x1020u64.to_le_bytes());
        let s = m.put(&b);
        assert_eq!(
            run(statfs, "statfs", &[p, s], 0, &mut m),
            "statfs(\"/proc\", {f_type=PROC_SUPER_MAGIC, f_bsize=4096, f_blocks=0, f_bfree=0, \
             f_bavail=0, f_files=0, f_ffree=0, f_fsid={val=[0x15, 0]}, f_namelen=255, \
             f_frsize=4096, f_flags=ST_VALID|ST_RELATIME}) = 0"
        );
    }

    #[test]
    fn utimensat_pairs() {
        let mut m = FakeMemory::default();
        let p = m.put(b"a.txt\0");
        let mut b = Vec::new();
        for v in [1700000000u64, 123456789, 1700000001, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let t = m.put(&b);
        assert_eq!(
            run(utimensat, "utimensat", &[CWD, p, t, 0], 0, &mut m),
            "utimensat(AT_FDCWD, \"a.txt\", [{tv_sec=1700000000, tv_nsec=123456789} \
             /* 2023-11-14T22:13:20.123456789+0000 */, {tv_sec=1700000001, tv_nsec=0} \
             /* 2023-11-14T22:13:21+0000 */], 0) = 0"
        );
        let mut b = Vec::new();
        for v in [0u64, (1 << 30) - 1, 0, (1 << 30) - 2] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let t = m.put(&b);
        assert_eq!(
            run(utimensat, "utimensat", &[CWD, p, t, 0x100], 0, &mut m),
            "utimensat(AT_FDCWD, \"a.txt\", [UTIME_NOW, UTIME_OMIT], AT_SYMLINK_NOFOLLOW) = 0"
        );
        let mut b = Vec::new();
        for v in [0u64, 0, u64::MAX, 2000000000] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let t = m.put(&b);
        assert_eq!(
            run(utimensat, "utimensat", &[CWD, p, t, 1], -22, &mut m),
            "utimensat(AT_FDCWD, \"a.txt\", [{tv_sec=0, tv_nsec=0}, \
             {tv_sec=-1, tv_nsec=2000000000}], 0x1 /* AT_??? */) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(utimensat, "utimensat", &[3, 0, 0, 0], 0, &mut m),
            "utimensat(3, NULL, NULL, 0) = 0"
        );
    }
}
