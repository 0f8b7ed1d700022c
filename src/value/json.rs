//! JSON Lines rendering: one object per event, built from the same
//! [`Value`]s the text renderer prints.
//!
//! One renderer: the serde `Serialize` impls of [`crate::value::serialize`]
//! (values, syscall and signal events). Event lines are written straight
//! into a `String` by `serde_json::to_writer` (no intermediate
//! `serde_json::Value` tree: a recording renders one object per syscall,
//! and building maps for each cost as much as the rest of the printing);
//! [`value_json`] runs the same impl into a `serde_json::Value` for callers
//! that embed values in bigger objects. Every event object starts with its
//! `"type"` key, so a reader (and the event tally of `rtrace record`) can
//! classify a line from its first bytes.

use crate::symbols::Frame;
pub use crate::value::json_shape::{bytes_of, bytes_text, push_bytes, push_str, unix_ns};
pub use crate::value::serialize::{exit_line, write_json, SyscallRecord};
use crate::value::serialize::{Bytes, FrameJson, SignalEvent, SyscallEvent};
use crate::value::Value;
use serde_json::Value as J;

/// Bytes as JSON, losslessly (see [`crate::value::json_shape`]): a string
/// when they are UTF-8, else `{"bytes_hex":"…"}`.
pub fn bytes_json(b: &[u8]) -> J {
    serde_json::to_value(Bytes(b)).unwrap_or(J::Null)
}

/// The structured JSON form of a value: the [`Serialize`](serde::Serialize)
/// impl of [`crate::value::serialize`] into a `serde_json::Value`.
pub fn value_json(v: &Value) -> J {
    serde_json::to_value(v).unwrap_or(J::Null)
}

/// Appends the JSON form of `v`: the same structure as [`value_json`]
/// (structure fields in decoder order rather than sorted).
pub fn write_value(out: &mut String, v: &Value) {
    write_json(out, v);
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
    write_json(out, &SyscallEvent::new(r));
    out.push('\n');
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
    line.push_str(",\"stack\":");
    let frames: Vec<FrameJson> = frames.iter().map(FrameJson::new).collect();
    write_json(line, &frames);
    line.push_str("}\n");
}

/// Appends a signal-delivery object: `type`, `pid`, `signal` (name),
/// `siginfo`.
pub fn signal_line(out: &mut String, pid: i32, sig: i32, info: &Value) {
    let signal = crate::value::signal_name(sig as u64).unwrap_or_else(|| sig.to_string().into());
    let ev = SignalEvent {
        ty: "signal",
        pid,
        signal,
        siginfo: info,
    };
    write_json(out, &ev);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Ret;
    use crate::value::{Field, StrVal};
    use std::time::{Duration, UNIX_EPOCH};

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
