//! [`ByteString`]: owned bytes with the lossless JSON form both ways.
//!
//! Written: a JSON string when the bytes are valid UTF-8, else
//! `{"bytes_hex":"…"}` (the same impl as the borrowed
//! [`Bytes`](crate::value::serialize::Bytes) the writers use). Read: either
//! form back to the exact bytes, so `"\xff"` and `"\xfe"` survive a
//! Deserialize → Serialize round trip as two different values
//! (docs/json.md, "Bytes").

use crate::value::json_shape::{unhex, BYTES_HEX};
use crate::value::serialize::Bytes;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Bytes read from a tracee (a path, a command name), kept exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ByteString(pub Vec<u8>);

impl ByteString {
    /// The bytes as text: UTF-8 as is, other bytes as `\xNN` escapes (so
    /// two different byte strings never print alike).
    pub fn escaped(&self) -> String {
        let mut out = String::new();
        for chunk in self.0.utf8_chunks() {
            out.push_str(chunk.valid());
            for x in chunk.invalid() {
                out.push_str(&format!("\\x{x:02x}"));
            }
        }
        out
    }
}

impl From<&[u8]> for ByteString {
    fn from(b: &[u8]) -> ByteString {
        ByteString(b.to_vec())
    }
}

impl From<&str> for ByteString {
    fn from(s: &str) -> ByteString {
        ByteString(s.as_bytes().to_vec())
    }
}

impl Serialize for ByteString {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Bytes(&self.0).serialize(s)
    }
}

struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = ByteString;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or {\"bytes_hex\": HEX}")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<ByteString, E> {
        Ok(ByteString(s.as_bytes().to_vec()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ByteString, A::Error> {
        let mut bytes = None;
        while let Some(k) = m.next_key::<String>()? {
            if k != BYTES_HEX || bytes.is_some() {
                return Err(de::Error::custom(format!("unexpected key {k:?} in bytes")));
            }
            let h: String = m.next_value()?;
            bytes = Some(unhex(&h).ok_or_else(|| de::Error::custom("bytes_hex is not hex"))?);
        }
        bytes
            .map(ByteString)
            .ok_or_else(|| de::Error::missing_field(BYTES_HEX))
    }
}

impl<'de> Deserialize<'de> for ByteString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ByteString, D::Error> {
        d.deserialize_any(BytesVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_utf8_bytes_survive_deserialize_then_serialize() {
        for (bytes, json) in [
            (&b"/tmp/\xff"[..], r#"{"bytes_hex":"2f746d702fff"}"#),
            (&b"/tmp/\xfe"[..], r#"{"bytes_hex":"2f746d702ffe"}"#),
            (&b"sh\x80x"[..], r#"{"bytes_hex":"73688078"}"#),
            (&b"/etc/hostname"[..], r#""/etc/hostname""#),
            (&b""[..], r#""""#),
        ] {
            let b: ByteString = serde_json::from_str(json).unwrap();
            assert_eq!(b.0, bytes, "{json}");
            assert_eq!(serde_json::to_string(&b).unwrap(), json);
            // Through a serde_json::Value too (as the trace-file reader does).
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            let b2 = ByteString::deserialize(&v).unwrap();
            assert_eq!(b2, b);
            assert_eq!(serde_json::to_value(&b2).unwrap(), v);
        }
        let ff: ByteString = serde_json::from_str(r#"{"bytes_hex":"ff"}"#).unwrap();
        let fe: ByteString = serde_json::from_str(r#"{"bytes_hex":"fe"}"#).unwrap();
        assert_ne!(ff, fe);
        assert_eq!(ff.escaped(), "\\xff");
    }

    #[test]
    fn bad_bytes_are_errors() {
        for bad in [
            r#"{"bytes_hex":"f"}"#,
            r#"{"bytes_hex":"zz"}"#,
            r#"{"hex":"ff"}"#,
            r#"{}"#,
            "3",
        ] {
            assert!(serde_json::from_str::<ByteString>(bad).is_err(), "{bad}");
        }
    }
}
