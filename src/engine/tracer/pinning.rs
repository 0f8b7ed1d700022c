//! Keeping tasks on rtrace's CPU (see [`crate::engine::affinity`]): pinning
//! attached threads, pinning and unpinning as tasks come and go (rstrace's
//! seccomp mode), rewriting the affinity calls' results so the program does
//! not see it, and giving each task its mask back as it is let go.

use super::{Task, Tracer};
use crate::engine::ptrace::Tid;

impl Tracer {
    /// Pins `t`, a thread of a process being attached, when the tool asked
    /// for it; rtrace pins itself first (its CPU is the one).
    pub(super) fn pin_attached(&mut self, tid: Tid, t: &mut Task) {
        if !self.cfg.pin_attached {
            return;
        }
        if self.pin.is_none() {
            self.pin = crate::engine::affinity::Pin::pin_self();
            self.pinned_now = self.pin.is_some();
        }
        if let Some(pin) = &self.pin {
            t.orig = pin.pin_attached(tid);
            t.pinned = t.orig.is_some();
        }
    }

    /// Gives `tid` its own mask back if rtrace pinned it.
    pub(super) fn unpin(&mut self, tid: Tid) {
        let (Some(pin), Some(t)) = (self.pin.as_ref(), self.tasks.get_mut(&tid)) else {
            return;
        };
        if !std::mem::take(&mut t.pinned) {
            return;
        }
        let _ = match &t.orig {
            Some(orig) => pin.restore_attached(tid, orig),
            None => pin.restore(tid),
        };
    }

    /// In seccomp mode, pins while exactly one task is traced and unpins as
    /// soon as there are more (affinity.rs).
    pub(super) fn rebalance_pin(&mut self) {
        if !self.pin_single {
            return;
        }
        let Some(pin) = self.pin.as_mut() else { return };
        let single = self.tasks.len() == 1;
        if single && !self.pinned_now {
            if pin.repin_self().is_err() {
                return;
            }
            for (tid, t) in self.tasks.iter_mut() {
                if !t.own_affinity && !t.attached && pin.pin_thread(*tid).is_ok() {
                    t.pinned = true;
                }
            }
            self.pinned_now = true;
        } else if !single && self.pinned_now {
            for (tid, t) in self.tasks.iter_mut() {
                if t.pinned {
                    let _ = pin.restore(*tid);
                    t.pinned = false;
                }
            }
            let _ = pin.restore(0);
            self.pinned_now = false;
        }
    }

    /// Keeps CPU pinning invisible at the exit of an affinity call (see
    /// affinity.rs): the command sees its original mask, and a command that
    /// sets its own affinity keeps it.
    pub(super) fn affinity_exit(&mut self, tid: Tid, ret: i64) {
        let (Some(pin), Some(t)) = (self.pin.as_ref(), self.tasks.get(&tid)) else {
            return;
        };
        let Some(arch) = t.cur_arch else { return };
        let name = arch.syscall_name(t.cur_nr).unwrap_or("");
        let args = t.cur_args;
        let target = if args[0] as u32 == 0 {
            tid
        } else {
            args[0] as Tid
        };
        match name {
            "sched_getaffinity" if ret > 0 && self.tasks.get(&target).is_some_and(|t| t.pinned) => {
                let bytes = match self.tasks.get(&target).and_then(|t| t.orig.as_ref()) {
                    Some(orig) => orig.bytes()[..(ret as usize).min(orig.bytes().len())].to_vec(),
                    None => pin.visible_mask(ret as usize).to_vec(),
                };
                let _ = crate::engine::affinity::poke_bytes(tid, args[2], &bytes);
            }
            "sched_setaffinity" if ret == 0 => {
                if let Some(t) = self.tasks.get_mut(&target) {
                    t.pinned = false;
                    t.own_affinity = true;
                }
            }
            _ => {}
        }
    }
}
