//! `rltrace`: ltrace-compatible library-call tracing that works on today's
//! binaries (`-z now`, `.plt.sec`/IBT, `-fno-plt`, dlopen, threads).
//!
//! End to end: [`cli`] parses ltrace's options; the engine launches or
//! attaches with syscall stops off (`PTRACE_CONT`), or on for `-S`. At
//! each exec (and at attach) [`trace::Ltrace`] resolves where calls can be
//! caught in every module ([`imports`](crate::probe::imports), [`sites`]): the PLT stubs of the
//! calling modules (`.plt`, `.plt.sec`, `.plt.got`, decoded by
//! `crate::symbols`), and, for calls made through the GOT with no stub
//! (`-fno-plt`), the called functions' entries, read from the GOT once the
//! dynamic linker has filled it and keyed on the calling module by the
//! return address. Breakpoints are `crate::probe::space`'s one-stop
//! INT3s (emulated or out-of-line first instruction); returns come through
//! a trampoline that replaces the return address, with a per-thread shadow
//! stack. Libraries loaded later are seen through `_dl_debug_state`.
//! Arguments are read through [`args`] (registers by the arch crate) and
//! formatted by [`format`] from [`proto`] prototypes; which calls are
//! traced is [`filter`]'s ltrace filter language. [`output`] writes
//! ltrace's lines and `-c` table; [`syscalls`] renders `-S`.
//!
//! Backends: the above is the ptrace backend. [`uprobe`] catches the main
//! program's PLT calls with uprobes instead (no switch to rltrace per
//! call) and prints through the same formatter and writer; `--backend
//! auto` (the default) takes it when [`uprobe::plan`] finds that it prints
//! exactly what the ptrace backend would ([`uprobe::fit`] plans the probes).
//!
//! Semantics kept from ltrace 0.7.3: without `-e`/`-l` only calls made by
//! the main program are traced and printed without the caller; with `-e`
//! the library part of a rule names the *calling* module (`@MAIN`,
//! `@libc.so*`) and lines read `caller->func(...)`; `-l LIB` traces calls
//! (from any other module) to functions LIB exports; `-x` breaks at
//! function entries (`func@lib(...)`).
//!
//! Non-goals and gaps: architectures other than x86-64; a call through a
//! function pointer taken from a module that also has a PLT stub for the
//! same function is not seen (ltrace does not see it either); C++
//! exceptions unwinding through a call rltrace is waiting on find the
//! trampoline's address on the stack (as with ltrace); `dlsym(RTLD_NEXT)`
//! from inside a traced call sees the trampoline as its caller.

pub mod uprobe;

pub mod args;
pub mod cli;
pub mod filter;
pub mod format;
pub mod inject;
pub mod linkmap;
pub mod man;
pub mod msg;
pub mod output;
pub mod proto;
pub mod sites;
pub mod syscalls;
pub mod trace;

use crate::engine::signals::Interruptible;
use crate::engine::{spawn, Config, Outcome, Tracer};
pub use crate::strace::Ended;
use cli::CliError;
use rtrace_arch::Arch;
use std::ffi::OsString;

fn lookup_user(name: &str) -> Option<(u32, u32, Vec<u32>)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() > 3 && f[0] == name {
            let gid = f[3].parse().ok()?;
            Some((f[2].parse().ok()?, gid, vec![gid]))
        } else {
            None
        }
    })
}

fn usage(msg: &str) -> i32 {
    eprintln!("rltrace: {msg}");
    eprintln!("Try `rltrace --help' for more information.");
    1
}

/// `rltrace ARGS…` (also `rtrace ltrace ARGS…`); returns the exit code.
pub fn main(args: &[OsString]) -> i32 {
    let o = match cli::parse(args) {
        Ok(o) => o,
        Err(CliError::Usage(m)) => return usage(&m),
        Err(CliError::Value(m)) => {
            eprintln!("{m}");
            return 1;
        }
        Err(CliError::DebugHelp) => {
            print!("{}", cli::DEBUG_HELP);
            return 0;
        }
    };
    if o.help {
        print!("{}", cli::HELP);
        return 0;
    }
    if o.version {
        println!("rltrace (rtrace) {}", env!("CARGO_PKG_VERSION"));
        println!("ltrace 0.7.3 compatible command line and output.");
        return 0;
    }
    let lock = ExeLock::open(&o);
    let ended = match o.backend {
        crate::probe::Backend::Ptrace => {
            uprobe::say_backend(&o, Err("--backend ptrace"));
            lock.shared();
            trace(&o, None)
        }
        crate::probe::Backend::Kernel => match uprobe::plan(&o, false, false) {
            Ok(p) => {
                uprobe::say_backend(&o, Ok(&p));
                lock.exclusive();
                uprobe::run(&o, p)
            }
            Err(e) => {
                eprintln!("rltrace: {e}");
                return 1;
            }
        },
        crate::probe::Backend::Auto => match uprobe::plan(&o, true, false) {
            Ok(p) if lock.try_exclusive() => {
                uprobe::say_backend(&o, Ok(&p));
                uprobe::run(&o, p)
            }
            Ok(_) => {
                uprobe::say_backend(
                    &o,
                    Err(
                        "another rltrace is tracing the program (its breakpoints and \
                         uprobes would meet)",
                    ),
                );
                lock.shared();
                trace(&o, None)
            }
            Err(e) => {
                uprobe::say_backend(&o, Err(&e));
                lock.shared();
                trace(&o, None)
            }
        },
    };
    match ended {
        Ended::Failed(c) => c,
        // Launched or attached (-p): 128+N, as strace -p.
        Ended::Interrupted(sig) => crate::engine::signals::interrupted_status(sig),
        Ended::Done(Outcome::Exited(c)) => c,
        Ended::Done(Outcome::Killed(sig, _)) => 128 + sig,
        Ended::Done(Outcome::None) => 0,
    }
}

