//! `rtrace watch` against `gdb -batch` watching the same expression in the
//! same program: the sequence of reported (old value, new value, function
//! of the stop) must be gdb's. Conditions (`EXPR if COND`, gdb's `watch x
//! if x > 5`) on `testprogs/wp_cond.c`; objects wider than 8 bytes (a
//! 32-byte array over DR0-DR3, a 24-byte struct over three registers,
//! which gdb also watches in hardware) on `testprogs/wp_wide.c`; globals
//! of a shared library the program loads at start-up
//! (`testprogs/wp_libvar.c`, `wp_libmain.c`), which gdb watches once
//! stopped at `main`.
//!
//! gdb reports a write only when it changes the value; rtrace reports
//! every write. The programs here change the value at every write, so the
//! two lists are comparable as they are.
#![cfg(target_arch = "x86_64")]

use crate::common;
use serde_json::Value as J;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn need_gdb() -> bool {
    if common::have("gdb") {
        return true;
    }
    eprintln!("gdb not installed: skipped");
    false
}

/// One reported change: old value, new value, function of the stop.
type Change = (String, String, String);

/// gdb's stops for `gdb -batch -ex WATCH -ex run -ex continue…` on `prog`.
fn gdb_changes(watch: &str, prog: &Path) -> Vec<Change> {
    gdb_changes_after(&[watch, "run"], prog)
}

/// gdb's stops for `gdb -batch -ex CMD… -ex continue…` on `prog`.
fn gdb_changes_after(cmds: &[&str], prog: &Path) -> Vec<Change> {
    let text = gdb_continue_to_exit(cmds, prog);
    let lines: Vec<&str> = text.lines().collect();
    let mut got = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(old) = l.strip_prefix("Old value = ") else {
            continue;
        };
        let new = lines[i + 1]
            .strip_prefix("New value = ")
            .unwrap_or_else(|| panic!("no new value after line {i}:\n{text}"));
        got.push((gdb_value(old), gdb_value(new), frame_function(lines[i + 2])));
    }
    assert!(!got.is_empty(), "no stops from gdb:\n{text}");
    got
}

/// gdb's output for `gdb -batch -ex CMD… -ex continue…` on `prog`, run
/// until the program exits (asserted).
pub(crate) fn gdb_continue_to_exit(cmds: &[&str], prog: &Path) -> String {
    let mut cmd = common::gdb_batch();
    for c in cmds {
        cmd.args(["-ex", c]);
    }
    // More continues than stops: gdb runs every -ex, the extra ones only
    // print "The program is not being run."
    for _ in 0..40 {
        cmd.args(["-ex", "continue"]);
    }
    let out = cmd
        .arg("--args")
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run gdb");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("exited normally"),
        "gdb did not finish:\n{text}"
    );
    text
}

/// The function of a gdb frame line: `set (v=7) at f.c:18` or
/// `0x401136 in set (v=7) at f.c:18`.
fn frame_function(line: &str) -> String {
    let line = line.split_once(" in ").map_or(line, |(_, f)| f);
    line.split([' ', '(']).next().unwrap_or("").to_string()
}

/// The text of a watched value as gdb prints it: an integer's decimal, a
/// typed value's text with arrays in braces (rtrace prints `[1, 2]` and
/// `{a=1}`, gdb `{1, 2}` and `{a = 1}`; see [`gdb_value`]).
fn value_text(v: &J) -> String {
    match v.get("dec") {
        Some(d) => d.to_string(),
        None => v["text"]
            .as_str()
            .unwrap_or("?")
            .replace('[', "{")
            .replace(']', "}"),
    }
}

/// gdb's value text in rtrace's spelling of members (`a=1`).
fn gdb_value(v: &str) -> String {
    v.replace(" = ", "=")
}

fn records(report: &str, ty: &str) -> Vec<J> {
    report
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<J>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|j| j["type"] == ty)
        .collect()
}

