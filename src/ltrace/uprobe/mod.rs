//! rltrace's kernel backend: library calls seen by uprobes instead of
//! ptrace breakpoints, for normal output and `-c`, printed exactly as the
//! ptrace backend prints them.
//!
//! Each selected PLT stub of the program (planned by [`crate::ltrace::uprobe::plan`])
//! gets an entry uprobe fetching what the function's prototype needs (the
//! stack pointer, the integer argument registers `%di %si %dx %cx %r8 %r9`,
//! stack slots after them, and `+0(%reg):ustring` for string arguments)
//! and a return uprobe (uretprobe) fetching the stack pointer, `$retval`
//! and, for a string result, `+0($retval):ustring`. The events are in
//! rtrace's dynamic-event group and recorded in a private tracefs instance
//! (clock `mono`, pid filter on the traced process's threads only), read
//! from its per-CPU ring buffers by a consumer thread ([`stream`]) that
//! pairs entries and returns per thread with a shadow stack as the ptrace
//! backend does (recursion; a return whose entry is not on top pops those
//! above it, left by longjmp) and feeds the same formatter and writer. A
//! hit is a trap into the kernel and no switch to rltrace.
//!
//! The process lifecycle (`--- SIGxxx ---`, `+++ exited +++`, threads,
//! exec) still comes from the ptrace engine, attached with no syscall stops
//! and no breakpoints; each lifecycle stop is stamped with the same clock
//! and merged into the event stream, so per-thread order holds. New threads
//! are added to the instance's pid filter while they are stopped at their
//! first ptrace stop, before they run; forked children are not (the ptrace
//! backend does not trace them without `-f`) and are let go.
//!
//! [`plan`] decides whether the backend reproduces what the ptrace backend
//! prints: the options (`-p`, `-f`, `-l`, `-x`, `-L`, `-S`, `-u`, `-i`,
//! `-w`, `--inject`, `--json` and `-s` of 4000 or more need ptrace), the
//! program (see [`crate::ltrace::uprobe::plan`]), and, for `auto` only, a program that
//! imports an exec function (the new program's calls would be missed).
//! `auto` falls back to ptrace with the reason under `-D 1`; `--backend
//! kernel` refuses with it. A selected function whose prototype needs more
//! than uprobes fetch (they fetch integer, enum, bool, char, hex,
//! void-pointer and string arguments, at most 6 in registers plus 6 stack
//! slots, and an integer, pointer or string result; a printf-style format
//! only as [`printf`] describes; not floats, structs, arrays or
//! out-parameters) gets a ptrace INT3
//! breakpoint instead ([`both`]): its calls are formatted from the stopped
//! thread and merged into the same stream, so only those calls cost a
//! ptrace stop.
//!
//! Events lost to a full ring buffer (8 MiB per CPU; the environment
//! variable `RLTRACE_BUFFER_KB` sets another size) are reported on stderr
//! with their count. The group and the instance are removed on every way out; a fatal
//! signal to rltrace is handled by the engine as in the ptrace backend.
//!
//! Gaps: strings are copied by the kernel up to 4 KiB per string and an
//! event larger than a ring-buffer page is dropped by the kernel without a
//! trace; the kernel follows at most 64 nested returns per thread
//! (deeper ones are shown as unfinished); a program that execs another
//! one under `--backend kernel` has only its own calls traced (warned).

pub mod fit;

mod both;
mod life;
mod printf;
mod stream;

pub use crate::ltrace::msg::{Msg, Shown};

use crate::engine::signals::Interruptible;
use crate::engine::{spawn, Config, Tracer};
use crate::kernel::dynevent::DynGroup;
use crate::kernel::ringbuf::RawReader;
use crate::kernel::tracefs::{group_name, instance_name, Instance, Tracefs};
use crate::ltrace::cli::{self, Options};
use crate::ltrace::filter::Filter;
use crate::ltrace::output::{LeaderOpts, Out};
use crate::ltrace::proto::{Expr, Lens, Proto, Protos, Type};
use crate::ltrace::uprobe::fit::refuse;
use crate::ltrace::uprobe::life::LifeHandler;
use crate::ltrace::uprobe::stream::{FuncSpec, Stream, StreamOpts};
use crate::strace::Ended;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::mpsc::channel;

