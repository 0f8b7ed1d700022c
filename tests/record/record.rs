//! `rtrace record`, `rtrace report` and `--normalize`, end to end on
//! `testprogs/record_ci.c` (a failing openat, a written file, a fork+exec
//! and a plain fork child, a handled signal, a failing AF_UNIX connect);
//! zstd-compressed recordings; `--libcalls` on `testprogs/record_libc.c`.

use crate::common;

use rtrace::tracefile::Recording;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

/// A fresh directory under the system temp dir, unique to this test run.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rtrace-record-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("run")
}

/// Records `record_ci DIR MODE [extra]` into DIR/run.rtrace.
fn record(dir: &Path, mode: &str, extra: &[&str], opts: &[&str]) -> (Output, PathBuf) {
    let prog = common::testprog("record_ci");
    let file = dir.join("run.rtrace");
    let out = run(Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&file)
        .args(opts)
        .arg("--")
        .arg(&prog)
        .arg(dir)
        .arg(mode)
        .args(extra));
    (out, file)
}

fn syscalls<'a>(r: &'a Recording, name: &str) -> Vec<&'a Value> {
    r.events.iter().filter(|e| e["syscall"] == name).collect()
}

#[test]
fn header_footer_events_and_exit_code() {
    let dir = scratch("hdr");
    let (out, file) = record(&dir, "3", &[], &[]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = Recording::read(&file).unwrap();
    let h = &r.header;
    assert_eq!(h["type"], "header");
    assert_eq!(h["version"], 3);
    assert_eq!(h["tool"], "rtrace");
    let prog = common::testprog("record_ci");
    let want: Vec<Value> = [prog.to_str().unwrap(), dir.to_str().unwrap(), "3"]
        .iter()
        .map(|s| Value::from(*s))
        .collect();
    assert_eq!(h["command"], Value::Array(want));
    assert_eq!(
        h["cwd"].as_str().unwrap(),
        std::env::current_dir().unwrap().to_str().unwrap()
    );
    assert!(h["env_digest"].as_str().unwrap().starts_with("fnv1a64:"));
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_eq!(h["kernel"], release.trim());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert_eq!(h["hostname"], host.trim());
    assert!(h["start_ns"].as_u64().unwrap() > 1_600_000_000_000_000_000);
    assert_eq!(
        (h["stream"].as_str(), h["version"].as_u64()),
        (Some("record"), Some(3))
    );
    assert_eq!(h["recorded"]["syscalls"], true);
    let f = r.footer.as_ref().expect("footer");
    assert_eq!(f["exit_code"], 3);
    assert!(f["signal"].is_null());
    assert!(f["elapsed_ns"].as_u64().unwrap() > 0);
    // The counts in the footer are the events in the file.
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for e in &r.events {
        *counts
            .entry(e["type"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    for (k, n) in &counts {
        assert_eq!(f["events"][k].as_u64(), Some(*n), "{k}");
    }
    assert_eq!(f["events_total"].as_u64(), Some(r.events.len() as u64));
    // Forks, the exec, the failing openat, the signal, three exits.
    let failed: Vec<_> = syscalls(&r, "openat")
        .into_iter()
        .filter(|e| e["args"][1] == "/nonexistent/rtrace-record-missing")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["errno"], "ENOENT");
    let execs = syscalls(&r, "execve");
    assert_eq!(execs.len(), 2, "the command and the child's exec");
    assert_eq!(counts["exit"], 3);
    let sigs: Vec<_> = r.events.iter().filter(|e| e["type"] == "signal").collect();
    assert!(sigs.iter().any(|s| s["signal"] == "SIGUSR1"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_syscall_rstrace_prints_is_recorded() {
    let dir = scratch("same");
    let (out, file) = record(&dir, "0", &[], &[]);
    assert_eq!(out.status.code(), Some(0));
    let r = Recording::read(&file).unwrap();
    let plain = dir.join("plain.json");
    let o = run(common::named(common::rstrace())
        .args(["-f", "--json", "-o"])
        .arg(&plain)
        .arg(common::testprog("record_ci"))
        .arg(&dir)
        .arg("0"));
    assert_eq!(o.status.code(), Some(0));
    let p = Recording::read(&plain).unwrap();
    let key = |e: &Value| {
        format!(
            "{} {} {}",
            e["type"],
            e["syscall"],
            e["errno"].as_str().unwrap_or("")
        )
    };
    let bag = |r: &Recording| {
        let mut m: BTreeMap<String, u64> = BTreeMap::new();
        for e in &r.events {
            *m.entry(key(e)).or_default() += 1;
        }
        m
    };
    assert_eq!(bag(&r), bag(&p));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn killed_command_exits_128_plus_signal() {
    let dir = scratch("term");
    let (out, file) = record(&dir, "term", &[], &[]);
    assert_eq!(out.status.code(), Some(143));
    let r = Recording::read(&file).unwrap();
    let f = r.footer.unwrap();
    assert_eq!(f["signal"], "SIGTERM");
    assert!(f["exit_code"].is_null());
    assert!(r.events.iter().any(|e| e["type"] == "exit"
        && e["signal"] == "SIGTERM"
        && e["core_dumped"] == false
        && e.get("status").is_none()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn report_sections_have_exact_counts() {
    let dir = scratch("rep");
    let (out, file) = record(&dir, "4", &[], &[]);
    assert_eq!(out.status.code(), Some(4));
    let o = run(Command::new(rtrace())
        .arg("report")
        .arg("--json")
        .arg(&file));
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["status"], "exited with 4");
    let fail = |call: &str, path: &str| {
        j["failures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["syscall"] == call && f["path"] == path)
            .map(|f| {
                (
                    f["errno"].as_str().unwrap().to_string(),
                    f["count"].as_u64().unwrap(),
                )
            })
    };
    assert_eq!(
        fail("openat", "/nonexistent/rtrace-record-missing"),
        Some(("ENOENT".into(), 1))
    );
    assert_eq!(
        fail("connect", "/nonexistent/rtrace-record.sock"),
        Some(("ENOENT".into(), 1))
    );
    let out_txt = dir.join("out.txt");
    let f = j["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == out_txt.to_str().unwrap())
        .expect("out.txt in files");
    assert_eq!(
        (f["opens"].as_u64(), f["write_opens"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        (f["writes"].as_u64(), f["bytes_written"].as_u64()),
        (Some(1), Some(6))
    );
    let procs = j["processes"].as_array().unwrap();
    let summary: Vec<(String, String)> = procs
        .iter()
        .map(|p| {
            (
                p["path"].as_str().unwrap().to_string(),
                p["exit"]["exit_code"].to_string(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("0".to_string(), "4".to_string()),
            ("0.0".into(), "5".into()),
            ("0.1".into(), "7".into()),
        ]
    );
    assert_eq!(procs[1]["argv"], serde_json::json!(["record_ci", "child"]));
    let peers = j["peers"].as_array().unwrap();
    assert_eq!(peers.len(), 1);
    assert_eq!(peers[0]["peer"], "/nonexistent/rtrace-record.sock");
    assert_eq!(
        (peers[0]["count"].as_u64(), peers[0]["failed"].as_u64()),
        (Some(1), Some(1))
    );
    // The tree total is the sum of the processes, and counts every syscall.
    let calls = |rows: &Value| -> u64 {
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| r["calls"].as_u64().unwrap())
            .sum()
    };
    let per: u64 = procs.iter().map(|p| calls(&p["syscalls"])).sum();
    assert_eq!(calls(&j["summary"]), per);
    let rec = Recording::read(&file).unwrap();
    let returned = rec
        .events
        .iter()
        .filter(|e| e["type"] == "syscall" && !e["return"].is_null())
        .count() as u64;
    assert_eq!(per, returned);
    // The text report has every section and strace's table header.
    let t = run(Command::new(rtrace()).arg("report").arg(&file));
    let text = String::from_utf8_lossy(&t.stdout);
    for s in [
        "== Run",
        "== Syscall summary",
        "% time     seconds  usecs/call",
        "== Slowest syscalls (top 10)",
        "== Failed syscalls",
        "== Files opened",
        "== Processes",
        "== Network peers",
    ] {
        assert!(text.contains(s), "missing {s}:\n{text}");
    }
    assert!(text.contains("0.0 pid "), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn normalize_makes_two_runs_identical() {
    let (d1, d2) = (scratch("n1"), scratch("n2"));
    let (_, f1) = record(&d1, "0", &[], &[]);
    let (_, f2) = record(&d2, "0", &[], &[]);
    let rep = |f: &Path| {
        let o = run(Command::new(rtrace())
            .args(["report", "--normalize"])
            .arg(f));
        assert_eq!(o.status.code(), Some(0));
        String::from_utf8(o.stdout).unwrap()
    };
    let (a, b) = (rep(&f1), rep(&f2));
    assert_eq!(a, b);
    assert!(
        a.contains("PID1") && !a.contains(d1.to_str().unwrap()),
        "{a}"
    );
    // rstrace --normalize on a program without concurrency.
    let strace = |d: &Path| {
        let out = d.join("trace.txt");
        let o = run(common::named(common::rstrace())
            .args(["--normalize", "-T", "-tt", "-o"])
            .arg(&out)
            .arg(common::testprog("record_ci"))
            .arg(d)
            .args(["0", "nofork"]));
        assert_eq!(o.status.code(), Some(0));
        std::fs::read_to_string(out).unwrap()
    };
    let (a, b) = (strace(&d1), strace(&d2));
    assert_eq!(a, b);
    assert!(
        a.contains("<DUR>") && a.contains("TIME ") && a.contains("0xADDR"),
        "{a}"
    );
    std::fs::remove_dir_all(&d1).unwrap();
    std::fs::remove_dir_all(&d2).unwrap();
}

#[test]
fn bad_inputs_are_clear_errors() {
    let dir = scratch("bad");
    let report = |p: &Path| run(Command::new(rtrace()).arg("report").arg(p));
    let missing = report(&dir.join("nope.rtrace"));
    let text = dir.join("text.rtrace");
    std::fs::write(&text, "execve(\"/bin/true\") = 0\n").unwrap();
    let not_json = report(&text);
    let newer = dir.join("newer.rtrace");
    std::fs::write(&newer, "{\"type\":\"header\",\"version\":4}\n").unwrap();
    let too_new = report(&newer);
    for (o, want) in [
        (&missing, "No such file"),
        (&not_json, "line 1: not JSON"),
        (&too_new, "newer"),
    ] {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(want) && !err.contains("panicked"), "{err}");
    }
    let rec = |args: &[&str]| run(Command::new(rtrace()).arg("record").args(args));
    // A command line that cannot be recorded: exit 2 (as every rtrace
    // usage error); a file that cannot be created: 1.
    for (args, want, code) in [
        (&["--libcalls", "-k", "--", "true"][..], "--libcalls", 2),
        (
            &["--libcalls", "--probe", "x", "--", "true"],
            "--libcalls",
            2,
        ),
        (&["--libcalls", "-c", "--", "true"], "rtrace report", 2),
        (&["--libcalls", "-T", "--", "true"], "text output", 2),
        (&["-c", "--", "true"], "rtrace report", 2),
        (
            &["-o", "/nonexistent/dir/x.rtrace", "--", "true"],
            "cannot create",
            1,
        ),
    ] {
        let o = rec(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stack_frames_in_json() {
    let dir = scratch("stack");
    let (out, file) = record(&dir, "0", &["nofork"], &["-k", "-e", "trace=connect"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = Recording::read(&file).unwrap();
    assert_eq!(r.header["recorded"]["stack"], true);
    let c = syscalls(&r, "connect");
    assert_eq!(c.len(), 1);
    let frames = c[0]["stack"].as_array().expect("stack");
    let funcs: Vec<&str> = frames.iter().filter_map(|f| f["func"].as_str()).collect();
    assert!(funcs.contains(&"main"), "{funcs:?}");
    assert!(frames
        .iter()
        .all(|f| f["pc"].as_str().unwrap().starts_with("0x")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigterm_to_rtrace_kills_the_command_and_finishes_the_file() {
    use std::io::{BufRead, BufReader};
    let dir = scratch("intr");
    let file = dir.join("run.rtrace");
    let mut child = Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&file)
        .args(["--", "sh", "-c", "echo ready; exec sleep 600"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The command runs traced from its start: once it printed, it is traced.
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n");
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(143));
    let r = Recording::read(&file).unwrap();
    let f = r.footer.expect("footer written after the interruption");
    assert_eq!(f["interrupted"], "SIGTERM");
    // The command (sleep, after its exec) is gone: its leader was killed
    // (SIGKILL; its exit may still be under way when rtrace is done).
    let pid = r.events[0]["pid"].as_i64().unwrap();
    let dead = || {
        !Path::new(&format!("/proc/{pid}")).exists() || {
            let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            s.contains(") Z ") || s.contains(") X ")
        }
    };
    common::wait_gone(pid as i32, std::time::Duration::from_secs(5));
    assert!(dead(), "pid {pid} still runs");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Records `record_ci DIR MODE` into `file` with `opts`.
fn record_into(dir: &Path, file: &Path, mode: &str, opts: &[&str]) -> Output {
    run(Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(file)
        .args(opts)
        .arg("--")
        .arg(common::testprog("record_ci"))
        .arg(dir)
        .arg(mode))
}

/// Events by type, syscall name and errno.
fn bag(r: &Recording) -> BTreeMap<String, u64> {
    let mut m: BTreeMap<String, u64> = BTreeMap::new();
    for e in &r.events {
        let k = format!(
            "{} {} {}",
            e["type"],
            e["syscall"],
            e["errno"].as_str().unwrap_or("")
        );
        *m.entry(k).or_default() += 1;
    }
    m
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

#[test]
fn zstd_recording_reads_like_a_plain_one() {
    let dir = scratch("zstd");
    let plain = dir.join("plain.rtrace");
    let packed = dir.join("packed.rtrace");
    let by_name = dir.join("by-name.rtrace.zst");
    for (file, opts) in [
        (&plain, &[][..]),
        (&packed, &["--zstd"][..]),
        (&by_name, &[][..]),
    ] {
        let o = record_into(&dir, file, "3", opts);
        assert_eq!(
            o.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert!(!std::fs::read(&plain).unwrap().starts_with(&ZSTD_MAGIC));
    let p = Recording::read(&plain).unwrap();
    for file in [&packed, &by_name] {
        let bytes = std::fs::read(file).unwrap();
        assert!(bytes.starts_with(&ZSTD_MAGIC), "{}", file.display());
        let z = Recording::read(file).unwrap();
        assert_eq!(z.header["recorded"]["syscalls"], true);
        assert_eq!(z.header["compression"], "zstd");
        let f = z.footer.as_ref().expect("footer in the compressed file");
        assert_eq!(f["exit_code"], 3);
        assert_eq!(f["events_total"].as_u64(), Some(z.events.len() as u64));
        // The same deterministic run: the same events.
        assert_eq!(bag(&z), bag(&p), "{}", file.display());
        assert!(bytes.len() < std::fs::metadata(&plain).unwrap().len() as usize);
    }
    // report reads it: the same summary as the plain file's.
    let report = |f: &Path| {
        let o = run(Command::new(rtrace()).arg("report").arg("--json").arg(f));
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let j: Value = serde_json::from_slice(&o.stdout).unwrap();
        let calls: BTreeMap<String, u64> = j["summary"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["syscall"].as_str().unwrap().to_string(),
                    r["calls"].as_u64().unwrap(),
                )
            })
            .collect();
        (j["status"].clone(), calls)
    };
    let (zs, zcalls) = report(&packed);
    assert_eq!(zs, "exited with 3");
    assert_eq!(report(&plain).1, zcalls);
    // diff reads both kinds and finds the two runs the same.
    let d = run(Command::new(rtrace())
        .args(["diff", "--json"])
        .arg(&plain)
        .arg(&packed));
    let j: Value = serde_json::from_slice(&d.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&d.stderr)));
    assert_eq!(d.status.code(), Some(0), "{j}");
    // export too.
    let e = run(Command::new(rtrace())
        .args(["export", "--format", "chrome", "-o"])
        .arg(dir.join("t.json"))
        .arg(&packed));
    assert_eq!(
        e.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&e.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zstd_cli_round_trip() {
    if !common::have("zstd") {
        eprintln!("skip: no zstd on PATH");
        return;
    }
    let dir = scratch("zcli");
    let packed = dir.join("run.rtrace.zst");
    // Big enough for several frames (one per MiB of text).
    let o = run(Command::new(rtrace())
        .arg("record")
        .arg("-o")
        .arg(&packed)
        .args(["-s", "4096", "--", "dd", "if=/dev/urandom", "of=/dev/null"])
        .args(["bs=4096", "count=300", "status=none"]));
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // zstd reads our file, frames and checksums.
    let test = run(Command::new("zstd").arg("-t").arg(&packed));
    assert!(
        test.status.success(),
        "{}",
        String::from_utf8_lossy(&test.stderr)
    );
    let d = run(Command::new("zstd").arg("-dc").arg(&packed));
    assert!(d.status.success());
    assert!(d.stdout.len() > 2 << 20, "{} bytes", d.stdout.len());
    let frames = std::fs::read(&packed)
        .unwrap()
        .windows(4)
        .filter(|w| *w == ZSTD_MAGIC)
        .count();
    assert!(frames >= 2, "{frames} frames");
    let via_cli = Recording::parse(&d.stdout).unwrap();
    let ours = Recording::read(&packed).unwrap();
    assert_eq!(via_cli.events, ours.events);
    assert_eq!(via_cli.footer, ours.footer);
    // And what zstd writes, we read.
    let plain = dir.join("plain.rtrace");
    std::fs::write(&plain, &d.stdout).unwrap();
    let c = run(Command::new("zstd")
        .args(["-q", "-3"])
        .arg(&plain)
        .arg("-o")
        .arg(dir.join("cli.zst")));
    assert!(c.status.success());
    let back = Recording::read(&dir.join("cli.zst")).unwrap();
    assert_eq!(back.events.len(), ours.events.len());
    let r = run(Command::new(rtrace())
        .arg("report")
        .arg(dir.join("cli.zst")));
    assert_eq!(r.status.code(), Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn libcalls_are_recorded_with_syscalls_and_exit_status() {
    let dir = scratch("lib");
    let file = dir.join("lib.rtrace");
    let prog = common::testprog("record_libc");
    let o = run(Command::new(rtrace())
        .arg("record")
        .arg("--libcalls")
        .arg("-o")
        .arg(&file)
        .arg("--")
        .arg(&prog)
        .args(["hello", "37"]));
    // 37 + strlen("hello").
    assert_eq!(
        o.status.code(),
        Some(42),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.stdout, b"hello\n");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.lines().all(|l| l.starts_with("{\"type\":\"")),
        "every line starts with its type:\n{text}"
    );
    let r = Recording::read(&file).unwrap();
    assert_eq!(r.header["recorded"]["libcalls"], true);
    assert_eq!(r.header["recorded"]["syscalls"], true);
    let call = |f: &str| -> Vec<&Value> {
        r.events
            .iter()
            .filter(|e| e["type"] == "libcall" && e["func"] == f)
            .collect()
    };
    let strlen = call("strlen");
    assert_eq!(strlen.len(), 1, "{text}");
    assert_eq!(strlen[0]["args"], serde_json::json!(["\"hello\""]));
    assert_eq!(strlen[0]["return"], "5");
    assert_eq!(strlen[0]["lib"], "libc.so.6");
    let atoi = call("atoi");
    assert_eq!(atoi.len(), 1, "{text}");
    assert_eq!(atoi[0]["args"], serde_json::json!(["\"37\""]));
    assert_eq!(atoi[0]["return"], "37");
    let getenv = call("getenv");
    assert_eq!(getenv.len(), 1, "{text}");
    assert_eq!(
        getenv[0]["args"],
        serde_json::json!(["\"RTRACE_RECORD_UNSET\""])
    );
    assert_eq!(getenv[0]["return"], "nil");
    assert_eq!(call("puts").len(), 1, "{text}");
    // The syscalls are there too, in rstrace's shape: puts' write.
    let w: Vec<&Value> = syscalls(&r, "write")
        .into_iter()
        .filter(|e| e["args"][1] == "hello\n")
        .collect();
    assert_eq!(w.len(), 1, "{text}");
    assert_eq!(w[0]["return"], 6);
    assert_eq!(w[0]["pid"], strlen[0]["pid"]);
    // Footer counts and status.
    let f = r.footer.as_ref().expect("footer");
    assert_eq!(f["exit_code"], 42);
    let libcalls = r.events.iter().filter(|e| e["type"] == "libcall").count();
    assert_eq!(f["events"]["libcall"].as_u64(), Some(libcalls as u64));
    assert_eq!(f["events_total"].as_u64(), Some(r.events.len() as u64));
    // report counts them; its process tree names the command.
    let rep = run(Command::new(rtrace()).args(["report", "--json"]).arg(&file));
    assert_eq!(rep.status.code(), Some(0));
    let j: Value = serde_json::from_slice(&rep.stdout).unwrap();
    assert_eq!(j["status"], "exited with 42");
    let row = j["libcalls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["func"] == "strlen")
        .expect("strlen in the report");
    assert_eq!(row["calls"], 1);
    assert_eq!(row["lib"], "libc.so.6");
    let total: u64 = j["libcalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(total, libcalls as u64);
    assert_eq!(
        j["processes"][0]["program"].as_str(),
        prog.to_str(),
        "{}",
        j["processes"]
    );
    let t = run(Command::new(rtrace()).arg("report").arg(&file));
    let text = String::from_utf8_lossy(&t.stdout);
    assert!(text.contains("== Library calls"), "{text}");
    // diff and export read the file (diff compares the syscalls only).
    let d = run(Command::new(rtrace()).arg("diff").arg(&file).arg(&file));
    assert_eq!(
        d.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&d.stdout)
    );
    let e = run(Command::new(rtrace())
        .args(["export", "--format", "chrome"])
        .arg(&file));
    assert_eq!(e.status.code(), Some(0));
    let c: Value = serde_json::from_slice(&e.stdout).unwrap();
    assert!(c["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["cat"] == "libcall" && x["name"] == "strlen"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn libcalls_with_zstd_and_rltrace_filters() {
    let dir = scratch("libz");
    let file = dir.join("lib.rtrace.zst");
    let o = run(Command::new(rtrace())
        .arg("record")
        .args(["--libcalls", "-e", "strlen", "-o"])
        .arg(&file)
        .arg(common::testprog("record_libc"))
        .args(["abc", "1"]));
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read(&file).unwrap().starts_with(&ZSTD_MAGIC));
    let r = Recording::read(&file).unwrap();
    let funcs: Vec<&str> = r
        .events
        .iter()
        .filter(|e| e["type"] == "libcall")
        .filter_map(|e| e["func"].as_str())
        .collect();
    assert_eq!(funcs, ["strlen"], "-e strlen keeps only strlen");
    assert_eq!(r.header["options"], serde_json::json!(["-e", "strlen"]));
    assert_eq!(r.footer.unwrap()["exit_code"], 4);
    std::fs::remove_dir_all(&dir).unwrap();
}
