//! Directories: getdents64 and getdents (the entry count as a comment, or
//! every entry under `-v`), mkdir, mkdirat, rmdir, chdir, fchdir, getcwd,
//! chroot.

use crate::syscall::printers::{hex_quoted, le16, le32, le64, umode_arg};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, StrVal, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("getdents64", getdents64),
    ("getdents", getdents),
    ("mkdir", mkdir),
    ("mkdirat", mkdirat),
    ("rmdir", path_only),
    ("chdir", path_only),
    ("chroot", path_only),
    ("fchdir", fchdir),
    ("getcwd", getcwd),
];

/// The longest name strace prints from a directory entry.
const D_NAME_LEN_MAX: usize = 256;

/// The most directory bytes read at once.
const DENTS_READ_MAX: u64 = 1 << 20;

/// strace's `printpathn` over bytes already read: the name up to its NUL
/// within `n` bytes (one more is examined), `...` when none is found.
fn path_in(b: &[u8], n: usize) -> StrVal {
    let window = &b[..b.len().min(n + 1)];
    match window.iter().position(|&x| x == 0) {
        Some(z) => StrVal {
            bytes: window[..z].to_vec(),
            truncated: false,
            c_string: true,
        },
        None => StrVal {
            bytes: window[..window.len().min(n)].to_vec(),
            truncated: true,
            c_string: true,
        },
    }
}

/// One `linux_dirent64` or `linux_dirent` record.
struct Dent {
    /// `d_ino`.
    ino: u64,
    /// `d_off`.
    off: u64,
    /// `d_reclen` as the record says.
    reclen: u64,
    /// Where the record starts in the buffer.
    at: usize,
    /// The length used: `reclen` bounded by what is left and the header.
    rec: usize,
    /// strace's over/underflow comment on `d_reclen`.
    note: Option<String>,
}

/// Decodes the `len` bytes of directory entries at `addr`, as strace's
/// `decode_dents`: `0x… /* N entries */`, or the array of entries under `-v`.
fn dents_value(c: &mut Ctx, addr: u64, len: u64, is64: bool) -> Value {
    let verbose = c.opts.verbose;
    let w = c.arch.word_size();
    let header = if is64 { 19 } else { 2 * w + 2 };
    let mut buf = vec![0u8; len.min(DENTS_READ_MAX) as usize];
    let got = c.mem.read(addr, &mut buf);
    buf.truncate(got);
    let mut items = Vec::new();
    let mut notes = Vec::new();
    let mut count = 0u32;
    let mut opened = false;
    let (mut off, mut left) = (0usize, len);
    loop {
        if left < header as u64 {
            if verbose && left == 0 {
                opened = true;
            } else if verbose {
                items.push(leftover(c, &buf, addr, off, left));
            }
            break;
        }
        if off + header > buf.len() {
            if verbose && count > 0 {
                let at = Cow::Owned(format!("{:#x}", addr.wrapping_add(off as u64)));
                items.push(Value::Commented(Box::new(Value::sym("...")), at));
            } else if verbose {
                return Value::Unreadable(addr.wrapping_add(off as u64));
            }
            break;
        }
        opened |= verbose;
        count += 1;
        let b = &buf[off..];
        let (ino, d_off, reclen) = if is64 || w == 8 {
            (le64(b, 0), le64(b, 8), le16(b, 16))
        } else {
            (le32(b, 0), le32(b, 4), le16(b, 8))
        };
        let prefix = if verbose { "" } else { "d_reclen " };
        let (rec, note, next) = if reclen > left {
            let n = format!("{prefix}{} bytes overflow", reclen - left);
            (left, Some(n), false)
        } else if reclen < header as u64 {
            let n = format!("{prefix}{} bytes underflow", header as u64 - reclen);
            (header as u64, Some(n), false)
        } else {
            (reclen, None, reclen < left)
        };
        left -= rec.min(left);
        if !verbose {
            notes.extend(note);
        } else {
            let d = Dent {
                ino,
                off: d_off,
                reclen,
                at: off,
                rec: rec as usize,
                note,
            };
            let (item, ok) = dent_fields(c, &buf, addr, d, header, is64);
            items.push(item);
            if next && !ok {
                return Value::Array(items, true);
            }
        }
        if !next {
            break;
        }
        off += rec as usize;
    }
    if !verbose {
        let mut v = Value::Ptr(addr);
        for n in notes {
            v = Value::Commented(Box::new(v), Cow::Owned(n));
        }
        let plus = if left > 0 { "+" } else { "" };
        return Value::Commented(Box::new(v), Cow::Owned(format!("{count}{plus} entries")));
    }
    if opened {
        Value::Array(items, false)
    } else {
        items.pop().unwrap_or(Value::Array(Vec::new(), false))
    }
}

