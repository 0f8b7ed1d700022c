//! DWARF register numbering per architecture, as data, and the register set
//! an unwind starts from.
//!
//! `from_prstatus_*` turn the `NT_PRSTATUS` words (`user_regs_struct`,
//! `user_pt_regs`) into DWARF numbering; they belong with the arch crate and
//! will move there.

/// Largest DWARF register number tracked, plus one.
pub const MAX_REGS: usize = 33;

/// A signal frame's saved registers: where the kernel's `ucontext` lies
/// relative to the stack pointer at the signal trampoline, and which DWARF
/// register each saved slot holds.
#[derive(Debug)]
pub struct SigFrameLayout {
    /// Machine code at the start of the trampoline (`rt_sigreturn` call).
    pub trampoline: &'static [u8],
    /// Offset from the trampoline's sp to saved slot 0.
    pub regs_offset: u64,
    /// `(slot index, DWARF register)`; the slot of the interrupted pc is
    /// mapped to [`ArchRegs::ra`]'s column's target, see `pc_slot`.
    pub slots: &'static [(u8, u16)],
    /// Slot holding the interrupted pc.
    pub pc_slot: u8,
}

/// DWARF facts about one architecture.
#[derive(Debug)]
pub struct ArchRegs {
    /// Architecture name.
    pub name: &'static str,
    /// `e_machine` of ELF files for this architecture.
    pub machine: u16,
    /// Register names, by DWARF number.
    pub names: &'static [&'static str],
    /// DWARF number of the stack pointer.
    pub sp: u16,
    /// DWARF number of the frame pointer.
    pub fp: u16,
    /// The return-address column of CFI (the caller's pc).
    pub ra: u16,
    /// Pointer size in bytes.
    pub ptr: u8,
    /// Signal frame layout, if known.
    pub sigframe: Option<SigFrameLayout>,
}

/// x86_64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, return address 16 (rip).
pub static X86_64: ArchRegs = ArchRegs {
    name: "x86_64",
    machine: 62,
    names: &[
        "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12",
        "r13", "r14", "r15", "rip",
    ],
    sp: 7,
    fp: 6,
    ra: 16,
    ptr: 8,
    // rt_sigframe: after the handler returns into __restore_rt, sp points at
    // the ucontext; uc_mcontext (struct sigcontext) starts at offset 40 with
    // r8 r9 r10 r11 r12 r13 r14 r15 rdi rsi rbp rbx rdx rax rcx rsp rip.
    sigframe: Some(SigFrameLayout {
        // mov $15, %rax; syscall
        trampoline: &[0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05],
        regs_offset: 40,
        slots: &[
            (0, 8),
            (1, 9),
            (2, 10),
            (3, 11),
            (4, 12),
            (5, 13),
            (6, 14),
            (7, 15),
            (8, 5),
            (9, 4),
            (10, 6),
            (11, 3),
            (12, 1),
            (13, 0),
            (14, 2),
            (15, 7),
        ],
        pc_slot: 16,
    }),
};

/// aarch64: x0-x30, sp 31; the return address column is x30 (lr).
pub static AARCH64: ArchRegs = ArchRegs {
    name: "aarch64",
    machine: 183,
    names: &[
        "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
        "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26",
        "x27", "x28", "x29", "x30", "sp",
    ],
    sp: 31,
    fp: 29,
    ra: 30,
    ptr: 8,
    // rt_sigframe: siginfo (128 bytes), then ucontext whose uc_mcontext
    // (at 176) holds fault_address, then x0..x30, sp, pc.
    sigframe: Some(SigFrameLayout {
        // mov x8, #139; svc #0
        trampoline: &[0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4],
        regs_offset: 128 + 176 + 8,
        slots: &[
            (0, 0),
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 5),
            (6, 6),
            (7, 7),
            (8, 8),
            (9, 9),
            (10, 10),
            (11, 11),
            (12, 12),
            (13, 13),
            (14, 14),
            (15, 15),
            (16, 16),
            (17, 17),
            (18, 18),
            (19, 19),
            (20, 20),
            (21, 21),
            (22, 22),
            (23, 23),
            (24, 24),
            (25, 25),
            (26, 26),
            (27, 27),
            (28, 28),
            (29, 29),
            (30, 30),
            (31, 31),
        ],
        pc_slot: 32,
    }),
};

