//! `--pidns-translation` / `--decode-pids=pidns`: rstrace follows the ids a
//! tracee in another PID namespace passes or gets back with `/* N in
//! strace's PID NS */`. `testprogs/pidns_child.c` runs two processes in a
//! new namespace (pids 1 and 2 there) that ask for their ids and signal
//! each other; the comments must name the pids rstrace sees for them (the
//! program prints the first one), and the trace must be strace 6.1's once
//! the pids, which differ from run to run, are renamed in order of
//! appearance. The same is checked with the tracers themselves started in
//! a new PID namespace without their own `/proc` (`unshare -Urpf`, as
//! strace's test suite does), where `/proc` numbers every task differently
//! from the tracer.
//!
//! The tests are skipped (with a message) where no PID namespace can be
//! made; the comparisons with strace where strace is not installed.

use crate::common;

use common::{have, rstrace, testprog};
use regex_lite::Regex;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The calls the program makes that print ids.
const TRACE: &str = "trace=getpid,gettid,getppid,getpgrp,getsid,setsid,setpgid,kill,tgkill";

/// What one traced run gave: the program's stdout and the trace.
struct Run {
    stdout: String,
    trace: String,
}

/// Runs `prefix… tool -f OPTS -e TRACE -o FILE pidns_child`; `None` when
/// the program could not make a namespace (exit 77).
fn run(prefix: &[&str], tool: &Path, opts: &[&str]) -> Option<Run> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let out = std::env::temp_dir().join(format!(
        "rtrace-pidns-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let mut cmd = match prefix.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(tool);
            c
        }
        None => Command::new(tool),
    };
    let o = cmd
        .arg("-f")
        .args(opts)
        .args(["-e", TRACE, "-o"])
        .arg(&out)
        .arg(testprog("pidns_child"))
        .output()
        .unwrap();
    let trace = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if o.status.code() == Some(77) {
        eprintln!("skip: no PID namespace can be made here");
        return None;
    }
    assert!(
        o.status.success(),
        "{} {opts:?}: {}\n{}\n{trace}",
        tool.display(),
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    Some(Run {
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        trace,
    })
}

/// `text` with runs of blanks as one space, the times of a SIGCHLD zeroed,
/// and the tracer's pids (those leading lines, in the comments and in
/// `si_pid`) renamed `P0`, `P1`, … in order of first appearance; numbers
/// of the child namespace, which may equal them, stay.
fn normalize(text: &str) -> String {
    let blanks = Regex::new(r"[ \t]+").unwrap();
    let times = Regex::new(r"si_([us])time=\d+").unwrap();
    let ours = Regex::new(r"^\d+|/\* \d+ in strace's PID NS \*/|si_pid=\d+").unwrap();
    let number = Regex::new(r"\d+").unwrap();
    let mut names: HashMap<String, String> = HashMap::new();
    let mut out = String::new();
    for line in text.lines() {
        let line = blanks.replace_all(line, " ");
        let line = times.replace_all(&line, "si_${1}time=T");
        let line = ours.replace_all(&line, |c: &regex_lite::Captures| {
            number
                .replace(&c[0], |n: &regex_lite::Captures| {
                    let k = names.len();
                    names
                        .entry(n[0].to_string())
                        .or_insert_with(|| format!("P{k}"))
                        .clone()
                })
                .into_owned()
        });
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The line of task `pid` that starts with `call` (blanks collapsed).
fn line_of<'a>(lines: &'a [String], pid: &str, call: &str) -> &'a str {
    let head = format!("{pid} {call}");
    lines
        .iter()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no `{head}` line in\n{}", lines.join("\n")))
}

fn lines(trace: &str) -> Vec<String> {
    let blanks = Regex::new(r"[ \t]+").unwrap();
    trace
        .lines()
        .map(|l| blanks.replace_all(l, " ").into_owned())
        .collect()
}

