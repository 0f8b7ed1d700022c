//! aarch64 instruction analysis for software breakpoints, with capstone:
//! the same questions `insn_x86` answers with iced-x86 (which decodes only
//! x86). Every instruction is 4 bytes; what cannot run out of line
//! unchanged is what names the pc: branches (`b`, `bl`, `b.cond`, `cbz`,
//! `cbnz`, `tbz`, `tbnz`, and the register forms `br`, `blr`, `ret`, which
//! are emulated so a call does not record the slot as its return address),
//! `adr`/`adrp` and literal loads. Those are emulated on the register words
//! of `struct user_pt_regs` ([`crate::aarch64`]); everything else runs out
//! of line.
//!
//! Scope: pure functions over instruction bytes and register words, tested
//! on hand-assembled words. Non-goals: literal loads into vector registers
//! (refused: their registers are not in `user_pt_regs`), pointer
//! authentication's combined forms (`braa`, `retaa`, ... are refused).

use crate::insn::{EmuFault, Flow, InsnError, Memory, Summary};
use capstone::arch::arm64::{ArchMode, Arm64CC, Arm64Insn, Arm64OperandType};
use capstone::arch::{BuildsCapstone, DetailsArchInsn};
use capstone::{Capstone, InsnGroupType, RegId};

/// Word index of the pc in `user_pt_regs`.
const PC: usize = 32;
/// Word index of `pstate` (NZCV in bits 31..28).
const PSTATE: usize = 33;
/// Word index of `sp`.
const SP: usize = 31;
/// The link register, x30.
const LR: usize = 30;

/// A general register operand: `None` is the zero register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gpr {
    /// Word index (0..=30, or [`SP`] for `sp`), `None` for `xzr`/`wzr`.
    pub index: Option<usize>,
    /// 64-bit (`x`) rather than 32-bit (`w`).
    pub wide: bool,
}

/// The emulated effect of a pc-dependent instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emu {
    /// `b target`.
    B(u64),
    /// `bl target`.
    Bl(u64),
    /// `b.cond target` (capstone's condition code, 1 = eq .. 16 = nv).
    BCond(u8, u64),
    /// `cbz`/`cbnz reg, target`.
    Cbz {
        reg: Gpr,
        nonzero: bool,
        target: u64,
    },
    /// `tbz`/`tbnz reg, #bit, target`.
    Tbz {
        reg: Gpr,
        bit: u8,
        nonzero: bool,
        target: u64,
    },
    /// `br reg`.
    Br(Gpr),
    /// `blr reg`.
    Blr(Gpr),
    /// `ret reg`.
    Ret(Gpr),
    /// `adr`/`adrp reg, value`.
    Adr { reg: Gpr, value: u64 },
    /// `ldr`/`ldrsw reg, literal`: `size` bytes at `addr`.
    LdrLit {
        reg: Gpr,
        addr: u64,
        size: u8,
        signed: bool,
    },
    /// `prfm op, literal`: a hint, nothing to do.
    Nop,
}

/// How a breakpoint steps over the instruction it displaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Apply the effect to the registers.
    Emulate(Emu),
    /// Copy the word to a slot, followed by a branch back.
    OutOfLine,
}

/// One analysed instruction.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Its length in bytes (always 4).
    pub len: usize,
    /// How to step over it.
    pub plan: Plan,
    /// Its disassembly (for messages).
    pub text: String,
    /// Flow, PC-relative operand, text.
    pub summary: Summary,
}

/// Traps and exception returns (capstone does not put every one of them in
/// its `int`/`iret` groups).
const TRAPS: [Arm64Insn; 9] = [
    Arm64Insn::ARM64_INS_BRK,
    Arm64Insn::ARM64_INS_HLT,
    Arm64Insn::ARM64_INS_SVC,
    Arm64Insn::ARM64_INS_HVC,
    Arm64Insn::ARM64_INS_SMC,
    Arm64Insn::ARM64_INS_ERET,
    Arm64Insn::ARM64_INS_ERETAA,
    Arm64Insn::ARM64_INS_ERETAB,
    Arm64Insn::ARM64_INS_UDF,
];

