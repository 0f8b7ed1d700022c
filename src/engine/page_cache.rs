//! A per-stop cache of tracee memory pages, as strace's `umoven` keeps one:
//! a read of at most [`SLOTS`] pages is served from whole pages fetched with
//! one `process_vm_readv` each and kept until the stop ends, so decoding a
//! `writev` of many small strings costs one read per page touched instead
//! of one per string. A page is read only when a byte of it is wanted, so a
//! string that ends before an unmapped page never touches that page.
//!
//! Valid for one ptrace-stop only: make a new one at each stop (the tracee
//! changes its memory while it runs), and call [`PageCache::invalidate`]
//! after writing to the tracee.

use crate::engine::memory::proc::ProcMem;
use crate::engine::memory::Memory;

/// Pages kept (strace keeps four).
pub const SLOTS: usize = 4;

/// The page size of this machine.
fn page_size() -> usize {
    crate::sys::page_size()
}

/// Tracee memory behind a small cache of whole pages.
pub struct PageCache<M: Memory = ProcMem> {
    inner: M,
    page: usize,
    /// Page start addresses and contents, in the order they were read.
    pages: Vec<(u64, Box<[u8]>)>,
    /// The slot the next page read replaces once all are used.
    next: usize,
}

impl PageCache<ProcMem> {
    /// The memory of thread `tid`, nothing read yet.
    pub fn new(tid: i32) -> PageCache<ProcMem> {
        PageCache::over(ProcMem::new(tid))
    }
}

impl<M: Memory> PageCache<M> {
    /// A cache over any memory (tests use a fake one).
    pub fn over(inner: M) -> PageCache<M> {
        PageCache::with_page_size(inner, page_size())
    }

    fn with_page_size(inner: M, page: usize) -> PageCache<M> {
        PageCache {
            inner,
            page,
            pages: Vec::new(),
            next: 0,
        }
    }

    /// Forgets every kept page (after the tracee's memory was written).
    pub fn invalidate(&mut self) {
        self.pages.clear();
        self.next = 0;
    }

    /// The memory underneath (for reads that must not be cached).
    pub fn inner(&mut self) -> &mut M {
        &mut self.inner
    }

    /// The slot holding the page at `start`, reading it if needed; `None`
    /// when the page cannot be read whole.
    fn slot(&mut self, start: u64) -> Option<usize> {
        if let Some(i) = self.pages.iter().position(|p| p.0 == start) {
            return Some(i);
        }
        let mut data = vec![0u8; self.page].into_boxed_slice();
        if self.inner.read(start, &mut data) != self.page {
            return None;
        }
        if self.pages.len() < SLOTS {
            self.pages.push((start, data));
            Some(self.pages.len() - 1)
        } else {
            let i = self.next;
            self.next = (self.next + 1) % SLOTS;
            self.pages[i] = (start, data);
            Some(i)
        }
    }
}

impl<M: Memory> Memory for PageCache<M> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        if buf.is_empty() {
            return 0;
        }
        let mask = self.page as u64 - 1;
        let first = addr & !mask;
        let end = addr
            .checked_add(buf.len() as u64)
            .and_then(|e| e.checked_add(mask));
        // The zero page, a wrapping range, or more than the cache holds:
        // read directly, as strace does.
        let Some(end) = end.map(|e| e & !mask) else {
            return self.inner.read(addr, buf);
        };
        if first == 0 || end - first > (SLOTS * self.page) as u64 {
            return self.inner.read(addr, buf);
        }
        let mut done = 0;
        let mut a = addr;
        while done < buf.len() {
            let start = a & !mask;
            let Some(i) = self.slot(start) else { break };
            let off = (a - start) as usize;
            let n = (self.page - off).min(buf.len() - done);
            buf[done..done + n].copy_from_slice(&self.pages[i].1[off..off + n]);
            done += n;
            a += n as u64;
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;

    /// Fake memory counting the reads that reach it.
    struct Counting {
        fake: FakeMemory,
        reads: usize,
    }

    impl Memory for Counting {
        fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
            self.reads += 1;
            self.fake.read(addr, buf)
        }
    }

    /// Two readable 4096-byte pages at 0x10000, holding 0, 1, 2, ….
    fn two_pages() -> PageCache<Counting> {
        let data: Vec<u8> = (0..8192u32).map(|i| i as u8).collect();
        let fake = FakeMemory {
            base: 0x10000,
            data,
        };
        PageCache::with_page_size(Counting { fake, reads: 0 }, 4096)
    }

    #[test]
    fn many_small_reads_of_one_page_cost_one_read() {
        let mut m = two_pages();
        for k in 0..32u64 {
            let mut b = vec![0u8; k as usize + 1];
            assert_eq!(m.read(0x10000 + 100 + k, &mut b), b.len());
            assert_eq!(b[0], (100 + k) as u8);
        }
        assert_eq!(m.inner.reads, 1);
    }

    #[test]
    fn a_read_across_pages_reads_both_once() {
        let mut m = two_pages();
        let mut b = [0u8; 16];
        assert_eq!(m.read(0x10ff8, &mut b), 16);
        assert_eq!(b[8], 0);
        assert_eq!(b[7], 0xff);
        assert_eq!(m.read(0x10ff0, &mut b), 16);
        assert_eq!(m.inner.reads, 2);
    }

    #[test]
    fn stops_at_an_unreadable_page() {
        let mut m = two_pages();
        let mut b = [0u8; 32];
        assert_eq!(m.read(0x11ff0, &mut b), 16);
        assert_eq!(m.read(0x12000, &mut b), 0);
        assert_eq!(m.read(0, &mut b), 0);
    }

    #[test]
    fn large_reads_and_invalidation() {
        let mut m = two_pages();
        let mut big = vec![0u8; 5 * 4096];
        assert_eq!(m.read(0x10000, &mut big), 8192);
        assert_eq!(m.inner.reads, 1);
        let mut b = [0u8; 4];
        m.read(0x10000, &mut b);
        m.read(0x10004, &mut b);
        assert_eq!(m.inner.reads, 2);
        m.invalidate();
        m.read(0x10000, &mut b);
        assert_eq!(m.inner.reads, 3);
    }

    #[test]
    fn keeps_four_pages_and_replaces_round_robin() {
        let data = vec![7u8; 6 * 4096];
        let fake = FakeMemory {
            base: 0x10000,
            data,
        };
        let mut m = PageCache::with_page_size(Counting { fake, reads: 0 }, 4096);
        let mut b = [0u8; 1];
        for p in 0..5u64 {
            m.read(0x10000 + p * 4096, &mut b);
        }
        assert_eq!(m.inner.reads, 5);
        // Page 0 was replaced by page 4; pages 1..=4 are kept.
        for p in 1..5u64 {
            m.read(0x10000 + p * 4096, &mut b);
        }
        assert_eq!(m.inner.reads, 5);
        m.read(0x10000, &mut b);
        assert_eq!(m.inner.reads, 6);
    }
}
