//! The rltrace handler: engine events in, ltrace lines out.
//!
//! A hit on a call site reads the arguments ([`super::args`]), has them
//! formatted ([`super::format`]), and swaps the return address at the
//! stack pointer for the trampoline of the space (an INT3 in rtrace's
//! out-of-line page), keeping (original return address, its stack slot)
//! on the thread's shadow stack; then the displaced instruction is
//! emulated or run out of line (`crate::breakpoint::space`), so the INT3
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

use super::args::Args;
use super::format::{self, FormatOpts};
use super::output::{Out, Summary};
use super::proto::Protos;
use super::sites::{Kind, ModCache, Proc, Selection, MAIN};
use super::syscalls::Syscalls;
use crate::breakpoint::resolve::Resolver;
use crate::engine::memory::ProcMem;
use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use crate::engine::{Event, Handler, Resume, Stamp};
use crate::syscall::memory::Memory;
use rtrace_arch::insn_x86::{self, Plan};
use rtrace_arch::x86_64::{PC, SP, TRAP_PC_ADJUST};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

mod lifecycle;

/// `si_code` of the SIGTRAP an INT3 raises.
const SI_KERNEL: i32 = 0x80;
/// Most calls pending per thread; deeper ones are reported without return.
const MAX_SHADOW: usize = 4096;
/// Slots this close below the stack pointer are on the same stack.
const SAME_STACK: u64 = 8 << 20;

/// A call between entry and return.
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
}

struct Thread {
    space: u64,
    shadow: Vec<Pending>,
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
    /// `-D` mask.
    pub debug: u32,
    /// `-C`, `-s`.
    pub fmt: FormatOpts,
    /// `-A`: array elements (and struct nesting) shown.
    pub array_len: usize,
}

/// The handler.
pub struct Ltrace {
    o: HandlerOpts,
    protos: Protos,
    /// Trace lines.
    pub out: Out,
    /// `-c` table.
    pub summary: Summary,
    procs: HashMap<u64, Proc>,
    next_proc: u64,
    threads: HashMap<Tid, Thread>,
    resolver: Resolver,
    cache: ModCache,
    unwinder: crate::unwind::Unwinder,
    next_call: u64,
    detach: Vec<Tid>,
    leaving: Vec<Tid>,
    sys: Option<Syscalls>,
    /// Problems worth mentioning once.
    warned: std::collections::HashSet<String>,
}

impl Ltrace {
    /// A handler writing to `out`; `sys` decodes `-S` system calls.
    pub fn new(o: HandlerOpts, protos: Protos, out: Out, sys: Option<Syscalls>) -> Ltrace {
        Ltrace {
            o,
            protos,
            out,
            summary: Summary::default(),
            procs: HashMap::new(),
            next_proc: 1,
            threads: HashMap::new(),
            resolver: Resolver::new(),
            cache: ModCache::default(),
            unwinder: crate::unwind::Unwinder::new(),
            next_call: 1,
            detach: Vec::new(),
            leaving: Vec::new(),
            sys,
            warned: Default::default(),
        }
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
        let id = self.next_proc;
        self.next_proc += 1;
        self.procs.insert(id, Proc::new(pid, attached));
        for &t in tids {
            self.add_thread(t, id);
        }
        self.place(id);
    }

    /// Breakpoints placed in process `pid` that trace calls.
    pub fn sites_in(&self, pid: Tid) -> usize {
        self.procs
            .values()
            .filter(|p| p.space.pid == pid)
            .map(|p| p.sites.values().filter(|s| s.kind == Kind::Call).count())
            .sum()
    }

