//! Watched values: bytes -> [`WatchValue`] through a [`ValueFormatter`],
//! then text or JSON from the same value.
//!
//! A watch without a DWARF type uses [`IntFormatter`]: an integer of the
//! watched length, or the bytes of a range wider than 8. A DWARF-typed
//! formatter (enums, pointers, floats, structs, arrays) plugs in by
//! implementing [`ValueFormatter`] and producing [`WatchValue::Typed`].

use serde_json::{json, Value as J};

/// A decoded watched value.
#[derive(Clone, Debug, PartialEq)]
pub enum WatchValue {
    /// A little-endian unsigned integer of `len` bytes.
    Int {
        /// The value.
        value: u64,
        /// Its width in bytes.
        len: u64,
    },
    /// The bytes of an untyped range wider than 8 bytes, in address order.
    Bytes(Vec<u8>),
    /// A value a type-aware formatter rendered (`RED`, `0x0`, `3.5`).
    Typed {
        /// Its text.
        text: String,
        /// Its structured form.
        json: J,
    },
    /// The memory could not be read (unmapped meanwhile).
    Unreadable,
}

impl WatchValue {
    /// Text form: `42 (0x2a)`; bytes as `{0x1, 0x0, …}` (gdb's `print/x`
    /// of a byte array).
    pub fn text(&self) -> String {
        match self {
            WatchValue::Int { value, .. } => format!("{value} ({value:#x})"),
            WatchValue::Bytes(b) => {
                let each: Vec<String> = b.iter().map(|x| format!("{x:#x}")).collect();
                format!("{{{}}}", each.join(", "))
            }
            WatchValue::Typed { text, .. } => text.clone(),
            WatchValue::Unreadable => "?".to_string(),
        }
    }

    /// JSON form: `{"dec": 42, "hex": "0x2a"}`; bytes as `{"bytes":
    /// "0100…"}` (hex, in address order).
    pub fn json(&self) -> J {
        match self {
            WatchValue::Int { value, .. } => json!({ "dec": value, "hex": format!("{value:#x}") }),
            WatchValue::Bytes(b) => {
                let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                json!({ "bytes": hex })
            }
            WatchValue::Typed { json, .. } => json.clone(),
            WatchValue::Unreadable => J::Null,
        }
    }
}

/// Turns the watched bytes into a value.
pub trait ValueFormatter {
    /// Decodes `bytes` (the whole watched range; `None` if unreadable).
    fn decode(&self, bytes: Option<&[u8]>) -> WatchValue;
}

/// An unsigned little-endian integer as wide as the watched range; the
/// bytes of a wider range.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntFormatter;

impl ValueFormatter for IntFormatter {
    fn decode(&self, bytes: Option<&[u8]>) -> WatchValue {
        let Some(b) = bytes.filter(|b| !b.is_empty()) else {
            return WatchValue::Unreadable;
        };
        if b.len() > 8 {
            return WatchValue::Bytes(b.to_vec());
        }
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        WatchValue::Int {
            value: u64::from_le_bytes(w),
            len: b.len() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_of_the_watched_length() {
        let v = IntFormatter.decode(Some(&[0x2a, 0, 0, 0]));
        assert_eq!(v, WatchValue::Int { value: 42, len: 4 });
        assert_eq!(v.text(), "42 (0x2a)");
        assert_eq!(v.json(), json!({"dec": 42, "hex": "0x2a"}));
        assert_eq!(
            IntFormatter.decode(Some(&[0xff; 8])).text(),
            "18446744073709551615 (0xffffffffffffffff)"
        );
        assert_eq!(IntFormatter.decode(None), WatchValue::Unreadable);
        let wide = IntFormatter.decode(Some(&[1, 0, 0, 0, 0, 0, 0, 0, 0xff, 2]));
        assert_eq!(
            wide.text(),
            "{0x1, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0xff, 0x2}"
        );
        assert_eq!(wide.json(), json!({"bytes": "0100000000000000ff02"}));
    }
}
