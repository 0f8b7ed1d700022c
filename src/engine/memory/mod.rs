//! Reading tracee memory, behind a trait so decoders run on a live process or a
//! fake in unit tests.

pub mod proc;

/// Read access to a traced process's address space.
pub trait Memory {
    /// Reads up to `buf.len()` bytes at `addr`; returns how many were read
    /// (fewer at an unmapped page, 0 when nothing could be read).
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize;
}

/// A fake address space for tests: one contiguous region.
#[derive(Debug, Default)]
pub struct FakeMemory {
    /// Base address of `data`.
    pub base: u64,
    /// The bytes at `base`.
    pub data: Vec<u8>,
}

impl Memory for FakeMemory {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        if addr < self.base {
            return 0;
        }
        let off = (addr - self.base) as usize;
        if off >= self.data.len() {
            return 0;
        }
        let n = buf.len().min(self.data.len() - off);
        buf[..n].copy_from_slice(&self.data[off..off + n]);
        n
    }
}

impl FakeMemory {
    /// Appends `bytes` and returns the address they were placed at.
    pub fn put(&mut self, bytes: &[u8]) -> u64 {
        if self.base == 0 {
            self.base = 0x10000;
        }
        let addr = self.base + self.data.len() as u64;
        self.data.extend_from_slice(bytes);
        // Keep later objects 8-aligned.
        while !self.data.len().is_multiple_of(8) {
            self.data.push(0);
        }
        addr
    }
}
