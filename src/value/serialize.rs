//! The one JSON rendering of decoded values and syscall events: serde
//! `Serialize` impls. The JSON writers (`value/json.rs`) write them straight into the
//! output line with `serde_json::to_writer` (no `serde_json::Value` tree
//! per event: building one cost as much as the rest of the printing), and
//! `value_json` turns the same impl into a `serde_json::Value` for callers
//! that embed values in bigger objects — one renderer, two destinations.
//!
//! Shapes (docs/json.md, docs/schema/common.schema.json): integers as
//! numbers, `NULL` and unknowns as `null`, pointers `{"ptr":"0x…"}`,
//! strings as [`Bytes`], flag sets `{"flags":[…],"rest":N}`, symbols
//! `{"sym":…}`, descriptors `{"fd":N,"path":…,"details":…}`, structures as
//! objects in decoder order (`"...":true` when cut), arrays (`"..."` last
//! when cut), `{"in":…,"out":…}`, `{"value":…,"comment":…}`, expressions
//! `{"expr":…}`. [`crate::value::decoded::Decoded`] reads them back, one
//! variant per shape.

use crate::value::json_shape::{flag_set, hex, unix_ns, BYTES_HEX};
use crate::value::text;
use crate::value::{Ret, Value};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use std::borrow::Cow;
use std::time::{Duration, SystemTime};

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

/// A `String` as an `io::Write` for serde_json: what serde_json writes is
/// UTF-8 in every piece (string contents are cut only around ASCII
/// escapes), checked rather than assumed.
struct StrWriter<'a>(&'a mut String);

impl std::io::Write for StrWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let s = std::str::from_utf8(buf)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        self.0.push_str(s);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Appends the JSON of anything serializable (a value, an event) straight
/// into `out`.
pub fn write_json<T: serde::Serialize + ?Sized>(out: &mut String, v: &T) {
    let _ = serde_json::to_writer(StrWriter(out), v);
}

/// Appends an exit object: `type`, `pid`, then `exit_code` (exited) or
/// `signal` (name) and `core_dumped` (killed), the trace file footer's
/// fields.
pub fn exit_line(out: &mut String, pid: i32, fate: crate::engine::Outcome) {
    use crate::engine::Outcome;
    let (exit_code, signal, core_dumped) = match fate {
        Outcome::Exited(c) => (Some(c), None, None),
        Outcome::Killed(sig, core) => {
            let name = crate::value::signal_name(sig as u64)
                .map(|c| c.into_owned())
                .unwrap_or_else(|| sig.to_string());
            (None, Some(name), Some(core))
        }
        Outcome::None => (None, None, None),
    };
    let ev = ExitEvent {
        ty: "exit",
        pid,
        exit_code,
        signal,
        core_dumped,
    };
    write_json(out, &ev);
    out.push('\n');
}

/// A process's end (see [`exit_line`]).
#[derive(serde::Serialize)]
struct ExitEvent {
    #[serde(rename = "type")]
    ty: &'static str,
    pid: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    core_dumped: Option<bool>,
}

/// Bytes, losslessly: a JSON string when they are valid UTF-8, else
/// `{"bytes_hex":"…"}`.
pub struct Bytes<'a>(pub &'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(self.0) {
            Ok(t) => s.serialize_str(t),
            Err(_) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry(BYTES_HEX, &hex(self.0))?;
                m.end()
            }
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `{"flags":[NAMES…]}`, with `"rest"` when bits are left over.
#[derive(Serialize)]
struct Flags<'a> {
    flags: &'a [&'a str],
    #[serde(skip_serializing_if = "is_zero")]
    rest: u64,
}

