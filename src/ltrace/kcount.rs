//! `rltrace -c --backend kernel`: library calls counted by kernel uprobes
//! instead of ptrace stops: a hit is a trap into the kernel and no switch
//! to rltrace. The stub's first instruction (`jmp *GOT(%rip)`, or `endbr64`
//! in `.plt.sec`) is one the kernel single-steps out of line rather than
//! emulates, so each hit is two traps: measured on the development machine
//! (a KVM guest) about 10 µs of CPU a call, against ~31 µs with ptrace and
//! ~1 µs for a uprobe on an emulated `push`.
//!
//! What is counted is what the ptrace backend counts by default: the calls
//! the main program makes through its own PLT stubs (`.plt`, `.plt.sec`),
//! per function, selected by `-e` exactly as [`super::sites`] selects them.
//! A stub belongs to its caller, so a uprobe on each selected stub's file
//! offset in the program counts exactly the program's calls. The probes are
//! uprobe events in rtrace's own dynamic-event group
//! ([`crate::kernel::dynevent::DynGroup`]), each counted by a perf
//! tracepoint counter on the launched command from its exec, inherited by
//! its threads ([`crate::kernel::perf::Counter::open_task_tree`]); the hits
//! never leave the kernel. The group is removed on every way out (its owner
//! is dropped, after the counters); `rtrace kernel cleanup` removes the
//! leftovers of a killed rltrace. This is the machinery of
//! `rtrace break --count --backend kernel` (`crate::breakpoint::kcount`,
//! whose [`Backend`] this reuses).
//!
//! Time: not measured. The table keeps ltrace's columns, with `-` in the
//! time columns and a one-line note under it; no zero is printed as if it
//! were measured. Timing each call would need entry and return events per
//! call through the ring buffer (uretprobes), paired per thread under
//! recursion, longjmp and lost events; that is not done. So `auto` (the
//! default) always takes the ptrace backend for `-c`, whose table has real
//! times; `--backend kernel` is asked for explicitly.
//!
//! Refused with a message (use `--backend ptrace`): anything but `-c` on a
//! launched dynamically linked ELF program; `-p`, `-f`, `-l`, `-x`, `-L`,
//! `-S`, `-u`, `--inject`; selected functions the program calls through
//! its GOT with no stub (`-fno-plt`); a `-e` that selects calls made by a
//! library the program loads at start-up (found with the dynamic linker's
//! `--list`), or one that could select calls made by libraries loaded
//! later when a module imports `dlopen`, unless every `+` rule of it names
//! `@MAIN`.
//!
//! Gaps: a command that execs another program has only the first
//! program's calls counted (the ptrace backend counts the new program's
//! too); a perf counter of `sched:sched_process_exec` notices it and
//! rltrace warns under the table. After a fatal signal to rltrace, the
//! counts of threads still running are not included, and a command that
//! survives the signal is left running. `rtrace kernel cleanup` run while
//! rltrace counts takes the group for a dead rtrace's (it recognises live
//! owners by the process name `rtrace`) and fails to remove it (EBUSY).

use super::cli::Options;
use super::filter::Filter;
use super::imports::{self, ModInfo};
pub use crate::breakpoint::kcount::Backend;
use crate::engine::spawn;
use crate::kernel::dynevent::DynGroup;
use crate::kernel::perf::{Counter, EventId, TYPE_TRACEPOINT};
use crate::kernel::session::{self, Child};
use crate::kernel::tracefs::{self, Tracefs};
use crate::symbols::{read_load_segments, Symbolizer};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The note printed under the table.
pub const NOTE: &str =
    "(--backend kernel: calls counted by uprobes; time per call not measured: '-')";

/// One counted function: its name as the table shows it and the file
/// offset of its PLT stub in the program.
#[derive(Debug, Clone)]
struct Func {
    shown: String,
    offset: u64,
}

/// What the kernel backend runs: the program and its probes.
#[derive(Debug)]
struct Plan {
    exe: PathBuf,
    funcs: Vec<Func>,
}

fn refuse(what: &str) -> String {
    format!("--backend kernel: {what}; use --backend ptrace")
}