/// `-w`'s name for the launched program's frames (see
/// [`trace::HandlerOpts::main_name`]): none when attaching.
fn launched_name(o: &cli::Options) -> Option<(String, String)> {
    if o.command.is_empty() || !o.pids.is_empty() {
        return None;
    }
    let found = spawn::resolve(&o.command[0]).ok()?;
    let real = std::fs::canonicalize(&found).ok()?;
    Some((
        real.to_string_lossy().into_owned(),
        found.to_string_lossy().into_owned(),
    ))
}

/// A lock on the launched program's file between rltrace runs: uprobes
/// belong to a file and trap in every process that maps it, where a
/// ptrace-backend rltrace would find them under its own breakpoints. A
/// kernel-backend run holds it exclusively, a ptrace-backend run shared;
/// `auto` takes the kernel backend only when it gets the lock at once.
struct ExeLock {
    file: Option<std::fs::File>,
}

impl ExeLock {
    fn open(o: &cli::Options) -> ExeLock {
        let file = if o.command.is_empty() || !o.pids.is_empty() {
            None
        } else {
            spawn::resolve(&o.command[0])
                .ok()
                .and_then(|p| std::fs::File::open(p).ok())
        };
        ExeLock { file }
    }

    fn wait(&self, exclusive: bool) {
        let Some(f) = &self.file else { return };
        if !crate::kernel::session::flock(f, exclusive, false) {
            eprintln!(
                "rltrace: waiting for {}",
                if exclusive {
                    "the other rltrace runs on this program to end (their breakpoints and \
                     uprobes would meet)"
                } else {
                    "the rltrace that traces this program with uprobes to end"
                }
            );
            crate::kernel::session::flock(f, exclusive, true);
        }
    }

    fn shared(&self) {
        self.wait(false);
    }

    fn exclusive(&self) {
        self.wait(true);
    }

    fn try_exclusive(&self) -> bool {
        self.file
            .as_ref()
            .is_none_or(|f| crate::kernel::session::flock(f, true, false))
    }
}

