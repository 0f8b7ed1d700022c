//! Every JSON stream against its schema in docs/schema/: real output of
//! rstrace, rltrace, `rtrace record`, `rtrace break` and `rtrace watch`
//! (kernel JSON: tests/kernel/kernel.rs), each starting with its schema
//! line (a recording: its header), and a field whose type changes fails.

use crate::common;

use common::child::{run, temp_path};
use common::schema::Schemas;
use serde_json::{json, Value};

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| l.starts_with("{\""))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Checks `text` against `stream`'s schema and that its first JSON line is
/// the schema line; returns the objects.
fn check(stream: &str, text: &str) -> Vec<Value> {
    let s = Schemas::load();
    let n = s
        .check_lines(&format!("{stream}.schema.json"), text)
        .unwrap_or_else(|e| panic!("{stream}: {e}"));
    let objs = lines(text);
    assert_eq!(n, objs.len());
    assert_eq!(
        objs.first(),
        Some(&json!({"type": "schema", "stream": stream, "version": 1})),
        "{stream}: the first line:\n{text}"
    );
    objs
}

fn json_bytes_trace() -> String {
    let prog = common::testprog("json_bytes");
    let out = temp_path("schema-bytes.jsonl");
    let (st, _, err) = run(
        &common::rstrace(),
        &[
            "--json",
            "-o",
            out.to_str().unwrap(),
            prog.to_str().unwrap(),
            "fe",
        ],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    text
}

#[test]
fn rstrace_json_follows_its_schema_and_a_changed_type_fails() {
    let text = json_bytes_trace();
    let objs = check("rstrace", &text);
    let open = objs
        .iter()
        .find(|o| o["syscall"] == "openat" && o["errno"] == "ENOENT" && o["args"][1].is_object())
        .unwrap_or_else(|| panic!("no openat of the non-UTF-8 name:\n{text}"));
    assert!(open["args"][1]["bytes_hex"]
        .as_str()
        .unwrap()
        .ends_with("fe"));
    let s = Schemas::load();
    assert_eq!(s.check("rstrace.schema.json", open), Ok(()));
    // Each of these changes one field's type or shape: each must fail.
    let ts = open["ts_ns"].as_u64().unwrap();
    let changes: [(&str, Value); 6] = [
        ("ts_ns", json!(ts as f64 / 1e9)),
        ("ts_ns", json!(ts.to_string())),
        ("pid", json!("1")),
        ("args", json!([{"bytes_hex": 255}])),
        ("return", json!(true)),
        ("time", json!(ts)),
    ];
    for (k, v) in changes {
        let mut bad = open.clone();
        bad[k] = v.clone();
        assert!(
            s.check("rstrace.schema.json", &bad).is_err(),
            "{k} = {v} passed the schema"
        );
    }
    let mut bad = open.clone();
    bad.as_object_mut().unwrap().remove("syscall");
    assert!(s.check("rstrace.schema.json", &bad).is_err());
}

#[test]
fn rstrace_and_rltrace_follow_their_schemas() {
    let prog = common::testprog("json_shapes");
    for (tool, stream, extra) in [
        (common::rstrace(), "rstrace", &["-f", "-k"][..]),
        (
            common::rltrace(),
            "rltrace",
            &["-f", "-S", "-e", "fork"][..],
        ),
    ] {
        let out = temp_path("schema-shapes.jsonl");
        let tmp = temp_path("schema-shapes.tmp");
        let mut args = extra.to_vec();
        args.extend(["--json", "-o", out.to_str().unwrap()]);
        args.extend([prog.to_str().unwrap(), tmp.to_str().unwrap()]);
        let (st, _, err) = run(&tool, &args);
        assert_eq!(st.code(), Some(3), "{stream}: {err}");
        let text = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&tmp);
        let objs = check(stream, &text);
        assert!(objs.iter().any(|o| o["type"] == "syscall"), "{stream}");
        assert!(objs.iter().any(|o| o["type"] == "exit"), "{stream}");
        if stream == "rltrace" {
            assert!(objs.iter().any(|o| o["type"] == "libcall"), "{text}");
        }
    }
}

#[test]
fn a_recording_follows_its_schema() {
    let prog = common::testprog("json_bytes");
    let out = temp_path("schema-rec.rtrace");
    let (st, _, err) = run(
        &common::rtrace(),
        &[
            "record",
            "-o",
            out.to_str().unwrap(),
            "--",
            prog.to_str().unwrap(),
            "ff",
        ],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let s = Schemas::load();
    let n = s
        .check_lines("record.schema.json", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let objs = lines(&text);
    assert_eq!(n, objs.len());
    assert_eq!(
        (&objs[0]["type"], &objs[0]["stream"]),
        (&json!("header"), &json!("record"))
    );
    assert_eq!(objs.last().unwrap()["type"], "footer");
}

#[test]
fn break_and_watch_follow_their_schemas() {
    let fib = common::testprog("bp_fib");
    let (st, _, err) = run(
        &common::rtrace(),
        &[
            "break",
            "--backend",
            "ptrace",
            "--json",
            "fib",
            "ret:fib",
            "--",
            fib.to_str().unwrap(),
            "5",
        ],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    let objs = check("break", &err);
    assert!(objs.iter().any(|o| o["type"] == "hit") && objs.iter().any(|o| o["type"] == "return"));

    // -O2: backtrace arguments with values at entry (bt_args, entry).
    let entry = common::testprog_variant("bt_entry", "O2", &["-O2"]);
    let (st, _, err) = run(
        &common::rtrace(),
        &[
            "break",
            "--json",
            "--bt",
            "same",
            "--",
            entry.to_str().unwrap(),
        ],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    let objs = check("break", &err);
    let hit = objs.iter().find(|o| o["type"] == "hit").expect("a hit");
    assert_eq!(hit["bt_args"][0][0]["entry"], 5, "{err}");
    let broken = err.replace("\"entry\":5", "\"entry\":true");
    assert!(
        Schemas::load()
            .check_lines("break.schema.json", &broken)
            .is_err(),
        "an entry that is no value passed: {broken}"
    );

    let wp = common::testprog("wp_write");
    let (st, out, err) = run(
        &common::rtrace(),
        &[
            "watch",
            "--json",
            "counter",
            "wide",
            "--",
            wp.to_str().unwrap(),
        ],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    let text = if err.contains("\"type\":\"schema\"") {
        err
    } else {
        out
    };
    let objs = check("watch", &text);
    assert!(objs.iter().any(|o| o["type"] == "hit"), "{text}");
}
