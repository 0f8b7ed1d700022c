//! x86-64 instruction analysis for software breakpoints, as kernel uprobes
//! do it: the instruction an INT3 displaces is either *emulated* (its effect
//! applied to the saved registers and stack, so a hit costs one stop) or
//! *executed out of line* in a slot of a page mapped near the code, relocated
//! with iced-x86's `BlockEncoder` and followed by a jump back. Branches
//! (call/jmp/jcc/ret, direct and indirect) are always emulated: run out of
//! line, a call would push the slot's address.
//!
//! Scope: pure functions over instruction bytes and register words (the
//! `struct user_regs_struct` layout of [`crate::x86_64`]); memory goes
//! through the [`Memory`] trait, so everything is unit-tested without a
//! tracee. Non-goals: 32-bit code (decoded as 64-bit), instructions whose
//! emulation needs segment bases (`%fs:`-relative branch targets are
//! refused).

use crate::x86_64::{FLAGS, GPR_BY_ENCODING, PC, SP};
use iced_x86::{
    BlockEncoder, BlockEncoderOptions, Code, ConditionCode, Decoder, DecoderOptions, FlowControl,
    Formatter, GasFormatter, Instruction, InstructionBlock, Mnemonic, OpKind, Register,
};

/// The longest x86 instruction.
pub const MAX_INSN_LEN: usize = 15;

/// The opcode of `jmp rel32`, and that instruction's length.
const JMP_REL32: u8 = 0xe9;
const JMP_REL32_LEN: u64 = 5;

/// Bytes reserved per out-of-line slot: the relocated instruction (which the
/// block encoder may lengthen) and the jump back.
pub const SLOT_SIZE: usize = 64;

pub use crate::insn::{EmuFault, InsnError, Memory};

/// A register or memory operand of an indirect branch, resolved to word
/// indices (`None` base: absolute or RIP-relative, already folded into
/// `disp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A 64-bit register (word index).
    Reg(usize),
    /// `[base + index*scale + disp]`.
    Mem {
        /// Base register word index.
        base: Option<usize>,
        /// Index register word index and scale.
        index: Option<(usize, u8)>,
        /// Displacement (absolute address for RIP-relative forms).
        disp: u64,
    },
}

/// The emulated effect of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emu {
    /// No effect but advancing the pc (`endbr64`, every `nop` form).
    Nop,
    /// `push %reg` (64-bit).
    Push(usize),
    /// `mov %src,%dst`; `wide` false for the 32-bit form (zero-extends).
    MovRegReg {
        /// Destination word index.
        dst: usize,
        /// Source word index.
        src: usize,
        /// 64-bit operands.
        wide: bool,
    },
    /// `mov $imm,%dst`, already extended to 64 bits.
    MovImm {
        /// Destination word index.
        dst: usize,
        /// The value written.
        value: u64,
    },
    /// `add`/`sub $imm,%dst` (64-bit) with the flags the CPU sets.
    AddImm {
        /// Destination word index.
        dst: usize,
        /// Sign-extended immediate.
        imm: u64,
        /// Subtract instead of add.
        sub: bool,
    },
    /// Direct `jmp`.
    Jmp(u64),
    /// Conditional jump.
    Jcc(Cond, u64),
    /// Direct `call`.
    Call(u64),
    /// Indirect `jmp *operand`.
    JmpInd(Operand),
    /// Indirect `call *operand`.
    CallInd(Operand),
    /// `ret` / `ret $imm16`.
    Ret(u16),
}

/// The condition of a conditional jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// o
    O,
    /// no
    No,
    /// b / c
    B,
    /// ae / nc
    Ae,
    /// e / z
    E,
    /// ne / nz
    Ne,
    /// be
    Be,
    /// a
    A,
    /// s
    S,
    /// ns
    Ns,
    /// p
    P,
    /// np
    Np,
    /// l
    L,
    /// ge
    Ge,
    /// le
    Le,
    /// g
    G,
}

/// How a breakpoint steps over the instruction it displaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// Apply the effect to registers and memory.
    Emulate(Emu),
    /// Run the instruction out of line (relocate it with [`relocate`]).
    OutOfLine,
}

/// One analysed instruction.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Its length in bytes.
    pub len: usize,
    /// How to step over it.
    pub plan: Plan,
    insn: Instruction,
    /// Its bytes (the first `len`).
    bytes: [u8; MAX_INSN_LEN],
}

fn gpr(r: Register) -> Option<usize> {
    if r.is_gpr64() || r.is_gpr32() {
        Some(GPR_BY_ENCODING[r.full_register().number()])
    } else {
        None
    }
}

