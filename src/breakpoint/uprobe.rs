//! `rtrace break --count --backend kernel`: hits counted by kernel uprobes
//! instead of ptrace stops. Each spec becomes a uprobe (or uretprobe) event
//! in rtrace's own dynamic-event group in tracefs, counted by a perf
//! tracepoint counter on the command (inherited by its threads, and by its
//! children with `-f`, as the ptrace backend follows them); the hits never
//! leave the kernel. The group is removed on every way out (its owner is
//! dropped; `rtrace kernel cleanup` removes the leftovers of a killed
//! rtrace).
//!
//! Scope: a launched command (`-- CMD`), specs `func`, `lib:func`, globs
//! and their `ret:`, without conditions, only `--count`. Each counts the
//! addresses [`crate::breakpoint::precheck`] resolved it to in the program and the
//! libraries loaded at start-up (the ptrace backend places its INT3s at
//! the same addresses, so both count the same): one uprobe per address,
//! summed. A pending spec (one a library loaded later may define) is left
//! to ptrace, which sees libraries as they load. `auto`
//! (the default) takes this path when everything asked for fits it and the
//! kernel has uprobe events, and ptrace otherwise.

use crate::breakpoint::cli::Options;
use crate::breakpoint::precheck::{Checked, Found};
use crate::kernel::dynevent::DynGroup;
use crate::kernel::perf::{Counter, EventId, TYPE_TRACEPOINT};
use crate::kernel::session::{self, Child};
use crate::kernel::tracefs::{self, Tracefs};
use crate::probe::spec::{Kind, Location};
use crate::symbols::read_load_segments;

use crate::probe::Backend;

/// Uprobes one run may add (each is a file in tracefs and a perf
/// counter); more is left to ptrace.
const MAX_PROBES: usize = 256;

/// One counted spec: its text, the (file, offset) of each address it
/// resolved to, entry or return.
struct Probe {
    text: String,
    sites: Vec<(String, u64)>,
    ret: bool,
}

/// The offset in the file at `path` of its virtual address `vaddr`.
fn file_offset(path: &str, vaddr: u64) -> Result<u64, String> {
    let segs =
        read_load_segments(std::path::Path::new(path)).map_err(|e| format!("{path}: {e:?}"))?;
    segs.iter()
        .find(|s| vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz)
        .map(|s| vaddr - s.vaddr + s.offset)
        .ok_or_else(|| format!("{path}: {vaddr:#x} is in no loaded segment"))
}

/// The probes, or why the kernel backend cannot run `o`. `checked` is
/// what each spec resolved to before the start ([`crate::breakpoint::precheck`]), so
/// both backends count the same addresses.
fn plan(o: &Options, checked: &[Checked]) -> Result<Vec<Probe>, String> {
    if !o.count {
        return Err("the kernel backend only counts: add --count".into());
    }
    if o.command.is_empty() {
        return Err("the kernel backend needs a command (-- CMD), not -p".into());
    }
    if !o.watches.is_empty() || o.bt.is_some() || o.regs || o.locals {
        return Err("the kernel backend only counts (no --watch, --bt, --regs, --locals)".into());
    }
    if o.max_hits.is_some() || o.ignore > 0 || !o.prints.is_empty() {
        return Err(
            "the kernel backend counts every hit (no --max-hits, --tbreak, --ignore, --print)"
                .into(),
        );
    }
    if checked.len() != o.specs.len() {
        return Err(format!(
            "the kernel backend needs '{}' read before it starts",
            o.command[0].to_string_lossy()
        ));
    }
    let mut probes = Vec::new();
    let mut total = 0;
    for (s, c) in o.specs.iter().zip(checked) {
        let sites = match (&s.loc, &c.found) {
            (Location::Func { .. }, Found::At(sites)) if s.cond.is_none() => sites,
            (Location::Func { .. }, Found::Pending(why)) if s.cond.is_none() => {
                return Err(format!(
                    "'{}' is pending ({why}); the kernel backend counts what is loaded at \
                     start-up: use --backend ptrace",
                    s.text
                ))
            }
            _ => {
                return Err(format!(
                    "the kernel backend counts functions ('func', 'lib:func', globs, \
                     'ret:func') without conditions; '{}' needs --backend ptrace",
                    s.text
                ))
            }
        };
        total += sites.len();
        if total > MAX_PROBES {
            return Err(format!(
                "more than {MAX_PROBES} addresses to probe; use --backend ptrace"
            ));
        }
        let mut at = Vec::new();
        for x in sites {
            at.push((x.path.clone(), file_offset(&x.path, x.vaddr)?));
        }
        at.sort();
        at.dedup();
        probes.push(Probe {
            text: s.text.clone(),
            sites: at,
            ret: s.kind == Kind::Return,
        });
    }
    Ok(probes)
}

/// Whether `o` runs on the kernel backend: `Some(Err)` when it was asked
/// for and cannot, `None` for ptrace.
pub fn choose(o: &Options, checked: &[Checked]) -> Option<Result<(), String>> {
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
        Backend::Kernel => Some(plan(o, checked).map(drop).and_then(|_| uprobes())),
        Backend::Auto => (plan(o, checked).is_ok() && uprobes().is_ok()).then_some(Ok(())),
    }
}

/// Runs the command with every spec counted by a uprobe; prints the
/// `--count` table to `sink`; returns the command's exit code.
pub fn run(
    o: &Options,
    checked: &[Checked],
    sink: &mut crate::breakpoint::report::Sink,
) -> Result<i32, String> {
    let probes = plan(o, checked)?;
    let top = Tracefs::open()?;
    let mut group = DynGroup::new(&top, &tracefs::group_name(std::process::id()));
    // Per probe, the events of its addresses (summed in the table).
    let mut events: Vec<Vec<EventId>> = Vec::new();
    for (i, p) in probes.iter().enumerate() {
        let mut evs = Vec::new();
        for (j, (path, offset)) in p.sites.iter().enumerate() {
            let name = format!("count{i}_{j}");
            let def = format!(
                "{}:{}/{name} {path}:{offset:#x}",
                if p.ret { "r" } else { "p" },
                group.group(),
            );
            group.add(&name, &def, false)?;
            let id = top.read(&format!("{}/id", group.event_dir(&name)))?;
            evs.push(EventId {
                name: p.text.clone(),
                type_: TYPE_TRACEPOINT,
                config: id
                    .trim()
                    .parse()
                    .map_err(|_| format!("bad event id '{id}'"))?,
            });
        }
        events.push(evs);
    }
    session::install_signals();
    let mut child = Child::spawn(&o.command)?;
    let mut counters = Vec::new();
    for evs in &events {
        let mut cs = Vec::new();
        for ev in evs {
            let c = Counter::open_task_tree(ev, child.pid, o.follow)
                .map_err(|e| format!("counting '{}': {e}", ev.name))?;
            cs.push(c);
        }
        counters.push(cs);
    }
    child.release()?;
    let code = loop {
        if let Some(code) = child.try_wait() {
            break code;
        }
        if let Some(sig) = session::pending_signal() {
            let _ = crate::sys::process::kill(child.pid, sig);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let mut rows = Vec::new();
    for (p, cs) in probes.iter().zip(&counters) {
        let mut n = 0;
        for c in cs {
            n += c
                .read()
                .map_err(|e| format!("reading '{}': {e}", p.text))?
                .0;
        }
        rows.push((p.text.clone(), n));
    }
    drop(counters);
    drop(group);
    sink.table(&rows);
    sink.flush();
    Ok(code)
}