#[test]
fn ids_of_a_child_namespace_are_translated() {
    let Some(r) = run(&[], &rstrace(), &["--pidns-translation"]) else {
        return;
    };
    let p1 = r.stdout.trim().to_string();
    assert!(p1.parse::<u32>().is_ok(), "stdout: {}", r.stdout);
    let ls = lines(&r.trace);
    let ns = |n: &str| format!("/* {n} in strace's PID NS */");
    // Pid 1 of the namespace is `p1` for rstrace; its parent is outside.
    for call in ["getpid()", "gettid()", "getpgrp()", "getsid(0)"] {
        assert_eq!(
            line_of(&ls, &p1, call),
            format!("{p1} {call} = 1 {}", ns(&p1))
        );
    }
    assert_eq!(
        line_of(&ls, &p1, "getppid()"),
        format!("{p1} getppid() = 0")
    );
    // Pid 2: its own number is the one rstrace prints it under.
    let g = ls
        .iter()
        .find_map(|l| {
            l.strip_suffix(" in strace's PID NS */")
                .filter(|l| l.contains(" getpid() = 2 "))
        })
        .and_then(|l| l.rsplit(' ').next())
        .unwrap_or_else(|| panic!("no getpid() of pid 2:\n{}", r.trace))
        .to_string();
    assert!(ls
        .iter()
        .any(|l| l.starts_with(&format!("{g} getpid() = 2 "))));
    assert_eq!(
        line_of(&ls, &g, "getppid()"),
        format!("{g} getppid() = 1 {}", ns(&p1))
    );
    // Arguments: a process, a thread, and a process group (kill's -pgid).
    assert_eq!(
        line_of(&ls, &p1, "tgkill("),
        format!("{p1} tgkill(2 {}, 2 {}, 0) = 0", ns(&g), ns(&g))
    );
    assert_eq!(
        line_of(&ls, &p1, "kill(-"),
        format!("{p1} kill(-2 {}, 0) = 0", ns(&g))
    );
    // The group did not exist yet when setpgid named it.
    assert_eq!(
        line_of(&ls, &p1, "setpgid("),
        format!("{p1} setpgid(2 {}, 2) = 0", ns(&g))
    );
    // Without the option nothing is added.
    let Some(plain) = run(&[], &rstrace(), &[]) else {
        return;
    };
    assert!(!plain.trace.contains("PID NS"), "{}", plain.trace);
}

/// rstrace and strace give the same trace with `opts`, started by `prefix`
/// (signals included unless `opts` leaves them out).
fn same_as_strace(prefix: &[&str], opts: &[&str]) {
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    let Some(mine) = run(prefix, &rstrace(), opts) else {
        return;
    };
    let Some(theirs) = run(prefix, Path::new("strace"), opts) else {
        return;
    };
    assert!(mine.trace.contains("in strace's PID NS"), "{}", mine.trace);
    assert_eq!(
        normalize(&mine.trace),
        normalize(&theirs.trace),
        "rstrace {opts:?}:\n{}\nstrace:\n{}",
        mine.trace,
        theirs.trace
    );
}

#[test]
fn same_as_strace_with_pidns_translation() {
    same_as_strace(&[], &["--pidns-translation"]);
}

#[test]
fn same_as_strace_with_comm_and_pidns() {
    same_as_strace(&[], &["--decode-pids=comm,pidns"]);
}

#[test]
fn same_as_strace_when_proc_is_an_outer_namespace() {
    // The tracers run as pid 1 of a new namespace whose /proc is still the
    // outer one: every /proc read needs the task's outer number.
    if !have("unshare")
        || !Command::new("unshare")
            .args(["-Urpf", "true"])
            .status()
            .is_ok_and(|s| s.success())
    {
        eprintln!("skip: unshare -Urpf does not work here");
        return;
    }
    // Without signals: a si_pid of the child namespace could not be told
    // from a tracer's pid there. Without -Y: strace reads the command name
    // at its own number for a task in /proc of the outer namespace.
    same_as_strace(
        &["unshare", "-Urpf"],
        &["--decode-pids=pidns", "-e", "signal=none"],
    );
}
