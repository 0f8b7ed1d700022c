//! `rtrace watch` on C++ globals named as gdb names them (`ns::counter`,
//! a static member `ns::S::total`; testprogs/wp_cxx.cc) and on Rust
//! statics by their crate paths (an `AtomicU64` and a `static mut`;
//! testprogs/wp_rust.rs built with rustc): the same writes, old and new
//! values, as gdb's `watch`.

use crate::common;
use std::path::Path;
use std::process::{Command, Stdio};

/// `(old, new)` of each write rtrace reports for `var` in `prog`, which
/// must print `stdout`.
fn ours(var: &str, prog: &Path, stdout: &str) -> Vec<(String, String)> {
    let out = Command::new(common::rtrace())
        .args(["watch", var, "--"])
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{var}: {err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), stdout);
    err.lines()
        .filter_map(|l| l.split_once(": write old ").map(|x| x.1))
        .map(|l| {
            let (old, rest) = l.split_once(' ').expect("old");
            let new = rest.split_once(" new ").expect("new").1;
            let new = new.split_once(' ').map_or(new, |x| x.0);
            (old.to_string(), new.to_string())
        })
        .collect()
}

/// gdb's `Old value`/`New value` pairs for `watch VAR` from main on, a
/// struct's value (Rust's `AtomicU64 {v: UnsafeCell<u64> {value: 1}}`) as
/// the integer it holds.
fn gdbs(var: &str, prog: &Path) -> Vec<(String, String)> {
    let mut cmd = common::gdb_batch();
    cmd.args([
        "-ex",
        "break main",
        "-ex",
        "run",
        "-ex",
        &format!("watch {var}"),
    ]);
    for _ in 0..4 {
        cmd.args(["-ex", "continue"]);
    }
    let out = cmd.arg(prog).output().expect("run gdb");
    let text = String::from_utf8_lossy(&out.stdout);
    let held = |v: &str| {
        let v = v.trim_end_matches('}');
        v.rsplit_once(": ").map_or(v, |x| x.1).to_string()
    };
    let olds = text
        .lines()
        .filter_map(|l| l.strip_prefix("Old value = "))
        .map(held);
    let news = text
        .lines()
        .filter_map(|l| l.strip_prefix("New value = "))
        .map(held);
    olds.zip(news).collect()
}

#[test]
fn cxx_qualified_globals_as_gdb() {
    if !common::have("g++") {
        eprintln!("skip: g++ is not installed");
        return;
    }
    for (var, news) in [
        ("ns::counter", ["1", "3", "6"]),
        ("ns::S::total", ["2", "6", "12"]),
    ] {
        let prog = common::testprog("wp_cxx");
        let got = ours(var, &prog, "6 12\n");
        let got_news: Vec<&str> = got.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(got_news, news, "{var}");
        if common::have("gdb") {
            assert_eq!(got, gdbs(var, &prog), "{var}");
        }
    }
}

#[test]
fn rust_statics_as_gdb() {
    if !common::have("rustc") {
        eprintln!("skip: rustc is not installed");
        return;
    }
    let dir = common::child::temp_path("wp-rust");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let prog = dir.join("wp_rust");
    let src = common::workspace_dir().join("testprogs/wp_rust.rs");
    let st = Command::new("rustc")
        .arg("-g")
        .arg("-o")
        .arg(&prog)
        .arg(&src)
        .output()
        .expect("rustc");
    assert!(
        st.status.success(),
        "rustc: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    for (var, news) in [
        ("wp_rust::TOTAL", ["1", "4", "9", "16"]),
        ("wp_rust::LAST", ["2", "7", "12", "17"]),
    ] {
        let got = ours(var, &prog, "16 17\n");
        let got_news: Vec<&str> = got.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(got_news, news, "{var}");
        if common::have("gdb") {
            assert_eq!(got, gdbs(var, &prog), "{var}");
        } else {
            eprintln!("skip: gdb is not installed (values checked against the program's)");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
