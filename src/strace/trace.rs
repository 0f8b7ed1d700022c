//! The rstrace event handler: decodes each syscall and prints it the way
//! strace does, including `<unfinished ...>` / `<... resumed>` interleaving,
//! the line leader (pid prefix, `-t`/`-r` timestamps, `-n` syscall number,
//! `-i` instruction pointer), `-T` times, `-e raw=`, `-P` path matching,
//! `-e status=`/`-z`/`-Z` staging, `-e quiet=` and `-e signal=` filtering,
//! signal and exit lines, and the `-c` summary.

use super::cli::{Options, TimeFormat};
use super::dumpio;
use super::filter::{self, quiet, status, PathRule};
use super::inject::{Fired, Injections};
use super::sink::Sink;
use super::summary::Summary;
use crate::engine::page_cache::PageCache;
use crate::engine::tracee::Tracee;
use crate::engine::{Event, Handler, Stamp};
use crate::output::json;
use crate::output::text::{self, RenderOpts};
use crate::syscall::ctx::{is_error, signal_name, FdResolver, ProcFdResolver};
use crate::syscall::memory::Memory;
use crate::syscall::{self, Ctx, DecodeOpts, Entry, Ret, Step, SyscallTable, Value};
use rtrace_arch::native::Regs;
use rtrace_arch::regs::RegisterFile;
use rtrace_arch::Arch;
use std::collections::{HashMap, HashSet};
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
    /// The decoder prints the separator before its exit arguments at exit.
    sep_at_exit: bool,
    /// No argument is left for the exit (see `Ctx::entry_complete`).
    entry_complete: bool,
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
    /// A fault-injection rule fired at entry.
    injected: Option<Fired>,
}

/// Per-thread state.
#[derive(Default)]
struct Thread {
    pending: Option<Pending>,
    /// The number of the thread's latest syscall (`-n` on signal and exit lines).
    last_nr: Option<u64>,
    /// The latest traced syscall that returned (strace's `s_prev_ent`, for
    /// `restart_syscall(<... resuming interrupted NAME ...>)`).
    prev_syscall: Option<&'static str>,
    /// Its personality (the width of `-i` addresses).
    arch: Option<Arch>,
    /// The personality last announced (`[ Process PID=N runs in 32 bit
    /// mode. ]`); `None` is the native one.
    pers: Option<Arch>,
}

/// The rstrace handler.
pub struct Strace {
    o: Options,
    sink: Sink,
    summary: Summary,
    threads: HashMap<i32, Thread>,
    decode: DecodeOpts,
    render: RenderOpts,
    /// `-y` (`-yy`: with socket and device details).
    fds: Box<dyn FdResolver>,
    /// Live traced tasks (for the `[pid N]` prefix rule).
    nprocs: usize,
    /// More than one task was traced once startup was done (strace's
    /// `print_pid_pfx`: the `PID ` prefix in a `-o` file).
    pid_prefix: bool,
    /// `-Y`: command names of traced tasks for the line prefix, read from
    /// `/proc/TID/comm` once and forgotten at exec and `prctl(PR_SET_NAME)`
    /// (a name written to `/proc/self/comm` shows from the next exec).
    comms: HashMap<i32, Option<Vec<u8>>>,
    /// Start of the previous `-r` interval.
    last_stamp: Option<Instant>,
    count_only: bool,
    /// Lines are kept until the call's status is known (`-e status=`, `-z`, `-Z`).
    defer: bool,
    /// `-P` paths as given and as resolved.
    paths: Vec<Vec<u8>>,
    line: String,
    /// Process ids we attached to (for "detached" messages).
    pub attached: Vec<i32>,
    /// Tasks that came from a fork or clone, or from `-p` (for `-b execve`).
    children: HashSet<i32>,
    /// Tasks counted in `nprocs`: strace counts (and announces) a new child
    /// when it first sees it stop, not at its parent's fork.
    known: HashSet<i32>,
    /// The launched command was seen (it is counted from the start).
    launched_seen: bool,
    /// The launched command's first exec went by (`-b execve` spares it).
    initial_exec_seen: bool,
    /// Tasks to stop tracing, handed to the engine after the event.
    detach_queue: Vec<i32>,
    /// `-k` state.
    stack: Option<super::stack::StackTracer>,
    /// `-e inject=` rules and counters.
    inject: Injections,
    /// Signals to deliver as threads resume (`-e inject=…:signal=`).
    resume_sigs: HashMap<i32, i32>,
    /// Threads to keep stopped for a while (`delay_enter=`/`delay_exit=`).
    holds: HashMap<i32, Duration>,
}

/// An instruction pointer for `-i`: known, or not (`[????????????????]`).
type Ip = Option<u64>;

