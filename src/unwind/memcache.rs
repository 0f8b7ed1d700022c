//! Page-sized reads of tracee memory for one unwind: a stack walk touches a
//! few stack pages many times, and one `process_vm_readv` per page is far
//! cheaper than one per word.

use crate::engine::memory::Memory;

const PAGE: u64 = 4096;
/// Pages kept per unwind; stacks are walked mostly upwards, so few are live.
const MAX_PAGES: usize = 64;

/// A read-through page cache over a [`Memory`].
pub struct PageCache<'a> {
    mem: &'a mut dyn Memory,
    /// `(page address, bytes readable from its start)`.
    pages: Vec<(u64, Vec<u8>)>,
    /// Number of reads that went to the underlying memory.
    pub misses: usize,
}

impl<'a> PageCache<'a> {
    /// An empty cache over `mem`.
    pub fn new(mem: &'a mut dyn Memory) -> PageCache<'a> {
        PageCache {
            mem,
            pages: Vec::new(),
            misses: 0,
        }
    }

    fn page(&mut self, page: u64) -> &[u8] {
        if let Some(i) = self.pages.iter().position(|p| p.0 == page) {
            return &self.pages[i].1;
        }
        self.misses += 1;
        let mut buf = vec![0u8; PAGE as usize];
        let n = self.mem.read(page, &mut buf);
        buf.truncate(n);
        if self.pages.len() >= MAX_PAGES {
            self.pages.remove(0);
        }
        self.pages.push((page, buf));
        self.pages.last().map_or(&[][..], |p| &p.1[..])
    }

    /// Fills `buf` from `addr`; false if any byte is unreadable.
    pub fn read_exact(&mut self, addr: u64, buf: &mut [u8]) -> bool {
        let mut done = 0;
        while done < buf.len() {
            let Some(a) = addr.checked_add(done as u64) else {
                return false;
            };
            let page = a & !(PAGE - 1);
            let off = (a - page) as usize;
            let bytes = self.page(page);
            if off >= bytes.len() {
                return false;
            }
            let n = (bytes.len() - off).min(buf.len() - done);
            buf[done..done + n].copy_from_slice(&bytes[off..off + n]);
            done += n;
        }
        true
    }

    /// A little-endian word of `size` bytes (1..=8) at `addr`.
    pub fn read_word(&mut self, addr: u64, size: u8) -> Option<u64> {
        let size = usize::from(size.clamp(1, 8));
        let mut b = [0u8; 8];
        self.read_exact(addr, &mut b[..size])
            .then(|| u64::from_le_bytes(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;

    #[test]
    fn reads_across_pages_and_stops_at_the_end() {
        let mut fake = FakeMemory {
            base: 0x1000,
            data: (0..8192u32).map(|i| i as u8).collect(),
        };
        let mut cache = PageCache::new(&mut fake);
        assert_eq!(
            cache.read_word(0x1ffc, 8),
            Some(u64::from_le_bytes([0xfc, 0xfd, 0xfe, 0xff, 0, 1, 2, 3]))
        );
        assert_eq!(cache.read_word(0x2ffc, 8), None, "runs past the end");
        assert_eq!(cache.read_word(0x10, 8), None, "below the start");
        assert_eq!(cache.read_word(u64::MAX - 2, 8), None, "wraps");
        let before = cache.misses;
        assert!(cache.read_word(0x1000, 4).is_some());
        assert_eq!(cache.misses, before, "cached");
    }
}