/// A pointer as its hex text, with `"unreadable":true` for a target that
/// could not be read.
#[derive(Serialize)]
struct Ptr {
    ptr: String,
    #[serde(skip_serializing_if = "is_false")]
    unreadable: bool,
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Int(i) | Value::Pid { pid: i, comm: None } => s.serialize_i64(*i),
            Value::Pid { pid, comm: Some(c) } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("pid", pid)?;
                m.serialize_entry("comm", &Bytes(c))?;
                m.end()
            }
            Value::UInt(u) | Value::Hex(u) | Value::Oct(u) => s.serialize_u64(*u),
            Value::Ptr(0) | Value::Unknown => s.serialize_unit(),
            Value::Ptr(p) | Value::Unreadable(p) => Ptr {
                ptr: format!("{p:#x}"),
                unreadable: matches!(self, Value::Unreadable(_)),
            }
            .serialize(s),
            Value::Str(v) if v.truncated => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("str", &Bytes(&v.bytes))?;
                m.serialize_entry("truncated", &true)?;
                m.end()
            }
            Value::Str(v) => Bytes(&v.bytes).serialize(s),
            Value::Sym(sym) => match flag_set(sym) {
                Some((names, rest)) => Flags {
                    flags: &names,
                    rest,
                }
                .serialize(s),
                None => {
                    let mut m = s.serialize_map(Some(1))?;
                    m.serialize_entry("sym", sym)?;
                    m.end()
                }
            },
            Value::Flags { names, rest, .. } => Flags {
                flags: names,
                rest: *rest,
            }
            .serialize(s),
            Value::Fd { fd, path } => {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("fd", fd)?;
                let (path, details) = fd_parts(path.as_deref());
                if let Some(p) = path {
                    m.serialize_entry("path", &Bytes(p))?;
                }
                if let Some(d) = details {
                    m.serialize_entry("details", &Bytes(d))?;
                }
                m.end()
            }
            Value::Struct(fields, more) => {
                let mut m = s.serialize_map(Some(fields.len() + *more as usize))?;
                for f in fields {
                    m.serialize_entry(&*f.name, &f.value)?;
                }
                if *more {
                    m.serialize_entry("...", &true)?;
                }
                m.end()
            }
            Value::Array(items, more) => {
                let mut q = s.serialize_seq(Some(items.len() + *more as usize))?;
                for x in items {
                    q.serialize_element(x)?;
                }
                if *more {
                    q.serialize_element("...")?;
                }
                q.end()
            }
            Value::Changed(a, b) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("in", a)?;
                m.serialize_entry("out", b)?;
                m.end()
            }
            Value::Commented(v, c) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("value", v)?;
                m.serialize_entry("comment", c)?;
                m.end()
            }
            Value::Call(..) | Value::Joined(..) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("expr", &expr_text(self))?;
                m.end()
            }
        }
    }
}

/// A descriptor's `-y` text split into its JSON `"path"` and
/// `"details"`: `-yy` gives the path, a NUL, then the details (see
/// text.rs); an empty path before the NUL is left out.
pub(crate) fn fd_parts(p: Option<&[u8]>) -> (Option<&[u8]>, Option<&[u8]>) {
    match p {
        None => (None, None),
        Some(p) => match p.iter().position(|&b| b == 0) {
            Some(0) => (None, Some(&p[1..])),
            Some(i) => (Some(&p[..i]), Some(&p[i + 1..])),
            None => (Some(p), None),
        },
    }
}

/// The `{"expr":…}` text of a [`Value::Call`] or [`Value::Joined`]: as
/// the text renderer prints it.
pub(crate) fn expr_text(v: &Value) -> String {
    let mut t = String::new();
    text::render_value(&mut t, v, &Default::default());
    t
}

/// The entry then the exit arguments, as one array.
struct Args<'a>(&'a [Value], &'a [Value]);

impl Serialize for Args<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().chain(self.1))
    }
}

/// A syscall's `"return"`: a number, a decoded text (`0x1 (flags O_WRONLY)`),
/// or `null` when it never returned.
#[derive(Serialize)]
#[serde(untagged)]
enum Returned {
    None,
    Int(i64),
    UInt(u64),
    Text(String),
}

