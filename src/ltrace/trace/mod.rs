//! The rltrace handler: engine events in, ltrace lines out.
//!
//! A hit on a call site reads the arguments ([`super::args`]), has them
//! formatted ([`super::format`]), and swaps the return address at the
//! stack pointer for the trampoline of the space (an INT3 in rtrace's
//! out-of-line page), keeping (original return address, its stack slot)
//! on the thread's shadow stack; then the displaced instruction is
//! emulated or run out of line (`crate::probe::space`), so the INT3
//! never leaves the code. At the trampoline the entry whose slot matches
//! the stack pointer is popped (entries above it were skipped by longjmp or
//! an exception) and the thread resumes at the original address. Calls
//! that never return (`exit`, `abort`, a thread's `pthread_exit`) print
//! `<no return ...>` when their thread ends.
//!
//! Forks: a followed child (`-f`) gets a copy of the parent's state; an
//! unfollowed one gets every original byte back (and its hijacked return
//! addresses) before it is let go. Exec starts over. Detach (`-p` end,
//! Ctrl-C) restores everything through the same path.

use super::format::{self, FormatOpts};
use super::inject::Injector;
use super::output::{Out, Summary};
use super::proto::Protos;
use super::sites::{Kind, ModCache, Proc, Selection, MAIN};
use super::syscalls::Syscalls;
use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use crate::engine::Outcome;
use crate::engine::{Event, Handler, Resume, Stamp};
use crate::ltrace::msg::Msg;
use crate::probe::resolve::Resolver;
use crate::probe::tasks::{AfterExec, Frame, Tasks};
use rtrace_arch::insn_x86::{self, Emu, Plan};
use rtrace_arch::x86_64::{PC, SP, TRAP_PC_ADJUST};
use std::rc::Rc;
use std::sync::mpsc::Sender;
use std::time::Instant;

mod calls;

/// `si_code` of the SIGTRAP an INT3 raises.
const SI_KERNEL: i32 = 0x80;

/// A call between entry and return.
#[derive(Clone)]
struct Pending {
    ret: u64,
    slot: u64,
    id: u64,
    /// As printed (`owner->name`, `name@lib`, demangled).
    shown: String,
    /// As printed on a `<... name resumed>` line (no caller).
    bare: String,
    fcall: Option<Rc<format::Call>>,
    at: Instant,
    depth: usize,
    /// `-w` frames, taken at entry, printed after the return.
    bt: Vec<String>,
    /// The breakpoint's address.
    site: u64,
    /// `--json`: the calling module, the called one, the entry
    /// arguments' texts, the wall-clock time of entry.
    caller: Option<String>,
    lib: Option<String>,
    parts: Vec<String>,
    wall: std::time::SystemTime,
}

impl Frame for Pending {
    fn ret(&self) -> u64 {
        self.ret
    }
    fn slot(&self) -> u64 {
        self.slot
    }
    fn for_vfork_child(&self, followed: bool) -> Option<Pending> {
        // It returns from `vfork` through the trampoline as the parent will
        // (glibc keeps the return address in a register across the call),
        // so it gets the parent's pending calls; an unfollowed one's are
        // not shown.
        let mut p = self.clone();
        if !followed {
            p.fcall = None;
            p.parts.clear();
        }
        Some(p)
    }
}

/// Options the handler needs.
pub struct HandlerOpts {
    /// What to trace.
    pub sel: Selection,
    /// ltrace hides `caller->` without `-e`/`-l`.
    pub hide_caller: bool,
    /// `-f`.
    pub follow: bool,
    /// `-c`.
    pub count: bool,
    /// `-b`.
    pub no_signals: bool,
    /// `-w N`.
    pub where_depth: usize,
    /// `-w`: the launched program's file as /proc/PID/maps names it, and
    /// the name ltrace gives its frames instead: the command as found
    /// (as typed when it has a `/`, else the `$PATH` entry joined to it).
    /// The dynamic linker has no name for the main program; ltrace names
    /// it by the path it launched, and by /proc/PID/exe (the maps name)
    /// when it attached or the program exec'd another.
    pub main_name: Option<(String, String)>,
    /// `-D` mask.
    pub debug: u32,
    /// `-C`, `-s`.
    pub fmt: FormatOpts,
    /// `-A`: array elements (and struct nesting) shown.
    pub array_len: usize,
    /// `--json`.
    pub json: bool,
}

