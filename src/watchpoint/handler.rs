//! The engine handler of `rtrace watch`: arms every thread of the watched
//! process, turns debug-register traps into [`Hit`]s, and disarms every
//! thread it lets go.
//!
//! Life of a watch:
//! - Launched command: the plan's addresses are final at the first
//!   `execve` (PIE load bias known from `/proc/PID/maps`); the execing thread
//!   is armed at its exec stop, before the new program's first instruction.
//!   When a watch names a global the executable does not define (a shared
//!   library's), the thread is instead stopped at the program's entry point
//!   (an execute watchpoint in DR0, no code changed), where the libraries
//!   it needs are loaded; the watches are placed and armed there. Writes
//!   made by library constructors before that are not seen, nor threads
//!   they start.
//! - Attached process: each thread is armed at its first stop (the attach
//!   interrupt, [`Handler::task_ready`]).
//! - New threads: armed at their first stop, before their first
//!   instruction (debug registers are not inherited). Forked children are
//!   let go (they are another address space, and start with empty debug
//!   registers).
//! - A hit is a SIGTRAP signal-delivery stop with `si_code == TRAP_HWBKPT`
//!   and a slot bit in DR6; it is reported, DR6 cleared, and the SIGTRAP
//!   suppressed.
//! - Every thread rtrace detaches from is disarmed first
//!   ([`Handler::detaching`]); threads that exit take their registers with
//!   them.

mod entry;
mod scope;

use super::hwregs::DebugRegs;
use super::local::LocalWatch;
use super::report::{Found, Hit, Report, Site};
use super::resolve::{FileSymbol, SymbolSource, WatchedFrame};
use super::spec::{self, Cond, Expr, Spec, Watch};
use super::value::{IntFormatter, ValueFormatter};
use crate::engine::ptrace::Tid;
use crate::engine::tracee::{tgid_of, Tracee};
use crate::engine::{Event, Handler, Resume, Stamp};
use crate::probe::disasm;
use crate::probe::frames::BtEntry;
use crate::unwind::backtrace::Depth;
use rtrace_arch::regs::RegisterFile;
use rtrace_arch::x86_debugreg::{self, Kind};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// `si_code` of a hardware breakpoint/watchpoint trap (`TRAP_HWBKPT`).
const TRAP_HWBKPT: i32 = 4;

/// Longest function prefix decoded to find an accessing instruction.
const MAX_DECODE: u64 = 64 * 1024;

/// Where each expression's address comes from.
#[derive(Clone, Debug)]
pub enum Target {
    /// A fixed address and length.
    Fixed(u64, u64),
    /// A symbol of the executable, placed by the load bias at run time;
    /// with the length to watch. Typed by DWARF when it has the variable.
    Symbol(FileSymbol, u64),
    /// A part of a global variable of the executable (`cfg.origin.y`),
    /// placed and typed by DWARF at run time.
    Dwarf(PathBuf, String),
    /// A global the executable (the path) does not define: looked for in
    /// the libraries it loads at start-up, once they are loaded.
    Shared(PathBuf, String),
    /// A local variable (`func:var`): watched in each activation of the
    /// function ([`super::local`]).
    Local(FileSymbol, String),
}

/// The state of one watched process.
pub struct Watcher {
    exprs: Vec<(Expr, Target)>,
    /// Per watch: report a hit only when this holds after the access.
    conds: Vec<Option<Cond>>,
    /// Conditions whose evaluation failed (reported once each).
    cond_errors: BTreeSet<String>,
    kind: Kind,
    plan: Vec<Watch>,
    regs: Option<DebugRegs>,
    /// Last seen bytes of each watch (the "old" value of the next write).
    copies: Vec<Option<Vec<u8>>>,
    hits: Vec<u64>,
    /// Per watch: how its bytes become a value (an integer of the watched
    /// length until a DWARF-typed formatter is given).
    formatters: Vec<Box<dyn ValueFormatter>>,
    symbols: Box<dyn SymbolSource>,
    report: Report,
    /// The watched process, once known.
    tgid: Option<Tid>,
    /// Threads whose debug registers hold the plan.
    armed: BTreeSet<Tid>,
    /// Watches are live (until the process execs again).
    active: bool,
    /// A launched program with library globals to watch: the entry point
    /// its first thread is stopped at (an execute watchpoint, DR0) once
    /// the dynamic linker has loaded the libraries, to place the watches.
    entry_hook: Option<u64>,
    /// A `func:var` watch: its hooks and the activation being watched.
    local: Option<LocalWatch>,
    count_only: bool,
    bt: Option<Depth>,
    disasm: Option<usize>,
    /// Print per-thread armed/cleared lines in text mode (attach mode).
    thread_notes: bool,
    detach: Vec<Tid>,
    /// A failure that ends the session (reported; rtrace exits 1).
    pub fatal: Option<String>,
    /// The launched command's pid, to kill on a fatal error.
    pub launched: Option<Tid>,
}

