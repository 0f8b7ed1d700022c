//! JSON Lines rendering: one object per event, built from the same
//! [`Value`]s the text renderer prints.
//!
//! Event lines are written straight into a `String` (no intermediate
//! `serde_json::Value` tree): a recording renders one object per syscall,
//! and building maps for each cost as much as the rest of the printing.
//! Every event object starts with its `"type"` key, so a reader (and the
//! event tally of `rtrace record`) can classify a line from its first bytes.
//! [`value_json`] gives the same structure as a `serde_json::Value` for
//! callers that embed values in bigger objects.

use crate::symbols::Frame;
pub use crate::value::json_shape::{bytes_of, bytes_text, exit_line, push_bytes, push_str};
use crate::value::json_shape::{flag_set, hex, BYTES_HEX};
use crate::value::text;
use crate::value::{Ret, Value};
use serde_json::{json, Map, Value as J};
use std::fmt::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A finished (or never-returning) syscall.
pub struct SyscallRecord<'a> {
    /// Thread id.
    pub pid: i32,
    /// Wall-clock time of entry.
    pub time: SystemTime,
    /// Name, if known.
    pub name: Option<&'static str>,
    /// Number.
    pub nr: u64,
    /// Arguments decoded at entry.
    pub entry_args: &'a [Value],
    /// Arguments decoded at exit.
    pub exit_args: &'a [Value],
    /// Return value (`None`: never returned).
    pub ret: Option<&'a Ret>,
    /// Time in the call.
    pub duration: Option<Duration>,
    /// Fault injection changed the call (`-e inject=`: error or return value).
    pub injected: bool,
    /// Fault injection delayed the call.
    pub delayed: bool,
}

/// Bytes as JSON, losslessly (see [`crate::value::json_shape`]): a string
/// when they are UTF-8, else `{"bytes_hex":"…"}`.
pub fn bytes_json(b: &[u8]) -> J {
    match std::str::from_utf8(b) {
        Ok(s) => J::String(s.to_string()),
        Err(_) => json!({ BYTES_HEX: hex(b) }),
    }
}

/// The structured JSON form of a value.
pub fn value_json(v: &Value) -> J {
    match v {
        Value::Int(i) => json!(i),
        // `-Y`: {"pid":N,"comm":"sh"}; a bare number otherwise.
        Value::Pid { pid, comm: None } => json!(pid),
        Value::Pid { pid, comm: Some(c) } => json!({ "pid": pid, "comm": bytes_json(c) }),
        Value::UInt(u) => json!(u),
        Value::Hex(h) | Value::Oct(h) => json!(h),
        Value::Ptr(p) => {
            if *p == 0 {
                J::Null
            } else {
                json!({ "ptr": format!("{p:#x}") })
            }
        }
        Value::Unreadable(p) => json!({ "ptr": format!("{p:#x}"), "unreadable": true }),
        Value::Str(s) => {
            if s.truncated {
                json!({ "str": bytes_json(&s.bytes), "truncated": true })
            } else {
                bytes_json(&s.bytes)
            }
        }
        Value::Sym(s) => match flag_set(s) {
            Some((names, rest)) if rest != 0 => json!({ "flags": names, "rest": rest }),
            Some((names, _)) => json!({ "flags": names }),
            None => json!({ "sym": s }),
        },
        Value::Flags { names, rest, .. } => {
            let mut m = Map::new();
            m.insert("flags".into(), json!(names));
            if *rest != 0 {
                m.insert("rest".into(), json!(rest));
            }
            J::Object(m)
        }
        Value::Fd { fd, path } => match path {
            // `-yy`: "path" and "details" (see text.rs).
            Some(p) => match p.iter().position(|&b| b == 0) {
                Some(0) => json!({ "fd": fd, "details": bytes_json(&p[1..]) }),
                Some(i) => json!({
                    "fd": fd, "path": bytes_json(&p[..i]), "details": bytes_json(&p[i + 1..])
                }),
                None => json!({ "fd": fd, "path": bytes_json(p) }),
            },
            None => json!({ "fd": fd }),
        },
        Value::Struct(fields, more) => {
            let mut m = Map::new();
            for f in fields {
                m.insert(f.name.to_string(), value_json(&f.value));
            }
            if *more {
                m.insert("...".into(), J::Bool(true));
            }
            J::Object(m)
        }
        Value::Array(items, more) => {
            let mut a: Vec<J> = items.iter().map(value_json).collect();
            if *more {
                a.push(J::String("...".into()));
            }
            J::Array(a)
        }
        Value::Changed(a, b) => json!({ "in": value_json(a), "out": value_json(b) }),
        Value::Commented(v, c) => json!({ "value": value_json(v), "comment": c }),
        Value::Call(..) | Value::Joined(..) => {
            let mut s = String::new();
            text::render_value(&mut s, v, &Default::default());
            json!({ "expr": s })
        }
        Value::Unknown => J::Null,
    }
}

