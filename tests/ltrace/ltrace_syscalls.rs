//! `-S` against ltrace 0.7.3 on testprogs/lt_syscalls.c (open, read,
//! close, write, getpid, a fork and a wait through libc): the same lines
//! after normalising addresses and pids, for `-S` alone and with `-L`,
//! `-e`, `-i`, `-s`, `-c` and `-f`. Names come from ltrace's own syscall
//! table (`SYS_pread`, `SYS_334`), arguments from the `SYS_*` prototypes
//! of /etc/ltrace.conf or ltrace's default (four, decimal within ±10000,
//! else hex). Also: the kernel backend leaves `-S` to ptrace and says why.

use crate::common;
use crate::ltrace_util::{count_rows, rltrace, run_cmd, Run};

use regex_lite::Regex;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// One run: the trace (`-o`) and the program's pid and child pid (its
/// last line of output).
struct Traced {
    trace: String,
    pids: Vec<(u32, &'static str)>,
}

fn run(tool: &Path, opts: &[&str], prog: &Path) -> Traced {
    let Run { trace, stdout, .. } = run_cmd(Command::new(tool), opts, prog, &[]);
    let mut pids = Vec::new();
    if let Some(l) = stdout.lines().find(|l| l.starts_with("pid ")) {
        let w: Vec<&str> = l.split(' ').collect();
        pids.push((w[1].parse().expect("pid"), "PID"));
        pids.push((w[3].parse().expect("child"), "CHILD"));
    }
    Traced { trace, pids }
}

/// Each line with pids named (`PID`, `0xPID`, as decimal or hex, which
/// ltrace's default picks by size), addresses (nine hex digits or more)
/// as `ADDR`, `-i`'s `[0x…]` as its page offset (ASLR keeps it), and
/// alignment spaces made one.
fn normalize(t: &Traced) -> Vec<String> {
    let num = Regex::new(r"0x[0-9a-f]+|[0-9]+").unwrap();
    let mut lines = Vec::new();
    for line in t.trace.lines() {
        let mut s = String::new();
        let mut last = 0;
        for m in num.find_iter(line) {
            s.push_str(&line[last..m.start()]);
            last = m.end();
            let w = m.as_str();
            let (hex, v) = match w.strip_prefix("0x") {
                Some(h) => (true, u64::from_str_radix(h, 16).ok()),
                None => (false, w.parse::<u64>().ok()),
            };
            let pid = t.pids.iter().find(|(p, _)| Some(*p as u64) == v);
            match pid {
                Some((_, name)) if hex => s.push_str(&format!("0x{name}")),
                Some((_, name)) => s.push_str(name),
                None if hex && w.len() >= 11 => {
                    if m.start() > 0 && line[..m.start()].ends_with('[') {
                        s.push_str(&format!("IP..{}", &w[w.len() - 3..]));
                    } else {
                        s.push_str("ADDR");
                    }
                }
                None => s.push_str(w),
            }
        }
        s.push_str(&line[last..]);
        lines.push(s.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    lines
}

/// `-f`: the lines of each process apart (the order between processes is
/// a race), a call another process's line cut in two joined again
/// (`f(1 <unfinished ...>` right before `<... f resumed> ) = 2`).
fn per_process(lines: &[String]) -> BTreeMap<String, Vec<String>> {
    let resumed = Regex::new(r"^<\.\.\. (\S+) resumed> ?(.*)$").unwrap();
    let mut by: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in lines {
        let (who, rest) = l.split_once(' ').unwrap_or((l, ""));
        let v = by.entry(who.to_string()).or_default();
        if let (Some(c), Some(prev)) = (resumed.captures(rest), v.last()) {
            let head = prev.strip_suffix(" <unfinished ...>");
            if let Some(head) = head.filter(|h| h.starts_with(&format!("{}(", &c[1]))) {
                let joined = format!("{head}{}", &c[2]);
                *v.last_mut().unwrap() = joined.split_whitespace().collect::<Vec<_>>().join(" ");
                continue;
            }
        }
        v.push(rest.to_string());
    }
    by
}

fn prog() -> Option<common::PrivateCopy> {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return None;
    }
    Some(common::PrivateCopy::new(&common::testprog_variant(
        "lt_syscalls",
        "lazy",
        &["-fno-builtin"],
    )))
}

fn ltrace_ran(opts: &[&str], t: &Traced) -> bool {
    if t.trace.is_empty() || t.pids.is_empty() {
        eprintln!("skip {opts:?}: ltrace wrote nothing (is ptrace allowed?)");
        return false;
    }
    true
}

#[test]
fn syscall_lines_as_ltrace() {
    let Some(p) = prog() else { return };
    let lt = Path::new("ltrace");
    let sets: &[&[&str]] = &[
        &["-S"],
        &["-S", "-L"],
        &["-S", "-e", "getpid"],
        &["-S", "-e", "read+write"],
        &["-S", "-i"],
        &["-S", "-s", "2"],
    ];
    let mut failures = Vec::new();
    for opts in sets {
        let want = run(lt, opts, &p);
        if !ltrace_ran(opts, &want) {
            continue;
        }
        if *opts == ["-S"] {
            // The cases this is about occur: a prototype with a string
            // read at return, one without, a name ltrace's table lacks,
            // and calls inside library calls.
            for s in [
                "SYS_read(3, \"\\177ELF",
                "SYS_rt_sigprocmask(0, 0x",
                "SYS_334(",
                "<... getpid resumed>",
            ] {
                assert!(want.trace.contains(s), "{s}: {}", want.trace);
            }
        }
        let got = run(&rltrace(), opts, &p);
        let (g, w) = (normalize(&got), normalize(&want));
        if g != w {
            failures.push(format!(
                "options {opts:?}\n{}\nrltrace:\n{}\nltrace:\n{}",
                first_difference(&g, &w),
                got.trace,
                want.trace
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn first_difference(g: &[String], w: &[String]) -> String {
    for (i, (a, b)) in g.iter().zip(w).enumerate() {
        if a != b {
            return format!("line {}:\n  rltrace: {a}\n  ltrace:  {b}", i + 1);
        }
    }
    format!("{} lines against {}", g.len(), w.len())
}

#[test]
fn syscalls_of_both_processes_with_f_as_ltrace() {
    let Some(p) = prog() else { return };
    let opts = ["-S", "-f"];
    let want = run(Path::new("ltrace"), &opts, &p);
    if !ltrace_ran(&opts, &want) {
        return;
    }
    let got = run(&rltrace(), &opts, &p);
    let (g, w) = (
        per_process(&normalize(&got)),
        per_process(&normalize(&want)),
    );
    assert!(w.contains_key("CHILD"), "{}", want.trace);
    for (who, wl) in &w {
        let gl = g.get(who).cloned().unwrap_or_default();
        assert!(
            &gl == wl,
            "{who}: {}\nrltrace:\n{}\nltrace:\n{}",
            first_difference(&gl, wl),
            got.trace,
            want.trace
        );
    }
    assert_eq!(g.len(), w.len(), "{}", got.trace);
}

#[test]
fn syscall_counts_as_ltrace() {
    let Some(p) = prog() else { return };
    let want = run(Path::new("ltrace"), &["-S", "-c"], &p);
    if want.trace.is_empty() {
        eprintln!("skip: ltrace wrote nothing (is ptrace allowed?)");
        return;
    }
    let got = run(&rltrace(), &["-S", "-c"], &p);
    assert!(
        count_rows(&want.trace)
            .iter()
            .any(|(n, _)| n == "SYS_pread"),
        "{}",
        want.trace
    );
    assert_eq!(
        count_rows(&got.trace),
        count_rows(&want.trace),
        "rltrace:\n{}\nltrace:\n{}",
        got.trace,
        want.trace
    );
}

/// The kernel backend cannot stop at syscalls: `auto` takes ptrace and
/// `-D 1` says it is for `-S`; `--backend kernel` refuses with the reason.
#[test]
fn kernel_backend_leaves_syscalls_to_ptrace() {
    if common::uprobe_tracefs().is_none() {
        return;
    }
    let p = common::PrivateCopy::new(&common::testprog_variant(
        "lt_syscalls",
        "lazy",
        &["-fno-builtin"],
    ));
    let out = Command::new(rltrace())
        .args(["-D", "1", "-S", "-o", "/dev/null"])
        .arg(&*p)
        .output()
        .expect("rltrace");
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("rltrace: backend "))
        .unwrap_or_else(|| panic!("no backend line: {err}"));
    assert!(
        line.starts_with("rltrace: backend ptrace: ") && line.contains("-S"),
        "{line}"
    );
    let out = Command::new(rltrace())
        .args(["--backend", "kernel", "-S", "-o", "/dev/null"])
        .arg(&*p)
        .output()
        .expect("rltrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("-S") && err.contains("use --backend ptrace"),
        "{err}"
    );
}
