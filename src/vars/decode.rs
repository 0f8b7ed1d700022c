//! A variable's bytes to a [`Value`], by its DWARF type: integers of every
//! size, characters, booleans, floating point (including x87 `long
//! double`), enums by enumerator name, pointers (C strings for `char *`),
//! arrays (the first elements; `char` arrays as strings), structs and
//! unions one level deep, bit fields. Also the integer view of a scalar,
//! for conditions.

use crate::engine::memory::Memory;
use crate::value::{Field, StrVal, Value};
use crate::vars::module::{DieRef, ModVars};
use crate::vars::types::{size_of, strip, Member, TypeKind, TypeNode};
use std::borrow::Cow;

/// How much of a value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOpts {
    /// Struct nesting shown with fields: 1 shows a struct's fields and its
    /// nested structs as `{...}`.
    pub max_depth: u8,
    /// Array elements shown before `...`.
    pub max_elems: usize,
    /// Bytes of a string shown (strace's `-s`, default 32).
    pub max_str: usize,
}

impl Default for DecodeOpts {
    fn default() -> Self {
        DecodeOpts {
            max_depth: 1,
            max_elems: 16,
            max_str: 32,
        }
    }
}

/// Arrays nest at most this deep whatever `max_depth` says.
const MAX_ARRAY_DEPTH: u8 = 4;

/// What `<optimized out>` parts of a partly known value print as.
pub(crate) fn optimized_out() -> Value {
    Value::sym("<optimized out>")
}

/// Values decoded per top-level value at most (corrupt types can nest a
/// struct in itself).
const MAX_NODES: usize = 100_000;

/// Decodes values of one module's types; `mem` (when given) is used to
/// follow `char *` pointers.
pub(crate) struct Decoder<'a, 'b> {
    m: &'a ModVars,
    mem: Option<&'b mut dyn Memory>,
    opts: DecodeOpts,
    nodes: usize,
}

impl<'a, 'b> Decoder<'a, 'b> {
    /// A decoder over module `m`'s types.
    pub fn new(m: &'a ModVars, mem: Option<&'b mut dyn Memory>, opts: DecodeOpts) -> Self {
        Decoder {
            m,
            mem,
            opts,
            nodes: 0,
        }
    }
}

impl Decoder<'_, '_> {
    /// Decodes `bytes` (of which `known` marks the available ones) as type `ty`.
    pub fn value(
        &mut self,
        ty: Option<DieRef>,
        bytes: &[u8],
        known: Option<&[bool]>,
        depth: u8,
    ) -> Value {
        if let Some(k) = known {
            if k.iter().all(|k| !k) {
                return optimized_out();
            }
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Value::Unknown;
        }
        let (_, n) = strip(self.m, ty);
        match n.kind {
            TypeKind::Base(enc) => base(&n, enc, bytes),
            TypeKind::Enum => {
                let signed = is_signed(self.m, n.target) || n.enumerators.iter().any(|e| e.1 < 0);
                let Some(v) = int(bytes, n.size, signed) else {
                    return Value::Unknown;
                };
                match n.enumerators.iter().find(|e| e.1 == v) {
                    Some((name, _)) => Value::sym_owned(name.clone()),
                    None => Value::Int(v),
                }
            }
            TypeKind::Pointer | TypeKind::Reference => {
                let Some(p) = int(bytes, n.size, false).map(|v| v as u64) else {
                    return Value::Unknown;
                };
                if p != 0 && is_char(self.m, n.target) {
                    if let Some(mem) = self.mem.as_deref_mut() {
                        return read_string(mem, p, self.opts.max_str);
                    }
                }
                Value::Ptr(p)
            }
            TypeKind::Struct | TypeKind::Union => self.aggregate(&n, bytes, known, depth),
            TypeKind::Array => {
                let dims = n.dims.clone();
                self.array(n.target, &dims, bytes, known, depth)
            }
            TypeKind::Function | TypeKind::Typedef | TypeKind::Qualifier | TypeKind::Void => {
                match int(bytes, Some(bytes.len().min(8) as u64), false) {
                    Some(v) if !bytes.is_empty() => Value::Hex(v as u64),
                    _ => Value::Unknown,
                }
            }
        }
    }

