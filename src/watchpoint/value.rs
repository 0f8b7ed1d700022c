//! Watched values: bytes -> [`WatchValue`] through a [`ValueFormatter`],
//! then text or JSON from the same value.
//!
//! Today every watch uses [`IntFormatter`] (an integer of the watched
//! length). A DWARF-typed formatter (enums, pointers, floats, struct
//! fields) plugs in by implementing [`ValueFormatter`] and producing
//! [`WatchValue::Typed`].

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
    /// Text form: `42 (0x2a)`.
    pub fn text(&self) -> String {
        match self {
            WatchValue::Int { value, .. } => format!("{value} ({value:#x})"),
            WatchValue::Typed { text, .. } => text.clone(),
            WatchValue::Unreadable => "?".to_string(),
        }
    }

    /// JSON form: `{"dec": 42, "hex": "0x2a"}`.
    pub fn json(&self) -> J {
        match self {
            WatchValue::Int { value, .. } => json!({ "dec": value, "hex": format!("{value:#x}") }),
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

/// An unsigned little-endian integer as wide as the watched range.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntFormatter;

impl ValueFormatter for IntFormatter {
    fn decode(&self, bytes: Option<&[u8]>) -> WatchValue {
        let Some(b) = bytes.filter(|b| !b.is_empty() && b.len() <= 8) else {
            return WatchValue::Unreadable;
        };
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
    }
}