impl Strace {
    /// A handler writing to `sink`. Prints the option warnings and the `-P`
    /// path resolutions first, as strace does before it starts the command.
    pub fn new(mut o: Options, sink: Sink) -> Strace {
        for w in &o.warnings {
            eprintln!("{}: {w}", crate::strace::prog());
        }
        let paths = select_paths(&o.trace_paths, !o.quiet_set.contains(quiet::PATH_RESOLVE));
        let decode = DecodeOpts {
            string_limit: o.string_limit,
            verbose: false,
            raw: false,
            fd_paths: o.decode_fds > 0,
            xlat_style: o.xlat_style,
            deref: true,
            pid_comm: o.decode_pids_comm,
            pidns: o.decode_pids_ns,
        };
        let render = RenderOpts { xflag: o.xflag };
        let count_only = o.summary_only;
        let defer = !o.status.is_complete(status::COUNT);
        let stack = o.stack_traces.then(super::stack::StackTracer::default);
        let inject = Injections::new(std::mem::take(&mut o.inject))
            .with_replay(o.replay.take().map(super::replay::Replay::new));
        let mut fds: Box<dyn FdResolver> = if o.decode_fds > 1 {
            Box::new(match o.decode_fd_set {
                0 => crate::syscall::fd_details::DetailFdResolver::default(),
                set => crate::syscall::fd_details::DetailFdResolver::with_set(set),
            })
        } else {
            Box::new(ProcFdResolver)
        };
        if o.decode_pids_ns {
            fds = Box::new(super::pidns::PidnsResolver::new(fds));
        }
        Strace {
            inject,
            resume_sigs: HashMap::new(),
            holds: HashMap::new(),
            stack,
            o,
            sink,
            summary: Summary::default(),
            threads: HashMap::new(),
            decode,
            render,
            fds,
            nprocs: 0,
            pid_prefix: false,
            comms: HashMap::new(),
            last_stamp: None,
            count_only,
            defer,
            paths,
            line: String::with_capacity(512),
            attached: Vec::new(),
            children: HashSet::new(),
            known: HashSet::new(),
            launched_seen: false,
            initial_exec_seen: false,
            detach_queue: Vec::new(),
        }
    }

    /// Notes that `tid` stopped: a task seen for the first time (other than
    /// the launched command) is counted and announced, as strace does when
    /// a followed child first stops.
    fn see(&mut self, tid: i32) {
        if !self.known.insert(tid) {
            return;
        }
        if !self.launched_seen && !self.o.command.is_empty() && !self.children.contains(&tid) {
            self.launched_seen = true;
            return;
        }
        self.nprocs += 1;
        if !self.o.quiet_set.contains(quiet::ATTACH) {
            self.message(&format!("Process {tid} attached"));
        }
    }

    /// `-b execve`: `tid` completed an exec; let it go unless it is the
    /// launched command's first. strace ends the open execve line with
    /// ` <detached ...>` after its "Process N detached" notice.
    fn detach_on_exec(&mut self, tid: i32, old_tid: i32) {
        let initial = !self.children.contains(&old_tid) && !self.children.contains(&tid);
        if initial && !self.initial_exec_seen {
            self.initial_exec_seen = true;
            return;
        }
        if !self.o.quiet_set.contains(quiet::ATTACH) {
            self.message(&format!("Process {tid} detached"));
        }
        if let Some(p) = self.threads.get_mut(&tid).and_then(|t| t.pending.take()) {
            if p.shown && self.printing() && !self.o.json {
                if p.deferred {
                    if let (true, Some(t)) = (self.o.status.contains(status::DETACHED), p.text) {
                        self.write_line(tid, &format!("{t} <detached ...>\n"));
                    }
                } else {
                    let s = self.sink.stream(tid);
                    if s.open_line == Some(tid) {
                        s.write_str(" <detached ...>\n");
                        s.open_line = None;
                        s.line_done();
                    }
                }
            }
        }
        self.threads.remove(&tid);
        self.known.remove(&tid);
        if self.sink.separate() {
            self.sink.close(tid);
        }
        self.nprocs = self.nprocs.saturating_sub(1);
        self.detach_queue.push(tid);
    }

    /// Number of live tasks, kept in step with the engine.
    pub fn set_nprocs(&mut self, n: usize) {
        self.nprocs = n;
    }

    /// Startup (attaching and launching) is done with `n` tasks traced:
    /// with more than one, every line of a `-o` file gets the `PID ` prefix.
    pub fn startup_done(&mut self, n: usize) {
        self.pid_prefix = n > 1;
    }

    fn counting(&self) -> bool {
        self.o.summary_only || self.o.summary
    }

    fn printing(&self) -> bool {
        !self.count_only
    }

    /// The instruction pointer of a stopped thread, when `-i` wants it.
    fn ip_of(&self, tid: i32) -> Ip {
        if !self.o.instruction_pointer {
            return None;
        }
        // The engine's events do not carry the pc yet; the tracee is stopped
        // while we handle its event, so the query is valid at any stop.
        crate::engine::ptrace::get_syscall_info(tid)
            .ok()
            .map(|i| i.pc)
    }

