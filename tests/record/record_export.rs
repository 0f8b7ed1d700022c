//! `rtrace export`: the Chrome trace of a real multi-process, multi-thread
//! recording is checked for structure (required fields, per-track monotonic
//! timestamps, properly nested slices, one named track per thread) and, when
//! Perfetto's `trace_processor_shell` is installed, loaded by it; folded
//! stacks and the SVG flamegraph are checked on synthetic stacks.
//! The Chrome trace is also opened in a real viewer (speedscope in headless
//! Chromium, via tests/viewer/load_chrome_trace.mjs) when it is installed.

use crate::common;

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
        let r = common::named(common::rstrace())
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
        .filter(|e| e["type"] == "syscall" && e["dur_ns"].is_u64())
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
        // clap's errors.
        (
            vec!["--format", "pdf"],
            junk.clone(),
            "invalid value 'pdf' for '--format",
        ),
        (vec![], junk.clone(), "--format <FORMAT>"),
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

/// Where the viewer check finds its tools: a node_modules holding speedscope
/// and playwright-core (`$RTRACE_VIEWER_MODULES`, else
/// `<target>/viewer-node_modules/node_modules`, which .ci/run fills) and
/// Chromium (`$RTRACE_VIEWER_CHROMIUM`, else /usr/bin/chromium); the reason
/// when one is missing.
fn viewer_tools() -> Result<(PathBuf, PathBuf), String> {
    if !common::have("node") {
        return Err("node is not installed".into());
    }
    let modules = std::env::var_os("RTRACE_VIEWER_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::target_dir().join("viewer-node_modules/node_modules"));
    for need in [
        "speedscope/dist/release/index.html",
        "playwright-core/package.json",
    ] {
        if !modules.join(need).is_file() {
            return Err(format!(
                "{} is missing (npm install --prefix {} speedscope@1.25.0 playwright-core@1)",
                modules.join(need).display(),
                modules.parent().unwrap_or(&modules).display()
            ));
        }
    }
    let chromium = std::env::var_os("RTRACE_VIEWER_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !common::have(chromium.to_str().unwrap_or("")) {
        return Err(format!(
            "{} is not installed (apt-get install chromium)",
            chromium.display()
        ));
    }
    Ok((modules, chromium))
}

/// Length of the union of `[start, start + len)` intervals (seconds in, µs
/// out): the time a thread spent in syscalls, which is what a viewer shows as
/// the weight of its top-level slices.
fn covered_us(mut spans: Vec<(f64, f64)>) -> f64 {
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut total, mut end) = (0.0, f64::NEG_INFINITY);
    for (s, d) in spans {
        let e = s + d;
        if e > end {
            total += e - s.max(end);
            end = e;
        }
    }
    total * 1e6
}

/// Makes two neighbouring top-level slices of the first thread overlap (the
/// first now ends halfway through the second), which the exporter never
/// writes.
fn misnest(trace: &mut Value) {
    let evs = trace["traceEvents"].as_array_mut().unwrap();
    let first = evs.iter().find(|e| e["ph"] == "X").unwrap();
    let track = (first["pid"].clone(), first["tid"].clone());
    let mut xs: Vec<usize> = (0..evs.len())
        .filter(|&i| evs[i]["ph"] == "X" && (evs[i]["pid"].clone(), evs[i]["tid"].clone()) == track)
        .collect();
    let f = |e: &Value, k: &str| e[k].as_f64().unwrap();
    xs.sort_by(|&a, &b| f(&evs[a], "ts").total_cmp(&f(&evs[b], "ts")));
    let mut top = Vec::new();
    let mut end = f64::NEG_INFINITY;
    for i in xs {
        if f(&evs[i], "ts") >= end {
            end = f(&evs[i], "ts") + f(&evs[i], "dur");
            top.push(i);
        }
    }
    let (a, b) = top
        .windows(2)
        .map(|w| (w[0], w[1]))
        .find(|&(_, b)| f(&evs[b], "dur") > 0.1)
        .expect("two top-level slices");
    let dur = f(&evs[b], "ts") - f(&evs[a], "ts") + f(&evs[b], "dur") / 2.0;
    evs[a]["dur"] = json!(dur);
}

