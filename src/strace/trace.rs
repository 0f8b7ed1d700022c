//! The rstrace event handler: decodes each syscall and prints it the way
//! strace does, including `<unfinished ...>` / `<... resumed>` interleaving,
//! pid prefixes, timestamps, signal and exit lines, and the `-c` summary.

use super::cli::{Options, Stamps};
use super::sink::Sink;
use super::summary::Summary;
use crate::engine::memory::ProcMem;
use crate::engine::{Event, Handler, Stamp};
use crate::output::json;
use crate::output::text::{self, RenderOpts};
use crate::syscall::ctx::{is_error, signal_name, FdResolver, ProcFdResolver};
use crate::syscall::{self, Ctx, DecodeOpts, Entry, Ret, Step, SyscallTable, Value};
use rtrace_arch::Arch;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A syscall between entry and exit.
struct Pending {
    arch: Arch,
    nr: u64,
    entry: &'static Entry,
    args: [u64; 6],
    entry_args: Vec<Value>,
    /// No argument was decoded at entry (no `, ` before exit arguments).
    entry_args_empty: bool,
    saved: u64,
    step: Step,
    start: Instant,
    stime: Option<Duration>,
    /// Printed (to be shown at all).
    shown: bool,
    /// Its entry text is on an open line.
    open: bool,
    /// ` <unfinished ...>` was printed.
    unfinished: bool,
    /// Entry text as printed (open line) or kept (deferred by status filters).
    text: Option<String>,
    /// The text was kept, not printed.
    deferred: bool,
    /// Text after the wall-clock prefix, for JSON time.
    wall: SystemTime,
}

/// Per-thread state.
#[derive(Default)]
struct Thread {
    pending: Option<Pending>,
}

/// The rstrace handler.
pub struct Strace {
    o: Options,
    sink: Sink,
    summary: Summary,
    threads: HashMap<i32, Thread>,
    decode: DecodeOpts,
    decode_verbose: DecodeOpts,
    render: RenderOpts,
    fds: ProcFdResolver,
    /// Live traced tasks (for the `[pid N]` prefix rule).
    nprocs: usize,
    start: Instant,
    last_stamp: Option<Instant>,
    count_only: bool,
    defer: bool,
    line: String,
    /// Process ids we attached to (for "detached" messages).
    pub attached: Vec<i32>,
}

impl Strace {
    /// A handler writing to `sink`.
    pub fn new(o: Options, sink: Sink) -> Strace {
        let decode = DecodeOpts {
            string_limit: o.string_limit,
            verbose: o.verbose_all,
            raw: false,
            fd_paths: o.decode_fds > 0,
            xlat_style: o.xlat_style,
        };
        let mut decode_verbose = decode.clone();
        decode_verbose.verbose = true;
        let render = RenderOpts { xflag: o.xflag };
        let count_only = o.summary_only;
        let defer = o.successful_only || o.failed_only || o.status != super::filter::NameSet::All;
        Strace {
            o,
            sink,
            summary: Summary::default(),
            threads: HashMap::new(),
            decode,
            decode_verbose,
            render,
            fds: ProcFdResolver,
            nprocs: 0,
            start: Instant::now(),
            last_stamp: None,
            count_only,
            defer,
            line: String::with_capacity(512),
            attached: Vec::new(),
        }
    }

    /// Number of live tasks, kept in step with the engine.
    pub fn set_nprocs(&mut self, n: usize) {
        self.nprocs = n;
    }

    fn counting(&self) -> bool {
        self.o.summary_only || self.o.summary
    }

    fn printing(&self) -> bool {
        !self.count_only
    }

    /// The leader: pid prefix, timestamps.
    fn leader(&mut self, out: &mut String, tid: i32, now: Instant, pc: Option<u64>) {
        if !self.sink.separate() {
            if self.sink.to_file && (self.o.follow || self.o.pids.len() > 1) {
                let _ = write!(out, "{tid:<5} ");
            } else if !self.sink.to_file && self.nprocs > 1 {
                let _ = write!(out, "[pid {tid:5}] ");
            }
        }
        match self.o.stamps {
            Stamps::None => {}
            stamps => {
                let t = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
                match stamps {
                    Stamps::UnixUs => {
                        let _ = write!(out, "{}.{:06} ", t.as_secs(), t.subsec_micros());
                    }
                    _ => {
                        let (h, m, s) = local_hms(t.as_secs() as i64);
                        let _ = write!(out, "{h:02}:{m:02}:{s:02}");
                        if stamps == Stamps::TimeUs {
                            let _ = write!(out, ".{:06}", t.subsec_micros());
                        }
                        out.push(' ');
                    }
                }
            }
        }
        if self.o.relative {
            let d = self.last_stamp.map_or(Duration::ZERO, |l| now.duration_since(l));
            self.last_stamp = Some(now);
            let _ = write!(out, "{:6}.{:06} ", d.as_secs(), d.subsec_micros());
        }
        if self.o.instruction_pointer {
            if let Some(pc) = pc {
                let _ = write!(out, "[{pc:016x}] ");
            }
        }
    }

