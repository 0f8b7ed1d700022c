//! One traced address space: its breakpoint sites (INT3 bytes and the
//! instructions they displaced), its out-of-line pages, and the memory
//! handle everything goes through.
//!
//! A [`Space`] owns every change rtrace makes to the address space and
//! undoes it in [`Space::restore_code`] / [`Space::unmap_pages`]; the handler
//! calls these on every way out (detach, unfollowed fork child).

use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use rtrace_arch::insn_x86::{self, Analysis, MAX_INSN_LEN, SLOT_SIZE};
use rtrace_arch::x86_64::{SYSCALL_INSN, TRAP_BYTES};
use rtrace_arch::Arch;
use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::os::unix::fs::FileExt;

/// Size of an out-of-line page.
pub const PAGE: u64 = 4096;

/// How far from the code an out-of-line page may be: RIP-relative operands
/// and the jump back are 32-bit, and the data an instruction addresses may
/// lie up to this margin beyond the instruction itself.
const REACH: u64 = (1 << 31) - (256 << 20);

/// `PROT_READ | PROT_EXEC`.
const PROT_RX: u64 = 0x1 | 0x4;
/// `MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE`: the page goes exactly
/// where asked or nowhere (a kernel older than 4.17 treats the address as a
/// hint; the result is checked either way).
const MAP_FLAGS: u64 = 0x02 | 0x20 | 0x10_0000;

/// Memory of a tracee through `/proc/PID/mem`, kept open: it reads and
/// writes any mapping, code included, whether or not the thread is stopped.
pub struct Mem {
    file: Option<File>,
}

impl Mem {
    /// Opens the memory of process `pid`.
    pub fn open(pid: Tid) -> Mem {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(format!("/proc/{pid}/mem"))
            .ok();
        Mem { file }
    }

    /// Reads exactly `buf.len()` bytes.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> bool {
        self.file
            .as_ref()
            .is_some_and(|f| f.read_exact_at(buf, addr).is_ok())
    }

    /// Reads as many bytes as are mapped, up to `buf.len()`.
    pub fn read_some(&self, addr: u64, buf: &mut [u8]) -> usize {
        let Some(f) = &self.file else { return 0 };
        let mut done = 0;
        while done < buf.len() {
            match f.read_at(&mut buf[done..], addr + done as u64) {
                Ok(0) | Err(_) => break,
                Ok(n) => done += n,
            }
        }
        done
    }

    /// Writes all of `bytes`.
    pub fn write(&self, addr: u64, bytes: &[u8]) -> bool {
        self.file
            .as_ref()
            .is_some_and(|f| f.write_all_at(bytes, addr).is_ok())
    }
}

impl insn_x86::Memory for Mem {
    fn read_u64(&mut self, addr: u64) -> Option<u64> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b).then(|| u64::from_le_bytes(b))
    }

    fn write_u64(&mut self, addr: u64, value: u64) -> bool {
        self.write(addr, &value.to_le_bytes())
    }
}

impl crate::engine::memory::Memory for Mem {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        self.read_some(addr, buf)
    }
}

/// An out-of-line slot: the relocated instruction and its jump back.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Where the slot starts (the relocated instruction).
    pub addr: u64,
    /// Where the jump back starts.
    pub back: u64,
}

/// A breakpoint address.
pub struct Site {
    /// Its address.
    pub addr: u64,
    /// The bytes the trap replaced.
    pub orig: Vec<u8>,
    /// The displaced instruction.
    pub insn: Analysis,
    /// Its out-of-line slot, made on first need.
    pub slot: Option<Slot>,
    /// Probes (indices into the handler's list) placed here.
    pub probes: Vec<usize>,
    /// rtrace's own breakpoint on the dynamic linker's `_dl_debug_state`.
    pub internal: bool,
    /// Where it is, for output (`func+0x4 (file.c:12)`).
    pub label: String,
}

/// A page mapped into the tracee for out-of-line slots (and the return
/// trampoline).
#[derive(Clone, Copy, Debug)]
pub struct Page {
    /// Its address.
    pub addr: u64,
    /// Slots handed out.
    pub used: u64,
}

