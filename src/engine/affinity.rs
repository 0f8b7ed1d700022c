//! Running the tracer and its tracees on one CPU.
//!
//! Every ptrace stop is a round trip between tracee and tracer. When the two
//! run on different CPUs each trip is a cross-CPU wake-up (an IPI, a VM exit
//! on virtual machines); on one CPU it is a plain context switch. Measured on
//! the project's 2-vCPU machines a stop costs 10–15 µs on one CPU and
//! 55–67 µs across two: this halves the cost of a fully traced syscall and
//! of a breakpoint hit. So every ptrace tool (rstrace, rltrace's ptrace
//! backend, `rtrace break`, `rtrace watch`) pins itself and the command it
//! launches to the CPU it runs on; the tools without syscall stops pin the
//! processes they attach to as well.
//!
//! rstrace with a seccomp filter is the exception: there most syscalls do
//! not stop at all and the command's threads should run in parallel, so the
//! pinning only holds while the traced tree is a single task: a second task
//! unpins everything, and going back to one task pins again. The breakpoint
//! tools pin every thread: each thread stops at every hit, and a stop across
//! CPUs costs more than the lost parallelism gains.
//!
//! The command must not notice: `sched_getaffinity` results are rewritten to
//! the mask the command would have had, and a command that sets its own
//! affinity keeps it (that thread is no longer ours to pin). That needs the
//! two affinity calls to stop. rstrace stops at them anyway (or adds them to
//! its seccomp filter); the tools that run tracees under `PTRACE_CONT`
//! install a seccomp filter that stops *only* those two calls (see
//! `Tracer::new`), so no other syscall costs anything. A seccomp filter
//! cannot be removed, and with no tracer its `SECCOMP_RET_TRACE` fails the
//! call with `ENOSYS`: so a task carrying it is never let go while it lives
//! (an unfollowed child is kept, silently, see `tracer/kept.rs`).
//!
//! A process attached with `-p` cannot get a filter (it would outlive the
//! detach), so under the breakpoint tools its own affinity calls see the pin
//! while it is traced; at detach each of its threads gets its own mask back,
//! unless the thread changed its mask meanwhile (its mask is then no longer
//! rtrace's single CPU, and stays as the program set it). Tasks still pinned
//! when rtrace lets go of them get their original mask back.

use crate::sys::sched::{self, CpuSet};
use std::io;

/// The original affinity and the CPU everything is pinned to.
#[derive(Clone, Debug)]
pub struct Pin {
    /// The mask the command would have had (rtrace's own at start).
    pub original: CpuSet,
    /// Bytes of `original` the kernel reports (`sched_getaffinity`'s return).
    pub original_len: usize,
    /// The CPU rtrace and the pinned tasks run on.
    pub cpu: usize,
}

impl Pin {
    /// Pins the calling thread to the CPU it is on; remembers the old mask.
    /// `None` when there is a single usable CPU (nothing to gain) or on error.
    pub fn pin_self() -> Option<Pin> {
        let (original, n) = sched::get_affinity().ok()?;
        if original.count() < 2 {
            return None;
        }
        let mut pin = Pin {
            original,
            original_len: n,
            cpu: 0,
        };
        pin.repin_self().ok()?;
        Some(pin)
    }

    /// Pins rtrace to the CPU it is running on now and remembers that CPU.
    pub fn repin_self(&mut self) -> io::Result<()> {
        self.cpu = sched::current_cpu()?;
        self.pin_thread(0)
    }

    /// Pins `tid` (0: rtrace itself) to [`Pin::cpu`].
    pub fn pin_thread(&self, tid: i32) -> io::Result<()> {
        sched::set_affinity(tid, &CpuSet::single(self.cpu))
    }

    /// The bytes a `sched_getaffinity(len)` of the unpinned command returns.
    pub fn visible_mask(&self, len: usize) -> &[u8] {
        &self.original.bytes()[..len.min(self.original_len)]
    }

    /// Gives `tid` (or rtrace itself, with 0) its original mask back.
    pub fn restore(&self, tid: i32) -> io::Result<()> {
        sched::set_affinity(tid, &self.original)
    }

    /// Pins `tid`, a thread of an attached process, when its mask allows
    /// [`Pin::cpu`] and more; its mask before (to give back at detach).
    pub fn pin_attached(&self, tid: i32) -> Option<CpuSet> {
        let (mask, _) = sched::get_affinity_of(tid).ok()?;
        if mask.count() < 2 || !mask.has(self.cpu) {
            return None;
        }
        self.pin_thread(tid).ok()?;
        Some(mask)
    }

    /// Gives attached thread `tid` its mask `orig` back, unless the thread
    /// set a mask of its own meanwhile (it is no longer rtrace's one CPU).
    pub fn restore_attached(&self, tid: i32, orig: &CpuSet) -> io::Result<()> {
        let (now, _) = sched::get_affinity_of(tid)?;
        if now != CpuSet::single(self.cpu) {
            return Ok(());
        }
        sched::set_affinity(tid, orig)
    }
}

/// Writes `bytes` into the tracee at `addr` through `/proc/PID/mem` (which,
/// unlike `process_vm_writev`, also works on pages the tracee cannot write).
pub fn poke_bytes(tid: i32, addr: u64, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(format!("/proc/{tid}/mem"))?;
    f.write_all_at(bytes, addr)
}