/// Options of a [`Watcher`].
pub struct WatcherOptions {
    /// Access kind.
    pub kind: Kind,
    /// `--count`.
    pub count_only: bool,
    /// `--bt[=N]`, `--past-main`.
    pub bt: Option<Depth>,
    /// `--disasm[=N]`.
    pub disasm: Option<usize>,
    /// Attach mode: print per-thread lines.
    pub thread_notes: bool,
}

impl Watcher {
    /// A watcher for `specs`, each resolved to its [`Target`].
    pub fn new(
        specs: Vec<(Spec, Target)>,
        o: WatcherOptions,
        symbols: Box<dyn SymbolSource>,
        report: Report,
    ) -> Watcher {
        let n = specs.len();
        let conds = specs.iter().map(|(s, _)| s.cond.clone()).collect();
        let exprs = specs.into_iter().map(|(s, t)| (s.expr, t)).collect();
        Watcher {
            exprs,
            conds,
            cond_errors: BTreeSet::new(),
            kind: o.kind,
            plan: Vec::new(),
            regs: None,
            copies: vec![None; n],
            hits: vec![0; n],
            formatters: (0..n)
                .map(|_| Box::new(IntFormatter) as Box<dyn ValueFormatter>)
                .collect(),
            symbols,
            report,
            tgid: None,
            armed: BTreeSet::new(),
            active: false,
            entry_hook: None,
            local: None,
            count_only: o.count_only,
            bt: o.bt,
            disasm: o.disasm,
            thread_notes: o.thread_notes,
            detach: Vec::new(),
            fatal: None,
            launched: None,
        }
    }

    /// Places every expression in process `pid` and builds the register
    /// image; called once the process's address space is final (exec or
    /// attach).
    pub fn start(&mut self, pid: Tid) -> Result<(), String> {
        if let Some((_, Target::Local(func, var))) = self.exprs.first() {
            let (func, var) = (func.clone(), var.clone());
            return self.start_local(pid, func, var);
        }
        let mut targets = Vec::new();
        for (i, (expr, t)) in self.exprs.iter().enumerate() {
            let (addr, len) = match t {
                Target::Fixed(a, l) => (*a, *l),
                Target::Symbol(sym, len) => {
                    let addr = self.symbols.runtime_addr(pid, sym)?;
                    let f = &mut self.formatters[i];
                    type_by_dwarf(self.symbols.as_mut(), f, pid, sym, (addr, *len));
                    (addr, *len)
                }
                Target::Shared(exe, name) => {
                    let sym = self.symbols.find_loaded(pid, exe, name)?;
                    if sym.size == 0 {
                        return Err(format!(
                            "'{name}' ({}) has no size in the symbol table: use *ADDR:LEN",
                            sym.path.display()
                        ));
                    }
                    let addr = self.symbols.runtime_addr(pid, &sym)?;
                    let f = &mut self.formatters[i];
                    type_by_dwarf(self.symbols.as_mut(), f, pid, &sym, (addr, sym.size));
                    (addr, sym.size)
                }
                Target::Local(..) => {
                    return Err(format!("{expr}: a local is watched alone"));
                }
                Target::Dwarf(exe, text) => {
                    let g = self
                        .symbols
                        .dwarf_global(pid, exe, text)
                        .map_err(|e| format!("cannot watch {e}"))?;
                    if g.size == 0 {
                        return Err(format!(
                            "cannot watch {text}: its type ({}) has no size",
                            g.type_name
                        ));
                    }
                    self.formatters[i] = g.formatter;
                    (g.addr, g.size)
                }
            };
            targets.push((expr.clone(), addr, len));
        }
        let plan = spec::plan(&targets, self.kind).map_err(|e| e.to_string())?;
        for (w, c) in plan.iter().zip(&self.conds) {
            if let Some(c) = c {
                self.symbols
                    .check_condition(pid, &c.expr, None)
                    .map_err(|e| format!("cannot watch {} if {}: {e}", w.expr, c.text))?;
            }
        }
        self.regs = Some(DebugRegs::native(&plan)?);
        self.plan = plan;
        self.tgid = Some(pid);
        self.active = true;
        let mut t = Tracee::new(pid);
        for (i, w) in self.plan.iter().enumerate() {
            self.copies[i] = read_bytes(&mut t, w.addr, w.len);
        }
        let plan = self.plan.clone();
        let conds: Vec<Option<&str>> = self
            .conds
            .iter()
            .map(|c| c.as_ref().map(|c| c.text.as_str()))
            .collect();
        self.report.plan(&plan, &conds);
        Ok(())
    }

