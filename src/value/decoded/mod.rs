//! [`Decoded`]: a decoded value as read back from JSON, one variant per
//! shape the one renderer ([`crate::value::serialize`]) writes, with
//! `Serialize` and `Deserialize` both ways.
//!
//! The in-memory [`Value`] keeps what only the text renderer needs (hex
//! or octal integers, a C string's NUL, an expression's parts); its JSON
//! drops those, and [`Decoded`] is exactly what is left. `From<&Value>`
//! gives the same JSON the renderer writes (tested for every variant in
//! `tests.rs`), so the read-back type and the renderer cannot drift.
//!
//! Reading is lossless: for every JSON value, deserializing then
//! serializing gives the same JSON, key order included (structure fields
//! are a `Vec`, never a map). An object takes a typed variant only when
//! its keys are exactly that shape's, in the renderer's order, with values
//! that write back the same (`{"ptr":"0x10"}`, not `{"ptr":"0x010"}`);
//! any other object is a [`Decoded::Struct`], any other array a
//! [`Decoded::Array`].
//!
//! Scope: what JSON cannot tell apart stays ambiguous. A decoder
//! structure whose only field is `fd`, or `in` and `out`, reads back as
//! [`Decoded::Fd`] or [`Decoded::Changed`]; an array whose last element
//! is the string `"..."` reads back as cut. Either writes the same JSON.

mod de;
#[cfg(test)]
mod tests;

use crate::value::bytestring::ByteString;
use crate::value::json_shape::flag_set;
use crate::value::serialize::{expr_text, fd_parts};
use crate::value::Value;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// One decoded value in its JSON form (docs/json.md,
/// docs/schema/common.schema.json `value`).
#[derive(Clone, Debug, PartialEq)]
pub enum Decoded {
    /// `null`: a `NULL` pointer, or nothing known (`?`).
    Null,
    /// A number: any integer, whatever base strace prints it in; a pid
    /// without a command name.
    Int(i128),
    /// A string: `"text"` or `{"bytes_hex":…}`; when `truncated`,
    /// `{"str":…,"truncated":true}`.
    Str {
        /// The bytes read.
        bytes: ByteString,
        /// The string went on past them (strace's `...`).
        truncated: bool,
    },
    /// `{"ptr":"0x…"}`, with `"unreadable":true` for a target that could
    /// not be read.
    Ptr {
        /// The address.
        addr: u64,
        /// Its target could not be read.
        unreadable: bool,
    },
    /// `{"flags":[NAMES…]}`, with `"rest":N` for bits no name covers.
    Flags {
        /// The names of the known bits.
        names: Vec<String>,
        /// The other bits (0: none, and no `"rest"` key).
        rest: u64,
    },
    /// `{"sym":…}`: a symbol or a token (`AT_FDCWD`).
    Sym(String),
    /// `{"fd":N}`, with `"path"` and `"details"` under `-y` / `-yy`.
    Fd {
        /// The descriptor.
        fd: i64,
        /// What it refers to.
        path: Option<ByteString>,
        /// `-yy`'s details (`TCP:[…]`).
        details: Option<ByteString>,
    },
    /// `{"pid":N,"comm":…}`: a pid with its command name (`-Y`).
    Pid {
        /// The id.
        pid: i64,
        /// `/proc/PID/comm`.
        comm: ByteString,
    },
    /// A structure: its fields in decoder order; `true` adds
    /// `"...":true` (fields left out).
    Struct(Vec<(String, Decoded)>, bool),
    /// An array; `true` adds a last `"..."` (elements left out).
    Array(Vec<Decoded>, bool),
    /// `{"in":…,"out":…}`: a value the call changed.
    Changed(Box<Decoded>, Box<Decoded>),
    /// `{"value":…,"comment":…}`.
    Commented(Box<Decoded>, String),
    /// `{"expr":…}`: an expression as strace prints it
    /// (`makedev(0x8, 0x1)`).
    Expr(String),
    /// Fallback: a JSON boolean outside the shapes above. The renderer
    /// never writes one as a value; kept so any JSON reads back.
    Bool(bool),
    /// Fallback: a JSON number that is not an integer. The renderer never
    /// writes one; kept so any JSON reads back.
    Float(f64),
}

impl Decoded {
    /// Whether this is a fallback variant ([`Decoded::Bool`],
    /// [`Decoded::Float`]) at the top or anywhere inside: a shape the
    /// renderer never writes.
    pub fn has_fallback(&self) -> bool {
        match self {
            Decoded::Bool(_) | Decoded::Float(_) => true,
            Decoded::Struct(fs, _) => fs.iter().any(|(_, v)| v.has_fallback()),
            Decoded::Array(vs, _) => vs.iter().any(Decoded::has_fallback),
            Decoded::Changed(a, b) => a.has_fallback() || b.has_fallback(),
            Decoded::Commented(v, _) => v.has_fallback(),
            _ => false,
        }
    }

    /// A string that was read whole.
    pub fn str(b: &[u8]) -> Decoded {
        Decoded::Str {
            bytes: ByteString::from(b),
            truncated: false,
        }
    }
}

