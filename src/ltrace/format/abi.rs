//! x86-64 SysV calling convention for library-call arguments: sizes,
//! alignment and struct layout of ltrace.conf types (LP64), eightbyte
//! classification of small structs, and the fetch of each argument from
//! integer/SSE registers or stack slots through [`ArgSource`]. Part of
//! `format.rs` (kept apart for size).

use super::{ArgSource, RetVals};
use crate::ltrace::proto::{Expr, Type};

/// An argument's bytes: inline up to two eightbytes, else on the heap.
#[derive(Debug, Clone, Default)]
pub(super) struct Bytes {
    small: [u8; 16],
    len: usize,
    big: Option<Vec<u8>>,
}

impl Bytes {
    pub(super) fn word(w: u64) -> Bytes {
        let mut b = Bytes::default();
        b.push(w);
        b
    }
    fn push(&mut self, w: u64) {
        let wb = w.to_le_bytes();
        match &mut self.big {
            Some(v) => v.extend_from_slice(&wb),
            None if self.len + 8 <= self.small.len() => {
                self.small[self.len..self.len + 8].copy_from_slice(&wb);
                self.len += 8;
            }
            None => {
                let mut v = self.small[..self.len].to_vec();
                v.extend_from_slice(&wb);
                self.big = Some(v);
            }
        }
    }
    pub(super) fn as_slice(&self) -> &[u8] {
        self.big.as_deref().unwrap_or(&self.small[..self.len])
    }
}

const INT_REGS: usize = 6;
const SSE_REGS: usize = 8;

/// x86-64 SysV argument allocation: integer and SSE registers, then stack.
pub(super) struct Fetch {
    pub(super) ni: usize,
    pub(super) nf: usize,
    pub(super) stack: usize,
}

impl Fetch {
    pub(super) fn int(&mut self, src: &mut dyn ArgSource) -> u64 {
        if self.ni < INT_REGS {
            self.ni += 1;
            src.int_arg(self.ni - 1)
        } else {
            self.stack += 1;
            src.int_arg(INT_REGS + self.stack - 1)
        }
    }
    fn sse(&mut self, src: &mut dyn ArgSource) -> u64 {
        if self.nf < SSE_REGS {
            self.nf += 1;
            src.float_arg(self.nf - 1).to_bits()
        } else {
            self.stack += 1;
            src.int_arg(INT_REGS + self.stack - 1)
        }
    }
    pub(super) fn arg(&mut self, src: &mut dyn ArgSource, ty: &Type) -> Bytes {
        let ty = strip(ty);
        if let Some(classes) = struct_classes(ty) {
            let n_sse = classes.iter().filter(|&&s| s).count();
            let n_int = classes.len() - n_sse;
            let in_regs =
                classes.len() <= 2 && self.ni + n_int <= INT_REGS && self.nf + n_sse <= SSE_REGS;
            let mut bytes = Bytes::default();
            for &is_sse in &classes {
                let w = if !in_regs {
                    self.stack += 1;
                    src.int_arg(INT_REGS + self.stack - 1)
                } else if is_sse {
                    self.sse(src)
                } else {
                    self.int(src)
                };
                bytes.push(w);
            }
            return bytes;
        }
        let w = if is_float(ty) {
            self.sse(src)
        } else {
            self.int(src)
        };
        Bytes::word(w)
    }
}

/// The type under any lenses (what decides the register class).
pub(super) fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Lens(_, t) => strip(t),
        t => t,
    }
}

pub(super) fn is_float(ty: &Type) -> bool {
    matches!(strip(ty), Type::Float | Type::Double)
}

pub(super) fn struct_fields(ty: &Type) -> Option<&[Type]> {
    match strip(ty) {
        Type::Struct(f) => Some(f),
        Type::Named(ns) => Some(ns.fields.get().map_or(&[][..], |v| v)),
        _ => None,
    }
}

/// For a struct: one entry per eightbyte, `true` for SSE class.
pub(super) fn struct_classes(ty: &Type) -> Option<Vec<bool>> {
    struct_fields(ty)?;
    let (size, _) = size_align(ty);
    let n = size.div_ceil(8).max(1);
    if size > 16 {
        return Some(vec![false; n]);
    }
    let mut scalars = Vec::new();
    scalars_of(ty, 0, &mut scalars);
    Some(
        (0..n)
            .map(|k| {
                scalars
                    .iter()
                    .filter(|(off, _)| off / 8 == k)
                    .all(|&(_, f)| f)
            })
            .collect(),
    )
}