    /// Decodes the values of watch `index` (0-based, command-line order)
    /// with `f` (e.g. by the variable's DWARF type).
    pub fn set_formatter(&mut self, index: usize, f: Box<dyn ValueFormatter>) {
        if let Some(slot) = self.formatters.get_mut(index) {
            *slot = f;
        }
    }

    /// The watched process.
    pub fn tgid(&self) -> Option<Tid> {
        self.tgid
    }

    /// Threads currently armed.
    pub fn armed(&self) -> usize {
        self.armed.len()
    }

    fn fail(&mut self, msg: String) {
        if self.fatal.is_none() {
            self.report.note(&msg);
            self.fatal = Some(msg);
        }
        // Let everything go (disarming on the way); kill what we launched.
        self.active = false;
        if let Some(pid) = self.launched {
            let _ = crate::engine::ptrace::kill(pid, libc::SIGKILL);
        } else {
            self.detach.extend(self.armed.iter().copied());
            if let Some(p) = self.tgid {
                self.detach.extend(crate::engine::tracer::list_threads(p));
            }
        }
    }

    fn arm(&mut self, tid: Tid) {
        let Some(regs) = &self.regs else { return };
        let t = Tracee::new(tid);
        match regs.arm(&t) {
            Ok(()) => {
                self.armed.insert(tid);
                self.report.thread("armed", tid, self.thread_notes);
            }
            // The thread died meanwhile: nothing to arm.
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
            Err(e) => {
                let _ = regs.disarm(&t);
                let msg = format!(
                    "cannot set the debug registers of thread {tid}: {e} \
                     (the kernel refused the address or length)"
                );
                self.fail(msg);
            }
        }
    }

    fn disarm(&mut self, tid: Tid) {
        if !self.armed.remove(&tid) {
            return;
        }
        let frame = self
            .local
            .as_mut()
            .and_then(|l| l.frame.take_if(|f| f.tid == tid));
        let Some(regs) = frame.as_ref().map(|f| &f.regs).or(self.regs.as_ref()) else {
            return;
        };
        let t = Tracee::new(tid);
        match regs.disarm(&t) {
            Ok(()) => self.report.thread("cleared", tid, self.thread_notes),
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
            Err(e) => self.report.note(&format!(
                "could not clear the debug registers of thread {tid}: {e}"
            )),
        }
    }

    /// Prints the `--count` table.
    pub fn finish(&mut self) {
        if self.count_only && !self.plan.is_empty() {
            let plan = self.plan.clone();
            let hits = self.hits.clone();
            self.report.counts(&plan, &hits);
        }
        let _ = self.report.flush();
    }

    /// Reports the hits of one trap; false if no slot of ours fired.
    fn on_trap(&mut self, tid: Tid) -> bool {
        let Some(regs) = &self.regs else { return false };
        let t = Tracee::new(tid);
        let slots = match regs.take_hits(&t) {
            Ok(s) => s,
            Err(_) => return false,
        };
        if slots.is_empty() {
            return false;
        }
        self.report_slots(tid, slots);
        true
    }

