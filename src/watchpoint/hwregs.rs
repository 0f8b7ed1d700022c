//! Programs a watch plan (each watch's pieces, one per slot) into one
//! stopped thread's debug registers, reads
//! back which slot fired, and clears everything again.
//!
//! Linux exposes DR0–DR3, DR6 and DR7 through `PTRACE_POKEUSER` at
//! `offsetof(struct user, u_debugreg)`; each write is validated and turned
//! into a perf hardware-breakpoint event owned by the thread. Debug
//! registers are per thread and are *not* inherited by new threads
//! (`copy_thread` starts them empty), are flushed by `execve`, and — the
//! reason for [`DebugRegs::disarm`] — are *not* removed by `PTRACE_DETACH`:
//! a thread detached with a slot still enabled would be killed by the next
//! SIGTRAP.

use super::spec::Watch;
use crate::engine::tracee::Tracee;
use rtrace_arch::x86_debugreg::{Dr6, Dr7, Slot, UserArea};
use rtrace_arch::Arch;
use std::io;

/// The register image of a plan, ready to be written into threads.
#[derive(Clone, Debug)]
pub struct DebugRegs {
    area: UserArea,
    slots: Vec<(Slot, u64)>,
    dr7: Dr7,
}

impl DebugRegs {
    /// The image of `plan` for the CPU rtrace runs on; an error on CPUs
    /// whose watchpoint registers are not supported yet.
    pub fn native(plan: &[Watch]) -> Result<DebugRegs, String> {
        let area = match Arch::native() {
            Arch::X86_64 => UserArea::X86_64,
            other => {
                return Err(format!(
                    "hardware watchpoints are implemented for x86_64 only (this is {other:?})"
                ))
            }
        };
        let mut dr7 = Dr7::DISABLED;
        let mut slots = Vec::new();
        for w in plan {
            for p in &w.pieces {
                let len = rtrace_arch::x86_debugreg::check_range(p.addr, p.len, w.kind)
                    .map_err(|e| format!("cannot watch {}: {e}", w.expr))?;
                dr7 = dr7.with_slot(p.slot, w.kind, len);
                slots.push((p.slot, p.addr));
            }
        }
        Ok(DebugRegs { area, slots, dr7 })
    }

    /// Writes the plan into the stopped thread `t`.
    pub fn arm(&self, t: &Tracee) -> io::Result<()> {
        // DR7 off first, so that a slot another debugger left enabled never
        // runs with our address under its control bits; then addresses
        // (Linux registers a disabled breakpoint per written address), then
        // DR7, which enables them and is where the kernel checks length and
        // alignment.
        t.poke_user(self.area.dr7(), Dr7::DISABLED.bits())?;
        for &(slot, addr) in &self.slots {
            t.poke_user(self.area.addr(slot), addr)?;
        }
        t.poke_user(self.area.dr6(), Dr6::CLEAR.bits())?;
        t.poke_user(self.area.dr7(), self.dr7.bits())?;
        Ok(())
    }

    /// Disables every slot and zeroes the addresses and the status of the
    /// stopped thread `t`, leaving it as an untraced thread starts.
    pub fn disarm(&self, t: &Tracee) -> io::Result<()> {
        let r = t.poke_user(self.area.dr7(), Dr7::DISABLED.bits());
        for &(slot, _) in &self.slots {
            let _ = t.poke_user(self.area.addr(slot), 0);
        }
        let _ = t.poke_user(self.area.dr6(), Dr6::CLEAR.bits());
        r
    }

    /// The plan's slots that fired (from DR6); clears DR6 when any did, so
    /// the next trap reports only its own slot (older kernels accumulate).
    pub fn take_hits(&self, t: &Tracee) -> io::Result<Vec<Slot>> {
        let dr6 = Dr6::from_bits(t.peek_user(self.area.dr6())?);
        let hits: Vec<Slot> = dr6
            .hits()
            .filter(|s| self.slots.iter().any(|(m, _)| m == s))
            .collect();
        if dr6.any_hit() {
            t.poke_user(self.area.dr6(), Dr6::CLEAR.bits())?;
        }
        Ok(hits)
    }

    /// Whether the thread's DR7 enables nothing and its address slots are
    /// zero (a self-check after [`DebugRegs::disarm`]).
    pub fn is_clear(&self, t: &Tracee) -> io::Result<bool> {
        let dr7 = Dr7::from_bits(t.peek_user(self.area.dr7())?);
        if dr7.any_enabled() {
            return Ok(false);
        }
        for slot in Slot::all() {
            if t.peek_user(self.area.addr(slot))? != 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use rtrace_arch::x86_debugreg::UserArea;

    #[test]
    fn user_area_matches_the_c_struct() {
        // The arch model's offset is the C layout's.
        assert_eq!(
            std::mem::offset_of!(libc::user, u_debugreg),
            UserArea::X86_64.debugreg
        );
    }
}
