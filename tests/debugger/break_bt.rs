//! `rtrace break --bt` and `rtrace watch --bt` against gdb's `bt` at the
//! same stop: the function names of the frames, in order, must be gdb's.
//!
//! Programs: `testprogs/bt_signal.c` (a handler reached from SIGSEGV and
//! from raise(): gdb's `<signal handler called>` frame), `testprogs/bt_deep.c`
//! (a 1,000-deep recursion: all 1,003 frames), `testprogs/bt_cxx_inline.cc`
//! (C++ methods of a template class inlined at -O2). Variants: the default stops
//! at `main` (gdb's `backtrace past-main off`), `--past-main` goes on as
//! gdb's `set backtrace past-main on`, `--bt=N` is gdb's `bt N`.
//!
//! gdb's tail-call frames (synthesized from DWARF call sites, e.g. glibc's
//! `__pthread_kill_internal` on the raise() path, with glibc's debug file)
//! are compared like any other: rtrace synthesizes them too.

use crate::common;
use crate::unwind::parse_gdb_frame;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// gdb's frame names at the first stop of `stop` (`break FUNC` or `watch
/// VAR`) in `prog ARGS`, with `settings` run before.
fn gdb_names(
    stop: &[&str],
    settings: &[&str],
    bt: &str,
    prog: &Path,
    args: &[&str],
) -> Vec<String> {
    let mut cmd = common::gdb_batch();
    for s in settings {
        cmd.args(["-ex", s]);
    }
    cmd.args(["-ex", "handle SIGSEGV SIGUSR1 nostop noprint pass"]);
    for s in stop {
        cmd.args(["-ex", s]);
    }
    cmd.args(["-ex", "run", "-ex", bt]);
    let out = cmd
        .arg("--args")
        .arg(prog)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run gdb");
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<String> = text
        .lines()
        .filter_map(parse_gdb_frame)
        .map(|f| f.function)
        .collect();
    assert!(!names.is_empty(), "no backtrace from gdb:\n{text}");
    names
}

/// The function name of one rendered frame (`func+0xoff (file:line)
/// [module]`, `func [inlined] ...`, `?? [module]`, `<signal handler called>`).
fn frame_name(line: &str) -> String {
    if line.starts_with('<') {
        return line.to_string();
    }
    let end = line.find(['+', ' ']).unwrap_or(line.len());
    let name = &line[..end];
    // A C++ frame's parameter list (`ns::f(int)`); gdb's frame name has none.
    let Some(body) = name.strip_suffix(')') else {
        return name.to_string();
    };
    let mut depth = 1;
    for (i, c) in body.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 1 => return name[..i].to_string(),
            '(' => depth -= 1,
            _ => {}
        }
    }
    name.to_string()
}

/// The frame names of the first JSON record of `kind` in rtrace's output,
/// under `key`.
fn our_names(stderr: &[u8], key: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(stderr);
    let rec: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get(key).is_some())
        .unwrap_or_else(|| panic!("no record with {key}:\n{text}"));
    rec[key]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| frame_name(f.as_str().expect("frame text")))
        .collect()
}

/// `rtrace break --json OPTS SPEC -- PROG ARGS`: the first hit's frame names.
fn break_names(opts: &[&str], spec: &str, prog: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new(common::rtrace())
        .args(["break", "--json"])
        .args(opts)
        .arg(spec)
        .arg("--")
        .arg(prog)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    assert!(out.status.success(), "{out:?}");
    our_names(&out.stderr, "backtrace")
}

fn need_gdb() -> bool {
    if common::have("gdb") {
        return true;
    }
    eprintln!("gdb not installed: skipped");
    false
}