    /// Reports the hits of the data watches whose `slots` fired in one
    /// trap of thread `tid`.
    fn report_slots(&mut self, tid: Tid, slots: Vec<rtrace_arch::x86_debugreg::Slot>) {
        let mut t = Tracee::new(tid);
        let words = t.regs().unwrap_or_default();
        let pc = if words.is_empty() {
            0
        } else {
            rtrace_arch::native::Regs::pc(&words)
        };
        let pid = self.tgid.unwrap_or(tid);
        // One hit per watch, however many of its pieces the access touched
        // (a 16-byte store across two slots of a wide watch).
        let mut fired: Vec<usize> = Vec::new();
        for slot in slots {
            if let Some(i) = self.plan.iter().position(|w| w.has_slot(slot)) {
                if !fired.contains(&i) {
                    fired.push(i);
                }
            }
        }
        for i in fired {
            let w = self.plan[i].clone();
            let now = read_bytes(&mut t, w.addr, w.len);
            // The old value is the one at the previous trap, reported or
            // not (gdb keeps the value of every check).
            let old = std::mem::replace(&mut self.copies[i], now.clone());
            if !self.condition_holds(i, pid, &words) {
                continue;
            }
            self.hits[i] += 1;
            if self.count_only {
                continue;
            }
            let pc_place = self.symbols.place(pid, pc);
            let (site, access) = if w.kind == Kind::Exec {
                (None, None)
            } else {
                let site = find_site(&mut t, &words, &pc_place, &w, self.symbols.as_mut(), pid);
                let access = match (&site, w.kind) {
                    (_, Kind::Write) => Some("write"),
                    (Some((_, a)), _) if a.is_some() => *a,
                    _ if old != now => Some("write"),
                    _ => None,
                };
                (site.map(|(s, _)| s), access)
            };
            let bt = if let Some(depth) = self.bt {
                Some(
                    self.symbols
                        .backtrace(pid, tid, depth)
                        .unwrap_or_else(|| vec![BtEntry::plain("(no backtrace)".to_string())]),
                )
            } else {
                None
            };
            let (old_v, new_v) = if w.kind == Kind::Exec {
                (None, None)
            } else {
                (
                    Some(self.formatters[i].decode(old.as_deref())),
                    Some(self.formatters[i].decode(now.as_deref())),
                )
            };
            let disasm = self.disasm.map(|n| {
                let from = site.as_ref().map_or(pc, |s| s.place.addr);
                let symbols = &mut self.symbols;
                let mut name = |a: u64| {
                    let p = symbols.place(pid, a);
                    disasm::symbol(p.func.as_deref(), p.off)
                };
                disasm::lines(&mut t, &[], from, n, &mut name)
            });
            let hit = Hit {
                tid,
                watch: &w,
                disasm,
                old: old_v,
                new: new_v,
                access,
                pc: pc_place,
                site,
                bt,
            };
            self.report.hit(&hit);
        }
    }

    /// Whether watch `i` has no condition or its condition holds now; a
    /// condition that cannot be evaluated is reported (once per message)
    /// and the hit is not.
    fn condition_holds(&mut self, i: usize, pid: Tid, words: &[u64]) -> bool {
        let Some(c) = &self.conds[i] else {
            return true;
        };
        // A local's watch reads the names in its activation.
        let frame = self
            .local
            .as_ref()
            .and_then(|l| l.frame.as_ref())
            .map(|f| WatchedFrame {
                tid: f.tid,
                cfa: f.cfa,
            });
        match self.symbols.condition(pid, words, &c.expr, frame) {
            Ok(holds) => holds,
            Err(e) => {
                let msg = format!(
                    "watch {}: condition '{}' not evaluated, hit not reported: {e}",
                    i + 1,
                    c.text
                );
                if self.cond_errors.insert(msg.clone()) {
                    self.report.note(&msg);
                }
                false
            }
        }
    }

    /// The hit counts, per watch.
    pub fn hit_counts(&self) -> &[u64] {
        &self.hits
    }
}

/// Sets `f` to decode by the DWARF type of `sym`, when DWARF places the
/// same variable at `addr` with `len` bytes.
fn type_by_dwarf(
    symbols: &mut dyn SymbolSource,
    f: &mut Box<dyn ValueFormatter>,
    pid: Tid,
    sym: &FileSymbol,
    (addr, len): (u64, u64),
) {
    if let Ok(g) = symbols.dwarf_global(pid, &sym.path, &sym.name) {
        if g.addr == addr && g.size == len {
            *f = g.formatter;
        }
    }
}

fn read_bytes(t: &mut Tracee, addr: u64, len: u64) -> Option<Vec<u8>> {
    let mut b = vec![0u8; len as usize];
    (t.read(addr, &mut b) == b.len()).then_some(b)
}