fn cond(c: ConditionCode) -> Option<Cond> {
    Some(match c {
        ConditionCode::o => Cond::O,
        ConditionCode::no => Cond::No,
        ConditionCode::b => Cond::B,
        ConditionCode::ae => Cond::Ae,
        ConditionCode::e => Cond::E,
        ConditionCode::ne => Cond::Ne,
        ConditionCode::be => Cond::Be,
        ConditionCode::a => Cond::A,
        ConditionCode::s => Cond::S,
        ConditionCode::ns => Cond::Ns,
        ConditionCode::p => Cond::P,
        ConditionCode::np => Cond::Np,
        ConditionCode::l => Cond::L,
        ConditionCode::ge => Cond::Ge,
        ConditionCode::le => Cond::Le,
        ConditionCode::g => Cond::G,
        _ => return None,
    })
}

/// The operand of an indirect branch, or `None` when it needs a segment base.
fn operand(i: &Instruction) -> Option<Operand> {
    match i.op0_kind() {
        OpKind::Register => gpr(i.op0_register()).map(Operand::Reg),
        OpKind::Memory => {
            if i.segment_prefix() != Register::None
                && !matches!(
                    i.segment_prefix(),
                    Register::DS | Register::CS | Register::SS
                )
            {
                return None;
            }
            if i.is_ip_rel_memory_operand() {
                return Some(Operand::Mem {
                    base: None,
                    index: None,
                    disp: i.ip_rel_memory_address(),
                });
            }
            let base = match i.memory_base() {
                Register::None => None,
                r => Some(gpr(r)?),
            };
            let index = match i.memory_index() {
                Register::None => None,
                r => Some((gpr(r)?, i.memory_index_scale() as u8)),
            };
            Some(Operand::Mem {
                base,
                index,
                disp: i.memory_displacement64(),
            })
        }
        _ => None,
    }
}

/// Decodes the instruction at `ip` (its bytes in `bytes`) and decides how a
/// breakpoint on it steps over it.
pub fn analyze(ip: u64, bytes: &[u8]) -> Result<Analysis, InsnError> {
    let mut d = Decoder::with_ip(64, bytes, ip, DecoderOptions::NONE);
    let i = d.decode();
    if i.is_invalid() {
        return Err(InsnError::Invalid);
    }
    let len = i.len();
    let plan = plan_of(&i)?;
    let mut own = [0u8; MAX_INSN_LEN];
    own[..len].copy_from_slice(&bytes[..len]);
    Ok(Analysis {
        len,
        plan,
        insn: i,
        bytes: own,
    })
}

fn plan_of(i: &Instruction) -> Result<Plan, InsnError> {
    use Plan::{Emulate, OutOfLine};
    let m = i.mnemonic();
    if matches!(m, Mnemonic::Nop | Mnemonic::Endbr64 | Mnemonic::Endbr32) {
        return Ok(Emulate(Emu::Nop));
    }
    match i.code() {
        Code::Int3 | Code::Int1 | Code::Into | Code::Int_imm8 => {
            return Err(InsnError::Refused("a trap instruction"))
        }
        Code::Push_r64 => {
            if let Some(r) = gpr(i.op0_register()) {
                return Ok(Emulate(Emu::Push(r)));
            }
        }
        Code::Mov_rm64_r64 | Code::Mov_r64_rm64 | Code::Mov_rm32_r32 | Code::Mov_r32_rm32
            if i.op0_kind() == OpKind::Register && i.op1_kind() == OpKind::Register =>
        {
            if let (Some(dst), Some(src)) = (gpr(i.op0_register()), gpr(i.op1_register())) {
                let wide = i.op0_register().is_gpr64();
                return Ok(Emulate(Emu::MovRegReg { dst, src, wide }));
            }
        }
        Code::Mov_r32_imm32 => {
            if let Some(dst) = gpr(i.op0_register()) {
                return Ok(Emulate(Emu::MovImm {
                    dst,
                    value: i.immediate32() as u64,
                }));
            }
        }
        Code::Mov_r64_imm64 => {
            if let Some(dst) = gpr(i.op0_register()) {
                return Ok(Emulate(Emu::MovImm {
                    dst,
                    value: i.immediate64(),
                }));
            }
        }
        Code::Mov_rm64_imm32 if i.op0_kind() == OpKind::Register => {
            if let Some(dst) = gpr(i.op0_register()) {
                return Ok(Emulate(Emu::MovImm {
                    dst,
                    value: i.immediate32to64() as u64,
                }));
            }
        }
        Code::Sub_rm64_imm8 | Code::Sub_rm64_imm32 | Code::Add_rm64_imm8 | Code::Add_rm64_imm32
            if i.op0_kind() == OpKind::Register =>
        {
            if let Some(dst) = gpr(i.op0_register()) {
                let imm = match i.op1_kind() {
                    OpKind::Immediate8to64 => i.immediate8to64() as u64,
                    _ => i.immediate32to64() as u64,
                };
                let sub = matches!(i.code(), Code::Sub_rm64_imm8 | Code::Sub_rm64_imm32);
                return Ok(Emulate(Emu::AddImm { dst, imm, sub }));
            }
        }
        Code::Jmp_rel8_64 | Code::Jmp_rel32_64 => {
            return Ok(Emulate(Emu::Jmp(i.near_branch64())));
        }
        Code::Call_rel32_64 => return Ok(Emulate(Emu::Call(i.near_branch64()))),
        Code::Call_rm64 => {
            return operand(i)
                .map(|o| Emulate(Emu::CallInd(o)))
                .ok_or(InsnError::Refused("a call through a segment"));
        }
        Code::Jmp_rm64 => {
            if let Some(o) = operand(i) {
                return Ok(Emulate(Emu::JmpInd(o)));
            }
            // A jump leaves no trace of the slot: run it out of line.
            return Ok(OutOfLine);
        }
        Code::Retnq => return Ok(Emulate(Emu::Ret(0))),
        Code::Retnq_imm16 => return Ok(Emulate(Emu::Ret(i.immediate16()))),
        _ => {}
    }
    if i.is_jcc_short_or_near() {
        if let Some(c) = cond(i.condition_code()) {
            return Ok(Emulate(Emu::Jcc(c, i.near_branch64())));
        }
    }
    if i.is_call_near_indirect() || i.is_call_far() || i.is_call_far_indirect() || i.is_call_near()
    {
        // Any other call would push the slot's address.
        return Err(InsnError::Refused("an unusual call form"));
    }
    if matches!(
        m,
        Mnemonic::Xbegin | Mnemonic::Xabort | Mnemonic::Iretq | Mnemonic::Sysretq
    ) {
        return Err(InsnError::Refused(
            "a control-transfer form that cannot move",
        ));
    }
    Ok(OutOfLine)
}