/// Functions that return twice: no return probe (as the ptrace backend
/// does not follow their return either).
const RETURNS_TWICE: &[&str] = &[
    "_setjmp",
    "setjmp",
    "__sigsetjmp",
    "sigsetjmp",
    "getcontext",
];
/// Integer arguments beyond the registers fetched from the stack.
pub(crate) const MAX_STACK_ARGS: usize = 6;
/// Functions that replace the program: under `auto`, their presence keeps
/// ptrace (which follows the new program).
const EXECS: &[&str] = &[
    "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "fexecve", "execveat",
];
/// Per-CPU ring buffer size (KiB); `RLTRACE_BUFFER_KB` overrides it.
const BUFFER_KB: u32 = 8192;

/// What the kernel backend runs.
pub struct KPlan {
    exe: PathBuf,
    funcs: Vec<(u64, FuncSpec)>,
    /// Functions the kernel cannot show (name, why): ptrace breakpoints.
    by_ptrace: Vec<(String, String)>,
    filter: Filter,
    /// Problems in `-F` files, reported when the run starts.
    proto_errors: Vec<String>,
}

impl KPlan {
    /// One line for `-D 1`.
    pub fn describe(&self) -> String {
        let mut d = format!(
            "uprobes on {} PLT stub(s) of {}",
            self.funcs.len(),
            self.exe.display()
        );
        if !self.by_ptrace.is_empty() {
            let why: Vec<&str> = self.by_ptrace.iter().map(|(_, w)| w.as_str()).collect();
            d.push_str(&format!(
                "; ptrace breakpoints on {} ({})",
                self.by_ptrace.len(),
                why.join("; ")
            ));
        }
        d
    }
}

/// How an argument is fetched, or `None` when the formatter would need
/// more than the kernel fetches (memory other than a string, floats).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fetch {
    Word,
    Str,
}

fn int_like(t: &Type) -> bool {
    matches!(
        t,
        Type::Void
            | Type::Char
            | Type::Short
            | Type::UShort
            | Type::Int
            | Type::UInt
            | Type::Long
            | Type::ULong
    )
}

pub(crate) fn fetch_of(t: &Type) -> Option<Fetch> {
    match t {
        t if int_like(t) => Some(Fetch::Word),
        Type::Pointer(inner) if matches!(**inner, Type::Void) => Some(Fetch::Word),
        Type::Lens(Lens::Str, inner) => match &**inner {
            Type::Pointer(p) => match &**p {
                Type::Char => Some(Fetch::Str),
                Type::Array(el, Expr::Zero(_)) if matches!(**el, Type::Char) => Some(Fetch::Str),
                _ => None,
            },
            _ => None,
        },
        Type::Lens(Lens::Oct | Lens::Hex | Lens::Bool | Lens::Guess, inner)
            if int_like(inner) || matches!(**inner, Type::Pointer(_)) =>
        {
            Some(Fetch::Word)
        }
        Type::Lens(Lens::Enum(_) | Lens::Bitvec, inner) if int_like(inner) => Some(Fetch::Word),
        Type::Lens(Lens::Hide, inner) => fetch_of(inner).map(|_| Fetch::Word),
        _ => None,
    }
}

fn type_problem(t: &Type) -> &'static str {
    match t {
        Type::Float | Type::Double => "a floating-point value",
        Type::Format => "a printf-style format (its arguments depend on it)",
        Type::Struct(_) | Type::Named(_) => "a struct",
        Type::Array(..) => "an array",
        Type::Pointer(_) => "a pointer whose target is shown",
        Type::Lens(_, inner) if !matches!(type_problem(inner), "") => type_problem(inner),
        _ => "a value shown from memory",
    }
}

