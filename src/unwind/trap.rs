//! Unwinding a thread stopped at one of rtrace's breakpoint traps, whose
//! return addresses rtrace may have replaced with its trampoline (return
//! probes, rltrace's return hijack): those stack slots read as the
//! original return addresses, so the unwinder follows the real callers.

use super::{InitialRegs, Unwinder, UnwoundFrame};
use crate::engine::memory::proc::ProcMem;
use crate::engine::memory::Memory;
use crate::engine::ptrace::Tid;
use crate::symbols::{ModuleMap, Symbolizer};
use rtrace_arch::x86_64::{PC, TRAP_PC_ADJUST};

/// Tracee memory in which the hijacked slots read as the originals.
pub struct Unhijacked {
    inner: ProcMem,
    /// (stack slot, original return address).
    hijacked: Vec<(u64, u64)>,
}

impl Unhijacked {
    /// Thread `tid`'s memory with `hijacked` (slot, original) put back.
    pub fn new(tid: Tid, hijacked: Vec<(u64, u64)>) -> Unhijacked {
        Unhijacked {
            inner: ProcMem::new(tid),
            hijacked,
        }
    }
}

impl Memory for Unhijacked {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        let n = self.inner.read(addr, buf);
        for &(slot, ret) in &self.hijacked {
            for (i, b) in ret.to_le_bytes().iter().enumerate() {
                let a = slot + i as u64;
                if a >= addr && a < addr + n as u64 {
                    buf[(a - addr) as usize] = *b;
                }
            }
        }
        n
    }
}

/// The registers at a trap: `regs` as read at the SIGTRAP of an INT3
/// (pc one past it), with pc moved back onto the breakpoint.
pub fn regs_at_trap(regs: &[u64]) -> InitialRegs {
    let mut at = regs.to_vec();
    at[PC] = regs[PC].wrapping_sub(TRAP_PC_ADJUST);
    super::from_prstatus_x86_64(&at)
}

/// At most `max` frames of thread `tid` stopped at a breakpoint trap
/// (`regs`), innermost (the breakpoint) first, the `hijacked` slots read
/// as their original return addresses.
pub fn frames_at_trap(
    unwinder: &mut Unwinder,
    sym: &Symbolizer,
    map: &ModuleMap,
    tid: Tid,
    regs: &[u64],
    hijacked: Vec<(u64, u64)>,
    max: usize,
) -> Vec<UnwoundFrame> {
    let init = regs_at_trap(regs);
    let mut mem = Unhijacked::new(tid, hijacked);
    unwinder.unwind_frames(sym, map, &init, &mut mem, max)
}
