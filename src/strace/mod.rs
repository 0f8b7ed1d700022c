//! `rstrace`: the strace-compatible system-call tracer, end to end.
//!
//! [`main`] parses the command line ([`cli`]), builds the engine
//! configuration (seccomp set, follow-forks, register fallback), launches or
//! attaches, runs the wait loop with the [`trace::Strace`] handler, and turns
//! the traced command's fate into rstrace's exit status as strace does.

pub mod cli;
pub mod dumpio;
pub mod filter;
pub mod inject;
pub mod pidns;
pub mod replay;
pub mod sink;
pub mod stack;
pub mod summary;
pub mod trace;

use crate::engine::ptrace::Tid;
use crate::engine::signals::{die_like, interrupted_status, Interruptible};
use crate::engine::{spawn, Config, Event, Handler, Outcome, Resume, Stamp, Tracer};
use rtrace_arch::Arch;
use std::ffi::OsString;

/// How rstrace was invoked (`argv[0]`), the prefix of its messages as
/// strace prefixes its own (`strace: Process 12 attached`, or the path it
/// was run by); rstrace linked or aliased as `strace` speaks as strace, and
/// so does one run without any `argv[0]`, as strace then does.
pub use crate::sys::prog;

fn usage_exit(e: &cli::UsageError) -> i32 {
    for note in &e.notes {
        eprintln!("{}: {note}", crate::strace::prog());
    }
    eprintln!("{}: {}", crate::strace::prog(), e.msg);
    if e.hint {
        eprintln!("Try '{} -h' for more information.", crate::strace::prog());
    }
    1
}

