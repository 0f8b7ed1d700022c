//! strace-compatible text rendering of decoded values.

use crate::value::{Ret, StrVal, Value};
use std::fmt::Write as _;

/// `AT_FDCWD`: a descriptor value that prints by name (with the cwd under `-y`).
pub const AT_FDCWD: i64 = -100;

/// Text rendering options.
#[derive(Clone, Debug, Default)]
pub struct RenderOpts {
    /// `-x` (1): non-ASCII strings in hex; `-xx` (2): all strings in hex.
    pub xflag: u8,
}

/// Appends `v` as strace prints it.
pub fn render_value(out: &mut String, v: &Value, o: &RenderOpts) {
    match v {
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        // C's "%#x" prints zero as plain "0".
        Value::Hex(0) => out.push('0'),
        Value::Hex(h) => {
            let _ = write!(out, "{h:#x}");
        }
        Value::Oct(v) => render_oct(out, *v),
        Value::Ptr(0) => out.push_str("NULL"),
        Value::Ptr(p) | Value::Unreadable(p) => {
            let _ = write!(out, "{p:#x}");
        }
        Value::Str(s) => render_str(out, s, o),
        Value::Sym(s) => out.push_str(s),
        Value::Flags {
            names,
            rest,
            octal_rest,
        } => {
            for (i, n) in names.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                out.push_str(n);
            }
            if *rest != 0 || names.is_empty() {
                if !names.is_empty() {
                    out.push('|');
                }
                if *octal_rest {
                    render_oct(out, *rest);
                } else if *rest == 0 {
                    out.push('0');
                } else {
                    let _ = write!(out, "{rest:#x}");
                }
            }
        }
        Value::Pid { pid, comm } => {
            let _ = write!(out, "{pid}");
            if let Some(c) = comm {
                out.push('<');
                out.push_str(&String::from_utf8_lossy(c));
                out.push('>');
            }
        }
        Value::Fd { fd, path } => {
            // A dirfd argument's AT_FDCWD carries the cwd (`-y`); a plain
            // descriptor of -100 prints as the number.
            if *fd == AT_FDCWD && path.is_some() {
                out.push_str("AT_FDCWD");
            } else {
                let _ = write!(out, "{fd}");
            }
            if let Some(p) = path {
                // `-yy` details follow a NUL (which no path contains): the
                // part before it is a path, the part after is printed as is.
                let (p, detail) = match p.iter().position(|&b| b == 0) {
                    Some(i) => (&p[..i], &p[i + 1..]),
                    None => (p.as_slice(), &[][..]),
                };
                // strace moves the kernel's " (deleted)" suffix outside:
                // <path>(deleted). A resolver that found the suffix to be
                // part of the file's real name ends the path with a NUL.
                let marked = p.len() < path_bytes(path).len();
                let (p, deleted) = match p.strip_suffix(b" (deleted)") {
                    Some(rest) if !marked || !detail.is_empty() => (rest, true),
                    _ => (p, false),
                };
                out.push('<');
                render_path_bytes(out, p, o.xflag);
                out.push_str(&String::from_utf8_lossy(detail));
                out.push('>');
                if deleted {
                    out.push_str("(deleted)");
                }
            }
        }
        Value::Struct(fields, more) => {
            out.push('{');
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if !f.name.is_empty() {
                    out.push_str(&f.name);
                    out.push('=');
                }
                render_value(out, &f.value, o);
            }
            if *more {
                if !fields.is_empty() {
                    out.push_str(", ");
                }
                out.push_str("...");
            }
            out.push('}');
        }
        Value::Array(items, more) => {
            out.push('[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_value(out, it, o);
            }
            if *more {
                if !items.is_empty() {
                    out.push_str(", ");
                }
                out.push_str("...");
            }
            out.push(']');
        }
        Value::Changed(a, b) => {
            render_value(out, a, o);
            out.push_str(" => ");
            render_value(out, b, o);
        }
        Value::Commented(v, c) => {
            render_value(out, v, o);
            out.push_str(" /* ");
            out.push_str(c);
            out.push_str(" */");
        }
        Value::Call(name, args) => {
            out.push_str(name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_value(out, a, o);
            }
            out.push(')');
        }
        Value::Joined(items, sep) => {
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                render_value(out, it, o);
            }
        }
        Value::Unknown => out.push('?'),
    }
}

