//! Stack unwinding of a stopped thread.
//!
//! Scope: DWARF CFI from `.eh_frame` (through `.eh_frame_hdr`) and
//! `.debug_frame` (also from separate debug files) evaluated with gimli's
//! `UnwindContext`, recovering every register the CFI describes (DWARF
//! numbering per architecture, in [`regs`]); signal frames (the CIE `S`
//! augmentation, or the `rt_sigreturn` trampoline's code with the kernel's
//! `ucontext` layout); `pc - 1` lookups for return addresses (but not for
//! the first frame or the frame a signal interrupted); a frame-pointer
//! fallback where there is no CFI; a loop guard (the stack pointer must grow,
//! except across a signal frame, where an alternate stack may lie anywhere,
//! and no `(pc, sp)` may repeat).
//!
//! Non-goals: unwinding through JIT code without CFI, `.ARM.exidx`,
//! prologue analysis, compact unwind, recovering vector registers. Signal
//! frames are tested on x86_64; the aarch64 table is unit-tested only.

pub mod backtrace;
pub mod cfi;
pub mod memcache;
pub mod regs;
pub mod sigframe;
pub mod trap;
mod walk;

pub use regs::{
    from_prstatus_aarch64, from_prstatus_x86_64, ArchRegs, InitialRegs, AARCH64, X86_64,
};

use crate::engine::memory::Memory;
use crate::symbols::{Frame, ModuleKey, ModuleMap, Symbolizer};
use cfi::ModuleCfi;
use memcache::PageCache;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use walk::Step;

/// How a frame's registers were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Given (the stopped thread's registers).
    Initial,
    /// From the callee's CFI.
    Cfi,
    /// From a signal frame's saved context, without CFI.
    SignalContext,
    /// From the callee's frame pointer.
    FramePointer,
}

/// One frame of an unwound stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnwoundFrame {
    /// The frame's pc: the current pc for the first frame and for a frame
    /// a signal interrupted, else a return address.
    pub pc: u64,
    /// The frame's stack pointer, when known.
    pub sp: Option<u64>,
    /// Whether `pc` is a return address (look up `pc - 1` for its line).
    pub is_return_address: bool,
    /// Whether this frame is a signal trampoline (gdb's `<signal handler called>`).
    pub signal_trampoline: bool,
    /// How this frame's registers were recovered.
    pub recovered_by: Recovery,
}

/// One frame with the registers recovered for it.
#[derive(Debug, Clone)]
pub struct FrameState {
    /// The frame.
    pub frame: UnwoundFrame,
    /// Its registers (callee-saved ones as the CFI recovered them; others
    /// unknown in outer frames).
    pub regs: InitialRegs,
    /// Its canonical frame address, when the CFI or frame pointer gives it.
    pub cfa: Option<u64>,
}

/// Walks stacks. Cheap to clone: clones share the per-module CFI cache;
/// each keeps its own scratch state.
#[derive(Clone)]
pub struct Unwinder {
    cache: Arc<Mutex<HashMap<ModuleKey, Arc<ModuleCfi>>>>,
    ctx: Box<cfi::Context>,
}

impl Default for Unwinder {
    fn default() -> Self {
        Unwinder::new()
    }
}

impl std::fmt::Debug for Unwinder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unwinder").finish_non_exhaustive()
    }
}

impl Unwinder {
    /// An unwinder with an empty CFI cache.
    pub fn new() -> Unwinder {
        Unwinder {
            cache: Arc::new(Mutex::new(HashMap::new())),
            ctx: Box::new(cfi::Context::new()),
        }
    }

    /// The pcs of the stack, innermost first (the first is `regs.pc`), at
    /// most `max_frames`.
    pub fn unwind(
        &mut self,
        symbols: &Symbolizer,
        map: &ModuleMap,
        regs: &InitialRegs,
        mem: &mut dyn Memory,
        max_frames: usize,
    ) -> Vec<u64> {
        self.unwind_frames(symbols, map, regs, mem, max_frames)
            .iter()
            .map(|f| f.pc)
            .collect()
    }

    /// The frames of the stack, innermost first, at most `max_frames`.
    pub fn unwind_frames(
        &mut self,
        symbols: &Symbolizer,
        map: &ModuleMap,
        regs: &InitialRegs,
        mem: &mut dyn Memory,
        max_frames: usize,
    ) -> Vec<UnwoundFrame> {
        self.walk(symbols, map, regs, mem, max_frames, None)
    }

