//! `rtrace record --probe SPEC`: breakpoint and return-probe hits in the
//! same trace file as the syscalls, on `testprogs/rec_probe.c` (a function
//! that makes one getpid syscall, called from the main thread and from a
//! second thread; a loop mode for Ctrl-C). Checks the counts against what
//! the program says it did, the order of hits and syscalls per thread, the
//! DWARF arguments and return values, `rtrace report`, `rtrace diff`, the
//! Chrome export (instants on the thread's track, and speedscope still
//! loading it when the viewer tools are installed), that no breakpoint byte
//! or out-of-line page is left in a program that survives rtrace's SIGINT,
//! and the refusal of a bad spec.

use crate::common;

use rtrace::tracefile::Recording;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

/// A fresh directory under the system temp dir, unique to this test run.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rtrace-recprobe-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Records `rec_probe ARGS` with `--probe` for each of `probes` into
/// DIR/NAME.
fn record(dir: &Path, name: &str, probes: &[&str], args: &[&str]) -> (Output, PathBuf) {
    let file = dir.join(name);
    let mut c = Command::new(rtrace());
    c.arg("record").arg("-o").arg(&file);
    for p in probes {
        c.arg("--probe").arg(p);
    }
    let out = c
        .arg("--")
        .arg(common::testprog("rec_probe"))
        .args(args)
        .output()
        .expect("run rtrace");
    (out, file)
}

/// What `rec_probe N` says: calls per thread, the second thread's tid.
struct Said {
    main_calls: usize,
    thread_calls: usize,
    thread_tid: i64,
    lines: Vec<String>,
}

fn said(stdout: &[u8]) -> Said {
    let text = String::from_utf8_lossy(stdout);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let f: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!((f[0], f[3]), ("calls", "tid"), "{text}");
    Said {
        main_calls: f[1].parse().unwrap(),
        thread_calls: f[2].parse().unwrap(),
        thread_tid: f[4].parse().unwrap(),
        lines,
    }
}

fn probes_of<'a>(r: &'a Recording, spec: &str) -> Vec<&'a Value> {
    r.events
        .iter()
        .filter(|e| e["type"] == "probe" && e["spec"] == spec)
        .collect()
}