/// What function `name` (prototype `proto`) needs fetched, or why it
/// cannot be shown from what the kernel fetches. `formats`: the formats
/// the program holds, for a printf-family function ([`printf`]).
fn func_spec(
    name: &str,
    proto: Option<&Proto>,
    count: bool,
    formats: Option<&printf::Formats>,
) -> Result<FuncSpec, String> {
    let mut spec = FuncSpec {
        name: name.to_string(),
        shown: String::new(),
        bare: String::new(),
        proto: proto.cloned(),
        ints: 0,
        strings: Vec::new(),
        ret_string: false,
        twice: RETURNS_TWICE.contains(&name),
        printf: None,
    };
    if count {
        return Ok(spec);
    }
    let Some(p) = proto else {
        spec.ints = crate::ltrace::format::UNKNOWN_ARGS;
        return Ok(spec);
    };
    if has_format(p) {
        let (pf, strings) = printf::plan(name, p, formats)?;
        spec.printf = Some(pf);
        spec.strings = strings;
        spec.ints = printf::SLOTS;
    } else {
        params_spec(name, p, &mut spec)?;
    }
    match fetch_of(p.ret()) {
        Some(Fetch::Word) => {}
        Some(Fetch::Str) => spec.ret_string = true,
        None => {
            return Err(format!(
                "{name}'s prototype returns {}",
                type_problem(p.ret())
            ))
        }
    }
    Ok(spec)
}

fn has_format(p: &Proto) -> bool {
    p.params().iter().any(|x| matches!(x.ty, Type::Format))
}

/// What the parameters of `p` (no `format` among them) need fetched.
fn params_spec(name: &str, p: &Proto, spec: &mut FuncSpec) -> Result<(), String> {
    for (k, param) in p.params().iter().enumerate() {
        if param.out {
            return Err(format!(
                "{name}'s prototype has an out-parameter (read at return)"
            ));
        }
        match fetch_of(&param.ty) {
            Some(Fetch::Word) => {}
            Some(Fetch::Str) if k < 6 => spec.strings.push(k),
            _ => {
                return Err(format!(
                    "{name}'s prototype has {} as argument {}",
                    type_problem(&param.ty),
                    k + 1
                ))
            }
        }
    }
    spec.ints = p.params().len();
    if spec.ints > 6 + MAX_STACK_ARGS {
        return Err(format!("{name} has more than 12 arguments"));
    }
    Ok(())
}

/// The options only the kernel backend's output refuses.
fn output_fit(o: &Options, w_given: bool) -> Result<(), String> {
    let checks: [(bool, &str); 6] = [
        (w_given, "rltrace is writing into another tool's trace"),
        (o.json, "--json is written by the ptrace backend"),
        (o.ip, "-i: the caller's address is not fetched"),
        (o.where_depth > 0, "-w: backtraces need the stopped thread"),
        (
            o.string_len >= 4000,
            "-s: the kernel copies strings up to 4 KiB",
        ),
        (
            rtrace_arch::Arch::native() != rtrace_arch::Arch::X86_64,
            "only x86-64 is supported",
        ),
    ];
    match checks.iter().find(|(bad, _)| *bad) {
        Some((_, why)) => Err(refuse(why)),
        None => Ok(()),
    }
}

/// The prototypes (built in, then `-F` files or the default ones), and
/// what was wrong in the files (`FILE:LINE: ...`), to be reported once by
/// the backend that runs.
pub fn load_protos(o: &Options) -> (Protos, Vec<String>) {
    let mut protos = Protos::builtin();
    if o.config_files.is_empty() {
        protos.load_default_paths();
    }
    let mut errors = Vec::new();
    for f in &o.config_files {
        if let Err(e) = std::fs::File::open(f) {
            // rltrace's own word on a file it cannot read (ltrace says
            // nothing): on stderr, not in the trace.
            eprintln!("rltrace: {}: {e}", f.display());
            continue;
        }
        if let Err(e) = protos.load_file(f) {
            errors.push(e);
        }
    }
    (protos, errors)
}

/// Reports what was wrong in the `-F` files where ltrace does: in the
/// trace output, before the first call; on stderr when the output is JSON
/// (a text line is no JSON event).
pub fn report_proto_errors(errors: &[String], json: bool, out: &mut dyn std::io::Write) {
    use std::io::Write;
    for e in errors {
        let _ = match json {
            true => writeln!(std::io::stderr(), "{e}"),
            false => writeln!(out, "{e}"),
        };
    }
}