    /// The frames of the stack with each frame's recovered registers and
    /// canonical frame address (what DWARF variable locations need:
    /// `DW_OP_call_frame_cfa`, `DW_OP_bregN`), innermost first.
    pub fn unwind_states(
        &mut self,
        symbols: &Symbolizer,
        map: &ModuleMap,
        regs: &InitialRegs,
        mem: &mut dyn Memory,
        max_frames: usize,
    ) -> Vec<FrameState> {
        let mut all_regs = Vec::new();
        let frames = self.walk(symbols, map, regs, mem, max_frames, Some(&mut all_regs));
        frames
            .into_iter()
            .zip(all_regs)
            .map(|(frame, regs)| {
                let cfa = self.cfa(symbols, map, &regs, frame.is_return_address, mem);
                FrameState { frame, regs, cfa }
            })
            .collect()
    }

    /// The canonical frame address of the frame with registers `regs` (the
    /// caller's stack pointer before the call), from the CFI at `regs.pc`
    /// (`pc - 1` for a return address), else from the frame pointer.
    pub fn cfa(
        &mut self,
        symbols: &Symbolizer,
        map: &ModuleMap,
        regs: &InitialRegs,
        is_return_address: bool,
        mem: &mut dyn Memory,
    ) -> Option<u64> {
        let mut mem = PageCache::new(mem);
        let lookup = regs.pc.wrapping_sub(u64::from(is_return_address));
        if let Some((cfi, vaddr)) = self.cfi_for(symbols, map, lookup) {
            if let Some(found) = cfi.find(&mut self.ctx, vaddr) {
                return walk::cfa(regs, &found, &cfi, &mut mem);
            }
        }
        match walk::frame_pointer(regs, &mut mem) {
            Step::Caller(caller) => caller.sp(),
            _ => None,
        }
    }

    fn walk(
        &mut self,
        symbols: &Symbolizer,
        map: &ModuleMap,
        regs: &InitialRegs,
        mem: &mut dyn Memory,
        max_frames: usize,
        mut keep_regs: Option<&mut Vec<InitialRegs>>,
    ) -> Vec<UnwoundFrame> {
        let mut mem = PageCache::new(mem);
        let mut frames: Vec<UnwoundFrame> = Vec::new();
        let mut seen = HashSet::new();
        let mut cur = regs.clone();
        let mut exact = true;
        let mut recovered_by = Recovery::Initial;
        while frames.len() < max_frames && cur.pc != 0 && seen.insert((cur.pc, cur.sp())) {
            let pc = cur.pc;
            frames.push(UnwoundFrame {
                pc,
                sp: cur.sp(),
                is_return_address: !exact,
                signal_trampoline: false,
                recovered_by,
            });
            if let Some(keep) = keep_regs.as_deref_mut() {
                keep.push(cur.clone());
            }
            let lookup = if exact { pc } else { pc.wrapping_sub(1) };
            let found = self.cfi_for(symbols, map, lookup).and_then(|(cfi, vaddr)| {
                let found = cfi.find(&mut self.ctx, vaddr)?;
                Some((cfi, found))
            });
            let (step, signal, how) = match found {
                Some((cfi, found)) => {
                    let step = walk::apply_cfi(&cur, &found, &cfi, &mut mem);
                    let step = match step {
                        Step::Failed => walk::frame_pointer(&cur, &mut mem),
                        other => other,
                    };
                    (step, found.signal, Recovery::Cfi)
                }
                None if sigframe::is_trampoline(&cur, &mut mem, pc) => {
                    let step = sigframe::restore(&cur, &mut mem)
                        .map_or(Step::Failed, |r| Step::Caller(Box::new(r)));
                    (step, true, Recovery::SignalContext)
                }
                None => (
                    walk::frame_pointer(&cur, &mut mem),
                    false,
                    Recovery::FramePointer,
                ),
            };
            if let Some(last) = frames.last_mut() {
                last.signal_trampoline = signal;
            }
            let Step::Caller(next) = step else { break };
            // Loop guard: the stack grows down, so callers have higher sps;
            // a signal frame may switch stacks (sigaltstack).
            let grows = match (cur.sp(), next.sp()) {
                (Some(a), Some(b)) => b > a,
                _ => false,
            };
            if !grows && !signal {
                break;
            }
            exact = signal;
            recovered_by = how;
            cur = *next;
        }
        frames
    }

    /// The CFI of the module mapped at `addr`, and `addr` as a file address.
    fn cfi_for(
        &self,
        symbols: &Symbolizer,
        map: &ModuleMap,
        addr: u64,
    ) -> Option<(Arc<ModuleCfi>, u64)> {
        let mapping = map.find(addr)?;
        let vaddr = mapping.file_vaddr(addr)?;
        let module = symbols.module(map, mapping)?;
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let cfi = cache
            .entry(module.key().clone())
            .or_insert_with(|| Arc::new(ModuleCfi::load(module.clone())))
            .clone();
        Some((cfi, vaddr))
    }
}