/// One syscall object (docs/schema/common.schema.json, `syscall`); its
/// `type` key first, as every event line's.
#[derive(Serialize)]
pub struct SyscallEvent<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    pid: i32,
    ts_ns: u64,
    syscall: Cow<'static, str>,
    args: Args<'a>,
    #[serde(rename = "return")]
    ret: Returned,
    #[serde(skip_serializing_if = "Option::is_none")]
    errno: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    return_comm: Option<Bytes<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    return_path: Option<Bytes<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur_ns: Option<u64>,
    #[serde(skip_serializing_if = "is_false")]
    injected: bool,
    #[serde(skip_serializing_if = "is_false")]
    delayed: bool,
}

impl<'a> SyscallEvent<'a> {
    /// The object of a finished (or never-returning) syscall.
    pub fn new(r: &SyscallRecord<'a>) -> SyscallEvent<'a> {
        let errno = |e: u64| Some(rtrace_arch::tables::errno_name(e).unwrap_or("E???"));
        let (mut ret, mut err, mut comm, mut path) = (Returned::None, None, None, None);
        match r.ret {
            None => {}
            Some(Ret::Err { errno: e }) => (ret, err) = (Returned::Int(-1), errno(*e)),
            Some(Ret::ErrValue { value, errno: e }) => {
                (ret, err) = (Returned::Int(*value), errno(*e))
            }
            Some(Ret::Int(i)) => ret = Returned::Int(*i),
            Some(Ret::UInt(u) | Ret::Hex(u) | Ret::Oct(u)) => ret = Returned::UInt(*u),
            Some(Ret::Pid(pid, c)) => (ret, comm) = (Returned::Int(*pid), c.as_deref().map(Bytes)),
            Some(Ret::Fd(fd, p)) => (ret, path) = (Returned::Int(*fd), p.as_deref().map(Bytes)),
            Some(other) => {
                let mut t = String::new();
                text::render_ret(&mut t, other, &Default::default());
                ret = Returned::Text(t.trim_start_matches("= ").to_string());
            }
        }
        SyscallEvent {
            ty: "syscall",
            pid: r.pid,
            ts_ns: unix_ns(r.time),
            syscall: match r.name {
                Some(n) => Cow::Borrowed(n),
                None => Cow::Owned(format!("syscall_{:#x}", r.nr)),
            },
            args: Args(r.entry_args, r.exit_args),
            ret,
            errno: err,
            return_comm: comm,
            return_path: path,
            dur_ns: r.duration.map(|d| d.as_nanos() as u64),
            injected: r.injected,
            delayed: r.delayed,
        }
    }
}

/// A signal delivery: `type`, `pid`, `signal` (name), `siginfo`.
#[derive(Serialize)]
pub struct SignalEvent<'a> {
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub pid: i32,
    pub signal: Cow<'static, str>,
    pub siginfo: &'a Value,
}

/// One `-k` stack frame: `pc` (hex), and when known `module`,
/// `module_offset` (hex), `func`, `off` (offset in the function, hex),
/// `file`, `line`.
#[derive(Serialize)]
pub struct FrameJson<'a> {
    pc: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    module: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    module_offset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    func: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    off: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
}

