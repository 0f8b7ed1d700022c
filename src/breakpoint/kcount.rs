//! `rtrace break --count --backend kernel`: hits counted by kernel uprobes
//! instead of ptrace stops. Each spec becomes a uprobe (or uretprobe) event
//! in rtrace's own dynamic-event group in tracefs, counted by a perf
//! tracepoint counter on the command (inherited by its threads, and by its
//! children with `-f`, as the ptrace backend follows them); the hits never
//! leave the kernel. The group is removed on every way out (its owner is
//! dropped; `rtrace kernel cleanup` removes the leftovers of a killed
//! rtrace).
//!
//! Scope: a launched command (`-- CMD`), specs `func` and `ret:func` naming
//! functions of the program itself, no conditions, only `--count`. `auto`
//! (the default) takes this path when everything asked for fits it and the
//! kernel has uprobe events, and ptrace otherwise.

use super::cli::Options;
use super::spec::{Kind, Location};
use crate::engine::spawn;
use crate::kernel::dynevent::DynGroup;
use crate::kernel::perf::{Counter, EventId, TYPE_TRACEPOINT};
use crate::kernel::session::{self, Child};
use crate::kernel::tracefs::{self, Tracefs};
use std::path::PathBuf;

/// Which mechanism counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Kernel uprobes when possible, else ptrace.
    #[default]
    Auto,
    /// INT3 breakpoints through ptrace.
    Ptrace,
    /// Kernel uprobes (an error when they cannot do what is asked).
    Kernel,
}

impl Backend {
    /// Parses `--backend` values.
    pub fn parse(s: &str) -> Result<Backend, String> {
        match s {
            "auto" => Ok(Backend::Auto),
            "ptrace" => Ok(Backend::Ptrace),
            "kernel" => Ok(Backend::Kernel),
            _ => Err(format!(
                "--backend: '{s}' is not one of auto, ptrace, kernel"
            )),
        }
    }
}

/// One counted probe: the spec's text, the offset in the program's file,
/// entry or return.
struct Probe {
    text: String,
    offset: u64,
    ret: bool,
}

/// The program and its probes, or why the kernel backend cannot run `o`.
fn plan(o: &Options) -> Result<(PathBuf, Vec<Probe>), String> {
    if !o.count {
        return Err("the kernel backend only counts: add --count".into());
    }
    if o.command.is_empty() {
        return Err("the kernel backend needs a command (-- CMD), not -p".into());
    }
    if !o.watches.is_empty() || o.bt || o.regs || o.locals {
        return Err("the kernel backend only counts (no --watch, --bt, --regs, --locals)".into());
    }
    let exe = spawn::resolve(&o.command[0])
        .map_err(|e| format!("cannot run '{}': {e}", o.command[0].to_string_lossy()))?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let mut probes = Vec::new();
    for s in &o.specs {
        let name = match &s.loc {
            Location::Func { lib: None, name } if !s.loc.is_glob() && s.cond.is_none() => name,
            _ => {
                return Err(format!(
                    "the kernel backend counts 'func' and 'ret:func' of the program \
                     itself, without conditions; '{}' needs --backend ptrace",
                    s.text
                ))
            }
        };
        let offset = crate::kernel::probe::file_offset(&exe, name, 0)?;
        probes.push(Probe {
            text: s.text.clone(),
            offset,
            ret: s.kind == Kind::Return,
        });
    }
    Ok((exe, probes))
}

/// Whether `o` runs on the kernel backend: `Some(Err)` when it was asked
/// for and cannot, `None` for ptrace.
pub fn choose(o: &Options) -> Option<Result<(), String>> {
    let uprobes = || {
        Tracefs::open()
            .map_err(|e| format!("the kernel backend needs tracefs: {e}"))
            .and_then(|t| {
                if t.has("uprobe_events") {
                    Ok(())
                } else {
                    Err("this kernel has no uprobe events (CONFIG_UPROBE_EVENTS)".into())
                }
            })
    };
    match o.backend {
        Backend::Ptrace => None,
        Backend::Kernel => Some(plan(o).map(drop).and_then(|_| uprobes())),
        Backend::Auto => (plan(o).is_ok() && uprobes().is_ok()).then_some(Ok(())),
    }
}

/// Runs the command with every spec counted by a uprobe; prints the
/// `--count` table to `sink`; returns the command's exit code.
pub fn run(o: &Options, sink: &mut super::report::Sink) -> Result<i32, String> {
    let (exe, probes) = plan(o)?;
    let top = Tracefs::open()?;
    let mut group = DynGroup::new(&top, &tracefs::group_name(std::process::id()));
    let mut events = Vec::new();
    for (i, p) in probes.iter().enumerate() {
        let name = format!("count{i}");
        let def = format!(
            "{}:{}/{name} {}:{:#x}",
            if p.ret { "r" } else { "p" },
            group.group(),
            exe.display(),
            p.offset
        );
        group.add(&name, &def, false)?;
        let id = top.read(&format!("{}/id", group.event_dir(&name)))?;
        events.push(EventId {
            name: p.text.clone(),
            type_: TYPE_TRACEPOINT,
            config: id
                .trim()
                .parse()
                .map_err(|_| format!("bad event id '{id}'"))?,
        });
    }
    session::install_signals();
    let mut child = Child::spawn(&o.command)?;
    let mut counters = Vec::new();
    for ev in &events {
        let c = Counter::open_task_tree(ev, child.pid, o.follow)
            .map_err(|e| format!("counting '{}': {e}", ev.name))?;
        counters.push(c);
    }
    child.release()?;
    let code = loop {
        if let Some(code) = child.try_wait() {
            break code;
        }
        if let Some(sig) = session::pending_signal() {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(child.pid, sig) };
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
    drop(counters);
    drop(group);
    sink.table(&rows);
    sink.flush();
    Ok(code)
}
