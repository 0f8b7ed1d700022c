//! Access to one stopped tracee for tools: registers, memory, debug
//! registers. Valid only while the tracee is in a ptrace-stop, i.e. inside a
//! [`super::Handler`] callback for that thread.

use super::ptrace::{self, Tid};
use crate::engine::memory::proc::ProcMem;
use crate::engine::memory::Memory;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// Wait statuses that a synchronous operation on one tracee
/// ([`Tracee::inject_syscall`]) collected but that belong to the wait loop
/// (the thread died meanwhile); the loop takes them before waiting again.
static REQUEUED: Mutex<Vec<(Tid, i32)>> = Mutex::new(Vec::new());

/// The oldest requeued wait status, if any.
pub(crate) fn take_requeued() -> Option<(Tid, i32)> {
    let mut q = REQUEUED.lock().unwrap_or_else(|e| e.into_inner());
    (!q.is_empty()).then(|| q.remove(0))
}

/// A stopped thread.
pub struct Tracee {
    tid: Tid,
    mem: ProcMem,
}

impl Tracee {
    /// The stopped thread `tid`.
    pub fn new(tid: Tid) -> Tracee {
        Tracee {
            tid,
            mem: ProcMem::new(tid),
        }
    }

    /// Its thread id.
    pub fn tid(&self) -> Tid {
        self.tid
    }

    /// The `NT_PRSTATUS` register words (interpret them with `rtrace_arch`).
    pub fn regs(&self) -> io::Result<Vec<u64>> {
        let mut w = vec![0u64; 64];
        let n = ptrace::get_regs(self.tid, &mut w)?;
        w.truncate(n / 8);
        Ok(w)
    }

    /// Writes the register words back.
    pub fn set_regs(&self, words: &[u64]) -> io::Result<()> {
        ptrace::set_regs(self.tid, words)
    }

    /// Reads tracee memory (fewer bytes at an unmapped page).
    pub fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        self.mem.read(addr, buf)
    }

    /// Writes tracee memory through `/proc/PID/mem`, which, unlike
    /// `process_vm_writev`, also writes read-only (code) pages.
    pub fn write(&self, addr: u64, bytes: &[u8]) -> io::Result<()> {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(format!("/proc/{}/mem", self.tid))?;
        f.write_all_at(bytes, addr)
    }

    /// The `siginfo_t` of the signal this thread is stopped for.
    pub fn siginfo(&self) -> io::Result<[u8; 128]> {
        ptrace::siginfo(self.tid)
    }

    /// Makes the stopped thread execute one system call and returns its raw
    /// result; registers are restored afterwards, so the thread resumes as if
    /// nothing happened. `insn` is the address of a system-call instruction in
    /// the tracee (any executable copy of its bytes will do).
    ///
    /// Call only at a signal-delivery stop (not inside a syscall: the kernel
    /// would apply syscall-restart logic to the borrowed registers).
    /// All signals are blocked (`PTRACE_SETSIGMASK`) during the single step,
    /// so no handler can run on the borrowed registers; a signal that still
    /// stops the thread (SIGSTOP) is re-sent afterwards. If the thread dies
    /// meanwhile, its wait status is requeued for the wait loop and ESRCH
    /// returned.
    pub fn inject_syscall(&self, insn: u64, nr: u64, args: [u64; 6]) -> io::Result<i64> {
        use rtrace_arch::native::Regs;
        use rtrace_arch::regs::RegisterFile;
        let saved = self.regs()?;
        let mask = ptrace::get_sigmask(self.tid)?;
        let mut w = saved.clone();
        Regs::prepare_syscall(&mut w, insn, nr, &args);
        ptrace::set_sigmask(self.tid, !0u64)?;
        let restore = |t: &Tracee| {
            let _ = t.set_regs(&saved);
            let _ = ptrace::set_sigmask(t.tid, mask);
        };
        if let Err(e) = self.set_regs(&w) {
            restore(self);
            return Err(e);
        }
        let mut resend = Vec::new();
        let result = loop {
            if let Err(e) = ptrace::singlestep(self.tid, 0) {
                restore(self);
                return Err(e);
            }
            let status = ptrace::wait_tid(self.tid)?;
            match super::status::classify(status) {
                super::status::Status::Signal(libc::SIGTRAP) => {
                    let now = self.regs()?;
                    if Regs::pc(&now) == insn {
                        // Stepped nothing (a trap raced in): step again.
                        continue;
                    }
                    break Regs::syscall_regs(&now).ret;
                }
                super::status::Status::Signal(sig) => {
                    // Only unblockable signals get here; deliver them later.
                    resend.push(sig);
                }
                super::status::Status::Exited(_) | super::status::Status::Killed { .. } => {
                    REQUEUED
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((self.tid, status));
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                // A group-stop or an event: step on; the syscall has not run.
                _ => {}
            }
        };
        restore(self);
        for sig in resend {
            let tgid = tgid_of(self.tid).unwrap_or(self.tid);
            let _ = ptrace::tgkill(tgid, self.tid, sig);
        }
        Ok(result)
    }

    /// Reads a word of `struct user` (e.g. a debug register).
    pub fn peek_user(&self, offset: usize) -> io::Result<u64> {
        ptrace::peek_user(self.tid, offset)
    }

    /// Writes a word of `struct user` (e.g. a debug register).
    pub fn poke_user(&self, offset: usize, value: u64) -> io::Result<()> {
        ptrace::poke_user(self.tid, offset, value)
    }
}

/// Ids of a task from `/proc/TID/status`: read on rare paths only (a
/// task met before its creation event, an attach), never per event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskIds {
    /// Its process (thread-group) id.
    pub tgid: Tid,
    /// Its parent process.
    pub ppid: Tid,
    /// The task tracing it (0: none).
    pub tracer: Tid,
}

/// [`TaskIds`] of `tid`; `None` when it is gone.
pub fn task_ids(tid: Tid) -> Option<TaskIds> {
    let s = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    let field = |k: &str| -> Option<Tid> {
        s.lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim().parse().ok())
    };
    Some(TaskIds {
        tgid: field("Tgid:")?,
        ppid: field("PPid:")?,
        tracer: field("TracerPid:").unwrap_or(0),
    })
}

/// The process id of thread `tid`.
pub fn tgid_of(tid: Tid) -> Option<Tid> {
    task_ids(tid).map(|i| i.tgid)
}

impl Memory for Tracee {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        self.mem.read(addr, buf)
    }
}