/// One address space (a process, or a vfork child sharing it).
pub struct Space {
    /// Its process id (the leader's tid).
    pub pid: Tid,
    /// Its memory.
    pub mem: Mem,
    /// Breakpoints by address.
    pub sites: BTreeMap<u64, Site>,
    /// Sites removed while threads may still trap on them: a trap at one of
    /// these re-runs the restored instruction.
    pub retired: HashSet<u64>,
    /// Out-of-line pages.
    pub pages: Vec<Page>,
    /// The return-probe trampoline (an INT3 in the first page).
    pub trampoline: Option<u64>,
    /// Threads in it.
    pub threads: HashSet<Tid>,
    /// (probe, address) pairs placed, so re-resolution adds only new ones.
    pub placed: HashSet<(usize, u64)>,
    /// Code bytes restored (detaching): no new hits can come.
    pub disarmed: bool,
    /// The pages are unmapped (detaching): nothing may run there.
    pub unmapped: bool,
    syscall_insn: Option<u64>,
}

/// Why a site could not be placed.
pub type PlaceError = String;

impl Space {
    /// A fresh address space of process `pid` with nothing placed.
    pub fn new(pid: Tid) -> Space {
        Space {
            pid,
            mem: Mem::open(pid),
            sites: BTreeMap::new(),
            retired: HashSet::new(),
            pages: Vec::new(),
            trampoline: None,
            threads: HashSet::new(),
            placed: HashSet::new(),
            disarmed: false,
            unmapped: false,
            syscall_insn: None,
        }
    }

    /// The state a fork child starts with: the parent's sites, pages and
    /// trampoline are in its copy of the memory too.
    pub fn fork_copy(&self, child: Tid) -> Space {
        Space {
            pid: child,
            mem: Mem::open(child),
            sites: self
                .sites
                .iter()
                .map(|(a, s)| {
                    (
                        *a,
                        Site {
                            addr: s.addr,
                            orig: s.orig.clone(),
                            insn: s.insn.clone(),
                            slot: s.slot,
                            probes: s.probes.clone(),
                            internal: s.internal,
                            label: s.label.clone(),
                        },
                    )
                })
                .collect(),
            retired: self.retired.clone(),
            pages: self.pages.clone(),
            trampoline: self.trampoline,
            threads: HashSet::new(),
            placed: self.placed.clone(),
            disarmed: self.disarmed,
            unmapped: self.unmapped,
            syscall_insn: self.syscall_insn,
        }
    }

    /// The original bytes at `addr..addr+len`, with the traps of other sites
    /// in that range taken out again.
    fn original_bytes(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut b = vec![0u8; len];
        let n = self.mem.read_some(addr, &mut b);
        b.truncate(n);
        for (a, s) in self.sites.range(addr..addr + n as u64) {
            let off = (a - addr) as usize;
            for (i, &o) in s.orig.iter().enumerate() {
                if let Some(x) = b.get_mut(off + i) {
                    *x = o;
                }
            }
        }
        b
    }

    /// Places a breakpoint for probe `probe` (None: internal) at `addr`.
    pub fn place(
        &mut self,
        addr: u64,
        probe: Option<usize>,
        label: &str,
    ) -> Result<(), PlaceError> {
        if let Some(s) = self.sites.get_mut(&addr) {
            match probe {
                Some(p) if !s.probes.contains(&p) => s.probes.push(p),
                None => s.internal = true,
                _ => {}
            }
            return Ok(());
        }
        let bytes = self.original_bytes(addr, MAX_INSN_LEN);
        if bytes.is_empty() {
            return Err(format!("{addr:#x} is not mapped"));
        }
        let insn = insn_x86::analyze(addr, &bytes).map_err(|e| format!("{addr:#x}: {e}"))?;
        let orig = bytes[..TRAP_BYTES.len()].to_vec();
        if !self.disarmed && !self.mem.write(addr, TRAP_BYTES) {
            return Err(format!("{addr:#x}: cannot write the breakpoint"));
        }
        self.retired.remove(&addr);
        self.sites.insert(
            addr,
            Site {
                addr,
                orig,
                insn,
                slot: None,
                probes: probe.into_iter().collect(),
                internal: probe.is_none(),
                label: label.to_string(),
            },
        );
        Ok(())
    }

    /// Takes one site out for good (its code could not be stepped over);
    /// a thread already trapped on it re-runs the restored instruction.
    pub fn retire(&mut self, addr: u64) {
        if let Some(s) = self.sites.remove(&addr) {
            self.mem.write(addr, &s.orig);
            self.retired.insert(addr);
        }
    }

