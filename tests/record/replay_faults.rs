//! `rstrace --replay-faults FILE`: a run of `testprogs/inject_conf.c`
//! recorded while its config file was missing fails the same way (same
//! exit status, same message) when replayed with the file present, in the
//! process itself and in a forked child; the trace marks the replayed
//! openat. Recordings come from `rstrace -f --json -o FILE` and from
//! `rtrace record`.

use crate::common;

use common::{rstrace, testprog};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rtrace-replay-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

/// `inject_conf [--fork] CONF` under rstrace with `opts`.
fn rstrace_run(opts: &[&str], fork: bool, conf: &Path) -> Output {
    let mut c = common::named(rstrace());
    c.args(opts).arg(testprog("inject_conf"));
    if fork {
        c.arg("--fork");
    }
    c.arg(conf).output().expect("run rstrace")
}

/// The program's own message lines (rstrace's start with `rstrace:`).
fn program_stderr(o: &Output) -> Vec<String> {
    text(&o.stderr)
        .lines()
        .filter(|l| !l.starts_with("rstrace: "))
        .map(str::to_string)
        .collect()
}

/// Records a failing run (config missing) with `rstrace -f --json`, then
/// replays it with the config present.
fn record_then_replay(fork: bool) {
    let d = scratch(if fork { "fork" } else { "plain" });
    let conf = d.join("app.conf");
    let rec = d.join("failing.jsonl");
    let failing = rstrace_run(&["-f", "--json", "-o", rec.to_str().unwrap()], fork, &conf);
    assert_eq!(failing.status.code(), Some(3), "{failing:?}");
    let msg = format!(
        "inject_conf: cannot open {}: No such file or directory",
        conf.display()
    );
    assert_eq!(program_stderr(&failing), std::slice::from_ref(&msg));

    std::fs::write(&conf, "mode=fast\n").unwrap();
    let passing = rstrace_run(&["-f", "-o", "/dev/null"], fork, &conf);
    assert_eq!(passing.status.code(), Some(0), "{passing:?}");
    assert_eq!(text(&passing.stdout), "setting=mode=fast\n");

    let trace = d.join("replay.txt");
    let replayed = rstrace_run(
        &[
            "-f",
            "-o",
            trace.to_str().unwrap(),
            "--replay-faults",
            rec.to_str().unwrap(),
        ],
        fork,
        &conf,
    );
    assert_eq!(
        replayed.status.code(),
        failing.status.code(),
        "{replayed:?}"
    );
    assert_eq!(program_stderr(&replayed), [msg]);
    assert!(replayed.stdout.is_empty());
    let t = std::fs::read_to_string(&trace).unwrap();
    let want = format!(
        "openat(AT_FDCWD, \"{}\", O_RDONLY) = -1 ENOENT (No such file or directory) (INJECTED)",
        conf.display()
    );
    let line = t
        .lines()
        .find(|l| l.contains(&*conf.to_string_lossy()))
        .unwrap_or_else(|| panic!("{t}"));
    // `PID  openat(...)`: -f with -o prefixes the pid.
    let body = line
        .split_once(' ')
        .map(|x| x.1.trim_start())
        .unwrap_or(line);
    assert_eq!(body.split_whitespace().collect::<Vec<_>>().join(" "), want);
    if fork {
        // In the second child, not in the parent or the first child.
        let pid = line.split_whitespace().next().unwrap();
        // The completed fork lines (whole or `<... clone resumed>`) and their results.
        let forks: Vec<&str> = t
            .lines()
            .filter(|l| l.contains("clone") || l.contains("fork"))
            .filter_map(|l| l.trim_end().rsplit_once("= ").map(|x| x.1))
            .filter(|r| r.parse::<i32>().is_ok_and(|n| n > 0))
            .collect();
        assert_eq!(forks, [forks[0], pid], "{t}");
    }
    let report = text(&replayed.stderr);
    let rep = report
        .lines()
        .find(|l| l.starts_with("rstrace: --replay-faults: injected "))
        .unwrap_or_else(|| panic!("{report}"));
    // Every recorded %file failure was reached (the missing config, and the
    // loader's harmless ones).
    let nums: Vec<&str> = rep
        .split_whitespace()
        .filter(|w| w.parse::<u32>().is_ok())
        .collect();
    assert_eq!(nums.len(), 2, "{rep}");
    assert_eq!(nums[0], nums[1], "{rep}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_missing_config_failure_is_reproduced_with_the_file_present() {
    record_then_replay(false);
}

#[test]
fn the_failure_is_reproduced_in_a_forked_child() {
    record_then_replay(true);
}

#[test]
fn selection_and_untraced_calls() {
    let d = scratch("select");
    let conf = d.join("app.conf");
    let rec = d.join("failing.jsonl");
    let failing = rstrace_run(&["-f", "--json", "-o", rec.to_str().unwrap()], false, &conf);
    assert_eq!(failing.status.code(), Some(3));
    std::fs::write(&conf, "x\n").unwrap();
    // Only stat-like calls replayed: the openat is not, the program passes.
    let spec = format!("{}:trace=stat,newfstatat", rec.display());
    let o = rstrace_run(
        &["-f", "-o", "/dev/null", "--replay-faults", &spec],
        false,
        &conf,
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    // The stat-like failures (none, or the loader's harmless ones when
    // LD_LIBRARY_PATH names missing directories, as under cargo test) are
    // all reached again.
    let err = text(&o.stderr);
    let rep = err
        .lines()
        .find(|l| l.starts_with("rstrace: --replay-faults: injected "))
        .unwrap_or_else(|| panic!("{err}"));
    let nums: Vec<&str> = rep
        .split_whitespace()
        .filter(|w| w.parse::<u32>().is_ok())
        .collect();
    assert_eq!(nums.len(), 2, "{rep}");
    assert_eq!(nums[0], nums[1], "{rep}");
    // openat is not traced (seccomp stops only write and the replayed
    // calls): it is still counted and replayed.
    let o = rstrace_run(
        &[
            "-f",
            "-e",
            "trace=write",
            "--replay-faults",
            rec.to_str().unwrap(),
        ],
        false,
        &conf,
    );
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(!text(&o.stderr).contains("openat("), "{}", text(&o.stderr));
    // Unreadable recordings are refused before the command runs.
    let o = rstrace_run(&["--replay-faults", "/nonexistent/rec.jsonl"], false, &conf);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr).lines().next(),
        Some("rstrace: --replay-faults: '/nonexistent/rec.jsonl': No such file or directory (os error 2)")
    );
    assert!(o.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn with_rtrace_record() {
    let d = scratch("record");
    let conf = d.join("app.conf");
    let rec = d.join("failing.rtrace");
    let prog = testprog("inject_conf");
    let failing = Command::new(rtrace())
        .args(["record", "-o", rec.to_str().unwrap(), "--"])
        .arg(&prog)
        .args(["--fork", conf.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(failing.status.code(), Some(3), "{failing:?}");
    std::fs::write(&conf, "x\n").unwrap();
    // The replayed run, itself recorded: its trace file holds the injection.
    let again = d.join("replayed.rtrace");
    let replayed = Command::new(rtrace())
        .args([
            "record",
            "-o",
            again.to_str().unwrap(),
            "--replay-faults",
            rec.to_str().unwrap(),
            "--",
        ])
        .arg(&prog)
        .args(["--fork", conf.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(replayed.status.code(), Some(3), "{replayed:?}");
    let msg = format!(
        "inject_conf: cannot open {}: No such file or directory",
        conf.display()
    );
    assert!(
        text(&replayed.stderr).lines().any(|l| l == msg),
        "{replayed:?}"
    );
    let r = rtrace::tracefile::Recording::read(&again).unwrap();
    let injected: Vec<&serde_json::Value> = r
        .events
        .iter()
        .filter(|e| e["injected"] == true && e["syscall"] == "openat")
        .filter(|e| e["args"][1] == *conf.to_string_lossy())
        .collect();
    assert_eq!(injected.len(), 1, "{:?}", r.events);
    assert_eq!(injected[0]["errno"], "ENOENT");
    let _ = std::fs::remove_dir_all(&d);
}
