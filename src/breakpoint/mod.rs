//! Software breakpoints and return probes (`rtrace break`).
//!
//! End to end: [`cli`] parses specs ([`spec`](crate::probe::spec), conditions in [`cond`](crate::probe::cond));
//! the engine launches or attaches with syscall stops off (`PTRACE_CONT`);
//! at each exec (and at attach) the [`hit::Breaker`] handler resolves the
//! specs in the process's modules ([`resolve`](crate::probe::resolve), through `crate::symbols`)
//! and writes an INT3 at each address ([`space`](crate::probe::space)). A hit is a SIGTRAP
//! signal-delivery stop: the handler reports it ([`report`]), then steps the
//! thread over the displaced instruction without removing the INT3: it
//! *emulates* the common first instructions of functions (endbr64, push,
//! mov %rsp,%rbp, sub/add $imm,%rsp, nops, mov $imm, and every direct or
//! indirect branch), and runs the others *out of line* in a page it maps
//! near the code by injecting `mmap` (relocated by iced-x86, followed by a
//! jump back). So a hit costs one stop, and no thread can pass a breakpoint
//! unseen, as with kernel uprobes.
//!
//! Return probes (`ret:f`) replace the return address at entry with a
//! trampoline (an INT3 in the out-of-line page) and keep a per-thread shadow
//! stack of (original return address, its stack slot, entry time, entry
//! arguments); the trampoline hit reports the return value and duration and
//! resumes at the original address. The entry matching the current stack
//! pointer is taken, so recursion nests and frames skipped by longjmp are
//! dropped.
//!
//! Libraries loaded later are seen through rtrace's own breakpoint on the
//! dynamic linker's `_dl_debug_state` (called after every change of the
//! library list, as gdb uses it). Forked children that are not followed
//! (`-f`) get their copy of every byte restored before they are let go.
//! Every change is undone on detach (Ctrl-C, SIGTERM, end of `-p` tracing):
//! code bytes, hijacked return addresses, threads inside out-of-line slots,
//! the pages.
//!
//! Arguments, locals and variables in conditions come from DWARF
//! (`crate::vars`): at a hit, [`values::HitFrame`] computes the
//! innermost frame (registers, CFA) on first use; the arguments of the
//! function at the pc are read by name and type and printed as gdb's frame
//! line, `func(a=1, s="text", p=0x5555…) at file.c:LINE` (format in
//! [`report`]); `--locals` adds the locals visible there; `if` conditions
//! read variable paths (`n > 5 && p->x == 3`) through
//! [`values::DwarfValues`], i.e. `Vars::lookup_scalar`.
//!
//! Where a function breakpoint goes: at its first instruction, -O0 code
//! has not yet stored its arguments in the stack slots DWARF names (a
//! fixed `DW_OP_fbreg` location, valid over the whole function). So a
//! `func` (or glob) entry probe that reads variables — any probe without
//! `--count`, or one whose condition names a variable — is placed at
//! `Vars::after_prologue`, exactly where gdb 13's `break func` goes (its
//! rules per compilation unit in `crate::vars::prologue`; tests compare
//! with gdb): past the frame setup at -O0, the entry in optimized GCC
//! units, whose location lists describe it. A `--count` probe with no variable
//! keeps the entry, whose common prologue instructions are emulated (the
//! cheapest hit). The post-prologue instruction is usually not one of the
//! emulated forms and runs out of line (tested under 8 threads). A return
//! probe on the same function stays at the entry, where the return
//! address is at the stack pointer; its pending entry is not counted in
//! the depth of the post-prologue hit of the same call. `file:line` and
//! `*ADDR` sites are used as given and print the arguments read at that
//! pc (at an -O0 function's very first address, the slots not yet
//! written, as gdb's `break *ADDR` shows them).
//!
//! Non-goals here: `DW_OP_entry_value` (optimized code past the point
//! where an argument's register is reused prints
//! `<unavailable: entry value>` where gdb searches the call sites),
//! `$argN` at a post-prologue site reads the ABI register as it is there,
//! architectures other than x86-64.