    /// The leader: pid prefix, timestamps, `-n` number, `-i` address.
    fn leader(&mut self, out: &mut String, tid: i32, ip: Ip) {
        if !self.sink.separate() {
            let comm = if self.o.decode_pids_comm {
                let fds = &mut self.fds;
                self.comms
                    .entry(tid)
                    .or_insert_with(|| fds.pid_comm(tid as i64))
                    .as_deref()
                    .map(String::from_utf8_lossy)
            } else {
                None
            };
            if self.sink.to_file && (self.o.follow || self.o.pids.len() > 1 || self.pid_prefix) {
                match comm {
                    // strace pads the bare number only.
                    Some(c) => {
                        let _ = write!(out, "{tid}<{c}> ");
                    }
                    None => {
                        let _ = write!(out, "{tid:<5} ");
                    }
                }
            } else if !self.sink.to_file && self.nprocs > 1 {
                match comm {
                    Some(c) => {
                        let _ = write!(out, "[pid {tid:5}<{c}>] ");
                    }
                    None => {
                        let _ = write!(out, "[pid {tid:5}] ");
                    }
                }
            }
        }
        let st = self.o.stamps;
        if st.format != TimeFormat::None {
            let t = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            match st.format {
                TimeFormat::Unix => {
                    let _ = write!(out, "{}", t.as_secs());
                }
                _ => {
                    let (h, m, s) = local_hms(t.as_secs() as i64);
                    let _ = write!(out, "{h:02}:{m:02}:{s:02}");
                }
            }
            push_fraction(out, t.subsec_nanos(), st.width);
            out.push(' ');
        }
        if let Some(width) = self.o.relative {
            let now = Instant::now();
            let d = self
                .last_stamp
                .map_or(Duration::ZERO, |l| now.duration_since(l));
            self.last_stamp = Some(now);
            let absolute = st.format != TimeFormat::None;
            let _ = write!(out, "{}{:6}", if absolute { "(+" } else { "" }, d.as_secs());
            push_fraction(out, d.subsec_nanos(), width);
            out.push_str(if absolute { ") " } else { " " });
        }
        let th = self.threads.get(&tid);
        if self.o.syscall_number {
            match th.and_then(|t| t.last_nr) {
                Some(nr) => {
                    let _ = write!(out, "[{nr:4}] ");
                }
                None => out.push_str("[????] "),
            }
        }
        if self.o.instruction_pointer {
            let narrow = th.and_then(|t| t.arch).is_some_and(|a| a.word_size() == 4);
            match (ip, narrow) {
                (Some(pc), false) => {
                    let _ = write!(out, "[{pc:016x}] ");
                }
                (Some(pc), true) => {
                    let _ = write!(out, "[{pc:08x}] ");
                }
                (None, false) => out.push_str("[????????????????] "),
                (None, true) => out.push_str("[????????] "),
            }
        }
    }