/// The export of a real run opens in a real trace viewer: speedscope, served
/// on 127.0.0.1 and run in headless Chromium by tests/viewer/load_chrome_trace.mjs,
/// imports it as a Trace Event Format profile without a warning and shows one
/// profile per thread, named from the trace's process and thread names, with
/// the thread's syscalls as slices and their total time as its weight (all
/// expected values come from the recording). A truncated export and one with
/// overlapping slices are both reported as failing. Skipped with a message
/// when node, the npm packages or Chromium are missing.
#[test]
fn chrome_trace_loads_in_speedscope() {
    let (modules, chromium) = match viewer_tools() {
        Ok(t) => t,
        Err(why) => {
            eprintln!("skip: {why}");
            return;
        }
    };
    let d = scratch("viewer");
    let rec = record_forker(&d);
    let good = d.join("forker.json");
    let o = export(&["--format", "chrome", "-o", good.to_str().unwrap()], &rec);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read(&good).unwrap();
    let truncated = d.join("truncated.json");
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    let mut trace: Value = serde_json::from_slice(&text).unwrap();
    misnest(&mut trace);
    let overlapping = d.join("overlapping.json");
    std::fs::write(&overlapping, trace.to_string()).unwrap();

    let driver = common::workspace_dir().join("tests/viewer/load_chrome_trace.mjs");
    let o = Command::new("node")
        .arg(&driver)
        .arg("--modules")
        .arg(&modules)
        .arg("--chromium")
        .arg(&chromium)
        .arg("--screenshots")
        .arg(&d)
        .args([&good, &truncated, &overlapping])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "two of three files are broken\n{stdout}\n{stderr}"
    );
    let res: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(res.len(), 3, "{stdout}\n{stderr}");
    let (r, bad_trunc, bad_nest) = (&res[0], &res[1], &res[2]);

    // The good export: imported as a trace, no warning, one profile per thread.
    assert_eq!(r["ok"], true, "{r:#}");
    assert_eq!(r["importer"], "Trace Event Format profile", "{r:#}");
    assert_eq!(r["title"], "forker.json - speedscope");
    // Who is who, from the recording: the first pid is the command; its
    // fork, vfork and pthread_create return the child, the vfork child and
    // the thread, in that order.
    let evs = events(&rec);
    let root = evs[0]["pid"].as_i64().unwrap();
    let spawned: Vec<(i64, &Value)> = evs
        .iter()
        .filter(|e| {
            e["pid"] == root
                && matches!(
                    e["syscall"].as_str(),
                    Some("fork" | "vfork" | "clone" | "clone3")
                )
        })
        .filter_map(|e| Some((e["return"].as_i64().filter(|&r| r > 0)?, e)))
        .collect();
    assert_eq!(spawned.len(), 3, "{spawned:?}");
    let (child, vchild, thread) = (spawned[0].0, spawned[1].0, spawned[2].0);
    assert!(spawned[2].1["args"].to_string().contains("CLONE_THREAD"));
    let prog = common::testprog("forker").display().to_string();
    let want: BTreeMap<String, i64> = [
        (format!("{prog} [0] (pid {root}), main (tid {root})"), root),
        (
            format!("{prog} [0] (pid {root}), thread 1 (tid {thread})"),
            thread,
        ),
        (
            format!("{prog} [0.0] (pid {child}), main (tid {child})"),
            child,
        ),
        (
            format!("/bin/true [0.1] (pid {vchild}), main (tid {vchild})"),
            vchild,
        ),
    ]
    .into_iter()
    .collect();
    let shown: BTreeMap<String, &Value> = r["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), p))
        .collect();
    assert_eq!(
        shown.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "profiles speedscope shows"
    );
    for (name, tid) in &want {
        let p = shown[name];
        let calls: Vec<&Value> = evs
            .iter()
            .filter(|e| e["pid"] == *tid && e["type"] == "syscall" && e["dur_ns"].is_u64())
            .collect();
        let names: BTreeSet<&str> = calls
            .iter()
            .map(|e| e["syscall"].as_str().unwrap())
            .collect();
        let slices: BTreeSet<&str> = p["slices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert_eq!(slices, names, "slices of {name}");
        let want_us = covered_us(
            calls
                .iter()
                .map(|e| {
                    let ns = |k: &str| e[k].as_u64().unwrap() as f64 / 1e9;
                    (ns("ts_ns"), ns("dur_ns"))
                })
                .collect(),
        );
        let got_us = p["weight_us"].as_f64().expect("weight");
        // speedscope shows 2 decimals (12.34µs, 1.23ms): under 0.5% off;
        // on a thread with a few µs in all, the export's rounding of each
        // slice's start and length to the viewer's units adds up to a
        // tenth of a µs (seen: 7.53 vs 7.629 µs), hence the absolute slack.
        assert!(
            (got_us - want_us).abs() <= want_us * 0.01 + 0.5,
            "{name}: speedscope shows {}, the recording has {want_us:.3} µs",
            p["weight"]
        );
    }
    assert!(
        r["screenshot"]
            .as_str()
            .is_some_and(|s| Path::new(s).is_file()),
        "{r}"
    );

    // The broken ones fail, each in its own way.
    assert_eq!(bad_trunc["loaded"], false, "{bad_trunc:#}");
    assert_eq!(bad_trunc["ok"], false);
    assert!(
        bad_trunc["errors"]
            .to_string()
            .contains("Unrecognized format"),
        "{bad_trunc:#}"
    );
    assert_eq!(bad_nest["loaded"], true, "{bad_nest:#}");
    assert_eq!(bad_nest["ok"], false);
    assert!(
        bad_nest["warnings"].to_string().contains("Tried to end"),
        "{bad_nest:#}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