    fn place(&mut self, id: u64) {
        let Some(p) = self.procs.get_mut(&id) else {
            return;
        };
        let problems = p.place_all(&self.resolver, &mut self.cache, &self.o.sel);
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
        let p = self.procs.get_mut(&id).expect("space of a thread");
        let site = p.sites.get(&addr).cloned().expect("site");
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
        let mut replace = false;
        let mut report: Option<String> = None;
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
                let name = if self.o.fmt.demangle {
                    crate::symbols::demangle(&site.name).into_owned()
                } else {
                    site.name.clone()
                };
                report = match (owner, &site.x_lib) {
                    (Some(o), _) if !self.o.hide_caller => Some(format!("{o}->{name}")),
                    (Some(_), _) => Some(name),
                    (None, Some(l)) if l == MAIN => Some(name),
                    (None, Some(l)) => Some(format!("{name}@{l}")),
                    (None, None) => None,
                };
            }
        }
        if let (Some(shown), Some(ret)) = (report, ret) {
            let bare = if self.o.fmt.demangle {
                crate::symbols::demangle(&site.name).into_owned()
            } else {
                site.name.clone()
            };
            self.call_entry(tid, id, &site.name, (shown, bare), ret, sp, &regs, now);
        }
        let p = self.procs.get_mut(&id).expect("space of a thread");
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
            if done && site.plt_owner.is_some() && !same(addr, regs[PC]) {
                p.jump_cache.insert(addr, regs[PC]);
            }
        }
        if !done {
            match p.space.slot(addr, tid) {
                Ok(slot) => regs[PC] = slot.addr,
                Err(e) => {
                    p.space.retire(addr);
                    p.sites.remove(&addr);
                    regs[PC] = addr;
                    self.warn(format!("breakpoint at {} removed: {e}", site.name));
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

    #[allow(clippy::too_many_arguments)]
    fn call_entry(
        &mut self,
        tid: Tid,
        id: u64,
        name: &str,
        (shown, bare): (String, String),
        ret: u64,
        sp: u64,
        regs: &[u64],
        now: Instant,
    ) {
        if self.o.count {
            self.summary.call(&shown);
        }
        let depth = self.threads.get(&tid).map_or(0, |t| t.shadow.len());
        let call_id = self.next_call;
        self.next_call += 1;
        let fcall = if self.o.count {
            None
        } else {
            let mut src = Args::new(tid, regs);
            let c = format::on_entry_with(
                name,
                self.protos.get(name),
                &mut src,
                &self.o.fmt,
                self.o.array_len,
            );
            let leader = self.leader(tid, Some(ret), depth);
            self.out.entry(tid, call_id, leader, &shown, c.entry_text());
            Some(Rc::new(c))
        };
        // Hijack the return address.
        if depth >= MAX_SHADOW {
            return;
        }
        let bt = if self.o.where_depth > 0 && !self.o.count {
            self.backtrace(tid, id, regs)
        } else {
            Vec::new()
        };
        let p = self.procs.get_mut(&id).expect("space of a thread");
        let Some(t) = self.threads.get_mut(&tid) else {
            return;
        };
        let Some(tramp) = p.space.trampoline(regs[PC], tid) else {
            return;
        };
        if !p.space.mem.write(sp, &tramp.to_le_bytes()) {
            return;
        }
        // Frames at or below this slot on this stack are gone (longjmp).
        t.shadow
            .retain(|s| s.slot > sp || sp - s.slot >= SAME_STACK);
        t.shadow.push(Pending {
            ret,
            slot: sp,
            id: call_id,
            shown,
            bare,
            fcall,
            at: now,
            depth,
            bt,
        });
    }

    /// `-w N`: the caller's frames, as ` > module(func+0xoff) [addr]`.
    fn backtrace(&mut self, tid: Tid, id: u64, regs: &[u64]) -> Vec<String> {
        let Some(p) = self.procs.get(&id) else {
            return Vec::new();
        };
        let mut at = regs.to_vec();
        at[PC] = regs[PC].wrapping_sub(TRAP_PC_ADJUST);
        let init = crate::unwind::from_prstatus_x86_64(&at);
        let hijacked: Vec<(u64, u64)> = self
            .threads
            .get(&tid)
            .map(|t| t.shadow.iter().map(|s| (s.slot, s.ret)).collect())
            .unwrap_or_default();
        let mut mem = Unhijacked {
            inner: ProcMem::new(tid),
            hijacked,
        };
        let sym = self.resolver.symbolizer();
        let frames =
            self.unwinder
                .unwind_frames(sym, &p.map, &init, &mut mem, self.o.where_depth + 1);
        // The first frame is the breakpoint itself (the stub or function).
        crate::unwind::symbolize_frames(sym, &p.map, &frames[1.min(frames.len())..])
            .iter()
            .filter(|f| !f.inlined)
            .take(self.o.where_depth)
            .map(|f| {
                let func = f.function.as_deref().unwrap_or("??");
                let off = f.offset_in_function.unwrap_or(0);
                format!(" > {}({func}+{off:#x}) [{:#x}]", f.module, f.pc)
            })
            .collect()
    }

    /// A trap at the return trampoline.
    fn return_hit(&mut self, tid: Tid, mut regs: Vec<u64>) -> Resume {
        let now = Instant::now();
        let Some(t) = self.threads.get_mut(&tid) else {
            return Resume::Deliver;
        };
        // `ret` popped the trampoline's address: it was at sp - 8.
        let want = regs[SP].wrapping_sub(8);
        let entry = match t.shadow.iter().rposition(|s| s.slot == want) {
            Some(i) => {
                let e = t.shadow.remove(i);
                t.shadow.truncate(i);
                e
            }
            None => match t.shadow.pop() {
                Some(e) => e,
                None => {
                    self.warn(format!(
                        "thread {tid} returned to the trampoline with no call pending"
                    ));
                    return Resume::Deliver;
                }
            },
        };
        regs[PC] = entry.ret;
        let _ = Tracee::new(tid).set_regs(&regs);
        let dur = now - entry.at;
        if self.o.count {
            self.summary.time(&entry.shown, dur);
            return Resume::Suppress;
        }
        let Some(fcall) = entry.fcall else {
            return Resume::Suppress;
        };
        let mut src = Args::new(tid, &regs);
        let rv = src.ret_vals();
        let (full, rtext) = fcall.finish(rv, &mut src, &self.o.fmt);
        let depth = entry.depth;
        let ip = entry.ret;
        self.out.ret(
            tid,
            entry.id,
            |o| o.leader(tid, Some(ip), depth),
            (&entry.shown, &entry.bare),
            &full,
            fcall.entry_text(),
            &rtext,
            Some(dur),
        );
        for l in &entry.bt {
            self.out.line("", l);
        }
        Resume::Suppress
    }

    fn signal_line(&mut self, tid: Tid, sig: i32) {
        if self.o.no_signals || self.o.count {
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

    fn gone(&mut self, tid: Tid, text: String) {
        self.out.no_return(tid);
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
                if self.threads.contains_key(&child) {
                    return;
                }
                let Some(ps) = self.threads.get(&parent).map(|t| t.space) else {
                    return;
                };
                if thread {
                    self.out.set_pid_prefix();
                    self.add_thread(child, ps);
                } else {
                    self.new_child(parent, child, ps);
                }
            }
            Event::Exec { tid, old_tid } => {
                self.out.no_return(old_tid);
                self.remove_thread(old_tid);
                self.remove_thread(tid);
                if self.leaving.contains(&tid) || self.leaving.contains(&old_tid) {
                    self.detach.push(tid);
                    return;
                }
                self.start_process(tid, &[tid], false);
            }
            Event::Exited { tid, code } => {
                // Every thread's end, as ltrace -f prints it.
                if self.threads.contains_key(&tid) {
                    self.gone(tid, format!("+++ exited (status {code}) +++"));
                } else {
                    self.out.no_return(tid);
                }
                self.remove_thread(tid);
                self.leaving.retain(|t| *t != tid);
            }
            Event::Killed { tid, sig, .. } => {
                let name = crate::syscall::ctx::signal_name(sig as u64)
                    .map(|s| s.into_owned())
                    .unwrap_or_else(|| format!("SIG{sig}"));
                if self.threads.contains_key(&tid) {
                    self.gone(tid, format!("+++ killed by {name} +++"));
                }
                self.remove_thread(tid);
                self.leaving.retain(|t| *t != tid);
            }
            Event::Detached { tid } => {
                self.out.no_return(tid);
                self.remove_thread(tid);
                self.leaving.retain(|t| *t != tid);
            }
            Event::SyscallEntry {
                tid,
                arch,
                nr,
                args,
                ..
            } => {
                // Not before the traced program runs (the launch's execve).
                if !self.threads.contains_key(&tid) {
                    return;
                }
                if let Some(s) = self.sys.as_mut() {
                    s.entry(
                        tid,
                        arch,
                        nr,
                        args,
                        &mut self.out,
                        &mut self.summary,
                        self.o.count,
                    );
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
        if sig == libc::SIGTRAP {
            let code = i32::from_ne_bytes([info[8], info[9], info[10], info[11]]);
            if code == SI_KERNEL {
                if let Some(r) = self.trap(tid) {
                    return r;
                }
            }
        }
        if self.threads.contains_key(&tid) {
            self.signal_line(tid, sig);
        }
        Resume::Deliver
    }

    fn detach_requests(&mut self) -> Vec<Tid> {
        std::mem::take(&mut self.detach)
    }

    fn detaching(&mut self, tid: Tid) {
        self.release(tid);
    }
}

impl Ltrace {
    /// A SIGTRAP from an INT3: ours (handled) or the program's (`None`).
    fn trap(&mut self, tid: Tid) -> Option<Resume> {
        let id = self.space_of(tid)?;
        let mut regs = Tracee::new(tid).regs().ok()?;
        let pc = regs[PC].wrapping_sub(TRAP_PC_ADJUST);
        let p = self.procs.get(&id)?;
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

/// Tracee memory in which hijacked return addresses read as the originals.
struct Unhijacked {
    inner: ProcMem,
    hijacked: Vec<(u64, u64)>,
}

impl Memory for Unhijacked {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        let n = self.inner.read(addr, buf);
        for &(slot, ret) in &self.hijacked {
            for (i, b) in ret.to_le_bytes().iter().enumerate() {
                let a = slot + i as u64;
                if a >= addr && a < addr + n as u64 {
                    buf[(a - addr) as usize] = *b;
                }
            }
        }
        n
    }
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