/// Whether the kernel backend reproduces what the ptrace backend would
/// print for `o`, and what it probes. `auto` adds checks of what could
/// only be found out while running (an exec). `w_given`: the output goes
/// into another tool's writer.
pub fn plan(o: &Options, auto: bool, w_given: bool) -> Result<KPlan, String> {
    output_fit(o, w_given)?;
    let filter = if o.e_filters.is_empty() {
        Filter::default_filter()
    } else {
        Filter::parse(&o.e_filters).map_err(|e| e.to_string())?
    };
    let p = fit::plan(o, &filter)?;
    if auto {
        if let Some(e) = p.imports.iter().find(|n| EXECS.contains(&n.as_str())) {
            return Err(refuse(&format!(
                "{} can exec another program ({e}), whose calls the probes would not see",
                fit::file_name(&p.exe)
            )));
        }
    }
    let (protos, proto_errors) = load_protos(o);
    let mut funcs = Vec::new();
    let mut by_ptrace = Vec::new();
    let formats = p
        .funcs
        .iter()
        .any(|f| protos.get(&f.name).is_some_and(has_format))
        .then(|| printf::scan(&p.exe))
        .flatten();
    for f in &p.funcs {
        match func_spec(&f.name, protos.get(&f.name), o.count, formats.as_ref()) {
            Ok(mut spec) => {
                spec.shown = f.shown.clone();
                spec.bare = f.bare.clone();
                funcs.push((f.offset, spec));
            }
            // Caught by a ptrace breakpoint instead, formatted from the
            // stopped thread's registers and memory.
            Err(e) => by_ptrace.push((f.name.clone(), e)),
        }
    }
    let top = Tracefs::open().map_err(|e| refuse(&format!("tracefs is needed: {e}")))?;
    if !top.has("uprobe_events") {
        return Err(refuse(
            "this kernel has no uprobe events (CONFIG_UPROBE_EVENTS)",
        ));
    }
    if !top.has("instances") {
        return Err(refuse("this kernel's tracefs has no instances"));
    }
    Ok(KPlan {
        exe: p.exe,
        funcs,
        by_ptrace,
        filter,
        proto_errors,
    })
}

/// The entry probe's fetch arguments for `s`.
fn entry_args(s: &FuncSpec) -> String {
    const REGS: [&str; 6] = ["di", "si", "dx", "cx", "r8", "r9"];
    let mut a = String::from("sp=%sp:x64");
    for i in 0..s.ints {
        match REGS.get(i) {
            Some(r) => a.push_str(&format!(" a{i}=%{r}:x64")),
            None => a.push_str(&format!(" a{i}=+{}(%sp):x64", 8 + 8 * (i - 6))),
        }
    }
    for &k in &s.strings {
        match REGS.get(k) {
            Some(r) => a.push_str(&format!(" s{k}=+0(%{r}):ustring")),
            None => a.push_str(&format!(" s{k}=+0(+{}(%sp)):ustring", 8 + 8 * (k - 6))),
        }
    }
    a
}

fn ret_args(s: &FuncSpec) -> String {
    let mut a = String::from("sp=%sp:x64 rv=$retval:x64");
    if s.ret_string {
        a.push_str(" rs=+0($retval):ustring");
    }
    a
}

/// Runs `o`'s command under the kernel backend per `kp`; the result as
/// [`crate::ltrace::trace`] returns it.
pub fn run(o: &Options, kp: KPlan) -> Ended {
    match run_inner(o, kp) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("rltrace: {e}");
            Ended::Failed(1)
        }
    }
}

