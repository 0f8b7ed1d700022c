//! The rstrace event handler: decodes each syscall and prints it the way
//! strace does, including `<unfinished ...>` / `<... resumed>` interleaving,
//! the line leader (pid prefix, `-t`/`-r` timestamps, `-n` syscall number,
//! `-i` instruction pointer), `-T` times, `-e raw=`, `-P` path matching,
//! `-e status=`/`-z`/`-Z` staging, `-e quiet=` and `-e signal=` filtering,
//! signal and exit lines, and the `-c` summary.

mod events;
mod exit;
mod line;
mod paths;

pub use crate::strace::filter::path_rule::select_paths;
use exit::{poke_side, raw_zeros};
use line::entry_text;

use super::cli::{Options, TimeFormat};
use super::dumpio;
use super::filter::{self, quiet, status, PathRule};
use super::inject::{Fired, Injections};
use super::sink::Sink;
use super::summary::Summary;
use crate::engine::memory::Memory;
use crate::engine::page_cache::PageCache;
use crate::engine::tracee::Tracee;
use crate::engine::{Event, Handler, Stamp};
use crate::syscall::ctx::{is_error, signal_name, FdResolver, ProcFdResolver};
use crate::syscall::{self, Ctx, DecodeOpts, Entry, Ret, Step, SyscallTable, Value};
use crate::value::json;
use crate::value::text::{self, RenderOpts};
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
    /// The entry text ends with the `, ` before the exit arguments: strace
    /// prints it with the entry, so it is there even when rstrace is killed
    /// before the call returns.
    sep_written: bool,
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
    /// `--syscall-limit`: calls still to trace before detaching.
    limit_left: Option<u64>,
    /// Every task is being let go (the syscall limit was reached): each
    /// gets strace's "Process N detached".
    detaching_all: bool,
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
        // Resolved by the command line's checks (their notices are among
        // the warnings), or here for options built otherwise.
        let paths = match o.trace_path_set.take() {
            Some(set) => set,
            None => {
                let announce = !o.quiet_set.contains(quiet::PATH_RESOLVE);
                let (set, notes) = select_paths(&o.trace_paths, announce);
                for n in notes {
                    eprintln!("{}: {n}", crate::strace::prog());
                }
                set
            }
        };
        if o.debug {
            // The options the engine's tracer sets (see Tracer::new).
            use crate::engine::ptrace::opts;
            let mut ptrace_options =
                opts::TRACESYSGOOD | opts::TRACEEXEC | opts::TRACESECCOMP | opts::TRACEEXIT;
            if o.follow {
                ptrace_options |= opts::TRACEFORK | opts::TRACEVFORK | opts::TRACECLONE;
            }
            eprintln!(
                "{}: ptrace_setoptions = {ptrace_options:#x}",
                crate::strace::prog()
            );
        }
        let decode = DecodeOpts {
            string_limit: o.string_limit,
            verbose: false,
            raw: false,
            fd_paths: o.decode_fds > 0,
            xlat_style: o.xlat_style,
            deref: true,
            pid_comm: o.decode_pids_comm,
            pidns: o.decode_pids_ns,
            kvm_vcpu: o.kvm_vcpu,
        };
        let render = RenderOpts { xflag: o.xflag };
        let count_only = o.summary_only;
        let defer = !o.status.is_complete(status::COUNT);
        let stack = o
            .stack_traces
            .then(|| super::stack::StackTracer::with_frame_limit(o.stack_frame_limit));
        let inject = Injections::new(std::mem::take(&mut o.inject))
            .with_replay(o.replay.take().map(super::replay::Replay::new));
        let mut fds: Box<dyn FdResolver> = if o.decode_fds > 1 {
            Box::new(
                match o.decode_fd_set {
                    0 => crate::syscall::fd_details::DetailFdResolver::default(),
                    set => crate::syscall::fd_details::DetailFdResolver::with_set(set),
                }
                .with_style(o.xlat_style),
            )
        } else {
            Box::new(ProcFdResolver)
        };
        if o.decode_pids_ns {
            fds = Box::new(super::pidns::PidnsResolver::new(fds));
        }
        let limit_left = o.syscall_limit;
        Strace {
            limit_left,
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
            detaching_all: false,
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

    /// `--syscall-limit` was reached: time to let every tracee go.
    pub fn limit_reached(&self) -> bool {
        self.limit_left == Some(0)
    }

    /// The syscall limit was reached: says so (strace 7.2's words) and
    /// marks every task for its "Process N detached" as the engine lets
    /// them go.
    pub fn detach_at_limit(&mut self) {
        if !self.o.quiet_set.contains(quiet::ATTACH) {
            self.message("System call limit has been reached, detaching tracees");
        }
        self.detaching_all = true;
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
            sep_written: false,
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
        // -P and --trace-fds: a call is shown when it touches either.
        if traced && (!self.paths.is_empty() || self.o.trace_fds.is_some()) {
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
                // strace prints the `, ` before the exit's arguments with
                // the entry; it matters when nothing ends the line, as when
                // -I anywhere leaves rstrace to die of a signal mid-call
                // (strace's -D tests). Elsewhere it is added as the line
                // goes on, which also spares a call that shows every
                // argument at entry (select, poll) a stray `, `.
                let nargs = arch.info(nr).map_or(6, |i| i.nargs as usize);
                if self.o.interruptible == Some(1)
                    && p.step == Step::Exit
                    && !p.entry_args_empty
                    && p.entry_args.len() < nargs
                    && !p.sep_at_exit
                    && !p.entry_complete
                {
                    line.push_str(", ");
                    p.sep_written = true;
                }
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
        // strace prints no table when no call was counted.
        if self.counting() && !self.summary.is_empty() {
            let t = self.summary.render_columns(self.o.sort_by, &self.o.columns);
            let s = self.sink.main();
            if s.open_line.is_some() {
                s.write_str("\n");
                s.open_line = None;
            }
            s.write_str(&t);
        }
        self.sink.close_all();
        // `--tips`: last, after everything else rstrace prints.
        if let Some(tip) = self.o.tips.render() {
            use std::io::Write as _;
            let _ = std::io::stderr().write_all(tip.as_bytes());
        }
    }

    /// The first write error of the output, if any.
    pub fn output_error(&self) -> Option<&std::io::Error> {
        self.sink.error()
    }
}

#[allow(dead_code)]
fn _uses(_: &dyn FdResolver) {}
