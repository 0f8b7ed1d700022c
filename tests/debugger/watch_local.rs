//! `rtrace watch func:var` against gdb watching the same local: `break
//! func`, `run`, and at every stop at `func` (each call) `watch var`, then
//! `continue` until the program exits. The sequence of events must be
//! gdb's: each change (old value, new value, function and line of the
//! stop) and each "Watchpoint N deleted because the program has left the
//! block in which its expression is valid" (function and line where the
//! caller resumes), over two calls of `accumulate` in
//! `testprogs/wp_local.c`.
#![cfg(target_arch = "x86_64")]

use super::watch_gdb::gdb_continue_to_exit;
use crate::common;
use serde_json::Value as J;
use std::path::Path;
use std::process::{Command, Stdio};

/// A change of the local, or the program leaving its block.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    /// Old value, new value, function and line of the stop.
    Change(String, String, String, u32),
    /// Function and line where execution continues.
    Left(String, u32),
}

/// `main () at f.c:32` or `0x… in main () at f.c:32`: function and line.
fn frame_place(line: &str) -> (String, u32) {
    let line = line.split_once(" in ").map_or(line, |(_, f)| f);
    let func = line.split([' ', '(']).next().unwrap_or("").to_string();
    let no = line
        .rsplit_once(':')
        .and_then(|(_, n)| n.trim().parse().ok())
        .unwrap_or(0);
    (func, no)
}

/// gdb's events with `watch WATCH` (`var` or `var if COND`) at each
/// stop at `func`.
fn gdb_events(func: &str, watch: &str, prog: &Path) -> Vec<Event> {
    let script = common::child::temp_path("watch-local-gdb");
    std::fs::write(
        &script,
        format!("break {func}\ncommands\nwatch {watch}\nend\n"),
    )
    .unwrap();
    let source = format!("source {}", script.display());
    let text = gdb_continue_to_exit(&[&source, "run"], prog);
    let _ = std::fs::remove_file(&script);
    let lines: Vec<&str> = text.lines().collect();
    let mut got = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if let Some(old) = l.strip_prefix("Old value = ") {
            let new = lines[i + 1].strip_prefix("New value = ").unwrap_or("?");
            let (f, n) = frame_place(lines[i + 2]);
            got.push(Event::Change(old.to_string(), new.to_string(), f, n));
        } else if l.contains("has left the block in") {
            let (f, n) = frame_place(lines[i + 2]);
            got.push(Event::Left(f, n));
        }
    }
    got
}

fn our_events(spec: &str, prog: &Path) -> (Vec<Event>, String) {
    let out = Command::new(common::rtrace())
        .args(["watch", "--json", spec, "--"])
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let mut got = Vec::new();
    for l in stderr.lines().filter(|l| l.starts_with('{')) {
        let j: J = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        let place = |p: &J| {
            (
                p["func"].as_str().unwrap_or("?").to_string(),
                p["line"].as_u64().unwrap_or(0) as u32,
            )
        };
        match j["type"].as_str() {
            Some("hit") => {
                let (f, n) = place(&j["pc"]);
                let v = |x: &J| x["dec"].to_string();
                got.push(Event::Change(v(&j["old"]), v(&j["new"]), f, n));
            }
            Some("scope") => {
                let (f, n) = place(&j["pc"]);
                got.push(Event::Left(f, n));
            }
            _ => {}
        }
    }
    (got, stderr)
}

#[test]
fn local_watch_follows_each_call_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb not installed");
        return;
    }
    let prog = common::testprog("wp_local");
    let gdb = gdb_events("accumulate", "total", &prog);
    let (ours, report) = our_events("accumulate:total", &prog);
    // Two calls: five and four changes, each ended by leaving the block.
    assert_eq!(gdb.len(), 11, "{gdb:?}");
    assert_eq!(ours, gdb, "{report}");
    let n = common::schema::Schemas::load()
        .check_lines("watch.schema.json", &report)
        .unwrap_or_else(|e| panic!("{e}\n{report}"));
    assert!(n > 0);
}

/// `func:var if COND`: COND reads the watched activation's parameter `n`
/// (and `total`), as gdb evaluates the condition of a watch set in
/// accumulate's frame. Only some of each call's changes pass; the old
/// value of a reported change is the value of the last check, passing or
/// not, and each call still ends by leaving the block.
#[test]
fn local_watch_condition_reads_the_activation_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb not installed");
        return;
    }
    let prog = common::testprog("wp_local");
    let cond = "total > n * 10 + 2";
    let gdb = gdb_events("accumulate", &format!("total if {cond}"), &prog);
    let (ours, report) = our_events(&format!("accumulate:total if {cond}"), &prog);
    // Call 1 (n=3): 33, 36, 72 of 30 31 33 36 72; call 2 (n=2): 23, 46.
    let changes = |ev: &[Event]| ev.iter().filter(|e| matches!(e, Event::Change(..))).count();
    assert_eq!(changes(&gdb), 5, "{gdb:?}");
    assert_eq!(gdb.len(), 7, "{gdb:?}");
    assert_eq!(ours, gdb, "{report}");
    assert!(report.contains(&format!("\"cond\":\"{cond}\"")), "{report}");
}

#[test]
fn local_watch_refuses_what_it_cannot_do() {
    let prog = common::testprog("wp_local");
    let run = |args: &[&str]| {
        let out = Command::new(common::rtrace())
            .arg("watch")
            .args(args)
            .arg("--")
            .arg(&prog)
            .stdin(Stdio::null())
            .output()
            .expect("run rtrace");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["accumulate:nosuch"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("nosuch"), "{err}");
    let (code, err) = run(&["nofunc:total"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("nofunc"), "{err}");
    let (code, err) = run(&["accumulate:total", "accumulate:n"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("alone"), "{err}");
    // A condition naming what neither the function nor the program has,
    // refused at the first call, before any hit.
    let (code, err) = run(&["accumulate:total if nosuch > 1"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("'nosuch'"), "{err}");
    assert!(!err.contains("Old value") && !err.contains("old="), "{err}");
}