/// Flattened scalar fields: (offset, is floating point).
pub(super) fn scalars_of(ty: &Type, base: usize, out: &mut Vec<(usize, bool)>) {
    if let Some(fields) = struct_fields(ty) {
        for (f, off) in fields.iter().zip(layout(fields).0) {
            scalars_of(f, base + off, out);
        }
    } else if let Type::Array(el, Expr::Num(n)) = strip(ty) {
        let (es, _) = size_align(el);
        for i in 0..*n as usize {
            scalars_of(el, base + i * es, out);
        }
    } else {
        out.push((base, is_float(ty)));
    }
}

/// Size and alignment on x86-64 (LP64).
pub(super) fn size_align(ty: &Type) -> (usize, usize) {
    match ty {
        Type::Void => (0, 1),
        Type::Char => (1, 1),
        Type::Short | Type::UShort => (2, 2),
        Type::Int | Type::UInt | Type::Float => (4, 4),
        Type::Long | Type::ULong | Type::Double | Type::Pointer(_) | Type::Format => (8, 8),
        Type::Array(el, Expr::Num(n)) => {
            let (s, a) = size_align(el);
            (s * *n as usize, a)
        }
        Type::Array(el, _) => (0, size_align(el).1),
        Type::Lens(_, t) => size_align(t),
        Type::Struct(_) | Type::Named(_) => {
            let fields = struct_fields(ty).unwrap_or(&[]);
            let (_, size, align) = layout(fields);
            (size, align)
        }
    }
}

/// Field offsets, total size and alignment of a C struct.
pub(super) fn layout(fields: &[Type]) -> (Vec<usize>, usize, usize) {
    let (mut off, mut align, mut offs) = (0usize, 1usize, Vec::new());
    for f in fields {
        let (s, a) = size_align(f);
        off = off.div_ceil(a) * a;
        offs.push(off);
        off += s;
        align = align.max(a);
    }
    (offs, off.div_ceil(align) * align, align)
}

pub(super) fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = b.len().min(8);
    w[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(w)
}

/// Integer value of a scalar (chars unsigned, as ltrace reads them).
pub(super) fn int_of(ty: &Type, b: &[u8]) -> Option<i64> {
    let w = word(b);
    Some(match ty {
        Type::Char => w as u8 as i64,
        Type::Short => w as i16 as i64,
        Type::UShort => w as u16 as i64,
        Type::Int => w as i32 as i64,
        Type::UInt => w as u32 as i64,
        Type::Long | Type::ULong | Type::Pointer(_) | Type::Void | Type::Format => w as i64,
        Type::Lens(_, t) => return int_of(t, b),
        _ => return None,
    })
}

/// The bytes of a return value of type `ty`.
pub(super) fn ret_bytes(ty: &Type, ret: RetVals, src: &mut dyn ArgSource) -> Vec<u8> {
    let fbits = ret.float.to_bits().to_le_bytes();
    if let Some(classes) = struct_classes(ty) {
        let (size, _) = size_align(ty);
        if size > 16 {
            // MEMORY class: the integer register holds the result's address.
            let mut b = vec![0u8; size];
            let n = src.read(ret.int, &mut b);
            b.truncate(n);
            return b;
        }
        let mut b = Vec::new();
        // Each eightbyte takes the next register of its class: rax then
        // rdx, xmm0 then xmm1.
        let ints = [ret.int, ret.second.0];
        let sses = [ret.float, ret.second.1];
        let (mut n_int, mut n_sse) = (0, 0);
        for is_sse in classes {
            let w = if is_sse {
                n_sse += 1;
                sses.get(n_sse - 1).map_or(0, |f| f.to_bits())
            } else {
                n_int += 1;
                ints.get(n_int - 1).copied().unwrap_or(0)
            };
            b.extend_from_slice(&w.to_le_bytes());
        }
        return b;
    }
    if is_float(ty) {
        fbits.to_vec()
    } else {
        ret.int.to_le_bytes().to_vec()
    }
}
