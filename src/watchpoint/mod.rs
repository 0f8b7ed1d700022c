//! Hardware watchpoints: `rtrace watch EXPR|*ADDR[:LEN] [if COND] [--rw|--write|--exec]
//! [--count] [--bt] [--json] [-o FILE] [-p PID | -- CMD…]`.
//!
//! Scope: up to four watched ranges (the x86 debug address registers
//! DR0–DR3) of 1, 2, 4 or 8 aligned bytes, or fewer ranges of other
//! lengths split into aligned pieces over several registers (a 32-byte
//! array takes all four), trapping on writes, on reads and
//! writes, or on execution, in every thread of one process, including
//! threads created later. Per hit: thread, watch, old and new value, the
//! accessing instruction (address, `func+off (file:line)`, disassembly) and
//! optionally a backtrace; `--count` prints only a table of hits at exit.
//!
//! End to end: [`cli::parse`] -> expressions resolved to [`handler::Target`]s
//! (symbols from the executable's ELF symbol table, before anything runs) ->
//! slot plan ([`spec::plan`], errors for a fifth watch or a misaligned
//! range) -> the engine runs the command (or attaches) with
//! `Config::syscalls = false`, so tracees stop only for signals and
//! clone/exec events -> [`handler::Watcher`] arms each thread
//! ([`hwregs::DebugRegs`], encodings from `rtrace_arch::x86_debugreg`),
//! reports traps ([`report::Report`]) and disarms every thread before it is
//! detached.
//!
//! Where the accessing instruction is found: data watchpoints trap *after*
//! the instruction, so the pc is the next instruction's. The instruction
//! ending at the pc is found by decoding forward from the start of the pc's
//! function (exact for compiled code); without a function start, by
//! decoding backward and keeping the single candidate whose memory operand
//! covers the watched range. Execute watchpoints trap *before* the
//! instruction: the pc is the watched address itself.
//!
//! Values: integers of the watched length by default; where DWARF describes
//! the variable, by its type (signed integers, enums, floats, pointers),
//! through a [`value::ValueFormatter`]. `var.field`, `var[N]` are placed by
//! DWARF ([`crate::vars`]) once the program is mapped.
//!
//! Conditions: `EXPR if COND` ([`spec::Spec`]) reports a hit only when
//! `COND` ([`crate::probe::cond`], the language of `rtrace break`) holds
//! after the access, its variables read in the global scope
//! ([`condition::GlobalValues`]), as gdb's `watch x if x > 5`.
//!
//! Globals of shared libraries: a name the executable does not define is
//! looked for in the libraries it loads at start-up, once the dynamic
//! linker has loaded them (launched: at the program's entry point, see
//! [`handler`]; attached: at once).
//!
//! Locals: `func:var` is watched in each activation of `func`, from its
//! entry until it returns ([`local`]).
//!
//! Non-goals (for now): watches in libraries loaded later (dlopen),
//! `lib:var` spelling, members of library globals, following
//! forked children, aarch64 (`NT_ARM_HW_WATCH`).

pub mod cli;
pub mod condition;
mod elfsym;
pub mod handler;
pub mod hwregs;
pub mod local;
pub mod report;
pub mod resolve;
pub mod spec;
pub mod value;

use crate::engine::signals::Interruptible;
use crate::engine::{spawn, Config, Outcome, Tracer};
use handler::{Target, Watcher, WatcherOptions};
use resolve::SymbolSource;
use rtrace_arch::x86_debugreg::Kind;
use spec::{Expr, Spec};
use std::io::Write;
use std::path::{Path, PathBuf};

fn error(msg: &str) -> i32 {
    eprintln!("rtrace watch: {msg}");
    1
}

