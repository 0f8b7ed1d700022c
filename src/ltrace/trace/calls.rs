//! A traced call's entry and return: arguments read and shown (text or
//! `--json`), the return address swapped for the trampoline, the shadow
//! stack; `--inject` calls answered at entry without running them.

use super::{Ltrace, Pending};
use crate::engine::memory::proc::ProcMem;
use crate::engine::memory::Memory;
use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use crate::engine::Resume;
use crate::kernel::session::mono_ns;
use crate::ltrace::args::Args;
use crate::ltrace::format::{self, RetVals};
use crate::ltrace::inject::{self, Action};
use crate::ltrace::msg::{Msg, Shown};
use crate::probe::shadow::{self, MAX_SHADOW};
use crate::unwind::trap::frames_at_trap;
use rtrace_arch::x86_64::{PC, RET, SP};
use std::rc::Rc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// One hit of a call site that reports a call.
pub(in crate::ltrace) struct Hit<'a> {
    /// The function's name (as in the prototypes).
    pub name: &'a str,
    /// As printed (`owner->name`, `name@lib`, demangled).
    pub shown: String,
    /// As printed on a `<... name resumed>` line.
    pub bare: String,
    /// The calling module, when known.
    pub caller: Option<String>,
    /// The module the function is in, when known (`--json`).
    pub lib: Option<String>,
    /// The breakpoint's address.
    pub site: u64,
    /// The return address, and its stack slot.
    pub ret: u64,
    pub sp: u64,
    pub now: Instant,
}

/// Functions that return twice: their return address is not replaced.
const RETURNS_TWICE: &[&str] = &[
    "_setjmp",
    "setjmp",
    "__sigsetjmp",
    "sigsetjmp",
    "getcontext",
];

/// What `--json` writes for one library call.
pub(in crate::ltrace) struct JsonCall<'a> {
    pub tid: Tid,
    pub func: &'a str,
    pub caller: Option<&'a str>,
    pub lib: Option<&'a str>,
    pub args: Vec<String>,
    /// `None`: the call never returned.
    pub ret: Option<&'a str>,
    pub time: SystemTime,
    pub duration: Option<Duration>,
    pub injected: bool,
}

/// One `{"type":"libcall",…}` line: the typed
/// [`Libcall`](crate::tracefile::event::Libcall) that recordings are read
/// back into, serialized.
pub(in crate::ltrace) fn json_line(c: &JsonCall) -> String {
    let ev = crate::tracefile::event::Event::Libcall(crate::tracefile::event::Libcall {
        args: c.args.clone(),
        caller: c.caller.map(str::to_string),
        dur_ns: c.duration.map(|d| d.as_nanos() as u64),
        func: c.func.to_string(),
        injected: c.injected,
        lib: c.lib.map(str::to_string),
        pid: c.tid,
        ret: c.ret.map(str::to_string),
        ts_ns: crate::value::json::unix_ns(c.time),
    });
    let mut s = String::new();
    crate::value::serialize::write_json(&mut s, &ev);
    s.push('\n');
    s
}

impl Ltrace {
    fn format_entry(&mut self, tid: Tid, name: &str, regs: &[u64]) -> format::Call {
        let mut src = Args::new(tid, regs);
        format::on_entry_with(
            name,
            self.protos.get(name),
            &mut src,
            &self.o.fmt,
            self.o.array_len,
        )
    }

