//! Running a tracer the way the strace 7.2 differential tests do:
//! strace 7.2 (the oracle) or rstrace, with the same arguments, in the
//! same directory and the same bare environment, and the tracer's name
//! in its messages made one word so the two compare.

use crate::common::strace72;
use regex_lite::Regex;
use std::path::Path;
use std::process::{Command, Stdio};

/// strace 7.2, or `None` after printing why the test is skipped.
pub(crate) fn oracle() -> Option<Command> {
    match strace72() {
        Ok(c) => Some(c),
        Err(why) => {
            eprintln!("skip: {why}");
            None
        }
    }
}

/// Runs `cmd args` in `dir` with only `PATH` in its environment, stdin
/// and stdout on /dev/null: its exit code (-1 for a signal), pid and
/// stderr.
pub(crate) fn run_tracer(mut cmd: Command, args: &[&str], dir: &Path) -> (i32, u32, String) {
    let child = cmd
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the tracer");
    let pid = child.id();
    let o = child.wait_with_output().expect("wait for the tracer");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.status.code().unwrap_or(-1), pid, err)
}

/// The tracer's own name in its messages (strace 7.2 prints its full
/// path) made one word, so the two tracers' messages compare.
pub(crate) fn tracer_names(line: &str) -> String {
    let l = Regex::new(r"^\S*(?:strace|TRACER): ")
        .unwrap()
        .replace(line, "TRACER: ");
    Regex::new(r"Try '\S*strace -h'")
        .unwrap()
        .replace(&l, "Try 'TRACER -h'")
        .into_owned()
}
