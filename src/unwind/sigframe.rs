//! Signal frames without CFI: recognise the `rt_sigreturn` trampoline by its
//! code and take the interrupted registers from the kernel's `ucontext` on
//! the stack (layout per architecture in [`super::regs`]).
//!
//! glibc's `__restore_rt` has CFI with the `S` augmentation and DWARF
//! expressions that say the same thing; this is the fallback for
//! trampolines without it (other C libraries, hand-made restorers).

use super::memcache::PageCache;
use super::regs::InitialRegs;

/// Whether the code at `pc` is the architecture's signal-return trampoline.
pub fn is_trampoline(regs: &InitialRegs, mem: &mut PageCache<'_>, pc: u64) -> bool {
    let Some(layout) = &regs.arch.sigframe else {
        return false;
    };
    let mut code = [0u8; 16];
    let code = &mut code[..layout.trampoline.len()];
    mem.read_exact(pc, code) && code == layout.trampoline
}

/// The interrupted registers, read from the signal frame whose trampoline
/// frame has registers `regs` (sp pointing where the kernel left it).
pub fn restore(regs: &InitialRegs, mem: &mut PageCache<'_>) -> Option<InitialRegs> {
    let layout = regs.arch.sigframe.as_ref()?;
    let base = regs.sp()?.checked_add(layout.regs_offset)?;
    let ptr = regs.arch.ptr;
    let slot = |i: u8| base + u64::from(i) * u64::from(ptr);
    let mut out = InitialRegs::empty(regs.arch);
    for &(i, dwarf) in layout.slots {
        out.set(dwarf, Some(mem.read_word(slot(i), ptr)?));
    }
    out.pc = mem.read_word(slot(layout.pc_slot), ptr)?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::regs::X86_64;
    use super::*;
    use crate::engine::memory::FakeMemory;

    #[test]
    fn x86_64_ucontext() {
        let mut fake = FakeMemory::default();
        let code = fake.put(X86_64.sigframe.as_ref().unwrap().trampoline);
        // ucontext: 40 bytes of header, then r8..r15, rdi, rsi, rbp, rbx, rdx,
        // rax, rcx, rsp, rip.
        let mut uc = vec![0u8; 40];
        for v in 100u64..117 {
            uc.extend_from_slice(&v.to_le_bytes());
        }
        let sp = fake.put(&uc);
        let mut cache = PageCache::new(&mut fake);
        let mut regs = InitialRegs::empty(&X86_64);
        regs.set(7, Some(sp));
        assert!(is_trampoline(&regs, &mut cache, code));
        assert!(!is_trampoline(&regs, &mut cache, code + 1));
        let out = restore(&regs, &mut cache).unwrap();
        assert_eq!(out.get(8), Some(100), "r8");
        assert_eq!(out.get(5), Some(108), "rdi");
        assert_eq!(out.get(6), Some(110), "rbp");
        assert_eq!(out.get(0), Some(113), "rax");
        assert_eq!(out.sp(), Some(115));
        assert_eq!(out.pc, 116);
        regs.set(7, Some(sp + 0x10000));
        assert!(restore(&regs, &mut cache).is_none(), "unreadable frame");
    }
}
