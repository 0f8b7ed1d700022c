//! What a printf-family call writes, made in rltrace from the format and
//! the raw integer arguments, as glibc's `vfprintf` makes it: the kernel
//! backend shows `sprintf`/`snprintf`'s output buffer from this instead of
//! reading it at return. Covers `%d %i %u %o %x %X %c %s %p %n %%` with the
//! flags `-+ #0'I` (no grouping: the C locale), widths and precisions
//! (`*` too) and every length modifier; `None` for what it cannot make
//! exactly: floating-point conversions, `%m` (errno), wide characters and
//! strings (`%lc %ls %C %S`), positional arguments (`%1$d`), `0` padding
//! of `%c %s %p`, an unknown conversion, too few arguments, or a `%s`
//! whose string was not given. Argument consumption is exactly
//! [`super::printf_types`]'s, one integer word per conversion.

/// The bytes printf writes for `fmt`. `args` are the words after the
/// format, in order; `string(addr)` gives the bytes of the string at
/// `addr` (without its NUL), or `None` when they are not known.
pub fn render(
    fmt: &[u8],
    args: &[u64],
    string: &dyn Fn(u64) -> Option<Vec<u8>>,
) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut next = args.iter().copied();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        i += 1;
        let (mut left, mut zero, mut plus, mut space, mut alt) =
            (false, false, false, false, false);
        while let Some(&c) = fmt.get(i) {
            match c {
                b'-' => left = true,
                b'0' => zero = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'#' => alt = true,
                b'\'' | b'I' => {}
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        if fmt.get(i) == Some(&b'*') {
            let w = next.next()? as i32;
            if w < 0 {
                left = true;
            }
            width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            width = digits(fmt, &mut i).unwrap_or(width);
        }
        if fmt.get(i) == Some(&b'$') {
            return None;
        }
        let mut prec = None;
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                let p = next.next()? as i32;
                prec = (p >= 0).then_some(p as usize);
                i += 1;
            } else {
                prec = Some(digits(fmt, &mut i).unwrap_or(0));
            }
        }
        // Bits of the argument used: 8, 16, 32 or 64.
        let mut bits = 32;
        let mut lng = 0;
        while let Some(&c) = fmt.get(i) {
            match c {
                b'h' => bits = if bits == 16 { 8 } else { 16 },
                b'l' | b'q' | b'j' | b'L' | b'z' | b'Z' | b't' => {
                    bits = 64;
                    lng += 1;
                }
                _ => break,
            }
            i += 1;
        }
        let conv = *fmt.get(i)?;
        i += 1;
        let body: Vec<u8> = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'n' => {
                next.next()?;
                continue;
            }
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => {
                let w = next.next()?;
                let t = Int {
                    signed: matches!(conv, b'd' | b'i'),
                    bits,
                    base: match conv {
                        b'o' => 8,
                        b'x' | b'X' => 16,
                        _ => 10,
                    },
                    upper: conv == b'X',
                };
                let (sign, prefix, digits) = t.parts(w, prec, plus, space, alt);
                let pad_zero = zero && !left && prec.is_none();
                let n = sign.len() + prefix.len() + digits.len();
                let mut b = Vec::new();
                b.extend_from_slice(sign);
                b.extend_from_slice(prefix);
                if pad_zero && width > n {
                    b.resize(b.len() + width - n, b'0');
                }
                b.extend_from_slice(&digits);
                b
            }
            b'c' if lng == 0 && !zero => vec![next.next()? as u8],
            b's' if lng == 0 && !zero => {
                let addr = next.next()?;
                if addr == 0 {
                    // glibc: "(null)" when the precision leaves room for it.
                    match prec {
                        Some(p) if p < 6 => Vec::new(),
                        _ => b"(null)".to_vec(),
                    }
                } else {
                    let mut s = string(addr)?;
                    if let Some(p) = prec {
                        s.truncate(p);
                    }
                    s
                }
            }
            b'p' if !zero && !plus && !space => match next.next()? {
                0 => b"(nil)".to_vec(),
                v => format!("{v:#x}").into_bytes(),
            },
            _ => return None,
        };
        pad(&mut out, &body, width, left);
    }
    Some(out)
}

/// Pads `body` to `width` with spaces, on the left unless `left`.
fn pad(out: &mut Vec<u8>, body: &[u8], width: usize, left: bool) {
    let fill = width.saturating_sub(body.len());
    if !left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(body);
    if left {
        out.resize(out.len() + fill, b' ');
    }
}