impl Analysis {
    /// Its AT&T disassembly (for messages). Formatted on demand: the
    /// formatter's tables (most of a megabyte of heap) are then built only
    /// by a run that prints an instruction.
    pub fn text(&self) -> String {
        let mut text = String::new();
        GasFormatter::new().format(&self.insn, &mut text);
        text
    }

    /// The instruction relocated to a slot at `slot`, followed by a jump back
    /// to the instruction after the original. At most [`SLOT_SIZE`] bytes.
    pub fn relocate(&self, slot: u64) -> Result<Vec<u8>, InsnError> {
        let back = self.insn.next_ip();
        // An instruction that neither branches nor addresses memory
        // relative to the pc (`xor %ebp,%ebp` at `_start`, most of what
        // runs out of line) means the same anywhere: its own bytes and a
        // `jmp rel32` back. The block encoder would give the same bytes, but
        // its tables (half a megabyte of heap) are built on first use.
        if self.insn.flow_control() == FlowControl::Next && !self.insn.is_ip_rel_memory_operand() {
            let len = self.len;
            let after = slot.wrapping_add(len as u64 + JMP_REL32_LEN);
            let rel = back.wrapping_sub(after) as i64;
            let rel = i32::try_from(rel).map_err(|_| {
                InsnError::Relocate(format!("{back:#x} is out of a jump's reach from {slot:#x}"))
            })?;
            let mut code = self.bytes[..len].to_vec();
            code.push(JMP_REL32);
            code.extend_from_slice(&rel.to_le_bytes());
            return Ok(code);
        }
        self.relocate_encoded(slot)
    }

    /// [`Analysis::relocate`] by iced-x86's block encoder, which rewrites
    /// pc-relative operands and branch targets for the new address.
    fn relocate_encoded(&self, slot: u64) -> Result<Vec<u8>, InsnError> {
        let back = self.insn.next_ip();
        let jmp = Instruction::with_branch(Code::Jmp_rel32_64, back)
            .map_err(|e| InsnError::Relocate(e.to_string()))?;
        let instrs = [self.insn, jmp];
        let block = InstructionBlock::new(&instrs, slot);
        let r = BlockEncoder::encode(64, block, BlockEncoderOptions::NONE)
            .map_err(|e| InsnError::Relocate(e.to_string()))?;
        if r.code_buffer.len() > SLOT_SIZE {
            return Err(InsnError::Relocate(format!(
                "{} bytes do not fit a slot",
                r.code_buffer.len()
            )));
        }
        Ok(r.code_buffer)
    }
}

fn parity(b: u8) -> bool {
    b.count_ones().is_multiple_of(2)
}