/// The handler.
pub struct Ltrace {
    o: HandlerOpts,
    protos: Protos,
    /// Trace lines.
    pub out: Out,
    /// `-c` table.
    pub summary: Summary,
    /// Threads and their breakpoint spaces.
    tasks: Tasks<Proc, Pending>,
    resolver: Resolver,
    cache: ModCache,
    unwinder: crate::unwind::Unwinder,
    next_call: u64,
    sys: Option<Syscalls>,
    /// Problems worth mentioning once.
    warned: std::collections::HashSet<String>,
    /// `--inject` rules.
    inject: Injector,
    /// Under the kernel backend: calls are sent to its consumer instead of
    /// written (see [`Ltrace::forward_to`]).
    forward: Option<Sender<Msg>>,
}

impl Ltrace {
    /// A handler writing to `out`; `sys` decodes `-S` system calls;
    /// `inject` holds the `--inject` rules.
    pub fn new(
        o: HandlerOpts,
        protos: Protos,
        out: Out,
        sys: Option<Syscalls>,
        inject: Injector,
    ) -> Ltrace {
        let follow = o.follow;
        Ltrace {
            o,
            protos,
            out,
            summary: Summary::default(),
            tasks: Tasks::new(follow),
            resolver: Resolver::new(),
            cache: ModCache::default(),
            unwinder: crate::unwind::Unwinder::new(),
            next_call: 1,
            sys,
            warned: Default::default(),
            inject,
            forward: None,
        }
    }

    /// Sends every call's entry and return, formatted, to the kernel
    /// backend's consumer (which orders them with the uprobes' calls and
    /// writes them); the handler's own lines (signals, exits) are left to
    /// the kernel backend, so `out` should be a sink.
    pub fn forward_to(&mut self, tx: Sender<Msg>) {
        self.forward = Some(tx);
    }

    fn warn(&mut self, msg: String) {
        if self.warned.insert(msg.clone()) {
            self.out.flush();
            eprintln!("rltrace: {msg}");
        }
    }

    /// Starts tracing process `pid` (exec'd, or attached with threads
    /// `tids`): places every breakpoint its modules allow now.
    pub fn start_process(&mut self, pid: Tid, tids: &[Tid], attached: bool) {
        let mut proc = Proc::new(pid, attached);
        if !attached {
            proc.launched_as = self.o.main_name.clone();
        }
        let id = self.tasks.add_space(proc);
        for &t in tids {
            self.tasks.add_thread(t, id, Vec::new());
        }
        self.place(id);
    }

    /// Breakpoints placed in process `pid` that trace calls.
    pub fn sites_in(&self, pid: Tid) -> usize {
        self.tasks
            .spaces
            .values()
            .filter(|p| p.space.pid == pid)
            .map(|p| p.sites.values().filter(|s| s.kind == Kind::Call).count())
            .sum()
    }

    fn place(&mut self, id: u64) {
        let Some(p) = self.tasks.spaces.get_mut(&id) else {
            return;
        };
        let problems = p.place_all(&self.resolver, &mut self.cache, &self.o.sel);
        if self.o.where_depth > 0 {
            p.read_link_names();
        }
        if self.o.debug & super::cli::debug::GENERAL != 0 {
            let n = p.sites.len();
            eprintln!("rltrace: [{}] {n} breakpoint(s) placed", p.space.pid);
        }
        for e in problems {
            self.warn(e);
        }
    }

    fn leader(&mut self, tid: Tid, ip: Option<u64>, depth: usize) -> String {
        self.out.leader(tid, ip, depth)
    }

