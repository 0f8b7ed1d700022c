//! JSON Lines rendering: one object per event, built from the same
//! [`Value`]s the text renderer prints.

use crate::output::text;
use crate::syscall::value::{Ret, Value};
use serde_json::{json, Map, Value as J};
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

fn bytes_json(b: &[u8]) -> J {
    J::String(String::from_utf8_lossy(b).into_owned())
}

/// The structured JSON form of a value.
pub fn value_json(v: &Value) -> J {
    match v {
        Value::Int(i) => json!(i),
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
        Value::Sym(s) => json!({ "sym": s }),
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

fn unix(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

/// Appends one syscall object and a newline.
pub fn syscall_line(out: &mut String, r: &SyscallRecord) {
    let mut m = Map::new();
    m.insert("type".into(), json!("syscall"));
    m.insert("pid".into(), json!(r.pid));
    m.insert("time".into(), json!(unix(r.time)));
    m.insert(
        "syscall".into(),
        match r.name {
            Some(n) => json!(n),
            None => json!(format!("syscall_{:#x}", r.nr)),
        },
    );
    let args: Vec<J> = r
        .entry_args
        .iter()
        .chain(r.exit_args.iter())
        .map(value_json)
        .collect();
    m.insert("args".into(), J::Array(args));
    match r.ret {
        None => {
            m.insert("return".into(), J::Null);
        }
        Some(Ret::Err { errno }) => {
            m.insert("return".into(), json!(-1));
            m.insert(
                "errno".into(),
                json!(rtrace_arch::tables::errno_name(*errno).unwrap_or("E???")),
            );
        }
        Some(ret) => {
            let mut s = String::new();
            text::render_ret(&mut s, ret, &Default::default());
            let s = s.trim_start_matches("= ").to_string();
            let v = match ret {
                Ret::Int(i) => json!(i),
                Ret::Fd(fd, _) => json!(fd),
                Ret::Hex(h) | Ret::Oct(h) => json!(h),
                _ => json!(s),
            };
            m.insert("return".into(), v);
            if let Ret::Fd(_, Some(p)) = ret {
                m.insert("return_path".into(), bytes_json(p));
            }
        }
    }
    if let Some(d) = r.duration {
        m.insert("duration".into(), json!(d.as_secs_f64()));
    }
    if r.injected {
        m.insert("injected".into(), json!(true));
    }
    if r.delayed {
        m.insert("delayed".into(), json!(true));
    }
    out.push_str(&J::Object(m).to_string());
    out.push('\n');
}

/// Appends a signal-delivery object.
pub fn signal_line(out: &mut String, pid: i32, sig: i32, info: &Value) {
    let name = crate::syscall::ctx::signal_name(sig as u64)
        .map(|c| c.into_owned())
        .unwrap_or_else(|| sig.to_string());
    let o = json!({ "type": "signal", "pid": pid, "signal": name, "siginfo": value_json(info) });
    out.push_str(&o.to_string());
    out.push('\n');
}

/// Appends an exit object.
pub fn exit_line(out: &mut String, pid: i32, what: &str) {
    let o = json!({ "type": "exit", "pid": pid, "status": what });
    out.push_str(&o.to_string());
    out.push('\n');
}