    /// Ends any open line of another thread with ` <unfinished ...>`.
    fn interrupt_open_line(&mut self, tid: i32) {
        let stream = self.sink.stream(tid);
        if let Some(owner) = stream.open_line {
            let sep = self
                .threads
                .get(&owner)
                .and_then(|t| t.pending.as_ref())
                .is_some_and(|p| {
                    p.step == Step::Exit
                        && !p.entry_args_empty
                        && !p.sep_at_exit
                        && !p.entry_complete
                });
            let stream = self.sink.stream(owner);
            if sep {
                stream.write_str(", ");
            }
            stream.write_str(" <unfinished ...>\n");
            stream.open_line = None;
            stream.line_done();
            if let Some(p) = self
                .threads
                .get_mut(&owner)
                .and_then(|t| t.pending.as_mut())
            {
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

    /// Writes a whole line (ending in a newline) of another handler sharing
    /// the session into `tid`'s stream, in order with the syscall lines
    /// (`rtrace record --probe`: probe hits).
    pub fn write_foreign_line(&mut self, tid: i32, text: &str) {
        self.write_line(tid, text);
    }

    /// A diagnostic on stderr ("Process N attached"): what is already
    /// printed goes out first, so it lands where strace's does.
    fn message(&mut self, msg: &str) {
        self.sink.flush();
        eprintln!("{}: {msg}", crate::strace::prog());
    }

    /// Decoding options for one call: `-e abbrev=` (and `-v`) choose full
    /// structures, `-e raw=` undecoded arguments.
    fn opts_for(&self, arch: Arch, nr: u64) -> DecodeOpts {
        let mut opts = self.decode.clone();
        opts.verbose = !self.o.abbrev.contains(arch, nr);
        opts.deref = self.o.verbose.contains(arch, nr);
        opts.raw = self.o.raw.contains(arch, nr);
        opts
    }

    fn on_entry(&mut self, tid: i32, arch: Arch, nr: u64, args: [u64; 6], sp: u64, stamp: &Stamp) {
        let now = Instant::now();
        let table = SyscallTable::get(arch);
        let entry = table.entry(nr);
        crate::syscall::fd_cache::on_entry(entry.name, &args);
        // A call no table names is always traced (strace: QUAL_TRACE for
        // an invalid scno, whatever `-e trace=` says).
        let traced = self.o.trace.contains(arch, nr) || entry.name.is_none();
        self.personality(tid, arch);
        {
            let th = self.threads.entry(tid).or_default();
            th.last_nr = Some(nr);
            th.arch = Some(arch);
        }
        let mut p = Pending {
            arch,
            nr,
            entry,
            args,
            entry_args: Vec::new(),
            entry_args_empty: true,
            sep_at_exit: false,
            entry_complete: false,
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
            injected: None,
        };
        // Shared by injection conditions and the decoder (a path is read once).
        let mut mem = super::inject::cond::EntryMem::new(tid);
        if !self.inject.is_empty() {
            let call = super::inject::Call {
                tid,
                arch,
                nr,
                name: entry.name,
                args: &args,
                traced,
            };
            p.injected = self.inject.on_entry(&call, &mut mem);
            if let Some(f) = p.injected.as_mut() {
                if poke_side(f, true, tid, arch, nr, entry.name, &args) {
                    // The decoder must see the poked bytes.
                    mem.cache().invalidate();
                }
            }
            if let Some(f) = &p.injected {
                self.tamper_entry(tid, f);
            }
        }
        if traced && !self.paths.is_empty() {
            p.shown = self.touches_paths(tid, arch, entry, &args, mem.cache());
        }
        if p.shown && self.printing() {
            let opts = self.opts_for(arch, nr);
            let mut ctx = Ctx::new(&mut mem, self.fds.as_mut(), &opts, tid, arch, args);
            ctx.sp = sp;
            p.step = syscall::decode_entry(entry, &mut ctx);
            p.entry_args = std::mem::take(&mut ctx.entry_args);
            // Under --pidns-translation the decoders name pids themselves.
            if self.o.decode_pids_comm && !self.o.decode_pids_ns {
                for a in &mut p.entry_args {
                    a.fill_pid_comms(&mut |pid| ctx.fds.pid_comm(pid));
                }
            }
            if entry.name == Some("restart_syscall") && p.entry_args.is_empty() {
                let prev = self.threads.get(&tid).and_then(|t| t.prev_syscall);
                p.entry_args.push(Value::Sym(
                    format!(
                        "<... resuming interrupted {} ...>",
                        prev.unwrap_or("system call")
                    )
                    .into(),
                ));
            }
            p.entry_args_empty = p.entry_args.is_empty();
            p.sep_at_exit = ctx.sep_at_exit;
            p.entry_complete = ctx.entry_complete;
            p.saved = ctx.saved;
            if opts.raw {
                raw_zeros(&mut p.entry_args);
            }
            if !self.o.json {
                let ip = self.ip_of(tid);
                let mut line = std::mem::take(&mut self.line);
                line.clear();
                self.leader(&mut line, tid, ip);
                entry_text(&mut line, entry, nr, &p.entry_args, &self.render);
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

    /// Does this call access a `-P` path (strace's `pathtrace_match_set`)?
    fn touches_paths(
        &self,
        tid: i32,
        arch: Arch,
        entry: &Entry,
        args: &[u64; 6],
        mem: &mut PageCache,
    ) -> bool {
        let Some(name) = entry.name else { return false };
        let word = |a: u64| {
            if arch.word_size() == 4 {
                a as u32 as u64
            } else {
                a
            }
        };
        match filter::path_rule(arch, name, entry.classes) {
            PathRule::Args { fds, paths } => {
                fds.iter().any(|&i| self.fd_matches(tid, args[i] as i32))
                    || paths
                        .iter()
                        .any(|&i| self.upath_matches(mem, word(args[i])))
            }
            PathRule::OldMmap => {
                let mut buf = [0u8; 24];
                mem.read(word(args[0]), &mut buf) == buf.len()
                    && self.fd_matches(
                        tid,
                        i32::from_le_bytes([buf[16], buf[17], buf[18], buf[19]]),
                    )
            }
            PathRule::Select { indirect } => {
                let words: [u64; 4] = if indirect {
                    let mut buf = [0u8; 16];
                    if mem.read(word(args[0]), &mut buf) != buf.len() {
                        return false;
                    }
                    let w = |i: usize| {
                        u32::from_le_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]) as u64
                    };
                    [w(0), w(4), w(8), w(12)]
                } else {
                    [args[0], word(args[1]), word(args[2]), word(args[3])]
                };
                self.select_matches(tid, mem, arch, &words)
            }
            PathRule::Poll => {
                let nfds = (args[1] as u32).min(1024 * 1024) as u64;
                (0..nfds).any(|k| {
                    let mut fd = [0u8; 4];
                    mem.read(word(args[0]) + 8 * k, &mut fd) == 4
                        && self.fd_matches(tid, i32::from_le_bytes(fd))
                })
            }
            PathRule::Fsconfig => match args[1] as u32 {
                3 | 4 => {
                    self.fd_matches(tid, args[4] as i32) || self.upath_matches(mem, word(args[3]))
                }
                5 => self.fd_matches(tid, args[4] as i32),
                _ => false,
            },
        }
    }

    /// Any descriptor in the `select` sets at `w[1..=3]` (`nfds` at `w[0]`).
    fn select_matches(&self, tid: i32, mem: &mut PageCache, arch: Arch, w: &[u64; 4]) -> bool {
        let nfds = w[0] as i32;
        if nfds <= 0 {
            return false;
        }
        let nfds = nfds.min(1024 * 1024) as usize;
        let ws = arch.word_size();
        let size = (nfds.div_ceil(8) + ws - 1) & !(ws - 1);
        let mut set = vec![0u8; size];
        for &addr in &w[1..] {
            if addr == 0 || mem.read(addr, &mut set) != size {
                continue;
            }
            for fd in 0..nfds {
                if set[fd / 8] & (1 << (fd % 8)) != 0 && self.fd_matches(tid, fd as i32) {
                    return true;
                }
            }
        }
        false
    }

    /// Does descriptor `fd` of `tid` refer to a traced path?
    fn fd_matches(&self, tid: i32, fd: i32) -> bool {
        fd >= 0 && fd_path(tid, fd).is_some_and(|p| self.paths.contains(&p))
    }

    /// Is the NUL-terminated string at `addr` (at most `PATH_MAX` bytes) a traced path?
    fn upath_matches(&self, mem: &mut PageCache, addr: u64) -> bool {
        read_path(mem, addr).is_some_and(|p| self.paths.contains(&p))
    }

    /// Announces a change of `tid`'s personality as strace does (not with
    /// `-e quiet=personality`).
    fn personality(&mut self, tid: i32, arch: Arch) {
        let th = self.threads.entry(tid).or_default();
        if th.pers.unwrap_or(Arch::native()) == arch {
            return;
        }
        th.pers = Some(arch);
        if !self.printing() || self.o.json || self.o.quiet_set.contains(quiet::PERSONALITY) {
            return;
        }
        let mut line = String::new();
        let ip = self.ip_of(tid);
        self.leader(&mut line, tid, ip);
        let _ = writeln!(
            line,
            "[ Process PID={tid} runs in {} bit mode. ]",
            arch.word_size() * 8
        );
        self.write_line(tid, &line);
    }

    /// Entry side of an injection: the syscall skipped (or replaced), the
    /// signal queued for the resume, the entry delay.
    fn tamper_entry(&mut self, tid: i32, f: &Fired) {
        if let Some(nr) = f.nr {
            let t = Tracee::new(tid);
            if let Ok(mut w) = t.regs() {
                Regs::set_syscall_nr(&mut w, nr);
                let _ = t.set_regs(&w);
            }
        }
        if let Some(sig) = f.action.signal {
            self.resume_sigs.insert(tid, sig);
        }
        if let Some(d) = f.action.delay_enter {
            // Held by the engine; other tracees run on meanwhile.
            self.holds.insert(tid, d);
        }
    }

    /// Exit side of an injection: the return value set; the exit delay.
    fn tamper_exit(tid: i32, f: &Fired, ret: &mut i64) {
        if let Some(r) = f.action.ret {
            let t = Tracee::new(tid);
            if let Ok(mut w) = t.regs() {
                Regs::set_return(&mut w, r);
                if t.set_regs(&w).is_ok() {
                    *ret = r;
                }
            }
        }
    }

    fn on_exit(&mut self, tid: i32, mut ret: i64, stamp: &Stamp) {
        let now = Instant::now();
        let Some(mut p) = self.threads.get_mut(&tid).and_then(|t| t.pending.take()) else {
            return;
        };
        if let Some(f) = p.injected.as_mut() {
            poke_side(f, false, tid, p.arch, p.nr, p.entry.name, &p.args);
        }
        if let Some(f) = &p.injected {
            Self::tamper_exit(tid, f, &mut ret);
            if let Some(d) = f.action.delay_exit {
                self.holds.insert(tid, d);
            }
        }
        crate::syscall::fd_cache::on_exit(p.entry.name, &p.args, ret);
        if p.shown {
            if let Some(t) = self.threads.get_mut(&tid) {
                t.prev_syscall = p.entry.name;
            }
        }
        let failed = is_error(ret);
        if !p.shown || !self.printing() {
            // Untraced calls still change the mappings -k caches.
            if let Some(st) = self.stack.as_mut() {
                st.after_syscall(tid, p.entry.name);
            }
        }
        if self.counting() && p.shown {
            let t = if self.o.wall_clock {
                now.duration_since(p.start)
            } else {
                match (stamp.stime, p.stime) {
                    (Some(b), Some(a)) => b.saturating_sub(a),
                    _ => now.duration_since(p.start),
                }
            };
            // -O: the tracing overhead per call comes off (not below 0).
            let t = t.saturating_sub(self.o.overhead.unwrap_or_default());
            let name = p.entry.name.unwrap_or("syscall");
            self.summary.record(name, p.nr, t, failed);
        }
        if !p.shown || !self.printing() {
            return;
        }
        if !self.o.status.contains(if failed {
            status::FAILED
        } else {
            status::SUCCESSFUL
        }) {
            return;
        }
        let opts = self.opts_for(p.arch, p.nr);
        let mut mem = PageCache::new(tid);
        let mut ctx = Ctx::new(&mut mem, self.fds.as_mut(), &opts, tid, p.arch, p.args);
        ctx.ret = Some(ret);
        ctx.saved = p.saved;
        ctx.entry_args = std::mem::take(&mut p.entry_args);
        let mut r = syscall::decode_exit(p.entry, &mut ctx, p.step.clone());
        let mut exit_args = std::mem::take(&mut ctx.exit_args);
        if self.o.decode_pids_comm {
            for a in exit_args.iter_mut().filter(|_| !self.o.decode_pids_ns) {
                a.fill_pid_comms(&mut |pid| ctx.fds.pid_comm(pid));
            }
            // PR_SET_NAME renames the thread: read its name again.
            if p.entry.name == Some("prctl") && p.args[0] == 15 {
                self.comms.remove(&tid);
            }
        }
        let entry_args = std::mem::take(&mut ctx.entry_args);
        if opts.raw {
            raw_zeros(&mut exit_args);
            if r == Ret::Hex(0) {
                r = Ret::Int(0);
            }
        }
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
                    injected: p.injected.as_ref().is_some_and(|f| f.action.ret.is_some()),
                    delayed: p.injected.as_ref().is_some_and(Fired::delayed),
                },
            );
            if let Some(st) = self.stack.as_mut() {
                // `-k`: the frames go into the record ("stack").
                json::add_stack(&mut line, &st.frames(tid).unwrap_or_default());
                st.after_syscall(tid, p.entry.name);
            }
            self.write_line(tid, &line);
            return;
        }
        let ip = self.ip_of(tid);
        let name = p.entry.name;
        let (arch, args) = (p.arch, p.args);
        self.complete(tid, p, &exit_args, Some(&r), Some(dur), ip);
        if ret == 0 && matches!(name, Some("execve" | "execveat")) {
            // The new program may run in another personality.
            if let Some(a) = Tracee::new(tid)
                .regs()
                .ok()
                .and_then(|w| Regs::syscall_regs(&w).arch)
            {
                self.personality(tid, a);
            }
        }
        if !(self.o.dump_reads.is_empty() && self.o.dump_writes.is_empty()) {
            let call = dumpio::Call {
                name: name.unwrap_or(""),
                args,
                ret,
                word: arch.word_size(),
                pid: tid,
            };
            let mut text = String::new();
            dumpio::dump(
                &mut text,
                &mut mem,
                &call,
                &self.o.dump_reads,
                &self.o.dump_writes,
            );
            if !text.is_empty() {
                let s = self.sink.stream(tid);
                s.write_str(&text);
                s.line_done();
            }
        }
        if let Some(st) = self.stack.as_mut() {
            let mut text = String::new();
            st.render(tid, &mut text);
            st.after_syscall(tid, name);
            let s = self.sink.stream(tid);
            s.write_str(&text);
            s.line_done();
        }
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
        ip: Ip,
    ) {
        let stream_open = self.sink.stream(tid).open_line == Some(tid);
        let continuing = p.open && stream_open;
        let sep = p.step == Step::Exit && !p.entry_args_empty && !p.entry_complete;
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
                self.leader(&mut line, tid, ip);
                let _ = write!(line, "<... {} resumed>", display_name(p.entry, p.nr));
            }
        }
        if sep && !exit_args.is_empty() && (!resumed || p.sep_at_exit) {
            line.push_str(", ");
        }
        if r.is_none() && p.step == Step::Exit {
            // Never returned, and the decoder had more to print at exit:
            // strace's print_event_exit says so (`read(0,  <unfinished
            // ...>) = ?`); a call decoded whole at entry just ends
            // (`exit_group(0) = ?`).
            if sep && !resumed && !p.sep_at_exit {
                line.push_str(", ");
            }
            line.push_str(" <unfinished ...>");
        }
        exit_text(&mut line, exit_args, &self.render);
        match r {
            Some(r) => finish(&mut line, r, self.o.column, &self.render),
            None => finish(&mut line, &Ret::Unknown, self.o.column, &self.render),
        }
        if let Some(f) = &p.injected {
            line.push_str(f.marks());
        }
        if let (Some(width), Some(d)) = (self.o.syscall_times, dur) {
            let _ = write!(line, " <{}", d.as_secs());
            push_fraction(&mut line, d.subsec_nanos(), width);
            line.push('>');
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
                    injected: false,
                    delayed: p.injected.as_ref().is_some_and(Fired::delayed),
                },
            );
            self.write_line(tid, &line);
            return;
        }
        if !self.o.status.contains(status::UNFINISHED) {
            return;
        }
        self.complete(tid, p, &[], None, None, None);
    }

    fn on_signal(&mut self, tid: i32, sig: i32, info: &[u8; 128]) {
        if !self.printing() || !self.o.signals.contains(sig as u32) {
            return;
        }
        let mut line = String::new();
        if self.o.json {
            json::signal_line(
                &mut line,
                tid,
                sig,
                &crate::syscall::siginfo_value(Arch::native(), self.o.xlat_style, info),
            );
            self.write_line(tid, &line);
            return;
        }
        let ip = self.ip_of(tid);
        self.leader(&mut line, tid, ip);
        line.push_str("--- ");
        push_signame(&mut line, sig);
        line.push(' ');
        let mut v = crate::syscall::siginfo_value(Arch::native(), self.o.xlat_style, info);
        crate::syscall::ctx::translate_pids(self.fds.as_mut(), &self.decode, tid, &mut v);
        if self.o.decode_pids_comm && !self.o.decode_pids_ns {
            v.fill_pid_comms(&mut |pid| self.fds.pid_comm(pid));
        }
        text::render_value(&mut line, &v, &self.render);
        line.push_str(" ---\n");
        self.write_line(tid, &line);
        self.signal_stack(tid);
    }

    /// `-k`: the stack after a signal line, as strace prints it.
    fn signal_stack(&mut self, tid: i32) {
        if let Some(st) = self.stack.as_mut() {
            let mut text = String::new();
            st.render(tid, &mut text);
            let s = self.sink.stream(tid);
            s.write_str(&text);
            s.line_done();
        }
    }

    fn on_group_stop(&mut self, tid: i32, sig: i32) {
        if !self.printing() || self.o.json || !self.o.signals.contains(sig as u32) {
            return;
        }
        let mut line = String::new();
        let ip = self.ip_of(tid);
        self.leader(&mut line, tid, ip);
        line.push_str("--- stopped by ");
        push_signame(&mut line, sig);
        line.push_str(" ---\n");
        self.write_line(tid, &line);
        self.signal_stack(tid);
    }

    fn on_gone(&mut self, tid: i32, what: Gone) {
        crate::syscall::fd_cache::forget_task(tid);
        self.fds.task_gone(tid);
        self.finish_unreturned(tid);
        self.inject.forget(tid);
        self.resume_sigs.remove(&tid);
        // strace gates "+++ exited" by -e quiet=exit, "+++ killed" by -e signal=.
        let shown = match what {
            Gone::Exited(_) => !self.o.quiet_set.contains(quiet::EXIT),
            Gone::Killed(sig, _) => self.o.signals.contains(sig as u32),
        };
        if self.printing() && shown {
            let mut line = String::new();
            if self.o.json {
                json::exit_line(&mut line, tid, &what.describe());
            } else {
                self.leader(&mut line, tid, None);
                line.push_str("+++ ");
                line.push_str(&what.describe());
                line.push_str(" +++\n");
            }
            self.write_line(tid, &line);
        }
        self.threads.remove(&tid);
        self.known.remove(&tid);
        if self.sink.separate() {
            self.sink.close(tid);
        }
        self.nprocs = self.nprocs.saturating_sub(1);
    }

    /// Prints the summary (if any) and flushes all output.
    pub fn finish(&mut self) {
        for line in self.inject.report() {
            self.message(&line);
        }
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
        self.sink.close_all();
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
            Event::SyscallEntry {
                tid,
                arch,
                nr,
                args,
                sp,
            } => {
                self.see(tid);
                self.on_entry(tid, arch, nr, args, sp, stamp)
            }
            Event::SyscallExit { tid, ret } => {
                self.see(tid);
                self.on_exit(tid, ret, stamp)
            }
            Event::Signal { tid, sig, info } => {
                self.see(tid);
                self.on_signal(tid, sig, info)
            }
            Event::GroupStop { tid, sig } => {
                self.see(tid);
                self.on_group_stop(tid, sig)
            }
            Event::NewTask {
                parent,
                child,
                thread,
            } => {
                self.inject.new_task(parent, child, thread);
                self.children.insert(child);
                let (arch, pers) = self
                    .threads
                    .get(&parent)
                    .map_or((None, None), |t| (t.arch, t.pers));
                let th = self.threads.entry(child).or_default();
                th.arch = th.arch.or(arch);
                th.pers = th.pers.or(pers);
            }
            Event::Exec { tid, old_tid } => {
                crate::syscall::fd_cache::forget_all();
                self.comms.remove(&tid);
                self.comms.remove(&old_tid);
                if let Some(st) = self.stack.as_mut() {
                    st.forget(tid);
                    st.forget(old_tid);
                }
                self.see(old_tid);
                if old_tid != tid {
                    // A non-leader thread exec'd and took the leader's tid:
                    // its execve line, if still open, ends with the new pid
                    // (strace's `<pid changed to N ...>`); the leader's own
                    // call never returns, and strace says so before the
                    // execve resumes under the leader's pid.
                    if !self.o.json && self.printing() {
                        let s = self.sink.stream(old_tid);
                        if s.open_line == Some(old_tid) {
                            s.write_str(&format!(" <pid changed to {tid} ...>\n"));
                            s.open_line = None;
                        }
                    }
                    self.finish_unreturned(tid);
                    if self.printing()
                        && !self.o.json
                        && !self.o.quiet_set.contains(quiet::THREAD_EXECVE)
                    {
                        let mut line = String::new();
                        let ip = self.ip_of(tid);
                        self.leader(&mut line, tid, ip);
                        let _ = writeln!(line, "+++ superseded by execve in pid {old_tid} +++");
                        self.write_line(tid, &line);
                    }
                    if let Some(t) = self.threads.remove(&old_tid) {
                        self.threads.insert(tid, t);
                    }
                    self.known.remove(&old_tid);
                    self.known.insert(tid);
                    self.nprocs = self.nprocs.saturating_sub(1);
                }
                if self.o.detach_on_execve {
                    self.detach_on_exec(tid, old_tid);
                }
            }
            Event::Exited { tid, code } => {
                self.see(tid);
                self.on_gone(tid, Gone::Exited(code))
            }
            Event::Killed { tid, sig, core } => {
                self.see(tid);
                self.on_gone(tid, Gone::Killed(sig, core))
            }
            Event::Attached { tid } => {
                self.nprocs += 1;
                self.children.insert(tid);
                self.known.insert(tid);
                if !self.o.quiet_set.contains(quiet::ATTACH) {
                    self.message(&format!("Process {tid} attached"));
                }
            }
            Event::Exiting { tid } => {
                self.see(tid);
                self.finish_unreturned(tid);
            }
            Event::Unknown { tid, exited } => {
                if exited && !self.o.quiet_set.contains(quiet::EXIT) {
                    self.message(&format!("Exit of unknown pid {tid} ignored"));
                } else if !exited && !self.o.quiet_set.contains(quiet::ATTACH) {
                    self.message(&format!("Detached unknown pid {tid}"));
                }
            }
            Event::Detached { tid } => {
                // End an open line of this thread the way strace does; a
                // line kept for `-e status=` shows with `status=detached`.
                let pending = self.threads.get_mut(&tid).and_then(|t| t.pending.take());
                let sep = pending.as_ref().is_some_and(|p| {
                    p.step == Step::Exit
                        && !p.entry_args_empty
                        && !p.sep_at_exit
                        && !p.entry_complete
                });
                let end = if sep {
                    ",  <detached ...>\n"
                } else {
                    " <detached ...>\n"
                };
                let kept = pending
                    .filter(|p| p.deferred && self.o.status.contains(status::DETACHED))
                    .and_then(|p| p.text);
                if let Some(text) = kept {
                    self.interrupt_open_line(tid);
                    let s = self.sink.stream(tid);
                    s.write_str(&text);
                    s.write_str(end);
                    s.line_done();
                }
                let s = self.sink.stream(tid);
                if s.open_line == Some(tid) {
                    s.write_str(end);
                    s.open_line = None;
                }
                self.threads.remove(&tid);
                if !self.o.quiet_set.contains(quiet::ATTACH) && self.attached.contains(&tid) {
                    self.message(&format!("Process {tid} detached"));
                }
                if self.known.remove(&tid) {
                    self.nprocs = self.nprocs.saturating_sub(1);
                }
            }
        }
    }

    fn detach_requests(&mut self) -> Vec<i32> {
        std::mem::take(&mut self.detach_queue)
    }

    fn idle(&mut self) {
        // -I1: a fatal signal kills rstrace at once, as it kills strace;
        // what was printed must be in the output by then.
        if self.o.interruptible == Some(1) {
            self.sink.flush();
        }
    }

    fn hold(&mut self, tid: i32) -> Option<Duration> {
        if self.holds.is_empty() {
            return None;
        }
        self.holds.remove(&tid)
    }

    fn resume_signal(&mut self, tid: i32) -> i32 {
        if self.resume_sigs.is_empty() {
            return 0;
        }
        self.resume_sigs.remove(&tid).unwrap_or(0)
    }
}