    /// Forgets sites whose code is no longer mapped executable (dlclose).
    pub fn drop_unmapped(&mut self, exec: &[(u64, u64)]) {
        let gone: Vec<u64> = self
            .sites
            .keys()
            .copied()
            .filter(|a| !exec.iter().any(|(s, e)| (*s..*e).contains(a)))
            .collect();
        for a in gone {
            self.sites.remove(&a);
            self.placed.retain(|(_, x)| *x != a);
        }
    }

    /// Writes every original byte back. Threads may still be stopped on a
    /// trap they hit before: those hits are handled as usual.
    pub fn restore_code(&mut self) {
        if self.disarmed {
            return;
        }
        for s in self.sites.values() {
            self.mem.write(s.addr, &s.orig);
        }
        self.disarmed = true;
    }

    /// Where a thread whose pc is inside an out-of-line page would be had it
    /// run the original code (a slot's start is its instruction, the jump
    /// back is the instruction after it); `None` when `pc` is elsewhere.
    pub fn pc_outside_pages(&self, pc: u64) -> Option<u64> {
        if !self
            .pages
            .iter()
            .any(|p| (p.addr..p.addr + PAGE).contains(&pc))
        {
            return None;
        }
        for s in self.sites.values() {
            if let Some(slot) = s.slot {
                if pc == slot.addr {
                    return Some(s.addr);
                }
                if pc == slot.back {
                    return Some(s.addr + s.insn.len as u64);
                }
            }
        }
        None
    }

    /// Unmaps the out-of-line pages, running `munmap` on the stopped thread
    /// `tid`; every thread must be out of them for good.
    pub fn unmap_pages(&mut self, tid: Tid) {
        if self.pages.is_empty() || self.unmapped {
            return;
        }
        let Some(insn) = self.syscall_insn(false) else {
            return;
        };
        let nr = Arch::X86_64.syscall_nr("munmap").unwrap_or(11) as u64;
        let t = Tracee::new(tid);
        for p in &self.pages {
            let _ = t.inject_syscall(insn, nr, [p.addr, PAGE, 0, 0, 0, 0]);
        }
        // Pages and slots stay known: other threads' pcs and stacks are
        // still mapped back through them.
        self.unmapped = true;
    }

