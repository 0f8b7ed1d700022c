//! The JSON shapes every emitter shares: flag sets and a process's exit.
//!
//! Flag sets: most decoders give flags as
//! [`Value::Flags`](crate::value::Value::Flags), but several build
//! the strace text themselves as a symbol (`MAP_PRIVATE|MAP_ANONYMOUS`,
//! `S_IFREG|0644`). In JSON both are `{"flags":[NAMES…]}`, with `"rest"`
//! (a number) for the bits no name covers, so a reader handles one shape.
//! A symbol that is an expression rather than a set of names (`1<<X|Y`,
//! `~(A|B)`) stays `{"sym":…}`.
//!
//! Exit: `{"type":"exit","pid":N,"exit_code":C}` or `…,"signal":"SIGX",
//! "core_dumped":B}`, the fields of the trace file's footer, never prose.
//!
//! Bytes (strings read from the tracee, paths, command names) are lossless:
//! bytes that are valid UTF-8 are a plain JSON string; any other bytes are
//! `{"bytes_hex":"2f746d70ff"}` (two lowercase hex digits per byte). So
//! `"\xff"` and `"\xfe"` stay two different values, where a U+FFFD
//! replacement made them one. [`bytes_of`] reads either form back.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

/// The names and the numeric rest of a `|`-joined flag set, or `None` when
/// `s` is a single name or not a plain set: every part a C identifier, but
/// the last, which may be a number (hex `0x…`, octal `0…` or decimal).
pub fn flag_set(s: &str) -> Option<(Vec<&str>, u64)> {
    if !s.contains('|') {
        return None;
    }
    let parts: Vec<&str> = s.split('|').collect();
    let (last, names) = parts.split_last()?;
    let ident = |p: &str| {
        let mut c = p.chars();
        c.next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
    };
    if names.is_empty() || !names.iter().all(|p| ident(p)) {
        return None;
    }
    if ident(last) {
        return Some((parts, 0));
    }
    let rest = if let Some(h) = last.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()?
    } else if last.len() > 1 && last.starts_with('0') {
        u64::from_str_radix(&last[1..], 8).ok()?
    } else {
        last.parse().ok()?
    };
    Some((names.to_vec(), rest))
}

/// Nanoseconds since the Unix epoch of `t` (0 before it): the `ts_ns` of
/// every JSON stream (docs/json.md, "Time").
pub fn unix_ns(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos() as u64
}

/// The version of the JSON streams' shapes (`rstrace`, `rltrace`, `kernel`,
/// `break`, `watch`): said by each stream's first line, [`schema_line`].
/// A recording's header carries `"stream":"record"` and the trace file's
/// own version instead (`VERSION` of the recording format, one layer up).
pub const SCHEMA_VERSION: u64 = 1;

/// The first line of a JSON stream: `{"type":"schema","stream":NAME,
/// "version":N}` and a newline. Its schema is docs/schema/NAME.schema.json.
pub fn schema_line(stream: &str) -> String {
    let mut s = String::from("{\"type\":\"schema\",\"stream\":");
    push_str(&mut s, stream);
    let _ = writeln!(s, ",\"version\":{SCHEMA_VERSION}}}");
    s
}

/// The key of the object that holds bytes that are not valid UTF-8.
pub const BYTES_HEX: &str = "bytes_hex";

/// `b` as lowercase hex, two digits per byte.
pub fn hex(b: &[u8]) -> String {
    let mut h = String::with_capacity(2 * b.len());
    for x in b {
        let _ = write!(h, "{x:02x}");
    }
    h
}

/// Appends bytes losslessly: a JSON string when they are UTF-8, else
/// `{"bytes_hex":"…"}`.
pub fn push_bytes(out: &mut String, b: &[u8]) {
    match std::str::from_utf8(b) {
        Ok(s) => push_str(out, s),
        Err(_) => {
            out.push_str("{\"bytes_hex\":\"");
            out.push_str(&hex(b));
            out.push_str("\"}");
        }
    }
}

/// The bytes of a `bytes_hex` text: two hex digits per byte; `None` when
/// it is not that.
pub fn unhex(h: &str) -> Option<Vec<u8>> {
    let h = h.as_bytes();
    if !h.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    h.chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// The bytes a JSON value written by [`push_bytes`] stands for: a string's
/// UTF-8, or the decoded `bytes_hex`; `None` for anything else.
pub fn bytes_of(v: &serde_json::Value) -> Option<std::borrow::Cow<'_, [u8]>> {
    use std::borrow::Cow;
    if let Some(s) = v.as_str() {
        return Some(Cow::Borrowed(s.as_bytes()));
    }
    let h = v.as_object()?.get(BYTES_HEX)?.as_str()?;
    unhex(h).map(Cow::Owned)
}

/// Bytes as text for a reader that prints them: UTF-8 as is, other bytes
/// as `\xNN` escapes (so two different byte strings never print alike).
pub fn bytes_text(v: &serde_json::Value) -> Option<String> {
    let b = bytes_of(v)?;
    if let Ok(s) = std::str::from_utf8(&b) {
        return Some(s.to_string());
    }
    let mut out = String::new();
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        for x in chunk.invalid() {
            let _ = write!(out, "\\x{x:02x}");
        }
    }
    Some(out)
}

/// Appends `s` as a JSON string literal (quotes included).
pub fn push_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f | 0x7f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_expressions() {
        assert_eq!(
            flag_set("MAP_PRIVATE|MAP_ANONYMOUS"),
            Some((vec!["MAP_PRIVATE", "MAP_ANONYMOUS"], 0))
        );
        assert_eq!(
            flag_set("S_IFDIR|S_ISVTX|0777"),
            Some((vec!["S_IFDIR", "S_ISVTX"], 0o777))
        );
        assert_eq!(
            flag_set("O_RDONLY|0x40000"),
            Some((vec!["O_RDONLY"], 0x40000))
        );
        assert_eq!(flag_set("AT_FDCWD"), None);
        assert_eq!(flag_set("0x1|0x2"), None);
        assert_eq!(flag_set("FUTEX_OP_SET<<28|FUTEX_OP_CMP_GT<<24"), None);
        assert_eq!(flag_set("~(A|B)"), None);
        assert_eq!(flag_set("A|0x1|B"), None);
    }

    #[test]
    fn bytes_are_lossless() {
        for b in [
            &b"plain /tmp/x \"q\"\n"[..],
            b"\xff",
            b"\xfe",
            b"a\xffb\0",
            b"",
            "é".as_bytes(),
        ] {
            let mut s = String::new();
            push_bytes(&mut s, b);
            let v: serde_json::Value = serde_json::from_str(&s).unwrap();
            assert_eq!(v.is_string(), std::str::from_utf8(b).is_ok(), "{s}");
            assert_eq!(bytes_of(&v).as_deref(), Some(b), "{s}");
        }
        let ff: serde_json::Value = serde_json::json!({"bytes_hex": "61ff"});
        let fe: serde_json::Value = serde_json::json!({"bytes_hex": "61fe"});
        assert_eq!(bytes_text(&ff).unwrap(), "a\\xff");
        assert_ne!(bytes_text(&ff), bytes_text(&fe));
        assert_eq!(bytes_of(&serde_json::json!({"bytes_hex": "f"})), None);
        assert_eq!(bytes_of(&serde_json::json!(3)), None);
    }
}