/// Traces per `o` (a parsed command line) into `w`, or, when `w` is
/// `None`, into `o.output` or stderr as rltrace does. `rtrace record
/// --libcalls` calls this with its trace file's writer.
pub fn trace(o: &cli::Options, w: Option<Box<dyn std::io::Write>>) -> Ended {
    if Arch::native() != Arch::X86_64 {
        eprintln!("rltrace: only x86-64 is supported so far");
        return Ended::Failed(1);
    }
    if o.json && o.count {
        return Ended::Failed(usage("--json and -c cannot be used together"));
    }
    let inject = match inject::Injector::parse(&o.injects) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("rltrace: {e}");
            return Ended::Failed(1);
        }
    };
    let plt = if o.no_plt {
        None
    } else if o.e_filters.is_empty() {
        (o.libs.is_empty()).then(filter::Filter::default_filter)
    } else {
        match filter::Filter::parse(&o.e_filters) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("rltrace: {e}");
                return Ended::Failed(1);
            }
        }
    };
    let x = if o.x_filters.is_empty() {
        None
    } else {
        match filter::Filter::parse_x(&o.x_filters) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("rltrace: {e}");
                return Ended::Failed(1);
            }
        }
    };
    // As ltrace: bad lines are reported (`FILE:LINE: error: …`, in the
    // trace output, below) and skipped, the rest is used; an unreadable
    // file is reported too.
    let (protos, errors) = uprobe::load_protos(o);
    let user = match &o.user {
        None => None,
        Some(u) => match lookup_user(u) {
            Some(x) => Some(x),
            None => {
                eprintln!("rltrace: cannot find user '{u}'");
                return Ended::Failed(1);
            }
        },
    };
    let to_file = o.output.is_some();
    // rltrace's own output starts with the schema line; a recording's
    // header says it for the trace file.
    let own = w.is_none();
    let mut w: Box<dyn std::io::Write> = match (w, &o.output) {
        (Some(w), _) => w,
        (None, Some(path)) => match std::fs::File::create(path) {
            Ok(f) => Box::new(crate::output::paced::Paced::new(f)),
            Err(e) => {
                eprintln!("can't open {} for writing: {e}", path.display());
                return Ended::Failed(1);
            }
        },
        (None, None) => Box::new(std::io::LineWriter::new(std::io::stderr())),
    };
    if o.json && own {
        let line = crate::value::json_shape::schema_line("rltrace");
        let _ = w.write_all(line.as_bytes());
    }
    uprobe::report_proto_errors(&errors, o.json, &mut w);
    let lead = output::LeaderOpts {
        pid_prefix: o.follow || (to_file && !o.pids.is_empty()),
        to_file,
        relative: o.relative,
        time: o.time,
        ip: o.ip,
        indent: o.indent,
        align: o.align,
        time_in_call: o.time_in_call,
    };
    let out = output::Out::new(w, lead);
    let hopts = trace::HandlerOpts {
        sel: sites::Selection {
            plt,
            libs: o.libs.clone(),
            x,
            only: None,
        },
        hide_caller: o.e_filters.is_empty() && o.libs.is_empty(),
        follow: o.follow,
        count: o.count,
        no_signals: o.no_signals,
        where_depth: o.where_depth,
        main_name: launched_name(o),
        debug: o.debug,
        fmt: format::FormatOpts {
            string_len: o.string_len,
            demangle: o.demangle,
        },
        array_len: o.max_elts.unwrap_or(format::DEFAULT_ARRAY_LEN),
        json: o.json,
    };
    let sys = o
        .syscalls
        .then(|| syscalls::Syscalls::new(protos.clone(), hopts.fmt, hopts.array_len, o.ip, o.json));
    let mut h = trace::Ltrace::new(hopts, protos, out, sys, inject);
    // Every traced call is two round trips between the program and
    // rltrace: on one CPU each is a context switch, across CPUs a wake-up
    // of an idle CPU, which costs several times more. The engine keeps the
    // pinning invisible (with -S at the syscall stops, else with a filter
    // that stops only the affinity calls; see `crate::engine::affinity`).
    let pin = !o.no_cpu_pin;
    let cfg = Config {
        // Children are always seen, so an unfollowed one can be cleaned.
        follow_forks: true,
        seccomp_sets: None,
        syscall_info: true,
        rusage: false,
        // As strace: with `-o FILE CMD`, Ctrl-C reaches only the command.
        interruptible: if to_file && o.pids.is_empty() {
            Interruptible::NeverFatal
        } else {
            Interruptible::WaitOnly
        },
        pin_cpu: pin,
        pin_attached: pin,
        syscalls: o.syscalls,
        exit_kill: false,
    };
    run(o, cfg, &mut h, user)
}

fn run(
    o: &cli::Options,
    cfg: Config,
    h: &mut trace::Ltrace,
    user: Option<(u32, u32, Vec<u32>)>,
) -> Ended {
    let mut tracer = Tracer::new(cfg);
    for &pid in &o.pids {
        if let Err(e) = tracer.attach(pid, h) {
            eprintln!("rltrace: attach to {pid}: {e}");
            if e.raw_os_error() == Some(libc::EPERM) {
                eprintln!("rltrace: {}", crate::engine::tracer::eperm_reason(pid));
            }
            tracer.detach_all(h);
            return Ended::Failed(1);
        }
        let tids = crate::engine::tracer::list_threads(pid);
        h.start_process(pid, &tids, true);
        if o.debug != 0 {
            eprintln!(
                "rltrace: process {pid} attached, {} call site(s)",
                h.sites_in(pid)
            );
        }
    }
    if !o.command.is_empty() {
        let cmd = spawn::Command {
            program: o.command[0].clone(),
            args: o.command.clone(),
            env: Vec::new(),
            user,
        };
        if let Err(e) = tracer.launch(&cmd) {
            eprintln!("rltrace: {}: {e}", o.command[0].to_string_lossy());
            tracer.detach_all(h);
            return Ended::Failed(1);
        }
    }
    let res = tracer.run(h);
    if let Err(e) = &res {
        eprintln!("rltrace: wait: {e}");
    }
    let end = if let Some(sig) = tracer.interrupted {
        tracer.kill_launched_and_detach(sig, h);
        Ended::Interrupted(sig)
    } else if res.is_err() {
        tracer.detach_all(h);
        Ended::Failed(1)
    } else {
        Ended::Done(tracer.outcome())
    };
    h.finish();
    if let Some(e) = &h.out.error {
        // Not eprintln!: with the trace on a closed stderr it would panic.
        let _ = std::io::Write::write_fmt(
            &mut std::io::stderr(),
            format_args!("rltrace: write error: {e}\n"),
        );
    }
    end
}