impl<'a> FrameJson<'a> {
    /// The JSON form of `f`.
    pub fn new(f: &'a crate::symbols::Frame) -> FrameJson<'a> {
        FrameJson {
            pc: format!("{:#x}", f.pc),
            module: &f.module,
            module_offset: f.module_offset.map(|o| format!("{o:#x}")),
            func: f.function.as_deref(),
            off: f.offset_in_function.map(|o| format!("{o:#x}")),
            file: f.file.as_deref(),
            line: f.line,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::value::{Field, StrVal};
    use std::time::{Duration, UNIX_EPOCH};

    fn json(v: &Value) -> String {
        let mut s = String::new();
        write_json(&mut s, v);
        s
    }

    #[test]
    fn values_have_the_documented_shapes() {
        let s = |b: &[u8], truncated| {
            Value::Str(StrVal {
                bytes: b.to_vec(),
                truncated,
                c_string: true,
            })
        };
        let cases: Vec<(Value, &str)> = vec![
            (Value::Int(-3), "-3"),
            (Value::Hex(0x7f), "127"),
            (Value::Ptr(0), "null"),
            (Value::Ptr(0x1000), r#"{"ptr":"0x1000"}"#),
            (
                Value::Unreadable(0x20),
                r#"{"ptr":"0x20","unreadable":true}"#,
            ),
            (s(b"a\"\n", false), r#""a\"\n""#),
            (s(b"\xff", false), r#"{"bytes_hex":"ff"}"#),
            (
                s(b"x\xfe", true),
                r#"{"str":{"bytes_hex":"78fe"},"truncated":true}"#,
            ),
            (
                Value::sym("S_IFREG|0644"),
                r#"{"flags":["S_IFREG"],"rest":420}"#,
            ),
            (Value::sym("AT_FDCWD"), r#"{"sym":"AT_FDCWD"}"#),
            (
                Value::Fd {
                    fd: 5,
                    path: Some(b"socket:[1]\0TCP".to_vec()),
                },
                r#"{"fd":5,"path":"socket:[1]","details":"TCP"}"#,
            ),
            (
                Value::Pid {
                    pid: 7,
                    comm: Some(b"sh\x80".to_vec()),
                },
                r#"{"pid":7,"comm":{"bytes_hex":"736880"}}"#,
            ),
            (
                Value::Struct(
                    vec![
                        Field::new("z", Value::Int(1)),
                        Field::new("a", Value::Unknown),
                    ],
                    true,
                ),
                r#"{"z":1,"a":null,"...":true}"#,
            ),
            (Value::Array(vec![Value::UInt(1)], true), r#"[1,"..."]"#),
            (
                Value::Changed(Box::new(Value::Int(16)), Box::new(Value::Int(28))),
                r#"{"in":16,"out":28}"#,
            ),
            (
                Value::Call("makedev".into(), vec![Value::Hex(8), Value::Hex(1)]),
                r#"{"expr":"makedev(0x8, 0x1)"}"#,
            ),
        ];
        for (v, want) in cases {
            assert_eq!(json(&v), want, "{v:?}");
            // value_json is the same impl into a tree.
            let tree = serde_json::to_value(&v).unwrap();
            assert_eq!(
                tree,
                serde_json::from_str::<serde_json::Value>(want).unwrap()
            );
        }
    }

    #[test]
    fn a_failed_syscall_line() {
        let args = [Value::sym("AT_FDCWD"), {
            Value::Str(StrVal {
                bytes: b"/x\xff".to_vec(),
                truncated: false,
                c_string: true,
            })
        }];
        let mut s = String::new();
        write_json(
            &mut s,
            &SyscallEvent::new(&SyscallRecord {
                pid: 9,
                time: UNIX_EPOCH + Duration::new(2, 5),
                name: Some("openat"),
                nr: 257,
                entry_args: &args,
                exit_args: &[],
                ret: Some(&Ret::Err { errno: 2 }),
                duration: Some(Duration::from_nanos(700)),
                injected: false,
                delayed: true,
            }),
        );
        s.push('\n');
        assert_eq!(
            s,
            "{\"type\":\"syscall\",\"pid\":9,\"ts_ns\":2000000005,\"syscall\":\"openat\",\
             \"args\":[{\"sym\":\"AT_FDCWD\"},{\"bytes_hex\":\"2f78ff\"}],\"return\":-1,\
             \"errno\":\"ENOENT\",\"dur_ns\":700,\"delayed\":true}\n"
        );
    }
}
