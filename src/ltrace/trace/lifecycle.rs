//! Threads, processes and their end: adopting threads and fork children
//! (a followed child inherits the parent's pending calls, an unfollowed one
//! gets every original byte and return address back before it is let go),
//! and undoing everything for a thread being detached.

use super::{Ltrace, Pending, Thread};
use crate::engine::ptrace::{self, Tid};
use crate::engine::tracee::Tracee;
use rtrace_arch::x86_64::{can_inject, PC, SP};

fn tgid_and_ppid(tid: Tid) -> Option<(Tid, Tid)> {
    let s = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    let field = |k: &str| -> Option<Tid> {
        s.lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim().parse().ok())
    };
    Some((field("Tgid:")?, field("PPid:")?))
}

impl Ltrace {
    pub(super) fn add_thread(&mut self, tid: Tid, space: u64) {
        if let Some(p) = self.procs.get_mut(&space) {
            p.space.threads.insert(tid);
        }
        self.threads.insert(
            tid,
            Thread {
                space,
                shadow: Vec::new(),
            },
        );
    }

    pub(super) fn remove_thread(&mut self, tid: Tid) {
        if let Some(t) = self.threads.remove(&tid) {
            if let Some(p) = self.procs.get_mut(&t.space) {
                p.space.threads.remove(&tid);
                if p.space.threads.is_empty() {
                    self.procs.remove(&t.space);
                }
            }
        }
    }

    /// The space of `tid`, adopting a thread or child whose creation event
    /// has not come yet (its first trap may come first).
    pub(super) fn space_of(&mut self, tid: Tid) -> Option<u64> {
        if let Some(t) = self.threads.get(&tid) {
            return Some(t.space);
        }
        let (tgid, ppid) = tgid_and_ppid(tid)?;
        if tgid != tid {
            if let Some(id) = self.threads.get(&tgid).map(|t| t.space) {
                self.add_thread(tid, id);
                return Some(id);
            }
        }
        let parent = self.threads.get(&ppid).map(|t| t.space)?;
        self.new_child(ppid, tid, parent);
        self.threads.get(&tid).map(|t| t.space)
    }

    pub(super) fn new_child(&mut self, parent: Tid, child: Tid, pspace: u64) {
        if ptrace::same_vm(parent, child) == Some(true) {
            // vfork: shares the parent's memory until it execs. It returns
            // from `vfork` through the trampoline as the parent will (glibc
            // keeps the return address in a register across the call), so
            // it gets the parent's pending calls; an unfollowed one's are
            // not shown.
            self.add_thread(child, pspace);
            let mut copied: Vec<Pending> = self
                .threads
                .get(&parent)
                .map(|t| t.shadow.clone())
                .unwrap_or_default();
            if !self.o.follow {
                self.leaving.push(child);
                for c in &mut copied {
                    c.fcall = None;
                    c.parts.clear();
                }
            }
            if let Some(ct) = self.threads.get_mut(&child) {
                ct.shadow = copied;
            }
            return;
        }
        let Some(pp) = self.procs.get(&pspace) else {
            return;
        };
        let copy = pp.fork_copy(child);
        let id = self.next_proc;
        self.next_proc += 1;
        self.procs.insert(id, copy);
        self.add_thread(child, id);
        // The child's stack holds the parent's hijacked return addresses.
        let shadow: Vec<(u64, u64)> = self
            .threads
            .get(&parent)
            .map(|t| t.shadow.iter().map(|s| (s.slot, s.ret)).collect())
            .unwrap_or_default();
        if !self.o.follow {
            // Let it go clean: bytes and return addresses restored.
            let p = self.procs.get_mut(&id).expect("inserted");
            p.space.restore_code();
            if let Some(tramp) = p.space.trampoline {
                for (slot, ret) in shadow.iter().rev() {
                    let mut b = [0u8; 8];
                    if p.space.mem.read(*slot, &mut b) && u64::from_le_bytes(b) == tramp {
                        p.space.mem.write(*slot, &ret.to_le_bytes());
                    }
                }
            }
            self.detach.push(child);
        } else if let Some(pt) = self.threads.get(&parent) {
            // Same pending calls, their returns come in the child too.
            let copied: Vec<Pending> = pt.shadow.clone();
            if let Some(ct) = self.threads.get_mut(&child) {
                ct.shadow = copied;
            }
        }
    }

    /// Undoes rltrace's changes for thread `tid` before it is let go.
    pub(super) fn release(&mut self, tid: Tid) {
        let Some(t) = self.threads.get(&tid) else {
            return;
        };
        let id = t.space;
        let shadow: Vec<(u64, u64)> = t.shadow.iter().map(|s| (s.slot, s.ret)).collect();
        let Some(p) = self.procs.get_mut(&id) else {
            return;
        };
        p.space.restore_code();
        let tracee = Tracee::new(tid);
        let regs0 = tracee.regs().ok();
        if let Some(mut regs) = regs0.clone() {
            let pc = regs[PC];
            let mut newpc = p.space.pc_outside_pages(pc);
            if Some(pc) == p.space.trampoline {
                let want = regs[SP].wrapping_sub(8);
                newpc = shadow
                    .iter()
                    .rev()
                    .find(|s| s.0 == want)
                    .or(shadow.last())
                    .map(|s| s.1);
            }
            if let Some(np) = newpc {
                regs[PC] = np;
                let _ = tracee.set_regs(&regs);
            }
        }
        if let Some(tramp) = p.space.trampoline {
            for (slot, ret) in shadow.iter().rev() {
                let mut b = [0u8; 8];
                if p.space.mem.read(*slot, &mut b) && u64::from_le_bytes(b) == tramp {
                    p.space.mem.write(*slot, &ret.to_le_bytes());
                }
            }
        }
        if !p.space.unmapped && regs0.as_deref().is_some_and(can_inject) {
            p.space.unmap_pages(tid);
        }
        self.remove_thread(tid);
    }
}
