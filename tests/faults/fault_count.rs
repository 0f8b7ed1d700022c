//! Fault matrix, counting: with 1,000 short-lived threads and a fork bomb
//! bounded to 200 processes, every event is counted exactly by rstrace
//! (lines and -c), rltrace and `rtrace break --count`.

use crate::common;

use common::{count_lines, rltrace, rstrace, rtrace, run_within, testprog};
use std::path::Path;
use std::process::ExitStatus;

/// Runs with a 90 s limit (killed and failed past it); status, stdout, stderr.
fn run(cmd: &Path, args: &[&str]) -> (ExitStatus, String, String) {
    run_within(cmd, args, 90)
}

/// The calls column of `name`'s row in a -c table.
fn calls(table: &str, name: &str) -> u64 {
    table
        .lines()
        .find(|l| l.split_whitespace().last() == Some(name))
        .and_then(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // % time, seconds, usecs/call, calls, [errors,] name
            f.get(3)?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"))
}

#[test]
fn thousand_short_lived_threads_rstrace_lines_and_summary() {
    let prog = testprog("fault_threads");
    let p = prog.to_str().unwrap();
    let (st, out, err) = run(&rstrace(), &["-f", "-e", "trace=getppid,exit", p]);
    assert_eq!(st.code(), Some(0), "{}", &err[..err.len().min(2000)]);
    assert_eq!(out, "threads 1000 calls 3000\n");
    // One line per call: complete, or its unfinished half (the `<...
    // getppid resumed>` half does not contain "getppid("; as with strace, a
    // "Process N attached" message may cut an unfinished line in two).
    assert_eq!(count_lines(&err, "getppid("), 3000);
    let unfinished = count_lines(&err, "getppid(") - count_lines(&err, "getppid()");
    assert_eq!(count_lines(&err, "getppid resumed>"), unfinished);
    // Every thread's exit, and the process's end.
    assert_eq!(count_lines(&err, "exit(0"), 1000);
    assert_eq!(count_lines(&err, "+++ exited with 0 +++"), 1001);
    let (st, out, err) = run(&rstrace(), &["-f", "-c", "-e", "trace=getppid", p]);
    assert_eq!(st.code(), Some(0), "{err}");
    assert_eq!(out, "threads 1000 calls 3000\n");
    assert_eq!(calls(&err, "getppid"), 3000, "{err}");
}

#[test]
fn thousand_short_lived_threads_rltrace_and_break() {
    let prog = testprog("fault_threads");
    let p = prog.to_str().unwrap();
    let (st, out, err) = run(&rltrace(), &["-f", "-e", "getppid", p]);
    assert_eq!(st.code(), Some(0), "{}", &err[..err.len().min(2000)]);
    assert_eq!(out, "threads 1000 calls 3000\n");
    assert_eq!(count_lines(&err, "getppid("), 3000);
    let unfinished = count_lines(&err, "getppid(") - count_lines(&err, "getppid()");
    assert_eq!(count_lines(&err, "getppid resumed>"), unfinished);
    let (st, out, err) = run(
        &rtrace(),
        &[
            "break",
            "--count",
            "--backend",
            "ptrace",
            "work",
            "ret:work",
            "--",
            p,
        ],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    assert_eq!(out, "threads 1000 calls 3000\n");
    for spec in ["work", "ret:work"] {
        let row = err
            .lines()
            .find(|l| l.split_whitespace().next() == Some(spec));
        assert_eq!(
            row.and_then(|r| r.split_whitespace().nth(1)),
            Some("1000"),
            "{err}"
        );
    }
}

#[test]
fn fork_bomb_of_200_processes_every_exit_seen() {
    let prog = testprog("fault_forkbomb");
    let p = prog.to_str().unwrap();
    let (st, out, err) = run(
        &rstrace(),
        &["-f", "-e", "trace=fork,vfork,clone,clone3", p],
    );
    assert_eq!(st.code(), Some(0), "{}", &err[..err.len().min(2000)]);
    assert_eq!(out, "procs 200\n");
    assert_eq!(count_lines(&err, "+++ exited with 0 +++"), 200, "{err}");
    // 199 forks (glibc's fork is clone), each returning a child's pid.
    let forks = err
        .lines()
        .filter(|l| l.contains("clone(") || l.contains("<... clone resumed>"))
        .filter(|l| {
            l.rsplit_once("= ")
                .is_some_and(|(_, r)| r.trim().parse::<u32>().is_ok_and(|n| n > 0))
        })
        .count();
    assert_eq!(forks, 199, "{err}");
    let (st, out, err) = run(&rstrace(), &["-f", "-c", "-e", "trace=write", p]);
    assert_eq!(st.code(), Some(0), "{err}");
    assert_eq!(out, "procs 200\n");
    // 199 one-byte writes into the pipe and the final printf.
    assert_eq!(calls(&err, "write"), 200, "{err}");
    let (st, out, err) = run(
        &rtrace(),
        &[
            "break",
            "-f",
            "--count",
            "--backend",
            "ptrace",
            "grow",
            "--",
            p,
        ],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    assert_eq!(out, "procs 200\n");
    let row = err
        .lines()
        .find(|l| l.split_whitespace().next() == Some("grow"));
    assert_eq!(
        row.and_then(|r| r.split_whitespace().nth(1)),
        Some("200"),
        "{err}"
    );
}
