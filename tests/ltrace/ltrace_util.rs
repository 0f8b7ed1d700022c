//! Shared by the rltrace integration tests: the binary, unique temporary
//! files, one run with `-o FILE` (of rltrace or ltrace) and the rows of a
//! `-c` table.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

pub use crate::common::rltrace;

/// A temporary path unique to this process and call.
pub fn temp(tag: &str) -> PathBuf {
    crate::common::temp_path(&format!("rltrace-{tag}"))
}

/// What one run produced.
pub struct Run {
    /// The `-o` file.
    pub trace: String,
    /// The program's standard output.
    pub stdout: String,
    /// rltrace's (and the program's) standard error.
    pub stderr: String,
    /// Exit code.
    pub code: Option<i32>,
}

/// Runs `rltrace OPTS -o FILE PROG ARGS`.
pub fn run(opts: &[&str], prog: &Path, args: &[&str]) -> Run {
    run_cmd(Command::new(rltrace()), opts, prog, args)
}

/// Runs `CMD OPTS -o FILE PROG ARGS`, `cmd` being rltrace or a wrapper
/// already given rltrace as its argument (`setarch -R rltrace`).
pub fn run_cmd(mut cmd: Command, opts: &[&str], prog: &Path, args: &[&str]) -> Run {
    let file = temp("out.txt");
    let out = cmd
        .args(opts)
        .arg("-o")
        .arg(&file)
        .arg(prog)
        .args(args)
        .output()
        .expect("run rltrace");
    let trace = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    Run {
        trace,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

/// The rows of a `-c` table as (name, calls), sorted by name: what
/// rltrace and ltrace must agree on (times differ by nature).
pub fn count_rows(table: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = table
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 5 && f[0].contains('.')).then(|| (f[4].to_string(), f[3].to_string()))
        })
        .collect();
    v.sort();
    v
}

/// Starts `rltrace OPTS PROG ARGS` (SIGINT at its default, so the test
/// can interrupt it) and returns once the program printed its `ready`
/// line: the program and the tracer's state are in place.
pub fn start_until_ready(
    opts: &[&str],
    prog: &Path,
    args: &[&str],
) -> (Child, BufReader<ChildStdout>) {
    let mut child = crate::common::default_sigint(&mut Command::new(rltrace()))
        .args(opts)
        .arg(prog)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rltrace");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    while line.trim() != "ready" {
        line.clear();
        assert!(out.read_line(&mut line).expect("read") > 0, "no ready line");
    }
    (child, out)
}
