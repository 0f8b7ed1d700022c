//! Shared by rstrace's option tests against the installed strace: one run
//! of either tracer in a scratch directory, normalisation of what differs
//! between two runs (pids, addresses, clocks), and line comparison.
#![allow(dead_code)]

pub use crate::common::{have, rstrace, testprog};
use regex_lite::Regex;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// What a tracer run produced.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The tracer's own pid (the traced program's parent: `getppid`).
    pub pid: u32,
}

pub fn strace_missing() -> bool {
    if have("strace") {
        return false;
    }
    eprintln!("skip: strace is not installed");
    true
}

/// The option test program, built once.
pub fn prog() -> String {
    testprog("opt_prog").to_string_lossy().into_owned()
}

/// This process's directory for test files: `<target>/strace_options/<pid>`,
/// so that two runs of these tests never share files. Directories of runs
/// that are gone are removed the first time.
pub fn run_root() -> PathBuf {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let base = crate::common::target_dir().join("strace_options");
        if let Ok(entries) = std::fs::read_dir(&base) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let stale = name
                    .parse::<u32>()
                    .is_ok_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
                if stale {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        base.join(std::process::id().to_string())
    })
    .clone()
}

/// The directory of one test (both tracers run in it, one after the other).
pub fn test_dir_path(name: &str) -> PathBuf {
    run_root().join(name)
}

/// A fresh, empty [`test_dir_path`].
pub fn test_dir(name: &str) -> PathBuf {
    let dir = test_dir_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `tool args…` in `dir` with a fixed environment plus `env`.
pub fn run_in(tool: &Path, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Out {
    let child = crate::common::named(tool)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("OPT_ENV", "fixed")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("run {}: {e}", tool.display()));
    let pid = child.id();
    let o = child.wait_with_output().expect("wait for tracer");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        pid,
    }
}

/// Runs strace, then rstrace, with `args` in the test's directory.
pub fn pair(name: &str, args: &[&str]) -> (Out, Out, PathBuf) {
    pair_env(name, args, &[])
}

pub fn pair_env(name: &str, args: &[&str], env: &[(&str, &str)]) -> (Out, Out, PathBuf) {
    let dir = test_dir(name);
    let a = run_in(Path::new("strace"), args, &dir, env);
    let b = run_in(&rstrace(), args, &dir, env);
    assert_eq!(
        a.code, b.code,
        "{name}: exit codes differ\nstrace:\n{}\nrstrace:\n{}",
        a.stderr, b.stderr
    );
    (a, b, dir)
}

/// Numbers in `text` that are pids: prefixes, pid-valued returns, si_pid,
/// and the tracer itself (`getppid`).
pub fn pids_in(text: &str, tracer: u32) -> HashSet<String> {
    let mut pids = HashSet::new();
    pids.insert(tracer.to_string());
    let rules = [
        r"\[pid +(\d+)\]",
        r"(?m)^(\d+) ",
        r"Process (\d+) (?:attached|detached)",
        r"si_pid=(\d+)",
        r"(?:getpid|gettid|getppid|set_tid_address|clone|clone3|fork|vfork|wait4)(?:\(| resumed>).*= (\d+)",
        r"superseded by execve in pid (\d+)",
    ];
    for r in rules {
        for c in Regex::new(r).unwrap().captures_iter(text) {
            pids.insert(c[1].to_string());
        }
    }
    pids
}

