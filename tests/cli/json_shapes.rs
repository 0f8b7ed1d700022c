//! One JSON shape per kind of value, whichever tool prints it: flag sets are
//! `{"flags":[NAMES],"rest":N}` also where a decoder builds them as a symbol
//! (mmap's flags, a file mode), and a process's end is an `exit` object with
//! `exit_code`, or `signal` and `core_dumped` (never a prose `status`), in
//! rstrace's and rltrace's `--json` and in a trace file. Also: folded stacks
//! name frames without a symbol `module+0xoffset`, so the same code in two
//! processes (two load addresses) merges.

use crate::common;

use common::child::{run, temp_path};
use serde_json::{json, Value};
use std::path::Path;

fn objects(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Every `{"sym":…}` anywhere in `v`.
fn syms<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(s) = m.get("sym").and_then(Value::as_str) {
                out.push(s);
            }
            m.values().for_each(|x| syms(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| syms(x, out)),
        _ => {}
    }
}

/// The checks shared by rstrace and rltrace `-f --json` of json_shapes.
fn check_exits(objs: &[Value], what: &str) {
    let exits: Vec<&Value> = objs.iter().filter(|o| o["type"] == "exit").collect();
    assert_eq!(exits.len(), 2, "{what}: {exits:?}");
    for e in &exits {
        assert!(e.get("status").is_none(), "{what}: prose status in {e}");
    }
    let parent = exits.iter().find(|e| e.get("exit_code").is_some());
    let child = exits.iter().find(|e| e.get("signal").is_some());
    assert_eq!(parent.map(|e| &e["exit_code"]), Some(&json!(3)), "{what}");
    let child = child.unwrap_or_else(|| panic!("{what}: no killed child in {exits:?}"));
    assert_eq!(child["signal"], "SIGKILL", "{what}");
    assert_eq!(child["core_dumped"], false, "{what}");
    assert!(child.get("exit_code").is_none(), "{what}");
}

#[test]
fn rstrace_flags_and_exits_have_one_shape() {
    let prog = common::testprog("json_shapes");
    let out = temp_path("json-shapes.jsonl");
    let tmp = temp_path("json-shapes.tmp");
    let (st, stdout, err) = run(
        &common::rstrace(),
        &[
            "-f",
            "--json",
            "-o",
            out.to_str().unwrap(),
            prog.to_str().unwrap(),
            tmp.to_str().unwrap(),
        ],
    );
    assert_eq!(st.code(), Some(3), "{err}");
    assert_eq!(stdout, "mode 640\nchild killed 9\n");
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let objs = objects(&text);
    // The program's own mmap: flags as a list, like every other flag set.
    let mmap = objs
        .iter()
        .filter(|o| o["syscall"] == "mmap" && o["args"][1] == 4096)
        .find(|o| o["args"][3]["flags"] == json!(["MAP_PRIVATE", "MAP_ANONYMOUS"]));
    assert!(mmap.is_some(), "no mmap with a flag list: {text}");
    // fstat of the file it made 0640: type by name, permission bits as rest.
    let modes: Vec<&Value> = objs
        .iter()
        .filter(|o| o["syscall"] == "newfstatat" || o["syscall"] == "fstat")
        .flat_map(|o| o["args"].as_array().unwrap())
        .filter_map(|a| a.get("st_mode"))
        .collect();
    assert!(
        modes.contains(&&json!({"flags": ["S_IFREG"], "rest": 0o640})),
        "{modes:?}"
    );
    // No symbol left that is a set of names joined by '|'.
    let mut all = Vec::new();
    objs.iter().for_each(|o| syms(o, &mut all));
    let sets: Vec<&&str> = all
        .iter()
        .filter(|s| {
            s.contains('|')
                && s.split('|')
                    .all(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
        })
        .collect();
    assert!(sets.is_empty(), "flag sets as symbols: {sets:?}");
    check_exits(&objs, "rstrace");
}

#[test]
fn rltrace_exits_have_the_same_shape() {
    let prog = common::testprog("json_shapes");
    let out = temp_path("json-shapes-lt.jsonl");
    let tmp = temp_path("json-shapes-lt.tmp");
    let (st, _, err) = run(
        &common::rltrace(),
        &[
            "-f",
            "--json",
            "-e",
            "fork",
            "-o",
            out.to_str().unwrap(),
            prog.to_str().unwrap(),
            tmp.to_str().unwrap(),
        ],
    );
    assert_eq!(st.code(), Some(3), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    check_exits(&objects(&text), "rltrace");
}

fn is_bare_address(frame: &str) -> bool {
    frame.starts_with("0x") && frame[2..].chars().all(|c| c.is_ascii_hexdigit())
}

#[test]
fn unsymbolised_frames_of_two_processes_merge_as_module_offset() {
    // Stripped PIE: inner/outer/main have no symbol, only CFI.
    let prog = common::testprog_variant("stack_k", "stripped", &["-s", "-fPIE", "-pie"]);
    let dir = temp_path("json-shapes-folded");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.rtrace");
    let p = prog.to_str().unwrap();
    let (st, out, err) = run(
        &common::rtrace(),
        &[
            "record",
            "-k",
            "-e",
            "trace=write",
            "-o",
            file.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            &format!("{p}; {p}"),
        ],
    );
    assert!(st.success(), "{err}");
    assert_eq!(out, "hi\nhi\n");
    // Two processes, two load addresses (ASLR): bare pcs would not merge.
    let text = std::fs::read_to_string(&file).unwrap();
    let writes: Vec<Value> = objects(&text)
        .into_iter()
        .filter(|o| o["syscall"] == "write" && o["stack"].is_array())
        .collect();
    assert_eq!(writes.len(), 2, "{text}");
    let pcs = |o: &Value| {
        o["stack"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["pc"].clone())
            .collect::<Vec<_>>()
    };
    assert_ne!(
        pcs(&writes[0]),
        pcs(&writes[1]),
        "same addresses: ASLR off?"
    );
    let o = common::named(common::rtrace())
        .args(["export", "--format", "folded"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let folded = String::from_utf8(o.stdout).unwrap();
    let name = Path::new(p).file_name().unwrap().to_str().unwrap();
    let lines: Vec<&str> = folded
        .lines()
        .filter(|l| {
            l.rsplit_once(' ')
                .is_some_and(|(s, _)| s.ends_with(";write"))
        })
        .collect();
    assert_eq!(lines.len(), 1, "one merged stack: {folded}");
    let (stack, weight) = lines[0].rsplit_once(' ').unwrap();
    assert_eq!(weight, "2", "{folded}");
    let frames: Vec<&str> = stack.split(';').collect();
    assert!(
        frames
            .iter()
            .filter(|f| f.starts_with(&format!("{name}+0x")))
            .count()
            >= 3,
        "main, outer, inner as {name}+0xOFF: {stack}"
    );
    assert!(!frames.iter().any(|f| is_bare_address(f)), "{folded}");
    std::fs::remove_dir_all(&dir).unwrap();
}