/// Why the options need ptrace, if they do.
fn options_fit(o: &Options) -> Result<(), String> {
    let checks: [(bool, &str); 10] = [
        (!o.count, "the kernel backend only counts calls (-c)"),
        (!o.pids.is_empty(), "-p: attaching needs ptrace"),
        (o.command.is_empty(), "a command to launch is needed"),
        (
            o.follow,
            "-f: children that exec other programs would not be counted",
        ),
        (
            !o.libs.is_empty(),
            "-l: calls from every library cannot be counted by the program's PLT stubs",
        ),
        (
            !o.x_filters.is_empty(),
            "-x: function entries are not counted",
        ),
        (o.no_plt, "-L: no library calls to count"),
        (o.syscalls, "-S: system calls are not counted"),
        (
            o.user.is_some(),
            "-u: running as another user is not supported",
        ),
        (!o.injects.is_empty(), "--inject needs ptrace"),
    ];
    match checks.iter().find(|(bad, _)| *bad) {
        Some((_, why)) => Err(refuse(why)),
        None => Ok(()),
    }
}

/// Whether every chain of `-e` marks only calls made by the main program:
/// each `+` rule names `@MAIN` and no chain starts from "everything". The
/// rules are split as [`Filter::parse`] splits them (at every `+` and `-`).
fn main_only(exprs: &[String]) -> bool {
    exprs.iter().all(|e| {
        if e.is_empty() {
            return true;
        }
        let mut segs: Vec<(bool, &str)> = Vec::new();
        let (mut start, mut add) = (0, true);
        for (i, c) in e.char_indices() {
            if c == '+' || c == '-' {
                segs.push((add, &e[start..i]));
                add = c == '+';
                start = i + 1;
            }
        }
        segs.push((add, &e[start..]));
        let last = segs.len() - 1;
        segs.iter().enumerate().all(|(k, &(add, text))| {
            if text.is_empty() {
                // A trailing empty rule is nothing; any other marks (or,
                // after `-`, unmarks) everything.
                return k > 0 && (k == last || !add);
            }
            if k == 0 && text.starts_with('!') {
                return false; // starts from everything
            }
            // Exactly how a rule splits into symbol and library.
            !add || text.starts_with('!') || text.split_once('@').map(|x| x.1) == Some("MAIN")
        })
    })
}

/// The program interpreter named by `PT_INTERP`, if any.
fn interpreter(data: &[u8]) -> Option<PathBuf> {
    use object::read::elf::{ElfFile64, FileHeader, ProgramHeader};
    let elf = ElfFile64::<object::Endianness>::parse(data).ok()?;
    let endian = elf.endian();
    let phdrs = elf.elf_header().program_headers(endian, data).ok()?;
    phdrs.iter().find_map(|ph| {
        let bytes = ph.interpreter(endian, data).ok()??;
        let s = std::str::from_utf8(bytes).ok()?;
        Some(PathBuf::from(s.trim_end_matches('\0')))
    })
}