fn signal_handler_frames(how: &str) {
    if !need_gdb() {
        return;
    }
    let prog = common::testprog("bt_signal");
    let ours = break_names(&["--bt"], "in_handler", &prog, &[how]);
    let gdb = gdb_names(&["break in_handler"], &[], "bt", &prog, &[how]);
    assert_eq!(ours, gdb, "{how}");
    assert!(
        ours.iter().any(|n| n == "<signal handler called>"),
        "{ours:?}"
    );
    assert_eq!(ours.last().map(String::as_str), Some("main"));
    // Past main, as gdb with `set backtrace past-main on`.
    let ours = break_names(&["--bt", "--past-main"], "in_handler", &prog, &[how]);
    let gdb = gdb_names(
        &["break in_handler"],
        &["set backtrace past-main on"],
        "bt",
        &prog,
        &[how],
    );
    assert_eq!(ours, gdb, "{how} past main");
    assert!(ours.len() > ours.iter().position(|n| n == "main").unwrap() + 1);
}

#[test]
fn signal_handler_from_sigsegv_as_gdb() {
    signal_handler_frames("segv");
}

#[test]
fn signal_handler_from_raise_as_gdb() {
    signal_handler_frames("raise");
}

/// The watchpoint's backtrace: the write in the handler.
#[test]
fn watch_in_signal_handler_as_gdb() {
    if !need_gdb() {
        return;
    }
    let prog = common::testprog("bt_signal");
    let out = Command::new(common::rtrace())
        .args([
            "watch",
            "--json",
            "--bt",
            "seen",
            "--",
            prog.to_str().unwrap(),
            "segv",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    assert!(out.status.success(), "{out:?}");
    let ours = our_names(&out.stderr, "bt");
    let gdb = gdb_names(&["watch seen"], &[], "bt", &prog, &["segv"]);
    assert_eq!(ours, gdb);
    assert_eq!(ours[2], "<signal handler called>", "{ours:?}");
}

#[test]
fn thousand_deep_recursion_has_every_frame() {
    let prog = common::testprog("bt_deep");
    let ours = break_names(&["--bt"], "bottom", &prog, &[]);
    assert_eq!(ours.len(), 1003, "bottom, 1,001 x descend, main");
    assert_eq!(ours.iter().filter(|n| *n == "descend").count(), 1001);
    // --bt=N: the innermost N, as gdb's `bt N`.
    let ten = break_names(&["--bt=10"], "bottom", &prog, &[]);
    assert_eq!(ten[..], ours[..10]);
    if !need_gdb() {
        return;
    }
    let gdb = gdb_names(&["break bottom"], &[], "bt", &prog, &[]);
    assert_eq!(gdb.len(), 1003);
    assert_eq!(ours, gdb);
    let gdb10 = gdb_names(&["break bottom"], &[], "bt 10", &prog, &[]);
    assert_eq!(ten, gdb10);
}

/// gdb's frames through inlined C++ methods of a template class at -O2
/// (`testprogs/bt_cxx_inline.cc`): `leaf`, then `Acc::add` and
/// `Runner<Acc>::run` inlined into `main`.
#[test]
fn cxx_inlined_methods_as_gdb() {
    if !common::have("g++") {
        eprintln!("skip: g++ is not installed");
        return;
    }
    let prog = common::testprog_variant("bt_cxx_inline", "O2", &["-O2"]);
    let ours = break_names(&["--bt"], "calc::leaf", &prog, &[]);
    assert_eq!(
        ours,
        [
            "calc::leaf",
            "calc::Acc::add",
            "calc::Runner<calc::Acc>::run",
            "main"
        ]
    );
    if !need_gdb() {
        return;
    }
    let gdb = gdb_names(&["break calc::leaf"], &[], "bt", &prog, &[]);
    assert_eq!(ours, gdb);
}

#[test]
fn frame_names_from_rendered_frames() {
    assert_eq!(frame_name("main+0x1d (/x/a.c:6) [/x/a]"), "main");
    assert_eq!(frame_name("relay [inlined] (/x/a.c:6) [/x/a]"), "relay");
    assert_eq!(frame_name("?? [/lib/libc.so.6]"), "??");
    assert_eq!(
        frame_name("ns::R<ns::A>::run(int) [inlined] (a.cc:3) [/x/a]"),
        "ns::R<ns::A>::run"
    );
    assert_eq!(
        frame_name("<signal handler called>"),
        "<signal handler called>"
    );
}