/// Resolves one expression in the executable `exe`.
fn target(
    expr: &Expr,
    kind: Kind,
    exe: &Path,
    symbols: &mut dyn SymbolSource,
) -> Result<Target, String> {
    match expr {
        Expr::Addr { addr, len } => {
            let len = len.unwrap_or(if kind == Kind::Exec { 1 } else { 8 });
            Ok(Target::Fixed(*addr, len))
        }
        Expr::Symbol(name) => {
            let sym = match symbols.find(exe, name, kind == Kind::Exec) {
                Ok(sym) => sym,
                // Not the executable's: a library's, placed once loaded.
                Err(_) if kind != Kind::Exec && symbols.may_be_in_library(exe, name) => {
                    return Ok(Target::Shared(exe.to_path_buf(), name.clone()))
                }
                Err(e) => return Err(e),
            };
            let len = match kind {
                Kind::Exec => 1,
                _ if sym.size == 0 => {
                    return Err(format!(
                        "'{name}' has no size in the symbol table: use *ADDR:LEN"
                    ))
                }
                // Other than 1, 2, 4 or 8 bytes: several slots (spec::plan).
                _ => sym.size,
            };
            Ok(Target::Symbol(sym, len))
        }
        Expr::Local { func, var } => {
            if kind == Kind::Exec {
                return Err(format!(
                    "cannot watch the local {expr} for execution: give a function name or *ADDR"
                ));
            }
            let sym = symbols.find(exe, func, true)?;
            Ok(Target::Local(sym, var.clone()))
        }
        Expr::Path { var, text } => {
            if kind == Kind::Exec {
                return Err(format!(
                    "cannot watch {text} for execution: give a function name or *ADDR"
                ));
            }
            // The variable must exist now; its part is placed and typed by
            // DWARF once the program is mapped.
            symbols.find(exe, var, false)?;
            Ok(Target::Dwarf(exe.to_path_buf(), text.clone()))
        }
    }
}

/// Resolves `exprs` in the executable `exe` and checks the slot plan
/// (count, lengths, alignment) before anything runs; the watcher reports
/// to the stream `out` opens once all is checked. Errors are messages for
/// the user.
pub fn build(
    specs: &[Spec],
    opts: WatcherOptions,
    exe: &Path,
    out: impl FnOnce() -> Result<Box<dyn Write>, String>,
    json: bool,
) -> Result<Watcher, String> {
    spec::check_count(specs.len()).map_err(|e| e.to_string())?;
    let mut symbols = elfsym::source();
    if opts.bt.is_some() && !symbols.can_backtrace() {
        return Err("--bt needs the DWARF unwinder, which this build does not have yet".into());
    }
    let mut resolved = Vec::new();
    if let Some(s) = specs.iter().find(|s| matches!(s.expr, Expr::Local { .. })) {
        if specs.len() > 1 {
            return Err(format!(
                "the local {} is watched alone: give no other EXPR with it",
                s.expr
            ));
        }
    }
    for s in specs {
        if s.cond.is_some() && opts.kind == Kind::Exec {
            return Err(format!(
                "cannot watch {} for execution with a condition: use 'rtrace break {} if ...'",
                s.expr, s.expr
            ));
        }
        resolved.push((
            s.clone(),
            target(&s.expr, opts.kind, exe, symbols.as_mut())?,
        ));
    }
    // Check lengths and alignment now, before anything runs (a load bias is
    // page-aligned, so a symbol's file address has its runtime alignment).
    let provisional: Vec<(Expr, u64, u64)> = resolved
        .iter()
        .map(|(s, t)| match t {
            Target::Fixed(a, l) => (s.expr.clone(), *a, *l),
            Target::Symbol(sym, l) => (s.expr.clone(), sym.vaddr, *l),
            // Placed at run time; checked then.
            Target::Dwarf(..) | Target::Shared(..) | Target::Local(..) => (s.expr.clone(), 0, 1),
        })
        .collect();
    let plan = spec::plan(&provisional, opts.kind).map_err(|e| e.to_string())?;
    hwregs::DebugRegs::native(&plan)?;
    let report = report::Report::new(out()?, json);
    Ok(Watcher::new(resolved, opts, symbols, report))
}