/// Trailing bytes too short for an entry: forced hex, limited by `-s`.
fn leftover(c: &Ctx, buf: &[u8], addr: u64, off: usize, left: u64) -> Value {
    let Some(b) = buf.get(off..off + left as usize) else {
        return Value::Unreadable(addr.wrapping_add(off as u64));
    };
    let shown = b.len().min(c.opts.string_limit);
    let mut s = hex_quoted(&b[..shown]);
    if shown < b.len() {
        s.push_str("...");
    }
    Value::sym_owned(s)
}

/// One entry under `-v` (`buf` holds the entries read from `addr`); false
/// when its name or type could not be read.
fn dent_fields(
    c: &Ctx,
    buf: &[u8],
    addr: u64,
    d: Dent,
    header: usize,
    is64: bool,
) -> (Value, bool) {
    let (off, rec) = (d.at, d.rec);
    let reclen = match d.note {
        Some(n) => Value::Commented(Box::new(Value::UInt(d.reclen)), Cow::Owned(n)),
        None => Value::UInt(d.reclen),
    };
    let mut f = vec![
        Field::new("d_ino", Value::UInt(d.ino)),
        Field::new("d_off", Value::UInt(d.off)),
        Field::new("d_reclen", reclen),
    ];
    let name_at = off + header;
    let name = |n: usize| match buf.get(name_at..) {
        Some(b) if !b.is_empty() => (Value::Str(path_in(b, n.min(D_NAME_LEN_MAX))), true),
        _ => (Value::Unreadable(addr.wrapping_add(name_at as u64)), false),
    };
    let dtype = |t: u8| c.enum_value(t as u64, &xlat::DIRENT_TYPES, "DT_???");
    let mut ok = true;
    let tail = rec - header;
    if is64 {
        f.push(Field::new("d_type", dtype(buf[off + 18])));
        if tail > 0 {
            let (v, r) = name(tail);
            ok = r;
            f.push(Field::new("d_name", v));
        }
    } else if tail > 0 {
        if tail > 1 {
            let (v, r) = name(tail - 1);
            ok = r;
            f.push(Field::new("d_name", v));
        }
        let t_at = name_at + tail - 1;
        let t = match buf.get(t_at) {
            Some(&t) => dtype(t),
            None => {
                ok = false;
                Value::Unreadable(addr.wrapping_add(t_at as u64))
            }
        };
        f.push(Field::new("d_type", t));
    }
    (Value::structure(f), ok)
}

/// The getdents family: the descriptor at entry, the entries and the buffer
/// size at exit.
fn xgetdents(c: &mut Ctx, is64: bool) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    let (addr, count) = (c.arg_ulong(1), c.arg(2) as u32 as u64);
    let r = c.retval();
    let v = if c.failed() || r as u64 > count {
        Value::Ptr(addr)
    } else {
        dents_value(c, addr, r as u64, is64)
    };
    c.push(v);
    c.push(Value::UInt(count));
    Step::Done(RetFmt::Int)
}

/// `getdents64(fd, dirp, count)`.
fn getdents64(c: &mut Ctx) -> Step {
    xgetdents(c, true)
}

/// `getdents(fd, dirp, count)`: the old layout, `d_type` in the last byte.
fn getdents(c: &mut Ctx) -> Step {
    xgetdents(c, false)
}

/// `mkdir(path, mode)`.
fn mkdir(c: &mut Ctx) -> Step {
    c.path(0);
    umode_arg(c, 1);
    Step::Done(RetFmt::Int)
}

/// `mkdirat(dirfd, path, mode)`.
fn mkdirat(c: &mut Ctx) -> Step {
    c.atfd(0);
    c.path(1);
    umode_arg(c, 2);
    Step::Done(RetFmt::Int)
}

/// A call whose only argument is a path (`rmdir`, `chdir`, `chroot`).
fn path_only(c: &mut Ctx) -> Step {
    c.path(0);
    Step::Done(RetFmt::Int)
}

/// `fchdir(fd)`.
fn fchdir(c: &mut Ctx) -> Step {
    c.fd(0);
    Step::Done(RetFmt::Int)
}

