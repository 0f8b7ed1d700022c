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
use crate::tracefile::tree::TreeBuilder;
use crate::tracefile::EventPass;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::{self, Write};

/// One event before it is written: times in ns since the origin, its
/// process in the tree builder's numbering, its JSON without the fields
/// written here (`pid`, `tid`, `ts`, `dur`), and its place in the
/// recording (`seq`, which keeps equal times in recording order).
struct Ev {
    ts: u64,
    dur: Option<u64>,
    body: Box<str>,
    process: u32,
    tid: i32,
    seq: u32,
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

/// Writes the trace object of the recording `pass` reads (twice: the
/// process tree and the time origin, then the events) to `out`. Each event
/// is held as its JSON text until the slices are nested, never as a JSON
/// tree.
pub fn chrome(header: &Value, pass: &mut EventPass, out: &mut dyn Write) -> io::Result<()> {
    let mut tree = TreeBuilder::new(false);
    let mut origin: Option<u64> = None;
    let mut count = 0usize;
    pass(&mut |i, ev| {
        count += 1;
        tree.note_spawn(i, ev);
        if let Some(t) = crate::tracefile::ts_ns(ev) {
            origin = Some(origin.map_or(t, |o| o.min(t)));
        }
    })?;
    let origin = origin.unwrap_or(0);
    // Sized by the first pass: a growing vector would hold up to twice
    // the events' slots (and copy them) at its last doubling.
    let mut evs: Vec<Ev> = Vec::with_capacity(count);
    // End of the last event seen per thread, for events without a time.
    let mut last_end: HashMap<(usize, usize), u64> = HashMap::new();
    let mut global_end = 0u64;
    pass(&mut |i, ev| {
        let Some((p, t)) = tree.add(i, ev) else {
            return;
        };
        let time = crate::tracefile::ts_ns(ev).map(|t| t.saturating_sub(origin));
        let dur = crate::tracefile::dur_ns(ev);
        let thread_end = last_end.entry((p, t)).or_default();
        let ts = time.unwrap_or_else(|| (*thread_end).max(global_end));
        let end = ts + dur.unwrap_or(0);
        *thread_end = (*thread_end).max(end);
        global_end = global_end.max(if time.is_some() { ts } else { end });
        let (body, complete) = match (slice_name(ev), dur) {
            (Some(name), Some(_)) => (
                json!({"ph": "X", "name": name, "cat": ev["type"], "args": details(ev)}),
                true,
            ),
            (Some(name), None) => (
                json!({"ph": "i", "s": "t", "name": name, "cat": ev["type"], "args": details(ev)}),
                false,
            ),
            (None, _) => (
                json!({"ph": "i", "s": "t", "name": instant_name(ev), "cat": ev["type"], "args": details(ev)}),
                false,
            ),
        };
        evs.push(Ev {
            ts,
            dur: if complete { dur } else { None },
            process: p as u32,
            seq: evs.len() as u32,
            tid: ev["pid"].as_i64().unwrap_or(0) as i32,
            body: body.to_string().into_boxed_str(),
        });
    })?;
    let clamped = nest(&mut evs);
    let (tree, index) = tree.finish();
    out.write_all(b"{\"traceEvents\":[")?;
    let mut sep = "";
    for (i, p) in tree.processes.iter().enumerate() {
        let prog = tree.program(i);
        let name = format!("{} [{}]", prog.unwrap_or("?"), p.path);
        let m = json!({"ph": "M", "name": "process_name", "pid": p.pid, "tid": p.pid, "ts": 0, "args": {"name": name}});
        write!(out, "{sep}{m}")?;
        sep = ",";
        for th in &p.threads {
            let tname = if th.rank == 0 {
                "main".to_string()
            } else {
                format!("thread {}", th.rank)
            };
            let m = json!({"ph": "M", "name": "thread_name", "pid": p.pid, "tid": th.tid, "ts": 0, "args": {"name": tname}});
            write!(out, "{sep}{m}")?;
        }
    }
    for e in evs {
        let pid = tree.processes[index[e.process as usize]].pid;
        write!(
            out,
            "{sep}{{\"pid\":{pid},\"tid\":{},\"ts\":{}",
            e.tid,
            micros(e.ts)
        )?;
        sep = ",";
        if let Some(d) = e.dur {
            // The end's microseconds minus the start's, not the duration's:
            // a viewer adds `ts + dur` in floating point, and only this
            // makes that sum the end exactly (Sterbenz), so slices that
            // nest here (end to the nanosecond) nest in the viewer too.
            let dur = (e.ts + d) as f64 / 1000.0 - e.ts as f64 / 1000.0;
            write!(out, ",\"dur\":{}", json!(dur))?;
        }
        // The body is a non-empty object: `{"ph":…}`.
        write!(out, ",{}", &e.body[1..])?;
    }
    let other = json!({
        "tool": "rtrace export",
        "command": header["command"],
        "origin_unix_seconds": origin,
        "clamped": clamped,
    });
    writeln!(out, "],\"displayTimeUnit\":\"ns\",\"otherData\":{other}}}")
}

/// Nanoseconds as the format's microseconds (a JSON number).
fn micros(ns: u64) -> Value {
    json!(ns as f64 / 1000.0)
}

/// Sorts events by (ts, longest first, recording order: an unstable sort
/// on a total key needs no buffer of half the events) and cuts complete events that would
/// overlap a sibling on the same thread so that they nest; returns how many
/// were cut.
fn nest(evs: &mut [Ev]) -> usize {
    evs.sort_unstable_by_key(|e| (e.ts, std::cmp::Reverse(e.dur), e.seq));
    let mut open: HashMap<(u32, i32), Vec<u64>> = HashMap::new();
    let mut clamped = 0;
    for e in evs.iter_mut() {
        let Some(d) = e.dur else { continue };
        let stack = open.entry((e.process, e.tid)).or_default();
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
