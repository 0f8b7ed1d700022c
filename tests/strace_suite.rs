//! strace's own test suite, run with rstrace in strace's place.
//!
//! Each of strace 6.1's tests runs a program that prints exactly the lines
//! strace must print for the calls it makes (with the real addresses, ids
//! and results), runs `$STRACE` on it with the options of that test and
//! diffs the two. `.ci/strace-suite` downloads strace 6.1's source (checked
//! against Debian's SHA-256) and builds those programs under
//! `target/strace-suite/`; nothing of strace is in this repository. Here the
//! tests named in `tests/data/strace_suite_pass.txt` (every test rstrace
//! passes) run with `STRACE=rstrace`; each must pass (or be skipped by the
//! suite itself for a missing kernel feature, exit status 77). A test that
//! passed once and fails now is a regression in rstrace's output.
//!
//! `RTRACE_STRACE_SUITE_ALL=1` runs every test of the suite instead, prints
//! the counts and writes the names that pass to
//! `target/strace-suite/pass.txt` (how the list was made). Without the
//! built suite the test prints why and passes as a skip.

mod common;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The suite's `tests/` directory with the programs built.
fn suite_dir() -> PathBuf {
    match std::env::var_os("RTRACE_STRACE_SUITE") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => common::workspace_dir().join("target/strace-suite/strace-6.1/tests"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Pass,
    Skip,
    Fail,
}

/// Runs one test (`NAME` is `foo.gen` for `foo.gen.test`) the way the
/// suite's test driver does, with rstrace as `$STRACE`.
fn run_one(dir: &Path, name: &str) -> (Verdict, Duration, String) {
    let start = Instant::now();
    let out = Command::new("./run.sh")
        .arg(format!("./{name}.test"))
        .current_dir(dir)
        .env("STRACE", common::rstrace())
        .env("STRACE_ARCH", "x86_64")
        .env("STRACE_NATIVE_ARCH", "x86_64")
        .env("SIZEOF_KERNEL_LONG_T", "8")
        .env("SIZEOF_LONG", "8")
        .env("MIPS_ABI", "")
        // The suite's own limit per test (init.sh's default is 1500 s).
        .env("TIMEOUT_DURATION", "300")
        .stdin(Stdio::null())
        .output()
        .expect("run.sh");
    let verdict = match out.status.code() {
        Some(0) => Verdict::Pass,
        Some(77) => Verdict::Skip,
        _ => Verdict::Fail,
    };
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (verdict, start.elapsed(), text)
}

/// Every test of the suite (`*.test` scripts), as names without `.test`.
fn all_tests(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("suite dir")
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.strip_suffix(".test").map(str::to_string)
        })
        .collect();
    v.sort();
    v
}

fn listed_tests() -> Vec<String> {
    let path = common::workspace_dir().join("tests/data/strace_suite_pass.txt");
    std::fs::read_to_string(&path)
        .expect("tests/data/strace_suite_pass.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Runs `names` on a few threads; returns (name, verdict, time, output).
fn run_all(dir: &Path, names: Vec<String>) -> Vec<(String, Verdict, Duration, String)> {
    let queue = Arc::new(Mutex::new(VecDeque::from(names)));
    let results = Arc::new(Mutex::new(Vec::new()));
    // Most tests wait on their traced program; two per CPU keeps both busy.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get() * 2);
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (queue, results, dir) = (queue.clone(), results.clone(), dir.to_path_buf());
            std::thread::spawn(move || loop {
                let Some(name) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                let (v, t, out) = run_one(&dir, &name);
                results.lock().unwrap().push((name, v, t, out));
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let mut r = Arc::try_unwrap(results).unwrap().into_inner().unwrap();
    // Some of strace's tests measure time (`delay`: an injected delay must
    // come within 25% of its value) and race with the machine's load; a
    // second run, alone once the pool is done, tells a loaded machine from
    // a regression. The first failure is still printed.
    for (name, v, t, out) in r.iter_mut().filter(|r| r.1 == Verdict::Fail) {
        let (v2, t2, out2) = run_one(dir, name);
        if v2 != Verdict::Fail {
            eprintln!("flaky: {name} failed under load, then passed alone:\n{out}");
        }
        (*v, *t, *out) = (v2, *t + t2, out2);
    }
    r.sort_by(|a, b| a.0.cmp(&b.0));
    r
}

#[test]
fn strace_own_tests_pass_with_rstrace() {
    let dir = suite_dir();
    if !dir.join(".built").exists() {
        eprintln!(
            "skip: strace 6.1's test suite is not built in {} (run .ci/strace-suite, which downloads it)",
            dir.display()
        );
        return;
    }
    if std::env::var_os("RTRACE_STRACE_SUITE_ALL").is_some() {
        let results = run_all(&dir, all_tests(&dir));
        let count = |v| results.iter().filter(|r| r.1 == v).count();
        let passed: Vec<&str> = results
            .iter()
            .filter(|r| r.1 == Verdict::Pass)
            .map(|r| r.0.as_str())
            .collect();
        let out = dir.join("../../pass.txt");
        std::fs::write(&out, passed.join("\n") + "\n").unwrap();
        eprintln!(
            "strace suite with rstrace: {} pass, {} skip, {} fail of {} (pass list in {})",
            count(Verdict::Pass),
            count(Verdict::Skip),
            count(Verdict::Fail),
            results.len(),
            out.display()
        );
        return;
    }
    let names = listed_tests();
    assert!(names.len() > 100, "the pass list is unexpectedly short");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !dir.join(format!("{n}.test")).exists())
        .collect();
    assert!(missing.is_empty(), "tests not in the suite: {missing:?}");
    let results = run_all(&dir, names);
    let failed: Vec<_> = results.iter().filter(|r| r.1 == Verdict::Fail).collect();
    let skipped = results.iter().filter(|r| r.1 == Verdict::Skip).count();
    let slowest = results.iter().max_by_key(|r| r.2).unwrap();
    eprintln!(
        "strace suite with rstrace: {} of {} listed tests pass, {} skipped by the suite (slowest: {} {:.1?})",
        results.len() - failed.len() - skipped,
        results.len(),
        skipped,
        slowest.0,
        slowest.2
    );
    for (name, _, _, out) in &failed {
        let tail: Vec<&str> = out.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        eprintln!("=== {name} failed:\n{}", tail.join("\n"));
    }
    assert!(
        failed.is_empty(),
        "{} of strace's own tests that rstrace passed now fail: {:?}",
        failed.len(),
        failed.iter().map(|r| &r.0).collect::<Vec<_>>()
    );
}