/// The `-P` set: each path as given and, when it differs, as `realpath`
/// resolves it now (strace's `pathtrace_select_set`), with strace's notice.
fn select_paths(given: &[String], announce: bool) -> Vec<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let mut set: Vec<Vec<u8>> = Vec::new();
    let store = |p: Vec<u8>, set: &mut Vec<Vec<u8>>| {
        if !set.contains(&p) {
            set.push(p);
        }
    };
    for p in given {
        store(p.as_bytes().to_vec(), &mut set);
        let Ok(real) = std::fs::canonicalize(p) else {
            continue;
        };
        let real = real.as_os_str().as_bytes().to_vec();
        if real == p.as_bytes() {
            continue;
        }
        if announce {
            let mut msg = String::from("Requested path ");
            text::quote_bytes(&mut msg, p.as_bytes(), 0);
            msg.push_str(" resolved into ");
            text::quote_bytes(&mut msg, &real, 0);
            eprintln!("{}: {msg}", crate::strace::prog());
        }
        store(real, &mut set);
    }
    set
}

/// What `/proc/TID/fd/FD` points to, without the ` (deleted)` the kernel
/// appends to unlinked files (unless a file of that name is the same file),
/// as strace's `getfdpath` reports it.
fn fd_path(tid: i32, fd: i32) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    let link = format!("/proc/{tid}/fd/{fd}");
    let target = std::fs::read_link(&link).ok()?;
    let mut b = target.as_os_str().as_bytes().to_vec();
    const DELETED: &[u8] = b" (deleted)";
    if b.len() > DELETED.len() && b.ends_with(DELETED) {
        if let Ok(st_link) = std::fs::metadata(&link) {
            let same = std::fs::symlink_metadata(&target)
                .is_ok_and(|s| s.ino() == st_link.ino() && s.dev() == st_link.dev());
            if !same {
                b.truncate(b.len() - DELETED.len());
            }
        }
    }
    Some(b)
}

