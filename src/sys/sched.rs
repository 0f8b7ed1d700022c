//! CPU affinity.

use std::io;

/// A CPU mask (`cpu_set_t`) and the bytes of it the kernel reported.
#[derive(Clone, Copy)]
pub struct CpuSet {
    set: libc::cpu_set_t,
}

impl std::fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "CpuSet({:02x?})", self.bytes())
    }
}

impl CpuSet {
    /// The mask with only `cpu` set.
    pub fn single(cpu: usize) -> CpuSet {
        // SAFETY: cpu_set_t is plain bits; all-zero is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: CPU_SET sets one bit of `set`, ours (an index-checked
        // array write: a CPU past the set panics, it writes nothing else).
        unsafe { libc::CPU_SET(cpu, &mut set) };
        CpuSet { set }
    }

    /// How many CPUs are set.
    pub fn count(&self) -> usize {
        // SAFETY: CPU_COUNT reads `self.set`, ours.
        unsafe { libc::CPU_COUNT(&self.set) as usize }
    }

    /// The mask as bytes (CPU 0 is bit 0 of byte 0).
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: cpu_set_t is plain bytes, borrowed for `self`'s life.
        unsafe {
            std::slice::from_raw_parts(
                (&self.set as *const libc::cpu_set_t).cast::<u8>(),
                std::mem::size_of::<libc::cpu_set_t>(),
            )
        }
    }
}

/// The calling thread's affinity (raw `sched_getaffinity`): the mask and
/// the bytes of it the kernel filled.
pub fn get_affinity() -> io::Result<(CpuSet, usize)> {
    // SAFETY: all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: the kernel writes at most the size given into `set`, ours.
    let n = unsafe {
        libc::syscall(
            libc::SYS_sched_getaffinity,
            0,
            std::mem::size_of::<libc::cpu_set_t>(),
            &mut set as *mut libc::cpu_set_t,
        )
    };
    if n <= 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((CpuSet { set }, n as usize))
}

/// `sched_setaffinity(tid, set)` (0: the calling thread).
pub fn set_affinity(tid: i32, set: &CpuSet) -> io::Result<()> {
    // SAFETY: the kernel reads the mask, ours, of the size given.
    let r =
        unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set.set) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The CPU the calling thread runs on.
pub fn current_cpu() -> io::Result<usize> {
    // SAFETY: sched_getcpu has no arguments.
    let cpu = unsafe { libc::sched_getcpu() };
    if cpu < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cpu as usize)
}