/// Appends `{"flags":[NAMES…]}`, with `"rest"` when bits are left over.
fn write_flags(out: &mut String, names: &[&str], rest: u64) {
    out.push_str("{\"flags\":[");
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str(out, n);
    }
    out.push(']');
    if rest != 0 {
        let _ = write!(out, ",\"rest\":{rest}");
    }
    out.push('}');
}

/// Appends the JSON form of `v`: the same structure as [`value_json`]
/// (structure fields in decoder order rather than sorted).
pub fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Int(i) | Value::Pid { pid: i, comm: None } => {
            let _ = write!(out, "{i}");
        }
        Value::Pid { pid, comm: Some(c) } => {
            let _ = write!(out, "{{\"pid\":{pid},\"comm\":");
            push_bytes(out, c);
            out.push('}');
        }
        Value::UInt(u) | Value::Hex(u) | Value::Oct(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Ptr(0) | Value::Unknown => out.push_str("null"),
        Value::Ptr(p) => {
            let _ = write!(out, "{{\"ptr\":\"{p:#x}\"}}");
        }
        Value::Unreadable(p) => {
            let _ = write!(out, "{{\"ptr\":\"{p:#x}\",\"unreadable\":true}}");
        }
        Value::Str(s) if s.truncated => {
            out.push_str("{\"str\":");
            push_bytes(out, &s.bytes);
            out.push_str(",\"truncated\":true}");
        }
        Value::Str(s) => push_bytes(out, &s.bytes),
        Value::Sym(s) => match flag_set(s) {
            Some((names, rest)) => write_flags(out, &names, rest),
            None => {
                out.push_str("{\"sym\":");
                push_str(out, s);
                out.push('}');
            }
        },
        Value::Flags { names, rest, .. } => write_flags(out, names, *rest),
        Value::Fd { fd, path } => {
            let _ = write!(out, "{{\"fd\":{fd}");
            if let Some(p) = path {
                match p.iter().position(|&b| b == 0) {
                    Some(i) => {
                        if i > 0 {
                            out.push_str(",\"path\":");
                            push_bytes(out, &p[..i]);
                        }
                        out.push_str(",\"details\":");
                        push_bytes(out, &p[i + 1..]);
                    }
                    None => {
                        out.push_str(",\"path\":");
                        push_bytes(out, p);
                    }
                }
            }
            out.push('}');
        }
        Value::Struct(fields, more) => {
            out.push('{');
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_str(out, &f.name);
                out.push(':');
                write_value(out, &f.value);
            }
            if *more {
                if !fields.is_empty() {
                    out.push(',');
                }
                out.push_str("\"...\":true");
            }
            out.push('}');
        }
        Value::Array(items, more) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x);
            }
            if *more {
                if !items.is_empty() {
                    out.push(',');
                }
                out.push_str("\"...\"");
            }
            out.push(']');
        }
        Value::Changed(a, b) => {
            out.push_str("{\"in\":");
            write_value(out, a);
            out.push_str(",\"out\":");
            write_value(out, b);
            out.push('}');
        }
        Value::Commented(v, c) => {
            out.push_str("{\"value\":");
            write_value(out, v);
            out.push_str(",\"comment\":");
            push_str(out, c);
            out.push('}');
        }
        Value::Call(..) | Value::Joined(..) => {
            let mut s = String::new();
            text::render_value(&mut s, v, &Default::default());
            out.push_str("{\"expr\":");
            push_str(out, &s);
            out.push('}');
        }
    }
}

/// Nanoseconds since the Unix epoch of `t` (0 before it): the `ts_ns` of
/// every JSON stream (docs/json.md, "Time").
pub fn unix_ns(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos() as u64
}

