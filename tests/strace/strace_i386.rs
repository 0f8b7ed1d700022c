//! The i386 personality: 32-bit programs (built with `gcc -m32`) traced by
//! the 64-bit rstrace are decoded with the i386 syscall table and 32-bit
//! layouts, personality changes are announced as strace announces them
//! (`[ Process PID=N runs in 32 bit mode. ]`), and fault injection works on
//! them. Compared with strace where it is installed. Skipped, with the
//! reason, where the compiler cannot build 32-bit programs (Debian:
//! `apt-get install gcc-multilib`).

use crate::common;

use common::{have, m32, normalize, rstrace, testprog, testprog_variant};
use std::path::{Path, PathBuf};
use std::process::Command;

fn prog32(name: &str) -> PathBuf {
    testprog_variant(name, "m32", &["-m32"])
}

fn trace(
    tool: &Path,
    args: &[&str],
    prog: &Path,
    prog_args: &[&str],
) -> (Option<i32>, String, String) {
    let o = Command::new(tool)
        .args(args)
        .arg(prog)
        .args(prog_args)
        .output()
        .expect("run tracer");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn personality_notices_at_start_and_at_exec() {
    if !m32() {
        return;
    }
    let prog = prog32("pers_exec");
    let target = testprog("inject_open");
    let (code, _, err) = trace(
        &rstrace(),
        &["-f", "-e", "trace=execve,getpid,exit_group"],
        &prog,
        &[target.to_str().expect("utf-8"), "0"],
    );
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.contains("attached")).collect();
    let pid = |l: &str| {
        l.split("PID=")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .map(String::from)
    };
    // The 32-bit program: its execve (from the 64-bit rstrace child), then
    // the notice, before anything else.
    assert!(lines[0].starts_with("execve("), "{err}");
    assert!(
        lines[1].starts_with("[ Process PID=") && lines[1].ends_with(" runs in 32 bit mode. ]"),
        "{err}"
    );
    // The child: 32-bit getpid (the i386 number, 20), then a 64-bit exec.
    let child = lines
        .iter()
        .position(|l| l.contains("getpid()"))
        .expect("getpid");
    let exec = lines[child..]
        .iter()
        .position(|l| l.contains("execve(") && l.contains("= 0"))
        .map(|i| i + child)
        .expect("child execve");
    let notice = lines[exec + 1];
    assert!(notice.ends_with(" runs in 64 bit mode. ]"), "{err}");
    assert!(lines[child].starts_with("[pid "), "{err}");
    let child_pid = lines[child][5..]
        .split(']')
        .next()
        .expect("pid")
        .trim()
        .to_string();
    assert_eq!(pid(notice), Some(child_pid), "{err}");
    assert_eq!(
        lines.iter().filter(|l| l.contains("bit mode")).count(),
        2,
        "{err}"
    );
    // -e quiet=personality silences them.
    let (_, _, err) = trace(
        &rstrace(),
        &["-f", "-e", "quiet=personality", "-e", "trace=execve"],
        &prog,
        &[target.to_str().expect("utf-8"), "0"],
    );
    assert!(!err.contains("bit mode"), "{err}");
}

#[test]
fn fault_injection_in_a_32_bit_process() {
    if !m32() {
        return;
    }
    let (code, out, err) = trace(
        &rstrace(),
        &["-e", "trace=open", "-e", "inject=open:error=ENOENT:when=2"],
        &prog32("inject_open"),
        &["3"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "0:ok\n1:err=2\n2:ok\nusr1=0\n");
    assert_eq!(err.matches("(INJECTED)").count(), 1, "{err}");
}

/// The trace without what differs between two runs for reasons outside
/// rstrace (pids, addresses, random bytes).
fn comparable(text: &str) -> String {
    let pid = regex_lite::Regex::new(r"PID=\d+|(set_tid_address\(0xADDR\) +=) \d+").unwrap();
    let text: String = text
        .lines()
        .map(|l| common::rseq_as_6_1(l) + "\n")
        .collect();
    normalize(&text)
        .lines()
        .filter(|l| !l.starts_with("getrandom(") && !l.contains("attached"))
        .map(|l| {
            let l = pid.replace_all(l, "${1} PID");
            l.split_whitespace().collect::<Vec<_>>().join(" ") + "\n"
        })
        .collect()
}

#[test]
fn same_trace_as_strace() {
    if !m32() {
        return;
    }
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    // Start-up of a 32-bit glibc program (mmap2, set_thread_area with the
    // kernel's entry number, statx, ...), its open calls, and injection.
    for (args, prog_args) in [
        (&[][..], &["3"][..]),
        (&["-e", "inject=open:error=EACCES:when=2"], &["3"]),
    ] {
        let prog = prog32("inject_open");
        let ours = trace(&rstrace(), args, &prog, prog_args);
        let theirs = trace(Path::new("strace"), args, &prog, prog_args);
        assert_eq!(ours.0, theirs.0);
        assert_eq!(ours.1, theirs.1);
        assert_eq!(comparable(&ours.2), comparable(&theirs.2), "{args:?}");
    }
}
