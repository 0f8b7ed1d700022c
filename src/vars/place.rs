//! Places: a resolved variable path (see [`crate::vars::path`]) followed
//! through the DWARF types to a tracee address, or to bytes already read
//! (a variable in registers), plus a bit range for bit fields.

use crate::engine::memory::Memory;
use crate::value::Value;
use crate::vars::decode::{self, DecodeOpts, Decoder};
use crate::vars::location::{Loc, Raw};
use crate::vars::module::{DieRef, ModVars, Named};
use crate::vars::path::{PathError, PathStep};
use crate::vars::types::{size_of, strip, Member, TypeKind, TypeNode};
use crate::vars::VarError;

/// Anonymous struct/union members searched this deep for a field name.
const MAX_ANON_DEPTH: usize = 8;

/// Where a value is.
#[derive(Debug, Clone)]
enum Where {
    Mem(u64),
    Bytes(Raw),
}

/// A resolved path: the value's location and type.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    ty: Option<DieRef>,
    /// Dimensions of an array type already indexed (`m[1]` of `int m[2][3]`).
    skip: usize,
    at: Where,
    /// A bit field: `(bit offset from the place's first byte, bit size)`.
    bits: Option<(u64, u64)>,
}

impl Place {
    /// The value's type (`None`: unknown, `void`).
    pub fn ty(&self) -> Option<DieRef> {
        self.ty
    }

    /// A value at tracee address `addr`.
    pub fn at(ty: Option<DieRef>, addr: u64) -> Place {
        Place {
            ty,
            skip: 0,
            at: Where::Mem(addr),
            bits: None,
        }
    }

    /// A value already read (a variable's bytes): paths into it need no
    /// second read.
    pub fn from_raw(ty: Option<DieRef>, raw: Raw) -> Place {
        Place {
            ty,
            skip: 0,
            at: Where::Bytes(raw),
            bits: None,
        }
    }

    /// Follows `steps`; pointers are read through `mem`.
    pub fn walk(
        mut self,
        m: &ModVars,
        steps: &[PathStep],
        mut mem: Option<&mut dyn Memory>,
    ) -> Result<Place, PathError> {
        for step in steps {
            if self.bits.is_some() {
                return Err(PathError::NotStruct);
            }
            self = match step {
                PathStep::Field(name) => self.field(m, name)?,
                PathStep::Arrow(name) => {
                    let (_, n) = strip(m, self.ty);
                    if self.skip > 0 || !matches!(n.kind, TypeKind::Pointer | TypeKind::Reference) {
                        return Err(PathError::NotPointer);
                    }
                    let p = self.pointer(m, &n, reborrow(&mut mem))?;
                    Place::at(n.target, p).field(m, name)?
                }
                PathStep::Index(i) => self.index(m, *i, reborrow(&mut mem))?,
            };
        }
        Ok(self)
    }

    fn offset(self, ty: Option<DieRef>, by: u64, len: u64) -> Result<Place, PathError> {
        let at = match self.at {
            Where::Mem(a) => Where::Mem(a.wrapping_add(by)),
            Where::Bytes(raw) => {
                let (start, end) = (by as usize, by.saturating_add(len) as usize);
                let bytes = raw
                    .bytes
                    .get(start..end)
                    .ok_or(PathError::Var(VarError::Corrupt))?;
                let known = raw
                    .known
                    .as_ref()
                    .and_then(|k| k.get(start..end))
                    .map(<[bool]>::to_vec);
                Where::Bytes(Raw {
                    bytes: bytes.to_vec(),
                    known,
                    addr: None,
                })
            }
        };
        Ok(Place {
            ty,
            skip: 0,
            at,
            bits: None,
        })
    }

    fn field(self, m: &ModVars, name: &str) -> Result<Place, PathError> {
        let (_, n) = strip(m, self.ty);
        if self.skip > 0 || !matches!(n.kind, TypeKind::Struct | TypeKind::Union) {
            return Err(PathError::NotStruct);
        }
        let (base, member) =
            find_member(m, &n, name, 0).ok_or_else(|| PathError::NoMember(name.to_string()))?;
        if let Some((bit, len)) = member.bits {
            let bit = base
                .checked_mul(8)
                .and_then(|b| b.checked_add(bit))
                .ok_or(PathError::Var(VarError::Corrupt))?;
            let bytes = (bit % 8).saturating_add(len).div_ceil(8);
            let mut p = self.offset(member.ty, bit / 8, bytes)?;
            p.bits = Some((bit % 8, len));
            return Ok(p);
        }
        let size = size_of(m, member.ty).unwrap_or(0);
        self.offset(member.ty, base.wrapping_add(member.offset), size)
    }

