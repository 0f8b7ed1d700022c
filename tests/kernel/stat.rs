//! `rtrace stat`: perf_event_open counters on this machine, compared with
//! `perf stat` where it runs.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

fn stat(args: &[&str]) -> (Output, String) {
    let o = Command::new(rtrace())
        .arg("stat")
        .args(args)
        .output()
        .expect("run rtrace");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o, err)
}

/// The value column of the row naming `event`.
fn row<'a>(report: &'a str, event: &str) -> Option<&'a str> {
    report.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let i = f.iter().position(|w| *w == event)?;
        (i >= 1).then(|| f[0])
    })
}

fn opens_prog() -> PathBuf {
    common::testprog_variant("k_opens", "static", &["-static"])
}

fn perf_usable() -> bool {
    common::have("perf")
        && Command::new("perf")
            .args(["stat", "-e", "task-clock", "true"])
            .output()
            .is_ok_and(|o| o.status.success())
}

#[test]
fn tracepoint_count_is_exact() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skip: tracepoint counters need root");
        return;
    }
    let prog = opens_prog();
    let (o, err) = stat(
        &[
            "-e",
            "syscalls:sys_enter_openat,syscalls:sys_enter_close",
            "--",
        ]
        .iter()
        .copied()
        .chain([prog.to_str().unwrap(), "1000"])
        .collect::<Vec<_>>(),
    );
    assert!(o.status.success(), "{err}");
    assert_eq!(
        row(&err, "syscalls:sys_enter_openat"),
        Some("1000"),
        "{err}"
    );
    assert_eq!(row(&err, "syscalls:sys_enter_close"), Some("1000"), "{err}");
    if perf_usable() {
        let p = Command::new("perf")
            .args(["stat", "-e", "syscalls:sys_enter_openat"])
            .arg(&prog)
            .arg("1000")
            .output()
            .unwrap();
        let perr = String::from_utf8_lossy(&p.stderr);
        assert_eq!(
            row(&perr, "syscalls:sys_enter_openat"),
            Some("1000"),
            "perf: {perr}"
        );
    } else {
        eprintln!("note: perf not usable here; no differential check");
    }
}

#[test]
fn software_counters_repeat_three() {
    let prog = opens_prog();
    let (o, err) = stat(&[
        "-e",
        "task-clock,page-faults",
        "-r",
        "3",
        prog.to_str().unwrap(),
        "10",
    ]);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "Performance counter stats for '{} 10' (3 runs):",
            prog.display()
        )),
        "{err}"
    );
    let clock: f64 = row(&err, "task-clock")
        .expect("task-clock row")
        .parse()
        .unwrap();
    assert!(
        clock > 0.0 && clock < 10_000.0,
        "task-clock {clock} msec: {err}"
    );
    let faults: u64 = row(&err, "page-faults")
        .expect("page-faults row")
        .parse()
        .unwrap();
    assert!(faults > 0 && faults < 100_000, "{err}");
    assert_eq!(
        err.matches("( +-").count(),
        3,
        "two counters and the time: {err}"
    );
    assert!(err.contains("seconds time elapsed"), "{err}");
}

#[test]
fn hardware_counters_without_a_pmu_are_not_supported() {
    let (o, err) = stat(&["-e", "cycles,instructions,task-clock", "true"]);
    assert!(o.status.success(), "{err}");
    let has_pmu = std::path::Path::new("/sys/bus/event_source/devices/cpu").exists()
        || std::path::Path::new("/sys/bus/event_source/devices/cpu_core").exists();
    let cycles = row(&err, "cycles").expect("cycles row");
    if has_pmu {
        assert!(cycles.parse::<u64>().is_ok(), "{err}");
    } else {
        assert_eq!(cycles, "<not", "{err}");
        assert!(err.contains("<not supported>      instructions"), "{err}");
    }
    assert!(row(&err, "task-clock").is_some_and(|v| v.parse::<f64>().is_ok()));
}

#[test]
fn command_exit_status_and_errors() {
    let (o, _) = stat(&["-e", "task-clock", "sh", "-c", "exit 3"]);
    assert_eq!(o.status.code(), Some(3));
    let (o, err) = stat(&["-e", "no-such-event", "true"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("unknown event 'no-such-event'"), "{err}");
    let (o, _) = stat(&["-e", "task-clock"]);
    // A bad command line: 2, as every rtrace subcommand.
    assert_eq!(o.status.code(), Some(2), "no command and no -p");
}
