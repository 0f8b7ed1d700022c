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

use std::fmt::Write as _;

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

/// Appends an exit object: `type`, `pid`, then `exit_code` (exited) or
/// `signal` (name) and `core_dumped` (killed), the trace file footer's
/// fields.
pub fn exit_line(out: &mut String, pid: i32, fate: crate::engine::Outcome) {
    use crate::engine::Outcome;
    let _ = write!(out, "{{\"type\":\"exit\",\"pid\":{pid}");
    match fate {
        Outcome::Exited(c) => {
            let _ = write!(out, ",\"exit_code\":{c}");
        }
        Outcome::Killed(sig, core) => {
            let name = crate::value::signal_name(sig as u64)
                .map(|c| c.into_owned())
                .unwrap_or_else(|| sig.to_string());
            out.push_str(",\"signal\":");
            push_str(out, &name);
            let _ = write!(out, ",\"core_dumped\":{core}");
        }
        Outcome::None => {}
    }
    out.push_str("}\n");
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
}