/// A decimal number at `fmt[*i..]`, skipped.
fn digits(fmt: &[u8], i: &mut usize) -> Option<usize> {
    let start = *i;
    while fmt.get(*i).is_some_and(|c| c.is_ascii_digit()) {
        *i += 1;
    }
    std::str::from_utf8(&fmt[start..*i]).ok()?.parse().ok()
}

/// An integer conversion.
struct Int {
    signed: bool,
    bits: u32,
    base: u64,
    upper: bool,
}

impl Int {
    /// Sign, base prefix and digits (precision applied) of `w`.
    fn parts(
        &self,
        w: u64,
        prec: Option<usize>,
        plus: bool,
        space: bool,
        alt: bool,
    ) -> (&'static [u8], &'static [u8], Vec<u8>) {
        let mask = if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        };
        let raw = w & mask;
        let (neg, mag) = if self.signed {
            let shift = 64 - self.bits;
            let v = ((raw << shift) as i64) >> shift;
            (v < 0, v.unsigned_abs())
        } else {
            (false, raw)
        };
        let mut digits = match self.base {
            8 => format!("{mag:o}"),
            16 if self.upper => format!("{mag:X}"),
            16 => format!("{mag:x}"),
            _ => mag.to_string(),
        }
        .into_bytes();
        if prec == Some(0) && mag == 0 {
            digits.clear();
        }
        if let Some(p) = prec {
            if digits.len() < p {
                let mut d = vec![b'0'; p - digits.len()];
                d.extend_from_slice(&digits);
                digits = d;
            }
        }
        if alt && self.base == 8 && digits.first() != Some(&b'0') {
            digits.insert(0, b'0');
        }
        let sign: &[u8] = match (self.signed, neg) {
            (_, true) => b"-",
            (true, false) if plus => b"+",
            (true, false) if space => b" ",
            _ => b"",
        };
        let prefix: &[u8] = match (alt && self.base == 16 && mag != 0, self.upper) {
            (true, true) => b"0X",
            (true, false) => b"0x",
            _ => b"",
        };
        (sign, prefix, digits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(fmt: &str, args: &[u64]) -> Option<String> {
        let strs = |a: u64| match a {
            0x1000 => Some(b"hello".to_vec()),
            0x2000 => Some(b"ab".to_vec()),
            _ => None,
        };
        render(fmt.as_bytes(), args, &strs).map(|b| String::from_utf8(b).unwrap())
    }

    /// Expected texts are what C's printf makes of the same format and
    /// arguments (checked with glibc).
    #[test]
    fn like_glibc() {
        let neg = |v: i64| v as u64;
        assert_eq!(
            r("%d|%5d|%-5d|%05d", &[neg(-3), 42, 7, neg(-42)]).unwrap(),
            "-3|   42|7    |-0042"
        );
        assert_eq!(
            r("%+d % d %.3d %.0d|", &[5, 5, 7, 0]).unwrap(),
            "+5  5 007 |"
        );
        assert_eq!(
            r("%u %lu %hhd %hu", &[neg(-1), neg(-1), 0x1ff, 0x12345]).unwrap(),
            "4294967295 18446744073709551615 -1 9029"
        );
        assert_eq!(
            r("%x %#X %#o %#x %o", &[255, 255, 8, 0, 0]).unwrap(),
            "ff 0XFF 010 0 0"
        );
        assert_eq!(
            r("%08.3x|%#010x", &[10, 255]).unwrap(),
            "     00a|0x000000ff"
        );
        assert_eq!(
            r("%c|%3c|%-3c|%%|%5%", &[65, 66, 67]).unwrap(),
            "A|  B|C  |%|%"
        );
        assert_eq!(
            r(
                "%s|%.2s|%8s|%-8s|%*.*s",
                &[0x1000, 0x1000, 0x2000, 0x2000, 4, 1, 0x1000]
            )
            .unwrap(),
            "hello|he|      ab|ab      |   h"
        );
        assert_eq!(
            r("%s|%.3s|%p|%p|%10p", &[0, 0, 0, 0x1000, 0]).unwrap(),
            "(null)||(nil)|0x1000|     (nil)"
        );
        assert_eq!(
            r("%*d|%-*d|%.*d", &[neg(-4), 1, 3, 2, neg(-1), 5]).unwrap(),
            "1   |2  |5"
        );
        assert_eq!(
            r("%ld %lld %zd %n.", &[neg(-9), neg(-9), 3, 0]).unwrap(),
            "-9 -9 3 ."
        );
    }

    #[test]
    fn refuses_what_it_cannot_make() {
        for f in [
            "%f", "%g", "%m", "%ls", "%lc", "%1$d", "%05s", "%d %d", "%s", "%y",
        ] {
            assert_eq!(r(f, &[0x3000]), None, "{f}");
        }
    }
}