fn ok(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn hits_and_returns_are_recorded_in_order_with_the_syscalls() {
    let d = scratch("order");
    let (o, file) = record(&d, "run.rtrace", &["probe_me", "ret:probe_me"], &["7"]);
    ok(&o);
    let s = said(&o.stdout);
    let r = Recording::read(&file).unwrap();
    assert_eq!(
        r.header["recorded"]["probes"],
        serde_json::json!(["probe_me", "ret:probe_me"])
    );
    // As many hits and returns as the program made calls.
    let calls = s.main_calls + s.thread_calls;
    let hits = probes_of(&r, "probe_me");
    let rets = probes_of(&r, "ret:probe_me");
    assert_eq!((hits.len(), rets.len()), (calls, calls));
    let footer = r.footer.as_ref().expect("footer");
    assert_eq!(footer["events"]["probe"].as_u64(), Some(2 * calls as u64));
    // Every line of the file starts with its type.
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.lines().all(|l| l.starts_with("{\"type\":\"")));

    let main_tid = r.events[0]["pid"].as_i64().unwrap();
    for (tid, n, first) in [
        (main_tid, s.main_calls, 0),
        (s.thread_tid, s.thread_calls, 1000),
    ] {
        // This thread's probes and getpid calls: hit, getpid, return, per
        // call, in file order and in time order.
        let seq: Vec<&Value> = r
            .events
            .iter()
            .filter(|e| e["pid"] == tid && (e["type"] == "probe" || e["syscall"] == "getpid"))
            .collect();
        assert_eq!(seq.len(), 3 * n, "tid {tid}");
        for (k, call) in seq.chunks(3).enumerate() {
            let (hit, sys, ret) = (call[0], call[1], call[2]);
            let i = first + k as i64;
            assert_eq!(
                (
                    hit["kind"].as_str(),
                    sys["syscall"].as_str(),
                    ret["kind"].as_str()
                ),
                (Some("hit"), Some("getpid"), Some("return")),
                "{call:?}"
            );
            let t = |e: &Value| e["ts_ns"].as_u64().unwrap();
            assert!(t(hit) <= t(sys) && t(sys) <= t(ret), "{call:?}");
            // Arguments from DWARF, the return value, the entry argument
            // register; the process of a thread.
            assert_eq!(hit["function"], "probe_me");
            assert_eq!(hit["args"][0]["name"], "i");
            assert_eq!(hit["args"][0]["value"].as_i64(), Some(i), "{hit}");
            let tag = if first == 0 { "main" } else { "thread" };
            assert_eq!(hit["args"][1]["value"], tag, "{hit}");
            assert_eq!(ret["retval"].as_i64(), Some(3 * i + 1), "{ret}");
            assert_eq!(ret["entry_args"][0].as_i64(), Some(i), "{ret}");
            assert!(ret["dur_ns"].as_u64().unwrap() > 0);
            for e in [hit, ret] {
                assert_eq!(e["tid"].as_i64(), Some(tid));
                assert_eq!(e["tgid"].as_i64(), Some(main_tid));
                assert!(e["addr"].is_string() || e["kind"] == "return");
            }
        }
    }
    // While traced, the program's own check sees the breakpoint bytes and
    // the out-of-line page (so the check after a detach can fail).
    assert!(s.lines[1].starts_with("code changed "), "{:?}", s.lines);
    assert_eq!(s.lines[2], "anon exec 1", "{:?}", s.lines);

    // rtrace report: hits per probe, in all and per process.
    let rep = Command::new(rtrace())
        .arg("report")
        .arg(&file)
        .output()
        .unwrap();
    ok(&rep);
    let text = String::from_utf8_lossy(&rep.stdout);
    let sect = text.split("== Probes").nth(1).expect("probes section");
    let lines: Vec<&str> = sect.lines().skip(1).collect();
    assert!(
        lines[0].split_whitespace().collect::<Vec<_>>() == [&calls.to_string(), "probe_me"],
        "{sect}"
    );
    assert!(
        lines[1]
            .trim_start()
            .starts_with(&format!("{calls}    0 pid {main_tid} ")),
        "{sect}"
    );
    assert!(
        lines[2]
            .trim_start()
            .starts_with(&format!("{calls}  ret:probe_me  (mean ")),
        "{sect}"
    );
    let rep = Command::new(rtrace())
        .args(["report", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    ok(&rep);
    let j: Value = serde_json::from_slice(&rep.stdout).unwrap();
    let by: BTreeMap<&str, u64> = j["probes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["spec"].as_str().unwrap(), p["hits"].as_u64().unwrap()))
        .collect();
    assert_eq!(by["probe_me"], calls as u64);
    assert_eq!(by["ret:probe_me"], calls as u64);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn conditions_and_unmatched_specs() {
    let d = scratch("cond");
    let (o, file) = record(
        &d,
        "run.rtrace",
        &["probe_me if i == 2", "no_such_function_here"],
        &["4"],
    );
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("probe 'no_such_function_here' matched nothing"),
        "{err}"
    );
    let r = Recording::read(&file).unwrap();
    let hits = probes_of(&r, "probe_me if i == 2");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["args"][0]["value"], 2);
    assert!(probes_of(&r, "no_such_function_here").is_empty());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_spec_is_refused_before_any_file_is_written() {
    let d = scratch("bad");
    for (spec, want) in [
        ("ret:", "--probe 'ret:'"),
        ("*0xzz", "bad address"),
        ("ret:a.c:3", "return probe"),
    ] {
        let (o, file) = record(&d, "bad.rtrace", &[spec], &["1"]);
        let err = String::from_utf8_lossy(&o.stderr);
        // A bad command line: exit 2, as rtrace break's bad specs.
        assert_eq!(o.status.code(), Some(2), "{spec}: {err}");
        assert!(err.contains(want), "{spec}: {err}");
        assert!(!file.exists(), "{spec}: a trace file was left");
    }
    let o = Command::new(rtrace())
        .args(["record", "--libcalls", "--probe", "f", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--libcalls"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn diff_compares_probe_hit_counts() {
    let d = scratch("diff");
    let specs = ["probe_me", "ret:probe_me"];
    let (o, a) = record(&d, "a.rtrace", &specs, &["3"]);
    ok(&o);
    let (o, b) = record(&d, "b.rtrace", &specs, &["5"]);
    ok(&o);
    let diff = |x: &Path, y: &Path| {
        Command::new(rtrace())
            .arg("diff")
            .arg(x)
            .arg(y)
            .output()
            .unwrap()
    };
    let o = diff(&a, &b);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("different probe hits: probe_me 6 vs 10, ret:probe_me 6 vs 10"),
        "{text}"
    );
    // The probe lines take no part in the alignment: the lines of the first
    // divergence and its context are syscalls.
    let o = Command::new(rtrace())
        .args(["diff", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["different_probe_hits"][0]["a"], 6, "{j}");
    let (ra, rb) = (Recording::read(&a).unwrap(), Recording::read(&b).unwrap());
    let fd = &j["first_divergence"];
    for (side, rec) in [("a", &ra), ("b", &rb)] {
        let shown: Vec<&Value> = ["context", "lines"]
            .iter()
            .flat_map(|k| fd[side][*k].as_array().unwrap())
            .collect();
        assert!(!shown.is_empty(), "{fd}");
        for l in shown {
            let e = &rec.events[l["event"].as_u64().unwrap() as usize];
            assert_eq!(e["type"], "syscall", "{e}");
        }
    }
    let o = diff(&a, &a);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("different probe hits: none"), "{text}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Where speedscope and Chromium are (as record_export.rs finds
/// them); `None` when missing.
fn viewer_tools() -> Option<(PathBuf, PathBuf)> {
    if !common::have("node") {
        return None;
    }
    let modules = std::env::var_os("RTRACE_VIEWER_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::target_dir().join("viewer-node_modules/node_modules"));
    let need = [
        "speedscope/dist/release/index.html",
        "playwright-core/package.json",
    ];
    if !need.iter().all(|n| modules.join(n).is_file()) {
        return None;
    }
    let chromium = std::env::var_os("RTRACE_VIEWER_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    common::have(chromium.to_str()?).then_some((modules, chromium))
}

#[test]
fn chrome_export_has_probe_instants_on_the_thread_tracks() {
    let d = scratch("chrome");
    let (o, file) = record(&d, "run.rtrace", &["probe_me", "ret:probe_me"], &["4"]);
    ok(&o);
    let s = said(&o.stdout);
    let r = Recording::read(&file).unwrap();
    let out = d.join("run.json");
    let o = Command::new(rtrace())
        .args(["export", "--format", "chrome", "-o"])
        .arg(&out)
        .arg(&file)
        .output()
        .unwrap();
    ok(&o);
    let trace: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let evs = trace["traceEvents"].as_array().unwrap();
    let main_tid = r.events[0]["pid"].as_i64().unwrap();
    let mut per: BTreeMap<(i64, String), usize> = BTreeMap::new();
    for e in evs.iter().filter(|e| e["cat"] == "probe") {
        assert_eq!(
            (e["ph"].as_str(), e["s"].as_str()),
            (Some("i"), Some("t")),
            "{e}"
        );
        assert_eq!(e["pid"].as_i64(), Some(main_tid), "{e}");
        assert!(e["ts"].is_f64() || e["ts"].is_u64(), "{e}");
        *per.entry((
            e["tid"].as_i64().unwrap(),
            e["name"].as_str().unwrap().to_string(),
        ))
        .or_default() += 1;
        if e["name"] == "probe_me" {
            assert_eq!(e["args"]["function"], "probe_me");
            assert!(e["args"]["args"][0]["value"].is_i64(), "{e}");
        }
    }
    let want: BTreeMap<(i64, String), usize> = [
        ((main_tid, "probe_me".to_string()), s.main_calls),
        ((main_tid, "ret:probe_me".to_string()), s.main_calls),
        ((s.thread_tid, "probe_me".to_string()), s.thread_calls),
        ((s.thread_tid, "ret:probe_me".to_string()), s.thread_calls),
    ]
    .into_iter()
    .collect();
    assert_eq!(per, want);
    // Each probe track is a named thread track.
    for tid in [main_tid, s.thread_tid] {
        assert!(
            evs.iter()
                .any(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["tid"] == tid),
            "no thread_name for {tid}"
        );
    }
    // The hit sits before its getpid slice on the same track.
    let first = |name: &str, tid: i64| {
        evs.iter()
            .filter(|e| e["name"] == name && e["tid"] == tid)
            .map(|e| e["ts"].as_f64().unwrap())
            .fold(f64::INFINITY, f64::min)
    };
    assert!(first("probe_me", s.thread_tid) <= first("getpid", s.thread_tid));

    // A real viewer still loads it (speedscope drops instants).
    match viewer_tools() {
        None => eprintln!("skip: speedscope/playwright-core/Chromium not installed"),
        Some((modules, chromium)) => {
            let driver = common::workspace_dir().join("tests/viewer/load_chrome_trace.mjs");
            let o = Command::new("node")
                .arg(&driver)
                .arg("--modules")
                .arg(&modules)
                .arg("--chromium")
                .arg(&chromium)
                .arg(&out)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{stdout}\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            let res: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
            assert_eq!(res["ok"], true, "{res:#}");
            assert_eq!(res["importer"], "Trace Event Format profile", "{res:#}");
            let names: Vec<&str> = res["profiles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap())
                .collect();
            for tid in [main_tid, s.thread_tid] {
                assert!(
                    names.iter().any(|n| n.ends_with(&format!("(tid {tid})"))),
                    "{names:?}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sigint_leaves_no_breakpoint_in_a_surviving_program() {
    let d = scratch("sigint");
    let file = d.join("run.rtrace");
    let mut r = Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&file)
        .args(["--probe", "probe_me", "--probe", "ret:probe_me", "--"])
        .arg(common::testprog("rec_probe"))
        .arg("loop")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(r.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    // Five calls made (ten probe events recorded, each at its stop); the
    // program spends most of its time inside probe_me, with its return
    // address swapped for the trampoline, which is where SIGINT most likely
    // finds it.
    assert_eq!(line, "started\n");
    let st = Command::new("kill")
        .args(["-INT", &r.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let status = r.wait().unwrap();
    let mut err = String::new();
    r.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    // The program caught the SIGINT rtrace passed on and ran on untraced:
    // its later calls return right, its code equals its files, and no
    // executable page of rtrace's is left.
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let lines: Vec<&str> = rest.lines().collect();
    assert_eq!(lines.len(), 3, "{rest}\n{err}");
    assert!(
        lines[0].starts_with("after ") && lines[0].ends_with(" calls ok"),
        "{rest}"
    );
    assert_eq!(lines[1], "code intact", "{rest}");
    assert_eq!(lines[2], "anon exec 0", "{rest}");
    // The recording ends with a footer that says why and counts the hits.
    let rec = Recording::read(&file).unwrap();
    let footer = rec.footer.as_ref().expect("footer");
    assert_eq!(footer["interrupted"], "SIGINT");
    let n = rec.events.iter().filter(|e| e["type"] == "probe").count();
    assert!(n >= 10, "{n}");
    assert_eq!(footer["events"]["probe"].as_u64(), Some(n as u64));
    let _ = std::fs::remove_dir_all(&d);
}

/// The n with n(n+1)/2 == s.
fn triangle_root(s: i64) -> i64 {
    let n = (((8 * s + 1) as f64).sqrt() as i64 - 1) / 2;
    assert_eq!(n * (n + 1) / 2, s, "{s} is not a triangular number");
    n
}

#[test]
fn forked_children_keep_their_probes() {
    // bp_fork: work(i) = i + 1 for i < 100, twice in the parent around a
    // forked child's loop of 1000; it prints both sums.
    let d = scratch("fork");
    let file = d.join("run.rtrace");
    let o = Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&file)
        .args(["--probe", "work", "--probe", "ret:work", "--"])
        .arg(common::testprog("bp_fork"))
        .output()
        .unwrap();
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    let num = |key: &str| -> i64 {
        text.split_whitespace()
            .skip_while(|w| *w != key)
            .nth(1)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no '{key}' in {text}"))
    };
    let child_calls = triangle_root(num("child")) as u64;
    let parent_calls = 2 * triangle_root(num("parent") / 2) as u64;
    let rep = Command::new(rtrace())
        .args(["report", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    ok(&rep);
    let j: Value = serde_json::from_slice(&rep.stdout).unwrap();
    for p in j["probes"].as_array().unwrap() {
        let per: BTreeMap<&str, u64> = p["processes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| (x["path"].as_str().unwrap(), x["hits"].as_u64().unwrap()))
            .collect();
        let want: BTreeMap<&str, u64> = [("0", parent_calls), ("0.0", child_calls)]
            .into_iter()
            .collect();
        assert_eq!(per, want, "{p}");
        assert_eq!(p["hits"].as_u64(), Some(parent_calls + child_calls));
    }
    assert_eq!(j["probes"].as_array().unwrap().len(), 2);
    let _ = std::fs::remove_dir_all(&d);
}