    /// A call entered (and runs): shown, and its return address hijacked.
    pub(in crate::ltrace) fn call_entry(&mut self, tid: Tid, id: u64, hit: Hit, regs: &mut [u64]) {
        if RETURNS_TWICE.contains(&hit.name) {
            // `setjmp` stores its return address in the buffer: hijacked,
            // a later `longjmp` would come back through the trampoline
            // with no call to match. Not hijacked; its direct return is 0.
            self.immediate_call(tid, id, hit, regs, None);
            return;
        }
        if self.o.count {
            self.summary.call(&hit.bare);
        }
        let depth = self.tasks.threads.get(&tid).map_or(0, |t| t.shadow.len());
        let call_id = self.next_call;
        self.next_call += 1;
        let mut parts = Vec::new();
        let fcall = if self.o.count {
            None
        } else {
            let c = self.format_entry(tid, hit.name, regs);
            if self.o.json {
                parts = c.entry_parts(&mut Args::new(tid, regs), &self.o.fmt);
            } else if let Some(tx) = &self.forward {
                let call = Shown {
                    shown: hit.shown.clone(),
                    bare: hit.bare.clone(),
                    text: c.entry_text().to_string(),
                };
                let ts = mono_ns();
                let sp = hit.sp;
                let _ = tx.send(Msg::Call { tid, ts, sp, call });
            } else {
                let leader = self.leader(tid, Some(hit.ret), depth);
                self.out
                    .entry(tid, call_id, leader, &hit.shown, c.entry_text());
            }
            Some(Rc::new(c))
        };
        // Hijack the return address.
        if depth >= MAX_SHADOW {
            return;
        }
        let bt = if self.o.where_depth > 0 && !self.o.count && !self.o.json {
            self.backtrace(tid, id, regs)
        } else {
            Vec::new()
        };
        let p = self.tasks.spaces.get_mut(&id).expect("space of a thread");
        let Some(t) = self.tasks.threads.get_mut(&tid) else {
            return;
        };
        let Some(tramp) = p.space.trampoline(regs[PC], tid) else {
            return;
        };
        if !p.space.mem.write(hit.sp, &tramp.to_le_bytes()) {
            return;
        }
        let sp = hit.sp;
        let wall = if self.o.json {
            SystemTime::now()
        } else {
            UNIX_EPOCH
        };
        let pending = Pending {
            ret: hit.ret,
            slot: sp,
            id: call_id,
            shown: hit.shown,
            bare: hit.bare,
            fcall,
            at: hit.now,
            depth,
            bt,
            site: hit.site,
            caller: hit.caller,
            lib: hit.lib,
            parts,
            wall,
        };
        if hit.ret == tramp {
            shadow::push_nested(&mut t.shadow, pending, |s| s.slot);
        } else {
            shadow::push(&mut t.shadow, pending, |s| s.slot);
        }
    }

    /// A call shown whole at its entry: injected (`act`: the call is not
    /// run; the return register gets the value, `errno` is set if asked,
    /// and the thread continues at the return address with it popped, as
    /// the function's `ret` would), or a `setjmp` (runs, not followed to
    /// its return, shown returning 0 as its direct return does).
    pub(in crate::ltrace) fn immediate_call(
        &mut self,
        tid: Tid,
        id: u64,
        hit: Hit,
        regs: &mut [u64],
        act: Option<Action>,
    ) {
        let wall = SystemTime::now();
        let mut errno_done = true;
        let retval = match act {
            Some(act) => {
                if let Some(e) = act.error {
                    errno_done = self.set_errno(tid, id, regs, e);
                }
                regs[RET] = act.retval;
                regs[PC] = hit.ret;
                regs[SP] = hit.sp.wrapping_add(8);
                act.retval
            }
            None => 0,
        };
        let injected = act.is_some();
        if self.o.count {
            self.summary.call(&hit.bare);
            self.summary.time(&hit.bare, Duration::ZERO);
            return;
        }
        let c = self.format_entry(tid, hit.name, regs);
        let depth = self.tasks.threads.get(&tid).map_or(0, |t| t.shadow.len());
        let rv = RetVals {
            int: retval,
            float: 0.0,
            second: (0, 0.0),
        };
        let mut src = Args::new(tid, regs);
        let note = match (injected, errno_done) {
            (false, _) => "",
            (true, true) => " (INJECTED)",
            (true, false) => " (INJECTED, errno not set)",
        };
        if self.o.json {
            let mut args = c.entry_parts(&mut src, &self.o.fmt);
            let (rest, rtext) = c.finish_parts(rv, &mut src, &self.o.fmt);
            args.extend(rest);
            let line = json_line(&JsonCall {
                tid,
                func: &hit.bare,
                caller: hit.caller.as_deref(),
                lib: hit.lib.as_deref(),
                args,
                ret: Some(&rtext),
                time: wall,
                duration: injected.then_some(Duration::ZERO),
                injected,
            });
            self.out.raw(&line);
            return;
        }
        let (full, rtext) = c.finish(rv, &mut src, &self.o.fmt);
        if let Some(tx) = &self.forward {
            let ts = mono_ns();
            let call = Shown {
                shown: hit.shown,
                bare: hit.bare,
                text: c.entry_text().to_string(),
            };
            let sp = hit.sp;
            let _ = tx.send(Msg::Call { tid, ts, sp, call });
            let sp = sp.wrapping_add(8);
            let ret = format!("{rtext}{note}");
            let _ = tx.send(Msg::Back {
                tid,
                ts,
                sp,
                full,
                ret,
            });
            return;
        }
        let call_id = self.next_call;
        self.next_call += 1;
        let leader = self.leader(tid, Some(hit.ret), depth);
        self.out
            .entry(tid, call_id, leader, &hit.shown, c.entry_text());
        self.out.ret(
            tid,
            call_id,
            |o| o.leader(tid, Some(hit.ret), depth),
            (&hit.shown, &hit.bare),
            &full,
            c.entry_text(),
            &format!("{rtext}{note}"),
            Some(Duration::ZERO),
        );
    }