/// The `poke_enter=` (`enter`) or `poke_exit=` side of a fired injection;
/// true when it had pokes to do.
fn poke_side(
    f: &mut Fired,
    enter: bool,
    tid: i32,
    arch: Arch,
    nr: u64,
    name: Option<&str>,
    args: &[u64; 6],
) -> bool {
    if !f.action.pokes.iter().any(|k| k.enter == enter) {
        return false;
    }
    let target = super::inject::poke::Target {
        tid,
        name: name.unwrap_or("?"),
        nargs: arch.info(nr).map_or(6, |i| i.nargs as usize),
        args,
        word: arch.word_size(),
    };
    f.poked |= super::inject::poke::apply(&f.action.pokes, enter, &target);
    true
}

/// A NUL-terminated path of at most `PATH_MAX` bytes from tracee memory.
fn read_path(mem: &mut PageCache, addr: u64) -> Option<Vec<u8>> {
    const PATH_MAX: usize = 4096;
    if addr == 0 {
        return None;
    }
    let mut out = Vec::new();
    let mut chunk = [0u8; 256];
    while out.len() <= PATH_MAX {
        let n = mem.read(addr + out.len() as u64, &mut chunk);
        if n == 0 {
            return None;
        }
        if let Some(z) = chunk[..n].iter().position(|&c| c == 0) {
            out.extend_from_slice(&chunk[..z]);
            return (out.len() <= PATH_MAX).then_some(out);
        }
        out.extend_from_slice(&chunk[..n]);
    }
    None
}