fn engine() -> Option<Capstone> {
    Capstone::new()
        .arm64()
        .mode(ArchMode::Arm)
        .detail(true)
        .build()
        .ok()
}

fn gpr(r: RegId) -> Option<Gpr> {
    use capstone::arch::arm64::Arm64Reg as R;
    let id = u32::from(r.0);
    let (index, wide) = match id {
        R::ARM64_REG_X0..=R::ARM64_REG_X28 => (Some((id - R::ARM64_REG_X0) as usize), true),
        R::ARM64_REG_W0..=R::ARM64_REG_W30 => (Some((id - R::ARM64_REG_W0) as usize), false),
        R::ARM64_REG_FP => (Some(29), true),
        R::ARM64_REG_LR => (Some(LR), true),
        R::ARM64_REG_SP => (Some(SP), true),
        R::ARM64_REG_WSP => (Some(SP), false),
        R::ARM64_REG_XZR => (None, true),
        R::ARM64_REG_WZR => (None, false),
        _ => return None,
    };
    Some(Gpr { index, wide })
}

/// What capstone says about one instruction.
struct Decoded {
    summary: Summary,
    id: u32,
    cc: u8,
    regs: Vec<RegId>,
    imms: Vec<i64>,
}

fn decode_one(cs: &Capstone, addr: u64, word: &[u8]) -> Option<Decoded> {
    let insns = cs.disasm_count(word, addr, 1).ok()?;
    let i = insns.iter().next()?;
    let d = cs.insn_detail(i).ok()?;
    let arch = d.arch_detail();
    let a = arch.arm64()?;
    let mut regs = Vec::new();
    let mut imms = Vec::new();
    for op in a.operands() {
        match op.op_type {
            Arm64OperandType::Reg(r) => regs.push(r),
            Arm64OperandType::Imm(v) => imms.push(v),
            _ => {}
        }
    }
    let has = |g: InsnGroupType::Type| d.groups().iter().any(|x| u32::from(x.0) == g);
    let id = i.id().0;
    let rel = has(InsnGroupType::CS_GRP_BRANCH_RELATIVE);
    let target = if rel {
        imms.last().map(|&v| v as u64)
    } else {
        None
    };
    let cc = a.cc() as u8;
    let cond =
        matches!(
            id,
            x if x == Arm64Insn::ARM64_INS_CBZ as u32
                || x == Arm64Insn::ARM64_INS_CBNZ as u32
                || x == Arm64Insn::ARM64_INS_TBZ as u32
                || x == Arm64Insn::ARM64_INS_TBNZ as u32
                || x == Arm64Insn::ARM64_INS_BC as u32
        ) || (id == Arm64Insn::ARM64_INS_B as u32 && cc != 0 && cc != Arm64CC::ARM64_CC_AL as u8);
    let flow = match target {
        Some(t) if has(InsnGroupType::CS_GRP_CALL) => Flow::Call(t),
        Some(t) if cond => Flow::CondJump(t),
        Some(t) => Flow::Jump(t),
        None if has(InsnGroupType::CS_GRP_RET) => Flow::Ret,
        None if has(InsnGroupType::CS_GRP_CALL) => Flow::IndirectCall,
        None if has(InsnGroupType::CS_GRP_JUMP) => Flow::IndirectJump,
        None if has(InsnGroupType::CS_GRP_INT) || has(InsnGroupType::CS_GRP_IRET) => Flow::Other,
        None if TRAPS.iter().any(|&x| x as u32 == id) => Flow::Other,
        None => Flow::Next,
    };
    let literal = [
        Arm64Insn::ARM64_INS_ADR,
        Arm64Insn::ARM64_INS_ADRP,
        Arm64Insn::ARM64_INS_LDR,
        Arm64Insn::ARM64_INS_LDRSW,
        Arm64Insn::ARM64_INS_PRFM,
    ]
    .iter()
    .any(|&x| x as u32 == id);
    // A literal operand is capstone's immediate holding the address; the
    // register-offset forms of these loads have a memory operand instead.
    let pc_rel = (literal && target.is_none())
        .then(|| imms.last().map(|&v| v as u64))
        .flatten();
    let mnemonic = i.mnemonic().unwrap_or("");
    let mut ops = i.op_str().unwrap_or("").to_string();
    if let Some(a) = target.or(pc_rel) {
        // gdb prints addresses without the immediate's `#`.
        ops = ops.replace(&format!("#{a:#x}"), &format!("{a:#x}"));
    }
    let text = if ops.is_empty() {
        mnemonic.to_string()
    } else {
        format!("{mnemonic}\t{ops}")
    };
    Some(Decoded {
        summary: Summary {
            addr,
            len: 4,
            flow,
            pc_rel,
            text,
        },
        id,
        cc,
        regs,
        imms,
    })
}

