//! Where a variable lives at a pc: `DW_AT_location` expressions and
//! location lists (DWARF 4 `.debug_loc`, DWARF 5 `.debug_loclists`, base
//! addresses applied by gimli), `DW_AT_const_value`, and the evaluation of
//! DWARF expressions against a frame's registers and the tracee's memory,
//! down to the variable's bytes.

use crate::engine::memory::Memory;
use crate::symbols::Reader;
pub(crate) use crate::vars::data::Loc;
use crate::vars::module::{DieRef, ModVars};
use crate::vars::{FrameRegs, Unavailable, VarError};
use gimli::{AttributeValue, Expression, Location, Piece};

/// Operations evaluated per expression before giving up (loops).
const MAX_OPS: u32 = 10_000;
/// Entries read from one location list.
const MAX_LIST: usize = 100_000;
/// Largest variable read (bigger ones are cut to this many bytes).
pub(crate) const MAX_VALUE: u64 = 1 << 16;

impl Loc {
    /// The location of DIE `r` (its own `DW_AT_location` or
    /// `DW_AT_const_value`; a constant may come from its abstract origin).
    pub fn of(m: &ModVars, r: DieRef) -> Loc {
        let Some(die) = m.entry(r) else {
            return Loc::None;
        };
        if let Some(v) = die.attr_value(gimli::DW_AT_location) {
            return Loc::from_attr(m, r.unit, v);
        }
        match m.inherited(r, gimli::DW_AT_const_value) {
            Some((_, v)) => Loc::constant(v),
            None => Loc::None,
        }
    }

    /// A location attribute value (`DW_AT_location`, `DW_AT_frame_base`).
    pub fn from_attr(m: &ModVars, unit: usize, v: AttributeValue<Reader>) -> Loc {
        match v {
            AttributeValue::Exprloc(e) => Loc::Expr(e),
            AttributeValue::Block(b) => Loc::Expr(Expression(b)),
            v => {
                let Some(u) = m.units.get(unit) else {
                    return Loc::None;
                };
                let Ok(Some(mut iter)) = m.dwarf.attr_locations(&u.unit, v) else {
                    return Loc::None;
                };
                let mut out = Vec::new();
                while let Ok(Some(entry)) = iter.next() {
                    if entry.range.begin < entry.range.end {
                        out.push((entry.range.begin, entry.range.end, entry.data));
                    }
                    if out.len() >= MAX_LIST {
                        break;
                    }
                }
                Loc::List(out)
            }
        }
    }

    fn constant(v: AttributeValue<Reader>) -> Loc {
        use gimli::Reader as _;
        match v {
            AttributeValue::Block(b) => {
                Loc::Const(b.to_slice().map(|s| s.to_vec()).unwrap_or_default())
            }
            AttributeValue::Sdata(i) => Loc::Const(i.to_le_bytes().to_vec()),
            AttributeValue::String(s) => {
                let mut bytes = s.to_slice().map(|s| s.to_vec()).unwrap_or_default();
                bytes.push(0);
                Loc::Const(bytes)
            }
            v => match v.udata_value() {
                Some(u) => Loc::Const(u.to_le_bytes().to_vec()),
                None => Loc::None,
            },
        }
    }

    /// The expression that applies at file address `vaddr`.
    pub fn at(&self, vaddr: u64) -> Option<&Expression<Reader>> {
        match self {
            Loc::Expr(e) => Some(e),
            Loc::List(list) => list
                .iter()
                .find(|(b, e, _)| *b <= vaddr && vaddr < *e)
                .map(|(_, _, x)| x),
            Loc::None | Loc::Const(_) => None,
        }
    }
}

/// A variable's bytes, and which of them are known (pieces may be missing).
#[derive(Debug, Clone, Default)]
pub(crate) struct Raw {
    pub bytes: Vec<u8>,
    /// `None`: every byte is known.
    pub known: Option<Vec<bool>>,
    /// Where the whole variable lives in memory, when it does.
    pub addr: Option<u64>,
}

/// What an evaluation needs besides the expression.
pub(crate) struct Env<'a> {
    pub m: &'a ModVars,
    pub unit: usize,
    pub frame: &'a FrameRegs,
    pub bias: u64,
    /// The enclosing function's `DW_AT_frame_base`.
    pub frame_base: Option<&'a Loc>,
    /// The frame's callers, for `DW_OP_entry_value` (`None`: not known).
    pub callers: Option<&'a dyn EntryValues>,
}

