//! `rtrace report --events`: a recording printed back as rstrace's text,
//! checked against rstrace's own text of the same program
//! (`testprogs/file_ops.c`, deterministic), and its filters (`-e trace=`,
//! `--pid`, `--from`/`--to`).

use crate::common;

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rtrace-events-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn events(args: &[&str], file: &std::path::Path) -> String {
    let o = Command::new(rtrace())
        .arg("report")
        .arg("--events")
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// (pid, name, result) of a normalised call line: `PID name(… = RET`;
/// a numeric result as a number (rstrace prints `umask`'s in octal, a JSON
/// number is decimal), then the rest (`ENOENT (…)`).
fn parts(l: &str) -> (&str, &str, Option<i128>, &str) {
    let (pid, rest) = l.split_once(' ').unwrap();
    let name = rest.split('(').next().unwrap();
    let ret = l.rsplit_once(" = ").map_or("", |r| r.1);
    let (num, tail) = ret.split_once(' ').unwrap_or((ret, ""));
    let value = if let Some(h) = num.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()
    } else if num.len() > 1 && num.starts_with('0') {
        i128::from_str_radix(num, 8).ok()
    } else {
        num.parse().ok()
    };
    match value {
        Some(v) => (pid, name, Some(v), tail),
        None => (pid, name, None, ret),
    }
}

#[test]
fn events_read_back_as_rstrace_prints_them_live() {
    let d = scratch("live");
    let prog = common::testprog("file_ops");
    // The same program, twice, in fresh directories of the same name.
    let live = d.join("live.txt");
    let run = |tracer: &mut Command| {
        let _ = std::fs::remove_dir_all(d.join("w"));
        let o = tracer.current_dir(&d).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(Command::new(common::rstrace())
        .arg("-f")
        .arg("-o")
        .arg(&live)
        .arg(&prog)
        .arg("w"));
    let rec = d.join("run.rtrace");
    run(Command::new(rtrace())
        .args(["record", "-o"])
        .arg(&rec)
        .arg("--")
        .arg(&prog)
        .arg("w"));
    let norm = |t: &str| rtrace::output::normalize::Normalizer::new().text(t);
    let live = norm(&std::fs::read_to_string(&live).unwrap());
    let back = norm(&events(&[], &rec));
    let (live, back): (Vec<&str>, Vec<&str>) = (live.lines().collect(), back.lines().collect());
    assert_eq!(live.len(), back.len(), "live:\n{live:#?}\nback:\n{back:#?}");
    assert!(live.len() > 150, "{}", live.len());
    let mut same = 0;
    for (l, b) in live.iter().zip(&back) {
        // Every line: the same thread, call and result.
        assert_eq!(parts(l), parts(b), "\nlive: {l}\nback: {b}");
        // The whole line where the recording's JSON keeps what rstrace
        // printed: not structures (their fields come back sorted), octal
        // or hex numbers (modes, offsets: JSON numbers are decimal) or
        // octal escapes (non-UTF-8 bytes: lossy in JSON today).
        let lossy = ["{", "0x", "\\3", "\\2"];
        let octal = l
            .as_bytes()
            .windows(3)
            .any(|w| matches!(w[0], b' ' | b'(' | b'|') && w[1] == b'0' && w[2].is_ascii_digit());
        if !octal && !lossy.iter().any(|p| l.contains(p)) {
            assert_eq!(l, b);
            same += 1;
        }
    }
    println!("{same} of {} lines compared whole", live.len());
    assert!(same > 100, "only {same} lines compared whole");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn trace_pid_and_time_filters() {
    let d = scratch("filters");
    let prog = common::testprog("record_ci");
    let rec = d.join("run.rtrace");
    let o = Command::new(rtrace())
        .args(["record", "-o"])
        .arg(&rec)
        .arg("--")
        .arg(&prog)
        .arg(&d)
        .arg("0")
        .output()
        .unwrap();
    assert!(o.status.code().is_some(), "{o:?}");
    let all = events(&[], &rec);
    let json: Vec<Value> = std::fs::read_to_string(&rec)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let evs: Vec<&Value> = json
        .iter()
        .filter(|e| e["type"] != "header" && e["type"] != "footer")
        .collect();
    assert_eq!(all.lines().count(), evs.len());
    // -e trace=: only those syscalls, the other events stay.
    let files = events(&["-e", "trace=openat,close"], &rec);
    let calls: Vec<&str> = files.lines().filter(|l| l.contains('(')).collect();
    let want = evs
        .iter()
        .filter(|e| e["syscall"] == "openat" || e["syscall"] == "close")
        .count();
    assert_eq!(calls.len(), want, "{files}");
    assert!(calls
        .iter()
        .all(|l| l.contains(" openat(") || l.contains(" close(")));
    assert!(files.contains("+++ exited with"), "{files}");
    // --pid: the lines of that thread only (the forked child's).
    let pids: std::collections::BTreeSet<i64> =
        evs.iter().filter_map(|e| e["pid"].as_i64()).collect();
    assert!(pids.len() >= 2, "{pids:?}");
    let child = *pids.iter().last().unwrap();
    let one = events(&["--pid", &child.to_string()], &rec);
    let n = evs.iter().filter(|e| e["pid"] == child).count();
    assert_eq!(one.lines().count(), n);
    assert!(one.lines().all(|l| l.starts_with(&format!("{child} "))));
    // --from/--to: seconds since the header's start.
    let start = json[0]["start_ns"].as_u64().unwrap();
    let times: Vec<f64> = evs
        .iter()
        .filter_map(|e| e["ts_ns"].as_u64())
        .map(|t| (t as f64 - start as f64) / 1e9)
        .collect();
    let mid = times[times.len() / 2];
    let late = events(&["--from", &format!("{mid}")], &rec);
    let early = events(&["--to", &format!("{mid}")], &rec);
    let want_late = times.iter().filter(|&&t| t >= mid).count();
    let want_early = times.iter().filter(|&&t| t <= mid).count();
    assert_eq!(late.lines().count(), want_late);
    assert_eq!(early.lines().count(), want_early);
    assert!(want_late > 0 && want_early > 0 && want_late < times.len());
    let _ = std::fs::remove_dir_all(&d);
}

/// Bytes that are not UTF-8 come back as the same bytes (the recording
/// keeps them as `{"bytes_hex":…}`), quoted as rstrace quotes them.
#[test]
fn non_utf8_bytes_come_back_exactly() {
    let d = scratch("bytes");
    let rec = d.join("run.rtrace");
    let printf = "/usr/bin/printf";
    let o = Command::new(rtrace())
        .args(["record", "-o"])
        .arg(&rec)
        .args(["--", printf, r"\377\376x"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let text = events(&["-e", "trace=write"], &rec);
    let ours: Vec<&str> = text.lines().filter(|l| l.contains(" write(")).collect();
    let live = Command::new(env!("CARGO_BIN_EXE_rstrace"))
        .args(["-e", "trace=write", printf, r"\377\376x"])
        .output()
        .unwrap();
    let live = String::from_utf8_lossy(&live.stderr);
    let want: Vec<&str> = live
        .lines()
        .filter(|l| l.starts_with("write("))
        .map(|l| l.split(" = ").next().unwrap().trim_end())
        .collect();
    assert_eq!(want, [r#"write(1, "\377\376x", 3)"#], "{live}");
    let got: Vec<&str> = ours
        .iter()
        .map(|l| l.split_once(' ').unwrap().1)
        .map(|l| l.split(" = ").next().unwrap().trim_end())
        .collect();
    assert_eq!(got, want, "{text}");
    let _ = std::fs::remove_dir_all(&d);
}
