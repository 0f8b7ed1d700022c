//! `rtrace break --bt` on `gcc -O2 -g` code against gdb's `bt` at the same
//! stop: tail-call frames. In `testprogs/bt_tailcall.c`, f() ends in a jump
//! to g(), so at `break g` no stack frame of f is left; gdb synthesizes
//! one from the DWARF call sites (h's call site names f, f's tail-call
//! site names g). rtrace must list the same frames, function and line, in
//! the same order, with gdb's tail-call frames included.
#![cfg(target_arch = "x86_64")]

use crate::bt_run::{frame_name, line_of, rtrace_break};
use crate::common;
use crate::unwind::{parse_gdb_frame, GDB_FRAME_TYPES};
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;

/// (function, line) of each frame of gdb's `bt` at the first stop of
/// `break FUNC`, and the indices gdb marks as tail-call frames.
fn gdb_frames(func: &str, prog: &Path) -> (Vec<(String, u32)>, Vec<usize>) {
    let out = common::gdb_batch()
        .args(["-ex", &format!("break {func}"), "-ex", "run", "-ex", "bt"])
        .args(["-ex", GDB_FRAME_TYPES, "--args"])
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run gdb");
    let text = String::from_utf8_lossy(&out.stdout);
    let tails = text
        .lines()
        .filter_map(|l| l.strip_prefix("TAILCALL "))
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let frames: Vec<(String, u32)> = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| {
            let f = parse_gdb_frame(l)?;
            let line = l.rsplit_once(':')?.1.trim().parse().ok()?;
            Some((f.function, line))
        })
        .collect();
    assert!(!frames.is_empty(), "no backtrace from gdb:\n{text}");
    (frames, tails)
}

/// (function, line) of each frame of rtrace's first `--bt` hit at `func`
/// (frames render as `func+0xoff (file:line) [module]`).
fn our_frames(func: &str, prog: &Path) -> Vec<(String, u32)> {
    let text = rtrace_break(&["--json", "--bt", func], prog);
    let rec: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("backtrace").is_some())
        .unwrap_or_else(|| panic!("no backtrace:\n{text}"));
    rec["backtrace"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| {
            let s = f.as_str().expect("frame text");
            (frame_name(s).to_string(), line_of(s))
        })
        .collect()
}

#[test]
fn tail_call_frames_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb not installed");
        return;
    }
    let prog = common::testprog_variant("bt_tailcall", "O2", &["-O2"]);
    let (gdb, tails) = gdb_frames("g", &prog);
    // The program is built so that gdb shows f as a tail-call frame.
    let names: Vec<&str> = gdb.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["g", "f", "h", "main"], "{gdb:?}");
    assert_eq!(tails, vec![1usize], "{gdb:?}");
    assert_eq!(our_frames("g", &prog), gdb);
}
