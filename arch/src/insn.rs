//! What every architecture's instruction analysis reports, in one shape:
//! the length, where control goes, and the address a PC-relative operand
//! names. `insn_x86` (iced-x86) and `insn_aarch64` (capstone) both produce
//! a [`Summary`]; breakpoints decide from it whether a displaced instruction
//! can run out of line unchanged, and `--disasm` prints its text.
//!
//! Scope: pure functions over bytes. Non-goals: the emulation itself, which
//! is per architecture (`insn_x86::emulate`, `insn_aarch64::emulate`).

use crate::Arch;
use std::fmt;

/// Why an instruction cannot carry a breakpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InsnError {
    /// The bytes do not decode.
    Invalid,
    /// The instruction is a trap itself (INT3, INT1) or otherwise refused.
    Refused(&'static str),
    /// Relocation failed (target out of reach of the slot).
    Relocate(String),
}

impl fmt::Display for InsnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InsnError::Invalid => write!(f, "invalid instruction"),
            InsnError::Refused(why) => write!(f, "instruction refused: {why}"),
            InsnError::Relocate(e) => write!(f, "cannot relocate instruction: {e}"),
        }
    }
}

impl std::error::Error for InsnError {}

/// Tracee memory as emulation needs it.
pub trait Memory {
    /// Reads a little-endian word.
    fn read_u64(&mut self, addr: u64) -> Option<u64>;
    /// Writes a little-endian word.
    fn write_u64(&mut self, addr: u64, value: u64) -> bool;
}

/// Emulation could not complete (the stack or a branch target's pointer is
/// not accessible): the caller runs the instruction out of line, or, for a
/// branch, lets the CPU fault on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmuFault(pub u64);

/// Where control goes after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// To the next instruction.
    Next,
    /// A direct unconditional jump to the address.
    Jump(u64),
    /// A direct conditional branch to the address (x86 `jcc`, `loop`,
    /// `jrcxz`; aarch64 `b.cond`, `cbz`, `tbz`, ...).
    CondJump(u64),
    /// A direct call of the address.
    Call(u64),
    /// A jump through a register or memory.
    IndirectJump,
    /// A call through a register or memory.
    IndirectCall,
    /// A return.
    Ret,
    /// Anything else that leaves the straight line: traps, system calls
    /// that do not return here, far transfers, exception returns.
    Other,
}

/// One decoded instruction, as far as relocating or naming it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Its address.
    pub addr: u64,
    /// Its length in bytes.
    pub len: usize,
    /// Where control goes.
    pub flow: Flow,
    /// The address a PC-relative data operand names (x86 RIP-relative
    /// memory; aarch64 `adr`/`adrp` results and literal loads), which moves
    /// if the instruction is run elsewhere. Branch targets are in `flow`.
    pub pc_rel: Option<u64>,
    /// Its text, in the syntax gdb prints by default for the architecture
    /// (AT&T on x86).
    pub text: String,
}

/// Decodes up to `max` instructions from `bytes` (read at `addr`), stopping
/// at the first that does not decode.
pub fn decode(arch: Arch, addr: u64, bytes: &[u8], max: usize) -> Vec<Summary> {
    match arch {
        Arch::X86_64 => crate::insn_x86_summary::summaries(64, addr, bytes, max),
        Arch::I386 => crate::insn_x86_summary::summaries(32, addr, bytes, max),
        Arch::Aarch64 => crate::insn_aarch64::summaries(addr, bytes, max),
    }
}

/// The longest instruction of `arch`, in bytes.
pub fn max_len(arch: Arch) -> usize {
    match arch {
        Arch::X86_64 | Arch::I386 => crate::insn_x86::MAX_INSN_LEN,
        Arch::Aarch64 => 4,
    }
}

/// The line gdb's `x/i` prints for `s` after the address: its text, a
/// direct branch's target named (`call   0x401126 <foo>`), and on x86 the
/// address a RIP-relative operand names as gdb's trailing comment
/// (`lea    0xe9c(%rip),%rax        # 0x402004 <msg>`). `sym` names an
/// address (`foo`, `main+4`) when it can.
pub fn gdb_text(arch: Arch, s: &Summary, sym: &mut dyn FnMut(u64) -> Option<String>) -> String {
    let mut t = s.text.clone();
    let mut named = |a: u64| sym(a).map(|n| format!(" <{n}>")).unwrap_or_default();
    match s.flow {
        Flow::Jump(a) | Flow::CondJump(a) | Flow::Call(a) => t.push_str(&named(a)),
        _ => {}
    }
    if let (Some(a), Arch::X86_64 | Arch::I386) = (s.pc_rel, arch) {
        t.push_str(&format!("        # {a:#x}{}", named(a)));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gdb_text_names_targets_and_rip_relative_operands() {
        // movl $0x1,0x2ee6(%rip) at 0x1004
        let code = [0xc7, 0x05, 0xe6, 0x2e, 0, 0, 1, 0, 0, 0];
        let s = decode(Arch::X86_64, 0x1004, &code, 1).pop().unwrap();
        assert_eq!((s.addr, s.len, s.flow), (0x1004, 10, Flow::Next));
        assert_eq!(s.text, "movl   $0x1,0x2ee6(%rip)");
        assert_eq!(s.pc_rel, Some(0x100e + 0x2ee6));
        let mut name = |a: u64| (a == 0x3ef4).then(|| "counter".to_string());
        assert_eq!(
            gdb_text(Arch::X86_64, &s, &mut name),
            "movl   $0x1,0x2ee6(%rip)        # 0x3ef4 <counter>"
        );
        let call = decode(Arch::X86_64, 0x3ee0, &[0xe8, 0x0f, 0, 0, 0], 1);
        let call = gdb_text(Arch::X86_64, &call[0], &mut name);
        assert_eq!(call, "call   0x3ef4 <counter>");
        // aarch64: bl names its target too; no comment for literals.
        let bl = decode(Arch::Aarch64, 0x3ef0, &0x9400_0001u32.to_le_bytes(), 1);
        assert_eq!(
            gdb_text(Arch::Aarch64, &bl[0], &mut name),
            "bl\t0x3ef4 <counter>"
        );
    }

    #[test]
    fn decode_stops_at_undecodable_bytes() {
        // nop; ud0-ish garbage (0f ff is invalid without a ModRM on iced)
        let v = decode(Arch::X86_64, 0x10, &[0x90, 0x0f, 0xff], 5);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].text, "nop");
        assert_eq!(max_len(Arch::Aarch64), 4);
    }
}
