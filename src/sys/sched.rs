//! CPU affinity, through nix, but for the raw `sched_getaffinity` syscall
//! whose byte count the tracee's own calls are answered with.

use std::io;

use nix::sched;
use nix::unistd::Pid;

/// Bytes of a `cpu_set_t`.
const SET_BYTES: usize = std::mem::size_of::<libc::cpu_set_t>();

/// A CPU mask (`cpu_set_t`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CpuSet {
    set: sched::CpuSet,
    /// The same mask as bytes (CPU 0 is bit 0 of byte 0).
    bytes: [u8; SET_BYTES],
}

impl std::fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "CpuSet({:02x?})", self.bytes())
    }
}

impl CpuSet {
    /// The mask of the CPUs whose bits are set in `bytes` (CPU 0 is bit 0
    /// of byte 0; bytes past a `cpu_set_t` are ignored).
    pub fn from_bytes(bytes: &[u8]) -> CpuSet {
        let mut s = CpuSet {
            set: sched::CpuSet::new(),
            bytes: [0; SET_BYTES],
        };
        for (i, &b) in bytes.iter().take(SET_BYTES).enumerate() {
            for bit in 0..8 {
                if b & (1 << bit) != 0 {
                    // In range: i < SET_BYTES.
                    let _ = s.set.set(i * 8 + bit);
                    s.bytes[i] |= 1 << bit;
                }
            }
        }
        s
    }

    /// The mask with only `cpu` set (empty when `cpu` is past a
    /// `cpu_set_t`).
    pub fn single(cpu: usize) -> CpuSet {
        let mut bytes = [0u8; SET_BYTES];
        if cpu < SET_BYTES * 8 {
            bytes[cpu / 8] = 1 << (cpu % 8);
        }
        CpuSet::from_bytes(&bytes)
    }

    /// How many CPUs are set.
    pub fn count(&self) -> usize {
        (0..SET_BYTES * 8)
            .filter(|&c| self.set.is_set(c).unwrap_or(false))
            .count()
    }

    /// Whether `cpu` is set.
    pub fn has(&self, cpu: usize) -> bool {
        self.set.is_set(cpu).unwrap_or(false)
    }

    /// The mask as bytes (CPU 0 is bit 0 of byte 0).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// The calling thread's affinity (raw `sched_getaffinity`): the mask and
/// the bytes of it the kernel filled.
///
/// Raw syscall: nix's `sched_getaffinity` is glibc's, which returns 0 and
/// zero-fills the rest of the set, losing the byte count the kernel
/// reports, which rtrace gives back to a pinned command's own
/// `sched_getaffinity`.
pub fn get_affinity() -> io::Result<(CpuSet, usize)> {
    get_affinity_of(0)
}

/// Thread `tid`'s affinity (0: the calling thread), as [`get_affinity`].
pub fn get_affinity_of(tid: i32) -> io::Result<(CpuSet, usize)> {
    let mut bytes = [0u8; SET_BYTES];
    // SAFETY: the kernel writes at most the size given into `bytes`, ours.
    let n = unsafe {
        libc::syscall(
            libc::SYS_sched_getaffinity,
            tid,
            SET_BYTES,
            bytes.as_mut_ptr(),
        )
    };
    if n <= 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((CpuSet::from_bytes(&bytes), n as usize))
}

/// `sched_setaffinity(tid, set)` (0: the calling thread).
pub fn set_affinity(tid: i32, set: &CpuSet) -> io::Result<()> {
    Ok(sched::sched_setaffinity(Pid::from_raw(tid), &set.set)?)
}

/// The CPU the calling thread runs on.
pub fn current_cpu() -> io::Result<usize> {
    Ok(sched::sched_getcpu()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_round_trip_through_bytes() {
        let s = CpuSet::single(9);
        assert_eq!(s.count(), 1);
        assert_eq!(&s.bytes()[..2], &[0, 2]);
        let t = CpuSet::from_bytes(&[0b101, 0, 0x80]);
        assert_eq!(t.count(), 3);
        assert_eq!(&t.bytes()[..3], &[0b101, 0, 0x80]);
        let (mine, n) = get_affinity().unwrap();
        assert!(n > 0 && mine.count() >= 1);
        set_affinity(0, &mine).unwrap();
        let cpu = current_cpu().unwrap();
        assert!(mine.bytes()[cpu / 8] & (1 << (cpu % 8)) != 0);
    }
}
