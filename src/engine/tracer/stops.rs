//! Decoding one wait status of the [`Tracer`] loop: exits, syscall stops
//! (through `PTRACE_GET_SYSCALL_INFO` or registers), ptrace events (fork,
//! exec, seccomp), signal and group stops; the CPU pinning upkeep that goes
//! with them is in [`super::pinning`].

use super::procfs::{creator_of, is_thread_of};
use super::{arch_of, Event, Handler, Outcome, Resume, Stamp, Task, Tracer};
use crate::engine::ptrace::{self, info_op, Tid};
use crate::engine::status::{classify, event, Status};
use rtrace_arch::regs::RegisterFile;
use rtrace_arch::Arch;

impl Tracer {
    pub(super) fn handle(&mut self, tid: Tid, status: i32, h: &mut dyn Handler, stamp: &Stamp) {
        let st = classify(status);
        if !self.tasks.contains_key(&tid) {
            match st {
                // A wake-up child of our signal handler, or an unknown child.
                Status::Exited(_) | Status::Killed { .. } => {
                    if !self.unfollowed_gone(tid)
                        && !crate::engine::signals::is_waker(tid)
                        && !crate::engine::delay::is_waker(tid)
                    {
                        h.event(Event::Unknown { tid, exited: true }, stamp);
                    }
                    return;
                }
                // Traced without being followed: a clone with CLONE_PTRACE
                // (the kernel attaches such a child to its parent's
                // tracer), or a child seen only to be unpinned. Let it go,
                // as strace does (unfollowed.rs).
                _ if !self.cfg.follow_forks => {
                    self.let_go_unfollowed(tid, h, stamp);
                    return;
                }
                _ => {
                    // A new child stopping before its creator's fork event.
                    // It belongs to an attached process when its creator
                    // does: wait4 may report a busy thread's stops long
                    // before the creator's event, and until then a child
                    // taken for a launched one would be killed by
                    // `kill_launched_and_detach`.
                    let creator = creator_of(tid).and_then(|c| self.tasks.get(&c));
                    let attached = creator.is_some_and(|t| t.attached);
                    // A kept task's child is kept too (kept.rs).
                    let kept = creator.is_some_and(|t| t.kept);
                    let mut t = Task::new(self.filter.is_some(), attached);
                    t.early = true;
                    t.kept = kept;
                    self.tasks.insert(tid, t);
                }
            }
        }
        if self.tasks.get(&tid).is_some_and(|t| t.kept) {
            self.handle_kept(tid, st);
            return;
        }
        if let Some(t) = self.tasks.get_mut(&tid) {
            // A single step asked for at the previous stop is over.
            t.step = false;
        }
        let first = match self.tasks.get_mut(&tid) {
            Some(t) if !t.ready && !matches!(st, Status::Exited(_) | Status::Killed { .. }) => {
                t.ready = true;
                true
            }
            _ => false,
        };
        if first {
            h.task_ready(tid);
        }
        match st {
            Status::Exited(code) => {
                self.unhold(tid);
                self.tasks.remove(&tid);
                if Some(tid) == self.main_pid {
                    self.outcome = Outcome::Exited(code);
                }
                h.event(Event::Exited { tid, code }, stamp);
                self.rebalance_pin();
            }
            Status::Killed { sig, core } => {
                self.unhold(tid);
                self.tasks.remove(&tid);
                if Some(tid) == self.main_pid {
                    self.outcome = Outcome::Killed(sig, core);
                }
                h.event(Event::Killed { tid, sig, core }, stamp);
                self.rebalance_pin();
            }
            Status::Syscall => self.on_syscall(tid, h, stamp),
            Status::Event(ev) => self.on_event(tid, ev, h, stamp),
            Status::GroupStop(sig) => {
                h.event(Event::GroupStop { tid, sig }, stamp);
                if let Some(t) = self.tasks.get_mut(&tid) {
                    t.listening = true;
                }
                let _ = ptrace::listen(tid);
            }
            Status::Interrupt => {
                if let Some(t) = self.tasks.get_mut(&tid) {
                    t.listening = false;
                }
                // task_ready may have asked to let tasks go.
                self.take_detach_requests(h);
                self.restart(tid, 0, h);
            }
            Status::Signal(sig) => {
                let hidden = self.tasks.get(&tid).is_some_and(|t| t.hidden);
                let mut deliver = sig;
                if !hidden {
                    let info = ptrace::siginfo(tid).unwrap_or([0; 128]);
                    h.event(
                        Event::Signal {
                            tid,
                            sig,
                            info: &info,
                        },
                        stamp,
                    );
                    match h.signal_stop(tid, sig, &info) {
                        Resume::Deliver => {}
                        Resume::Suppress => deliver = 0,
                        Resume::Step => {
                            deliver = 0;
                            if let Some(t) = self.tasks.get_mut(&tid) {
                                t.step = true;
                            }
                        }
                    }
                    self.take_detach_requests(h);
                }
                self.restart(tid, deliver, h);
            }
            Status::Other => {}
        }
    }

