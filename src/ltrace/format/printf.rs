//! printf format strings as an ltrace "parameter pack": the argument types
//! that a GNU printf format describes, as ltrace 0.7.3 decodes them (`%hhd`
//! as a char, `%x` in hex, `%o` in octal, `%p`/`%n` as addresses, every
//! floating conversion as a double, `*` widths and precisions as ints, a
//! precision limiting `%s`, and its quirks: `%lld`/`%qd`/`%jd` unsigned,
//! `%ls` as a byte string). Part of `format.rs` (kept apart for size).

use crate::ltrace::proto::{Expr, Lens, Type};

const MAX_VARARGS: usize = 64;

/// The argument types a printf format string describes (GNU conversions);
/// `next` is the 1-based index the first of them will have, so that `%.*s`
/// can refer to its precision argument.
pub fn printf_types(fmt: &[u8], next: usize) -> Vec<Type> {
    let mut out = Vec::new();
    let mut i = 0;
    // A `*` of a conversion other than `%s` (`%*d`) that no `%s` has used
    // yet. ltrace 0.7.3 keeps it for the next `%s`, which it then limits
    // to the value of the argument just before that string, whatever
    // its own width or precision: `%*d %s` with 3, 5, "hello" shows
    // "hello", `%*d %.9s` with 3, 2, "hello" shows "he" (checked against
    // it, tests/ltrace/ltrace_printf.rs).
    let mut star_kept = false;
    while i < fmt.len() && out.len() < MAX_VARARGS {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        while i < fmt.len() && b"-+ #0'I".contains(&fmt[i]) {
            i += 1;
        }
        // What limits a `%s` as ltrace 0.7.3 reads it (checked against it
        // on every combination, tests/ltrace/ltrace_printf.rs): a width alone
        // (`%2s`, `%*s`, `%3.s`); a precision alone (`%.2s`; `%.0s` and
        // `%.s` do not limit); a `*` precision, whatever its value and the
        // width (`%5.*s`, `%*.*s`); a width and a digit precision together
        // (`%5.3s`, `%*.3s`) do not limit at all.
        let mut width = None;
        let mut star = false;
        if fmt.get(i) == Some(&b'*') {
            star = true;
            out.push(Type::Int);
            width = Some(Expr::Arg(next + out.len() - 1));
            i += 1;
        }
        let start = i;
        while i < fmt.len() && fmt[i].is_ascii_digit() {
            i += 1;
        }
        if let Some(n) = number(&fmt[start..i]).filter(|&n| n > 0) {
            width = Some(Expr::Num(n));
        }
        let mut limit = width.clone();
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                star = true;
                out.push(Type::Int);
                limit = Some(Expr::Arg(next + out.len() - 1));
                i += 1;
            } else {
                let start = i;
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    i += 1;
                }
                if let Some(n) = number(&fmt[start..i]) {
                    limit = match width {
                        Some(_) => None,
                        None => (n > 0).then_some(Expr::Num(n)),
                    };
                }
            }
        }
        // Length modifier: -2 hh, -1 h, 0 none, 1 l/L/z/t, 2 ll/q/j.
        let mut lng = 0i32;
        while let Some(&c) = fmt.get(i) {
            match c {
                b'h' => lng = if lng == -1 { -2 } else { -1 },
                b'l' => lng = if lng == 1 { 2 } else { 1 },
                b'q' | b'j' => lng = 2,
                b'L' | b'z' | b'Z' | b't' => lng = 1,
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        let (s, u) = match lng {
            -2 => (Type::Char, Type::Char),
            -1 => (Type::Short, Type::UShort),
            0 => (Type::Int, Type::UInt),
            1 => (Type::Long, Type::ULong),
            // ltrace 0.7.3 shows %lld, %qd and %jd unsigned: -4 as 18446744073709551612.
            _ => (Type::ULong, Type::ULong),
        };
        let string = matches!(conv, b's' | b'S');
        if string && star_kept {
            limit = Some(Expr::Arg(next + out.len() - 1));
        }
        star_kept = if string { false } else { star_kept || star };
        out.push(match conv {
            b'%' | b'm' => continue,
            b'd' | b'i' => s,
            b'u' => u,
            b'o' => Type::Lens(Lens::Oct, Box::new(u)),
            b'x' | b'X' => Type::Lens(Lens::Hex, Box::new(u)),
            b'c' | b'C' => Type::Char,
            // ltrace 0.7.3 reads %ls and %S as byte strings too ("w" for L"wide").
            b's' | b'S' => Type::string(limit),
            b'p' | b'n' => Type::Pointer(Box::new(Type::Void)),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => Type::Double,
            _ => break,
        });
    }
    out
}

/// The decimal number `digits` spell; `None` when there are none.
fn number(digits: &[u8]) -> Option<u64> {
    std::str::from_utf8(digits).ok()?.parse().ok()
}