/// The libraries the program loads at start-up, as its dynamic linker
/// finds them (`ld.so --list`, which runs none of the program's code).
fn startup_libraries(interp: &Path, exe: &Path) -> Result<Vec<PathBuf>, String> {
    let out = std::process::Command::new(interp)
        .arg("--list")
        .arg(exe)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("running {} --list: {e}", interp.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} --list {} failed: {}",
            interp.display(),
            exe.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut libs = Vec::new();
    for line in text.lines() {
        let Some((_, rest)) = line.split_once(" => ") else {
            continue;
        };
        let path = rest.rsplit_once(" (").map_or(rest, |(p, _)| p).trim();
        if path.starts_with('/') {
            let p = PathBuf::from(path);
            libs.push(std::fs::canonicalize(&p).unwrap_or(p));
        }
    }
    Ok(libs)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Refuses a `-e` that selects calls made by another module: the libraries
/// loaded at start-up are checked name by name; libraries a module may
/// `dlopen` later are unknown, so then only an `@MAIN`-only `-e` passes.
fn check_other_modules(
    o: &Options,
    filter: &Filter,
    sym: &Symbolizer,
    main: &ModInfo,
    interp: &Path,
    exe: &Path,
) -> Result<(), String> {
    if main_only(&o.e_filters) {
        return Ok(());
    }
    let interp_real = std::fs::canonicalize(interp).unwrap_or(interp.to_path_buf());
    let imports_dlopen = |m: &ModInfo| {
        m.plt
            .iter()
            .chain(&m.got)
            .any(|(n, _)| n == "dlopen" || n == "dlmopen")
    };
    let mut dlopen_by = imports_dlopen(main).then(|| file_name(exe));
    for lib in startup_libraries(interp, exe)? {
        if lib == interp_real {
            continue; // the dynamic linker's calls are never reported
        }
        let path = lib.to_string_lossy().into_owned();
        let info = imports::analyze(sym, &path, &lib);
        if let Some((name, _)) = info
            .plt
            .iter()
            .chain(&info.got)
            .find(|(n, _)| filter.matches_in(n, &info.soname, &path, false))
        {
            return Err(refuse(&format!(
                "-e selects calls made by {} too ({}->{name}); only the main program's \
                 calls can be counted (write the rules as NAME@MAIN)",
                info.soname, info.soname
            )));
        }
        if dlopen_by.is_none() && imports_dlopen(&info) {
            dlopen_by = Some(info.soname.clone());
        }
    }
    if let Some(m) = dlopen_by {
        return Err(refuse(&format!(
            "{m} can load libraries with dlopen, and -e could select calls they make; \
             only the main program's calls can be counted (write the rules as NAME@MAIN)"
        )));
    }
    Ok(())
}

/// The program and its probes, or why the kernel backend cannot count
/// what `o` asks for. `filter` is `-e` (or ltrace's default).
fn plan(o: &Options, filter: &Filter) -> Result<Plan, String> {
    options_fit(o)?;
    let cmd = o.command[0].to_string_lossy();
    let exe = spawn::resolve(&o.command[0]).map_err(|e| format!("{cmd}: {e}"))?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let data = std::fs::read(&exe).map_err(|e| format!("{}: {e}", exe.display()))?;
    if !data.starts_with(b"\x7fELF") {
        return Err(refuse(&format!(
            "{} is not an ELF program (a script?): its interpreter's calls are counted \
             by ptrace",
            exe.display()
        )));
    }
    let Some(interp) = interpreter(&data) else {
        return Err(refuse(&format!(
            "{} is statically linked: it calls no library through a PLT",
            exe.display()
        )));
    };
    drop(data);
    let sym = Symbolizer::new();
    let path = exe.to_string_lossy().into_owned();
    let info = imports::analyze(&sym, &path, &exe);
    // Filters see the main program's file name too (`-e puts@prog`).
    let lib_name = file_name(&exe);
    let selected = |name: &str| filter.matches_in(name, &lib_name, &path, true);
    let no_stub: Vec<&str> = info
        .got
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| selected(n))
        .collect();
    if !no_stub.is_empty() {
        return Err(refuse(&format!(
            "{} calls {} through its GOT with no PLT stub (built with -fno-plt); \
             such calls can only be caught at the function, which every module calls",
            lib_name,
            no_stub.join(", ")
        )));
    }
    if !o.e_filters.is_empty() {
        check_other_modules(o, filter, &sym, &info, &interp, &exe)?;
    }
    let segs = read_load_segments(&exe).map_err(|e| format!("{}: {e:?}", exe.display()))?;
    let mut funcs = Vec::new();
    for (name, vaddr) in &info.plt {
        if !selected(name) {
            continue;
        }
        let offset = segs
            .iter()
            .find(|s| *vaddr >= s.vaddr && *vaddr < s.vaddr + s.filesz)
            .map(|s| vaddr - s.vaddr + s.offset)
            .ok_or_else(|| format!("{name}@plt at {vaddr:#x} is in no loaded segment"))?;
        let bare = if o.demangle {
            crate::symbols::demangle(name).into_owned()
        } else {
            name.clone()
        };
        // As the ptrace backend: `caller->func` once `-e` is given.
        let shown = if o.e_filters.is_empty() {
            bare
        } else {
            format!("{}->{bare}", info.soname)
        };
        funcs.push(Func { shown, offset });
    }
    Ok(Plan { exe, funcs })
}

