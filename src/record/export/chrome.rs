//! Chrome trace event format (the JSON `chrome://tracing`, Perfetto and
//! trace_processor read): one track per thread, `M` metadata naming each
//! process (its program and tree path) and thread, `X` complete events
//! for syscalls and library calls, `i` instants for signals, probe hits,
//! injections and exits. A probe hit (`--probe`) is a thread-scoped instant
//! on its thread's track named by its spec (`compute`, `ret:compute`), with
//! the function's arguments, or the return value and time in the call, in
//! its details.
//!
//! Timestamps are microseconds since the first event (integer nanoseconds
//! inside, so nesting is exact). Within a thread, complete events are made
//! to nest: a slice that starts inside another but would end after it is
//! cut at the enclosing slice's end (counted in `otherData.clamped`).

use crate::record::diff::normalize::render;
use crate::tracefile::tree::ProcessTree;
use crate::tracefile::Recording;
use serde_json::{json, Map, Value};

/// One event before serialisation (times in ns since the origin).
struct Ev {
    ts: u64,
    dur: Option<u64>,
    pid: i32,
    tid: i32,
    body: Value,
}

fn slice_name(ev: &Value) -> Option<String> {
    match ev["type"].as_str()? {
        "syscall" => ev["syscall"].as_str().map(str::to_string),
        "libcall" => ["func", "function", "name", "symbol"]
            .iter()
            .find_map(|k| ev[*k].as_str())
            .map(str::to_string)
            .or(Some("libcall".into())),
        _ => None,
    }
}

fn instant_name(ev: &Value) -> String {
    let ty = ev["type"].as_str().unwrap_or("event");
    match ty {
        "signal" => ev["signal"].as_str().unwrap_or("signal").to_string(),
        // `rtrace record --probe`: named by the spec alone.
        "probe" if ev["spec"].is_string() => ev["spec"].as_str().unwrap_or("probe").to_string(),
        "exit" => format!(
            "exit: {}",
            crate::tracefile::tree::exit_text(ev)
                .as_deref()
                .unwrap_or("?")
        ),
        _ => match ["probe", "name", "func", "syscall"]
            .iter()
            .find_map(|k| ev[*k].as_str())
        {
            Some(n) => format!("{ty}: {n}"),
            None => ty.to_string(),
        },
    }
}

/// Arguments shown in the viewer's details pane.
fn details(ev: &Value) -> Value {
    let mut m = Map::new();
    if ev["type"] == "syscall" {
        m.insert("call".into(), json!(render(ev)));
    }
    let probe = ev["type"] == "probe";
    for (k, v) in ev.as_object().into_iter().flatten() {
        // A probe's `args` are the function's, named: shown as they are.
        if !matches!(
            k.as_str(),
            "type" | "pid" | "ts_ns" | "dur_ns" | "time" | "duration" | "args" | "stack"
        ) || (probe && k == "args")
        {
            m.insert(k.clone(), v.clone());
        }
    }
    Value::Object(m)
}

/// Builds the trace object.
pub fn chrome(rec: &Recording) -> Value {
    let tree = ProcessTree::build(rec);
    let origin = rec
        .events
        .iter()
        .filter_map(crate::tracefile::ts_ns)
        .min()
        .unwrap_or(0);
    let mut evs: Vec<Ev> = Vec::new();
    // End of the last event seen per thread, for events without a time.
    let mut last_end: Vec<Vec<u64>> = tree
        .processes
        .iter()
        .map(|p| vec![0; p.threads.len()])
        .collect();
    let mut global_end = 0u64;
    for (i, ev) in rec.events.iter().enumerate() {
        let Some((p, t)) = tree.owner[i] else {
            continue;
        };
        let (pid, tid) = (tree.processes[p].pid, tree.processes[p].threads[t].tid);
        let time = crate::tracefile::ts_ns(ev).map(|t| t.saturating_sub(origin));
        let dur = crate::tracefile::dur_ns(ev);
        let ts = time.unwrap_or_else(|| last_end[p][t].max(global_end));
        let end = ts + dur.unwrap_or(0);
        last_end[p][t] = last_end[p][t].max(end);
        global_end = global_end.max(if time.is_some() { ts } else { end });
        let body = match (slice_name(ev), dur) {
            (Some(name), Some(_)) => {
                json!({"ph": "X", "name": name, "cat": ev["type"], "args": details(ev)})
            }
            (Some(name), None) => {
                json!({"ph": "i", "s": "t", "name": name, "cat": ev["type"], "args": details(ev)})
            }
            (None, _) => {
                json!({"ph": "i", "s": "t", "name": instant_name(ev), "cat": ev["type"], "args": details(ev)})
            }
        };
        evs.push(Ev {
            ts,
            dur: if body["ph"] == "X" { dur } else { None },
            pid,
            tid,
            body,
        });
    }
    let clamped = nest(&mut evs);
    let mut out: Vec<Value> = Vec::with_capacity(evs.len() + 2 * tree.processes.len());
    for (i, p) in tree.processes.iter().enumerate() {
        let prog = tree.program(i);
        let name = format!("{} [{}]", prog.unwrap_or("?"), p.path);
        out.push(json!({"ph": "M", "name": "process_name", "pid": p.pid, "tid": p.pid, "ts": 0, "args": {"name": name}}));
        for th in &p.threads {
            let tname = if th.rank == 0 {
                "main".to_string()
            } else {
                format!("thread {}", th.rank)
            };
            out.push(json!({"ph": "M", "name": "thread_name", "pid": p.pid, "tid": th.tid, "ts": 0, "args": {"name": tname}}));
        }
    }
    for e in evs {
        let mut b = e.body;
        let o = b.as_object_mut().unwrap();
        o.insert("pid".into(), json!(e.pid));
        o.insert("tid".into(), json!(e.tid));
        o.insert("ts".into(), json!(e.ts as f64 / 1000.0));
        if let Some(d) = e.dur {
            o.insert("dur".into(), json!(d as f64 / 1000.0));
        }
        out.push(b);
    }
    json!({
        "traceEvents": out,
        "displayTimeUnit": "ns",
        "otherData": {
            "tool": "rtrace export",
            "command": rec.header["command"],
            "origin_unix_seconds": origin,
            "clamped": clamped,
        },
    })
}

/// Sorts events by (ts, longest first) and cuts complete events that would
/// overlap a sibling on the same thread so that they nest; returns how many
/// were cut.
fn nest(evs: &mut [Ev]) -> usize {
    evs.sort_by_key(|e| (e.ts, std::cmp::Reverse(e.dur)));
    let mut open: std::collections::HashMap<(i32, i32), Vec<u64>> =
        std::collections::HashMap::new();
    let mut clamped = 0;
    for e in evs.iter_mut() {
        let Some(d) = e.dur else { continue };
        let stack = open.entry((e.pid, e.tid)).or_default();
        while stack.last().is_some_and(|&end| end <= e.ts) {
            stack.pop();
        }
        let mut end = e.ts + d;
        if let Some(&outer) = stack.last() {
            if end > outer {
                end = outer;
                e.dur = Some(end - e.ts);
                clamped += 1;
            }
        }
        stack.push(end);
    }
    clamped
}