/// Finds the instruction that made a data access: the pc at a data
/// watchpoint trap is the *next* instruction's. Decodes forward from the
/// function start when the pc's function is known (exact), else backward
/// (accepted only when exactly one candidate touches the watched range).
/// Also tells whether the instruction read and/or wrote the range.
fn find_site(
    t: &mut Tracee,
    words: &[u64],
    pc: &super::resolve::Place,
    w: &Watch,
    symbols: &mut dyn SymbolSource,
    pid: Tid,
) -> Option<(Site, Option<&'static str>)> {
    let access_of = |ins: &x86_debugreg::Insn| {
        let m = ins.mem.iter().find(|m| m.touches(w.addr, w.len))?;
        Some(match (m.read, m.write) {
            (true, true) => "read-write",
            (false, true) => "write",
            _ => "read",
        })
    };
    let regs = (!words.is_empty()).then_some(words);
    if let Some(start) = pc
        .func_start()
        .filter(|&s| s < pc.addr && pc.addr - s <= MAX_DECODE)
    {
        let mut code = vec![0u8; (pc.addr - start) as usize + 16];
        let n = t.read(start, &mut code);
        code.truncate(n);
        if let Some(ins) = x86_debugreg::insn_ending_at(&code, start, pc.addr, regs) {
            let access = access_of(&ins);
            let place = symbols.place(pid, ins.addr);
            return Some((
                Site {
                    place,
                    text: ins.text,
                    found: Found::FromFunctionStart,
                },
                access,
            ));
        }
    }
    let regs = regs?;
    let mut before = [0u8; 15];
    let from = pc.addr.checked_sub(15)?;
    if t.read(from, &mut before) != before.len() {
        return None;
    }
    let mut c =
        x86_debugreg::insns_ending_at_touching(&before, pc.addr, regs, w.addr, w.len, w.kind);
    if c.len() != 1 {
        return None;
    }
    let ins = c.pop()?;
    let access = access_of(&ins);
    let place = symbols.place(pid, ins.addr);
    Some((
        Site {
            place,
            text: ins.text,
            found: Found::OnlyCandidate,
        },
        access,
    ))
}

impl Handler for Watcher {
    fn event(&mut self, ev: Event<'_>, _when: &Stamp) {
        match ev {
            Event::Exec { tid, old_tid } => {
                if self.tgid.is_none() && self.needs_libraries() {
                    // Library globals have no address before the dynamic
                    // linker has run: place everything at the entry point.
                    if let Err(e) = self.hook_entry(tid) {
                        self.fail(e);
                    }
                } else if self.tgid.is_none() {
                    // The launched command's program is in place: the
                    // thread is stopped before its first instruction.
                    if let Err(e) = self.start(tid) {
                        self.fail(e);
                        return;
                    }
                    self.arm(tid);
                } else if self.tgid == Some(tid) && self.active {
                    // execve flushed every thread's debug registers along
                    // with the address space the watches referred to.
                    self.armed.clear();
                    self.armed.remove(&old_tid);
                    if let Some(l) = &mut self.local {
                        l.frame = None;
                    }
                    self.active = false;
                    self.report.note(&format!(
                        "process {tid} executed a new program: watchpoints removed"
                    ));
                }
            }
            // Another process (fork): its debug registers start empty; let
            // it run untraced.
            Event::NewTask {
                child,
                thread: false,
                ..
            } if !self.armed.contains(&child) => self.detach.push(child),
            Event::Exited { tid, .. } | Event::Killed { tid, .. } => {
                self.armed.remove(&tid);
                if let Some(l) = &mut self.local {
                    l.frame.take_if(|f| f.tid == tid);
                }
            }
            _ => {}
        }
    }

    fn task_ready(&mut self, tid: Tid) {
        if !self.active || self.armed.contains(&tid) {
            return;
        }
        if self.tgid.is_some() && tgid_of(tid) == self.tgid {
            self.arm(tid);
        }
    }

    fn signal_stop(&mut self, tid: Tid, sig: i32, info: &[u8; 128]) -> Resume {
        if sig != libc::SIGTRAP || !self.armed.contains(&tid) {
            return Resume::Deliver;
        }
        // siginfo: si_signo, si_errno, si_code (three ints).
        let code = i32::from_ne_bytes([info[8], info[9], info[10], info[11]]);
        if code != TRAP_HWBKPT {
            return Resume::Deliver;
        }
        if self.at_entry(tid) || self.local_trap(tid) || self.on_trap(tid) {
            Resume::Suppress
        } else {
            Resume::Deliver
        }
    }

    fn detach_requests(&mut self) -> Vec<Tid> {
        std::mem::take(&mut self.detach)
    }

    fn detaching(&mut self, tid: Tid) {
        self.disarm(tid);
    }
}