/// Answers `DW_OP_entry_value`: the value an expression over the frame's
/// registers had when the function was entered, from its caller's call
/// site.
pub(crate) trait EntryValues {
    /// The value of `expr` (one `DW_OP_regN`) at the function's entry;
    /// [`VarError::OptimizedOut`] when the caller does not tell it.
    fn entry_value(&self, expr: &Expression<Reader>, mem: &mut dyn Memory)
        -> Result<u64, VarError>;
}

impl Env<'_> {
    /// The pc the frame's location lists are looked up at (file address).
    pub fn vaddr(&self) -> u64 {
        self.frame.lookup_pc().wrapping_sub(self.bias)
    }

    fn encoding(&self) -> Option<gimli::Encoding> {
        Some(self.m.units.get(self.unit)?.unit.encoding())
    }

    /// Evaluates `expr` to its pieces; `mem` answers `DW_OP_deref`.
    pub fn evaluate(
        &self,
        expr: &Expression<Reader>,
        mem: &mut dyn Memory,
        depth: u8,
    ) -> Result<Vec<Piece<Reader>>, VarError> {
        // An empty location description: the value is optimized out.
        if gimli::Reader::is_empty(&expr.0) {
            return Ok(Vec::new());
        }
        let encoding = self.encoding().ok_or(VarError::Corrupt)?;
        let mut eval = expr.clone().evaluation(encoding);
        eval.set_max_iterations(MAX_OPS);
        let mut state = eval.evaluate().map_err(|_| VarError::Corrupt)?;
        let addr_mask = if encoding.address_size >= 8 {
            u64::MAX
        } else {
            (1u64 << (u32::from(encoding.address_size) * 8)) - 1
        };
        use gimli::EvaluationResult as R;
        loop {
            let next = match state {
                R::Complete => break,
                R::RequiresMemory {
                    address,
                    size,
                    space: None,
                    base_type,
                } => {
                    let mut b = [0u8; 8];
                    let n = usize::from(size.min(8));
                    if mem.read(address, &mut b[..n]) != n {
                        return Err(VarError::Unreadable(address));
                    }
                    let v = self.typed(u64::from_le_bytes(b), base_type)?;
                    eval.resume_with_memory(v)
                }
                R::RequiresRegister {
                    register,
                    base_type,
                } => {
                    let v = self.register(register.0)?;
                    eval.resume_with_register(self.typed(v, base_type)?)
                }
                R::RequiresFrameBase => {
                    let base = self.frame_base(mem, depth)?;
                    eval.resume_with_frame_base(base)
                }
                R::RequiresCallFrameCfa => {
                    let cfa = self
                        .frame
                        .cfa
                        .ok_or(VarError::Unavailable(Unavailable::Cfa))?;
                    eval.resume_with_call_frame_cfa(cfa)
                }
                R::RequiresRelocatedAddress(a) => {
                    eval.resume_with_relocated_address(a.wrapping_add(self.bias) & addr_mask)
                }
                R::RequiresIndexedAddress { index, relocate } => {
                    let u = &self.m.units[self.unit].unit;
                    let a = self
                        .m
                        .dwarf
                        .address(u, index)
                        .map_err(|_| VarError::Corrupt)?;
                    let a = if relocate {
                        a.wrapping_add(self.bias)
                    } else {
                        a
                    };
                    eval.resume_with_indexed_address(a & addr_mask)
                }
                R::RequiresBaseType(off) => {
                    let vt = self.value_type(off)?;
                    eval.resume_with_base_type(vt)
                }
                R::RequiresEntryValue(e) => {
                    let callers = self
                        .callers
                        .ok_or(VarError::Unavailable(Unavailable::EntryValue))?;
                    let v = callers.entry_value(&e, mem)?;
                    eval.resume_with_entry_value(gimli::Value::Generic(v))
                }
                R::RequiresParameterRef(_) => {
                    return Err(VarError::Unavailable(Unavailable::EntryValue))
                }
                R::RequiresTls(_) => return Err(VarError::Unavailable(Unavailable::Tls)),
                _ => return Err(VarError::Unavailable(Unavailable::Unsupported)),
            };
            state = next.map_err(|_| VarError::Corrupt)?;
        }
        Ok(eval.result())
    }

    fn register(&self, n: u16) -> Result<u64, VarError> {
        self.frame
            .regs
            .get(n)
            .ok_or(VarError::Unavailable(Unavailable::Register(n)))
    }

    /// A stack value of the base type at unit offset `off` (0: generic).
    fn typed(&self, v: u64, off: gimli::UnitOffset<usize>) -> Result<gimli::Value, VarError> {
        if off.0 == 0 {
            return Ok(gimli::Value::Generic(v));
        }
        gimli::Value::from_u64(self.value_type(off)?, v).map_err(|_| VarError::Corrupt)
    }

    fn value_type(&self, off: gimli::UnitOffset<usize>) -> Result<gimli::ValueType, VarError> {
        if off.0 == 0 {
            return Ok(gimli::ValueType::Generic);
        }
        let die = self
            .m
            .entry(DieRef {
                unit: self.unit,
                offset: off.0,
            })
            .ok_or(VarError::Corrupt)?;
        let enc = match die.attr_value(gimli::DW_AT_encoding) {
            Some(AttributeValue::Encoding(e)) => e,
            _ => return Err(VarError::Corrupt),
        };
        let size = die
            .attr(gimli::DW_AT_byte_size)
            .and_then(|a| a.udata_value())
            .ok_or(VarError::Corrupt)?;
        gimli::ValueType::from_encoding(enc, size)
            .ok_or(VarError::Unavailable(Unavailable::Unsupported))
    }

    /// `DW_AT_frame_base`: a register's value or an address.
    fn frame_base(&self, mem: &mut dyn Memory, depth: u8) -> Result<u64, VarError> {
        if depth > 0 {
            return Err(VarError::Corrupt);
        }
        let loc = self.frame_base.ok_or(VarError::Corrupt)?;
        let expr = loc.at(self.vaddr()).ok_or(VarError::OptimizedOut)?;
        let pieces = self.evaluate(expr, mem, depth + 1)?;
        match pieces.first().map(|p| p.location.clone()) {
            Some(Location::Register { register }) => self.register(register.0),
            Some(Location::Address { address }) => Ok(address),
            Some(Location::Value { value }) => {
                value.to_u64(u64::MAX).map_err(|_| VarError::Corrupt)
            }
            _ => Err(VarError::Corrupt),
        }
    }

    /// Assembles `size` bytes from `pieces`: one memory read per piece.
    pub fn materialize(
        &self,
        pieces: &[Piece<Reader>],
        size: u64,
        mem: &mut dyn Memory,
    ) -> Result<Raw, VarError> {
        let size = size.min(MAX_VALUE) as usize;
        let mut raw = Raw {
            bytes: vec![0; size],
            known: None,
            addr: None,
        };
        if let [one] = pieces {
            if one.size_in_bits.is_none() {
                if let Location::Address { address } = one.location {
                    raw.addr = Some(address);
                }
                self.piece_bytes(&one.location, &mut raw.bytes, mem)?;
                return Ok(raw);
            }
        }
        let mut known = vec![false; size];
        let mut at = 0usize;
        for p in pieces {
            let bits = p.size_in_bits.ok_or(VarError::Corrupt)?;
            if bits % 8 != 0 || p.bit_offset.unwrap_or(0) != 0 {
                return Err(VarError::Unavailable(Unavailable::Unsupported));
            }
            let len = (bits / 8) as usize;
            let end = at.saturating_add(len).min(size);
            if at >= end {
                break;
            }
            match self.piece_bytes(&p.location, &mut raw.bytes[at..end], mem) {
                Ok(()) => known[at..end].iter_mut().for_each(|k| *k = true),
                Err(VarError::OptimizedOut) => {}
                Err(e) => return Err(e),
            }
            at = end;
        }
        if known.iter().all(|k| !k) {
            return Err(VarError::OptimizedOut);
        }
        if known.iter().any(|k| !k) {
            raw.known = Some(known);
        }
        Ok(raw)
    }

    /// Fills `out` from one piece's location.
    fn piece_bytes(
        &self,
        loc: &Location<Reader>,
        out: &mut [u8],
        mem: &mut dyn Memory,
    ) -> Result<(), VarError> {
        let word = |v: u64, out: &mut [u8]| {
            let b = v.to_le_bytes();
            let n = out.len().min(8);
            out[..n].copy_from_slice(&b[..n]);
        };
        match loc {
            Location::Empty => Err(VarError::OptimizedOut),
            Location::Address { address } => {
                if mem.read(*address, out) == out.len() {
                    Ok(())
                } else {
                    Err(VarError::Unreadable(*address))
                }
            }
            Location::Register { register } => {
                if out.len() > 8 {
                    return Err(VarError::Unavailable(Unavailable::Register(register.0)));
                }
                word(self.register(register.0)?, out);
                Ok(())
            }
            Location::Value { value } => {
                let v = match *value {
                    gimli::Value::F32(f) => u64::from(f.to_bits()),
                    gimli::Value::F64(f) => f.to_bits(),
                    v => v.to_u64(u64::MAX).map_err(|_| VarError::Corrupt)?,
                };
                word(v, out);
                Ok(())
            }
            Location::Bytes { value } => {
                use gimli::Reader as _;
                let b = value.to_slice().map_err(|_| VarError::Corrupt)?;
                let n = out.len().min(b.len());
                out[..n].copy_from_slice(&b[..n]);
                Ok(())
            }
            Location::ImplicitPointer { .. } => {
                Err(VarError::Unavailable(Unavailable::ImplicitPointer))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::unwind::{InitialRegs, X86_64};
    use std::sync::OnceLock;

    /// The test binary's own DWARF: units to evaluate expressions in.
    fn own() -> &'static ModVars {
        static M: OnceLock<ModVars> = OnceLock::new();
        M.get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            let image = crate::symbols::ElfImage::open(&exe).unwrap();
            let dwarf = crate::symbols::DwarfInfo::load(&image, &mut Vec::new())
                .unwrap()
                .expect("the test binary has DWARF");
            ModVars::new(dwarf.gimli().clone())
        })
    }

    fn expr(bytes: &[u8]) -> Expression<Reader> {
        Expression(Reader::new(
            crate::symbols::Bytes::from(bytes.to_vec()),
            gimli::RunTimeEndian::Little,
        ))
    }

    /// A frame with rax = 0x1122334455667788, rsp = `sp`, CFA `sp + 16`.
    fn frame(sp: u64) -> FrameRegs {
        let mut regs = InitialRegs::empty(&X86_64);
        regs.pc = 0x1000;
        regs.set(0, Some(0x1122_3344_5566_7788));
        regs.set(X86_64.sp, Some(sp));
        FrameRegs::new(regs, Some(sp + 16))
    }

    fn eval(
        bytes: &[u8],
        size: u64,
        frame: &FrameRegs,
        mem: &mut FakeMemory,
    ) -> Result<Raw, VarError> {
        let base = Loc::Expr(expr(&[0x9c])); // DW_OP_call_frame_cfa
        let env = Env {
            m: own(),
            unit: 0,
            frame,
            bias: 0x5000,
            frame_base: Some(&base),
            callers: None,
        };
        let pieces = env.evaluate(&expr(bytes), mem, 0)?;
        env.materialize(&pieces, size, mem)
    }

    #[test]
    fn registers_memory_and_values() {
        let mut mem = FakeMemory::default();
        let sp = mem.put(&[
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
        ]);
        let f = frame(sp);
        // DW_OP_reg0: the low bytes of rax.
        assert_eq!(
            eval(&[0x50], 4, &f, &mut mem).unwrap().bytes,
            [0x88, 0x77, 0x66, 0x55]
        );
        // DW_OP_breg7 +2: memory at rsp + 2, read once.
        let raw = eval(&[0x77, 2], 4, &f, &mut mem).unwrap();
        assert_eq!((raw.bytes, raw.addr), (vec![3, 4, 5, 6], Some(sp + 2)));
        // DW_OP_fbreg -14 over DW_OP_call_frame_cfa (sp + 16).
        assert_eq!(eval(&[0x91, 0x72], 2, &f, &mut mem).unwrap().bytes, [3, 4]);
        // DW_OP_lit5; DW_OP_stack_value.
        assert_eq!(
            eval(&[0x35, 0x9f], 4, &f, &mut mem).unwrap().bytes,
            [5, 0, 0, 0]
        );
        // DW_OP_implicit_value 3 bytes.
        assert_eq!(
            eval(&[0x9e, 3, 9, 8, 7], 3, &f, &mut mem).unwrap().bytes,
            [9, 8, 7]
        );
        // DW_OP_addr 0x10: plus the load bias.
        let mut addr = vec![0x03];
        addr.extend_from_slice(&0x10u64.to_le_bytes());
        addr.push(0x9f);
        assert_eq!(
            eval(&addr, 8, &f, &mut mem).unwrap().bytes,
            0x5010u64.to_le_bytes()
        );
        // Memory that is not there.
        assert_eq!(
            eval(&[0x77, 0x7f], 8, &f, &mut mem).unwrap_err(),
            VarError::Unreadable(sp - 1)
        );
    }

    #[test]
    fn pieces_and_missing_pieces() {
        let mut mem = FakeMemory::default();
        let sp = mem.put(&[0xaa; 16]);
        let f = frame(sp);
        // rax's low 4 bytes, then 4 optimized-out bytes, then 2 from memory.
        let raw = eval(
            &[0x50, 0x93, 4, 0x93, 4, 0x77, 0, 0x93, 2],
            10,
            &f,
            &mut mem,
        )
        .unwrap();
        assert_eq!(raw.bytes, [0x88, 0x77, 0x66, 0x55, 0, 0, 0, 0, 0xaa, 0xaa]);
        let known = raw.known.unwrap();
        assert_eq!(
            known,
            [true, true, true, true, false, false, false, false, true, true]
        );
        // Every piece missing: optimized out.
        assert_eq!(
            eval(&[0x93, 4, 0x93, 4], 8, &f, &mut mem).unwrap_err(),
            VarError::OptimizedOut
        );
        // An empty expression: optimized out.
        assert_eq!(
            eval(&[], 4, &f, &mut mem).unwrap_err(),
            VarError::OptimizedOut
        );
        // Bit pieces are not supported (yet), and say so.
        assert_eq!(
            eval(&[0x50, 0x9d, 3, 0], 4, &f, &mut mem).unwrap_err(),
            VarError::Unavailable(Unavailable::Unsupported)
        );
    }

    #[test]
    fn what_cannot_be_known_is_reported() {
        let mut mem = FakeMemory::default();
        let f = frame(mem.put(&[0; 16]));
        // DW_OP_entry_value(DW_OP_reg5); DW_OP_stack_value.
        assert_eq!(
            eval(&[0xa3, 1, 0x55, 0x9f], 4, &f, &mut mem).unwrap_err(),
            VarError::Unavailable(Unavailable::EntryValue)
        );
        // DW_OP_regx 40: a register the frame does not have.
        assert_eq!(
            eval(&[0x90, 40], 4, &f, &mut mem).unwrap_err(),
            VarError::Unavailable(Unavailable::Register(40))
        );
        // No CFA.
        let mut no_cfa = f.clone();
        no_cfa.cfa = None;
        assert_eq!(
            eval(&[0x91, 0], 4, &no_cfa, &mut mem).unwrap_err(),
            VarError::Unavailable(Unavailable::Cfa)
        );
        // A bigger value than a register holds.
        assert_eq!(
            eval(&[0x50], 16, &f, &mut mem).unwrap_err(),
            VarError::Unavailable(Unavailable::Register(0))
        );
        // Garbage and endless loops (DW_OP_skip -3) are corrupt, not hangs.
        assert_eq!(
            eval(&[0xff, 0xff], 4, &f, &mut mem).unwrap_err(),
            VarError::Corrupt
        );
        assert_eq!(
            eval(&[0x2f, 0xfd, 0xff], 4, &f, &mut mem).unwrap_err(),
            VarError::Corrupt
        );
    }

    #[test]
    fn location_lists_pick_the_range_of_the_pc() {
        let list = Loc::List(vec![
            (0x100, 0x110, expr(&[0x50])),
            (0x110, 0x120, expr(&[0x51])),
        ]);
        let first = |v| {
            list.at(v)
                .map(|e| gimli::Reader::to_slice(&e.0).unwrap()[0])
        };
        assert_eq!(first(0xff), None, "before");
        assert_eq!(first(0x100), Some(0x50));
        assert_eq!(first(0x10f), Some(0x50));
        assert_eq!(first(0x110), Some(0x51), "end is exclusive");
        assert_eq!(first(0x120), None, "after: optimized out");
        assert!(Loc::None.at(0x100).is_none());
    }
}