    /// Marks the tasks the handler wants to let go: a stopped one is detached
    /// when it is restarted, a running one is interrupted first.
    fn take_detach_requests(&mut self, h: &mut dyn Handler) {
        for tid in h.detach_requests() {
            if let Some(t) = self.tasks.get_mut(&tid) {
                if !t.detach_pending {
                    t.detach_pending = true;
                    let _ = ptrace::interrupt(tid);
                }
            }
        }
    }

    fn syscall_view(&mut self, tid: Tid) -> Option<ptrace::SyscallInfo> {
        if self.cfg.syscall_info {
            return ptrace::get_syscall_info(tid).ok();
        }
        // The register path: the tracer tracks entry/exit itself.
        let n = ptrace::get_regs(tid, &mut self.regs).ok()?;
        let words = &self.regs[..n / 8];
        let r = rtrace_arch::native::Regs::syscall_regs(words);
        let t = self.tasks.get(&tid)?;
        let op = if t.in_syscall {
            info_op::EXIT
        } else {
            info_op::ENTRY
        };
        Some(ptrace::SyscallInfo {
            op,
            arch: r.arch.unwrap_or(Arch::native()).audit_arch(),
            pc: r.pc,
            sp: r.sp,
            nr: r.nr,
            args: r.args,
            rval: r.ret,
            is_error: crate::engine::is_error(r.ret),
        })
    }

    fn on_syscall(&mut self, tid: Tid, h: &mut dyn Handler, stamp: &Stamp) {
        let Some(info) = self.syscall_view(tid) else {
            self.restart(tid, 0, h);
            return;
        };
        let Some(t) = self.tasks.get_mut(&tid) else {
            return;
        };
        match info.op {
            info_op::ENTRY => {
                t.in_syscall = true;
                let arch = arch_of(info.arch);
                t.cur_nr = info.nr;
                t.cur_arch = Some(arch);
                t.cur_args = info.args;
                if t.hidden
                    && arch
                        .syscall_name(info.nr)
                        .is_some_and(|n| n.starts_with("execve"))
                {
                    t.hidden = false;
                    // strace hides the child again if this exec fails.
                    t.check_exec = true;
                }
                if !t.hidden {
                    h.event(
                        Event::SyscallEntry {
                            tid,
                            arch,
                            nr: info.nr,
                            args: info.args,
                            sp: info.sp,
                        },
                        stamp,
                    );
                }
            }
            info_op::EXIT => {
                t.in_syscall = false;
                if t.pinned {
                    self.affinity_exit(tid, info.rval);
                }
                let Some(t) = self.tasks.get(&tid) else {
                    return;
                };
                if !t.hidden {
                    h.event(
                        Event::SyscallExit {
                            tid,
                            ret: info.rval,
                        },
                        stamp,
                    );
                }
                if let Some(t) = self.tasks.get_mut(&tid) {
                    if std::mem::take(&mut t.check_exec) && info.is_error {
                        t.hidden = true;
                    }
                }
            }
            _ => {}
        }
        self.take_detach_requests(h);
        self.restart(tid, 0, h);
    }