    /// A trap at one of the sites.
    fn site_hit(&mut self, tid: Tid, id: u64, addr: u64, mut regs: Vec<u64>) -> Resume {
        let now = Instant::now();
        let p = self.tasks.spaces.get_mut(&id).expect("space of a thread");
        let (plan, len) = match p.space.sites.get(&addr) {
            Some(s) => (s.insn.plan.clone(), s.insn.len),
            None => return Resume::Deliver,
        };
        let sp = regs[SP];
        let mut retaddr = [0u8; 8];
        let ret = p
            .space
            .mem
            .read(sp, &mut retaddr)
            .then(|| u64::from_le_bytes(retaddr));
        let site = p.sites.get(&addr).expect("site");
        let is_plt = site.plt_owner.is_some();
        let mut replace = false;
        let mut hits = Vec::new();
        match site.kind {
            Kind::Hook => replace = true,
            Kind::Entry => {
                p.relocated = true;
                let problems = p.resolve_got();
                for e in problems {
                    self.warn(e);
                }
            }
            Kind::Call => {
                let owner = if let Some(o) = &site.plt_owner {
                    Some(o.clone())
                } else if !site.got_callers.is_empty() {
                    ret.and_then(|r| {
                        site.got_callers
                            .iter()
                            .find(|c| (c.start..c.end).contains(&r))
                            .map(|c| c.soname.clone())
                    })
                } else {
                    None
                };
                let bare = if self.o.fmt.demangle {
                    crate::symbols::demangle(&site.name).into_owned()
                } else {
                    site.name.clone()
                };
                // A `-fno-plt` call's site is the function's entry, which a
                // `-x` of the same function shares: the caller's call and
                // the entry are two calls, as a PLT stub and the entry are
                // (ltrace's `<unfinished ...>` then `name@lib(…)`).
                let as_call = owner.map(|o| {
                    let shown = if self.o.hide_caller {
                        bare.clone()
                    } else {
                        format!("{o}->{bare}")
                    };
                    let lib = if !self.o.json {
                        None
                    } else if is_plt {
                        p.jump_cache.get(&addr).and_then(|&t| module_name(p, t))
                    } else {
                        module_name(p, addr)
                    };
                    (shown, Some(o), lib)
                });
                let as_entry = site.x_lib.as_ref().map(|l| {
                    let shown = if l == MAIN {
                        bare.clone()
                    } else {
                        format!("{bare}@{l}")
                    };
                    let lib = if !self.o.json {
                        None
                    } else if l != MAIN {
                        Some(l.clone())
                    } else {
                        module_name(p, addr)
                    };
                    (shown, None, lib)
                });
                if ret.is_some() {
                    for (shown, caller, lib) in as_call.into_iter().chain(as_entry) {
                        hits.push((site.name.clone(), shown, bare.clone(), caller, lib));
                    }
                }
            }
        }
        for (name, shown, bare, caller, lib) in hits {
            // Re-read: the call before this one on the same frame has
            // swapped the return address for the trampoline.
            let p = self.tasks.spaces.get_mut(&id).expect("space of a thread");
            if !p.space.mem.read(sp, &mut retaddr) {
                break;
            }
            let ret = u64::from_le_bytes(retaddr);
            let hit = calls::Hit {
                name: &name,
                shown,
                bare,
                caller,
                lib,
                site: addr,
                ret,
                sp,
                now,
            };
            let act = if self.inject.is_empty() {
                None
            } else {
                self.inject.on_call(id, &name)
            };
            if let Some(act) = act {
                self.immediate_call(tid, id, hit, &mut regs, Some(act));
                let _ = Tracee::new(tid).set_regs(&regs);
                return Resume::Suppress;
            }
            self.call_entry(tid, id, hit, &mut regs);
        }
        let p = self.tasks.spaces.get_mut(&id).expect("space of a thread");
        // Step over the displaced instruction without removing the trap.
        let mut done = false;
        if let Some(&target) = p.jump_cache.get(&addr) {
            regs[PC] = target;
            done = true;
        } else if let Plan::Emulate(e) = &plan {
            done = insn_x86::emulate(e, addr, len, &mut regs, &mut p.space.mem).is_ok();
            // A PLT stub's `jmp *GOT` that now leads into another module:
            // the slot is bound and stays so until the library list
            // changes (the cache is dropped then), so later calls skip
            // reading it. (A program rewriting its own GOT meanwhile would
            // not be followed.)
            let same = |a: u64, b: u64| match (p.map.find(a), p.map.find(b)) {
                (Some(x), Some(y)) => x.path == y.path,
                _ => true,
            };
            if done && is_plt && !same(addr, regs[PC]) {
                p.jump_cache.insert(addr, regs[PC]);
            }
        }
        if !done {
            match p.space.slot(addr, tid) {
                Ok(slot) => regs[PC] = slot.addr,
                Err(e) => {
                    p.space.retire(addr);
                    let name = p.sites.remove(&addr).map(|s| s.name).unwrap_or_default();
                    regs[PC] = addr;
                    self.warn(format!("breakpoint at {name} removed: {e}"));
                }
            }
        }
        let _ = Tracee::new(tid).set_regs(&regs);
        if replace {
            // The library list changed.
            self.place(id);
        }
        Resume::Suppress
    }