pub mod uprobe;

pub mod cli;
pub mod hit;
pub mod precheck;
pub mod report;
pub mod session;
pub mod values;

use crate::engine::signals::Interruptible;
use crate::engine::{spawn, Config, Outcome, Tracer};
use crate::watchpoint::handler::{Watcher, WatcherOptions};
use rtrace_arch::Arch;
use session::{Session, SharedWriter};
use std::path::PathBuf;

/// The watcher of `--watch`/`--awatch`, reporting to `out`.
fn watcher(o: &cli::Options, out: &SharedWriter) -> Result<Option<Watcher>, String> {
    let Some(kind) = o.watch_kind else {
        return Ok(None);
    };
    let exe = match (o.pids.first(), o.command.first()) {
        (Some(pid), _) => PathBuf::from(format!("/proc/{pid}/exe")),
        (None, Some(prog)) => spawn::resolve(prog)
            .map_err(|e| format!("cannot run '{}': {e}", prog.to_string_lossy()))?,
        (None, None) => return Err("nothing to trace".into()),
    };
    let opts = WatcherOptions {
        kind,
        count_only: o.count,
        bt: o.bt,
        disasm: o.disasm,
        thread_notes: !o.pids.is_empty(),
    };
    let out = out.clone();
    crate::watchpoint::build(&o.watches, opts, &exe, move || Ok(Box::new(out)), o.json).map(Some)
}