    fn index(self, m: &ModVars, i: u64, mem: Option<&mut dyn Memory>) -> Result<Place, PathError> {
        let (_, n) = strip(m, self.ty);
        match n.kind {
            TypeKind::Array => {
                let dims = &n.dims;
                if let Some(Some(len)) = dims.get(self.skip) {
                    if i >= *len {
                        return Err(PathError::OutOfRange(*len));
                    }
                }
                let elem = size_of(m, n.target).ok_or(PathError::Unsupported)?;
                let stride = dims
                    .iter()
                    .skip(self.skip + 1)
                    .try_fold(elem, |acc, d| acc.checked_mul((*d)?))
                    .ok_or(PathError::Unsupported)?;
                let skip = self.skip + 1;
                let whole = self.ty;
                let by = i.checked_mul(stride).ok_or(PathError::Unsupported)?;
                if skip < dims.len() {
                    let mut p = self.offset(whole, by, stride)?;
                    p.skip = skip;
                    Ok(p)
                } else {
                    self.offset(n.target, by, stride)
                }
            }
            TypeKind::Pointer if self.skip == 0 => {
                let p = self.pointer(m, &n, mem)?;
                let elem = size_of(m, n.target).ok_or(PathError::Unsupported)?;
                let by = i.checked_mul(elem).ok_or(PathError::Unsupported)?;
                Ok(Place::at(n.target, p.wrapping_add(by)))
            }
            _ => Err(PathError::NotIndexable),
        }
    }

    /// The pointer value this place holds.
    fn pointer(
        &self,
        m: &ModVars,
        n: &TypeNode,
        mem: Option<&mut dyn Memory>,
    ) -> Result<u64, PathError> {
        let size = n.size.unwrap_or(8);
        let raw = match &self.at {
            Where::Mem(_) => self.read(m, mem.ok_or(PathError::NeedsMemory)?)?,
            Where::Bytes(raw) => raw.clone(),
        };
        decode::int(&raw.bytes, Some(size), false)
            .map(|v| v as u64)
            .ok_or(PathError::Var(VarError::Corrupt))
    }

    /// Size in bytes of the value at this place.
    fn size(&self, m: &ModVars) -> u64 {
        if let Some((bit, len)) = self.bits {
            return bit.saturating_add(len).div_ceil(8);
        }
        let (_, n) = strip(m, self.ty);
        if self.skip > 0 {
            let elem = size_of(m, n.target).unwrap_or(0);
            return n
                .dims
                .iter()
                .skip(self.skip)
                .try_fold(elem, |a, d| a.checked_mul((*d)?))
                .unwrap_or(0);
        }
        size_of(m, self.ty).unwrap_or(0)
    }

    fn read(&self, m: &ModVars, mem: &mut dyn Memory) -> Result<Raw, PathError> {
        match &self.at {
            Where::Bytes(raw) => Ok(raw.clone()),
            Where::Mem(a) => {
                let size = self.size(m).min(crate::vars::location::MAX_VALUE) as usize;
                let mut bytes = vec![0; size];
                if mem.read(*a, &mut bytes) != size {
                    return Err(PathError::Var(VarError::Unreadable(*a)));
                }
                Ok(Raw {
                    bytes,
                    known: None,
                    addr: Some(*a),
                })
            }
        }
    }

    /// The bytes of the value (one read if it is in memory).
    pub fn bytes(&self, m: &ModVars, mem: &mut dyn Memory) -> Result<Raw, PathError> {
        self.read(m, mem)
    }

