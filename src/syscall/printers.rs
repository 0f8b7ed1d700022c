//! Printers shared by the file, stat, descriptor and directory families:
//! strace's `printflags`/`printxval` fallbacks (`0x40 /* RWF_??? */`), `%#x`
//! numbers, `umode_t`, ids, pointers to numbers (`[42]`), structures read in
//! one piece, symbolic modes (`S_IFREG|0644`), device numbers
//! (`makedev(0x8, 0x1)`) and timestamps with strace's local-time comments
//! (`/* 2023-11-14T22:13:20.123456789+0000 */`).

use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

/// An integer strace prints with `%#x`: hex, but a bare `0` for zero.
pub(in crate::syscall) fn xint(v: u64) -> Value {
    if v == 0 {
        Value::UInt(0)
    } else {
        Value::Hex(v)
    }
}

/// strace's `printflags`: the names of the set bits and the unknown rest in
/// hex; the table's zero name (or `0`) when no bit is set; and the hex value
/// with a `/* PREFIX_??? */` comment when no set bit has a name.
pub(in crate::syscall) fn xflags(c: &Ctx, v: u64, table: &Xlat, dflt: &'static str) -> Value {
    if v == 0 {
        return match (table.lookup(0), c.opts.xlat_style) {
            (Some(n), 0) => Value::sym(n),
            (Some(n), 2) => Value::Commented(Box::new(Value::UInt(0)), Cow::Borrowed(n)),
            _ => Value::UInt(0),
        };
    }
    let (names, _) = table.split_flags(v);
    if names.is_empty() && c.opts.xlat_style != 1 && !dflt.is_empty() {
        return Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(dflt));
    }
    c.flags_value(v, table)
}

/// Flags argument `i` (an `unsigned int`) printed by [`xflags`].
pub(in crate::syscall) fn flags_arg(c: &mut Ctx, i: usize, table: &Xlat, dflt: &'static str) {
    let v = xflags(c, c.arg(i) as u32 as u64, table, dflt);
    c.push(v);
}

/// Enum argument `i` (an `unsigned int`) with strace's `/* X_??? */` fallback.
pub(in crate::syscall) fn enum_arg(c: &mut Ctx, i: usize, table: &Xlat, dflt: &'static str) {
    let v = c.enum_value(c.arg(i) as u32 as u64, table, dflt);
    c.push(v);
}

/// A `umode_t` argument in octal (`print_numeric_umode_t`: 16 bits).
pub(in crate::syscall) fn umode_arg(c: &mut Ctx, i: usize) {
    c.push(Value::Oct(c.arg(i) & 0xffff));
}

/// A `uid_t`/`gid_t`: `-1` for the "unchanged" value, else unsigned.
pub(in crate::syscall) fn id_value(v: u32) -> Value {
    if v == u32::MAX {
        Value::Int(-1)
    } else {
        Value::UInt(v as u64)
    }
}

/// A `loff_t`/`off_t` argument: a signed 64-bit number.
pub(in crate::syscall) fn lld_arg(c: &mut Ctx, i: usize) {
    c.push(Value::Int(c.arg(i) as i64));
}

/// Reads `size` bytes at `addr` and decodes them with `f`; prints the pointer
/// instead when it is NULL, the call failed, the personality has no layout
/// (`size` is `None`) or the memory cannot be read.
pub(in crate::syscall) fn struct_at(
    c: &mut Ctx,
    addr: u64,
    size: Option<usize>,
    f: impl FnOnce(&Ctx, &[u8]) -> Value,
) -> Value {
    let Some(size) = size else {
        return Value::Ptr(addr);
    };
    if addr == 0 || c.failed() {
        return Value::Ptr(addr);
    }
    match c.read_bytes(addr, size) {
        Some(b) => f(c, &b),
        None => Value::Unreadable(addr),
    }
}

/// `size` when the personality is 64-bit, where the structure layouts decoded
/// here apply; `None` (print the pointer) for i386.
pub(in crate::syscall) fn layout64(c: &Ctx, size: usize) -> Option<usize> {
    (c.arch.word_size() == 8).then_some(size)
}

/// Little-endian `u16` at `off` of `b` (0 past the end).
pub(in crate::syscall) fn le16(b: &[u8], off: usize) -> u64 {
    crate::syscall::layout::le::<u16>(b, off) as u64
}

/// Little-endian `u32` at `off` of `b` (0 past the end).
pub(in crate::syscall) fn le32(b: &[u8], off: usize) -> u64 {
    crate::syscall::layout::le::<u32>(b, off) as u64
}

/// Little-endian `u64` at `off` of `b` (0 past the end).
pub(in crate::syscall) fn le64(b: &[u8], off: usize) -> u64 {
    crate::syscall::layout::le::<u64>(b, off)
}

