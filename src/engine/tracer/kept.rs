//! Tasks a tool let go that rtrace must keep tracing.
//!
//! A tool without syscall stops hides its CPU pinning with a seccomp filter
//! that stops only the affinity calls (see [`crate::engine::affinity`]). The
//! filter cannot be removed, and once no tracer is attached its
//! `SECCOMP_RET_TRACE` fails those calls with `ENOSYS`: a child the tool
//! does not follow (`rtrace break` without `-f`) would then see
//! `sched_getaffinity` fail. So such a task is let go only as far as the
//! tool can tell: the handler undoes its changes ([`Handler::detaching`])
//! and sees [`Event::Detached`], but the engine keeps the task, unpinned,
//! under `PTRACE_CONT`. It stops only for signals (passed on as they are),
//! group-stops (parked as any other), its affinity calls (run as they are:
//! its mask is its own again) and its children's creation (kept as well);
//! the handler never hears of it again. rtrace waits for kept tasks as for
//! the others, as `strace -f` waits for every child, and kills them with
//! the launched command when it is interrupted.
//!
//! [`Handler::detaching`]: super::Handler::detaching

use super::{Event, Handler, Outcome, Stamp, Task, Tracer};
use crate::engine::ptrace::{self, Tid};
use crate::engine::status::{event, Status};
use std::io;

impl Tracer {
    /// Lets `tid` (stopped, carrying the filter) go as far as the handler
    /// is concerned and resumes it as a kept task, with `sig`.
    pub(super) fn keep(&mut self, tid: Tid, sig: i32, h: &mut dyn Handler) -> io::Result<()> {
        self.unpin(tid);
        h.detaching(tid);
        if let Some(t) = self.tasks.get_mut(&tid) {
            t.kept = true;
            t.detach_pending = false;
            t.step = false;
            t.in_syscall = false;
        }
        h.event(Event::Detached { tid }, &Stamp::default());
        ptrace::cont(tid, sig)
    }

    /// One wait status of a kept task; the handler sees none of it.
    pub(super) fn handle_kept(&mut self, tid: Tid, st: Status) {
        let r = match st {
            Status::Exited(code) => {
                self.gone(tid, Outcome::Exited(code));
                return;
            }
            Status::Killed { sig, core } => {
                self.gone(tid, Outcome::Killed(sig, core));
                return;
            }
            Status::GroupStop(_) => ptrace::listen(tid),
            Status::Signal(sig) => ptrace::cont(tid, sig),
            Status::Event(event::FORK | event::VFORK | event::CLONE) => {
                if let Ok(child) = ptrace::event_msg(tid) {
                    let t = self
                        .tasks
                        .entry(child as Tid)
                        .or_insert_with(|| Task::new(true, false));
                    t.early = false;
                    t.seccomp = true;
                    t.kept = true;
                    // Its creator was unpinned: so is it.
                    t.pinned = false;
                }
                ptrace::cont(tid, 0)
            }
            Status::Event(event::EXEC) => {
                let old = ptrace::event_msg(tid).map(|v| v as Tid).unwrap_or(tid);
                if old != tid {
                    // The execing thread took over the leader's tid.
                    if let Some(t) = self.tasks.remove(&old) {
                        self.tasks.insert(tid, t);
                    }
                }
                ptrace::cont(tid, 0)
            }
            // A seccomp stop (its affinity call runs as is), an interrupt,
            // a new child's first stop.
            Status::Event(_) | Status::Interrupt | Status::Syscall => ptrace::cont(tid, 0),
            Status::Other => Ok(()),
        };
        // ESRCH: killed meanwhile; its death is reported by wait.
        let _ = r;
    }

    fn gone(&mut self, tid: Tid, how: Outcome) {
        self.tasks.remove(&tid);
        if Some(tid) == self.main_pid {
            self.outcome = how;
        }
    }
}
