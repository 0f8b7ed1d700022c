//! The scope tracking of a `func:var` watch ([`crate::watchpoint::local`]):
//! the entry hook that places the variable in an activation, the data
//! hits while it runs, and the return-address hook that ends it.

use super::{read_bytes, Watcher};
use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use crate::watchpoint::hwregs::DebugRegs;
use crate::watchpoint::local::{exec_hook, Frame, LocalWatch};
use crate::watchpoint::resolve::{FileSymbol, WatchedFrame};
use crate::watchpoint::spec::{self, Expr};
use rtrace_arch::regs::RegisterFile;

impl Watcher {
    /// Starts a `func:var` watch: every thread waits for `func`'s entry.
    pub(super) fn start_local(
        &mut self,
        pid: Tid,
        func: FileSymbol,
        var: String,
    ) -> Result<(), String> {
        let entry = self.symbols.runtime_addr(pid, &func)?;
        let slot = rtrace_arch::x86_debugreg::Slot::new(0).expect("slot 0");
        self.regs = Some(DebugRegs::native(&[exec_hook(entry, slot)])?);
        self.report.note(&format!(
            "watch 1: {}:{var} is watched in each call of {} (entry {entry:#x})",
            func.name, func.name
        ));
        self.local = Some(LocalWatch {
            func,
            var,
            entry,
            frame: None,
        });
        self.tgid = Some(pid);
        self.active = true;
        Ok(())
    }

    /// At a debug trap of thread `tid` of a `func:var` watch: enters an
    /// activation at the function's entry, leaves it at its return
    /// address, and hands data hits to [`Watcher::report_slots`]. False if
    /// there is no local watch or nothing of its fired.
    pub(super) fn local_trap(&mut self, tid: Tid) -> bool {
        let Some(l) = &self.local else {
            return false;
        };
        let t = Tracee::new(tid);
        let mine = l.frame.as_ref().filter(|f| f.tid == tid);
        let regs = match (mine, &self.regs) {
            (Some(f), _) => &f.regs,
            (None, Some(r)) => r,
            (None, None) => return false,
        };
        let Ok(slots) = regs.take_hits(&t) else {
            return false;
        };
        if slots.is_empty() {
            return false;
        }
        let words = t.regs().unwrap_or_default();
        if words.is_empty() {
            return true;
        }
        let sp = rtrace_arch::native::Regs::syscall_regs(&words).sp;
        match mine {
            Some(f) if slots.contains(&f.ret_slot) => {
                // A deeper activation returning to the same place (recursion
                // through the caller) has its stack pointer below the CFA;
                // the kernel sets RF, so it resumes past the hook.
                if sp >= f.cfa {
                    self.leave(tid);
                }
                true
            }
            Some(_) => {
                self.report_slots(tid, slots);
                true
            }
            None => {
                // The entry hook. Another thread's activation is being
                // watched: this one is not (one at a time).
                if l.frame.is_none() {
                    if let Err(e) = self.enter(tid) {
                        self.fail(e);
                    }
                }
                true
            }
        }
    }

    /// Thread `tid` is at the entry of the local watch's function: places
    /// the variable in this activation and arms the thread with the data
    /// watch and the return-address hook.
    pub(super) fn enter(&mut self, tid: Tid) -> Result<(), String> {
        let pid = self.tgid.unwrap_or(tid);
        let Some(l) = &self.local else { return Ok(()) };
        let (func, var) = (l.func.name.clone(), l.var.clone());
        let lf = self
            .symbols
            .local_frame(pid, tid, &var)
            .map_err(|e| format!("cannot watch {func}:{var}: {e}"))?;
        let expr = Expr::Local {
            func: func.clone(),
            var,
        };
        let plan = spec::plan(&[(expr.clone(), lf.addr, lf.size)], self.kind)
            .map_err(|e| e.to_string())?;
        let used = plan[0].pieces.len();
        let ret_slot = rtrace_arch::x86_debugreg::Slot::new(used).ok_or_else(|| {
            format!(
                "cannot watch {expr}: its {} bytes take every debug register, and one is \
                 needed to see {func} return",
                lf.size
            )
        })?;
        if let Some(c) = &self.conds[0] {
            let at = WatchedFrame { tid, cfa: lf.cfa };
            self.symbols
                .check_condition(pid, &c.expr, Some(at))
                .map_err(|e| format!("cannot watch {expr} if {}: {e}", c.text))?;
        }
        let regs = DebugRegs::native(&[plan[0].clone(), exec_hook(lf.ret, ret_slot)])?;
        let mut t = Tracee::new(tid);
        regs.arm(&t)
            .map_err(|e| format!("cannot set the debug registers of thread {tid}: {e}"))?;
        self.copies[0] = read_bytes(&mut t, lf.addr, lf.size);
        self.formatters[0] = lf.formatter;
        let cond = self.conds[0].as_ref().map(|c| c.text.as_str());
        self.report.plan(&plan, &[cond]);
        self.plan = plan;
        if let Some(l) = &mut self.local {
            l.frame = Some(Frame {
                tid,
                cfa: lf.cfa,
                ret: lf.ret,
                ret_slot,
                regs,
            });
        }
        Ok(())
    }

    /// The watched activation of thread `tid` has returned: reports where
    /// the caller resumes and sets the thread waiting for the next call.
    pub(super) fn leave(&mut self, tid: Tid) {
        let Some(f) = self.local.as_mut().and_then(|l| l.frame.take()) else {
            return;
        };
        let pid = self.tgid.unwrap_or(tid);
        let at = self.symbols.place(pid, f.ret);
        if let Some(w) = self.plan.first() {
            let w = w.clone();
            self.report.left_scope(tid, &w, &at);
        }
        let t = Tracee::new(tid);
        let back = match &self.regs {
            Some(base) => base.arm(&t),
            None => f.regs.disarm(&t),
        };
        if let Err(e) = back {
            if e.raw_os_error() != Some(libc::ESRCH) {
                self.fail(format!(
                    "cannot set the debug registers of thread {tid}: {e}"
                ));
            }
        }
    }
}
