//! Shared by the rltrace integration tests: the binary, unique temporary
//! files and one run with `-o FILE`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `rltrace` binary Cargo built for this test.
pub fn rltrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rltrace"))
}

/// A temporary path unique to this process and call.
pub fn temp(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "rltrace-test-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
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
    let file = temp("out.txt");
    let out = Command::new(rltrace())
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
