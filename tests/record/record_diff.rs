//! `rtrace diff`: real recordings of a program that fails when a file is
//! missing, recordings with differences injected on purpose, a 200k-event
//! synthetic pair, and bad inputs.

use crate::common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

/// A fresh directory unique to this test process and call.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rtrace_diff_{tag}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Records `cmd` in `cwd` into `out`: with `rtrace record` when it works,
/// else with `rstrace -f --json` (the reader takes both). Returns the
/// command's exit code.
fn record(cmd: &Path, cwd: &Path, out: &Path) -> i32 {
    let r = Command::new(rtrace())
        .current_dir(cwd)
        .arg("record")
        .arg("-o")
        .arg(out)
        .arg("--")
        .arg(cmd)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(out).unwrap_or_default();
    if text.starts_with("{\"") && text.contains("\"header\"") && text.contains("\"syscall\"") {
        return r.status.code().unwrap_or(-1);
    }
    let r = common::named(common::rstrace())
        .current_dir(cwd)
        .args(["-f", "--json", "-o"])
        .arg(out)
        .arg(cmd)
        .output()
        .unwrap();
    r.status.code().unwrap_or(-1)
}

fn diff(args: &[&Path], extra: &[&str]) -> Output {
    Command::new(rtrace())
        .arg("diff")
        .args(args)
        .args(extra)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The lines after "> " in the text report, per side.
fn marked(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("> "))
        .map(str::to_string)
        .collect()
}

struct Runs {
    dir: PathBuf,
    pass: PathBuf,
    pass2: PathBuf,
    fail: PathBuf,
}

/// Records diff_missing passing twice, then failing (data/input.txt removed).
fn missing_file_runs(tag: &str) -> Runs {
    let prog = common::testprog("diff_missing");
    let dir = scratch(tag);
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("data/input.txt"), "input\n").unwrap();
    std::fs::write(dir.join("data/config.txt"), "config\n").unwrap();
    let (pass, pass2, fail) = (
        dir.join("pass.rtrace"),
        dir.join("pass2.rtrace"),
        dir.join("fail.rtrace"),
    );
    assert_eq!(record(&prog, &dir, &pass), 0);
    assert_eq!(record(&prog, &dir, &pass2), 0);
    std::fs::remove_file(dir.join("data/input.txt")).unwrap();
    assert_eq!(record(&prog, &dir, &fail), 1);
    Runs {
        dir,
        pass,
        pass2,
        fail,
    }
}