/// Rewrites what two runs of the same program may differ in. Pids are
/// replaced only where the trace prints pids (pid numbers are small here
/// and would otherwise collide with sizes).
pub fn normalize_line(line: &str, pids: &HashSet<String>) -> String {
    let rules: &[(&str, &str)] = &[
        (r"\br?strace: ", "TRACER: "),
        (r"0x[0-9a-f]{6,}", "ADDR"),
        (r"tv_sec=\d+", "tv_sec=T"),
        (r"tv_nsec=\d+", "tv_nsec=T"),
        (r"f_bfree=\d+", "f_bfree=N"),
        (r"f_bavail=\d+", "f_bavail=N"),
        (r"f_ffree=\d+", "f_ffree=N"),
        (r"st_([amc])time=\d+ /\* [^*]* \*/", "st_${1}time=T"),
        (r"st_([amc])time_nsec=\d+", "st_${1}time_nsec=T"),
        (r"(pipe|socket):\[\d+\]", "$1:[INO]"),
    ];
    let mut l = crate::common::rseq_as_6_1(line);
    // Whether a value of run-dependent width was replaced.
    let mut replaced = false;
    for (i, (re, rep)) in rules.iter().enumerate() {
        let r = Regex::new(re).unwrap().replace_all(&l, *rep).into_owned();
        replaced |= i > 0 && r != l;
        l = r;
    }
    // (pattern, the capture group holding a pid)
    let pid_places: &[&str] = &[
        r"(si_pid=)(\d+)",
        r"(\b(?:kill|tkill|tgkill|wait4|waitid)\()(\d+)",
        r"(\btgkill\(\d+, )(\d+)",
        r"(\[pid +)(\d+)",
        r"(^)(\d+)",
        r"(Process )(\d+)",
        r"(superseded by execve in pid )(\d+)",
        r"(\b(?:getpid|gettid|getppid|set_tid_address|clone3?|v?fork|wait4)\b.*= )(\d+)\b",
    ];
    for re in pid_places {
        l = Regex::new(re)
            .unwrap()
            .replace_all(&l, |c: &regex_lite::Captures| {
                let n = if pids.contains(&c[2]) {
                    replaced = true;
                    "PID"
                } else {
                    &c[2]
                };
                format!("{}{n}", &c[1])
            })
            .into_owned();
    }
    if replaced {
        // The padding before " = " depends on the width of what was replaced.
        if let Some(m) = Regex::new(r"\) +=").unwrap().find_iter(&l).last() {
            l.replace_range(m.range(), ") =");
        }
    }
    l
}

/// The normalised lines of a one-task trace.
pub fn norm_lines(text: &str, tracer: u32) -> Vec<String> {
    let pids = pids_in(text, tracer);
    text.lines().map(|l| normalize_line(l, &pids)).collect()
}

/// Asserts two line lists are equal, naming the first difference.
pub fn assert_lines(name: &str, what: &str, a: &[String], b: &[String]) {
    for (i, (la, lb)) in a.iter().zip(b).enumerate() {
        assert_eq!(
            la,
            lb,
            "{name}: {what}: line {} differs (strace, then rstrace)",
            i + 1
        );
    }
    assert_eq!(
        a.len(),
        b.len(),
        "{name}: {what}: line counts differ\nstrace:\n{}\nrstrace:\n{}",
        a.join("\n"),
        b.join("\n")
    );
}

/// Runs both tracers on one task and compares their stderr line by line.
pub fn compare(name: &str, args: &[&str]) -> (Out, Out) {
    compare_env(name, args, &[])
}

pub fn compare_env(name: &str, args: &[&str], env: &[(&str, &str)]) -> (Out, Out) {
    let (a, b, _) = pair_env(name, args, env);
    assert_lines(
        name,
        "stderr",
        &norm_lines(&a.stderr, a.pid),
        &norm_lines(&b.stderr, b.pid),
    );
    assert_eq!(a.stdout, b.stdout, "{name}: the program's output differs");
    (a, b)
}

/// Args for one run of the basic workload with extra options.
pub fn basic(opts: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = opts.iter().map(|s| s.to_string()).collect();
    v.push(prog());
    v.push("basic".into());
    v
}

pub fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Compares the basic workload under `opts`.
pub fn compare_basic(name: &str, opts: &[&str]) -> (Out, Out) {
    let args = basic(opts);
    compare(name, &refs(&args))
}
