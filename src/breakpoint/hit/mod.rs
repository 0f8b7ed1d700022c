//! The breakpoint handler: turns engine events into placed breakpoints,
//! hits, return probes and clean detaches.
//!
//! A hit is a SIGTRAP signal-delivery stop with `si_code == SI_KERNEL` (what
//! INT3 raises) whose pc minus the trap length is one of our sites, or the
//! return trampoline. The trap is suppressed and the displaced instruction is
//! emulated or run out of line, so the INT3 stays in place and no thread can
//! run past a breakpoint unseen.

use super::cli::Options;
use super::report::{Record, Sink};
use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use crate::engine::{Event, Handler, Resume, Stamp};
use crate::probe::resolve::Resolver;
use crate::probe::space::Space;
use crate::probe::spec::{Kind, Location, Spec};
use crate::probe::tasks::{AfterExec, Frame, Tasks};
use crate::vars::Vars;
use rtrace_arch::insn_x86::{self, Plan};
use rtrace_arch::x86_64::{ARG_REGS, PC, RET, SP, TRAP_PC_ADJUST};
use std::collections::HashMap;
use std::time::Instant;

mod calls;

use super::report::Named;
pub use super::values::{print_regs, DwarfValues, HitFrame, RegValues};

/// `si_code` of the SIGTRAP an INT3 raises (`SI_KERNEL`).
const SI_KERNEL: i32 = 0x80;

/// A probe: one spec and its hit count.
pub struct Probe {
    /// The spec.
    pub spec: Spec,
    /// Hits reported (condition true, past `--ignore`, within `--max-hits`).
    pub hits: u64,
    /// Hits whose condition held, reported or not.
    pub passed: u64,
    /// Addresses it was placed at (over all processes).
    pub placed: usize,
}

/// `--ignore` and `--max-hits`: which hits of each probe are reported.
#[derive(Clone, Copy, Debug, Default)]
struct HitLimits {
    ignore: u64,
    max: Option<u64>,
}

impl Probe {
    /// A hit whose condition holds: whether to report it (past `ignore`,
    /// within `max`), counted in `hits` if so.
    fn take(&mut self, limits: HitLimits) -> bool {
        self.passed += 1;
        if self.passed <= limits.ignore || self.exhausted(limits) {
            return false;
        }
        self.hits += 1;
        true
    }

    /// Whether it has reported all the hits it may (gdb's `enable count`,
    /// `tbreak`).
    fn exhausted(&self, limits: HitLimits) -> bool {
        limits.max.is_some_and(|m| self.hits >= m)
    }
}

/// A return address rtrace replaced with the trampoline.
#[derive(Clone, Debug)]
struct Shadow {
    /// The original return address.
    ret: u64,
    /// Where it was on the stack.
    slot: u64,
    /// When the function was entered.
    at: Instant,
    /// The entry site.
    site: u64,
    /// Argument registers at entry (for `$argN` at the return).
    args: [u64; 6],
    /// Whether its return is reported (not in an unfollowed vfork child,
    /// which returns through the parent's hijack before it execs).
    shown: bool,
}

impl Frame for Shadow {
    fn ret(&self) -> u64 {
        self.ret
    }
    fn slot(&self) -> u64 {
        self.slot
    }
    fn for_vfork_child(&self, followed: bool) -> Option<Shadow> {
        // It returns from `vfork` through the trampoline as the parent will
        // (glibc keeps the return address in a register across the call).
        Some(Shadow {
            shown: self.shown && followed,
            ..self.clone()
        })
    }
}

/// The `rtrace break` handler.
pub struct Breaker {
    /// Probes, in command-line order.
    pub probes: Vec<Probe>,
    opts_count: bool,
    opts_bt: Option<crate::unwind::backtrace::Depth>,
    opts_regs: bool,
    opts_locals: bool,
    opts_disasm: Option<usize>,
    limits: HitLimits,
    /// `--print`: the text and the parsed expression.
    prints: Vec<(String, crate::probe::cond::Expr)>,
    /// Threads and their breakpoint spaces.
    tasks: Tasks<Space, Shadow>,
    resolver: Resolver,
    /// Sites placed past a function's prologue, by (space, address): the
    /// function's entry address.
    moved: HashMap<(u64, u64), u64>,
    /// Module maps per space, read at placement (for backtraces).
    maps: HashMap<u64, crate::symbols::ModuleMap>,
    unwinder: crate::unwind::Unwinder,
    /// DWARF variables (arguments, locals, conditions), sharing the
    /// resolver's parsed DWARF.
    vars: Vars,
    sink: Sink,
    start: Instant,
    warned: std::collections::HashSet<String>,
    /// The traced processes' main programs (to say why a spec matched
    /// nothing).
    mains: Vec<crate::probe::resolve::MainProgram>,
    /// Problems worth a non-zero exit (nothing placed).
    pub errors: usize,
}

