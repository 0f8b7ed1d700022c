//! Letting tracees go: detaching from all of them (stopping every task
//! first, passing on a signal that was about to be delivered, taking a
//! queued SIGTRAP that rtrace caused), and killing launched ones.

use super::{Event, Handler, Resume, Stamp, Tracer};
use crate::engine::ptrace::{self, Tid};
use crate::engine::status::{classify, Status};

impl Tracer {
    /// Detaches from every tracee (attached ones run on). Tasks are
    /// interrupted first: ptrace can only detach a stopped tracee. A signal
    /// that was about to be delivered is passed on with the detach.
    pub fn detach_all(&mut self, h: &mut dyn Handler) {
        // First, before the wait below takes (and drops) their stops.
        self.let_go_awaiting(h);
        let tids: Vec<Tid> = self.tasks.keys().copied().collect();
        for &tid in &tids {
            self.unpin(tid);
        }
        if let Some(pin) = &self.pin {
            let _ = pin.restore(0);
        }
        // Stop every task before letting any go: a handler undoing its
        // changes to an address space (breakpoint bytes, an injected page)
        // must know no thread of it runs meanwhile. A held task is stopped.
        let mut stopped: Vec<(Tid, i32)> = Vec::new();
        for &tid in &tids {
            match self.unhold(tid) {
                Some(sig) => stopped.push((tid, sig)),
                None => {
                    let _ = ptrace::interrupt(tid);
                }
            }
        }
        while stopped.len() < self.tasks.len() {
            let res = match crate::engine::tracee::take_requeued() {
                Some(x) => Ok(x),
                None => ptrace::wait_any(None),
            };
            let (tid, status) = match res {
                Ok(x) => x,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(_) => break,
            };
            if !self.tasks.contains_key(&tid) || stopped.iter().any(|s| s.0 == tid) {
                continue;
            }
            // The handler let kept tasks go already (kept.rs).
            let kept = self.tasks.get(&tid).is_some_and(|t| t.kept);
            match classify(status) {
                Status::Exited(code) => {
                    self.tasks.remove(&tid);
                    if !kept {
                        h.event(Event::Exited { tid, code }, &Stamp::default());
                    }
                }
                Status::Killed { sig, core } => {
                    self.tasks.remove(&tid);
                    if !kept {
                        h.event(Event::Killed { tid, sig, core }, &Stamp::default());
                    }
                }
                Status::Signal(sig) if kept => stopped.push((tid, sig)),
                Status::Signal(sig) => {
                    // A trap rtrace caused (a watchpoint hit racing with the
                    // interrupt) must not reach the program: SIGTRAP would
                    // kill it.
                    let info = ptrace::siginfo(tid).unwrap_or([0; 128]);
                    let sig = match h.signal_stop(tid, sig, &info) {
                        Resume::Deliver => sig,
                        Resume::Suppress | Resume::Step => 0,
                    };
                    stopped.push((tid, sig));
                }
                _ => stopped.push((tid, 0)),
            }
        }
        for (tid, mut sig) in stopped {
            match self.tasks.get(&tid) {
                None => continue,
                Some(t) if t.kept => {
                    let _ = ptrace::detach(tid, sig);
                    self.tasks.remove(&tid);
                    continue;
                }
                Some(_) => {}
            }
            // The interrupt's stop can come before a SIGTRAP that a hit
            // queued (the kernel reports the stop before dequeuing
            // signals): detached now, the thread would die of it. Let the
            // thread take it, here, where the handler can tell whose it is.
            if sig == 0 && sigtrap_pending(tid) && ptrace::cont(tid, 0).is_ok() {
                match ptrace::wait_tid(tid).map(classify) {
                    Ok(Status::Signal(s)) => {
                        let info = ptrace::siginfo(tid).unwrap_or([0; 128]);
                        sig = match h.signal_stop(tid, s, &info) {
                            Resume::Deliver => s,
                            Resume::Suppress | Resume::Step => 0,
                        };
                    }
                    Ok(Status::Exited(code)) => {
                        self.tasks.remove(&tid);
                        h.event(Event::Exited { tid, code }, &Stamp::default());
                        continue;
                    }
                    Ok(Status::Killed { sig, core }) => {
                        self.tasks.remove(&tid);
                        h.event(Event::Killed { tid, sig, core }, &Stamp::default());
                        continue;
                    }
                    _ => {}
                }
            }
            h.detaching(tid);
            let _ = ptrace::detach(tid, sig);
            self.tasks.remove(&tid);
            h.event(Event::Detached { tid }, &Stamp::default());
        }
    }

    /// Kills every launched tracee with `sig` (after SIGCONT, so a stopped one
    /// gets it), then detaches from the attached ones.
    pub fn kill_launched_and_detach(&mut self, sig: i32, h: &mut dyn Handler) {
        let launched: Vec<Tid> = self
            .tasks
            .iter()
            .filter(|(_, t)| !t.attached)
            .map(|(k, _)| *k)
            .collect();
        for tid in launched {
            let _ = ptrace::kill(tid, libc::SIGCONT);
            let _ = ptrace::kill(tid, sig);
        }
        self.detach_all(h);
    }

    /// True when some tracee was attached with `-p`.
    pub fn has_attached(&self) -> bool {
        self.tasks.values().any(|t| t.attached)
    }
}

/// Whether a SIGTRAP is queued for thread `tid` (`SigPnd` in its
/// /proc status; read only while detaching, never per event).
fn sigtrap_pending(tid: Tid) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{tid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigPnd:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (libc::SIGTRAP - 1)) != 0)
}