/// Symbolizes unwound frames (return addresses by their call instruction),
/// with inlined frames expanded: innermost first, as gdb's `bt` lists them.
pub fn symbolize_frames(
    symbols: &Symbolizer,
    map: &ModuleMap,
    frames: &[UnwoundFrame],
) -> Vec<Frame> {
    frames
        .iter()
        .flat_map(|f| {
            if f.is_return_address {
                symbols.symbolize_return_address(map, f.pc)
            } else {
                symbols.symbolize(map, f.pc)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;

    /// A stack of frame records `[saved rbp, return address]` with no CFI
    /// anywhere (an empty module map): the frame-pointer walk.
    fn fp_stack(links: &[(u64, u64)]) -> (FakeMemory, InitialRegs) {
        let mut mem = FakeMemory::default();
        let base = mem.put(&[0u8; 16]);
        let mut words = Vec::new();
        for &(fp_index, ra) in links {
            words.extend_from_slice(&(base + 16 + fp_index * 16).to_le_bytes());
            words.extend_from_slice(&ra.to_le_bytes());
        }
        mem.put(&words);
        let mut regs = InitialRegs::empty(&X86_64);
        regs.pc = 0x40_1000;
        regs.set(X86_64.sp, Some(base));
        regs.set(X86_64.fp, Some(base + 16));
        (mem, regs)
    }

    fn walk(mem: &mut FakeMemory, regs: &InitialRegs, max: usize) -> Vec<UnwoundFrame> {
        Unwinder::new().unwind_frames(&Symbolizer::new(), &ModuleMap::default(), regs, mem, max)
    }

    #[test]
    fn frame_pointer_chain_ends_at_a_zero_return_address() {
        let (mut mem, regs) = fp_stack(&[(1, 0x40_2000), (2, 0x40_3000), (3, 0)]);
        let frames = walk(&mut mem, &regs, 64);
        let pcs: Vec<u64> = frames.iter().map(|f| f.pc).collect();
        assert_eq!(pcs, [0x40_1000, 0x40_2000, 0x40_3000]);
        assert_eq!(frames[0].recovered_by, Recovery::Initial);
        assert!(frames[1..]
            .iter()
            .all(|f| f.recovered_by == Recovery::FramePointer && f.is_return_address));
        assert!(!frames[0].is_return_address);
        assert_eq!(walk(&mut mem, &regs, 2).len(), 2, "max_frames");
        assert!(walk(&mut mem, &regs, 0).is_empty());
    }

    #[test]
    fn loops_in_the_frame_chain_stop_the_walk() {
        // Record 1 points back to record 0: sp would not increase.
        let (mut mem, regs) = fp_stack(&[(1, 0x40_2000), (0, 0x40_3000)]);
        assert_eq!(walk(&mut mem, &regs, 64).len(), 3);
        // A record that points at itself.
        let (mut mem, regs) = fp_stack(&[(0, 0x40_2000)]);
        assert!(walk(&mut mem, &regs, 64).len() <= 2);
    }

    #[test]
    fn frame_states_carry_registers_and_cfas() {
        let (mut mem, regs) = fp_stack(&[(1, 0x40_2000), (2, 0)]);
        let fp = regs.get(X86_64.fp).unwrap();
        let states = Unwinder::new().unwind_states(
            &Symbolizer::new(),
            &ModuleMap::default(),
            &regs,
            &mut mem,
            8,
        );
        assert_eq!(states.len(), 2);
        assert_eq!(states[0].regs.pc, 0x40_1000);
        // Without CFI the CFA is the frame pointer's caller sp.
        assert_eq!(states[0].cfa, Some(fp + 16));
        assert_eq!(states[1].regs.sp(), Some(fp + 16));
        assert_eq!(states[1].regs.get(X86_64.fp), Some(fp + 16));
        assert_eq!(states[1].cfa, Some(fp + 32));
        assert!(states[1].frame.is_return_address);
    }

    #[test]
    fn unreadable_stack_gives_just_the_first_frame() {
        let mut mem = FakeMemory::default();
        let mut regs = InitialRegs::empty(&X86_64);
        regs.pc = 0x1234;
        regs.set(X86_64.sp, Some(0x7fff_0000));
        regs.set(X86_64.fp, Some(0x7fff_0010));
        let pcs: Vec<u64> = walk(&mut mem, &regs, 64).iter().map(|f| f.pc).collect();
        assert_eq!(pcs, [0x1234]);
        let empty = InitialRegs::empty(&X86_64);
        assert!(walk(&mut mem, &empty, 64).is_empty(), "pc 0");
    }
}