    /// Ends any open line of another thread with ` <unfinished ...>`.
    fn interrupt_open_line(&mut self, tid: i32) {
        let stream = self.sink.stream(tid);
        if let Some(owner) = stream.open_line {
            if owner == tid && !self.sink.separate() {
                // Our own open line is being interrupted (by a signal or exit).
            }
            let sep = self
                .threads
                .get(&owner)
                .and_then(|t| t.pending.as_ref())
                .is_some_and(|p| p.step == Step::Exit && !p.entry_args_empty);
            let stream = self.sink.stream(owner);
            if sep {
                stream.write_str(", ");
            }
            stream.write_str(" <unfinished ...>\n");
            stream.open_line = None;
            stream.line_done();
            if let Some(p) = self.threads.get_mut(&owner).and_then(|t| t.pending.as_mut()) {
                p.open = false;
                p.unfinished = true;
            }
        }
    }

    fn write_line(&mut self, tid: i32, text: &str) {
        self.interrupt_open_line(tid);
        let s = self.sink.stream(tid);
        s.write_str(text);
        s.line_done();
    }

    fn ctx<'a>(
        mem: &'a mut ProcMem,
        fds: &'a mut ProcFdResolver,
        opts: &'a DecodeOpts,
        tid: i32,
        arch: Arch,
        args: [u64; 6],
    ) -> Ctx<'a> {
        Ctx {
            mem,
            fds,
            opts,
            pid: tid,
            arch,
            args,
            ret: None,
            entry_args: Vec::new(),
            exit_args: Vec::new(),
            saved: 0,
            sp: 0,
        }
    }

    fn on_entry(&mut self, tid: i32, arch: Arch, nr: u64, args: [u64; 6], sp: u64, stamp: &Stamp) {
        let now = Instant::now();
        let table = SyscallTable::get(arch);
        let entry = table.entry(nr);
        let traced = self.o.trace.contains(arch, nr);
        let mut p = Pending {
            arch,
            nr,
            entry,
            args,
            entry_args: Vec::new(),
            entry_args_empty: true,
            saved: 0,
            step: Step::Exit,
            start: now,
            stime: stamp.stime,
            shown: traced,
            open: false,
            unfinished: false,
            text: None,
            deferred: false,
            wall: SystemTime::now(),
        };
        if traced && (self.printing() || !self.o.trace_paths.is_empty()) {
            let verbose = self.o.verbose_all || self.o.verbose.contains(arch, nr) && !self.o.abbrev.contains(arch, nr);
            let raw = self.o.raw.contains(arch, nr);
            let mut opts = if verbose { self.decode_verbose.clone() } else { self.decode.clone() };
            opts.raw = raw;
            if !self.o.trace_paths.is_empty() {
                opts.fd_paths = true;
            }
            let mut mem = ProcMem::new(tid);
            let mut ctx = Self::ctx(&mut mem, &mut self.fds, &opts, tid, arch, args);
            ctx.sp = sp;
            p.step = syscall::decode_entry(entry, &mut ctx);
            p.entry_args = std::mem::take(&mut ctx.entry_args);
            p.entry_args_empty = p.entry_args.is_empty();
            p.saved = ctx.saved;
            if !self.o.trace_paths.is_empty() {
                p.shown = self.touches_paths(&p.entry_args);
                if self.o.decode_fds == 0 {
                    strip_fd_paths(&mut p.entry_args);
                }
            }
            if p.shown && self.printing() && !self.o.json {
                let mut line = std::mem::take(&mut self.line);
                line.clear();
                self.leader(&mut line, tid, now, None);
                if self.o.syscall_number {
                    let _ = write!(line, "[{nr:4}] ");
                }
                entry_text(&mut line, entry, nr, &p.entry_args, &p.step, &self.render);
                if self.defer {
                    p.deferred = true;
                } else {
                    self.interrupt_open_line(tid);
                    let s = self.sink.stream(tid);
                    s.write_str(&line);
                    s.open_line = Some(tid);
                    p.open = true;
                }
                p.text = Some(line);
            }
        }
        self.threads.entry(tid).or_default().pending = Some(p);
    }

    fn touches_paths(&self, args: &[Value]) -> bool {
        args.iter().any(|v| match v {
            Value::Str(s) => self.o.trace_paths.iter().any(|p| p.as_bytes() == s.bytes.as_slice()),
            Value::Fd { path: Some(p), .. } => {
                self.o.trace_paths.iter().any(|tp| tp.as_bytes() == p.as_slice())
            }
            _ => false,
        })
    }

    fn on_exit(&mut self, tid: i32, ret: i64, stamp: &Stamp) {
        let now = Instant::now();
        let Some(mut p) = self.threads.get_mut(&tid).and_then(|t| t.pending.take()) else {
            return;
        };
        let failed = is_error(ret);
        if self.counting() && p.shown {
            let t = if self.o.wall_clock {
                now.duration_since(p.start)
            } else {
                match (stamp.stime, p.stime) {
                    (Some(b), Some(a)) => b.saturating_sub(a),
                    _ => now.duration_since(p.start),
                }
            };
            let name = p.entry.name.unwrap_or("syscall");
            self.summary.record(name, p.nr, t, failed);
        }
        if !p.shown || !self.printing() {
            return;
        }
        let status_ok = !((self.o.successful_only && failed) || (self.o.failed_only && !failed))
            && self.o.status.contains(if failed { 1 } else { 0 });
        if !status_ok {
            return;
        }
        let verbose = self.o.verbose_all
            || self.o.verbose.contains(p.arch, p.nr) && !self.o.abbrev.contains(p.arch, p.nr);
        let mut opts = if verbose {
            self.decode_verbose.clone()
        } else {
            self.decode.clone()
        };
        opts.raw = self.o.raw.contains(p.arch, p.nr);
        let mut mem = ProcMem::new(tid);
        let mut ctx = Self::ctx(&mut mem, &mut self.fds, &opts, tid, p.arch, p.args);
        ctx.ret = Some(ret);
        ctx.saved = p.saved;
        ctx.entry_args = std::mem::take(&mut p.entry_args);
        let r = syscall::decode_exit(p.entry, &mut ctx, p.step.clone());
        let exit_args = std::mem::take(&mut ctx.exit_args);
        let entry_args = std::mem::take(&mut ctx.entry_args);
        let dur = now.duration_since(p.start);
        if self.o.json {
            let mut line = String::new();
            json::syscall_line(
                &mut line,
                &json::SyscallRecord {
                    pid: tid,
                    time: p.wall,
                    name: p.entry.name,
                    nr: p.nr,
                    entry_args: &entry_args,
                    exit_args: &exit_args,
                    ret: Some(&r),
                    duration: Some(dur),
                },
            );
            self.write_line(tid, &line);
            return;
        }
        self.complete(tid, p, &exit_args, Some(&r), Some(dur), now);
    }

    /// Prints the end of a syscall line: on the open line when it is still
    /// ours, else as `<... name resumed>` on a new one.
    fn complete(
        &mut self,
        tid: i32,
        p: Pending,
        exit_args: &[Value],
        r: Option<&Ret>,
        dur: Option<Duration>,
        now: Instant,
    ) {
        let stream_open = self.sink.stream(tid).open_line == Some(tid);
        let continuing = p.open && stream_open;
        let sep = p.step == Step::Exit && !p.entry_args_empty;
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let skip;
        let resumed;
        match p.text {
            Some(t) if p.deferred || continuing => {
                skip = if continuing { t.len() } else { 0 };
                resumed = false;
                line.push_str(&t);
            }
            _ => {
                skip = 0;
                resumed = true;
                self.interrupt_open_line(tid);
                self.leader(&mut line, tid, now, None);
                let _ = write!(line, "<... {} resumed>", display_name(p.entry, p.nr));
            }
        }
        if sep && !exit_args.is_empty() && !resumed {
            line.push_str(", ");
        }
        exit_text(&mut line, exit_args, &self.render);
        match r {
            Some(r) => finish(&mut line, r, self.o.column, &self.render),
            None => finish(&mut line, &Ret::Unknown, self.o.column, &self.render),
        }
        if let (true, Some(d)) = (self.o.syscall_times, dur) {
            let _ = write!(line, " <{}.{:06}>", d.as_secs(), d.subsec_micros());
        }
        line.push('\n');
        if !p.deferred && !continuing {
            self.interrupt_open_line(tid);
        }
        let s = self.sink.stream(tid);
        s.write_str(&line[skip..]);
        s.open_line = None;
        s.line_done();
        self.line = line;
    }

    /// A syscall that never returned (exit, exit_group, killed): `= ?`.
    fn finish_unreturned(&mut self, tid: i32) {
        let Some(p) = self.threads.get_mut(&tid).and_then(|t| t.pending.take()) else {
            return;
        };
        if !p.shown || !self.printing() {
            return;
        }
        if self.o.json {
            let mut line = String::new();
            json::syscall_line(
                &mut line,
                &json::SyscallRecord {
                    pid: tid,
                    time: p.wall,
                    name: p.entry.name,
                    nr: p.nr,
                    entry_args: &p.entry_args,
                    exit_args: &[],
                    ret: None,
                    duration: None,
                },
            );
            self.write_line(tid, &line);
            return;
        }
        if self.o.status != super::filter::NameSet::All && !self.o.status.contains(2) {
            return;
        }
        self.complete(tid, p, &[], None, None, Instant::now());
    }

    fn on_signal(&mut self, tid: i32, sig: i32, info: &[u8; 128]) {
        if !self.printing() || !self.o.signals.contains(sig as u32) || self.o.quiet >= 3 {
            return;
        }
        let now = Instant::now();
        let mut line = String::new();
        if self.o.json {
            json::signal_line(&mut line, tid, sig, &crate::syscall::siginfo_value(Arch::native(), self.o.xlat_style, info));
            self.write_line(tid, &line);
            return;
        }
        self.leader(&mut line, tid, now, None);
        line.push_str("--- ");
        push_signame(&mut line, sig);
        line.push(' ');
        let v = crate::syscall::siginfo_value(Arch::native(), self.o.xlat_style, info);
        text::render_value(&mut line, &v, &self.render);
        line.push_str(" ---\n");
        self.write_line(tid, &line);
    }

    fn on_group_stop(&mut self, tid: i32, sig: i32) {
        if !self.printing() || self.o.json {
            return;
        }
        let mut line = String::new();
        self.leader(&mut line, tid, Instant::now(), None);
        line.push_str("--- stopped by ");
        push_signame(&mut line, sig);
        line.push_str(" ---\n");
        self.write_line(tid, &line);
    }

    fn on_gone(&mut self, tid: i32, what: Gone) {
        self.finish_unreturned(tid);
        self.threads.remove(&tid);
        let quiet_exit = self.o.quiet >= 2 || self.o.quiet_set.contains(1);
        if self.printing() && !quiet_exit {
            let mut line = String::new();
            if self.o.json {
                json::exit_line(&mut line, tid, &what.describe());
            } else {
                self.leader(&mut line, tid, Instant::now(), None);
                line.push_str("+++ ");
                line.push_str(&what.describe());
                line.push_str(" +++\n");
            }
            self.write_line(tid, &line);
        }
        if self.sink.separate() {
            self.sink.close(tid);
        }
        self.nprocs = self.nprocs.saturating_sub(1);
    }

    /// Prints the summary (if any) and flushes all output.
    pub fn finish(&mut self) {
        // Lines still open (rtrace interrupted mid-call) end as strace ends them.
        let open: Vec<i32> = self
            .threads
            .iter()
            .filter(|(_, t)| t.pending.as_ref().is_some_and(|p| p.open))
            .map(|(k, _)| *k)
            .collect();
        for tid in open {
            let s = self.sink.stream(tid);
            if s.open_line == Some(tid) {
                s.write_str(" <detached ...>\n");
                s.open_line = None;
            }
        }
        if self.counting() {
            let t = self.summary.render(self.o.sort_by);
            let s = self.sink.main();
            if s.open_line.is_some() {
                s.write_str("\n");
                s.open_line = None;
            }
            s.write_str(&t);
        }
        self.sink.flush();
    }

    /// The first write error of the output, if any.
    pub fn output_error(&self) -> Option<&std::io::Error> {
        self.sink.error()
    }
}

