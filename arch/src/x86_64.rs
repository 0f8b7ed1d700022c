//! x86_64: `struct user_regs_struct` layout, trap bytes.

use crate::regs::{RegisterFile, SyscallRegs};
use crate::Arch;

/// Word indices into `struct user_regs_struct` (arch/x86/include/asm/user_64.h).
mod idx {
    pub const RBP: usize = 4;
    pub const RBX: usize = 5;
    pub const R10: usize = 7;
    pub const R9: usize = 8;
    pub const R8: usize = 9;
    pub const RAX: usize = 10;
    pub const RCX: usize = 11;
    pub const RDX: usize = 12;
    pub const RSI: usize = 13;
    pub const RDI: usize = 14;
    pub const ORIG_RAX: usize = 15;
    pub const RIP: usize = 16;
    pub const CS: usize = 17;
    pub const RSP: usize = 19;
}

/// Names of the `struct user_regs_struct` words, in order (for `--regs` and
/// `$reg` in conditions).
pub const REG_NAMES: [&str; 27] = [
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi",
    "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs",
    "gs",
];

/// Word indices of the general-purpose registers, in the hardware encoding
/// order (rax=0 … r15=15) that instruction operands use.
pub const GPR_BY_ENCODING: [usize; 16] = [10, 11, 12, 5, 19, 4, 13, 14, 9, 8, 7, 6, 3, 2, 1, 0];

/// Word index of the stack pointer.
pub const SP: usize = idx::RSP;
/// Word index of the program counter.
pub const PC: usize = idx::RIP;
/// Word index of the flags register.
pub const FLAGS: usize = 18;
/// Word index of the integer return-value register.
pub const RET: usize = idx::RAX;
/// The second integer return register (the upper eightbyte of a 16-byte
/// INTEGER-class struct).
pub const RET2: usize = idx::RDX;
/// Word indices of the integer argument registers of the SysV ABI, in order.
pub const ARG_REGS: [usize; 6] = [idx::RDI, idx::RSI, idx::RDX, idx::RCX, idx::R8, idx::R9];

/// The system-call instruction (`SYSCALL`).
pub const SYSCALL_INSN: &[u8] = &[0x0f, 0x05];

/// An instruction that jumps to itself (`JMP .`, rel8 -2): a place to park
/// a thread that must run no code of its own for a while.
pub const SPIN_INSN: &[u8] = &[0xeb, 0xfe];

/// The word index of a register named as in `REG_NAMES` (also `pc`, `sp`,
/// `ip`).
pub fn reg_index(name: &str) -> Option<usize> {
    match name {
        "pc" | "ip" => Some(idx::RIP),
        "sp" => Some(idx::RSP),
        "fp" => Some(idx::RBP),
        _ => REG_NAMES.iter().position(|n| *n == name),
    }
}

/// Whether a thread stopped with registers `w` may run an injected system
/// call: it is not inside a syscall (`orig_rax` is -1: a signal-delivery or
/// interrupt stop in user code), or it is inside one the kernel will restart
/// (`-ERESTARTSYS`, `-ERESTARTNOINTR`, `-ERESTARTNOHAND`,
/// `-ERESTART_RESTARTBLOCK`), whose restart the restored registers still
/// ask for, or it stopped on its way out of one that has finished (an
/// interrupt or syscall-exit stop: `rax` holds the result, which the kernel
/// no longer touches). Not at a syscall-entry or seccomp stop, nor at a
/// ptrace event stop inside clone, fork or exit (`rax` is still -ENOSYS
/// there), nor at an exec event stop (the kernel still writes execve's
/// result into `rax`): there the syscall is still running and would
/// overwrite the injected call's registers.
pub fn can_inject(w: &[u64]) -> bool {
    let nr = w[idx::ORIG_RAX] as i64;
    let ret = w[idx::RAX] as i64;
    nr == -1
        || matches!(ret, -514..=-512 | -516)
        || (ret != -ENOSYS && nr != SYS_EXECVE && nr != SYS_EXECVEAT)
}

/// `ENOSYS`, the value `rax` holds inside a syscall until it returns.
const ENOSYS: i64 = 38;
const SYS_EXECVE: i64 = 59;
const SYS_EXECVEAT: i64 = 322;

/// The code segment selector of 32-bit user code on x86_64 Linux (`__USER32_CS`).
const USER32_CS: u64 = 0x23;

/// The breakpoint instruction (INT3).
pub const TRAP_BYTES: &[u8] = &[0xcc];

/// After an INT3 trap the pc points this many bytes past the breakpoint address.
pub const TRAP_PC_ADJUST: u64 = 1;

/// The `NT_PRFPREG` register set (`struct user_fpregs_struct`, the FXSAVE
/// layout): its size in bytes.
pub const FPREGS_BYTES: usize = 512;
/// Note type of the floating-point register set for `PTRACE_GETREGSET`.
pub const NT_PRFPREG: u32 = 2;
/// Floating-point argument registers of the SysV ABI (xmm0-xmm7).
pub const FP_ARG_REGS: usize = 8;