#[test]
fn missing_file_is_the_first_divergence() {
    let r = missing_file_runs("e2e");
    let o = diff(&[&r.pass, &r.fail], &["--context", "2"]);
    let text = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let m = marked(&text);
    assert_eq!(m.len(), 2, "one marked line per side:\n{text}");
    assert!(
        m[0].starts_with("openat(") && m[0].contains("\"data/input.txt\""),
        "{text}"
    );
    assert!(!m[0].contains("= -1"), "A opened it: {text}");
    assert!(
        m[1].starts_with("openat(") && m[1].contains("= -1 ENOENT (No such file or directory)"),
        "{text}"
    );
    assert!(text.contains("first divergence: process 0 "), "{text}");
    assert!(text.contains("different result"), "{text}");
    assert!(text.contains("files only in A: data/input.txt"), "{text}");
    assert!(text.contains("exited with 0 vs exited with 1"), "{text}");
    // Two context lines per side, before the marked line.
    let a_block: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("  A ("))
        .skip(1)
        .take(3)
        .collect();
    assert!(
        a_block[0].starts_with("      ") && a_block[1].starts_with("      "),
        "{text}"
    );
    assert!(a_block[2].trim_start().starts_with("> openat("), "{text}");

    // The JSON form says the same.
    let o = diff(&[&r.pass, &r.fail], &["--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &v["first_divergence"];
    assert_eq!(d["kind"], "different result");
    assert_eq!(d["process"], "0");
    assert!(d["b"]["lines"][0]["text"]
        .as_str()
        .unwrap()
        .contains("ENOENT"));
    assert_eq!(
        d["a"]["context"].as_array().unwrap().len(),
        3,
        "default context is 3"
    );
    assert_eq!(v["files_only_in_a"], json!(["data/input.txt"]));
    assert_eq!(v["different"], true);
    let _ = std::fs::remove_dir_all(&r.dir);
}

#[test]
fn same_program_twice_has_no_meaningful_difference() {
    let r = missing_file_runs("same");
    // Pids, addresses, times and the mkstemp name differ between the runs.
    let (a, b) = (
        std::fs::read_to_string(&r.pass).unwrap(),
        std::fs::read_to_string(&r.pass2).unwrap(),
    );
    assert_ne!(a, b);
    assert!(a.contains("/tmp/diff_missing_") && b.contains("/tmp/diff_missing_"));
    let o = diff(&[&r.pass, &r.pass2], &[]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("first divergence: none"), "{text}");
    assert!(
        text.ends_with("result: no meaningful difference\n"),
        "{text}"
    );
    // Deterministic: the same inputs give the same bytes.
    assert_eq!(diff(&[&r.pass, &r.pass2], &[]).stdout, o.stdout);
    let o = diff(&[&r.pass, &r.pass2], &["--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (o.status.code(), &v["different"], &v["first_divergence"]),
        (Some(0), &json!(false), &Value::Null)
    );
    let _ = std::fs::remove_dir_all(&r.dir);
}

/// Writes `events` as a JSON Lines file.
fn write_lines(path: &Path, events: &[Value]) {
    let text: String = events.iter().map(|e| e.to_string() + "\n").collect();
    std::fs::write(path, text).unwrap();
}

fn load(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Index of the n-th syscall record of the root process that is not one
/// the comparison ignores.
fn nth_call(events: &[Value], n: usize, name: &str) -> usize {
    let root = events.iter().find(|e| e["pid"].is_i64()).unwrap()["pid"].clone();
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["pid"] == root && e["syscall"] == name)
        .nth(n)
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("no {name} #{n}"))
}

#[test]
fn injected_differences_are_found_first() {
    let r = missing_file_runs("inject");
    let base = load(&r.pass);
    let other = load(&r.pass2);
    let d = r.dir.clone();

    // 1. A call removed from B: reported as only in A, at that call.
    let victim = nth_call(&other, 1, "newfstatat");
    let victim_text = other[victim].clone();
    let mut b = other.clone();
    b.remove(victim);
    write_lines(&d.join("removed.json"), &b);
    let o = diff(&[&r.pass, &d.join("removed.json")], &["--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(v["first_divergence"]["kind"], "only in A", "{v}");
    let line = v["first_divergence"]["a"]["lines"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(line.starts_with("newfstatat("), "{line}");
    assert_eq!(v["syscalls_only_in_a"], json!({"newfstatat": 1}));
    assert_eq!(v["syscalls_only_in_b"], json!({}));
    let _ = victim_text;

    // 2. A result changed in B (an early close fails): different result.
    let mut b = other.clone();
    let k = nth_call(&b, 0, "close");
    b[k]["return"] = json!(-1);
    b[k]["errno"] = json!("EIO");
    write_lines(&d.join("result.json"), &b);
    let o = diff(&[&r.pass, &d.join("result.json")], &[]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    let m = marked(&text);
    assert!(
        m[1].starts_with("close(") && m[1].ends_with("= -1 EIO (Input/output error)"),
        "{text}"
    );
    assert!(text.contains("different results: 1 (close 1)"), "{text}");

    // 3. An extra call in B, early in the child process: only in B there.
    let mut b = other.clone();
    let child_pid = b.iter().find(|e| e["syscall"] == "clone").unwrap()["return"].clone();
    let first_child = b.iter().position(|e| e["pid"] == child_pid).unwrap();
    let mut extra = b[first_child].clone();
    extra["syscall"] = json!("unlink");
    extra["args"] = json!(["/etc/important"]);
    extra["return"] = json!(0);
    b.insert(first_child + 1, extra);
    write_lines(&d.join("extra.json"), &b);
    let o = diff(&[&r.pass, &d.join("extra.json")], &["--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["first_divergence"]["kind"], "only in B", "{v}");
    assert_eq!(v["first_divergence"]["process"], "0.0");
    assert!(v["first_divergence"]["b"]["lines"][0]["text"]
        .as_str()
        .unwrap()
        .contains("/etc/important"));
    assert_eq!(v["files_only_in_b"], json!(["/etc/important"]));

    // 4. Only addresses, pids and times changed: no difference.
    let mut b = other.clone();
    for e in &mut b {
        if let Some(t) = e["ts_ns"].as_u64() {
            e["ts_ns"] = json!(t + 1_000_000_000_000);
        }
        if e["syscall"] == "brk" || e["syscall"] == "mmap" {
            e["return"] = json!(e["return"].as_u64().unwrap_or(0) + 0x10000);
        }
    }
    write_lines(&d.join("noise.json"), &b);
    assert_eq!(
        diff(&[&r.pass, &d.join("noise.json")], &[]).status.code(),
        Some(0)
    );
    let _ = base;
    let _ = std::fs::remove_dir_all(&r.dir);
}

/// Runs `rtrace diff`; returns its output, wall time and CPU time (user +
/// system, of that child alone: the machine may be busy with other tests).
// The child is reaped by the raw wait4 below (for its rusage), which
// clippy cannot see.
#[allow(clippy::zombie_processes)]
fn timed_diff(args: &[&Path], extra: &[&str]) -> (Output, f64, f64) {
    let t = Instant::now();
    let child = Command::new(rtrace())
        .arg("diff")
        .args(args)
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).unwrap();
        v
    });
    let stdout = reader.join().unwrap();
    let mut status = 0;
    // SAFETY: plain libc call with valid out-pointers, on our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid);
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu = secs(ru.ru_utime) + secs(ru.ru_stime);
    let o = Output {
        status: std::os::unix::process::ExitStatusExt::from_raw(status),
        stdout,
        stderr: Vec::new(),
    };
    (o, t.elapsed().as_secs_f64(), cpu)
}

/// A synthetic recording: `n` calls in one process, with call `change`
/// failing when `fail` is set.
fn synthetic(n: usize, pid: i64, change: usize, fail: bool) -> Vec<Value> {
    let mut v = Vec::with_capacity(n + 2);
    v.push(json!({"type":"syscall","pid":pid,"syscall":"execve","args":["/bin/synth",["synth"]],"return":0,"time":1.0,"duration":0.0001}));
    for i in 0..n {
        let path = format!("/data/file{}", i % 1000);
        let mut e = json!({"type":"syscall","pid":pid,"syscall":"openat","args":[{"sym":"AT_FDCWD"},path,{"flags":["O_RDONLY"]}],"return":3 + (i % 5),"time":1.0 + i as f64 * 1e-6,"duration":1e-7});
        if i % 3 == 1 {
            e = json!({"type":"syscall","pid":pid,"syscall":"mmap","args":[null,4096,{"flags":["PROT_READ"]},{"sym":"MAP_PRIVATE"},{"fd":-1},0],"return":140_000_000_000u64 + pid as u64 * 4096 + i as u64,"time":1.0 + i as f64 * 1e-6,"duration":1e-7});
        }
        if i == change && fail {
            e["return"] = json!(-1);
            e["errno"] = json!("EACCES");
            e["syscall"] = json!("openat");
        }
        v.push(e);
    }
    v.push(json!({"type":"exit","pid":pid,"status":"exited with 0"}));
    v
}

#[test]
fn two_hundred_thousand_events_are_fast() {
    let d = scratch("large");
    let (a, b) = (d.join("a.json"), d.join("b.json"));
    write_lines(&a, &synthetic(200_000, 100, 150_002, false));
    write_lines(&b, &synthetic(200_000, 200, 150_002, true));
    let (o, wall, cpu) = timed_diff(&[&a, &b], &["--json"]);
    eprintln!("rtrace diff of 2 x 200k events: {wall:.2} s wall, {cpu:.2} s CPU");
    assert!(cpu < 10.0, "took {cpu} s of CPU");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        v["first_divergence"]["a"]["lines"][0]["event"], 150_003,
        "{}",
        v["first_divergence"]
    );
    assert_eq!(v["different_results"], json!({"openat": 1}));

    // Heavily different sequences (every 7th call replaced) stay fast too.
    let mut c = synthetic(200_000, 300, 0, false);
    for (i, e) in c.iter_mut().enumerate().skip(1) {
        if i % 7 == 0 {
            e["syscall"] = json!("getpid");
        }
    }
    let cpath = d.join("c.json");
    write_lines(&cpath, &c);
    let (o, wall, cpu) = timed_diff(&[&a, &cpath], &[]);
    eprintln!("rtrace diff with 28k substitutions: {wall:.2} s wall, {cpu:.2} s CPU");
    assert!(cpu < 10.0, "took {cpu} s of CPU");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("syscalls only in B: 28571 (getpid 28571)"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn process_differences_and_exit_statuses() {
    let d = scratch("procs");
    let ev = |pid: i64, name: &str, args: Value, ret: Value| json!({"type":"syscall","pid":pid,"syscall":name,"args":args,"return":ret});
    let a = vec![
        ev(10, "execve", json!(["/bin/sh", ["sh"]]), json!(0)),
        ev(10, "fork", json!([]), json!(11)),
        ev(11, "execve", json!(["/bin/true", ["true"]]), json!(0)),
        json!({"type":"exit","pid":11,"status":"exited with 0"}),
        json!({"type":"exit","pid":10,"status":"exited with 0"}),
        json!({"type":"footer","exit_code":0}),
    ];
    let b = vec![
        ev(20, "execve", json!(["/bin/sh", ["sh"]]), json!(0)),
        ev(20, "fork", json!([]), json!(21)),
        ev(21, "execve", json!(["/bin/false", ["false"]]), json!(0)),
        json!({"type":"exit","pid":21,"status":"exited with 1"}),
        json!({"type":"exit","pid":20,"status":"killed by SIGTERM"}),
        json!({"type":"footer","exit_code":143}),
    ];
    write_lines(&d.join("a.json"), &a);
    write_lines(&d.join("b.json"), &b);
    let o = diff(&[&d.join("a.json"), &d.join("b.json")], &[]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    // Same spawn, different program: aligned anyway, the exec differs.
    assert!(
        text.contains("first divergence: process 0.0 /bin/true thread 0: different calls"),
        "{text}"
    );
    assert!(text.contains("  different exit statuses: 0 /bin/sh: exited with 0 vs killed by SIGTERM, 0.0 /bin/true: exited with 0 vs exited with 1"), "{text}");
    assert!(text.contains("command exit code: 0 vs 143"), "{text}");
    // A process only in A.
    let mut c = a.clone();
    c.insert(4, ev(10, "vfork", json!([]), json!(12)));
    c.insert(5, json!({"type":"exit","pid":12,"status":"exited with 0"}));
    write_lines(&d.join("c.json"), &c);
    let v: Value =
        serde_json::from_slice(&diff(&[&d.join("c.json"), &d.join("a.json")], &["--json"]).stdout)
            .unwrap();
    assert_eq!(v["processes_only_in_a"], json!(["0.1 /bin/sh"]));
    assert_eq!(v["syscalls_only_in_a"], json!({"vfork": 1}));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_inputs_exit_2_with_a_message() {
    let d = scratch("bad");
    let good = d.join("good.json");
    write_lines(&good, &synthetic(10, 1, 0, false));
    let notjson = d.join("notjson.json");
    std::fs::write(&notjson, "{\"type\":\"syscall\"}\nthis is not json\n").unwrap();
    let binary = d.join("binary.json");
    std::fs::write(&binary, [0xffu8, 0xfe, 0x00, 0x01]).unwrap();
    let missing = d.join("missing.json");
    let cases: Vec<(Vec<&Path>, Vec<&str>, &str)> = vec![
        (vec![&good, &notjson], vec![], "line 2: not JSON"),
        (vec![&binary, &good], vec![], "not UTF-8"),
        (vec![&good, &missing], vec![], "missing.json"),
        // clap's errors (the command line is rtrace's clap parser).
        (vec![&good], vec![], "required arguments were not provided"),
        (
            vec![&good, &good],
            vec!["--context", "x"],
            "invalid value 'x' for '--context",
        ),
        (
            vec![&good, &good],
            vec!["--frobnicate"],
            "unexpected argument '--frobnicate'",
        ),
    ];
    for (files, extra, want) in cases {
        let o = diff(&files, &extra);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{files:?} {extra:?}: {err}");
        assert!(err.contains(want), "{files:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert_eq!(diff(&[&good, &good], &[]).status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&d);
}