    /// `--json`: the module a PLT stub at `site` leads to now (its GOT slot
    /// is bound once the call has run), by emulating the stub's jump (after
    /// an `endbr64`, as in `.plt.sec` stubs) on a copy of the registers.
    fn bound_lib(&mut self, tid: Tid, site: u64) -> Option<String> {
        let id = self.tasks.threads.get(&tid)?.space;
        let p = self.tasks.spaces.get_mut(&id)?;
        let s = p.space.sites.get(&site)?;
        let (mut plan, mut len) = (s.insn.plan.clone(), s.insn.len);
        let mut regs = Tracee::new(tid).regs().ok()?;
        let mut pc = site;
        for _ in 0..2 {
            match plan {
                // Only a jump through the GOT: nothing else may run twice.
                Plan::Emulate(e @ Emu::JmpInd(_)) => {
                    regs[PC] = pc;
                    insn_x86::emulate(&e, pc, len, &mut regs, &mut p.space.mem).ok()?;
                    // The call has run, so a lazily bound slot is bound.
                    return module_name(p, regs[PC]);
                }
                Plan::Emulate(Emu::Nop) => {
                    pc += len as u64;
                    let mut b = [0u8; 16];
                    if !p.space.mem.read(pc, &mut b) {
                        return None;
                    }
                    let a = insn_x86::analyze(pc, &b).ok()?;
                    (plan, len) = (a.plan, a.len);
                }
                _ => return None,
            }
        }
        None
    }

    fn signal_line(&mut self, tid: Tid, sig: i32, info: &[u8; 128]) {
        if self.o.no_signals || self.o.count {
            return;
        }
        if self.o.json {
            let v = crate::syscall::siginfo_value(rtrace_arch::Arch::native(), 0, info);
            let mut line = String::new();
            crate::value::json::signal_line(&mut line, tid, sig, &v);
            self.out.raw(&line);
            return;
        }
        let name = crate::syscall::ctx::signal_name(sig as u64)
            .map(|s| s.into_owned())
            .unwrap_or_else(|| format!("SIG{sig}"));
        // `-i`: where the signal came.
        let pc = Tracee::new(tid).regs().ok().map(|r| r[PC]);
        let lead = self.leader(tid, pc, 0);
        self.out
            .line(&lead, &format!("--- {name} ({}) ---", signal_desc(sig)));
    }

    /// Thread `tid` ended: `text` for ltrace's line, `what` for `--json`
    /// (rstrace's exit object).
    fn gone(&mut self, tid: Tid, text: String, what: Outcome) {
        self.out.no_return(tid);
        if let Some(s) = self.sys.as_mut() {
            s.gone(tid, &mut self.out);
        }
        if self.o.json {
            self.json_unreturned(tid);
            if !self.o.count {
                let mut line = String::new();
                crate::value::json::exit_line(&mut line, tid, what);
                self.out.raw(&line);
            }
            return;
        }
        if !self.o.count {
            let lead = self.leader(tid, None, 0);
            self.out.line(&lead, &text);
        }
    }

    /// Writes the `-c` table (and flushes).
    pub fn finish(&mut self) {
        if self.o.count {
            let t = self.summary.render();
            self.out.raw(&t);
        }
        self.out.flush();
    }
}

impl Handler for Ltrace {
    fn event(&mut self, ev: Event<'_>, _when: &Stamp) {
        match ev {
            Event::NewTask {
                parent,
                child,
                thread,
            } => {
                let known = self.tasks.threads.contains_key(&parent);
                if thread && known && !self.tasks.threads.contains_key(&child) {
                    self.out.set_pid_prefix();
                }
                self.tasks.new_task(parent, child, thread);
            }
            Event::Exec { tid, old_tid } => {
                self.out.no_return(old_tid);
                self.json_unreturned(old_tid);
                if self.tasks.exec(tid, old_tid).1 == AfterExec::Start {
                    self.start_process(tid, &[tid], false);
                }
            }
            Event::Exited { tid, code } => {
                // Every thread's end, as ltrace -f prints it.
                if self.tasks.threads.contains_key(&tid) {
                    self.gone(
                        tid,
                        format!("+++ exited (status {code}) +++"),
                        Outcome::Exited(code),
                    );
                } else {
                    self.out.no_return(tid);
                }
                self.tasks.gone(tid);
            }
            Event::Killed { tid, sig, core } => {
                let name = crate::syscall::ctx::signal_name(sig as u64)
                    .map(|s| s.into_owned())
                    .unwrap_or_else(|| format!("SIG{sig}"));
                if self.tasks.threads.contains_key(&tid) {
                    self.gone(
                        tid,
                        format!("+++ killed by {name} +++"),
                        Outcome::Killed(sig, core),
                    );
                } else if self.tasks.threads.is_empty() {
                    // Killed before the program ran: an exec the kernel
                    // failed past its point of no return (a truncated ELF).
                    eprintln!("rltrace: the program was killed by {name} while being loaded (not a valid executable?)");
                }
                self.tasks.gone(tid);
            }
            Event::Detached { tid } => {
                self.out.no_return(tid);
                self.tasks.gone(tid);
            }
            Event::SyscallEntry {
                tid,
                arch,
                nr,
                args,
                ..
            } => {
                // Not before the traced program runs (the launch's execve).
                if !self.tasks.threads.contains_key(&tid) {
                    return;
                }
                if let Some(s) = self.sys.as_mut() {
                    s.entry(tid, arch, nr, args, &mut self.out, self.o.count);
                }
            }
            Event::SyscallExit { tid, ret } => {
                if let Some(s) = self.sys.as_mut() {
                    s.exit(tid, ret, &mut self.out, &mut self.summary, self.o.count);
                }
            }
            _ => {}
        }
    }