/// `-e raw=` prints numbers with C's `%#lx`, which writes zero as `0`.
fn raw_zeros(args: &mut [Value]) {
    for a in args {
        if *a == Value::Hex(0) {
            *a = Value::UInt(0);
        }
    }
}

/// `.` and the first `width` digits of `nanos` (nothing for width 0).
fn push_fraction(out: &mut String, nanos: u32, width: u8) {
    if width == 0 {
        return;
    }
    let v = nanos / 10u32.pow(9 - width as u32);
    let _ = write!(out, ".{v:0w$}", w = width as usize);
}

/// The name strace prints for a syscall (`syscall_0x1c7` when unknown).
fn display_name(e: &Entry, nr: u64) -> String {
    match e.name {
        Some(n) => n.to_string(),
        None => format!("syscall_{nr:#x}"),
    }
}

/// `name(entry args`.
fn entry_text(out: &mut String, e: &Entry, nr: u64, args: &[Value], r: &RenderOpts) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions() {
        let f = |n, w| {
            let mut s = String::new();
            push_fraction(&mut s, n, w);
            s
        };
        assert_eq!(f(123_456_789, 0), "");
        assert_eq!(f(123_456_789, 3), ".123");
        assert_eq!(f(1_456_789, 6), ".001456");
        assert_eq!(f(123_456_789, 9), ".123456789");
    }
}
