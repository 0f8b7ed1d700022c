//! `rtrace export`: the Chrome trace of a real multi-process, multi-thread
//! recording is checked for structure (required fields, per-track monotonic
//! timestamps, properly nested slices, one named track per thread) and, when
//! Perfetto's `trace_processor_shell` is installed, loaded by it; folded
//! stacks and the SVG flamegraph are checked on synthetic stacks.

mod common;

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rtrace_export_{tag}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn export(args: &[&str], file: &Path) -> Output {
    Command::new(rtrace())
        .arg("export")
        .args(args)
        .arg(file)
        .output()
        .unwrap()
}

/// Records forker (fork, vfork+exec, a thread) as JSON Lines.
fn record_forker(dir: &Path) -> PathBuf {
    let prog = common::testprog("forker");
    let out = dir.join("forker.rtrace");
    let r = Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&out)
        .arg("--")
        .arg(&prog)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    if !(r.status.success() && text.contains("\"header\"") && text.contains("\"syscall\"")) {
        let r = Command::new(common::rstrace())
            .args(["-f", "--json", "-o"])
            .arg(&out)
            .arg(&prog)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    out
}

fn events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] != "header" && e["type"] != "footer")
        .collect()
}

/// Structural validation of a Chrome trace; returns (X count, instant count).
fn validate(trace: &Value) -> (usize, usize) {
    let evs = trace["traceEvents"].as_array().expect("traceEvents array");
    let mut named_procs = BTreeSet::new();
    let mut named_threads = BTreeSet::new();
    let mut tracks: HashMap<(i64, i64), Vec<&Value>> = HashMap::new();
    let (mut xs, mut is) = (0, 0);
    for e in evs {
        let ph = e["ph"].as_str().expect("ph");
        assert!(e["name"].is_string(), "name: {e}");
        let (pid, tid) = (
            e["pid"].as_i64().expect("pid"),
            e["tid"].as_i64().expect("tid"),
        );
        assert!(e["ts"].as_f64().is_some_and(|t| t >= 0.0), "ts: {e}");
        match ph {
            "M" => {
                assert!(e["args"]["name"].is_string(), "{e}");
                match e["name"].as_str().unwrap() {
                    "process_name" => assert!(named_procs.insert(pid), "one name per process"),
                    "thread_name" => assert!(named_threads.insert((pid, tid))),
                    other => panic!("unexpected metadata {other}"),
                }
            }
            "X" => {
                assert!(e["dur"].as_f64().is_some_and(|d| d >= 0.0), "dur: {e}");
                xs += 1;
                tracks.entry((pid, tid)).or_default().push(e);
            }
            "i" => {
                assert_eq!(e["s"], "t", "thread-scoped instant: {e}");
                is += 1;
                tracks.entry((pid, tid)).or_default().push(e);
            }
            other => panic!("unexpected phase {other}"),
        }
    }
    let ns = |v: &Value| (v.as_f64().unwrap() * 1000.0).round() as i64;
    for ((pid, tid), list) in &tracks {
        assert!(
            named_procs.contains(pid) && named_threads.contains(&(*pid, *tid)),
            "unnamed track {pid}/{tid}"
        );
        let mut last = 0;
        let mut open: Vec<i64> = Vec::new();
        for e in list {
            let ts = ns(&e["ts"]);
            assert!(ts >= last, "ts not monotonic on {pid}/{tid}: {e}");
            last = ts;
            if e["ph"] != "X" {
                continue;
            }
            while open.last().is_some_and(|&end| end <= ts) {
                open.pop();
            }
            let end = ts + ns(&e["dur"]);
            if let Some(&outer) = open.last() {
                assert!(
                    end <= outer,
                    "slice {e} overlaps its enclosing slice (ends {outer})"
                );
            }
            open.push(end);
        }
    }
    (xs, is)
}