/// Octal as C's `%#03o`: `000`, `007`, `022`, `0644`.
fn render_oct(out: &mut String, v: u64) {
    let s = if v == 0 {
        "0".to_string()
    } else {
        format!("0{v:o}")
    };
    for _ in s.len()..3 {
        out.push('0');
    }
    out.push_str(&s);
}

/// A path inside `<...>` after a descriptor: quoted as strace's `-y` does
/// (its string escapes, and `<`/`>` escaped too, without the quotes).
fn render_path_bytes(out: &mut String, p: &[u8], xflag: u8) {
    quote_ex(out, p, xflag, b"<>", false);
}

/// Appends a quoted string with strace's escaping rules.
pub fn render_str(out: &mut String, s: &StrVal, o: &RenderOpts) {
    quote_bytes(out, &s.bytes, o.xflag);
    if s.truncated {
        out.push_str("...");
    }
}

/// The bytes of an `Fd` path value (see [`Value::Fd`]).
fn path_bytes(p: &Option<Vec<u8>>) -> &[u8] {
    p.as_deref().unwrap_or(&[])
}

/// Quotes `b` like strace's `string_quote`.
pub fn quote_bytes(out: &mut String, b: &[u8], xflag: u8) {
    quote_ex(out, b, xflag, b"", true);
}

/// strace's `string_quote`: `xflag` 0 (octal escapes), 1 (`-x`: the whole
/// string in hex when any byte is not printable ASCII), 2 (`-xx`: all hex),
/// 3 (`--strings-in-hex=non-ascii-chars`: only the unprintable bytes in
/// hex); bytes in `escape` are escaped too; `quotes` adds the `"`s.
pub fn quote_ex(out: &mut String, b: &[u8], xflag: u8, escape: &[u8], quotes: bool) {
    let hex = match xflag {
        0 | 3 => false,
        1 => b
            .iter()
            .any(|&c| c > 0x7e || (c < b' ' && !(9..=13).contains(&c))),
        _ => true,
    };
    if quotes {
        out.push('"');
    }
    if hex {
        for &c in b {
            let _ = write!(out, "\\x{c:02x}");
        }
        if quotes {
            out.push('"');
        }
        return;
    }
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\x0c' => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'\x0b' => out.push_str("\\v"),
            0x20..=0x7e if !escape.contains(&c) => out.push(c as char),
            _ if xflag == 3 => {
                let _ = write!(out, "\\x{c:02x}");
            }
            _ => {
                out.push('\\');
                let next_is_octal = b.get(i + 1).is_some_and(|n| (b'0'..=b'7').contains(n));
                if next_is_octal {
                    out.push((b'0' + (c >> 6)) as char);
                    out.push((b'0' + ((c >> 3) & 7)) as char);
                } else if c >> 3 != 0 {
                    if c >> 6 != 0 {
                        out.push((b'0' + (c >> 6)) as char);
                    }
                    out.push((b'0' + ((c >> 3) & 7)) as char);
                }
                out.push((b'0' + (c & 7)) as char);
            }
        }
    }
    if quotes {
        out.push('"');
    }
}

/// The message strace prints after an errno name.
pub fn errno_message(e: u64) -> String {
    match e {
        512 => "To be restarted if SA_RESTART is set".into(),
        513 => "To be restarted".into(),
        514 => "To be restarted if no handler".into(),
        515 => "No ioctl command".into(),
        516 => "Interrupted by signal".into(),
        517 => "Driver requests probe retry".into(),
        518 => "Open found a stale dentry".into(),
        519 => "Parameter not acceptable".into(),
        521 => "Invalid handle".into(),
        522 => "Synchronization mismatch".into(),
        523 => "Bad cookie".into(),
        524 => "Operation not supported".into(),
        525 => "Buffer too small".into(),
        526 => "Request not supported".into(),
        527 => "Object type not supported".into(),
        528 => "Request has timed out".into(),
        529 => "iocb queued, will get completion event".into(),
        530 => "conflict with recalled state".into(),
        531 => "NFS file lock reclaim refused".into(),
        _ => crate::sys::strerror(e as i32),
    }
}

/// `ENAME (message)` of an error return, or `(errno N)` for a number no
/// name is known for.
fn render_errno(out: &mut String, errno: u64) {
    match rtrace_arch::tables::errno_name(errno) {
        Some(n) => {
            let _ = write!(out, "{n} ({})", errno_message(errno));
        }
        None => {
            let _ = write!(out, "(errno {errno})");
        }
    }
}

