//! `rtrace break --max-hits`, `--tbreak`, `--ignore` and `--print` against
//! gdb's `enable count`, `tbreak`, `ignore` and `dprintf` on
//! `testprogs/bp_hits.c` (ten calls of `step(i, &acc)`): the same hits, in
//! the same order, with the same printed values. Conditions are evaluated
//! before the ignore count, as gdb does, and ignored hits do not count
//! towards the limit.

use crate::common;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// `rtrace break --json ARGS -- bp_hits`: the hit records (the program's
/// own output checked).
fn ours(args: &[&str]) -> Vec<Value> {
    let prog = common::testprog("bp_hits");
    let out = Command::new(common::rtrace())
        .args(["break", "--json"])
        .args(args)
        .arg("--")
        .arg(&prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "45\n");
    let err = String::from_utf8_lossy(&out.stderr);
    common::schema::Schemas::load()
        .check_lines("break.schema.json", &err)
        .unwrap_or_else(|e| panic!("{e}\n{err}"));
    err.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "hit" || v["type"] == "return")
        .collect()
}

/// The `i` argument of each entry hit.
fn hit_is(recs: &[Value]) -> Vec<i64> {
    recs.iter()
        .filter(|r| r["type"] == "hit")
        .map(|r| r["args"][0]["value"].as_i64().expect("i"))
        .collect()
}

/// gdb on bp_hits with `setup` (breakpoint 1 on step, then its settings)
/// and, unless it is a dprintf, commands printing `hit I`: the lines its
/// commands printed, `hit ` removed.
fn gdb(setup: &[&str], prog: &Path) -> Vec<String> {
    let mut script: Vec<&str> = setup.to_vec();
    if !setup[0].starts_with("dprintf") {
        script.extend([
            "commands 1",
            "silent",
            "printf \"hit %d\\n\", i",
            "continue",
            "end",
        ]);
    }
    script.push("run");
    let script: Vec<String> = script.iter().map(|l| l.to_string()).collect();
    let out = common::gdb_script(&script, prog);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("hit "))
        .map(str::to_string)
        .collect()
}

/// gdb's `hit I` lines as numbers.
fn gdb_is(setup: &[&str]) -> Option<Vec<i64>> {
    if !common::have("gdb") {
        eprintln!("gdb not installed: comparison skipped");
        return None;
    }
    let prog = common::testprog("bp_hits");
    Some(
        gdb(setup, &prog)
            .iter()
            .map(|l| l.trim().parse().expect("i"))
            .collect(),
    )
}

#[test]
fn max_hits_as_gdb_enable_count() {
    let is = hit_is(&ours(&["--max-hits", "3", "step"]));
    assert_eq!(is, [0, 1, 2]);
    if let Some(g) = gdb_is(&["break step", "enable count 3 1"]) {
        assert_eq!(is, g);
    }
    // --count counts the reported hits (the ptrace backend: the kernel's
    // cannot stop counting).
    let prog = common::testprog("bp_hits");
    let out = Command::new(common::rtrace())
        .args([
            "break",
            "--count",
            "--json",
            "--max-hits",
            "4",
            "step",
            "--",
        ])
        .arg(&prog)
        .output()
        .expect("run rtrace");
    let text = String::from_utf8_lossy(&out.stderr);
    let row: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "count")
        .unwrap_or_else(|| panic!("no count row: {text}"));
    assert_eq!(row["hits"], 4, "{text}");
}

#[test]
fn tbreak_as_gdb_tbreak() {
    let is = hit_is(&ours(&["--tbreak", "step if i > 4"]));
    assert_eq!(is, [5]);
    if let Some(g) = gdb_is(&["tbreak step if i > 4"]) {
        assert_eq!(is, g);
    }
}

#[test]
fn ignore_as_gdb_ignore_after_the_condition() {
    let is = hit_is(&ours(&["--ignore", "4", "step if i > 1"]));
    assert_eq!(is, [6, 7, 8, 9]);
    if let Some(g) = gdb_is(&["break step if i > 1", "ignore 1 4"]) {
        assert_eq!(is, g);
    }
    // Ignored hits do not count towards --max-hits (gdb: the enable count
    // goes down only at a stop).
    let is = hit_is(&ours(&["--ignore", "2", "--max-hits", "3", "step"]));
    assert_eq!(is, [2, 3, 4]);
    if let Some(g) = gdb_is(&["break step", "ignore 1 2", "enable count 3 1"]) {
        assert_eq!(is, g);
    }
}

#[test]
fn print_as_gdb_dprintf() {
    let recs = ours(&[
        "--print",
        "a->total",
        "--print",
        "i + i",
        "--print",
        "a->last",
        "step if i > 6",
    ]);
    let printed: Vec<String> = recs
        .iter()
        .map(|r| {
            let p = r["print"].as_array().expect("print");
            assert_eq!(p[0]["name"], "a->total");
            assert_eq!(p[0]["type"], "int");
            p.iter()
                .map(|v| v["value"].as_i64().expect("integer").to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(printed.len(), 3, "{recs:?}");
    if !common::have("gdb") {
        return;
    }
    let prog = common::testprog("bp_hits");
    let g = gdb(
        &[
            "dprintf step,\"hit %d %d %d\\n\", a->total, i + i, a->last",
            "condition 1 i > 6",
        ],
        &prog,
    );
    assert_eq!(printed, g);
}

/// At a `ret:` probe, `--print` has registers: `$retval` is step's running
/// total (the program's own arithmetic: 0 + 1 + ... + i).
#[test]
fn print_at_return_probes() {
    let recs = ours(&["--print", "$retval", "--print", "i", "ret:step"]);
    let totals: Vec<i64> = recs
        .iter()
        .map(|r| r["print"][0]["value"].as_i64().expect("retval"))
        .collect();
    let want: Vec<i64> = (0..10).map(|i| i * (i + 1) / 2).collect();
    assert_eq!(totals, want);
    let why = recs[0]["print"][1]["value"].to_string();
    assert!(why.contains("ret: probe"), "{why}");
}

/// Eight threads calling `work` 80,000 times: exactly N hits are reported
/// however the threads race to the trap, and the program's result is
/// unchanged once the breakpoint is taken out.
#[test]
fn max_hits_is_exact_under_threads() {
    let prog = common::testprog("bp_threads");
    let plain = Command::new(&prog).output().expect("run program");
    for n in ["1", "7"] {
        let out = Command::new(common::rtrace())
            .args(["break", "--json", "--max-hits", n, "work", "--"])
            .arg(&prog)
            .stdin(Stdio::null())
            .output()
            .expect("run rtrace");
        assert!(out.status.success(), "{out:?}");
        assert_eq!(out.stdout, plain.stdout);
        let hits = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["type"] == "hit")
            .count();
        assert_eq!(hits.to_string(), n);
    }
}

/// A `--print` variable the function cannot read is refused before the
/// program starts, as a condition's is (exit status 2).
#[test]
fn print_of_an_unknown_variable_is_refused() {
    let prog = common::testprog("bp_hits");
    let out = Command::new(common::rtrace())
        .args([
            "break", "--print", "nosuch", "--print", "a->total", "step", "--",
        ])
        .arg(&prog)
        .output()
        .expect("run rtrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--print nosuch': no variable 'nosuch'"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "the program must not run");
}