/// Loads the trace with Perfetto's trace processor when it is installed and
/// returns the number of syscall slices it imported.
fn trace_processor_slices(trace: &Path, dir: &Path) -> Option<usize> {
    let bin = ["trace_processor_shell", "trace_processor"]
        .into_iter()
        .find(|b| common::have(b))?;
    let q = dir.join("q.sql");
    std::fs::write(
        &q,
        "select count(*) as n from slice where category = 'syscall';\n",
    )
    .unwrap();
    let o = Command::new(bin)
        .arg("-q")
        .arg(&q)
        .arg(trace)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{bin}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout);
    let n = text
        .lines()
        .rev()
        .find_map(|l| l.trim().trim_matches('"').parse().ok());
    Some(n.unwrap_or_else(|| panic!("no count in {text}")))
}

#[test]
fn chrome_trace_of_processes_and_threads_is_well_formed() {
    let d = scratch("chrome");
    let rec = record_forker(&d);
    let out = d.join("trace.json");
    let o = export(&["--format", "chrome", "-o", out.to_str().unwrap()], &rec);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let trace: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let (xs, is) = validate(&trace);
    let evs = events(&rec);
    let with_dur = evs
        .iter()
        .filter(|e| e["type"] == "syscall" && e["duration"].is_f64())
        .count();
    assert_eq!(xs, with_dur, "one slice per finished syscall");
    assert_eq!(xs + is, evs.len(), "every event is on the timeline");
    // forker: the command, a fork child and a vfork child; the command has a
    // second thread.
    let meta: Vec<&Value> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M")
        .collect();
    let procs: Vec<&str> = meta
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(procs.len(), 3, "{procs:?}");
    assert!(
        procs[0].ends_with("forker [0]") && procs[1].ends_with("forker [0.0]"),
        "{procs:?}"
    );
    assert_eq!(procs[2], "/bin/true [0.1]");
    let threads: Vec<&Value> = meta
        .iter()
        .copied()
        .filter(|e| e["name"] == "thread_name")
        .collect();
    assert_eq!(threads.len(), 4, "{threads:?}");
    assert!(threads.iter().any(|t| t["args"]["name"] == "thread 1"));
    let sig = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["cat"] == "signal")
        .expect("SIGCHLD instant");
    assert_eq!(sig["name"], "SIGCHLD");
    let open = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "openat")
        .unwrap();
    assert!(
        open["args"]["call"]
            .as_str()
            .unwrap()
            .starts_with("openat("),
        "{open}"
    );
    match trace_processor_slices(&out, &d) {
        Some(n) => assert_eq!(n, evs.iter().filter(|e| e["type"] == "syscall").count()),
        None => eprintln!("skip: trace_processor_shell is not installed (pip's perfetto downloads it at run time, which this machine cannot); structure checked only"),
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn overlapping_slices_are_nested_and_libcalls_probes_are_shown() {
    let d = scratch("nest");
    let f = d.join("t.json");
    let lines = [
        json!({"type":"libcall","pid":5,"func":"fopen","time":10.0,"duration":0.000010}),
        json!({"type":"syscall","pid":5,"syscall":"openat","args":[],"return":3,"time":10.000002,"duration":0.000003}),
        // Starts inside fopen but ends after it (clock skew): cut.
        json!({"type":"syscall","pid":5,"syscall":"read","args":[],"return":3,"time":10.000008,"duration":0.000005}),
        json!({"type":"probe","pid":5,"probe":"u:main","time":10.000020}),
        json!({"type":"signal","pid":5,"signal":"SIGUSR1"}),
    ];
    std::fs::write(
        &f,
        lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let o = export(&["--format=chrome"], &f);
    assert_eq!(o.status.code(), Some(0));
    let trace: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(validate(&trace), (3, 2));
    assert_eq!(trace["otherData"]["clamped"], 1);
    let evs = trace["traceEvents"].as_array().unwrap();
    let read = evs.iter().find(|e| e["name"] == "read").unwrap();
    assert_eq!(
        (read["ts"].as_f64(), read["dur"].as_f64()),
        (Some(8.0), Some(2.0))
    );
    assert!(evs
        .iter()
        .any(|e| e["name"] == "fopen" && e["cat"] == "libcall"));
    assert!(evs
        .iter()
        .any(|e| e["name"] == "probe: u:main" && e["ts"] == 20.0));
    // The signal has no time of its own: placed at the end of the last slice.
    assert!(
        evs.iter()
            .any(|e| e["name"] == "SIGUSR1" && e["ts"] == 20.0),
        "{evs:?}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

fn stack_recording(d: &Path) -> PathBuf {
    let f = d.join("stacks.json");
    let frames = |v: &[&str]| {
        v.iter()
            .map(|f| json!({"func": f, "pc": "0x401000"}))
            .collect::<Vec<_>>()
    };
    let lines = [
        json!({"type":"syscall","pid":7,"syscall":"execve","args":["/usr/bin/app",["app"]],"return":0,"time":1.0,"duration":0.001,"stack":frames(&["_start"])}),
        json!({"type":"syscall","pid":7,"syscall":"write","args":[],"return":1,"time":1.1,"duration":0.000004,"stack":frames(&["__write","puts","main","_start"])}),
        json!({"type":"syscall","pid":7,"syscall":"write","args":[],"return":1,"time":1.2,"duration":0.000006,"stack":frames(&["__write","puts","main","_start"])}),
        json!({"type":"syscall","pid":7,"syscall":"read","args":[],"return":1,"time":1.3,"duration":0.00001,"stack":frames(&["__read","load","main","_start"])}),
        json!({"type":"syscall","pid":7,"syscall":"getpid","args":[],"return":7,"time":1.4,"duration":0.000001}),
    ];
    std::fs::write(
        &f,
        lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    f
}

#[test]
fn folded_stacks_by_count_and_time() {
    let d = scratch("folded");
    let f = stack_recording(&d);
    let o = export(&["--format", "folded"], &f);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "app;_start;execve 1\napp;_start;main;load;__read;read 1\napp;_start;main;puts;__write;write 2\n"
    );
    let o = export(&["--format", "folded", "--weight", "time"], &f);
    let lines: BTreeMap<String, u64> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let (s, w) = l.rsplit_once(' ').unwrap();
            (s.to_string(), w.parse().unwrap())
        })
        .collect();
    assert_eq!(lines["app;_start;main;puts;__write;write"], 10_000, "ns");
    assert_eq!(lines["app;_start;execve"], 1_000_000);
    // Without stacks: program;syscall for every call, with a note.
    let d2 = scratch("folded_real");
    let rec = record_forker(&d2);
    let o = export(&["--format", "folded"], &rec);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no stacks"));
    let total: u64 = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(
        total as usize,
        events(&rec)
            .iter()
            .filter(|e| e["type"] == "syscall")
            .count()
    );
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_dir_all(&d2);
}

#[test]
fn flamegraph_svg_is_well_formed() {
    let d = scratch("svg");
    let f = stack_recording(&d);
    let out = d.join("flame.svg");
    let o = export(&["--format", "flamegraph", "-o", out.to_str().unwrap()], &f);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let svg = std::fs::read_to_string(&out).unwrap();
    // all, app, _start, execve, main, load, __read, read, puts, __write, write.
    assert_eq!(svg.matches("<g>").count(), 11, "{svg}");
    assert!(
        svg.contains("<title>write (2 calls, 50.00%)</title>"),
        "{svg}"
    );
    if common::have("python3") {
        let o = Command::new("python3")
            .args(["-c", "import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); print(len(r.findall('{http://www.w3.org/2000/svg}g')))"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stdout).trim(),
            "11",
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    } else {
        eprintln!("skip: python3 not installed, XML parse of the SVG not checked");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_inputs_exit_2() {
    let d = scratch("bad");
    let junk = d.join("junk.json");
    std::fs::write(&junk, "{\"type\":\"syscall\"}\n[1,2]\n").unwrap();
    for (args, file, want) in [
        (vec!["--format", "chrome"], junk.clone(), "line 2"),
        (vec!["--format", "chrome"], d.join("nope.json"), "nope.json"),
        (vec!["--format", "pdf"], junk.clone(), "unknown format"),
        (vec![], junk.clone(), "--format is required"),
        (
            vec!["--format", "chrome", "--weight", "time"],
            junk.clone(),
            "--weight applies",
        ),
    ] {
        let o = export(&args, &file);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(want) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
