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

use std::io;

/// The original affinity and the CPU everything is pinned to.
#[derive(Clone, Debug)]
pub struct Pin {
    /// The mask the command would have had (rtrace's own at start).
    pub original: libc::cpu_set_t,
    /// Bytes of `original` the kernel reports (`sched_getaffinity`'s return).
    pub original_len: usize,
    /// The CPU rtrace and the pinned tasks run on.
    pub cpu: usize,
}

fn mask_bytes(set: &libc::cpu_set_t) -> &[u8] {
    // SAFETY: cpu_set_t is plain bytes.
    unsafe {
        std::slice::from_raw_parts(
            (set as *const libc::cpu_set_t).cast::<u8>(),
            std::mem::size_of::<libc::cpu_set_t>(),
        )
    }
}

impl Pin {
    /// Pins the calling thread to the CPU it is on; remembers the old mask.
    /// `None` when there is a single usable CPU (nothing to gain) or on error.
    pub fn pin_self() -> Option<Pin> {
        // SAFETY: plain calls on the calling thread with owned, initialised sets.
        unsafe {
            let mut original: libc::cpu_set_t = std::mem::zeroed();
            let n = libc::syscall(
                libc::SYS_sched_getaffinity,
                0,
                std::mem::size_of::<libc::cpu_set_t>(),
                &mut original as *mut libc::cpu_set_t,
            );
            if n <= 0 || libc::CPU_COUNT(&original) < 2 {
                return None;
            }
            let mut pin = Pin {
                original,
                original_len: n as usize,
                cpu: 0,
            };
            pin.repin_self().ok()?;
            Some(pin)
        }
    }

    /// Pins rtrace to the CPU it is running on now and remembers that CPU.
    pub fn repin_self(&mut self) -> io::Result<()> {
        // SAFETY: sched_getcpu has no arguments.
        let cpu = unsafe { libc::sched_getcpu() };
        if cpu < 0 {
            return Err(io::Error::last_os_error());
        }
        self.cpu = cpu as usize;
        self.pin_thread(0)
    }

    /// Pins `tid` (0: rtrace itself) to [`Pin::cpu`].
    pub fn pin_thread(&self, tid: i32) -> io::Result<()> {
        // SAFETY: an initialised, owned cpu_set_t.
        let r = unsafe {
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(self.cpu, &mut one);
            libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &one)
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The bytes a `sched_getaffinity(len)` of the unpinned command returns.
    pub fn visible_mask(&self, len: usize) -> &[u8] {
        &mask_bytes(&self.original)[..len.min(self.original_len)]
    }

    /// Gives `tid` (or rtrace itself, with 0) its original mask back.
    pub fn restore(&self, tid: i32) -> io::Result<()> {
        // SAFETY: sched_setaffinity with an initialised mask.
        let r = unsafe {
            libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &self.original)
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
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
