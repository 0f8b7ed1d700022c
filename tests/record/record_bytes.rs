//! Lossless bytes: two recordings of a program that differ only in one
//! non-UTF-8 byte (`\xff` against `\xfe` in a path it opens and in what it
//! writes) are told apart by `rtrace diff`; two recordings of the same
//! byte are not.

use crate::common;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

/// Records `json_bytes` into `out` with `rtrace record`, the byte given
/// on its stdin (an argument would make the two runs' execve differ too).
fn record(byte: &str, out: &Path) {
    let mut child = Command::new(rtrace())
        .args(["record", "-o"])
        .arg(out)
        .arg("--")
        .arg(common::testprog("json_bytes"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(byte.as_bytes())
        .unwrap();
    let r = child.wait_with_output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let want = u8::from_str_radix(byte, 16).unwrap();
    assert_eq!(r.stdout, [want], "the program wrote its byte");
}

/// The path argument of the recording's failed open of the byte's file.
fn opened_path(file: &Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| {
            e["syscall"] == "openat"
                && e["errno"] == "ENOENT"
                && e["args"][1].to_string().contains("72747261")
        })
        .map(|e| e["args"][1].clone())
        .unwrap_or_else(|| panic!("no openat of the byte's file in {text}"))
}

#[test]
fn diff_tells_one_non_utf8_byte_apart() {
    let dir = std::env::temp_dir().join(format!("rtrace_bytes_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (ff, ff2, fe) = (dir.join("ff"), dir.join("ff2"), dir.join("fe"));
    record("ff", &ff);
    record("ff", &ff2);
    record("fe", &fe);

    // The path is kept byte for byte: hex of "rtrace-no-such-file-" and the byte.
    let prefix: String = b"rtrace-no-such-file-"
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(opened_path(&ff)["bytes_hex"], format!("{prefix}ff"));
    assert_eq!(opened_path(&fe)["bytes_hex"], format!("{prefix}fe"));

    let diff = |a: &Path, b: &Path, extra: &[&str]| {
        Command::new(rtrace())
            .arg("diff")
            .arg(a)
            .arg(b)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = diff(&ff, &fe, &[]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("\\xff") && text.contains("\\xfe"),
        "the report shows both bytes:\n{text}"
    );
    let o = diff(&ff, &fe, &["--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["different"], true, "{v}");

    let o = diff(&ff, &ff2, &[]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.ends_with("result: no meaningful difference\n"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