/// Appends ` = RET` as strace prints it (without the leading space handling).
pub fn render_ret(out: &mut String, r: &Ret, o: &RenderOpts) {
    match r {
        Ret::Int(i) => {
            let _ = write!(out, "= {i}");
        }
        Ret::UInt(u) => {
            let _ = write!(out, "= {u}");
        }
        Ret::Hex(0) => out.push_str("= 0"),
        Ret::Hex(h) => {
            let _ = write!(out, "= {h:#x}");
        }
        Ret::Oct(v) => {
            out.push_str("= ");
            render_oct(out, *v);
        }
        Ret::Pid(pid, comm) => {
            out.push_str("= ");
            render_value(
                out,
                &Value::Pid {
                    pid: *pid,
                    comm: comm.clone(),
                },
                o,
            );
        }
        Ret::Fd(fd, path) => {
            out.push_str("= ");
            render_value(
                out,
                &Value::Fd {
                    fd: *fd,
                    path: path.clone(),
                },
                o,
            );
        }
        Ret::Err { errno } => {
            if (512..=516).contains(errno) {
                out.push_str("= ? ");
            } else {
                out.push_str("= -1 ");
            }
            render_errno(out, *errno);
        }
        Ret::ErrValue { value, errno } => {
            let _ = write!(out, "= {value} ");
            render_errno(out, *errno);
        }
        Ret::Annotated(r, c) => {
            render_ret(out, r, o);
            out.push_str(" (");
            out.push_str(c);
            out.push(')');
        }
        Ret::Commented(r, c) => {
            render_ret(out, r, o);
            out.push_str(" /* ");
            out.push_str(c);
            out.push_str(" */");
        }
        Ret::Unknown => out.push_str("= ?"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(b: &[u8], x: u8) -> String {
        let mut s = String::new();
        quote_bytes(&mut s, b, x);
        s
    }

    #[test]
    fn strace_quoting() {
        assert_eq!(q(b"hello\n", 0), "\"hello\\n\"");
        assert_eq!(q(b"a\"b\\", 0), "\"a\\\"b\\\\\"");
        assert_eq!(q(b"\x00a", 0), "\"\\0a\"");
        assert_eq!(q(b"\x001", 0), "\"\\0001\"");
        assert_eq!(q(b"\x7f", 0), "\"\\177\"");
        assert_eq!(q(b"\x1b[", 0), "\"\\33[\"");
        assert_eq!(q(b"ab", 2), "\"\\x61\\x62\"");
        assert_eq!(q(b"ab\n", 1), "\"ab\\n\"");
        assert_eq!(q(b"a\xff", 1), "\"\\x61\\xff\"");
        assert_eq!(q(b"a\xff\n1", 3), "\"a\\xff\\n1\"");
    }

    #[test]
    fn fd_paths_like_strace() {
        let r = |p: &[u8]| {
            let mut s = String::new();
            let v = Value::Fd {
                fd: 3,
                path: Some(p.to_vec()),
            };
            render_value(&mut s, &v, &RenderOpts::default());
            s
        };
        assert_eq!(r(b"/a<b>\"\x01"), "3</a\\74b\\76\\\"\\1>");
        assert_eq!(r(b"/f (deleted)"), "3</f>(deleted)");
        assert_eq!(r(b"/f (deleted)\0"), "3</f (deleted)>");
    }

    #[test]
    fn octal_like_c() {
        let mut s = String::new();
        render_oct(&mut s, 0);
        s.push(' ');
        render_oct(&mut s, 7);
        s.push(' ');
        render_oct(&mut s, 0o644);
        assert_eq!(s, "000 007 0644");
    }

    #[test]
    fn errors() {
        let mut s = String::new();
        render_ret(&mut s, &Ret::Err { errno: 2 }, &RenderOpts::default());
        assert_eq!(s, "= -1 ENOENT (No such file or directory)");
        let mut s = String::new();
        let r = Ret::ErrValue {
            value: 0xffff_ffda,
            errno: 38,
        };
        render_ret(&mut s, &r, &RenderOpts::default());
        assert_eq!(s, "= 4294967258 ENOSYS (Function not implemented)");
    }

    #[test]
    fn unsigned_return() {
        let mut s = String::new();
        render_ret(&mut s, &Ret::UInt(1 << 63), &RenderOpts::default());
        assert_eq!(s, "= 9223372036854775808");
    }
}