fn run_inner(o: &Options, mut kp: KPlan) -> Result<Ended, String> {
    let to_file = o.output.is_some();
    let interruptible = if to_file {
        Interruptible::NeverFatal
    } else {
        Interruptible::WaitOnly
    };
    // Before anything is created in tracefs: a fatal signal from now on
    // ends the run through the normal path, which removes it.
    crate::engine::signals::install(interruptible);
    let file = match &o.output {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Some(f),
            Err(e) => {
                // As the ptrace backend words it.
                eprintln!("can't open {} for writing: {e}", path.display());
                return Ok(Ended::Failed(1));
            }
        },
        None => None,
    };
    // As the ptrace backend reports them.
    match &file {
        Some(f) => report_proto_errors(&kp.proto_errors, o.json, &mut &*f),
        None => report_proto_errors(&kp.proto_errors, o.json, &mut std::io::stderr()),
    }
    let top = Tracefs::open()?;
    let me = std::process::id();
    let mut group = DynGroup::new(&top, &group_name(me));
    let mut specs = Vec::new();
    let mut dec = crate::ltrace::uprobe::stream::Decoder::new();
    for (i, (offset, spec)) in std::mem::take(&mut kp.funcs).into_iter().enumerate() {
        let place = format!("{}:{offset:#x}", kp.exe.display());
        let e = format!("e{i}");
        let def = format!("p:{}/{e} {place} {}", group.group(), entry_args(&spec));
        group.add(&e, &def, false)?;
        dec.load(&top, &group.event_dir(&e), i, false, &spec)?;
        if !spec.twice {
            let r = format!("r{i}");
            let def = format!("r:{}/{r} {place} {}", group.group(), ret_args(&spec));
            group.add(&r, &def, false)?;
            dec.load(&top, &group.event_dir(&r), i, true, &spec)?;
        }
        specs.push(spec);
    }
    let inst = Instance::create(&top, &instance_name(me))?;
    let fs = inst.fs().clone();
    fs.write("trace_clock", "mono")?;
    // A bigger buffer than the default; best effort.
    let kb = std::env::var("RLTRACE_BUFFER_KB")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|&k| k > 0)
        .unwrap_or(BUFFER_KB);
    let _ = fs.write("buffer_size_kb", &kb.to_string());
    let mut reader = RawReader::open(&top, &fs)?;
    let cfg = Config {
        follow_forks: true,
        seccomp_sets: None,
        syscall_info: true,
        rusage: false,
        interruptible,
        pin_cpu: false,
        pin_attached: false,
        syscalls: false,
        exit_kill: false,
    };
    let mut tracer = Tracer::new(cfg);
    let cmd = spawn::Command {
        program: o.command[0].clone(),
        args: o.command.clone(),
        env: Vec::new(),
        user: None,
    };
    let pid = tracer
        .launch(&cmd)
        .map_err(|e| format!("{}: {e}", o.command[0].to_string_lossy()))?;
    if o.debug & cli::debug::GENERAL != 0 {
        eprintln!(
            "rltrace: [{pid}] {} uprobe breakpoint(s) placed",
            group_events(&specs)
        );
    }
    let lead = LeaderOpts {
        pid_prefix: false,
        to_file,
        relative: o.relative,
        time: o.time,
        ip: false,
        indent: o.indent,
        align: o.align,
        time_in_call: o.time_in_call,
    };
    let (tx, rx) = channel();
    let mut calls = crate::ltrace::uprobe::both::ptrace_side(o, &kp, lead.clone());
    if let Some(c) = &mut calls {
        c.forward_to(tx.clone());
    }
    let life = LifeHandler {
        tx,
        inst: fs.clone(),
        pid,
        threads: HashSet::new(),
        started: false,
        detach: Vec::new(),
        exe: kp.exe.clone(),
        execs: 0,
        other_execs: 0,
        filtered: HashSet::new(),
        error: None,
    };
    let mut h = crate::ltrace::uprobe::both::Both { life, calls };
    let setup = (|| -> Result<(), String> {
        fs.write("set_event_pid", &pid.to_string())?;
        h.life.filtered.insert(pid);
        if !specs.is_empty() {
            fs.write(&format!("events/{}/enable", group.group()), "1")?;
        }
        fs.write("tracing_on", "1")
    })();
    if let Err(e) = setup {
        tracer.kill_launched_and_detach(libc::SIGKILL, &mut h);
        return Err(e);
    }
    let sopts = StreamOpts {
        count: o.count,
        no_signals: o.no_signals,
        fmt: crate::ltrace::format::FormatOpts {
            string_len: o.string_len,
            demangle: o.demangle,
        },
        array_len: o
            .max_elts
            .unwrap_or(crate::ltrace::format::DEFAULT_ARRAY_LEN),
    };
    let consumer = std::thread::spawn(move || {
        let w: Box<dyn std::io::Write> = match file {
            Some(f) => Box::new(crate::output::paced::Paced::new(f)),
            None => Box::new(std::io::LineWriter::new(std::io::stderr())),
        };
        let mut s = Stream::new(sopts, specs, dec, Out::new(w, lead));
        let res = s.run(&mut reader, &rx);
        s.finish();
        let missed = reader.missed;
        (
            res,
            s.out.error.take().map(|e| e.to_string()),
            missed,
            s.orphans,
            s.inexact,
        )
    });
    let res = tracer.run(&mut h);
    if let Err(e) = &res {
        eprintln!("rltrace: wait: {e}");
    }
    let end = if let Some(sig) = tracer.interrupted {
        tracer.kill_launched_and_detach(sig, &mut h);
        Ended::Interrupted(sig)
    } else if res.is_err() {
        tracer.detach_all(&mut h);
        Ended::Failed(1)
    } else {
        Ended::Done(tracer.outcome())
    };
    let _ = h.life.tx.send(Msg::Done);
    let joined = consumer.join();
    let lost = lost_events(&fs);
    inst.quiesce();
    drop(inst);
    drop(group);
    let (res, werr, missed, orphans, inexact) = match joined {
        Ok(x) => x,
        Err(_) => return Err("the event reader failed".into()),
    };
    if let Some(e) = werr {
        eprintln!("rltrace: write error: {e}");
    }
    res?;
    if let Some(e) = h.life.error {
        eprintln!("rltrace: warning: {e}");
    }
    let lost = lost.max(missed);
    if lost > 0 {
        eprintln!(
            "rltrace: warning: {lost} kernel event(s) lost (ring buffer overflow): the trace \
             is incomplete (--backend ptrace loses none)"
        );
    }
    if orphans > 0 {
        eprintln!("rltrace: warning: {orphans} return(s) matched no call entry");
    }
    if inexact > 0 {
        eprintln!(
            "rltrace: warning: {inexact} printf-family call(s) passed a format that is not in \
             the program and needs more than the uprobe fetched (a floating-point or \
             unfetched argument): shown with what was fetched (--backend ptrace shows them)"
        );
    }
    if h.life.other_execs > 0 {
        eprintln!(
            "rltrace: warning: the command executed another program ({} more exec); only \
             {}'s calls were traced (--backend ptrace traces them all)",
            h.life.other_execs,
            fit::file_name(&kp.exe)
        );
    }
    Ok(end)
}

/// Uprobes defined for `specs` (entry and return).
fn group_events(specs: &[FuncSpec]) -> usize {
    specs.iter().map(|s| if s.twice { 1 } else { 2 }).sum()
}

/// Events the instance's buffers overwrote or dropped (`per_cpu/*/stats`).
fn lost_events(fs: &Tracefs) -> u64 {
    let mut n = 0;
    for cpu in fs.cpus() {
        let Ok(text) = fs.read(&format!("per_cpu/cpu{cpu}/stats")) else {
            continue;
        };
        for l in text.lines() {
            if let Some(v) = l
                .strip_prefix("overrun:")
                .or_else(|| l.strip_prefix("dropped events:"))
            {
                n += v.trim().parse::<u64>().unwrap_or(0);
            }
        }
    }
    n
}

/// `-D 1`: which backend runs, and why not the kernel one.
pub fn say_backend(o: &Options, kernel: Result<&KPlan, &str>) {
    if o.debug & cli::debug::GENERAL == 0 {
        return;
    }
    match kernel {
        Ok(p) => eprintln!("rltrace: backend kernel: {}", p.describe()),
        Err(why) => eprintln!("rltrace: backend ptrace: {why}"),
    }
}