    fn aggregate(
        &mut self,
        n: &TypeNode,
        bytes: &[u8],
        known: Option<&[bool]>,
        depth: u8,
    ) -> Value {
        if depth >= self.opts.max_depth {
            return Value::Struct(Vec::new(), true);
        }
        let fields = n
            .members
            .iter()
            .map(|mem| Field {
                name: Cow::Owned(mem.name.clone().unwrap_or_default()),
                value: self.member(mem, bytes, known, depth),
            })
            .collect();
        Value::Struct(fields, false)
    }

    pub(crate) fn member(
        &mut self,
        mem: &Member,
        bytes: &[u8],
        known: Option<&[bool]>,
        depth: u8,
    ) -> Value {
        if let Some((bit, len)) = mem.bits {
            let (first, last) = (bit / 8, bit.saturating_add(len).div_ceil(8));
            if let Some(k) = known.and_then(|k| k.get(first as usize..last as usize)) {
                if k.iter().any(|k| !k) {
                    return optimized_out();
                }
            }
            let Some(v) = bitfield(self.m, mem.ty, bytes, bit, len) else {
                return Value::Unknown;
            };
            let (_, t) = strip(self.m, mem.ty);
            return match t.kind {
                TypeKind::Enum => match t.enumerators.iter().find(|e| e.1 == v) {
                    Some((name, _)) => Value::sym_owned(name.clone()),
                    None => Value::Int(v),
                },
                TypeKind::Base(enc) if signed_encoding(enc) => Value::Int(v),
                TypeKind::Base(gimli::DW_ATE_boolean) => match v {
                    0 => Value::sym("false"),
                    1 => Value::sym("true"),
                    v => Value::UInt(v as u64),
                },
                _ => Value::UInt(v as u64),
            };
        }
        let size = size_of(self.m, mem.ty).unwrap_or(0);
        let start = mem.offset as usize;
        let end = start.saturating_add(size as usize);
        let (Some(b), k) = (bytes.get(start..end), known.map(|k| k.get(start..end))) else {
            return Value::Unknown;
        };
        self.value(mem.ty, b, k.flatten(), depth + 1)
    }

    pub(crate) fn array(
        &mut self,
        elem: Option<DieRef>,
        dims: &[Option<u64>],
        bytes: &[u8],
        known: Option<&[bool]>,
        depth: u8,
    ) -> Value {
        if depth > MAX_ARRAY_DEPTH {
            return Value::Array(Vec::new(), true);
        }
        let elem_size = size_of(self.m, elem).unwrap_or(0);
        let inner: u64 = dims
            .iter()
            .skip(1)
            .try_fold(elem_size, |acc, d| acc.checked_mul((*d)?))
            .unwrap_or(0);
        let count = match dims.first() {
            Some(Some(c)) => *c,
            _ => 0,
        };
        if dims.len() <= 1 && elem_size == 1 && is_char(self.m, elem) {
            let avail = bytes.len().min(count as usize);
            let text = &bytes[..avail];
            let len = text.iter().position(|&b| b == 0).unwrap_or(text.len());
            let shown = len.min(self.opts.max_str);
            return Value::Str(StrVal {
                bytes: text[..shown].to_vec(),
                truncated: shown < len,
                c_string: true,
            });
        }
        if inner == 0 {
            return Value::Array(Vec::new(), count > 0);
        }
        let shown = count.min(self.opts.max_elems as u64);
        let mut items = Vec::new();
        for i in 0..shown {
            let Some(start) = i.checked_mul(inner).map(|s| s as usize) else {
                break;
            };
            let end = start.saturating_add(inner as usize);
            let Some(b) = bytes.get(start..end) else {
                break;
            };
            let k = known.and_then(|k| k.get(start..end));
            let v = if dims.len() > 1 {
                self.array(elem, &dims[1..], b, k, depth + 1)
            } else {
                self.value(elem, b, k, depth + 1)
            };
            items.push(v);
        }
        let more = (items.len() as u64) < count;
        Value::Array(items, more)
    }
}

