//! `rtrace report FILE [--json] [--normalize] [--top N]`: what a recording
//! says, in sections: the run (command, host, exit status), the `-c`
//! summary for the whole tree and per process (strace's table, from each
//! call's recorded wall-clock `duration`, like `strace -c -w`), the slowest
//! calls, failed calls grouped by syscall, errno and path, files opened and
//! written, the process tree (from [`crate::tracefile::tree::ProcessTree`]) with exit
//! statuses, network peers, in `--libcalls` recordings library calls
//! by function (calls, calls that never returned, time in them), and in
//! `--probe` recordings the hits of each probe, in all and per process
//! (return probes with their mean time in the call).
//!
//! The recording is read as a stream, twice ([`input`], [`build`]): memory
//! does not grow with its size. `--events` prints the events back as
//! rstrace/rltrace text instead ([`events`]).
//!
//! With `--normalize`, pids become `PID1…` in tree order, times and
//! durations become placeholders, the summary is sorted by name, the
//! slowest-calls section (timing only) is left out, and the text then goes
//! through [`crate::output::normalize`] (addresses, temp paths).

mod build;
mod events;
mod input;
mod render;

use crate::output::normalize::Normalizer;
use crate::record::cli::ReportArgs;
use crate::strace::cli::SortBy;
use crate::strace::summary::Summary;
use crate::tracefile::tree::{arg_str, ProcessTree, TreeBuilder};
use crate::tracefile::Recording;
use rtrace_arch::Arch;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::time::Duration;

/// Calls, failures and total time of one syscall (for `--json`).
#[derive(Default, Clone, Copy)]
struct Count {
    calls: u64,
    errors: u64,
    total: Duration,
}

/// A syscall table for a set of events: strace's text table and the rows.
#[derive(Default)]
struct Table {
    summary: Summary,
    rows: BTreeMap<String, Count>,
}

impl Table {
    fn add(&mut self, names: &mut Interner, ev: &Value) {
        let (Some(name), false) = (ev["syscall"].as_str(), ev["return"].is_null()) else {
            return;
        };
        let d = Duration::from_nanos(crate::tracefile::dur_ns(ev).unwrap_or(0));
        let failed = ev.get("errno").is_some();
        let (n, order) = names.get(name);
        self.summary.record(n, order, d, failed);
        let c = self.rows.entry(name.to_string()).or_default();
        c.calls += 1;
        c.errors += failed as u64;
        c.total += d;
    }

    fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|(n, c)| json!({"syscall": n, "calls": c.calls, "errors": c.errors, "seconds": c.total.as_secs_f64()}))
            .collect();
        Value::Array(rows)
    }
}

