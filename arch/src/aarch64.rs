//! aarch64: `struct user_pt_regs` layout, trap bytes.

use crate::regs::{RegisterFile, SyscallRegs};
use crate::Arch;

/// Word indices into `struct user_pt_regs` (arch/arm64/include/uapi/asm/ptrace.h).
mod idx {
    pub const X0: usize = 0;
    pub const X8: usize = 8;
    pub const SP: usize = 31;
    pub const PC: usize = 32;
}

/// The breakpoint instruction (`BRK #0`), little-endian.
pub const TRAP_BYTES: &[u8] = &[0x00, 0x00, 0x20, 0xd4];

/// The system-call instruction (`SVC #0`), little-endian.
pub const SYSCALL_INSN: &[u8] = &[0x01, 0x00, 0x00, 0xd4];

/// An instruction that branches to itself (`B .`), little-endian: a place
/// to park a thread that must run no code of its own for a while.
pub const SPIN_INSN: &[u8] = &[0x00, 0x00, 0x00, 0x14];

/// After a BRK trap the pc points at the breakpoint itself.
pub const TRAP_PC_ADJUST: u64 = 0;

/// The aarch64 register file.
pub struct Regs;

impl RegisterFile for Regs {
    const PRSTATUS_BYTES: usize = 34 * 8;

    fn syscall_regs(w: &[u64]) -> SyscallRegs {
        // At syscall entry x0 still holds the first argument; at exit it holds the
        // return value. The kernel keeps the original x0 elsewhere, which is why
        // PTRACE_GET_SYSCALL_INFO is preferred on this architecture.
        SyscallRegs {
            arch: Some(Arch::Aarch64),
            nr: w[idx::X8],
            args: [w[0], w[1], w[2], w[3], w[4], w[5]],
            ret: w[idx::X0] as i64,
            pc: w[idx::PC],
            sp: w[idx::SP],
        }
    }

    fn set_syscall_nr(w: &mut [u64], nr: u64) {
        // Changing the syscall number needs NT_ARM_SYSTEM_CALL on aarch64; the
        // register copy is updated for completeness.
        w[idx::X8] = nr;
    }

    fn set_return(w: &mut [u64], ret: i64) {
        w[idx::X0] = ret as u64;
    }

    fn pc(w: &[u64]) -> u64 {
        w[idx::PC]
    }

    fn set_pc(w: &mut [u64], pc: u64) {
        w[idx::PC] = pc;
    }

    fn prepare_syscall(w: &mut [u64], insn: u64, nr: u64, args: &[u64; 6]) {
        w[idx::X8] = nr;
        w[idx::X0..idx::X0 + 6].copy_from_slice(args);
        w[idx::PC] = insn;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syscall_view() {
        let mut w = [0u64; 34];
        w[idx::X8] = 56;
        w[1] = 0x1000;
        let r = Regs::syscall_regs(&w);
        assert_eq!(r.nr, 56);
        assert_eq!(r.args[1], 0x1000);
    }
}