/// A base type's value.
fn base(n: &TypeNode, enc: gimli::DwAte, bytes: &[u8]) -> Value {
    let size = n.size.unwrap_or(bytes.len() as u64);
    let Some(b) = bytes.get(..size as usize) else {
        return Value::Unknown;
    };
    match enc {
        gimli::DW_ATE_boolean => match int(b, Some(size), false) {
            Some(0) => Value::sym("false"),
            Some(1) => Value::sym("true"),
            Some(v) => Value::UInt(v as u64),
            None => Value::Unknown,
        },
        gimli::DW_ATE_float => float(b, n.name.as_deref()),
        gimli::DW_ATE_complex_float => {
            let half = b.len() / 2;
            match (float(&b[..half], None), float(&b[half..], None)) {
                (Value::Sym(re), Value::Sym(im)) => Value::sym_owned(format!("{re} + {im}i")),
                _ => Value::Unknown,
            }
        }
        _ if size == 16 => {
            let mut w = [0u8; 16];
            w.copy_from_slice(b);
            let u = u128::from_le_bytes(w);
            if signed_encoding(enc) {
                Value::sym_owned((u as i128).to_string())
            } else {
                Value::sym_owned(u.to_string())
            }
        }
        _ => match int(b, Some(size), signed_encoding(enc)) {
            Some(v) if signed_encoding(enc) => Value::Int(v),
            Some(v) => Value::UInt(v as u64),
            None => Value::Unknown,
        },
    }
}

/// A floating-point value printed as gdb does for exact values (`3.5`, `-0.5`).
fn float(b: &[u8], name: Option<&str>) -> Value {
    let text = match b.len() {
        4 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]).to_string(),
        8 => f64::from_le_bytes(b.try_into().unwrap_or([0; 8])).to_string(),
        10 | 12 | 16 if name.is_none_or(|n| n == "long double") => x87(&b[..10]).to_string(),
        _ => return Value::Unknown,
    };
    Value::sym_owned(match text.as_str() {
        "NaN" => "nan".into(),
        "inf" => "inf".into(),
        "-inf" => "-inf".into(),
        _ => text,
    })
}