    fn on_event(&mut self, tid: Tid, ev: i32, h: &mut dyn Handler, stamp: &Stamp) {
        match ev {
            event::FORK | event::VFORK | event::CLONE if !self.cfg.follow_forks => {
                // Asked for only to unpin the child (unfollowed.rs).
                if let Ok(child) = ptrace::event_msg(tid) {
                    self.unfollowed_child(tid, child as Tid);
                }
            }
            event::FORK | event::VFORK | event::CLONE => {
                if let Ok(child) = ptrace::event_msg(tid) {
                    let child = child as Tid;
                    let parent_seccomp = self.tasks.get(&tid).is_some_and(|t| t.seccomp);
                    let parent_pinned = self.tasks.get(&tid).is_some_and(|t| t.pinned);
                    let parent_orig = self.tasks.get(&tid).and_then(|t| t.orig);
                    let attached = self.tasks.get(&tid).is_some_and(|t| t.attached);
                    match self.tasks.get_mut(&child) {
                        Some(t) => {
                            // Its first stop came first; it is already running.
                            t.early = false;
                            t.seccomp = parent_seccomp;
                            t.attached = attached;
                            t.pinned = parent_pinned;
                            t.orig = parent_orig;
                        }
                        None => {
                            let mut t = Task::new(parent_seccomp, attached);
                            // The kernel copies the creator's mask.
                            t.pinned = parent_pinned;
                            t.orig = parent_orig;
                            self.tasks.insert(child, t);
                        }
                    }
                    self.rebalance_pin();
                    let thread = ev == event::CLONE && is_thread_of(child, tid);
                    h.event(
                        Event::NewTask {
                            parent: tid,
                            child,
                            thread,
                        },
                        stamp,
                    );
                }
            }
            event::EXEC => {
                let old = ptrace::event_msg(tid).map(|v| v as Tid).unwrap_or(tid);
                if old != tid {
                    // The execing thread took over the leader's tid.
                    if let Some(mut t) = self.tasks.remove(&old) {
                        t.in_syscall = true;
                        self.tasks.insert(tid, t);
                    }
                    if Some(old) == self.main_pid {
                        self.main_pid = Some(tid);
                    }
                }
                if let Some(t) = self.tasks.get_mut(&tid) {
                    t.hidden = false;
                    if self.filter.is_some() && !t.attached {
                        t.seccomp = true;
                    }
                }
                self.rebalance_pin();
                h.event(Event::Exec { tid, old_tid: old }, stamp);
            }
            event::SECCOMP => {
                // Entry of a traced syscall in seccomp mode.
                let in_sys = self.tasks.get(&tid).is_some_and(|t| t.in_syscall);
                if !in_sys {
                    if let Ok(info) = ptrace::get_syscall_info(tid) {
                        let t = self.tasks.get_mut(&tid).expect("checked");
                        t.in_syscall = true;
                        t.cur_nr = info.nr;
                        t.cur_arch = Some(arch_of(info.arch));
                        t.cur_args = info.args;
                        if !t.hidden {
                            h.event(
                                Event::SyscallEntry {
                                    tid,
                                    arch: arch_of(info.arch),
                                    nr: info.nr,
                                    args: info.args,
                                    sp: info.sp,
                                },
                                stamp,
                            );
                        }
                    }
                }
                // Resumed with PTRACE_SYSCALL (in_syscall) to catch the exit.
                if let Some(t) = self.tasks.get_mut(&tid) {
                    t.event_stop = true;
                }
            }
            // The thread is about to exit (PTRACE_O_TRACEEXIT): a call it
            // is in will never return.
            event::EXIT
                if self
                    .tasks
                    .get(&tid)
                    .is_some_and(|t| t.in_syscall && !t.hidden) =>
            {
                h.event(Event::Exiting { tid }, stamp);
            }
            _ => {}
        }
        self.take_detach_requests(h);
        self.restart(tid, 0, h);
    }
}