/// Every JSON line of a report follows docs/schema/watch.schema.json.
fn follows_the_schema(report: &str) {
    let n = common::schema::Schemas::load()
        .check_lines("watch.schema.json", report)
        .unwrap_or_else(|e| panic!("{e}\n{report}"));
    assert!(n > 0, "{report}");
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn watch(args: &[&str], prog: &Path) -> Run {
    let out = Command::new(common::rtrace())
        .arg("watch")
        .args(args)
        .arg("--")
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// rtrace's hits for `rtrace watch --json SPEC -- prog`, as [`Change`]s
/// (the function of the pc after the access, where gdb stops).
fn our_changes(spec: &str, prog: &Path) -> Vec<Change> {
    let r = watch(&["--json", spec], prog);
    assert_eq!(r.code, 0, "{spec}: {}", r.stderr);
    records(&r.stderr, "hit")
        .iter()
        .map(|h| {
            (
                value_text(&h["old"]),
                value_text(&h["new"]),
                h["pc"]["func"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect()
}

fn variants(name: &str) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("pie-O0", common::testprog(name)),
        (
            "nopie-O2",
            common::testprog_variant(name, "nopie-O2", &["-O2", "-no-pie"]),
        ),
    ]
}

#[test]
fn conditions_report_what_gdb_reports() {
    if !need_gdb() {
        return;
    }
    // `x > 5` tells gdb's global scope from the writer's: set_shadowed's
    // parameter `x` is one less than the global it writes.
    for cond in ["x > 5", "x > limit", "x == 3 || x >= 12", "(x & 1) == 0"] {
        for (variant, prog) in variants("wp_cond") {
            let gdb = gdb_changes(&format!("watch x if {cond}"), &prog);
            let ours = our_changes(&format!("x if {cond}"), &prog);
            assert_eq!(ours, gdb, "{variant}: watch x if {cond}");
        }
    }
}

#[test]
fn count_counts_only_hits_whose_condition_holds() {
    if !need_gdb() {
        return;
    }
    let prog = common::testprog("wp_cond");
    let stops = gdb_changes("watch x if x > 5", &prog).len();
    let r = watch(&["--count", "--json", "x if x > 5", "x"], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hits: Vec<u64> = records(&r.stderr, "count")
        .iter()
        .map(|c| c["hits"].as_u64().unwrap())
        .collect();
    // The unconditional watch sees every write: 9 by set(), 3 by set_shadowed().
    assert_eq!(hits, vec![stops as u64, 12], "{}", r.stderr);
    let plan = records(&r.stderr, "watch");
    assert_eq!(plan[0]["cond"], "x > 5");
    assert!(plan[1].get("cond").is_none());
    follows_the_schema(&r.stderr);
    // The same condition through `rtrace break --watch`.
    let out = Command::new(common::rtrace())
        .args([
            "break",
            "set",
            "--count",
            "--json",
            "--watch",
            "x if x > 5",
            "--",
        ])
        .arg(&prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace break");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let watched: Vec<u64> = records(&err, "count")
        .iter()
        .filter(|c| c["expr"] == "x")
        .map(|c| c["hits"].as_u64().unwrap())
        .collect();
    assert_eq!(watched, vec![stops as u64], "{err}");
}

#[test]
fn conditions_that_cannot_be_read_are_clear_errors() {
    let prog = common::testprog("wp_cond");
    for (spec, needle, code) in [
        (
            "x if nothing > 1",
            "no global variable or enumerator 'nothing'",
            1,
        ),
        ("x if $retval > 1", "$retval is known at a breakpoint", 2),
        ("x if x =", "condition 'x ='", 2),
        ("x if ", "empty condition", 2),
    ] {
        let r = watch(&[spec], &prog);
        assert_eq!(r.code, code, "{spec}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{spec}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{spec}: the program must not have run");
    }
    let r = watch(&["--exec", "set if x > 1"], &prog);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("for execution with a condition"),
        "{}",
        r.stderr
    );
}

/// At -O2 the program's 16-byte `memcpy` into `arr[1..3]` is one `movups`
/// across two registers' pieces: one hit, as gdb's one stop.
#[test]
fn wide_objects_report_the_whole_value_as_gdb() {
    if !need_gdb() {
        return;
    }
    for (var, slots, len) in [("arr", "DR0-DR3", 32), ("rec", "DR0-DR2", 24)] {
        for (variant, prog) in variants("wp_wide") {
            let gdb = gdb_changes(&format!("watch {var}"), &prog);
            let ours = our_changes(var, &prog);
            assert_eq!(ours, gdb, "{variant}: watch {var}");
            let r = watch(&["--json", var], &prog);
            let plan = records(&r.stderr, "watch");
            assert_eq!(plan[0]["slot"], slots, "{variant}: {}", r.stderr);
            assert_eq!(plan[0]["len"], len);
        }
    }
}

/// `*ADDR:32` has no type: the bytes, in address order, of a non-PIE
/// build's `arr` (whose address `nm` gives), ending as the program prints.
#[test]
fn an_untyped_wide_range_reports_its_bytes() {
    let prog = common::testprog_variant("wp_wide", "nopie", &["-no-pie"]);
    let nm = Command::new("nm").arg(&prog).output().expect("nm");
    let arr = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .find_map(|l| l.strip_suffix(" B arr").map(|a| a.to_string()))
        .expect("arr in nm's output");
    let r = watch(&["--json", &format!("*0x{arr}:32")], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let finals: Vec<i64> = r
        .stdout
        .split_whitespace()
        .skip(1)
        .take(4)
        .map(|v| v.parse().unwrap())
        .collect();
    let want: String = finals
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect();
    let hits = records(&r.stderr, "hit");
    assert_eq!(
        hits.last().unwrap()["new"]["bytes"],
        want.as_str(),
        "{}",
        r.stderr
    );
    assert_eq!(hits[0]["old"]["bytes"], "00".repeat(32));
    follows_the_schema(&r.stderr);
}

#[test]
fn ranges_wider_than_the_registers_are_clear_errors() {
    let prog = common::testprog("wp_wide");
    for (args, needle) in [
        (
            &["*0x1000:40"][..],
            "its 40 bytes need 5 debug address registers (aligned pieces of 1, 2, 4 or 8 \
             bytes), but the CPU has only 4 (DR0-DR3), 32 bytes at most",
        ),
        (
            &["rec", "arr"][..],
            "need 7 debug address registers in all (rec: 24 bytes, 3; arr: 32 bytes, 4)",
        ),
    ] {
        let r = watch(args, &prog);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}: the program must not have run");
    }
}

/// The library with globals (`wp_libvar`) and the program linked against
/// it (`wp_libmain`), which never names them.
fn lib_program() -> PathBuf {
    let lib = common::testprog_variant("wp_libvar", "so", &["-shared", "-fPIC"]);
    let lib = lib.to_str().expect("utf-8 path");
    // The library before the program's object: kept with --no-as-needed.
    common::testprog_variant("wp_libmain", "linked", &["-Wl,--no-as-needed", lib])
}

#[test]
fn library_globals_report_what_gdb_reports() {
    if !need_gdb() {
        return;
    }
    let prog = lib_program();
    for spec in ["lib_total", "lib_hist", "lib_total if lib_total > 5"] {
        let watch_cmd = format!("watch {spec}");
        let gdb = gdb_changes_after(&["break main", "run", &watch_cmd], &prog);
        let ours = our_changes(spec, &prog);
        assert_eq!(ours, gdb, "watch {spec}");
    }
    let r = watch(&["--json", "lib_total", "lib_hist"], &prog);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "sum 18\n");
    let plan = records(&r.stderr, "watch");
    assert_eq!(plan[1]["slot"], "DR1-DR2", "{}", r.stderr);
    // Typed by the library's DWARF.
    assert_eq!(
        records(&r.stderr, "hit")[0]["new"]["type"],
        "long",
        "{}",
        r.stderr
    );
    follows_the_schema(&r.stderr);
}

#[test]
fn a_name_no_loaded_library_defines_is_a_clear_error() {
    let r = watch(&["nosuch"], &lib_program());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("no global variable 'nosuch' in the symbol table of"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("libraries it loaded at start-up"),
        "{}",
        r.stderr
    );
    // Refused at the entry point: main never ran.
    assert_eq!(r.stdout, "");
}

/// `-p`: the libraries are mapped already; the library global is placed
/// at once, its write reported, and SIGINT leaves the program unharmed
/// (a debug register left set would kill it with SIGTRAP at the next
/// write).
#[test]
fn an_attached_program_has_its_library_globals_watched() {
    use common::child::{lines_of, next_line};
    use std::io::Write;
    let mut prog = Command::new(lib_program())
        .arg("stdin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run wp_libmain");
    let mut to_prog = prog.stdin.take().unwrap();
    let from_prog = lines_of(prog.stdout.take().unwrap());
    let ready = next_line(&from_prog, "ready PID");
    let pid = ready
        .strip_prefix("ready ")
        .expect("ready line")
        .to_string();
    let mut tracer = Command::new(common::rtrace())
        .args(["watch", "--json", "lib_total", "-p", &pid])
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rtrace");
    let report = lines_of(tracer.stderr.take().unwrap());
    let mut seen = Vec::new();
    loop {
        let l = next_line(&report, "the armed thread");
        seen.push(l.clone());
        if l.contains("\"armed\"") {
            break;
        }
    }
    let plan: Vec<J> = records(&seen.join("\n"), "watch");
    assert_eq!(plan.len(), 1, "{seen:?}");
    assert_eq!(plan[0]["len"], 8);
    writeln!(to_prog, "add 5").unwrap();
    assert_eq!(next_line(&from_prog, "added 5"), "added 5");
    let hit: J = loop {
        let l = next_line(&report, "the hit");
        let j: J = serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l}"));
        if j["type"] == "hit" {
            break j;
        }
    };
    assert_eq!(hit["old"]["dec"], 0, "{hit}");
    assert_eq!(hit["new"]["dec"], 5, "{hit}");
    assert_eq!(hit["insn"]["func"], "lib_add", "{hit}");
    // SAFETY: kill with a live child's pid.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
    let status = tracer.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGINT), "{status:?}");
    writeln!(to_prog, "add 2").unwrap();
    assert_eq!(next_line(&from_prog, "added 2"), "added 2");
    writeln!(to_prog, "q").unwrap();
    assert_eq!(next_line(&from_prog, "sum"), "sum 7");
    assert_eq!(prog.wait().unwrap().code(), Some(0));
}