    /// The value, decoded by type.
    pub fn decode(&self, m: &ModVars, raw: &Raw, mem: &mut dyn Memory, opts: DecodeOpts) -> Value {
        let mut d = Decoder::new(m, Some(mem), opts);
        let known = raw.known.as_deref();
        if let Some((bit, len)) = self.bits {
            let member = Member {
                name: None,
                ty: self.ty,
                offset: 0,
                bits: Some((bit, len)),
            };
            return d.member(&member, &raw.bytes, known, 0);
        }
        if self.skip > 0 {
            let (_, n) = strip(m, self.ty);
            return d.array(n.target, &n.dims[self.skip..], &raw.bytes, known, 0);
        }
        d.value(self.ty, &raw.bytes, known, 0)
    }

    /// The integer view of a scalar value.
    pub fn scalar(&self, m: &ModVars, raw: &Raw) -> Option<i64> {
        if raw.known.is_some() || self.skip > 0 {
            return None;
        }
        match self.bits {
            Some((bit, len)) => decode::bitfield(m, self.ty, &raw.bytes, bit, len),
            None => decode::scalar(m, self.ty, &raw.bytes),
        }
    }
}

/// A shorter-lived copy of an optional memory reference.
fn reborrow<'s>(mem: &'s mut Option<&mut dyn Memory>) -> Option<&'s mut dyn Memory> {
    match mem {
        Some(m) => Some(&mut **m),
        None => None,
    }
}

/// Member `name` of struct/union `n`, looking into anonymous members:
/// the anonymous members' offset and the member.
fn find_member(m: &ModVars, n: &TypeNode, name: &str, depth: usize) -> Option<(u64, Member)> {
    if let Some(mem) = n.members.iter().find(|x| x.name.as_deref() == Some(name)) {
        return Some((0, mem.clone()));
    }
    if depth >= MAX_ANON_DEPTH {
        return None;
    }
    n.members.iter().filter(|x| x.name.is_none()).find_map(|x| {
        let (_, inner) = strip(m, x.ty);
        let (off, found) = find_member(m, &inner, name, depth + 1)?;
        Some((x.offset.wrapping_add(off), found))
    })
}

/// A global named `name` of module `m`, followed through `steps` without
/// reading memory: `(runtime address, size, type)`, or `None` when the
/// module has no such global.
#[allow(clippy::type_complexity)]
pub(crate) fn global(
    m: &ModVars,
    bias: u64,
    name: &str,
    steps: &[PathStep],
) -> Result<Option<(u64, u64, Option<DieRef>)>, PathError> {
    let mut error = None;
    for named in m.named(name) {
        let Named::Var(r) = named else { continue };
        match static_address(m, *r) {
            Ok(vaddr) => {
                let place =
                    Place::at(m.type_of(*r), vaddr.wrapping_add(bias)).walk(m, steps, None)?;
                if place.bits.is_some() {
                    return Err(PathError::BitField);
                }
                if place.skip > 0 {
                    return Err(PathError::Unsupported);
                }
                let Where::Mem(addr) = place.at else {
                    return Err(PathError::NotInMemory);
                };
                return Ok(Some((addr, place.size(m), place.ty)));
            }
            Err(e) => error = Some(e),
        }
    }
    error.map_or(Ok(None), Err)
}

/// The file address of a global: its location must be `DW_OP_addr` or
/// `DW_OP_addrx` alone.
fn static_address(m: &ModVars, r: DieRef) -> Result<u64, PathError> {
    let unit = m.unit(r).ok_or(PathError::Var(VarError::Corrupt))?;
    let expr = match Loc::of(m, r) {
        Loc::Expr(e) => e,
        Loc::Const(_) => return Err(PathError::NotInMemory),
        _ => return Err(PathError::Var(VarError::OptimizedOut)),
    };
    let mut ops = expr.operations(unit.encoding());
    let addr = match ops.next() {
        Ok(Some(gimli::Operation::Address { address })) => address,
        Ok(Some(gimli::Operation::AddressIndex { index })) => m
            .dwarf
            .address(unit, index)
            .map_err(|_| PathError::Var(VarError::Corrupt))?,
        _ => {
            return Err(PathError::Var(VarError::Unavailable(
                crate::vars::Unavailable::Unsupported,
            )))
        }
    };
    match ops.next() {
        Ok(None) => Ok(addr),
        Ok(Some(gimli::Operation::TLS)) => Err(PathError::Var(VarError::Unavailable(
            crate::vars::Unavailable::Tls,
        ))),
        _ => Err(PathError::Var(VarError::Unavailable(
            crate::vars::Unavailable::Unsupported,
        ))),
    }
}
