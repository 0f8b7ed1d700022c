//! Tracee memory through `process_vm_readv`, with a `/proc/PID/mem` fallback.

use crate::engine::memory::Memory;
use std::os::unix::fs::FileExt;

/// Memory of one live tracee thread.
pub struct ProcMem {
    tid: i32,
    fallback: Option<std::fs::File>,
    vm_readv_works: bool,
}

impl ProcMem {
    /// Memory of thread `tid`; opens nothing until a fallback is needed.
    pub fn new(tid: i32) -> ProcMem {
        ProcMem {
            tid,
            fallback: None,
            vm_readv_works: true,
        }
    }

    fn read_vm(&self, addr: u64, buf: &mut [u8]) -> Result<usize, i32> {
        crate::sys::mem::vm_read(self.tid, addr, buf)
    }

    fn read_proc(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        if self.fallback.is_none() {
            self.fallback = std::fs::File::open(format!("/proc/{}/mem", self.tid)).ok();
        }
        let Some(f) = &self.fallback else { return 0 };
        let mut done = 0;
        while done < buf.len() {
            match f.read_at(&mut buf[done..], addr + done as u64) {
                Ok(0) | Err(_) => break,
                Ok(n) => done += n,
            }
        }
        done
    }
}

impl Memory for ProcMem {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        if buf.is_empty() {
            return 0;
        }
        if self.vm_readv_works {
            match self.read_vm(addr, buf) {
                Ok(n) => return n,
                // EFAULT: unmapped. Anything else (ENOSYS, EPERM under some LSMs):
                // fall back to /proc/PID/mem for the rest of this tracee's life.
                Err(libc::EFAULT) => return 0,
                Err(libc::ESRCH) => return 0,
                Err(_) => self.vm_readv_works = false,
            }
        }
        self.read_proc(addr, buf)
    }
}