/// A pointer to a number (`[42]`), as strace's `printnum_*`: the pointer when
/// it is NULL or unreadable. `signed` and `size` (4 or 8) give the C type.
pub(in crate::syscall) fn num_at(c: &mut Ctx, addr: u64, size: usize, signed: bool) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    match c.read_bytes(addr, size) {
        Some(b) => {
            let v = if size == 4 { le32(&b, 0) } else { le64(&b, 0) };
            let item = match (signed, size) {
                (true, 4) => Value::Int(v as u32 as i32 as i64),
                (true, _) => Value::Int(v as i64),
                (false, _) => Value::UInt(v),
            };
            Value::Array(vec![item], false)
        }
        None => Value::Unreadable(addr),
    }
}

/// Bytes quoted in forced hex (`"\x00\x01"`), as strace's `QUOTE_FORCE_HEX`.
pub(in crate::syscall) fn hex_quoted(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 4 + 2);
    s.push('"');
    for x in b {
        s.push_str(&format!("\\x{x:02x}"));
    }
    s.push('"');
    s
}

/// strace's `print_nonzero_bytes` for a structure larger than the one
/// decoded: bytes `start..total` at `addr`, nothing when they are all zero,
/// `???` when they cannot be read, else `/* bytes 40..47 */ "\x01..."` (in
/// hex, `-s` limited). The value goes in an unnamed field.
pub(in crate::syscall) fn nonzero_bytes(
    c: &mut Ctx,
    addr: u64,
    start: u64,
    total: u64,
) -> Option<Value> {
    if start >= total {
        return None;
    }
    let len = (total - start) as usize;
    let Some(b) = c.read_data(addr.wrapping_add(start), len) else {
        return Some(Value::Unknown);
    };
    if b.iter().all(|&x| x == 0) {
        return None;
    }
    let shown = len.min(c.opts.string_limit);
    let mut s = format!("/* bytes {start}..{} */ ", total - 1);
    s.push_str(&hex_quoted(&b[..shown]));
    if shown < len {
        s.push_str("...");
    }
    Some(Value::sym_owned(s))
}

/// Appends to `fields` the [`nonzero_bytes`] tail of a structure of `size`
/// bytes at `addr` whose first `known` bytes were decoded, read up to a page
/// as strace's `print_nonzero_bytes` (`???` when unreadable).
pub(in crate::syscall) fn push_nonzero_tail(
    c: &mut Ctx,
    fields: &mut Vec<Field>,
    addr: u64,
    known: u64,
    size: u64,
) {
    if let Some(t) = nonzero_bytes(c, addr, known, size.min(4096)) {
        let t = if t == Value::Unknown {
            Value::sym("???")
        } else {
            t
        };
        fields.push(Field {
            name: Cow::Borrowed(""),
            value: t,
        });
    }
}

// ---- modes, devices, times ----

/// `print_symbolic_mode_t`: `S_IFREG|S_ISUID|0755`; a mode of unknown type in
/// octal; `-X raw` octal; `-X verbose` octal with the symbolic comment.
pub(in crate::syscall) fn mode_value(c: &Ctx, mode: u64) -> Value {
    let fmt = mode & libc::S_IFMT as u64;
    let ifmt = if fmt == 0 {
        Some("")
    } else {
        xlat::MODES_TYPE.lookup(fmt)
    };
    let Some(ifmt) = ifmt.filter(|_| c.opts.xlat_style != 1) else {
        return Value::Oct(mode);
    };
    let mut s = String::from(ifmt);
    if !s.is_empty() {
        s.push('|');
    }
    for (bit, name) in [
        (libc::S_ISUID, "S_ISUID|"),
        (libc::S_ISGID, "S_ISGID|"),
        (libc::S_ISVTX, "S_ISVTX|"),
    ] {
        if mode & bit as u64 != 0 {
            s.push_str(name);
        }
    }
    let special = (libc::S_IFMT | libc::S_ISUID | libc::S_ISGID | libc::S_ISVTX) as u64;
    s.push_str(&oct03(mode & !special));
    if c.opts.xlat_style == 2 {
        Value::Commented(Box::new(Value::Oct(mode)), Cow::Owned(s))
    } else {
        Value::sym_owned(s)
    }
}

/// C's `%#03o`.
fn oct03(v: u64) -> String {
    let s = if v == 0 {
        "0".to_string()
    } else {
        format!("0{v:o}")
    };
    format!("{s:0>3}")
}