impl Breaker {
    /// A handler for `opts`, writing to `sink`.
    pub fn new(opts: &mut Options, mut sink: Sink) -> Breaker {
        let resolver = Resolver::new();
        let vars = Vars::new(resolver.symbolizer());
        Breaker {
            probes: std::mem::take(&mut opts.specs)
                .into_iter()
                .map(|spec| Probe {
                    spec,
                    hits: 0,
                    passed: 0,
                    placed: 0,
                })
                .collect(),
            opts_count: opts.count,
            opts_bt: opts.bt,
            opts_regs: opts.regs,
            opts_locals: opts.locals,
            opts_disasm: opts.disasm,
            limits: HitLimits {
                ignore: opts.ignore,
                max: opts.max_hits,
            },
            prints: std::mem::take(&mut opts.prints),
            tasks: Tasks::new(opts.follow),
            resolver,
            maps: HashMap::new(),
            moved: HashMap::new(),
            unwinder: crate::unwind::Unwinder::new(),
            vars,
            start: {
                let start = Instant::now();
                sink.set_origin(std::time::SystemTime::now());
                start
            },
            sink,
            warned: Default::default(),
            mains: Vec::new(),
            errors: 0,
        }
    }

    fn warn(&mut self, msg: String) {
        if self.warned.insert(msg.clone()) {
            eprintln!("rtrace break: {msg}");
        }
    }

    /// Starts tracing process `pid` (attached or just exec'd): places every
    /// probe its modules resolve now, and the dynamic linker's hook.
    pub fn start_process(&mut self, pid: Tid, tids: &[Tid]) {
        let id = self.tasks.add_space(Space::new(pid));
        for &t in tids {
            self.tasks.add_thread(t, id, Vec::new());
        }
        self.place_all(id);
    }

    /// (Re)resolves every probe in the space and places the new addresses.
    fn place_all(&mut self, id: u64) {
        let Some(space) = self.tasks.spaces.get_mut(&id) else {
            return;
        };
        let map = self.resolver.map(space.pid);
        space.drop_unmapped(&Resolver::exec_ranges(&map));
        self.maps.remove(&id);
        if let Some(m) = self.resolver.main_program(space.pid, &map) {
            if !self.mains.iter().any(|x| x.path == m.path) {
                self.mains.push(m);
            }
        }
        if let Some(hook) = self.resolver.dl_hook(&map, None) {
            if let Err(e) = space.place(hook, None, crate::probe::resolve::DL_HOOK) {
                self.warned.insert(e.clone());
                eprintln!("rtrace break: libraries loaded later will not be seen: {e}");
            }
        }
        let mut problems = Vec::new();
        for (i, p) in self.probes.iter_mut().enumerate() {
            let post_prologue = p.spec.kind == Kind::Entry
                && (!self.opts_count || p.spec.cond.as_ref().is_some_and(|c| c.uses_variables()));
            for mut t in self.resolver.resolve(&map, &p.spec.loc) {
                // A function, or a line that lands on a function's entry
                // (its first line), as gdb moves both.
                let moves = match p.spec.loc {
                    Location::Func { .. } => true,
                    Location::Line { .. } => self.vars.is_function_entry(&map, t.addr),
                    _ => false,
                };
                if post_prologue && moves {
                    // Where the arguments are in their DWARF locations (gdb's
                    // `break FUNC`); the entry itself when nothing is read.
                    let a = self.vars.after_prologue(&map, t.addr);
                    if a != t.addr {
                        self.moved.insert((id, a), t.addr);
                        t.label = self.resolver.label(&map, a);
                        t.addr = a;
                    }
                }
                if !space.placed.insert((i, t.addr)) {
                    continue;
                }
                match space.place(t.addr, Some(i), &t.label) {
                    Ok(()) => p.placed += 1,
                    Err(e) => problems.push(format!("{}: {e}", p.spec.text)),
                }
            }
        }
        for e in problems {
            self.warn(e);
        }
    }

    /// Problems met in the traced modules' symbols and debug information
    /// (corrupt DWARF, a debug file that does not match), one line each.
    pub fn symbol_warnings(&self) -> Vec<String> {
        self.resolver
            .symbolizer()
            .warnings()
            .into_iter()
            .map(|w| format!("{}: {}", w.module, w.warning))
            .collect()
    }

    /// Called once the run is over: probes that never found an address,
    /// each with why when a traced main program lacks what would find it
    /// (a symbol table, DWARF).
    pub fn unplaced(&self) -> Vec<(&str, Option<String>)> {
        self.probes
            .iter()
            .filter(|p| p.placed == 0)
            .map(|p| {
                let why: Vec<String> = self
                    .mains
                    .iter()
                    .filter_map(|m| m.why_not(&p.spec.loc))
                    .collect();
                (
                    p.spec.text.as_str(),
                    (!why.is_empty()).then(|| why.join("; ")),
                )
            })
            .collect()
    }