/// ltrace's `-c` table from counts alone: most calls first, the time
/// columns `-`, functions never called left out (as the ptrace backend
/// leaves them out), and [`NOTE`] under it.
pub fn render(rows: &[(String, u64)]) -> String {
    use std::fmt::Write as _;
    let mut by_name: BTreeMap<&str, u64> = BTreeMap::new();
    for (name, n) in rows {
        *by_name.entry(name).or_default() += n;
    }
    let mut v: Vec<(&str, u64)> = by_name.into_iter().filter(|r| r.1 > 0).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let calls: u64 = v.iter().map(|r| r.1).sum();
    let rule = "------ ----------- ----------- --------- --------------------\n";
    let mut s = String::new();
    s.push_str("% time     seconds  usecs/call     calls      function\n");
    s.push_str(rule);
    for (name, n) in v {
        let _ = writeln!(s, "{:>6} {:>11} {:>11} {n:9} {name}", "-", "-", "-");
    }
    s.push_str(rule);
    let _ = writeln!(s, "{:>6} {:>11}             {calls:9} total", "-", "-");
    s.push_str(NOTE);
    s.push('\n');
    s
}

/// Runs `o`'s command with each selected PLT stub counted by a uprobe and
/// writes the table to `-o FILE` or stderr; returns rltrace's exit code.
pub fn main(o: &Options) -> i32 {
    // `-e`, or ltrace's default (`-L` and `-l` are refused by the plan).
    let filter = if o.e_filters.is_empty() {
        Filter::default_filter()
    } else {
        match Filter::parse(&o.e_filters) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("rltrace: {e}");
                return 1;
            }
        }
    };
    match run(o, &filter) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("rltrace: {e}");
            1
        }
    }
}

fn uprobes(top: &Tracefs) -> Result<(), String> {
    if top.has("uprobe_events") {
        Ok(())
    } else {
        Err(refuse(
            "this kernel has no uprobe events (CONFIG_UPROBE_EVENTS)",
        ))
    }
}