/// The low double of `xmm{i}` in an `NT_PRFPREG` buffer (the FXSAVE area
/// keeps xmm0-15 at byte 160, 16 bytes each); also the floating-point
/// return value for `i == 0`.
pub fn xmm_f64(fpregs: &[u8], i: usize) -> Option<f64> {
    let off = 160 + 16 * i;
    let b = fpregs.get(off..off + 8)?;
    Some(f64::from_le_bytes(b.try_into().ok()?))
}

/// The low single-precision float of `xmm{i}` (a `float` argument).
pub fn xmm_f32(fpregs: &[u8], i: usize) -> Option<f32> {
    let off = 160 + 16 * i;
    let b = fpregs.get(off..off + 4)?;
    Some(f32::from_le_bytes(b.try_into().ok()?))
}

/// The x86_64 register file.
pub struct Regs;

impl RegisterFile for Regs {
    const PRSTATUS_BYTES: usize = 27 * 8;

    fn syscall_regs(w: &[u64]) -> SyscallRegs {
        if w[idx::CS] == USER32_CS {
            // A 32-bit task: the i386 syscall ABI (ebx, ecx, edx, esi, edi, ebp).
            let lo = |i: usize| w[i] & 0xffff_ffff;
            return SyscallRegs {
                arch: Some(Arch::I386),
                nr: lo(idx::ORIG_RAX),
                args: [
                    lo(idx::RBX),
                    lo(idx::RCX),
                    lo(idx::RDX),
                    lo(idx::RSI),
                    lo(idx::RDI),
                    lo(idx::RBP),
                ],
                ret: w[idx::RAX] as u32 as i32 as i64,
                pc: lo(idx::RIP),
                sp: lo(idx::RSP),
            };
        }
        SyscallRegs {
            arch: Some(Arch::X86_64),
            nr: w[idx::ORIG_RAX],
            args: [
                w[idx::RDI],
                w[idx::RSI],
                w[idx::RDX],
                w[idx::R10],
                w[idx::R8],
                w[idx::R9],
            ],
            ret: w[idx::RAX] as i64,
            pc: w[idx::RIP],
            sp: w[idx::RSP],
        }
    }

    fn set_syscall_nr(w: &mut [u64], nr: u64) {
        w[idx::ORIG_RAX] = nr;
    }

    fn set_return(w: &mut [u64], ret: i64) {
        w[idx::RAX] = ret as u64;
    }

    fn pc(w: &[u64]) -> u64 {
        w[idx::RIP]
    }

    fn set_pc(w: &mut [u64], pc: u64) {
        w[idx::RIP] = pc;
    }

    fn prepare_syscall(w: &mut [u64], insn: u64, nr: u64, args: &[u64; 6]) {
        w[idx::RAX] = nr;
        // Not inside a syscall: keeps the kernel's restart logic out.
        w[idx::ORIG_RAX] = u64::MAX;
        w[idx::RDI] = args[0];
        w[idx::RSI] = args[1];
        w[idx::RDX] = args[2];
        w[idx::R10] = args[3];
        w[idx::R8] = args[4];
        w[idx::R9] = args[5];
        w[idx::RIP] = insn;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injection_only_where_the_kernel_will_not_touch_the_registers() {
        let regs = |nr: i64, ret: i64| {
            let mut w = [0u64; 27];
            w[idx::ORIG_RAX] = nr as u64;
            w[idx::RAX] = ret as u64;
            w
        };
        assert!(can_inject(&regs(-1, 5))); // user code
        assert!(can_inject(&regs(0, -512))); // read, to be restarted
        assert!(can_inject(&regs(1, 14))); // write returned 14
        assert!(!can_inject(&regs(1, -38))); // entry, seccomp or event stop
        assert!(!can_inject(&regs(56, -38))); // clone event
        assert!(!can_inject(&regs(59, 0))); // exec event
        assert!(!can_inject(&regs(322, 0)));
    }

    #[test]
    fn syscall_view_64_and_32() {
        let mut w = [0u64; 27];
        w[idx::ORIG_RAX] = 257;
        w[idx::RDI] = 1;
        w[idx::RSI] = 2;
        w[idx::RDX] = 3;
        w[idx::R10] = 4;
        w[idx::R8] = 5;
        w[idx::R9] = 6;
        w[idx::CS] = 0x33;
        let r = Regs::syscall_regs(&w);
        assert_eq!(r.arch, Some(Arch::X86_64));
        assert_eq!((r.nr, r.args), (257, [1, 2, 3, 4, 5, 6]));
        w[idx::CS] = USER32_CS;
        w[idx::RBX] = 0xffff_ffff_0000_0007;
        w[idx::RAX] = 0xffff_fffe;
        let r = Regs::syscall_regs(&w);
        assert_eq!(r.arch, Some(Arch::I386));
        assert_eq!(r.args[0], 7);
        assert_eq!(r.ret, -2);
    }
}