/// Decodes up to `max` instructions.
pub fn summaries(addr: u64, bytes: &[u8], max: usize) -> Vec<Summary> {
    let Some(cs) = engine() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (n, w) in bytes.chunks_exact(4).take(max).enumerate() {
        match decode_one(&cs, addr + 4 * n as u64, w) {
            Some(d) => out.push(d.summary),
            None => break,
        }
    }
    out
}

/// Decodes the instruction at `ip` and decides how a breakpoint on it steps
/// over it.
pub fn analyze(ip: u64, bytes: &[u8]) -> Result<Analysis, InsnError> {
    let cs = engine().ok_or(InsnError::Refused("capstone is not available"))?;
    let word = bytes.get(..4).ok_or(InsnError::Invalid)?;
    let d = decode_one(&cs, ip, word).ok_or(InsnError::Invalid)?;
    let plan = plan_of(&d)?;
    Ok(Analysis {
        len: 4,
        plan,
        text: d.summary.text.clone(),
        summary: d.summary,
    })
}

fn plan_of(d: &Decoded) -> Result<Plan, InsnError> {
    use Arm64Insn as I;
    let is = |x: I| d.id == x as u32;
    let reg0 = || d.regs.first().copied().and_then(gpr);
    if is(I::ARM64_INS_SVC) {
        // The kernel returns to the word after it: the slot's branch back.
        return Ok(Plan::OutOfLine);
    }
    let e = match d.summary.flow {
        Flow::Next if d.summary.pc_rel.is_none() => return Ok(Plan::OutOfLine),
        Flow::Next => {
            let addr = d.summary.pc_rel.unwrap_or(0);
            if is(I::ARM64_INS_PRFM) {
                Emu::Nop
            } else {
                let reg =
                    reg0().ok_or(InsnError::Refused("a literal load into a vector register"))?;
                if is(I::ARM64_INS_ADR) || is(I::ARM64_INS_ADRP) {
                    Emu::Adr { reg, value: addr }
                } else {
                    let signed = is(I::ARM64_INS_LDRSW);
                    let size = if reg.wide && !signed { 8 } else { 4 };
                    Emu::LdrLit {
                        reg,
                        addr,
                        size,
                        signed,
                    }
                }
            }
        }
        Flow::Jump(t) => Emu::B(t),
        Flow::Call(t) => Emu::Bl(t),
        Flow::CondJump(t) if is(I::ARM64_INS_B) || is(I::ARM64_INS_BC) => Emu::BCond(d.cc, t),
        Flow::CondJump(target) => {
            let reg = reg0().ok_or(InsnError::Invalid)?;
            let nonzero = is(I::ARM64_INS_CBNZ) || is(I::ARM64_INS_TBNZ);
            if is(I::ARM64_INS_TBZ) || is(I::ARM64_INS_TBNZ) {
                let bit = *d.imms.first().ok_or(InsnError::Invalid)? as u8;
                Emu::Tbz {
                    reg,
                    bit,
                    nonzero,
                    target,
                }
            } else {
                Emu::Cbz {
                    reg,
                    nonzero,
                    target,
                }
            }
        }
        Flow::IndirectJump if is(I::ARM64_INS_BR) => Emu::Br(reg0().ok_or(InsnError::Invalid)?),
        Flow::IndirectCall if is(I::ARM64_INS_BLR) => Emu::Blr(reg0().ok_or(InsnError::Invalid)?),
        Flow::Ret if is(I::ARM64_INS_RET) => {
            // `ret` alone returns through x30.
            Emu::Ret(reg0().unwrap_or(Gpr {
                index: Some(LR),
                wide: true,
            }))
        }
        Flow::IndirectJump | Flow::IndirectCall | Flow::Ret => {
            return Err(InsnError::Refused("an authenticated branch"))
        }
        Flow::Other => return Err(InsnError::Refused("a trap or exception return")),
    };
    Ok(Plan::Emulate(e))
}