impl From<&Value> for Decoded {
    fn from(v: &Value) -> Decoded {
        let bytes = |b: &[u8]| ByteString::from(b);
        match v {
            Value::Int(i) | Value::Pid { pid: i, comm: None } => Decoded::Int((*i).into()),
            Value::UInt(u) | Value::Hex(u) | Value::Oct(u) => Decoded::Int((*u).into()),
            Value::Pid { pid, comm: Some(c) } => Decoded::Pid {
                pid: *pid,
                comm: bytes(c),
            },
            Value::Ptr(0) | Value::Unknown => Decoded::Null,
            Value::Ptr(p) | Value::Unreadable(p) => Decoded::Ptr {
                addr: *p,
                unreadable: matches!(v, Value::Unreadable(_)),
            },
            Value::Str(s) => Decoded::Str {
                bytes: bytes(&s.bytes),
                truncated: s.truncated,
            },
            Value::Sym(sym) => match flag_set(sym) {
                Some((names, rest)) => Decoded::Flags {
                    names: names.into_iter().map(str::to_string).collect(),
                    rest,
                },
                None => Decoded::Sym(sym.to_string()),
            },
            Value::Flags { names, rest, .. } => Decoded::Flags {
                names: names.iter().map(|n| n.to_string()).collect(),
                rest: *rest,
            },
            Value::Fd { fd, path } => {
                let (path, details) = fd_parts(path.as_deref());
                Decoded::Fd {
                    fd: *fd,
                    path: path.map(bytes),
                    details: details.map(bytes),
                }
            }
            Value::Struct(fields, more) => Decoded::Struct(
                fields
                    .iter()
                    .map(|f| (f.name.to_string(), Decoded::from(&f.value)))
                    .collect(),
                *more,
            ),
            Value::Array(items, more) => {
                Decoded::Array(items.iter().map(Decoded::from).collect(), *more)
            }
            Value::Changed(a, b) => {
                Decoded::Changed(Box::new((&**a).into()), Box::new((&**b).into()))
            }
            Value::Commented(x, c) => Decoded::Commented(Box::new((&**x).into()), c.to_string()),
            Value::Call(..) | Value::Joined(..) => Decoded::Expr(expr_text(v)),
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `{"flags":[…]}` and its `"rest"`.
#[derive(Serialize)]
struct FlagsJson<'a> {
    flags: &'a [String],
    #[serde(skip_serializing_if = "is_zero")]
    rest: u64,
}

/// A one-key object.
fn one<S: Serializer, V: Serialize + ?Sized>(s: S, k: &str, v: &V) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(1))?;
    m.serialize_entry(k, v)?;
    m.end()
}

impl Serialize for Decoded {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Decoded::Null => s.serialize_unit(),
            Decoded::Int(i) => match (i64::try_from(*i), u64::try_from(*i)) {
                (Ok(n), _) => s.serialize_i64(n),
                (_, Ok(n)) => s.serialize_u64(n),
                _ => s.serialize_i128(*i),
            },
            Decoded::Str {
                bytes,
                truncated: false,
            } => bytes.serialize(s),
            Decoded::Str { bytes, .. } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("str", bytes)?;
                m.serialize_entry("truncated", &true)?;
                m.end()
            }
            Decoded::Ptr { addr, unreadable } => {
                let mut m = s.serialize_map(Some(1 + *unreadable as usize))?;
                m.serialize_entry("ptr", &format!("{addr:#x}"))?;
                if *unreadable {
                    m.serialize_entry("unreadable", &true)?;
                }
                m.end()
            }
            Decoded::Flags { names, rest } => FlagsJson {
                flags: names,
                rest: *rest,
            }
            .serialize(s),
            Decoded::Sym(t) => one(s, "sym", t),
            Decoded::Expr(t) => one(s, "expr", t),
            Decoded::Fd { fd, path, details } => {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("fd", fd)?;
                if let Some(p) = path {
                    m.serialize_entry("path", p)?;
                }
                if let Some(d) = details {
                    m.serialize_entry("details", d)?;
                }
                m.end()
            }
            Decoded::Pid { pid, comm } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("pid", pid)?;
                m.serialize_entry("comm", comm)?;
                m.end()
            }
            Decoded::Struct(fields, more) => {
                let mut m = s.serialize_map(Some(fields.len() + *more as usize))?;
                for (k, v) in fields {
                    m.serialize_entry(k, v)?;
                }
                if *more {
                    m.serialize_entry("...", &true)?;
                }
                m.end()
            }
            Decoded::Array(items, more) => {
                let mut q = s.serialize_seq(Some(items.len() + *more as usize))?;
                for x in items {
                    q.serialize_element(x)?;
                }
                if *more {
                    q.serialize_element("...")?;
                }
                q.end()
            }
            Decoded::Changed(a, b) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("in", a)?;
                m.serialize_entry("out", b)?;
                m.end()
            }
            Decoded::Commented(v, c) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("value", v)?;
                m.serialize_entry("comment", c)?;
                m.end()
            }
            Decoded::Bool(b) => s.serialize_bool(*b),
            Decoded::Float(f) => s.serialize_f64(*f),
        }
    }
}