/// Appends one syscall object and a newline.
///
/// Keys, in order: `type`, `pid`, `ts_ns` (entry, nanoseconds since the
/// Unix epoch), `syscall`,
/// `args` (entry then exit arguments), `return` (number, string, or `null`
/// when the call never returned), `errno` (name, when it failed),
/// `return_path` (`-y` path of a returned descriptor), `dur_ns`
/// (nanoseconds in the call), `injected` / `delayed` (fault injection).
pub fn syscall_line(out: &mut String, r: &SyscallRecord) {
    let _ = write!(
        out,
        "{{\"type\":\"syscall\",\"pid\":{},\"ts_ns\":{},\"syscall\":",
        r.pid,
        unix_ns(r.time)
    );
    match r.name {
        Some(n) => push_str(out, n),
        None => {
            let _ = write!(out, "\"syscall_{:#x}\"", r.nr);
        }
    }
    out.push_str(",\"args\":[");
    for (i, a) in r.entry_args.iter().chain(r.exit_args.iter()).enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_value(out, a);
    }
    out.push_str("],\"return\":");
    match r.ret {
        None => out.push_str("null"),
        Some(Ret::Err { errno }) => {
            out.push_str("-1,\"errno\":");
            push_str(
                out,
                rtrace_arch::tables::errno_name(*errno).unwrap_or("E???"),
            );
        }
        Some(Ret::ErrValue { value, errno }) => {
            let _ = write!(out, "{value},\"errno\":");
            push_str(
                out,
                rtrace_arch::tables::errno_name(*errno).unwrap_or("E???"),
            );
        }
        Some(Ret::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        Some(Ret::UInt(u)) => {
            let _ = write!(out, "{u}");
        }
        Some(Ret::Pid(pid, comm)) => {
            let _ = write!(out, "{pid}");
            if let Some(c) = comm {
                out.push_str(",\"return_comm\":");
                push_bytes(out, c);
            }
        }
        Some(Ret::Fd(fd, path)) => {
            let _ = write!(out, "{fd}");
            if let Some(p) = path {
                out.push_str(",\"return_path\":");
                push_bytes(out, p);
            }
        }
        Some(Ret::Hex(h) | Ret::Oct(h)) => {
            let _ = write!(out, "{h}");
        }
        Some(ret) => {
            let mut s = String::new();
            text::render_ret(&mut s, ret, &Default::default());
            push_str(out, s.trim_start_matches("= "));
        }
    }
    if let Some(d) = r.duration {
        let _ = write!(out, ",\"dur_ns\":{}", d.as_nanos() as u64);
    }
    if r.injected {
        out.push_str(",\"injected\":true");
    }
    if r.delayed {
        out.push_str(",\"delayed\":true");
    }
    out.push_str("}\n");
}

/// Adds `"stack":[frame…]` (`-k`) to the object `line` ends with (as
/// [`syscall_line`] left it). Each frame has `pc` (hex string) and, when
/// known, `module`, `module_offset` (hex), `func`, `off` (offset in the
/// function, hex), `file`, `line`; innermost frame first.
pub fn add_stack(line: &mut String, frames: &[Frame]) {
    let end = line.trim_end_matches('\n').len();
    if !line[..end].ends_with('}') {
        return;
    }
    line.truncate(end - 1);
    line.push_str(",\"stack\":[");
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        let _ = write!(line, "{{\"pc\":\"{:#x}\"", f.pc);
        if !f.module.is_empty() {
            line.push_str(",\"module\":");
            push_str(line, &f.module);
        }
        if let Some(o) = f.module_offset {
            let _ = write!(line, ",\"module_offset\":\"{o:#x}\"");
        }
        if let Some(func) = &f.function {
            line.push_str(",\"func\":");
            push_str(line, func);
        }
        if let Some(o) = f.offset_in_function {
            let _ = write!(line, ",\"off\":\"{o:#x}\"");
        }
        if let Some(file) = &f.file {
            line.push_str(",\"file\":");
            push_str(line, file);
        }
        if let Some(l) = f.line {
            let _ = write!(line, ",\"line\":{l}");
        }
        line.push('}');
    }
    line.push_str("]}\n");
}