/// Runs `rtrace watch`, parsed by clap; returns the exit code.
pub fn main(args: cli::WatchArgs) -> i32 {
    let o = match args.check() {
        Ok(o) => o,
        Err(e) => {
            error(&format!("{e}\nTry 'rtrace watch -h' for more information."));
            return 2;
        }
    };
    if let Err(e) = spec::check_count(o.specs.len()) {
        return error(&e.to_string());
    }
    // The executable whose symbols name the watches.
    let exe: PathBuf = match (o.pid, o.command.first()) {
        (Some(pid), _) => match std::fs::read_link(format!("/proc/{pid}/exe")) {
            Ok(_) => PathBuf::from(format!("/proc/{pid}/exe")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return error(&format!("attach to {pid}: No such process"));
            }
            Err(e) => return error(&format!("attach to {pid}: {e}")),
        },
        (None, Some(prog)) => match spawn::resolve(prog) {
            Ok(p) => p,
            Err(e) => {
                return error(&format!("cannot run '{}': {e}", prog.to_string_lossy()));
            }
        },
        (None, None) => return error("nothing to trace"),
    };
    let latch = crate::output::latch::WriteLatch::default();
    let out = || -> Result<Box<dyn Write>, String> {
        Ok(match &o.output {
            Some(path) => match std::fs::File::create(path) {
                Ok(f) => latch.wrap(Box::new(crate::output::paced::Paced::new(f))),
                Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
            },
            None => Box::new(std::io::stderr()),
        })
    };
    let opts = WatcherOptions {
        kind: o.kind,
        count_only: o.count,
        bt: o.bt,
        disasm: o.disasm,
        thread_notes: o.pid.is_some(),
    };
    let mut h = match build(&o.specs, opts, &exe, out, o.json) {
        Ok(h) => h,
        Err(e) => return error(&e),
    };
    let cfg = Config {
        // Clone events, so new threads are armed before they run.
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
    let mut tracer = Tracer::new(cfg);
    if let Some(pid) = o.pid {
        if let Err(e) = h.start(pid) {
            return error(&e);
        }
        if let Err(e) = tracer.attach(pid, &mut h) {
            let mut msg = format!("cannot attach to process {pid}: {e}");
            if e.raw_os_error() == Some(libc::EPERM) {
                msg.push_str(&format!(" ({})", crate::engine::tracer::eperm_reason(pid)));
            }
            tracer.detach_all(&mut h);
            return error(&msg);
        }
    } else {
        let cmd = spawn::Command {
            program: o.command[0].clone(),
            args: o.command.clone(),
            env: Vec::new(),
            user: None,
        };
        match tracer.launch(&cmd) {
            Ok(pid) => h.launched = Some(pid),
            Err(e) => {
                return error(&format!(
                    "cannot run '{}': {e}",
                    o.command[0].to_string_lossy()
                ))
            }
        }
    }
    let run = tracer.run(&mut h);
    if let Some(sig) = tracer.interrupted {
        // Attached threads are disarmed one by one as they are detached
        // (Watcher::detaching); a launched command is killed.
        tracer.kill_launched_and_detach(sig, &mut h);
        h.finish();
        latch.report("rtrace watch");
        return crate::engine::signals::interrupted_status(sig);
    }
    if let Err(e) = run {
        tracer.kill_launched_and_detach(libc::SIGKILL, &mut h);
        h.finish();
        latch.report("rtrace watch");
        return error(&format!("wait: {e}"));
    }
    h.finish();
    latch.report("rtrace watch");
    if h.fatal.is_some() {
        return 1;
    }
    match tracer.outcome() {
        Outcome::Exited(c) => c,
        Outcome::Killed(sig, _) => 128 + sig,
        Outcome::None => 0,
    }
}