/// Flag bits the CPU sets for `a + b` (or `a - b`) on 64-bit operands.
fn arith_flags(flags: u64, a: u64, b: u64, sub: bool) -> (u64, u64) {
    const CF: u64 = 1;
    const PF: u64 = 1 << 2;
    const AF: u64 = 1 << 4;
    const ZF: u64 = 1 << 6;
    const SF: u64 = 1 << 7;
    const OF: u64 = 1 << 11;
    let (r, carry) = if sub {
        a.overflowing_sub(b)
    } else {
        a.overflowing_add(b)
    };
    let overflow = if sub {
        ((a ^ b) & (a ^ r)) >> 63 != 0
    } else {
        (!(a ^ b) & (a ^ r)) >> 63 != 0
    };
    let mut f = flags & !(CF | PF | AF | ZF | SF | OF);
    let set = |f: &mut u64, bit: u64, on: bool| {
        if on {
            *f |= bit
        }
    };
    set(&mut f, CF, carry);
    set(&mut f, PF, parity(r as u8));
    set(&mut f, AF, (a ^ b ^ r) & 0x10 != 0);
    set(&mut f, ZF, r == 0);
    set(&mut f, SF, r >> 63 != 0);
    set(&mut f, OF, overflow);
    (r, f)
}

fn taken(c: Cond, flags: u64) -> bool {
    let bit = |n: u32| flags >> n & 1 != 0;
    let (cf, pf, zf, sf, of) = (bit(0), bit(2), bit(6), bit(7), bit(11));
    match c {
        Cond::O => of,
        Cond::No => !of,
        Cond::B => cf,
        Cond::Ae => !cf,
        Cond::E => zf,
        Cond::Ne => !zf,
        Cond::Be => cf || zf,
        Cond::A => !cf && !zf,
        Cond::S => sf,
        Cond::Ns => !sf,
        Cond::P => pf,
        Cond::Np => !pf,
        Cond::L => sf != of,
        Cond::Ge => sf == of,
        Cond::Le => zf || sf != of,
        Cond::G => !zf && sf == of,
    }
}

fn push(w: &mut [u64], mem: &mut dyn Memory, v: u64) -> Result<(), EmuFault> {
    let sp = w[SP].wrapping_sub(8);
    if !mem.write_u64(sp, v) {
        return Err(EmuFault(sp));
    }
    w[SP] = sp;
    Ok(())
}

fn load(w: &[u64], mem: &mut dyn Memory, o: Operand) -> Result<u64, EmuFault> {
    match o {
        Operand::Reg(r) => Ok(w[r]),
        Operand::Mem { base, index, disp } => {
            let mut a = disp;
            if let Some(b) = base {
                a = a.wrapping_add(w[b]);
            }
            if let Some((x, s)) = index {
                a = a.wrapping_add(w[x].wrapping_mul(s as u64));
            }
            mem.read_u64(a).ok_or(EmuFault(a))
        }
    }
}

/// Applies `emu`, the effect of the `len`-byte instruction at `ip`, to the
/// register words `w` (pc included). On a fault nothing has changed.
pub fn emulate(
    emu: &Emu,
    ip: u64,
    len: usize,
    w: &mut [u64],
    mem: &mut dyn Memory,
) -> Result<(), EmuFault> {
    let next = ip + len as u64;
    match *emu {
        Emu::Nop => w[PC] = next,
        Emu::Push(r) => {
            // `push %rsp` stores the value before the decrement.
            let v = w[r];
            push(w, mem, v)?;
            w[PC] = next;
        }
        Emu::MovRegReg { dst, src, wide } => {
            w[dst] = if wide { w[src] } else { w[src] & 0xffff_ffff };
            w[PC] = next;
        }
        Emu::MovImm { dst, value } => {
            w[dst] = value;
            w[PC] = next;
        }
        Emu::AddImm { dst, imm, sub } => {
            let (r, f) = arith_flags(w[FLAGS], w[dst], imm, sub);
            w[dst] = r;
            w[FLAGS] = f;
            w[PC] = next;
        }
        Emu::Jmp(t) => w[PC] = t,
        Emu::Jcc(c, t) => w[PC] = if taken(c, w[FLAGS]) { t } else { next },
        Emu::Call(t) => {
            push(w, mem, next)?;
            w[PC] = t;
        }
        Emu::JmpInd(o) => w[PC] = load(w, mem, o)?,
        Emu::CallInd(o) => {
            let t = load(w, mem, o)?;
            push(w, mem, next)?;
            w[PC] = t;
        }
        Emu::Ret(pop) => {
            let sp = w[SP];
            let t = mem.read_u64(sp).ok_or(EmuFault(sp))?;
            w[SP] = sp.wrapping_add(8 + pop as u64);
            w[PC] = t;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