/// Syscall names as `&'static str` for [`Summary`] (a bounded set: one per
/// distinct name in the file), with their table order.
#[derive(Default)]
struct Interner(HashMap<String, (&'static str, u64)>);

impl Interner {
    fn get(&mut self, name: &str) -> (&'static str, u64) {
        *self.0.entry(name.to_string()).or_insert_with(|| {
            let order = Arch::native().syscall_nr(name).map_or(u64::MAX, u64::from);
            (Box::leak(name.to_string().into_boxed_str()), order)
        })
    }
}

/// What was done to one file.
#[derive(Default)]
struct FileUse {
    opens: u64,
    write_opens: u64,
    writes: u64,
    bytes_written: u64,
}

/// Everything the report shows.
struct Report {
    header: Value,
    footer: Option<Value>,
    /// Events read.
    events: u64,
    /// How many of the slowest calls to keep.
    top: usize,
    /// The process tree while the events are read.
    builder: TreeBuilder,
    /// The process tree, after [`Report::finish`].
    tree: ProcessTree,
    names: Interner,
    total: Table,
    per_process: Vec<Table>,
    slowest: Vec<build::Slow>,
    /// The shortest duration `slowest` still takes.
    slow_floor: u64,
    failures: BTreeMap<(String, String, String), u64>,
    files: BTreeMap<String, FileUse>,
    peers: BTreeMap<(String, String), (u64, u64)>,
    /// Library calls by (function, library).
    libcalls: BTreeMap<(String, String), LibUse>,
    /// Probe hits by spec, in the header's order then first seen.
    probes: Vec<ProbeUse>,
    /// Descriptor tables per process while the events are read.
    fds: Vec<Option<HashMap<i64, String>>>,
}

/// Hits of one `--probe` spec.
struct ProbeUse {
    spec: String,
    hits: u64,
    /// Time in the call, over the return hits (`ret:` probes).
    in_call: Duration,
    returns: u64,
    /// Hits per process (index into the tree's processes).
    per_process: BTreeMap<usize, u64>,
}

impl ProbeUse {
    fn new(spec: &str) -> ProbeUse {
        ProbeUse {
            spec: spec.to_string(),
            hits: 0,
            in_call: Duration::ZERO,
            returns: 0,
            per_process: BTreeMap::new(),
        }
    }

    /// Mean time in the call, for return probes.
    fn mean(&self) -> Option<Duration> {
        (self.returns > 0).then(|| self.in_call / self.returns as u32)
    }
}

/// Calls of one library function.
#[derive(Default)]
struct LibUse {
    calls: u64,
    /// Calls that never returned (`exit`, `longjmp`, a killed thread).
    unreturned: u64,
    total: Duration,
}

const OPENS: &[&str] = &["open", "openat", "openat2", "creat"];
const WRITES: &[&str] = &["write", "pwrite64", "writev", "pwritev", "pwritev2"];
const PEER_CALLS: &[&str] = &["connect", "sendto", "sendmsg", "accept", "accept4", "bind"];

/// The path a call is about: its first string argument among the first
/// two (path, or dirfd then path), else the peer of a socket call, else the
/// `-y` path of a descriptor argument.
fn path_of(ev: &Value) -> Option<String> {
    let args = ev["args"].as_array()?;
    if let Some(p) = args.iter().take(2).find_map(arg_str) {
        return Some(p.to_string());
    }
    if let Some(p) = args.iter().find_map(peer) {
        return Some(p);
    }
    args.iter()
        .find_map(|a| a["path"].as_str())
        .map(str::to_string)
}

/// An argument in strace-like text: `"str"`, `NAME|NAME`, `3</path>`,
/// `0x7f…`, `{k=v, …}`.
fn arg_text(v: &Value) -> String {
    let list = |a: &[Value]| a.iter().map(arg_text).collect::<Vec<_>>().join(", ");
    match v {
        Value::Null => "NULL".into(),
        Value::String(s) => format!("{s:?}"),
        Value::Array(a) => format!("[{}]", list(a)),
        Value::Object(m) => {
            if let Some(s) = m.get("sym").or(m.get("expr")).and_then(Value::as_str) {
                return s.to_string();
            }
            if let Some(Value::Array(f)) = m.get("flags") {
                let mut names: Vec<String> = f
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect();
                if let Some(r) = m.get("rest").and_then(Value::as_u64) {
                    names.push(format!("{r:#x}"));
                }
                return names.join("|");
            }
            if let Some(fd) = m.get("fd") {
                return match m.get("path").and_then(Value::as_str) {
                    Some(p) => format!("{fd}<{p}>"),
                    None => fd.to_string(),
                };
            }
            if let Some(p) = m.get("ptr").and_then(Value::as_str) {
                return p.to_string();
            }
            if let Some(s) = m.get("str").and_then(Value::as_str) {
                return format!("{s:?}...");
            }
            if let (Some(i), Some(o)) = (m.get("in"), m.get("out")) {
                return format!("{} => {}", arg_text(i), arg_text(o));
            }
            if let (Some(x), Some(c)) = (m.get("value"), m.get("comment").and_then(Value::as_str)) {
                return format!("{} /* {c} */", arg_text(x));
            }
            let fields: Vec<String> = m
                .iter()
                .map(|(k, x)| format!("{k}={}", arg_text(x)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        other => other.to_string(),
    }
}

fn open_flags(ev: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Array(f)) = m.get("flags") {
                    out.extend(f.iter().filter_map(Value::as_str).map(str::to_string));
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(&ev["args"], &mut out);
    out
}

/// `1.2.3.4:80`, `[::1]:9`, `/run/x.sock`, `@abstract`, or the family and
/// the raw value.
fn peer(v: &Value) -> Option<String> {
    let fam = v.get("sa_family")?["sym"].as_str()?.to_string();
    if fam == "AF_UNIX" {
        return Some(
            arg_str(&v["sun_path"]).map_or_else(|| "(unnamed)".to_string(), |s| s.into_owned()),
        );
    }
    let mut addr = None;
    let mut port = None;
    for x in v.as_object()?.values() {
        let Some(e) = x["expr"].as_str() else {
            continue;
        };
        if let Some(p) = e.strip_prefix("htons(").and_then(|r| r.strip_suffix(')')) {
            port = Some(p.to_string());
        } else if e.starts_with("inet_addr(") || e.starts_with("inet_pton(") {
            addr = e.split('"').nth(1).map(str::to_string);
        }
    }
    match (addr, port) {
        (Some(a), Some(p)) if fam == "AF_INET6" => Some(format!("[{a}]:{p}")),
        (Some(a), Some(p)) => Some(format!("{a}:{p}")),
        _ => Some(format!("{fam} {v}")),
    }
}

impl Report {
    /// The program of process `i`; for the command itself with no exec
    /// recorded (rltrace's engine starts after it), the header's argv[0].
    fn program(&self, i: usize) -> Option<&str> {
        self.tree.program(i).or_else(|| {
            (self.tree.processes[i].parent.is_none() && self.tree.processes[i].execs.is_empty())
                .then(|| self.header["command"][0].as_str())
                .flatten()
        })
    }

    /// Library calls, most time first (by name with `normalize`).
    fn libcall_rows(&self, normalize: bool) -> Vec<(&(String, String), &LibUse)> {
        let mut rows: Vec<_> = self.libcalls.iter().collect();
        if !normalize {
            rows.sort_by(|a, b| b.1.total.cmp(&a.1.total).then(a.0.cmp(b.0)));
        }
        rows
    }

    fn status(&self) -> String {
        let Some(f) = &self.footer else {
            return "unknown (the recording has no footer: rtrace was killed?)".into();
        };
        let attached = self.header["attached"].is_array();
        if let Some(s) = f["interrupted"].as_str() {
            return if attached {
                format!("interrupted by {s} (rtrace detached; the process ran on)")
            } else {
                format!("interrupted by {s} (rtrace killed the command)")
            };
        }
        match (f["exit_code"].as_i64(), f["signal"].as_str()) {
            (Some(c), _) => format!("exited with {c}"),
            (_, Some(s)) => format!("killed by {s}"),
            _ if attached => "ended (attached; its exit status is its parent's to see)".into(),
            _ => "unknown".into(),
        }
    }

    fn compact_args(&self, ev: &Value) -> String {
        let args = ev["args"].as_array().map_or(&[][..], Vec::as_slice);
        let mut a = format!(
            "({})",
            args.iter().map(arg_text).collect::<Vec<_>>().join(", ")
        );
        if a.len() > 120 {
            let mut cut = 117;
            while !a.is_char_boundary(cut) {
                cut -= 1;
            }
            a.truncate(cut);
            a.push_str("...");
        }
        a
    }
}

/// The report text of a recording in memory (what `rtrace report` prints).
pub fn render(rec: &Recording, top: usize, normalize: bool) -> String {
    let mut r = Report::new(rec.header.clone(), top);
    for (i, ev) in rec.events.iter().enumerate() {
        r.note(i, ev);
    }
    for (i, ev) in rec.events.iter().enumerate() {
        r.add(i, ev);
    }
    r.finish(rec.footer.clone());
    r.text(top, normalize)
}

/// Runs `rtrace report`, parsed by clap; returns the exit code.
pub fn main(a: ReportArgs) -> i32 {
    let (file, as_json, normalize, top) = (a.file, a.json, a.normalize, a.top);
    if a.events {
        let mut filter = events::Filter {
            pids: a.pid,
            from: a.from,
            to: a.to,
            ..Default::default()
        };
        if let Some(spec) = &a.trace {
            let set = spec.strip_prefix("trace=").unwrap_or(spec);
            match crate::strace::filter::SyscallSet::parse(set) {
                Ok(s) => filter.trace = Some(s),
                Err(e) => {
                    eprintln!("rtrace report: -e {spec}: {}", e.msg);
                    return 2;
                }
            }
        }
        return events::main(&file, &filter);
    }
    let r = match input::read(&file, top) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rtrace report: {file}: {e}");
            return 1;
        }
    };
    if r.header.is_null() && r.events == 0 {
        eprintln!("rtrace report: {file}: no events (not a trace file?)");
        return 1;
    }
    let text = if as_json {
        let mut text = r.json(top).to_string();
        if normalize {
            text = Normalizer::new().line(&text);
        }
        text + "\n"
    } else {
        r.text(top, normalize)
    };
    match super::print_stdout(&text) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rtrace report: stdout: {e}");
            1
        }
    }
}