    /// Writes `e` into the calling thread's `errno` (see
    /// [`inject::errno_address`]); false when it could not be found.
    fn set_errno(&mut self, tid: Tid, id: u64, regs: &[u64], e: i32) -> bool {
        let Some(p) = self.tasks.spaces.get_mut(&id) else {
            return false;
        };
        let loc = crate::probe::spec::Location::Func {
            lib: Some("libc".into()),
            name: "__errno_location".into(),
        };
        let Some(func) = self.resolver.resolve(&p.map, &loc).first().map(|t| t.addr) else {
            self.warn("--inject error=: libc's __errno_location not found".into());
            return false;
        };
        let Some(fs) = rtrace_arch::x86_64::reg_index("fs_base").and_then(|i| regs.get(i)) else {
            return false;
        };
        let mut mem = ProcMem::new(tid);
        let mut code = [0u8; 24];
        let n = mem.read(func, &mut code);
        let mut rd = |a: u64| {
            let mut b = [0u8; 8];
            (mem.read(a, &mut b) == 8).then(|| u64::from_le_bytes(b))
        };
        let addr = inject::errno_address(&code[..n], func, &mut rd, *fs);
        match addr {
            Some(a) if p.space.mem.write(a, &e.to_le_bytes()) => true,
            _ => {
                self.warn(
                    "--inject error=: errno's address could not be worked out from \
                     libc's __errno_location; only the return value is set"
                        .into(),
                );
                false
            }
        }
    }

    /// `-w N`: the caller's frames, as ` > module(func+0xoff) [addr]`.
    fn backtrace(&mut self, tid: Tid, id: u64, regs: &[u64]) -> Vec<String> {
        let Some(p) = self.tasks.spaces.get(&id) else {
            return Vec::new();
        };
        let hijacked: Vec<(u64, u64)> = self
            .tasks
            .threads
            .get(&tid)
            .map(|t| t.shadow.iter().map(|s| (s.slot, s.ret)).collect())
            .unwrap_or_default();
        let sym = self.resolver.symbolizer();
        let depth = self.o.where_depth + 1;
        let frames = frames_at_trap(&mut self.unwinder, sym, &p.map, tid, regs, hijacked, depth);
        // The first frame is the breakpoint itself (the stub or function);
        // the others are return addresses, named as ltrace's libunwind
        // names them: the symbol-table entry (mangled unless `-C`), the
        // offset from its start, `???` when no symbol holds the address.
        frames
            .iter()
            .skip(1)
            .take(self.o.where_depth)
            .map(|f| {
                // The dynamic linker's name where it has one, the launched
                // command for the main program (ltrace's names).
                let module = p.map.find(f.pc).map_or("unmapped_area", |m| {
                    match (p.link_names.get(&m.path), &self.o.main_name) {
                        (Some(name), _) => name.as_str(),
                        (None, Some((real, shown))) if *real == m.path => shown.as_str(),
                        (None, _) => m.path.as_str(),
                    }
                });
                match sym.symbol_of_return_address(&p.map, f.pc) {
                    Some((name, off)) => {
                        let name = if self.o.fmt.demangle {
                            crate::symbols::demangle(&name)
                        } else {
                            name.as_str().into()
                        };
                        format!(" > {module}({name}+{off:#x}) [{:#x}]", f.pc)
                    }
                    None => format!(" > {module}(???) [{:#x}]", f.pc),
                }
            })
            .collect()
    }

