//! Shared by the decoder tests of the network, polling and event-descriptor
//! families (`decode_net.rs`, `decode_poll.rs`, `decode_eventfds.rs`).
//!
//! Each test program (`testprogs/dec_*.c`) makes system calls and prints on
//! stdout, for each one, the exact line strace prints for it, built from
//! the real descriptors, addresses and results. [`check`] runs a program
//! under a tracer with `-a1` (so `= ` follows `) ` directly) and asserts that
//! every line the program printed occurs, whole, in the tracer's output.
//! Lines starting with `#` are notes from the program (a facility it could
//! not use), printed and not checked.

#![allow(dead_code)]

use crate::common::{have, rstrace, target_dir, testprog};
use std::path::PathBuf;
use std::process::Command;

/// Which tracer runs the program.
#[derive(Clone, Copy, Debug)]
pub enum Tracer {
    /// This crate's rstrace.
    Rstrace,
    /// The installed strace (the oracle).
    Strace,
}

fn out_file(prog: &str, tracer: Tracer, y: bool) -> PathBuf {
    let dir = target_dir().join("decnet-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!(
        "{prog}-{tracer:?}-{}-{}.trace",
        if y { "y" } else { "n" },
        std::process::id()
    ))
}

/// Runs `prog` (a testprog name) under `tracer` with `-e trace=SET` (and
/// `-y` with `y`, also passed to the program), and checks every expected
/// line. Returns false (after printing why) when the tracer is missing.
pub fn check(prog: &str, tracer: Tracer, set: &str, y: bool) -> bool {
    let exe = testprog(prog);
    let tool = match tracer {
        Tracer::Rstrace => rstrace(),
        Tracer::Strace => {
            if !have("strace") {
                eprintln!("skip: strace is not installed");
                return false;
            }
            PathBuf::from("strace")
        }
    };
    let out = out_file(prog, tracer, y);
    let mut cmd = Command::new(&tool);
    cmd.arg("-a1")
        .arg("-o")
        .arg(&out)
        .arg("-e")
        .arg(format!("trace={set}"));
    if y {
        cmd.arg("-y");
    }
    cmd.arg(&exe);
    if y {
        cmd.arg("-y");
    }
    let res = cmd.output().expect("run tracer");
    let trace = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    assert!(
        res.status.success(),
        "{tracer:?} {prog} failed: {}\n{}\n{trace}",
        res.status,
        String::from_utf8_lossy(&res.stderr)
    );
    let expected = String::from_utf8(res.stdout).unwrap();
    let lines: Vec<&str> = trace.lines().collect();
    let mut missing = Vec::new();
    let mut checked = 0;
    for want in expected.lines() {
        if let Some(note) = want.strip_prefix('#') {
            eprintln!("{prog}: note:{note}");
            continue;
        }
        checked += 1;
        if !lines.contains(&want) {
            let name = want.split('(').next().unwrap_or("");
            let near: Vec<&&str> = lines
                .iter()
                .filter(|l| l.split('(').next() == Some(name))
                .collect();
            missing.push(format!(
                "expected: {want}\n  traced with that name: {near:#?}"
            ));
        }
    }
    assert!(checked > 0, "{prog} printed no expected lines");
    assert!(
        missing.is_empty(),
        "{tracer:?} -e trace={set}{} {prog}: {} of {checked} lines missing:\n{}",
        if y { " -y" } else { "" },
        missing.len(),
        missing.join("\n")
    );
    eprintln!(
        "{tracer:?} {prog}{}: {checked} lines matched",
        if y { " -y" } else { "" }
    );
    true
}
