//! Access to one stopped tracee for tools: registers, memory, debug
//! registers. Valid only while the tracee is in a ptrace-stop, i.e. inside a
//! [`super::Handler`] callback for that thread.

use super::memory::ProcMem;
use super::ptrace::{self, Tid};
use crate::syscall::memory::Memory;
use std::io;
use std::os::unix::fs::FileExt;

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

    /// Reads a word of `struct user` (e.g. a debug register).
    pub fn peek_user(&self, offset: usize) -> io::Result<u64> {
        ptrace::peek_user(self.tid, offset)
    }

    /// Writes a word of `struct user` (e.g. a debug register).
    pub fn poke_user(&self, offset: usize, value: u64) -> io::Result<()> {
        ptrace::poke_user(self.tid, offset, value)
    }
}

impl Memory for Tracee {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        self.mem.read(addr, buf)
    }
}
