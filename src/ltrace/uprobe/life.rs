//! The kernel backend's ptrace side: the traced process's lifecycle
//! (threads, exec, signals, exits) as messages to the consumer, each
//! stamped with the uprobes' clock, and the instance's pid filter kept to
//! the traced process's threads.

use crate::engine::tracee::tgid_of;
use crate::engine::{Event, Handler, Resume, Stamp};
use crate::kernel::session::mono_ns;
use crate::kernel::tracefs::Tracefs;
use crate::ltrace::msg::{Life, Msg};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::mpsc::Sender;

/// The ptrace side: lifecycle events only, sent to the consumer.
pub(in crate::ltrace::uprobe) struct LifeHandler {
    pub(in crate::ltrace::uprobe) tx: Sender<Msg>,
    pub(in crate::ltrace::uprobe) inst: Tracefs,
    pub(in crate::ltrace::uprobe) pid: i32,
    pub(in crate::ltrace::uprobe) threads: HashSet<i32>,
    pub(in crate::ltrace::uprobe) started: bool,
    pub(in crate::ltrace::uprobe) detach: Vec<i32>,
    pub(in crate::ltrace::uprobe) exe: PathBuf,
    pub(in crate::ltrace::uprobe) execs: u32,
    pub(in crate::ltrace::uprobe) other_execs: u32,
    pub(in crate::ltrace::uprobe) filtered: HashSet<i32>,
    pub(in crate::ltrace::uprobe) error: Option<String>,
}

impl LifeHandler {
    fn send(&self, tid: i32, what: Life) {
        let _ = self.tx.send(Msg::Life {
            tid,
            ts: mono_ns(),
            what,
        });
    }

    /// Adds `tid` to the instance's pid filter (it is stopped: its events
    /// from its first instruction on are recorded).
    fn filter(&mut self, tid: i32) {
        if self.filtered.insert(tid) {
            if let Err(e) = self.inst.append("set_event_pid", &format!("{tid}\n")) {
                self.error.get_or_insert(e);
            }
        }
    }
}

impl Handler for LifeHandler {
    fn event(&mut self, ev: Event<'_>, _when: &Stamp) {
        match ev {
            Event::NewTask {
                parent,
                child,
                thread,
            } => {
                if !self.threads.contains(&parent) || self.threads.contains(&child) {
                    if !thread && !self.threads.contains(&child) {
                        self.detach.push(child);
                    }
                    return;
                }
                if thread {
                    self.filter(child);
                    self.threads.insert(child);
                    self.send(child, Life::Thread);
                } else {
                    // Not followed (no -f): let go, as the ptrace backend.
                    self.detach.push(child);
                }
            }
            Event::Exec { tid, old_tid } => {
                self.threads.remove(&old_tid);
                self.threads.insert(tid);
                self.started = true;
                self.execs += 1;
                if self.execs > 1 {
                    let now = std::fs::read_link(format!("/proc/{tid}/exe")).ok();
                    if now.as_deref() != Some(self.exe.as_path()) {
                        self.other_execs += 1;
                    }
                }
                self.filter(tid);
                self.send(tid, Life::Exec { old: old_tid });
            }
            Event::Exited { tid, code } => {
                if self.threads.remove(&tid) {
                    self.send(tid, Life::Exited { code });
                } else {
                    self.send(tid, Life::Detached);
                }
            }
            Event::Killed { tid, sig, .. } => {
                if self.threads.remove(&tid) {
                    self.send(tid, Life::Killed { sig });
                } else if !self.started {
                    let name = crate::syscall::ctx::signal_name(sig as u64)
                        .map(|s| s.into_owned())
                        .unwrap_or_else(|| format!("SIG{sig}"));
                    eprintln!("rltrace: the program was killed by {name} while being loaded (not a valid executable?)");
                }
            }
            Event::Detached { tid } => {
                self.threads.remove(&tid);
                self.send(tid, Life::Detached);
            }
            _ => {}
        }
    }

    fn signal_stop(&mut self, tid: i32, sig: i32, _info: &[u8; 128]) -> Resume {
        if self.threads.contains(&tid) {
            self.send(tid, Life::Signal { sig });
        }
        Resume::Deliver
    }

    fn detach_requests(&mut self) -> Vec<i32> {
        std::mem::take(&mut self.detach)
    }

    fn task_ready(&mut self, tid: i32) {
        // A thread of the traced process, before its first instruction.
        if self.started && tid != self.pid && tgid_of(tid) == Some(self.pid) {
            self.filter(tid);
            if self.threads.insert(tid) {
                self.send(tid, Life::Thread);
            }
        }
    }
}
