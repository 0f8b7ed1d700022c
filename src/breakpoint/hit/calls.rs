//! A hit of a breakpoint (entry) or of the return trampoline (`ret:`
//! probes): conditions, counts, the report line, backtraces, and the
//! displaced instruction emulated or run out of line.

use super::*;
use crate::probe::disasm;
use crate::probe::frames::{BtEntry, Stack};
use crate::probe::shadow::{self, MAX_SHADOW};
use crate::unwind::backtrace::Depth;
use crate::unwind::trap::{regs_at_trap, Unhijacked};
use rtrace_arch::insn_x86::MAX_INSN_LEN;

impl Breaker {
    /// A trap at site `addr`.
    pub(super) fn entry_hit(&mut self, tid: Tid, id: u64, addr: u64, mut regs: Vec<u64>) -> Resume {
        let now = Instant::now();
        let tracee = Tracee::new(tid);
        let space = self.tasks.spaces.get_mut(&id).expect("space of a thread");
        let site = space.sites.get(&addr).expect("site");
        let (internal, plan, len) = (site.internal, site.insn.plan.clone(), site.insn.len);
        let probes = site.probes.clone();
        let label = site.label.clone();
        let pid = space.pid;
        let thread = self.tasks.threads.get_mut(&tid).expect("thread");
        let mut depth = thread.shadow.len();
        let innermost = thread.shadow.last().map(|s| (s.site, s.slot));
        let mut hijack = false;
        let mut fired = Vec::new();
        let mut problems = Vec::new();
        let map = self
            .maps
            .entry(id)
            .or_insert_with(|| self.resolver.map(pid));
        let hijacked = thread.shadow.iter().map(|s| (s.slot, s.ret)).collect();
        let mut hf = HitFrame::new(
            &self.vars,
            map,
            &mut self.unwinder,
            (tid, hijacked),
            addr,
            &regs,
        );
        if let (Some(&entry), Some((site, slot))) = (self.moved.get(&(id, addr)), innermost) {
            // Past the prologue, this very call's return probe (set at the
            // entry) is already pending: it is not an outer call.
            if site == entry && hf.cfa() == Some(slot.wrapping_add(8)) {
                depth -= 1;
            }
        }
        let limits = self.limits;
        for &pi in &probes {
            let p = &mut self.probes[pi];
            match p.spec.kind {
                Kind::Return => hijack |= !p.exhausted(limits),
                Kind::Entry => {
                    let ok = match &p.spec.cond {
                        None => Ok(true),
                        Some(c) => c
                            .eval(&mut DwarfValues {
                                regs: RegValues {
                                    regs: &regs,
                                    args: None,
                                    at_return: false,
                                },
                                frame: &mut hf,
                            })
                            .map(|v| v != 0),
                    };
                    match ok {
                        Ok(true) => {
                            if p.take(limits) {
                                fired.push(pi);
                            }
                        }
                        Ok(false) => {}
                        Err(e) => problems.push(format!("{}: {e}", p.spec.text)),
                    }
                }
            }
        }
        let values = (!self.opts_count && !fired.is_empty())
            .then(|| hf.values(self.opts_locals))
            .flatten();
        let printed: Vec<Named> = if self.opts_count || fired.is_empty() {
            Vec::new()
        } else {
            self.prints
                .iter()
                .map(|(text, e)| hf.print(&regs, text, e))
                .collect()
        };
        for m in problems {
            self.warn(m);
        }
        if !self.opts_count {
            let (frame, locals) = match &values {
                Some((f, l)) => (Some(f), self.opts_locals.then_some(&l[..])),
                None => (None, None),
            };
            let disasm = match self.opts_disasm {
                Some(n) if !fired.is_empty() => Some(self.disasm(id, addr, n)),
                _ => None,
            };
            for pi in fired {
                let bt = self.opts_bt.map(|d| self.backtrace(id, tid, &regs, d));
                let rec = Record::Hit {
                    spec: &self.probes[pi].spec.text,
                    pid,
                    tid,
                    time: now - self.start,
                    addr,
                    label: &label,
                    depth,
                    regs: self.opts_regs.then_some(&regs[..]),
                    bt: bt.as_deref(),
                    frame,
                    locals,
                    disasm: disasm.as_deref(),
                    prints: &printed,
                };
                self.sink.record(&rec);
            }
        }
        // Every probe here has reported all it may: take the site out
        // (the thread re-runs the original instruction).
        let exhausted = probes.iter().all(|&pi| self.probes[pi].exhausted(limits));
        let space = self.tasks.spaces.get_mut(&id).expect("space of a thread");
        let thread = self.tasks.threads.get_mut(&tid).expect("thread");
        if hijack && thread.shadow.len() < MAX_SHADOW {
            // The return address is at the stack pointer at the function's
            // first instruction.
            let sp = regs[SP];
            if let Some(tramp) = space.trampoline(addr, tid) {
                let mut b = [0u8; 8];
                if space.mem.read(sp, &mut b) && space.mem.write(sp, &tramp.to_le_bytes()) {
                    let ret = u64::from_le_bytes(b);
                    let mut args = [0u64; 6];
                    for (a, r) in args.iter_mut().zip(ARG_REGS) {
                        *a = regs[r];
                    }
                    let e = Shadow {
                        ret,
                        slot: sp,
                        at: now,
                        site: addr,
                        args,
                        shown: true,
                    };
                    if ret == tramp {
                        shadow::push_nested(&mut thread.shadow, e, |s| s.slot);
                    } else {
                        shadow::push(&mut thread.shadow, e, |s| s.slot);
                    }
                }
            }
        }
        // Step over the displaced instruction without removing the trap.
        let mut done = false;
        if exhausted && !internal && !probes.is_empty() {
            space.retire(addr);
            regs[PC] = addr;
            done = true;
        } else if let Plan::Emulate(e) = &plan {
            done = insn_x86::emulate(e, addr, len, &mut regs, &mut space.mem).is_ok();
        }
        if !done {
            match space.slot(addr, tid) {
                Ok(slot) => regs[PC] = slot.addr,
                Err(e) => {
                    // No way to step over it here: take this site out and
                    // re-run the original instruction.
                    space.retire(addr);
                    regs[PC] = addr;
                    self.warn(format!("breakpoint at {label} removed: {e}"));
                }
            }
        }
        if internal {
            // The dynamic linker's hook: the library list changed.
            self.place_all(id);
        }
        if tracee.set_regs(&regs).is_err() {
            return Resume::Suppress;
        }
        Resume::Suppress
    }

