//! Text and JSON forms of an `rtrace diff` outcome. Both list the same
//! facts in the same (sorted) order.

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
        let _ = writeln!(out, "      {}", side.text(e));
    }
    if at.is_empty() {
        let _ = writeln!(out, "    > (nothing here)");
    }
    for &e in at {
        let _ = writeln!(out, "    > {}", side.text(e));
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
    if !o.output.is_empty() {
        let _ = writeln!(
            s,
            "  output to the inherited fds 1 and 2 (a stream each; chunks and sizes not compared):"
        );
        for (p, fd, (na, ba), (nb, bb)) in &o.output {
            let _ = writeln!(
                s,
                "    {p} fd {fd}: A {na} {}, {ba} bytes; B {nb} {}, {bb} bytes",
                plural(*na),
                plural(*nb)
            );
        }
    }
    env_text(&mut s, a, b, o);
    let verdict = match (o.different(), o.env_differs()) {
        (true, _) => "different",
        (false, false) => "no meaningful difference",
        (false, true) => "no meaningful difference (the environment differs)",
    };
    let _ = writeln!(s, "result: {verdict}");
    s
}

/// Environment differences listed in the text report; `--json` lists all.
const ENV_LINES: usize = 20;

/// The "environment differences" section: each differing probe with both
/// runs' calls.
fn env_text(s: &mut String, a: &Side, b: &Side, o: &Outcome) {
    if !o.env_differs() {
        let _ = writeln!(s, "environment differences: none");
        return;
    }
    let _ = writeln!(
        s,
        "environment differences (compared apart from the calls above; not a divergence):"
    );
    let mut last = None;
    for d in o.env.iter().take(ENV_LINES) {
        if last != Some((d.proc_a, d.thread)) {
            let _ = writeln!(s, "  process {} thread {}:", a.label(d.proc_a), d.thread);
            last = Some((d.proc_a, d.thread));
        }
        let p = d.probe();
        let _ = writeln!(s, "    {}: {}", p.name, p.reason);
        for (tag, side, e) in [("A", a, d.a), ("B", b, d.b)] {
            let line = e.map_or("(not made)", |e| side.text(e));
            let _ = writeln!(s, "      {tag}: {line}");
        }
    }
    if o.env.len() > ENV_LINES {
        let _ = writeln!(
            s,
            "  … {} more (--json lists them all)",
            o.env.len() - ENV_LINES
        );
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        "write"
    } else {
        "writes"
    }
}

fn side_json(side: &Side, proc_: usize, thread: usize, ctx: &[usize], at: &[usize]) -> Value {
    let p = &side.tree.processes[proc_];
    let lines = |v: &[usize]| {
        v.iter()
            .map(|&e| json!({"event": e, "text": side.text(e)}))
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

fn env_json(a: &Side, b: &Side, o: &Outcome) -> Value {
    let call = |side: &Side, e: Option<usize>| e.map(|e| json!({"event": e, "text": side.text(e)}));
    let probes: Vec<Value> = o
        .env
        .iter()
        .map(|d| {
            json!({
                "process": a.tree.processes[d.proc_a].path.to_string(),
                "program": a.program(d.proc_a),
                "thread": d.thread,
                "probe": d.probe().name,
                "reason": d.probe().reason,
                "a": call(a, d.a),
                "b": call(b, d.b),
            })
        })
        .collect();
    Value::Array(probes)
}

fn output_json(o: &Outcome) -> Value {
    o.output
        .iter()
        .map(|(p, fd, (na, ba), (nb, bb))| {
            json!({"process": p, "fd": fd, "a": {"writes": na, "bytes": ba}, "b": {"writes": nb, "bytes": bb}})
        })
        .collect()
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
        "environment_differs": o.env_differs(),
        "environment_differences": env_json(a, b, o),
        "output_streams": output_json(o),
    })
}