/// An x87 80-bit extended value, rounded to `f64`.
fn x87(b: &[u8]) -> f64 {
    let mut m = [0u8; 8];
    m.copy_from_slice(&b[..8]);
    let mantissa = u64::from_le_bytes(m);
    let se = u16::from_le_bytes([b[8], b[9]]);
    let sign = if se & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from(se & 0x7fff);
    if exp == 0x7fff {
        return if mantissa << 1 == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if exp == 0 && mantissa == 0 {
        return sign * 0.0;
    }
    sign * (mantissa as f64) * 2f64.powi(exp - 16383 - 63)
}

pub(crate) fn signed_encoding(enc: gimli::DwAte) -> bool {
    matches!(enc, gimli::DW_ATE_signed | gimli::DW_ATE_signed_char)
}

/// Whether integer type `r` (an enum's underlying type) is signed.
fn is_signed(m: &ModVars, r: Option<DieRef>) -> bool {
    matches!(strip(m, r).1.kind, TypeKind::Base(e) if signed_encoding(e))
}

/// Whether `r` is a (qualified) character type: `char *` points to a string.
pub(crate) fn is_char(m: &ModVars, r: Option<DieRef>) -> bool {
    let (_, n) = strip(m, r);
    match n.kind {
        TypeKind::Base(gimli::DW_ATE_signed_char | gimli::DW_ATE_unsigned_char) => {
            n.size == Some(1)
        }
        TypeKind::Base(_) => n.size == Some(1) && n.name.as_deref() == Some("char"),
        _ => false,
    }
}

/// A little-endian integer of `size` bytes (1 to 8), sign-extended if asked.
pub(crate) fn int(b: &[u8], size: Option<u64>, signed: bool) -> Option<i64> {
    let size = size? as usize;
    if size == 0 || size > 8 || b.len() < size {
        return None;
    }
    let mut w = [0u8; 8];
    w[..size].copy_from_slice(&b[..size]);
    let v = u64::from_le_bytes(w);
    if signed && size < 8 {
        let shift = 64 - 8 * size as u32;
        return Some(((v << shift) as i64) >> shift);
    }
    Some(v as i64)
}

/// `len` bits from bit `bit` (bit 0: least significant of byte 0).
fn bits(b: &[u8], bit: u64, len: u64) -> Option<u64> {
    if len == 0 || len > 64 {
        return None;
    }
    let first = (bit / 8) as usize;
    let last = bit.checked_add(len)?.div_ceil(8) as usize;
    let chunk = b.get(first..last)?;
    let mut w = [0u8; 16];
    w[..chunk.len()].copy_from_slice(chunk);
    let v = u128::from_le_bytes(w) >> (bit % 8);
    Some((v & ((1u128 << len) - 1)) as u64)
}

/// The integer in bit field `bit`, `len` of `bytes`, sign-extended when its
/// type (`ty`: an integer or enum) is signed.
pub(crate) fn bitfield(
    m: &ModVars,
    ty: Option<DieRef>,
    bytes: &[u8],
    bit: u64,
    len: u64,
) -> Option<i64> {
    let raw = bits(bytes, bit, len)?;
    let (_, t) = strip(m, ty);
    let signed = match t.kind {
        TypeKind::Base(enc) => signed_encoding(enc),
        TypeKind::Enum => is_signed(m, t.target),
        _ => false,
    };
    if signed && len < 64 && (raw >> (len - 1)) & 1 == 1 {
        return Some((raw | (!0u64 << len)) as i64);
    }
    Some(raw as i64)
}

/// A C string at `addr`, at most `max` bytes shown, in one read.
pub(crate) fn read_string(mem: &mut dyn Memory, addr: u64, max: usize) -> Value {
    let mut buf = vec![0u8; max + 1];
    let n = mem.read(addr, &mut buf);
    if n == 0 {
        return Value::Unreadable(addr);
    }
    buf.truncate(n);
    match buf.iter().position(|&c| c == 0) {
        Some(end) => {
            buf.truncate(end);
            Value::Str(StrVal {
                bytes: buf,
                truncated: false,
                c_string: true,
            })
        }
        None => {
            buf.truncate(max.min(n));
            Value::Str(StrVal {
                bytes: buf,
                truncated: true,
                c_string: true,
            })
        }
    }
}

/// The integer view of a scalar of type `ty` (integers, characters,
/// booleans, enums, pointers; floating point is truncated toward zero).
pub(crate) fn scalar(m: &ModVars, ty: Option<DieRef>, bytes: &[u8]) -> Option<i64> {
    let (_, n) = strip(m, ty);
    match n.kind {
        TypeKind::Base(gimli::DW_ATE_float) => match n.size? {
            4 => Some(f32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as i64),
            8 => Some(f64::from_le_bytes(bytes.get(..8)?.try_into().ok()?) as i64),
            _ => None,
        },
        TypeKind::Base(enc) => int(bytes, n.size, signed_encoding(enc)),
        TypeKind::Enum => int(bytes, n.size, is_signed(m, n.target)),
        TypeKind::Pointer | TypeKind::Reference => int(bytes, n.size, false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_sign_extend_by_size() {
        assert_eq!(int(&[0xff], Some(1), true), Some(-1));
        assert_eq!(int(&[0xff], Some(1), false), Some(255));
        assert_eq!(int(&[0x00, 0x80], Some(2), true), Some(-32768));
        assert_eq!(int(&[1, 2, 3], Some(4), false), None, "short");
        assert_eq!(int(&[1; 16], Some(16), false), None);
        assert_eq!(int(&[], Some(0), false), None);
    }

    #[test]
    fn bit_fields_across_bytes() {
        // flags:3 = 5 at bit 0, level:4 = -3 (0b1101) at bit 3.
        let b = [0b0110_1101u8, 0];
        assert_eq!(bits(&b, 0, 3), Some(5));
        assert_eq!(bits(&b, 3, 4), Some(0b1101));
        assert_eq!(bits(&[0, 0xf0, 0x0f], 12, 8), Some(0xff));
        assert_eq!(bits(&b, 12, 8), None, "past the end");
        assert_eq!(bits(&b, 0, 0), None);
    }

    #[test]
    fn x87_long_double() {
        // 1.5: exponent 16383, mantissa 0xc000...
        let mut b = [0u8; 10];
        b[..8].copy_from_slice(&0xc000_0000_0000_0000u64.to_le_bytes());
        b[8..].copy_from_slice(&16383u16.to_le_bytes());
        assert_eq!(x87(&b), 1.5);
        b[9] |= 0x80;
        assert_eq!(x87(&b), -1.5);
        assert_eq!(x87(&[0; 10]), 0.0);
    }

    #[test]
    fn strings_are_cut_at_the_limit() {
        let mut mem = crate::engine::memory::FakeMemory::default();
        let a = mem.put(b"hello\0");
        let long = mem.put(&[b'x'; 40]);
        assert_eq!(
            read_string(&mut mem, a, 32),
            Value::Str(StrVal {
                bytes: b"hello".to_vec(),
                truncated: false,
                c_string: true
            })
        );
        let Value::Str(s) = read_string(&mut mem, long, 32) else {
            panic!("not a string")
        };
        assert_eq!((s.bytes.len(), s.truncated), (32, true));
        assert_eq!(read_string(&mut mem, 8, 32), Value::Unreadable(8));
    }
}