/// `print_dev_t`: `makedev(0x8, 0x1)` with glibc's major/minor split.
pub(in crate::syscall) fn dev_value(c: &Ctx, dev: u64) -> Value {
    let major = (((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff)) as u32;
    let minor = ((dev & 0xff) | ((dev >> 12) & !0xff)) as u32;
    let call = Value::Call(
        Cow::Borrowed("makedev"),
        vec![xint(major as u64), xint(minor as u64)],
    );
    match c.opts.xlat_style {
        1 => xint(dev),
        2 => Value::Commented(
            Box::new(xint(dev)),
            Cow::Owned(crate::syscall::ctx::render_flags(&call)),
        ),
        _ => call,
    }
}

/// strace's `sprinttime_nsec`: local time as `%FT%T[.nnnnnnnnn]%z`, or `None`
/// (no comment) for the epoch itself and for out-of-range nanoseconds.
pub(in crate::syscall) fn time_string(sec: i64, nsec: u64) -> Option<String> {
    if (sec == 0 && nsec == 0) || nsec > 999_999_999 {
        return None;
    }
    format_time(sec, nsec, utc_offset(sec)?)
}

/// Formats `sec` + `nsec` shifted by `off` seconds east of UTC.
fn format_time(sec: i64, nsec: u64, off: i64) -> Option<String> {
    let t = sec.checked_add(off)?;
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    i32::try_from(y - 1900).ok()?;
    let mut s = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if nsec > 0 {
        s.push_str(&format!(".{nsec:09}"));
    }
    let (sign, a) = if off < 0 { ('-', -off) } else { ('+', off) };
    s.push_str(&format!("{sign}{:02}{:02}", a / 3600, a / 60 % 60));
    Some(s)
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's
/// `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The local time zone's offset from UTC at `sec`, as `localtime` sees it.
#[cfg(not(test))]
fn utc_offset(sec: i64) -> Option<i64> {
    crate::sys::utc_offset(sec)
}

/// Unit tests render times in UTC whatever the machine's zone.
/// A u32 field printed with `%#x` only when it is not zero.
pub(crate) fn nonzero_x(f: &mut Vec<Field>, name: &'static str, v: u64) {
    if v != 0 {
        f.push(Field::new(name, xint(v)));
    }
}

/// `resv=[...]` when any of `n` words of `size` bytes (8, 4 or 1) at
/// `off` is set; cut after the string limit (`-s`) with `...` unless `-v`,
/// as strace's `print_array` does.
pub(crate) fn resv_array(
    c: &Ctx,
    f: &mut Vec<Field>,
    name: &'static str,
    b: &[u8],
    off: usize,
    n: usize,
    size: usize,
) {
    let vals: Vec<u64> = (0..n)
        .map(|i| {
            let o = off + i * size;
            match size {
                8 => le64(b, o),
                4 => le32(b, o),
                _ => b[o] as u64,
            }
        })
        .collect();
    if vals.iter().any(|&v| v != 0) {
        let shown = if c.opts.verbose {
            n
        } else {
            n.min(c.opts.string_limit)
        };
        let more = shown < n;
        f.push(Field::new(
            name,
            Value::Array(vals.into_iter().take(shown).map(xint).collect(), more),
        ));
    }
}

#[cfg(test)]
fn utc_offset(_sec: i64) -> Option<i64> {
    Some(0)
}

/// `v` followed by the time comment of `sec`/`nsec`, when strace prints one.
pub(in crate::syscall) fn with_time(v: Value, sec: i64, nsec: u64) -> Value {
    match time_string(sec, nsec) {
        Some(t) => Value::Commented(Box::new(v), Cow::Owned(t)),
        None => v,
    }
}

/// `{tv_sec=S, tv_nsec=N}`.
pub(in crate::syscall) fn timespec_value(sec: i64, nsec: u64) -> Value {
    Value::structure(vec![
        Field::new("tv_sec", Value::Int(sec)),
        Field::new("tv_nsec", Value::UInt(nsec)),
    ])
}

/// `len` bytes at `addr` decoded by `f`, or the address when unreadable.
pub(crate) fn read(
    c: &mut Ctx,
    addr: u64,
    len: usize,
    f: impl FnOnce(&mut Ctx, &[u8]) -> Value,
) -> Value {
    match c.read_bytes(addr, len) {
        Some(b) => f(c, &b),
        None => Value::Ptr(addr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_modes() {
        assert_eq!(
            format_time(0, 1, 0).as_deref(),
            Some("1970-01-01T00:00:00.000000001+0000")
        );
        assert_eq!(
            format_time(-1, 0, 0).as_deref(),
            Some("1969-12-31T23:59:59+0000")
        );
        assert_eq!(
            format_time(1700000000, 0, -5 * 3600 - 1800).as_deref(),
            Some("2023-11-14T16:43:20-0530")
        );
        assert_eq!(time_string(0, 0), None);
        assert_eq!(time_string(5, 1_000_000_000), None);
        assert_eq!(oct03(0), "000");
        assert_eq!(oct03(7), "007");
        assert_eq!(oct03(0o644), "0644");
    }
}