    /// A trap at the return trampoline.
    pub(super) fn return_hit(&mut self, tid: Tid, id: u64, mut regs: Vec<u64>) -> Resume {
        let now = Instant::now();
        let Some(thread) = self.tasks.threads.get_mut(&tid) else {
            return Resume::Deliver;
        };
        let Some(entry) = shadow::pop_returned(&mut thread.shadow, regs[SP], |s| s.slot) else {
            self.warn(format!(
                "thread {tid} returned to the trampoline with no return address saved"
            ));
            return Resume::Deliver;
        };
        let depth = thread.shadow.len();
        let Some(space) = self.tasks.spaces.get(&id) else {
            return Resume::Deliver;
        };
        let pid = space.pid;
        let (probes, label) = match space.sites.get(&entry.site) {
            Some(s) => (s.probes.clone(), s.label.clone()),
            None => (Vec::new(), format!("{:#x}", entry.site)),
        };
        regs[PC] = entry.ret;
        let _ = Tracee::new(tid).set_regs(&regs);
        if !entry.shown {
            return Resume::Suppress;
        }
        let printed: Vec<Named> = if self.opts_count {
            Vec::new()
        } else {
            let mut values = RegValues {
                regs: &regs,
                args: Some(entry.args),
                at_return: true,
            };
            self.prints
                .iter()
                .map(|(text, e)| print_regs(&mut values, text, e))
                .collect()
        };
        for pi in probes {
            if self.probes[pi].spec.kind != Kind::Return {
                continue;
            }
            let ok = match &self.probes[pi].spec.cond {
                None => Ok(true),
                Some(c) => c
                    .eval(&mut RegValues {
                        regs: &regs,
                        args: Some(entry.args),
                        at_return: true,
                    })
                    .map(|v| v != 0),
            };
            match ok {
                Ok(true) if self.probes[pi].take(self.limits) => {}
                Ok(_) => continue,
                Err(e) => {
                    let m = format!("{}: {e}", self.probes[pi].spec.text);
                    self.warn(m);
                    continue;
                }
            }
            if self.opts_count {
                continue;
            }
            let rec = Record::Return {
                spec: &self.probes[pi].spec.text,
                pid,
                tid,
                time: now - self.start,
                label: &label,
                retval: regs[RET],
                duration: now - entry.at,
                depth,
                args: entry.args,
                regs: self.opts_regs.then_some(&regs[..]),
                prints: &printed,
            };
            self.sink.record(&rec);
        }
        Resume::Suppress
    }

    /// `--disasm`: `n` instructions from `pc`, the bytes under rtrace's
    /// traps shown as the instructions they displaced.
    fn disasm(&mut self, id: u64, pc: u64, n: usize) -> Vec<disasm::Line> {
        let Some(space) = self.tasks.spaces.get_mut(&id) else {
            return Vec::new();
        };
        let pid = space.pid;
        let map = self
            .maps
            .entry(id)
            .or_insert_with(|| self.resolver.map(pid));
        let sym = self.resolver.symbolizer();
        // Code addresses only: the symbol tables hold functions, and a data
        // address past the last one would be named after it.
        let mut name = |a: u64| {
            map.find(a).filter(|m| m.is_exec())?;
            let frames = sym.symbolize(map, a);
            let f = frames.last()?;
            disasm::symbol(f.function.as_deref(), f.offset_in_function)
        };
        let end = pc + (n * MAX_INSN_LEN) as u64;
        let patches: Vec<(u64, &[u8])> = space
            .sites
            .range(pc.saturating_sub(MAX_INSN_LEN as u64)..end)
            .map(|(&a, s)| (a, &s.orig[..]))
            .collect();
        disasm::lines(&mut space.mem, &patches, pc, n, &mut name)
    }

    /// Frames for `--bt`, unwound with DWARF CFI (frame pointers where
    /// there is none) from the breakpoint address; return addresses rtrace
    /// replaced with its trampoline read as the originals. Each frame with
    /// DWARF has its function's arguments, read with the frames outside it
    /// (values at entry come from the caller's call site).
    fn backtrace(&mut self, id: u64, tid: Tid, regs: &[u64], depth: Depth) -> Vec<BtEntry> {
        let Some(space) = self.tasks.spaces.get(&id) else {
            return Vec::new();
        };
        let pid = space.pid;
        let map = self
            .maps
            .entry(id)
            .or_insert_with(|| self.resolver.map(pid));
        let hijacked: Vec<(u64, u64)> = self
            .tasks
            .threads
            .get(&tid)
            .map(|t| t.shadow.iter().map(|s| (s.slot, s.ret)).collect())
            .unwrap_or_default();
        let stack = Stack {
            sym: self.resolver.symbolizer(),
            vars: &self.vars,
            map,
        };
        let mut mem = Unhijacked::new(tid, hijacked);
        let init = regs_at_trap(regs);
        stack
            .backtrace(&mut self.unwinder, &init, &mut mem, depth)
            .0
    }
}