fn read(w: &[u64], r: Gpr) -> u64 {
    let v = r.index.map_or(0, |i| w[i]);
    if r.wide {
        v
    } else {
        v & 0xffff_ffff
    }
}

fn write(w: &mut [u64], r: Gpr, v: u64) {
    if let Some(i) = r.index {
        w[i] = if r.wide { v } else { v & 0xffff_ffff };
    }
}

/// Whether condition `cc` (capstone's numbering) holds for `pstate`.
fn holds(cc: u8, pstate: u64) -> bool {
    let bit = |n: u32| pstate >> n & 1 != 0;
    let (n, z, c, v) = (bit(31), bit(30), bit(29), bit(28));
    match cc {
        1 => z,
        2 => !z,
        3 => c,
        4 => !c,
        5 => n,
        6 => !n,
        7 => v,
        8 => !v,
        9 => c && !z,
        10 => !c || z,
        11 => n == v,
        12 => n != v,
        13 => !z && n == v,
        14 => z || n != v,
        _ => true,
    }
}

/// Applies `emu`, the effect of the instruction at `ip`, to the register
/// words `w` (`user_pt_regs`, pc included). On a fault nothing has changed.
pub fn emulate(emu: &Emu, ip: u64, w: &mut [u64], mem: &mut dyn Memory) -> Result<(), EmuFault> {
    let next = ip + 4;
    let branch = |w: &mut [u64], on: bool, t: u64| w[PC] = if on { t } else { next };
    match *emu {
        Emu::B(t) => w[PC] = t,
        Emu::Bl(t) => {
            w[LR] = next;
            w[PC] = t;
        }
        Emu::BCond(cc, t) => branch(w, holds(cc, w[PSTATE]), t),
        Emu::Cbz {
            reg,
            nonzero,
            target,
        } => branch(w, (read(w, reg) != 0) == nonzero, target),
        Emu::Tbz {
            reg,
            bit,
            nonzero,
            target,
        } => branch(w, (read(w, reg) >> bit & 1 != 0) == nonzero, target),
        Emu::Br(r) | Emu::Ret(r) => w[PC] = read(w, r),
        Emu::Blr(r) => {
            let t = read(w, r);
            w[LR] = next;
            w[PC] = t;
        }
        Emu::Adr { reg, value } => {
            write(w, reg, value);
            w[PC] = next;
        }
        Emu::LdrLit {
            reg,
            addr,
            size,
            signed,
        } => {
            let v = mem.read_u64(addr).ok_or(EmuFault(addr))?;
            let v = match (size, signed) {
                (8, _) => v,
                (_, true) => v as u32 as i32 as i64 as u64,
                _ => v & 0xffff_ffff,
            };
            write(w, reg, v);
            w[PC] = next;
        }
        Emu::Nop => w[PC] = next,
    }
    Ok(())
}

#[cfg(test)]
mod tests;
