//! Text and JSON forms of an `rtrace diff` outcome. Both list the same
//! facts in the same (sorted) order.

use super::normalize::render;
use super::{Divergence, Outcome, Side};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write;

fn counts(m: &BTreeMap<String, usize>) -> String {
    if m.is_empty() {
        return "none".into();
    }
    let total: usize = m.values().sum();
    let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!("{total} ({})", parts.join(", "))
}

fn list<I: IntoIterator<Item = S>, S: AsRef<str>>(it: I) -> String {
    let v: Vec<String> = it.into_iter().map(|s| s.as_ref().to_string()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn side_block(
    out: &mut String,
    tag: &str,
    side: &Side,
    proc_: usize,
    thread: usize,
    ctx: &[usize],
    at: &[usize],
) {
    let p = &side.tree.processes[proc_];
    let tid = p.threads.get(thread).map_or(p.pid, |t| t.tid);
    let _ = writeln!(out, "  {tag} ({}, pid {}, tid {tid}):", side.name, p.pid);
    for &e in ctx {
        let _ = writeln!(out, "      {}", render(&side.rec.events[e]));
    }
    if at.is_empty() {
        let _ = writeln!(out, "    > (nothing here)");
    }
    for &e in at {
        let _ = writeln!(out, "    > {}", render(&side.rec.events[e]));
    }
}

/// The human-readable report.
pub(crate) fn text(a: &Side, b: &Side, o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "rtrace diff: A={} B={}", a.name, b.name);
    match &o.first {
        Some(d) => {
            let _ = writeln!(
                s,
                "first divergence: process {} thread {}: {}",
                a.label(d.proc_a),
                d.thread,
                d.kind.text()
            );
            side_block(&mut s, "A", a, d.proc_a, d.thread, &d.ctx_a, &d.at_a);
            side_block(&mut s, "B", b, d.proc_b, d.thread, &d.ctx_b, &d.at_b);
        }
        None => {
            let _ = writeln!(s, "first divergence: none in the syscall sequences");
        }
    }
    let _ = writeln!(s, "summary:");
    let _ = writeln!(s, "  syscalls only in A: {}", counts(&o.only_a));
    let _ = writeln!(s, "  syscalls only in B: {}", counts(&o.only_b));
    let _ = writeln!(s, "  different results: {}", counts(&o.results));
    let _ = writeln!(s, "  files only in A: {}", list(&o.files_a));
    let _ = writeln!(s, "  files only in B: {}", list(&o.files_b));
    let _ = writeln!(s, "  processes only in A: {}", list(&o.procs_a));
    let _ = writeln!(s, "  processes only in B: {}", list(&o.procs_b));
    let exits = o.exits.iter().map(|(p, x, y)| format!("{p}: {x} vs {y}"));
    let _ = writeln!(s, "  different exit statuses: {}", list(exits));
    if let Some((x, y)) = &o.exit_code {
        let _ = writeln!(s, "  command exit code: {x} vs {y}");
    }
    if o.any_probes {
        let hits = o.probes.iter().map(|(p, x, y)| format!("{p} {x} vs {y}"));
        let _ = writeln!(s, "  different probe hits: {}", list(hits));
        if !o.probes_one_side.is_empty() {
            let one = o
                .probes_one_side
                .iter()
                .map(|(p, side)| format!("{p} ({side})"));
            let _ = writeln!(s, "  probes recorded on one side only: {}", list(one));
        }
    }
    let verdict = if o.different() {
        "different"
    } else {
        "no meaningful difference"
    };
    let _ = writeln!(s, "result: {verdict}");
    s
}

fn side_json(side: &Side, proc_: usize, thread: usize, ctx: &[usize], at: &[usize]) -> Value {
    let p = &side.tree.processes[proc_];
    let lines = |v: &[usize]| {
        v.iter()
            .map(|&e| json!({"event": e, "text": render(&side.rec.events[e])}))
            .collect::<Vec<_>>()
    };
    json!({
        "file": side.name,
        "pid": p.pid,
        "tid": p.threads.get(thread).map_or(p.pid, |t| t.tid),
        "context": lines(ctx),
        "lines": lines(at),
    })
}

fn divergence_json(a: &Side, b: &Side, d: &Divergence) -> Value {
    json!({
        "process": a.tree.processes[d.proc_a].path.to_string(),
        "program": a.program(d.proc_a),
        "thread": d.thread,
        "kind": d.kind.text(),
        "a": side_json(a, d.proc_a, d.thread, &d.ctx_a, &d.at_a),
        "b": side_json(b, d.proc_b, d.thread, &d.ctx_b, &d.at_b),
    })
}

/// The same report as one JSON object.
pub(crate) fn json(a: &Side, b: &Side, o: &Outcome) -> Value {
    json!({
        "a": a.name,
        "b": b.name,
        "different": o.different(),
        "first_divergence": o.first.as_ref().map(|d| divergence_json(a, b, d)),
        "syscalls_only_in_a": o.only_a,
        "syscalls_only_in_b": o.only_b,
        "different_results": o.results,
        "files_only_in_a": o.files_a,
        "files_only_in_b": o.files_b,
        "processes_only_in_a": o.procs_a,
        "processes_only_in_b": o.procs_b,
        "different_exit_statuses": o.exits.iter().map(|(p, x, y)| json!({"process": p, "a": x, "b": y})).collect::<Vec<_>>(),
        "command_exit_code": o.exit_code.as_ref().map(|(x, y)| json!({"a": x, "b": y})),
        "different_probe_hits": o.probes.iter().map(|(p, x, y)| json!({"spec": p, "a": x, "b": y})).collect::<Vec<_>>(),
        "probes_one_side": o.probes_one_side.iter().map(|(p, side)| json!({"spec": p, "side": side})).collect::<Vec<_>>(),
    })
}