    fn signal_stop(&mut self, tid: Tid, sig: i32, info: &[u8; 128]) -> Resume {
        if let Some(r) = self.own_trap(tid, sig, info) {
            return r;
        }
        if self.tasks.threads.contains_key(&tid) {
            self.signal_line(tid, sig, info);
        }
        Resume::Deliver
    }

    fn detach_requests(&mut self) -> Vec<Tid> {
        std::mem::take(&mut self.tasks.detach)
    }

    fn detaching(&mut self, tid: Tid) {
        self.tasks.release(tid);
    }
}

impl Ltrace {
    /// A signal stop that is one of rltrace's breakpoints, handled; `None`
    /// for any other signal.
    pub fn own_trap(&mut self, tid: Tid, sig: i32, info: &[u8; 128]) -> Option<Resume> {
        let code = i32::from_ne_bytes([info[8], info[9], info[10], info[11]]);
        if sig == libc::SIGTRAP && code == SI_KERNEL {
            self.trap(tid)
        } else {
            None
        }
    }

    /// A SIGTRAP from an INT3: ours (handled) or the program's (`None`).
    fn trap(&mut self, tid: Tid) -> Option<Resume> {
        let (id, _) = self.tasks.space_of(tid)?;
        let mut regs = Tracee::new(tid).regs().ok()?;
        let pc = regs[PC].wrapping_sub(TRAP_PC_ADJUST);
        let p = self.tasks.spaces.get(&id)?;
        if Some(pc) == p.space.trampoline {
            return Some(self.return_hit(tid, regs));
        }
        if p.sites.contains_key(&pc) && p.space.sites.contains_key(&pc) {
            return Some(self.site_hit(tid, id, pc, regs));
        }
        if p.space.retired.contains(&pc) {
            regs[PC] = pc;
            let _ = Tracee::new(tid).set_regs(&regs);
            return Some(Resume::Suppress);
        }
        None
    }
}

/// The file name of the module mapped at `addr` in `p`.
fn module_name(p: &Proc, addr: u64) -> Option<String> {
    let m = p.map.find(addr)?;
    Some(m.path.rsplit('/').next().unwrap_or(&m.path).to_string())
}

/// strsignal(3)'s text for signals 1-31 (ltrace prints it).
pub fn signal_desc(sig: i32) -> &'static str {
    const D: [&str; 32] = [
        "Signal 0",
        "Hangup",
        "Interrupt",
        "Quit",
        "Illegal instruction",
        "Trace/breakpoint trap",
        "Aborted",
        "Bus error",
        "Floating point exception",
        "Killed",
        "User defined signal 1",
        "Segmentation fault",
        "User defined signal 2",
        "Broken pipe",
        "Alarm clock",
        "Terminated",
        "Stack fault",
        "Child exited",
        "Continued",
        "Stopped (signal)",
        "Stopped",
        "Stopped (tty input)",
        "Stopped (tty output)",
        "Urgent I/O condition",
        "CPU time limit exceeded",
        "File size limit exceeded",
        "Virtual timer expired",
        "Profiling timer expired",
        "Window changed",
        "I/O possible",
        "Power failure",
        "Bad system call",
    ];
    D.get(sig as usize).copied().unwrap_or("Real-time signal")
}