/// `-V`: strace 7.2's layout (name and version; copyright and licence;
/// the optional features) with rstrace's own facts.
fn version_text() -> String {
    // strace lists m32-mpers when it decodes a second personality's
    // structures: rstrace does for i386 on x86_64 (no x32).
    let mpers = if Arch::native_personalities().len() > 1 {
        " m32-mpers"
    } else {
        ""
    };
    format!(
        "rstrace -- version {}\n\
         Copyright (c) The rtrace developers.\n\
         This is free software; see the source for copying conditions.  There is NO\n\
         warranty; not even for MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.\n\
         \n\
         Optional features enabled: stack-trace=rtrace stack-demangle{mpers}\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Resolves `-u USERNAME` to (uid, gid, groups).
fn lookup_user(name: &str) -> Option<(u32, u32, Vec<u32>)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    for line in passwd.lines() {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() > 3 && f[0] == name {
            let uid = f[2].parse().ok()?;
            let gid = f[3].parse().ok()?;
            return Some((uid, gid, vec![gid]));
        }
    }
    None
}

/// Runs rstrace with `args` (without argv[0]); returns the process exit code.
/// A traced command killed by a signal makes rstrace kill itself the same way.
pub fn main(args: &[OsString]) -> i32 {
    // strace's descriptor and exec-failure conventions (see startup.rs).
    crate::engine::startup::standard_fds();
    spawn::set_exec_failure(crate::strace::prog(), 1);
    REDIRECT_STD_FDS.store(true, std::sync::atomic::Ordering::Relaxed);
    let o = match cli::parse(args) {
        Ok(o) => o,
        Err(e) => return usage_exit(&e),
    };
    if o.help {
        print!("{}", cli::HELP);
        return 0;
    }
    if o.version {
        print!("{}", version_text());
        return 0;
    }
    let sink = match sink::Sink::open(o.output.as_deref(), o.append, o.output_separately) {
        Ok(mut s) => {
            if o.normalize {
                s.normalize();
            }
            if o.json {
                s.preamble(crate::value::json_shape::schema_line("rstrace"));
            }
            s
        }
        Err(e) => {
            eprintln!(
                "{}: can't fopen '{}': {}",
                crate::strace::prog(),
                o.output.as_deref().unwrap_or(""),
                crate::value::text::errno_message(e.raw_os_error().unwrap_or(0) as u64)
            );
            return 1;
        }
    };
    match run(o, sink) {
        Ended::Failed(code) => code,
        // The reader of the trace went away: die of SIGPIPE, as strace does
        // (the launched command was killed on the way out).
        Ended::Interrupted(libc::SIGPIPE) => die_like(libc::SIGPIPE),
        Ended::Interrupted(sig) => interrupted_status(sig),
        Ended::Done(Outcome::Exited(c)) => c,
        Ended::Done(Outcome::Killed(sig, _)) => die_like(sig),
        Ended::Done(Outcome::None) => 0,
    }
}

/// rstrace proper (not `rtrace record`) gives up its stdin and stdout once
/// the command runs, as strace does.
static REDIRECT_STD_FDS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How a traced run ended (see [`run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Nothing was traced: the error is printed; the exit status to use.
    Failed(i32),
    /// rstrace itself got this fatal signal; the launched command was
    /// killed and attached processes detached.
    Interrupted(i32),
    /// The trace ran to the end: what became of the launched command.
    Done(Outcome),
}

/// Traces per `o` (command line already validated) into `sink`: builds the
/// engine configuration, attaches or launches, runs the wait loop, prints
/// the summary. `rtrace record` calls this with its own sink.
pub fn run(o: cli::Options, sink: sink::Sink) -> Ended {
    run_layered(o, sink, None)
}

/// Another engine handler sharing rstrace's session (`rtrace record
/// --probe`: breakpoints in the same tracer as the syscalls). It sees every
/// engine call first and passes on to rstrace's handler what rstrace should
/// see (all of it, unless it handled a stop itself, like a breakpoint trap).
pub trait Layer {
    /// An engine event; forward it with `s.event(ev, when)`.
    fn event(&mut self, s: &mut trace::Strace, ev: Event<'_>, when: &Stamp);
    /// A signal-delivery stop (after its [`Event::Signal`]).
    fn signal_stop(
        &mut self,
        s: &mut trace::Strace,
        tid: Tid,
        sig: i32,
        info: &[u8; 128],
    ) -> Resume;
    /// Tasks to let go (rstrace's requests included).
    fn detach_requests(&mut self, s: &mut trace::Strace) -> Vec<Tid>;
    /// A task's first stop.
    fn task_ready(&mut self, s: &mut trace::Strace, tid: Tid);
    /// `tid` is about to be detached: undo what was changed in it.
    fn detaching(&mut self, s: &mut trace::Strace, tid: Tid);
}

/// rstrace's handler with an optional [`Layer`] in front of it.
struct Layered<'a> {
    strace: trace::Strace,
    layer: Option<&'a mut dyn Layer>,
}

impl Handler for Layered<'_> {
    fn event(&mut self, ev: Event<'_>, when: &Stamp) {
        match &mut self.layer {
            Some(l) => l.event(&mut self.strace, ev, when),
            None => self.strace.event(ev, when),
        }
    }

    fn signal_stop(&mut self, tid: Tid, sig: i32, info: &[u8; 128]) -> Resume {
        match &mut self.layer {
            Some(l) => l.signal_stop(&mut self.strace, tid, sig, info),
            None => self.strace.signal_stop(tid, sig, info),
        }
    }

    fn detach_requests(&mut self) -> Vec<Tid> {
        match &mut self.layer {
            Some(l) => l.detach_requests(&mut self.strace),
            None => self.strace.detach_requests(),
        }
    }

    fn task_ready(&mut self, tid: Tid) {
        match &mut self.layer {
            Some(l) => l.task_ready(&mut self.strace, tid),
            None => self.strace.task_ready(tid),
        }
    }

    fn detaching(&mut self, tid: Tid) {
        match &mut self.layer {
            Some(l) => l.detaching(&mut self.strace, tid),
            None => self.strace.detaching(tid),
        }
    }

    fn resume_signal(&mut self, tid: Tid) -> i32 {
        self.strace.resume_signal(tid)
    }

    fn hold(&mut self, tid: Tid) -> Option<std::time::Duration> {
        self.strace.hold(tid)
    }

    fn done(&mut self) -> bool {
        self.strace.done()
    }

    fn idle(&mut self) {
        self.strace.idle();
    }
}

/// [`run`] with `layer` sharing the session (see [`Layer`]).
pub fn run_layered(o: cli::Options, sink: sink::Sink, layer: Option<&mut dyn Layer>) -> Ended {
    let launching = !o.command.is_empty();
    // Seccomp: only for a launched command followed with -f (an unfollowed
    // child would inherit the filter with no tracer and get ENOSYS), and only
    // when the set excludes something.
    let trace_all = o.trace.is_all();
    // -k must see every mapping change, so it needs every syscall to stop.
    let seccomp = match o.seccomp {
        _ if o.stack_traces => false,
        // -D: the tracer seizes the command like an attached process.
        _ if o.daemonize > 0 => false,
        Some(false) => false,
        Some(true) => launching && o.follow && !trace_all,
        None => launching && o.follow && !trace_all,
    };
    // Descriptors are cached per (pid, fd) only when every syscall stops.
    crate::syscall::fd_cache::start(!seccomp && (o.follow || o.pids.is_empty()), o.follow);
    if o.seccomp == Some(true) && !seccomp && launching && !o.follow {
        eprintln!(
            "{}: --seccomp-bpf cannot be enabled because it needs -f",
            crate::strace::prog()
        );
    }
    let seccomp_sets = seccomp.then(|| {
        Arch::native_personalities()
            .iter()
            .map(|&a| {
                let mut nrs = o.trace.numbers(a);
                // Unnamed numbers are always traced (and so must stop).
                nrs.extend(
                    (0..a.table_len() as u32).filter(|&n| a.syscall_name(n as u64).is_none()),
                );
                // --replay-faults counts its syscalls traced or not.
                if let Some(p) = &o.replay {
                    nrs.extend(p.numbers(a));
                    nrs.sort_unstable();
                    nrs.dedup();
                }
                // execve must stop so exec is decoded in order with the rest.
                for n in ["execve", "execveat"] {
                    if let Some(nr) = a.syscall_nr(n) {
                        if o.trace.contains(a, nr as u64) {
                            nrs.push(nr);
                        }
                    }
                }
                (a, nrs)
            })
            .collect()
    });
    let interruptible = match o.interruptible {
        Some(1) => Interruptible::Anywhere,
        Some(3) => Interruptible::NeverFatal,
        Some(4) => Interruptible::Never,
        Some(_) => Interruptible::WaitOnly,
        None if launching && o.output.is_some() => Interruptible::NeverFatal,
        None => Interruptible::WaitOnly,
    };
    let cfg = Config {
        follow_forks: o.follow,
        seccomp_sets,
        syscall_info: !o.regs_only,
        rusage: (o.summary_only || o.summary) && !o.wall_clock,
        interruptible,
        pin_cpu: o.cpu_pin && o.daemonize == 0,
        pin_attached: false,
        syscalls: true,
        exit_kill: o.kill_on_exit,
    };
    let user = match &o.user {
        Some(u) => match lookup_user(u) {
            Some(x) => Some(x),
            None => {
                eprintln!("{}: Cannot find user '{u}'", crate::strace::prog());
                return Ended::Failed(1);
            }
        },
        None => None,
    };
    let pids = o.pids.clone();
    let daemonize = o.daemonize;
    let outfname = o.output.clone();
    let command = o.command.clone();
    let env = o.env.clone();
    let argv0 = o.argv0.clone();
    let mut h = Layered {
        strace: trace::Strace::new(o, sink),
        layer,
    };
    let mut tracer = Tracer::new(cfg);
    for &pid in &pids {
        let before = tracer.live();
        if let Err(e) = tracer.attach(pid, &mut h) {
            let msg = crate::value::text::errno_message(e.raw_os_error().unwrap_or(0) as u64);
            eprintln!(
                "{}: attach: ptrace(PTRACE_SEIZE, {pid}): {msg}",
                crate::strace::prog()
            );
            if e.raw_os_error() == Some(libc::EPERM) {
                eprintln!(
                    "{}: {}",
                    crate::strace::prog(),
                    crate::engine::tracer::eperm_reason(pid)
                );
            }
            if command.is_empty() && pids.len() == 1 {
                return Ended::Failed(1);
            }
        }
        let _ = before;
        h.strace.attached.push(pid);
    }
    if launching {
        let mut args = command.clone();
        if let Some(name) = &argv0 {
            args[0] = name.clone();
        }
        let cmd = spawn::Command {
            program: command[0].clone(),
            args,
            env,
            user,
        };
        let launched = if daemonize > 0 {
            tracer.launch_daemonized(&cmd, daemonize)
        } else {
            tracer.launch(&cmd)
        };
        if let Err(e) = launched {
            let msg = crate::value::text::errno_message(e.raw_os_error().unwrap_or(0) as u64);
            eprintln!(
                "{}: Can't stat '{}': {msg}",
                crate::strace::prog(),
                command[0].to_string_lossy()
            );
            return Ended::Failed(1);
        }
        h.strace.set_nprocs(tracer.live());
        if REDIRECT_STD_FDS.load(std::sync::atomic::Ordering::Relaxed) {
            crate::engine::startup::redirect_standard_fds();
        }
    }
    h.strace.startup_done(tracer.live());
    if let Err(e) = tracer.run(&mut h) {
        eprintln!("{}: wait: {e}", crate::strace::prog());
    }
    if std::env::var_os("RTRACE_STATS").is_some() {
        eprintln!("{}: stats: stops={}", crate::strace::prog(), tracer.stops);
    }
    if let Some(sig) = tracer.interrupted {
        tracer.kill_launched_and_detach(sig, &mut h);
        h.strace.finish();
        report_output_error(&h.strace, outfname.as_deref());
        return Ended::Interrupted(sig);
    }
    if h.strace.limit_reached() && tracer.live() > 0 {
        // --syscall-limit: the tracees run on untraced; like strace 7.2,
        // rstrace then ends with status 0 without waiting for them.
        h.strace.detach_at_limit();
        tracer.detach_all(&mut h);
        h.strace.finish();
        report_output_error(&h.strace, outfname.as_deref());
        return Ended::Done(Outcome::None);
    }
    h.strace.finish();
    report_output_error(&h.strace, outfname.as_deref());
    Ended::Done(tracer.outcome())
}

/// Says once why the trace is incomplete (a full disk, a closed reader), as
/// strace does (`strace: FILE: REASON`; nothing when the trace went to
/// stderr); not with eprintln!, which would panic on a closed stderr.
fn report_output_error(h: &trace::Strace, outfname: Option<&str>) {
    let (Some(e), Some(name)) = (h.output_error(), outfname) else {
        return;
    };
    let msg = crate::value::text::errno_message(e.raw_os_error().unwrap_or(0) as u64);
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!("{}: {name}: {msg}\n", crate::strace::prog()),
    );
}