/// `getcwd(buf, size)`: the path (whose length with its NUL is the return
/// value) at exit.
fn getcwd(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let addr = c.arg_ulong(0);
    let v = if c.failed() || addr == 0 {
        Value::Ptr(addr)
    } else {
        let n = (c.retval().max(1) as usize - 1).min(4095);
        match c.read_cstr(addr, n) {
            Some(s) => Value::Str(s),
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    c.ulong(1);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::DecodeOpts;

    /// A `linux_dirent64` record.
    fn dent64(ino: u64, off: u64, t: u8, name: &str) -> Vec<u8> {
        let reclen = (19 + name.len() + 1).div_ceil(8) * 8;
        let mut b = vec![0u8; reclen];
        b[0..8].copy_from_slice(&ino.to_le_bytes());
        b[8..16].copy_from_slice(&off.to_le_bytes());
        b[16..18].copy_from_slice(&(reclen as u16).to_le_bytes());
        b[18] = t;
        b[19..19 + name.len()].copy_from_slice(name.as_bytes());
        b
    }

    fn verbose() -> DecodeOpts {
        DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        }
    }

    #[test]
    fn getdents64_forms() {
        let mut m = FakeMemory::default();
        let mut b = dent64(10011618, 1, 4, ".");
        b.extend(dent64(10011490, i64::MAX as u64, 4, ".."));
        let d = m.put(&b);
        assert_eq!(
            run(getdents64, "getdents64", &[3, d, 4096], 48, &mut m),
            format!("getdents64(3, {d:#x} /* 2 entries */, 4096) = 48")
        );
        assert_eq!(
            run_with(
                getdents64,
                "getdents64",
                &[3, d, 4096],
                48,
                &mut m,
                &verbose()
            ),
            "getdents64(3, [{d_ino=10011618, d_off=1, d_reclen=24, d_type=DT_DIR, d_name=\".\"}, \
             {d_ino=10011490, d_off=9223372036854775807, d_reclen=24, d_type=DT_DIR, \
             d_name=\"..\"}], 4096) = 48"
        );
        assert_eq!(
            run(getdents64, "getdents64", &[3, d, 4096], 0, &mut m),
            format!("getdents64(3, {d:#x} /* 0 entries */, 4096) = 0")
        );
        assert_eq!(
            run_with(
                getdents64,
                "getdents64",
                &[3, d, 4096],
                0,
                &mut m,
                &verbose()
            ),
            "getdents64(3, [], 4096) = 0"
        );
        assert_eq!(
            run(getdents64, "getdents64", &[4, d, 4096], -20, &mut m),
            format!("getdents64(4, {d:#x}, 4096) = -1 ENOTDIR (Not a directory)")
        );
    }

    #[test]
    fn getdents64_damaged() {
        let mut m = FakeMemory::default();
        let mut b = dent64(1, 1, 8, "a");
        b[16] = 200; // reclen past the returned length
        let d = m.put(&b);
        assert_eq!(
            run(getdents64, "getdents64", &[3, d, 4096], 24, &mut m),
            format!("getdents64(3, {d:#x} /* d_reclen 176 bytes overflow */ /* 1 entries */, 4096) = 24")
        );
        // A returned length past readable memory.
        let end = m.base + m.data.len() as u64 - 24;
        assert_eq!(
            run_with(
                getdents64,
                "getdents64",
                &[3, end, 4096],
                48,
                &mut m,
                &verbose()
            ),
            "getdents64(3, [{d_ino=1, d_off=1, d_reclen=200 /* 152 bytes overflow */, \
             d_type=DT_REG, d_name=\"a\"}], 4096) = 48"
        );
    }

    #[test]
    fn getdents_old_layout() {
        let mut m = FakeMemory::default();
        // linux_dirent: ino, off, reclen, name, NUL, pad, d_type in the last byte.
        let mut b = vec![0u8; 24];
        b[0..8].copy_from_slice(&7u64.to_le_bytes());
        b[8..16].copy_from_slice(&1u64.to_le_bytes());
        b[16..18].copy_from_slice(&24u16.to_le_bytes());
        b[18..20].copy_from_slice(b"ab");
        b[23] = 8;
        let d = m.put(&b);
        assert_eq!(
            run_with(getdents, "getdents", &[3, d, 4096], 24, &mut m, &verbose()),
            "getdents(3, [{d_ino=7, d_off=1, d_reclen=24, d_name=\"ab\", d_type=DT_REG}], 4096) = 24"
        );
        // Bytes too few for another entry print in hex.
        assert_eq!(
            run_with(getdents, "getdents", &[3, d, 4096], 4, &mut m, &verbose()),
            "getdents(3, \"\\x07\\x00\\x00\\x00\", 4096) = 4"
        );
    }

    #[test]
    fn directories() {
        let mut m = FakeMemory::default();
        let p = m.put(b"/tmp/fo/d\0");
        assert_eq!(
            run(getcwd, "getcwd", &[p, 4096], 10, &mut m),
            "getcwd(\"/tmp/fo/d\", 4096) = 10"
        );
        assert_eq!(
            run(getcwd, "getcwd", &[p, 1], -34, &mut m),
            format!("getcwd({p:#x}, 1) = -1 ERANGE (Numerical result out of range)")
        );
        assert_eq!(
            run(mkdir, "mkdir", &[p, 0o755], 0, &mut m),
            "mkdir(\"/tmp/fo/d\", 0755) = 0"
        );
        assert_eq!(
            run(
                mkdirat,
                "mkdirat",
                &[-100i64 as u64, p, 0o1777],
                -17,
                &mut m
            ),
            "mkdirat(AT_FDCWD, \"/tmp/fo/d\", 01777) = -1 EEXIST (File exists)"
        );
        assert_eq!(run(fchdir, "fchdir", &[3], 0, &mut m), "fchdir(3) = 0");
    }
}
