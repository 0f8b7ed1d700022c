//! `rtrace watch` on C++ globals named as gdb names them (`ns::counter`,
//! a static member `ns::S::total`; testprogs/wp_cxx.cc): the same writes,
//! old and new values, as gdb's `watch`.

use crate::common;
use std::process::{Command, Stdio};

/// `(old, new)` of each write rtrace reports for `var`.
fn ours(var: &str) -> Vec<(String, String)> {
    let out = Command::new(common::rtrace())
        .args(["watch", var, "--"])
        .arg(common::testprog("wp_cxx"))
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{var}: {err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "6 12\n");
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

/// gdb's `Old value`/`New value` pairs for `watch VAR` from main on.
fn gdbs(var: &str) -> Vec<(String, String)> {
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
    let out = cmd
        .arg(common::testprog("wp_cxx"))
        .output()
        .expect("run gdb");
    let text = String::from_utf8_lossy(&out.stdout);
    let olds = text.lines().filter_map(|l| l.strip_prefix("Old value = "));
    let news = text.lines().filter_map(|l| l.strip_prefix("New value = "));
    olds.zip(news)
        .map(|(o, n)| (o.to_string(), n.to_string()))
        .collect()
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
        let got = ours(var);
        let got_news: Vec<&str> = got.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(got_news, news, "{var}");
        if common::have("gdb") {
            assert_eq!(got, gdbs(var), "{var}");
        }
    }
}
