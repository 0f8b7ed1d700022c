//! `rltrace --json`: one object per library call (and per syscall with
//! `-S`, in rstrace `--json`'s shape), exits, calls that never return, and
//! `-f -S --json -o FILE` as `rtrace record --libcalls` runs it.

use crate::common;
use crate::ltrace_util;

use ltrace_util::{rltrace, run, temp};
use serde_json::Value;
use std::process::Command;

fn malloc_prog() -> std::path::PathBuf {
    common::testprog_variant("ltinject_malloc", "lazy", &["-fno-builtin"])
}

fn objects(trace: &str) -> Vec<Value> {
    trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn one_object_per_call_with_arguments_and_results() {
    let prog = malloc_prog();
    let r = run(&["--json"], &prog, &["3"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let objs = objects(&r.trace);
    let name = prog.file_name().unwrap().to_string_lossy().into_owned();
    let mallocs: Vec<&Value> = objs.iter().filter(|o| o["func"] == "malloc").collect();
    assert_eq!(mallocs.len(), 3, "{}", r.trace);
    let mut last_time = 0;
    for (i, m) in mallocs.iter().enumerate() {
        assert_eq!(m["type"], "libcall");
        assert_eq!(m["args"], serde_json::json!([format!("{}", 101 + i)]));
        assert_eq!(m["lib"], "libc.so.6", "{m}");
        assert_eq!(m["caller"], name.as_str(), "{m}");
        let ret = m["return"].as_str().expect("a returned value");
        assert!(ret.starts_with("0x"), "{m}");
        let t = m["ts_ns"].as_u64().expect("ts_ns");
        assert!(t > last_time, "{m}");
        last_time = t;
        assert!(m["dur_ns"].as_u64().is_some(), "{m}");
        assert!(m["pid"].as_i64().is_some_and(|p| p > 0), "{m}");
    }
    // The pointer malloc returned is the one memset and free get.
    let memsets: Vec<&Value> = objs.iter().filter(|o| o["func"] == "memset").collect();
    let frees: Vec<&Value> = objs.iter().filter(|o| o["func"] == "free").collect();
    assert_eq!((memsets.len(), frees.len()), (3, 3), "{}", r.trace);
    for i in 0..3 {
        assert_eq!(memsets[i]["args"][0], mallocs[i]["return"]);
        assert_eq!(memsets[i]["args"][1], "'x'");
        assert_eq!(frees[i]["args"][0], mallocs[i]["return"]);
        assert_eq!(frees[i]["return"], "<void>");
    }
    // printf's varargs are rendered one by one.
    let pf = objs.iter().find(|o| o["func"] == "printf").expect("printf");
    assert_eq!(pf["args"], serde_json::json!(["\"malloc %d: ok\\n\"", "1"]));
    // exit() never returns: null; then the exit record.
    let ex = objs.iter().find(|o| o["func"] == "exit").expect("exit");
    assert!(ex["return"].is_null(), "{ex}");
    assert!(ex.get("dur_ns").is_none(), "{ex}");
    let last = objs.last().unwrap();
    assert_eq!(last["type"], "exit");
    assert_eq!(last["exit_code"], 0);
    assert!(last.get("status").is_none(), "{last}");
    assert!(!r.trace.contains("+++"), "no text lines: {}", r.trace);
}

#[test]
fn follow_syscalls_json_to_file_as_record_runs_it() {
    if !std::path::Path::new("/bin/sh").exists() {
        eprintln!("skip: no /bin/sh");
        return;
    }
    let prog = malloc_prog();
    let file = temp("rec.jsonl");
    let out = Command::new(rltrace())
        .args(["-f", "-S", "--json", "-o"])
        .arg(&file)
        .arg("/bin/sh")
        .arg("-c")
        .arg(format!("{} 2; exit 4", prog.display()))
        .output()
        .expect("rltrace");
    assert_eq!(out.status.code(), Some(4), "exit status passed through");
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    let objs = objects(&text);
    // The program's output is in a write syscall record, decoded.
    let w = objs
        .iter()
        .find(|o| {
            o["type"] == "syscall"
                && o["syscall"] == "write"
                && o["args"][1] == "malloc 1: ok\nmalloc 2: ok\n"
        })
        .unwrap_or_else(|| panic!("no write record:\n{text}"));
    let child = w["pid"].as_i64().unwrap();
    assert_eq!(w["return"], 26);
    assert!(w["dur_ns"].as_u64().is_some());
    // Its library calls, in the same process (after the exec: made by the
    // program, not by the shell's vfork child); the shell's in another.
    let name = prog.file_name().unwrap().to_string_lossy().into_owned();
    let args: Vec<&Value> = objs
        .iter()
        .filter(|o| {
            o["type"] == "libcall"
                && o["pid"] == child
                && o["func"] == "malloc"
                && o["caller"] == name.as_str()
        })
        .map(|o| &o["args"][0])
        .collect();
    assert_eq!(args, ["101", "102"], "{text}");
    let shell = objs
        .iter()
        .find(|o| o["type"] == "libcall" && o["pid"] != child)
        .and_then(|o| o["pid"].as_i64())
        .expect("the shell's calls");
    // exit_group never returns; then both exit records.
    assert!(objs.iter().any(|o| o["type"] == "syscall"
        && o["pid"] == child
        && o["syscall"] == "exit_group"
        && o["return"].is_null()));
    let exits: Vec<(i64, i64)> = objs
        .iter()
        .filter(|o| o["type"] == "exit")
        .map(|o| (o["pid"].as_i64().unwrap(), o["exit_code"].as_i64().unwrap()))
        .collect();
    assert!(exits.contains(&(child, 0)), "{exits:?}");
    assert!(exits.contains(&(shell, 4)), "{exits:?}");
}

#[test]
fn json_and_count_are_refused_together() {
    let out = Command::new(rltrace())
        .args(["--json", "-c", "true"])
        .output()
        .expect("rltrace");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--json and -c"));
}