/// How a task went away.
enum Gone {
    Exited(i32),
    Killed(i32, bool),
}

impl Gone {
    fn describe(&self) -> String {
        match self {
            Gone::Exited(c) => format!("exited with {c}"),
            Gone::Killed(s, core) => {
                let mut t = String::from("killed by ");
                push_signame(&mut t, *s);
                if *core {
                    t.push_str(" (core dumped)");
                }
                t
            }
        }
    }
}

fn push_signame(out: &mut String, sig: i32) {
    match signal_name(sig as u64) {
        Some(n) => out.push_str(&n),
        None => {
            let _ = write!(out, "{sig}");
        }
    }
}

impl Handler for Strace {
    fn event(&mut self, ev: Event<'_>, stamp: &Stamp) {
        match ev {
            Event::SyscallEntry { tid, arch, nr, args, sp } => {
                self.on_entry(tid, arch, nr, args, sp, stamp)
            }
            Event::SyscallExit { tid, ret } => self.on_exit(tid, ret, stamp),
            Event::Signal { tid, sig, info } => self.on_signal(tid, sig, info),
            Event::GroupStop { tid, sig } => self.on_group_stop(tid, sig),
            Event::NewTask { child, .. } => {
                self.nprocs += 1;
                self.threads.entry(child).or_default();
                if self.o.quiet == 0 && !self.o.quiet_set.contains(0) && !self.o.pids.is_empty() {
                    // strace announces followed children only in attach mode's verbose form.
                }
            }
            Event::Exec { tid, old_tid } => {
                if old_tid != tid {
                    // A non-leader thread exec'd and took the leader's tid:
                    // the leader's own call never returns, and strace says
                    // so before the execve resumes under the leader's pid.
                    self.finish_unreturned(tid);
                    if self.printing() && !self.o.json && !self.o.quiet_set.contains(5) {
                        let mut line = String::new();
                        self.leader(&mut line, tid, Instant::now(), None);
                        let _ = writeln!(line, "+++ superseded by execve in pid {old_tid} +++");
                        self.write_line(tid, &line);
                    }
                    if let Some(t) = self.threads.remove(&old_tid) {
                        self.threads.insert(tid, t);
                    }
                    self.nprocs = self.nprocs.saturating_sub(1);
                }
            }
            Event::Exited { tid, code } => self.on_gone(tid, Gone::Exited(code)),
            Event::Killed { tid, sig, core } => self.on_gone(tid, Gone::Killed(sig, core)),
            Event::Attached { tid } => {
                self.nprocs += 1;
                if self.o.quiet == 0 && !self.o.quiet_set.contains(0) {
                    eprintln!("rstrace: Process {tid} attached");
                }
            }
            Event::Detached { tid } => {
                // End an open line of this thread the way strace does.
                let s = self.sink.stream(tid);
                if s.open_line == Some(tid) {
                    s.write_str(" <detached ...>\n");
                    s.open_line = None;
                }
                self.threads.remove(&tid);
                if self.o.quiet == 0 && !self.o.quiet_set.contains(0) && self.attached.contains(&tid) {
                    eprintln!("rstrace: Process {tid} detached");
                }
                self.nprocs = self.nprocs.saturating_sub(1);
            }
        }
    }
}