/// `rtrace break`, parsed by clap; returns the exit code.
pub fn main(args: cli::BreakArgs) -> i32 {
    let mut o = match args.check() {
        Ok(o) => o,
        Err(e @ cli::Error::Spec(_)) => {
            eprintln!("rtrace break: {e}");
            return e.status();
        }
        Err(e) => {
            eprintln!("rtrace break: {e}");
            eprintln!("Try 'rtrace break --help' for more information.");
            return e.status();
        }
    };
    if Arch::native() != Arch::X86_64 {
        eprintln!("rtrace break: only x86-64 is supported so far");
        return 1;
    }
    let checked = match precheck::check(&o) {
        Ok(found) => {
            for c in &found {
                let pending = matches!(c.found, precheck::Found::Pending(_));
                if o.list {
                    println!("{}", c.line());
                } else if o.describe || pending {
                    eprintln!("rtrace break: {}", c.line());
                }
            }
            if o.list {
                return 0;
            }
            found
        }
        Err(refused) => {
            for r in refused {
                eprintln!("rtrace break: {r}");
            }
            eprintln!(
                "rtrace break: {}",
                match o.pids.first() {
                    Some(p) => format!("not attaching to {p}"),
                    None => format!("not starting {}", o.command[0].to_string_lossy()),
                }
            );
            return 2;
        }
    };
    let latch = crate::output::latch::WriteLatch::default();
    let out: Box<dyn std::io::Write> = match &o.output {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => latch.wrap(Box::new(crate::output::paced::Paced::new(f))),
            Err(e) => {
                eprintln!("rtrace break: {}: {e}", path.to_string_lossy());
                return 1;
            }
        },
        None => Box::new(std::io::LineWriter::new(std::io::stderr())),
    };
    match uprobe::choose(&o, &checked) {
        Some(Err(e)) => {
            eprintln!("rtrace break: {e}");
            return 1;
        }
        Some(Ok(())) => {
            let mut sink = report::Sink::new(out, o.json);
            let code = match uprobe::run(&o, &checked, &mut sink) {
                Ok(code) => code,
                Err(e) => {
                    eprintln!("rtrace break: {e}");
                    1
                }
            };
            sink.flush();
            latch.report("rtrace break");
            return code;
        }
        None => {}
    }
    let out = SharedWriter::new(out);
    let wp = match watcher(&o, &out) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("rtrace break: {e}");
            return 1;
        }
    };
    let sink = report::Sink::new(Box::new(out), o.json);
    let cfg = Config {
        // Children are always seen, so an unfollowed one can be cleaned.
        follow_forks: true,
        seccomp_sets: None,
        syscall_info: true,
        rusage: false,
        interruptible: Interruptible::WaitOnly,
        pin_cpu: o.cpu_pin,
        pin_attached: o.cpu_pin,
        syscalls: false,
        exit_kill: false,
    };
    let pids = o.pids.clone();
    let command = o.command.clone();
    let mut h = Session {
        bp: hit::Breaker::new(&mut o, sink),
        wp,
    };
    let mut tracer = Tracer::new(cfg);
    for &pid in &pids {
        if let Some(wp) = &mut h.wp {
            if let Err(e) = wp.start(pid) {
                eprintln!("rtrace break: {e}");
                return 1;
            }
        }
        if let Err(e) = tracer.attach(pid, &mut h) {
            eprintln!("rtrace break: attach to {pid}: {e}");
            if e.raw_os_error() == Some(libc::EPERM) {
                eprintln!("rtrace break: {}", crate::engine::tracer::eperm_reason(pid));
            }
            tracer.detach_all(&mut h);
            return 1;
        }
        let tids = crate::engine::tracer::list_threads(pid);
        h.bp.start_process(pid, &tids);
        eprintln!(
            "rtrace break: Process {pid} attached, {} breakpoint(s) placed",
            h.bp.sites_in(pid)
        );
    }
    if !command.is_empty() {
        let cmd = spawn::Command {
            program: command[0].clone(),
            args: command.clone(),
            env: Vec::new(),
            user: None,
        };
        match tracer.launch(&cmd) {
            Ok(pid) => {
                if let Some(wp) = &mut h.wp {
                    wp.launched = Some(pid);
                }
            }
            Err(e) => {
                eprintln!("rtrace break: {}: {e}", command[0].to_string_lossy());
                return 1;
            }
        }
    }
    if !pids.is_empty() && !h.bp.any_placed() {
        let specs: Vec<String> =
            h.bp.unplaced()
                .into_iter()
                .map(|(s, why)| match why {
                    Some(w) => format!("{s}: {w}"),
                    None => s.to_string(),
                })
                .collect();
        eprintln!(
            "rtrace break: no breakpoint could be placed ({})",
            specs.join(", ")
        );
        tracer.detach_all(&mut h);
        return 1;
    }
    let res = tracer.run(&mut h);
    if let Err(e) = &res {
        eprintln!("rtrace break: wait: {e}");
    }
    let code = if let Some(sig) = tracer.interrupted {
        tracer.kill_launched_and_detach(sig, &mut h);
        for pid in &pids {
            eprintln!("rtrace break: Process {pid} detached");
        }
        // Launched or attached (-p): 128+N, as strace -p.
        crate::engine::signals::interrupted_status(sig)
    } else if res.is_err() {
        tracer.detach_all(&mut h);
        1
    } else {
        match tracer.outcome() {
            Outcome::Exited(c) => c,
            Outcome::Killed(sig, _) => 128 + sig,
            Outcome::None => 0,
        }
    };
    for (s, why) in h.bp.unplaced() {
        match why {
            Some(w) => eprintln!("rtrace break: '{s}' matched nothing ({w})"),
            None => eprintln!("rtrace break: '{s}' matched nothing"),
        }
    }
    for w in h.bp.symbol_warnings() {
        eprintln!("rtrace break: warning: {w}; tracing went on without it");
    }
    h.bp.finish();
    if let Some(wp) = &mut h.wp {
        wp.finish();
    }
    latch.report("rtrace break");
    if let Some(wp) = &mut h.wp {
        if wp.fatal.is_some() && code == 0 {
            return 1;
        }
    }
    code
}
