//! The architecture-neutral view of a thread's registers at a syscall stop.

use crate::Arch;

/// What a tracer needs from the registers at a syscall stop, whatever the CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyscallRegs {
    /// Personality of the syscall (None when unknown).
    pub arch: Option<Arch>,
    /// Syscall number as the kernel sees it.
    pub nr: u64,
    /// The six argument registers, in ABI order.
    pub args: [u64; 6],
    /// Return-value register (meaningful at syscall exit).
    pub ret: i64,
    /// Program counter.
    pub pc: u64,
    /// Stack pointer.
    pub sp: u64,
}

/// A register file as the kernel's `NT_PRSTATUS` regset returns it, viewed per
/// architecture.
pub trait RegisterFile {
    /// Size in bytes of the `NT_PRSTATUS` regset.
    const PRSTATUS_BYTES: usize;
    /// The syscall view of the raw regset words.
    fn syscall_regs(words: &[u64]) -> SyscallRegs;
    /// Changes the syscall number in place (used to skip a syscall: set -1).
    fn set_syscall_nr(words: &mut [u64], nr: u64);
    /// Changes the return value in place (at syscall exit).
    fn set_return(words: &mut [u64], ret: i64);
    /// The program counter.
    fn pc(words: &[u64]) -> u64;
    /// Sets the program counter.
    fn set_pc(words: &mut [u64], pc: u64);
    /// Sets up the registers to make system call `nr` with `args` by
    /// executing the system-call instruction at `insn` (syscall injection).
    fn prepare_syscall(words: &mut [u64], insn: u64, nr: u64, args: &[u64; 6]);
}
