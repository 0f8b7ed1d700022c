//! Reading a [`Decoded`] back: any JSON value is taken as is (objects as
//! ordered key lists), then an object is given a typed variant only when
//! it is exactly that shape, written back the same ([`shape`]).

use super::Decoded;
use crate::value::bytestring::ByteString;
use crate::value::json_shape::{hex, unhex, BYTES_HEX};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;

struct DecodedVisitor;

impl<'de> Visitor<'de> for DecodedVisitor {
    type Value = Decoded;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a decoded value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Decoded, E> {
        Ok(Decoded::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Decoded, E> {
        Ok(Decoded::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Decoded, D::Error> {
        Decoded::deserialize(d)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Decoded, E> {
        Ok(Decoded::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Decoded, E> {
        Ok(Decoded::Int(i.into()))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Decoded, E> {
        Ok(Decoded::Int(u.into()))
    }

    fn visit_i128<E: de::Error>(self, i: i128) -> Result<Decoded, E> {
        Ok(Decoded::Int(i))
    }

    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Decoded, E> {
        i128::try_from(u)
            .map(Decoded::Int)
            .map_err(|_| E::custom("integer out of range"))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Decoded, E> {
        Ok(Decoded::Float(f))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Decoded, E> {
        Ok(Decoded::str(s.as_bytes()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut q: A) -> Result<Decoded, A::Error> {
        let mut items = Vec::with_capacity(q.size_hint().unwrap_or(0).min(64));
        while let Some(x) = q.next_element::<Decoded>()? {
            items.push(x);
        }
        let more = items.last().is_some_and(|x| text(x) == Some("..."));
        if more {
            items.pop();
        }
        Ok(Decoded::Array(items, more))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Decoded, A::Error> {
        let mut fields = Vec::with_capacity(m.size_hint().unwrap_or(0).min(64));
        while let Some((k, v)) = m.next_entry::<String, Decoded>()? {
            fields.push((k, v));
        }
        Ok(shape(fields))
    }
}

impl<'de> Deserialize<'de> for Decoded {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Decoded, D::Error> {
        d.deserialize_any(DecodedVisitor)
    }
}

/// The bytes of a whole string.
fn bytes(v: &Decoded) -> Option<&ByteString> {
    match v {
        Decoded::Str {
            bytes,
            truncated: false,
        } => Some(bytes),
        _ => None,
    }
}

/// The text of a whole string that is UTF-8 (a JSON string).
fn text(v: &Decoded) -> Option<&str> {
    std::str::from_utf8(&bytes(v)?.0).ok()
}

/// An integer that fits `T`.
fn int<T: TryFrom<i128>>(v: &Decoded) -> Option<T> {
    match v {
        Decoded::Int(i) => T::try_from(*i).ok(),
        _ => None,
    }
}

/// `{"bytes_hex":H}` that is what [`ByteString`] writes: not UTF-8,
/// lowercase hex.
fn bytes_hex(h: &Decoded) -> Option<Decoded> {
    let h = text(h)?;
    let b = unhex(h)?;
    (std::str::from_utf8(&b).is_err() && hex(&b) == h).then(|| Decoded::str(&b))
}

/// `"0x…"` as the renderer writes an address.
fn address(v: &Decoded) -> Option<u64> {
    let t = text(v)?;
    let a = u64::from_str_radix(t.strip_prefix("0x")?, 16).ok()?;
    (format!("{a:#x}") == t).then_some(a)
}

/// Flag names: an array of strings, not cut.
fn names(v: &Decoded) -> Option<Vec<String>> {
    match v {
        Decoded::Array(items, false) => items.iter().map(|x| text(x).map(str::to_string)).collect(),
        _ => None,
    }
}

/// The typed variant an object's entries are exactly the shape of, if
/// any.
fn typed(f: &[(String, Decoded)]) -> Option<Decoded> {
    let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
    let v = |i: usize| &f[i].1;
    let yes = |i: usize| matches!(v(i), Decoded::Bool(true));
    Some(match keys[..] {
        [BYTES_HEX] => bytes_hex(v(0))?,
        ["str", "truncated"] if yes(1) => Decoded::Str {
            bytes: bytes(v(0))?.clone(),
            truncated: true,
        },
        ["ptr"] => Decoded::Ptr {
            addr: address(v(0))?,
            unreadable: false,
        },
        ["ptr", "unreadable"] if yes(1) => Decoded::Ptr {
            addr: address(v(0))?,
            unreadable: true,
        },
        ["flags"] => Decoded::Flags {
            names: names(v(0))?,
            rest: 0,
        },
        ["flags", "rest"] => Decoded::Flags {
            names: names(v(0))?,
            rest: int::<u64>(v(1)).filter(|&r| r != 0)?,
        },
        ["sym"] => Decoded::Sym(text(v(0))?.to_string()),
        ["expr"] => Decoded::Expr(text(v(0))?.to_string()),
        ["fd", ..] => {
            let (mut path, mut details) = (None, None);
            match keys[1..] {
                [] => {}
                ["path"] => path = Some(v(1)),
                ["details"] => details = Some(v(1)),
                ["path", "details"] => (path, details) = (Some(v(1)), Some(v(2))),
                _ => return None,
            }
            let b = |x: Option<&Decoded>| x.map(|x| bytes(x).cloned().ok_or(()));
            Decoded::Fd {
                fd: int(v(0))?,
                path: b(path).transpose().ok()?,
                details: b(details).transpose().ok()?,
            }
        }
        ["pid", "comm"] => Decoded::Pid {
            pid: int(v(0))?,
            comm: bytes(v(1))?.clone(),
        },
        ["in", "out"] => Decoded::Changed(Box::new(v(0).clone()), Box::new(v(1).clone())),
        ["value", "comment"] => Decoded::Commented(Box::new(v(0).clone()), text(v(1))?.to_string()),
        _ => return None,
    })
}

/// An object read back: its typed variant, or a structure (a last
/// `"...":true` is the cut mark).
fn shape(mut fields: Vec<(String, Decoded)>) -> Decoded {
    if let Some(t) = typed(&fields) {
        return t;
    }
    let more = matches!(fields.last(), Some((k, Decoded::Bool(true))) if k == "...");
    if more {
        fields.pop();
    }
    Decoded::Struct(fields, more)
}
