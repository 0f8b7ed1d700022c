//! `rltrace --inject FUNC:retval=N[:error=E][:when=W]`: the call is not
//! run, the program sees N (and errno E), the trace marks it.
//!
//! The test programs report what each call returned (and errno); the tests
//! compare the program's own observation with the rule.

use crate::common;
use crate::ltrace_util;

use ltrace_util::{rltrace, run};
use std::process::Command;

fn malloc_prog() -> std::path::PathBuf {
    common::testprog_variant("ltinject_malloc", "lazy", &["-fno-builtin"])
}

fn puts_prog() -> std::path::PathBuf {
    common::testprog_variant("ltinject_puts", "lazy", &["-fno-builtin"])
}

/// The program's "malloc N: ..." lines, by N.
fn observed(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("malloc "))
        .map(|l| l.split_once(": ").map_or("", |x| x.1).to_string())
        .collect()
}

#[test]
fn third_malloc_returns_null_without_running() {
    let r = run(
        &["--inject", "malloc:retval=0:when=3"],
        &malloc_prog(),
        &["5"],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let seen = observed(&r.stdout);
    assert_eq!(seen.len(), 5, "{}", r.stdout);
    for (i, s) in seen.iter().enumerate() {
        if i == 2 {
            assert_eq!(s, "null errno=0", "call 3 injected: {}", r.stdout);
        } else {
            assert_eq!(s, "ok", "call {} runs: {}", i + 1, r.stdout);
        }
    }
    let calls: Vec<&str> = r
        .trace
        .lines()
        .filter(|l| l.starts_with("malloc("))
        .collect();
    assert_eq!(calls.len(), 5, "{}", r.trace);
    for (i, l) in calls.iter().enumerate() {
        assert!(l.starts_with(&format!("malloc({})", 101 + i)), "{l}");
        assert_eq!(l.ends_with(" (INJECTED)"), i == 2, "{l}");
    }
    assert!(
        calls[2].contains("= 0 (INJECTED)"),
        "returns the injected 0: {}",
        calls[2]
    );
}

#[test]
fn an_injected_call_does_not_run() {
    // puts("call 2") prints nothing and returns the injected value.
    let r = run(&["--inject", "puts:retval=-3:when=2"], &puts_prog(), &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let printed: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("call "))
        .collect();
    assert_eq!(printed, ["call 1", "call 3"], "{}", r.stdout);
    let rets: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("ret ")).collect();
    assert_eq!(rets, ["ret 1: 7", "ret 2: -3", "ret 3: 7"], "{}", r.stdout);
    assert!(
        r.trace
            .lines()
            .any(|l| l.starts_with("puts(\"call 2\")") && l.ends_with("= -3 (INJECTED)")),
        "{}",
        r.trace
    );
}

#[test]
fn error_sets_the_threads_errno() {
    let r = run(
        &["--inject", "malloc:retval=0:error=ENOMEM:when=2+2"],
        &malloc_prog(),
        &["5"],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(!r.stderr.contains("errno not set"), "{}", r.stderr);
    assert_eq!(
        observed(&r.stdout),
        ["ok", "null errno=ENOMEM", "ok", "null errno=ENOMEM", "ok"],
        "{}",
        r.stdout
    );
}

#[test]
fn when_ranges_and_several_rules() {
    // FIRST..LAST: every call in the range.
    let r = run(
        &["--inject", "malloc:retval=0:when=2..3"],
        &malloc_prog(),
        &["5"],
    );
    assert_eq!(
        observed(&r.stdout),
        ["ok", "null errno=0", "null errno=0", "ok", "ok"],
        "{}",
        r.stdout
    );
    // Two rules for one function: each counts every call, either fires.
    let r = run(
        &[
            "--inject",
            "malloc:retval=0:when=4",
            "--inject",
            "malloc:retval=0:when=1",
        ],
        &malloc_prog(),
        &["5"],
    );
    assert_eq!(
        observed(&r.stdout),
        ["null errno=0", "ok", "ok", "null errno=0", "ok"],
        "{}",
        r.stdout
    );
}

#[test]
fn json_marks_injected_calls() {
    let r = run(
        &["--json", "--inject", "malloc:retval=0:when=2"],
        &malloc_prog(),
        &["3"],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let objs: Vec<serde_json::Value> = r
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).expect(l))
        .filter(|v: &serde_json::Value| v["func"] == "malloc")
        .collect();
    assert_eq!(objs.len(), 3, "{}", r.trace);
    for (i, o) in objs.iter().enumerate() {
        assert_eq!(o["args"][0], format!("{}", 101 + i));
        assert_eq!(o["injected"].as_bool().unwrap_or(false), i == 1, "{o}");
    }
    assert_eq!(objs[1]["return"], "0");
}

#[test]
fn count_mode_counts_injected_calls() {
    let r = run(
        &["-c", "--inject", "malloc:retval=0:when=1+"],
        &malloc_prog(),
        &["4"],
    );
    assert_eq!(observed(&r.stdout), ["null errno=0"; 4], "{}", r.stdout);
    let row = r
        .trace
        .lines()
        .find(|l| l.trim_end().ends_with(" malloc"))
        .unwrap_or_else(|| panic!("{}", r.trace));
    let f: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(f[3], "4", "{row}");
}

#[test]
fn bad_rules_are_refused() {
    for bad in [
        "malloc",
        "malloc:retval=zero",
        "malloc:retval=0:when=0",
        "malloc:retval=0:when=5..2",
        "malloc:retval=0:colour=red",
        "mall*:retval=0",
    ] {
        let out = Command::new(rltrace())
            .args(["--inject", bad, "true"])
            .output()
            .expect("rltrace");
        assert_eq!(out.status.code(), Some(1), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("invalid --inject"), "{bad}: {err}");
    }
}