/// Appends a signal-delivery object: `type`, `pid`, `signal` (name),
/// `siginfo`.
pub fn signal_line(out: &mut String, pid: i32, sig: i32, info: &Value) {
    let name = crate::value::signal_name(sig as u64)
        .map(|c| c.into_owned())
        .unwrap_or_else(|| sig.to_string());
    let _ = write!(out, "{{\"type\":\"signal\",\"pid\":{pid},\"signal\":");
    push_str(out, &name);
    out.push_str(",\"siginfo\":");
    write_value(out, info);
    out.push_str("}\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Field, StrVal};

    fn samples() -> Vec<Value> {
        let s = |b: &[u8], truncated| {
            Value::Str(StrVal {
                bytes: b.to_vec(),
                truncated,
                c_string: true,
            })
        };
        vec![
            Value::Int(-3),
            Value::UInt(7),
            Value::Hex(0x7f),
            Value::Oct(0o644),
            Value::Ptr(0),
            Value::Ptr(0x1000),
            Value::Unreadable(0x2000),
            s(b"a\"b\\c\n\x01\xff", false),
            s(b"long", true),
            Value::sym("AT_FDCWD"),
            Value::Flags {
                names: vec!["O_RDONLY", "O_CLOEXEC"],
                rest: 0x40000,
                octal_rest: false,
            },
            Value::Fd { fd: 3, path: None },
            Value::Fd {
                fd: 4,
                path: Some(b"/tmp/x".to_vec()),
            },
            Value::Fd {
                fd: 5,
                path: Some(b"socket:[1]\0TCP:[1.2.3.4:5]".to_vec()),
            },
            Value::Fd {
                fd: 6,
                path: Some(b"\0only details".to_vec()),
            },
            Value::Struct(
                vec![
                    Field::new("st_mode", Value::sym("S_IFREG|0644")),
                    Field::new("st_size", Value::UInt(10)),
                ],
                true,
            ),
            Value::Struct(vec![], true),
            Value::Array(vec![Value::Int(1), Value::Int(2)], true),
            Value::Array(vec![], true),
            Value::Changed(Box::new(Value::Int(16)), Box::new(Value::Int(28))),
            Value::Commented(Box::new(Value::Hex(1)), "note".into()),
            Value::Call("makedev".into(), vec![Value::Hex(8), Value::Hex(1)]),
            Value::Unknown,
        ]
    }

    #[test]
    fn direct_writer_matches_value_json() {
        for v in samples() {
            let mut s = String::new();
            write_value(&mut s, &v);
            let parsed: J = serde_json::from_str(&s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(parsed, value_json(&v), "{v:?} -> {s}");
        }
    }

    #[test]
    fn syscall_lines_start_with_type_and_parse() {
        let args = samples();
        let e = Ret::Err { errno: 2 };
        let ev = Ret::ErrValue {
            value: 0xffff_fffe,
            errno: 2,
        };
        let big = Ret::UInt(1 << 63);
        for ret in [Some(&Ret::Int(3)), Some(&e), Some(&ev), Some(&big), None] {
            let mut s = String::new();
            syscall_line(
                &mut s,
                &SyscallRecord {
                    pid: 42,
                    time: UNIX_EPOCH + Duration::new(5, 250_000_000),
                    name: Some("openat"),
                    nr: 257,
                    entry_args: &args[..3],
                    exit_args: &args[3..],
                    ret,
                    duration: ret.map(|_| Duration::from_nanos(12_345)),
                    injected: true,
                    delayed: false,
                },
            );
            assert!(s.starts_with("{\"type\":\"syscall\",") && s.ends_with("}\n"));
            let j: J = serde_json::from_str(&s).unwrap();
            assert_eq!(j["pid"], 42);
            assert_eq!(j["ts_ns"].as_u64(), Some(5_250_000_000));
            assert_eq!(j["args"].as_array().unwrap().len(), args.len());
            assert_eq!(j["injected"], true);
            match ret {
                Some(Ret::Err { .. }) => {
                    assert_eq!(
                        (j["return"].as_i64(), j["errno"].as_str()),
                        (Some(-1), Some("ENOENT"))
                    )
                }
                Some(Ret::ErrValue { .. }) => {
                    assert_eq!(
                        (j["return"].as_i64(), j["errno"].as_str()),
                        (Some(0xffff_fffe), Some("ENOENT"))
                    )
                }
                Some(Ret::UInt(_)) => assert_eq!(j["return"].as_u64(), Some(1 << 63)),
                Some(_) => {
                    assert_eq!(j["return"], 3);
                    assert_eq!(j["dur_ns"].as_u64(), Some(12_345));
                }
                None => assert!(j["return"].is_null() && j.get("dur_ns").is_none()),
            }
        }
    }

    #[test]
    fn stack_frames_are_appended() {
        let mut s = String::from("{\"type\":\"syscall\",\"pid\":1}\n");
        let f = Frame {
            pc: 0x401000,
            module: "/bin/x".into(),
            module_offset: Some(0x1000),
            function: Some("main".into()),
            offset_in_function: Some(0x10),
            file: Some("x.c".into()),
            line: Some(7),
            inlined: false,
        };
        add_stack(&mut s, &[f, Frame::default()]);
        let j: J = serde_json::from_str(&s).unwrap();
        assert_eq!(j["stack"][0]["func"], "main");
        assert_eq!(j["stack"][0]["off"], "0x10");
        assert_eq!(j["stack"][0]["line"], 7);
        assert_eq!(j["stack"][1]["pc"], "0x0");
        assert!(j["stack"][1].get("module").is_none());
    }

    #[test]
    fn signal_and_exit_lines() {
        let mut s = String::new();
        signal_line(&mut s, 9, 15, &Value::Struct(vec![], false));
        exit_line(&mut s, 9, crate::engine::Outcome::Killed(15, false));
        exit_line(&mut s, 9, crate::engine::Outcome::Exited(2));
        let l: Vec<J> = s
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(l[0]["signal"], "SIGTERM");
        assert_eq!(l[1]["signal"], "SIGTERM");
        assert_eq!(l[1]["core_dumped"], false);
        assert_eq!(l[2]["exit_code"], 2);
        assert!(l[1].get("status").is_none() && l[2].get("signal").is_none());
        assert!(s.lines().all(|l| l.starts_with("{\"type\":")));
    }
}