/// The architecture of ELF files with `e_machine == machine`.
pub fn arch_for_machine(machine: u16) -> Option<&'static ArchRegs> {
    [&X86_64, &AARCH64]
        .into_iter()
        .find(|a| a.machine == machine)
}

/// The registers of one frame, by DWARF number; unknown ones are `None`.
#[derive(Debug, Clone)]
pub struct InitialRegs {
    /// The architecture the numbers refer to.
    pub arch: &'static ArchRegs,
    /// The program counter.
    pub pc: u64,
    /// Register values by DWARF number.
    pub regs: [Option<u64>; MAX_REGS],
}

impl InitialRegs {
    /// No registers known.
    pub fn empty(arch: &'static ArchRegs) -> InitialRegs {
        InitialRegs {
            arch,
            pc: 0,
            regs: [None; MAX_REGS],
        }
    }

    /// Register `n` (DWARF numbering).
    pub fn get(&self, n: u16) -> Option<u64> {
        self.regs.get(usize::from(n)).copied().flatten()
    }

    /// Sets register `n`; numbers beyond [`MAX_REGS`] are ignored.
    pub fn set(&mut self, n: u16, value: Option<u64>) {
        if let Some(slot) = self.regs.get_mut(usize::from(n)) {
            *slot = value;
        }
    }

    /// The stack pointer.
    pub fn sp(&self) -> Option<u64> {
        self.get(self.arch.sp)
    }
}

/// `user_regs_struct` word index for each x86_64 DWARF register 0..=16.
const X86_64_PRSTATUS: [usize; 17] = [10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16];

/// Registers from x86_64 `NT_PRSTATUS` words (`struct user_regs_struct`:
/// r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs
/// eflags rsp ...). Missing words leave registers unknown.
pub fn from_prstatus_x86_64(words: &[u64]) -> InitialRegs {
    let mut r = InitialRegs::empty(&X86_64);
    for (dwarf, &word) in X86_64_PRSTATUS.iter().enumerate() {
        r.regs[dwarf] = words.get(word).copied();
    }
    r.pc = words.get(16).copied().unwrap_or(0);
    r
}

/// Registers from aarch64 `NT_PRSTATUS` words (`struct user_pt_regs`:
/// x0..x30, sp, pc, pstate).
pub fn from_prstatus_aarch64(words: &[u64]) -> InitialRegs {
    let mut r = InitialRegs::empty(&AARCH64);
    for n in 0..32 {
        r.regs[n] = words.get(n).copied();
    }
    r.pc = words.get(32).copied().unwrap_or(0);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_64_prstatus_mapping() {
        let words: Vec<u64> = (0..27).map(|i| 1000 + i).collect();
        let r = from_prstatus_x86_64(&words);
        assert_eq!(r.get(0), Some(1010), "rax");
        assert_eq!(r.get(3), Some(1005), "rbx");
        assert_eq!(r.get(6), Some(1004), "rbp");
        assert_eq!(r.sp(), Some(1019), "rsp");
        assert_eq!(r.get(15), Some(1000), "r15");
        assert_eq!(r.pc, 1016);
        assert_eq!(X86_64.names[usize::from(X86_64.sp)], "rsp");
        let short = from_prstatus_x86_64(&words[..5]);
        assert_eq!(short.sp(), None);
    }

    #[test]
    fn aarch64_prstatus_mapping() {
        let words: Vec<u64> = (0..34).collect();
        let r = from_prstatus_aarch64(&words);
        assert_eq!(r.get(30), Some(30));
        assert_eq!(r.sp(), Some(31));
        assert_eq!(r.pc, 32);
        assert_eq!(AARCH64.names.len(), 32);
    }
}