    /// The address of some `syscall` instruction bytes in an executable
    /// mapping, outside rtrace's own pages (which may be about to go).
    fn syscall_insn(&mut self, allow_own: bool) -> Option<u64> {
        if let Some(a) = self.syscall_insn {
            return Some(a);
        }
        let maps = std::fs::read_to_string(format!("/proc/{}/maps", self.pid)).ok()?;
        let mut exec: Vec<(u64, u64, bool)> = maps
            .lines()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                let (range, perms) = (f.next()?, f.next()?);
                if perms.as_bytes().get(2) != Some(&b'x') {
                    return None;
                }
                let (s, e) = range.split_once('-')?;
                let vdso = l.ends_with("[vdso]");
                Some((
                    u64::from_str_radix(s, 16).ok()?,
                    u64::from_str_radix(e, 16).ok()?,
                    vdso,
                ))
            })
            .filter(|(s, _, _)| allow_own || !self.pages.iter().any(|p| p.addr == *s))
            .collect();
        // The vDSO first: small, always there, and never unmapped.
        exec.sort_by_key(|m| !m.2);
        let mut buf = vec![0u8; 1 << 16];
        for (start, end, _) in exec {
            let mut a = start;
            while a < end {
                let n = self
                    .mem
                    .read_some(a, &mut buf[..((end - a) as usize).min(1 << 16)]);
                if n < 2 {
                    break;
                }
                if let Some(i) = buf[..n].windows(2).position(|w| w == SYSCALL_INSN) {
                    self.syscall_insn = Some(a + i as u64);
                    return self.syscall_insn;
                }
                a += n as u64 - 1;
            }
        }
        None
    }

    /// Free page-aligned addresses within reach of `near`, closest first.
    fn candidates(&self, near: u64) -> Vec<u64> {
        let Ok(maps) = std::fs::read_to_string(format!("/proc/{}/maps", self.pid)) else {
            return Vec::new();
        };
        let mut used: Vec<(u64, u64)> = maps
            .lines()
            .filter_map(|l| {
                let (s, e) = l.split_whitespace().next()?.split_once('-')?;
                Some((
                    u64::from_str_radix(s, 16).ok()?,
                    u64::from_str_radix(e, 16).ok()?,
                ))
            })
            .collect();
        used.sort_unstable();
        let (lo_limit, hi_limit) = (0x10_0000u64, 0x7fff_ffff_0000u64);
        let mut gaps = Vec::new();
        let mut prev = lo_limit;
        for (s, e) in used.iter().copied().chain([(hi_limit, hi_limit)]) {
            if s >= prev + PAGE {
                gaps.push((prev, s));
            }
            prev = prev.max(e);
        }
        let mut c: Vec<u64> = gaps
            .iter()
            .flat_map(|&(s, e)| {
                // The page nearest `near` inside the gap, and both ends.
                let clamp = (near & !(PAGE - 1)).clamp(s, e - PAGE);
                [e - PAGE, s, clamp]
            })
            .filter(|a| a.abs_diff(near) < REACH)
            .collect();
        c.sort_by_key(|a| a.abs_diff(near));
        c.dedup();
        c
    }

    /// A page with a free slot within reach of `near`, mapping one (by
    /// running `mmap` on the stopped thread `tid`) when none is.
    fn page_near(&mut self, near: u64, tid: Tid) -> Option<usize> {
        if self.unmapped {
            return None;
        }
        if let Some(i) = self
            .pages
            .iter()
            .position(|p| p.addr.abs_diff(near) < REACH && p.used < PAGE / SLOT_SIZE as u64)
        {
            return Some(i);
        }
        let insn = self.syscall_insn(true)?;
        let nr = Arch::X86_64.syscall_nr("mmap").unwrap_or(9) as u64;
        let t = Tracee::new(tid);
        for cand in self.candidates(near).into_iter().take(4) {
            let r = t
                .inject_syscall(insn, nr, [cand, PAGE, PROT_RX, MAP_FLAGS, u64::MAX, 0])
                .ok()?;
            if r < 0 {
                continue;
            }
            let got = r as u64;
            // An old kernel takes the address as a hint only.
            if got != cand && got.abs_diff(near) >= REACH {
                let un = Arch::X86_64.syscall_nr("munmap").unwrap_or(11) as u64;
                let _ = t.inject_syscall(insn, un, [got, PAGE, 0, 0, 0, 0]);
                continue;
            }
            // Traps everywhere until slots are written.
            self.mem.write(got, &[TRAP_BYTES[0]; PAGE as usize]);
            self.pages.push(Page { addr: got, used: 0 });
            return Some(self.pages.len() - 1);
        }
        None
    }

    /// The return trampoline, mapping the first page if needed.
    pub fn trampoline(&mut self, near: u64, tid: Tid) -> Option<u64> {
        if let Some(t) = self.trampoline {
            return Some(t);
        }
        let i = self.page_near(near, tid)?;
        let p = &mut self.pages[i];
        let addr = p.addr + p.used * SLOT_SIZE as u64;
        p.used += 1;
        // The page is all traps already: the slot's first byte is the trap.
        self.trampoline = Some(addr);
        self.trampoline
    }

    /// The out-of-line slot of the site at `addr`, made on first use.
    pub fn slot(&mut self, addr: u64, tid: Tid) -> Result<Slot, PlaceError> {
        if let Some(s) = self.sites.get(&addr).and_then(|s| s.slot) {
            return Ok(s);
        }
        let i = self
            .page_near(addr, tid)
            .ok_or_else(|| format!("{addr:#x}: no out-of-line page could be mapped nearby"))?;
        let p = self.pages[i];
        let slot_addr = p.addr + p.used * SLOT_SIZE as u64;
        let site = self.sites.get_mut(&addr).ok_or("no such site")?;
        let code = site.insn.relocate(slot_addr).map_err(|e| e.to_string())?;
        let first = insn_x86::analyze(slot_addr, &code)
            .map(|a| a.len)
            .unwrap_or(code.len());
        if !self.mem.write(slot_addr, &code) {
            return Err(format!("{slot_addr:#x}: cannot write the out-of-line slot"));
        }
        self.pages[i].used += 1;
        let slot = Slot {
            addr: slot_addr,
            back: slot_addr + first as u64,
        };
        site.slot = Some(slot);
        Ok(slot)
    }
}