/// The name strace prints for a syscall (`syscall_0x1c7` when unknown).
fn display_name(e: &Entry, nr: u64) -> String {
    match e.name {
        Some(n) => n.to_string(),
        None => format!("syscall_{nr:#x}"),
    }
}

/// `name(entry args` plus a trailing `, ` when more arguments follow at exit.
fn entry_text(out: &mut String, e: &Entry, nr: u64, args: &[Value], step: &Step, r: &RenderOpts) {
    match e.name {
        Some(n) => out.push_str(n),
        None => {
            let _ = write!(out, "syscall_{nr:#x}");
        }
    }
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        text::render_value(out, a, r);
    }
    let _ = step;
}

fn exit_text(out: &mut String, args: &[Value], r: &RenderOpts) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        text::render_value(out, a, r);
    }
}

/// `)`, alignment to the result column, `= RET`.
fn finish(out: &mut String, ret: &Ret, column: usize, r: &RenderOpts) {
    out.push(')');
    pad(out, column);
    text::render_ret(out, ret, r);
}

fn pad(out: &mut String, column: usize) {
    let line_start = out.rfind('\n').map_or(0, |p| p + 1);
    let col = out[line_start..].chars().count();
    if col < column {
        for _ in col..column {
            out.push(' ');
        }
    } else {
        out.push(' ');
    }
}

fn strip_fd_paths(args: &mut [Value]) {
    for a in args {
        if let Value::Fd { path, .. } = a {
            *path = None;
        }
    }
}

/// Local time of day for `-t`.
fn local_hms(secs: i64) -> (i64, i64, i64) {
    // SAFETY: localtime_r writes into `tm`, a plain struct we own.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let t: libc::time_t = secs as libc::time_t;
    // SAFETY: valid pointers to locals.
    unsafe { libc::localtime_r(&t, &mut tm) };
    (tm.tm_hour as i64, tm.tm_min as i64, tm.tm_sec as i64)
}

#[allow(dead_code)]
fn _uses(_: &dyn FdResolver) {}
