//! Watches of shared-library globals in a launched program: the first
//! thread is held at the program's entry point (an execute watchpoint, no
//! code changed), where the libraries it needs are loaded, and the watches
//! are placed there.

use super::{Target, Watcher};
use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use crate::watchpoint::hwregs::DebugRegs;
use crate::watchpoint::local::exec_hook;
use rtrace_arch::regs::RegisterFile;

impl Watcher {
    /// Whether a watch waits for the libraries loaded at start-up.
    pub(super) fn needs_libraries(&self) -> bool {
        self.exprs
            .iter()
            .any(|(_, t)| matches!(t, Target::Shared(..)))
    }

    /// Stops the launched program's thread `tid` (at its exec stop, in the
    /// dynamic linker) at the program's entry point, where the libraries
    /// it needs are loaded and relocated: an execute watchpoint, so no
    /// code is changed; [`Watcher::at_entry`] takes it out.
    pub(super) fn hook_entry(&mut self, tid: Tid) -> Result<(), String> {
        let entry = crate::symbols::entry_point(tid)
            .ok_or_else(|| format!("cannot read the entry point of process {tid} (auxv)"))?;
        let slot = rtrace_arch::x86_debugreg::Slot::new(0).expect("slot 0");
        let regs = DebugRegs::native(&[exec_hook(entry, slot)])?;
        regs.arm(&Tracee::new(tid))
            .map_err(|e| format!("cannot stop process {tid} at its entry point: {e}"))?;
        self.regs = Some(regs);
        self.armed.insert(tid);
        self.tgid = Some(tid);
        self.entry_hook = Some(entry);
        Ok(())
    }

    /// At a debug trap of thread `tid` while [`Watcher::hook_entry`]'s
    /// watchpoint is set: at the entry point, clears it, places the
    /// watches (now that the libraries are loaded) and arms the thread.
    /// False if the trap is not the hook's.
    pub(super) fn at_entry(&mut self, tid: Tid) -> bool {
        let Some(entry) = self.entry_hook else {
            return false;
        };
        let t = Tracee::new(tid);
        let words = t.regs().unwrap_or_default();
        if words.is_empty() || rtrace_arch::native::Regs::pc(&words) != entry {
            return false;
        }
        if let Some(hook) = self.regs.take() {
            if let Err(e) = hook.disarm(&t) {
                self.report.note(&format!(
                    "could not clear the entry-point watchpoint of thread {tid}: {e}"
                ));
            }
        }
        self.armed.remove(&tid);
        self.entry_hook = None;
        match self.start(tid) {
            Ok(()) => self.arm(tid),
            Err(e) => self.fail(e),
        }
        true
    }
}
