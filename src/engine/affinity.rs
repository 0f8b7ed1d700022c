//! Running the tracer and its tracees on one CPU.
//!
//! Every ptrace stop is a round trip between tracee and tracer. When the two
//! run on different CPUs each trip is a cross-CPU wake-up (an IPI, a VM exit
//! on virtual machines); on one CPU it is a plain context switch. Measured on
//! the project's 2-vCPU machines this halves the cost of a fully traced
//! syscall. So for a launched command traced without a seccomp filter, the
//! tracer pins itself and the command to the CPU it runs on.
//!
//! With a seccomp filter most syscalls do not stop at all and the command's
//! threads should run in parallel, so there the pinning only holds while the
//! traced tree is a single task: a second task unpins everything, and going
//! back to one task pins again.
//!
//! The command must not notice: `sched_getaffinity` results are rewritten to
//! the mask the command would have had, and a command that sets its own
//! affinity keeps it (that thread is no longer ours to pin). Tasks still
//! pinned when rtrace lets go of them get their original mask back.

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