    /// A trap at the return trampoline.
    pub(in crate::ltrace) fn return_hit(&mut self, tid: Tid, mut regs: Vec<u64>) -> Resume {
        let now = Instant::now();
        let Some(t) = self.tasks.threads.get_mut(&tid) else {
            return Resume::Deliver;
        };
        let Some(entry) = shadow::pop_returned(&mut t.shadow, regs[SP], |s| s.slot) else {
            self.warn(format!(
                "thread {tid} returned to the trampoline with no call pending"
            ));
            return Resume::Deliver;
        };
        regs[PC] = entry.ret;
        let _ = Tracee::new(tid).set_regs(&regs);
        let dur = now - entry.at;
        if self.tasks.leaving.contains(&tid) {
            // An unfollowed vfork child's copy of the parent's call.
            return Resume::Suppress;
        }
        if self.o.count {
            self.summary.time(&entry.bare, dur);
            return Resume::Suppress;
        }
        let Some(fcall) = entry.fcall.clone() else {
            return Resume::Suppress;
        };
        let mut src = Args::new(tid, &regs);
        let rv = src.ret_vals(fcall.ret_uses_float(), fcall.ret_is_pair());
        if self.o.json {
            let (rest, rtext) = fcall.finish_parts(rv, &mut src, &self.o.fmt);
            let lib = entry
                .lib
                .clone()
                .or_else(|| self.bound_lib(tid, entry.site));
            let mut args = entry.parts;
            args.extend(rest);
            let line = json_line(&JsonCall {
                tid,
                func: &entry.bare,
                caller: entry.caller.as_deref(),
                lib: lib.as_deref(),
                args,
                ret: Some(&rtext),
                time: entry.wall,
                duration: Some(dur),
                injected: false,
            });
            self.out.raw(&line);
            return Resume::Suppress;
        }
        let (full, rtext) = fcall.finish(rv, &mut src, &self.o.fmt);
        if let Some(tx) = &self.forward {
            let (ts, sp) = (mono_ns(), regs[SP]);
            let ret = rtext;
            let _ = tx.send(Msg::Back {
                tid,
                ts,
                sp,
                full,
                ret,
            });
            return Resume::Suppress;
        }
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
        // ltrace ends each backtrace with an empty line.
        if !entry.bt.is_empty() {
            for l in &entry.bt {
                self.out.line("", l);
            }
            self.out.line("", "");
        }
        Resume::Suppress
    }

    /// `--json`: the calls thread `tid` never returned from (it ended or
    /// exec'd), with a null return, oldest first.
    pub(in crate::ltrace) fn json_unreturned(&mut self, tid: Tid) {
        if !self.o.json {
            return;
        }
        let Some(t) = self.tasks.threads.get_mut(&tid) else {
            return;
        };
        let pending = std::mem::take(&mut t.shadow);
        for e in pending.into_iter().filter(|e| e.fcall.is_some()) {
            let line = json_line(&JsonCall {
                tid,
                func: &e.bare,
                caller: e.caller.as_deref(),
                lib: e.lib.as_deref(),
                args: e.parts,
                ret: None,
                time: e.wall,
                duration: None,
                injected: false,
            });
            self.out.raw(&line);
        }
    }
}