fn run(o: &Options, filter: &Filter) -> Result<i32, String> {
    let plan = plan(o, filter)?;
    let top = Tracefs::open().map_err(|e| refuse(&format!("tracefs is needed: {e}")))?;
    uprobes(&top)?;
    let mut out: Box<dyn Write> = match &o.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| format!("can't open {} for writing: {e}", path.display()))?,
        ),
        None => Box::new(std::io::stderr()),
    };
    let mut group = DynGroup::new(&top, &tracefs::group_name(std::process::id()));
    let mut events = Vec::new();
    for (i, f) in plan.funcs.iter().enumerate() {
        let name = format!("ltc{i}");
        let def = format!(
            "p:{}/{name} {}:{:#x}",
            group.group(),
            plan.exe.display(),
            f.offset
        );
        group.add(&name, &def, false)?;
        let id = top.read(&format!("{}/id", group.event_dir(&name)))?;
        events.push(EventId {
            name: f.shown.clone(),
            type_: TYPE_TRACEPOINT,
            config: id
                .trim()
                .parse()
                .map_err(|_| format!("bad event id '{id}'"))?,
        });
    }
    // As the ptrace backend: with `-o FILE CMD` rltrace's fatal signals are
    // ignored (Ctrl-C reaches only the command). Installed after the fork,
    // so the command does not inherit SIG_IGN.
    let to_file = o.output.is_some();
    if !to_file {
        session::install_signals();
    }
    let mut child = Child::spawn(&o.command)?;
    if to_file {
        crate::engine::signals::install(crate::engine::signals::Interruptible::NeverFatal);
    }
    let mut counters = Vec::new();
    for ev in &events {
        let c = Counter::open_task_tree(ev, child.pid, false)
            .map_err(|e| format!("counting '{}': {e}", ev.name))?;
        counters.push(c);
    }
    // Execs after the first: their programs' calls are not counted.
    let execs = top
        .read("events/sched/sched_process_exec/id")
        .ok()
        .and_then(|id| id.trim().parse().ok())
        .and_then(|config| {
            let ev = EventId {
                name: "sched:sched_process_exec".into(),
                type_: TYPE_TRACEPOINT,
                config,
            };
            Counter::open_task_tree(&ev, child.pid, false).ok()
        });
    child.release();
    // After a fatal signal of rltrace's: the command gets it too (as the
    // ptrace backend sends it); one that survives it a second later is left
    // running, as the ptrace backend leaves it (detached).
    let mut signalled: Option<(i32, std::time::Instant)> = None;
    let code = loop {
        if let Some(code) = child.try_wait() {
            break signalled.map_or(code, |(s, _)| 128 + s);
        }
        match (signalled, session::pending_signal()) {
            (None, Some(sig)) => {
                signalled = Some((sig, std::time::Instant::now()));
                // SAFETY: signalling our own child.
                unsafe {
                    libc::kill(child.pid, libc::SIGCONT);
                    libc::kill(child.pid, sig);
                }
            }
            (Some((sig, at)), _) if at.elapsed() > std::time::Duration::from_secs(1) => {
                // Not reaped: dropping the Child would wait for it.
                std::mem::forget(child);
                break 128 + sig;
            }
            _ => {}
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let mut rows = Vec::new();
    for (ev, c) in events.iter().zip(&counters) {
        let (n, _, _) = c
            .read()
            .map_err(|e| format!("reading '{}': {e}", ev.name))?;
        rows.push((ev.name.clone(), n));
    }
    // The first exec (the command's own) is counted once the counter is
    // enabled by it.
    let later_execs = execs
        .as_ref()
        .and_then(|c| c.read().ok())
        .map_or(0, |(n, _, _)| n.saturating_sub(1));
    // The counters hold the events: close them before removing the group.
    drop(counters);
    drop(group);
    let table = render(&rows);
    if let Err(e) = out.write_all(table.as_bytes()).and_then(|_| out.flush()) {
        let _ = writeln!(std::io::stderr(), "rltrace: write error: {e}");
    }
    if later_execs > 0 {
        let _ = writeln!(
            std::io::stderr(),
            "rltrace: warning: the command executed another program ({later_execs} more \
             exec); only {}'s calls were counted (--backend ptrace counts them all)",
            file_name(&plan.exe)
        );
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn main_only_filters() {
        assert!(main_only(&s(&["labs@MAIN"])));
        assert!(main_only(&s(&["labs@MAIN+abs@MAIN", "strlen@MAIN"])));
        assert!(main_only(&s(&["@MAIN-labs"])));
        assert!(main_only(&s(&["labs@MAIN-labs@libc.so*"])));
        assert!(main_only(&s(&["labs@MAIN+"])));
        assert!(!main_only(&s(&["labs"])));
        assert!(!main_only(&s(&["labs@MAIN+abs"])));
        assert!(!main_only(&s(&["-labs"])));
        assert!(!main_only(&s(&["!labs"])));
        assert!(!main_only(&s(&["+labs@MAIN"])));
        assert!(!main_only(&s(&["labs@MAIN++abs@MAIN"])));
        assert!(!main_only(&s(&["/labs@MAIN/"])));
        assert!(!main_only(&s(&["labs@MAIN", "abs"])));
        assert!(!main_only(&s(&["labs@x@MAIN"])));
        assert!(main_only(&s(&["/lab./@MAIN"])));
        // Whatever main_only accepts, the real filter marks nothing in a library.
        for e in [
            "labs@MAIN",
            "@MAIN-labs",
            "labs@MAIN-labs@libc.so*",
            "labs@MAIN+",
            "/lab./@MAIN",
        ] {
            let f = Filter::parse(&s(&[e])).unwrap();
            assert!(
                ["labs", "abs"]
                    .iter()
                    .any(|n| f.matches_in(n, "prog", "/p/prog", true)),
                "{e}"
            );
            for name in ["labs", "malloc", "x"] {
                assert!(
                    !f.matches_in(name, "libc.so.6", "/lib/libc.so.6", false),
                    "{e} {name}"
                );
            }
        }
    }

    #[test]
    fn table_marks_time_not_measured() {
        let t = render(&[
            ("labs".into(), 5),
            ("abs".into(), 2),
            ("never".into(), 0),
            ("abs".into(), 1),
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "% time     seconds  usecs/call     calls      function"
        );
        assert_eq!(lines[2], "     -           -           -         5 labs");
        assert_eq!(lines[3], "     -           -           -         3 abs");
        assert!(!t.contains("never"));
        assert_eq!(lines[5], "     -           -                     8 total");
        assert_eq!(lines[6], NOTE);
        assert!(!t.contains("0.0"), "no time is printed as measured: {t}");
    }
}