    /// Breakpoint addresses placed in process `pid` (rtrace's own included).
    pub fn sites_in(&self, pid: Tid) -> usize {
        self.tasks
            .spaces
            .values()
            .filter(|s| s.pid == pid)
            .map(|s| s.sites.values().filter(|x| !x.internal).count())
            .sum()
    }

    /// Whether any probe found an address so far.
    pub fn any_placed(&self) -> bool {
        self.probes.iter().any(|p| p.placed > 0)
    }

    /// The space of `tid`, adopting a thread or child whose creation event
    /// has not come yet (its first trap may come first).
    fn space_of(&mut self, tid: Tid) -> Option<u64> {
        let (id, forked) = self.tasks.space_of(tid)?;
        if let Some((parent, child)) = forked {
            self.forked(parent, child);
        }
        Some(id)
    }

    /// A fork child's space `child` was copied from `parent`: so are the
    /// sites placed past a prologue.
    fn forked(&mut self, parent: u64, child: u64) {
        let moved: Vec<((u64, u64), u64)> = self
            .moved
            .iter()
            .filter(|((s, _), _)| *s == parent)
            .map(|(&(_, a), &e)| ((child, a), e))
            .collect();
        self.moved.extend(moved);
    }

    /// Space `id` is gone with its last thread.
    fn dropped(&mut self, id: u64) {
        self.maps.remove(&id);
        self.moved.retain(|(s, _), _| *s != id);
    }

    /// Writes the `--count` table (and flushes).
    pub fn finish(&mut self) {
        if self.opts_count {
            let rows: Vec<(String, u64)> = self
                .probes
                .iter()
                .map(|p| (p.spec.text.clone(), p.hits))
                .collect();
            self.sink.table(&rows);
        }
        self.sink.flush();
    }
}

impl Handler for Breaker {
    fn event(&mut self, ev: Event<'_>, _when: &Stamp) {
        match ev {
            Event::NewTask {
                parent,
                child,
                thread,
            } => {
                if let Some((ps, cs)) = self.tasks.new_task(parent, child, thread) {
                    self.forked(ps, cs);
                }
            }
            Event::Exec { tid, old_tid } => {
                let (gone, next) = self.tasks.exec(tid, old_tid);
                gone.into_iter().for_each(|id| self.dropped(id));
                if next == AfterExec::Start {
                    self.start_process(tid, &[tid]);
                }
            }
            Event::Killed { tid, sig, .. } => {
                let leader = self
                    .tasks
                    .threads
                    .get(&tid)
                    .and_then(|t| self.tasks.spaces.get(&t.space))
                    .map(|s| s.pid)
                    == Some(tid);
                if leader && !self.opts_count {
                    self.sink.killed(tid, self.start.elapsed(), sig);
                }
                if let Some(id) = self.tasks.gone(tid) {
                    self.dropped(id);
                }
            }
            Event::Exited { tid, .. } | Event::Detached { tid } => {
                if let Some(id) = self.tasks.gone(tid) {
                    self.dropped(id);
                }
            }
            _ => {}
        }
    }

    fn signal_stop(&mut self, tid: Tid, sig: i32, info: &[u8; 128]) -> Resume {
        if sig != libc::SIGTRAP {
            return Resume::Deliver;
        }
        let code = i32::from_ne_bytes([info[8], info[9], info[10], info[11]]);
        if code != SI_KERNEL {
            return Resume::Deliver;
        }
        let Some(id) = self.space_of(tid) else {
            return Resume::Deliver;
        };
        let Ok(mut regs) = Tracee::new(tid).regs() else {
            return Resume::Deliver;
        };
        let pc = regs[PC].wrapping_sub(TRAP_PC_ADJUST);
        let Some(space) = self.tasks.spaces.get(&id) else {
            return Resume::Deliver;
        };
        if Some(pc) == space.trampoline {
            return self.return_hit(tid, id, regs);
        }
        if space.sites.contains_key(&pc) {
            return self.entry_hit(tid, id, pc, regs);
        }
        if space.retired.contains(&pc) {
            // Trapped on a breakpoint just taken out: run the original.
            regs[PC] = pc;
            let _ = Tracee::new(tid).set_regs(&regs);
            return Resume::Suppress;
        }
        Resume::Deliver
    }

    fn detach_requests(&mut self) -> Vec<Tid> {
        std::mem::take(&mut self.tasks.detach)
    }

    fn detaching(&mut self, tid: Tid) {
        if let Some(id) = self.tasks.release(tid) {
            self.dropped(id);
        }
    }
}
