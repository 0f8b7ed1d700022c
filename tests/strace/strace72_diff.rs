//! Differential tests against strace 7.2 (fetched by `.ci/strace-72`, run
//! through `common::strace72`): the syscalls added since strace 6.1, called by
//! `testprogs/dec_new_syscalls.c` and one `testprogs/dec_*.c` per later
//! family with valid and invalid arguments, must print as strace 7.2 prints
//! them, line by line after normalising pids and addresses. Skipped (with the
//! reason) when strace 7.2 is not at hand.

use crate::common;

use common::{normalize, rstrace, strace72, temp_path, testprog};
use std::path::Path;
use std::process::{Command, Stdio};

/// Traces `prog` with `-e trace=<calls>` into a file and returns its text.
fn trace(mut cmd: Command, calls: &str, prog: &Path) -> String {
    let out = temp_path("strace72-diff");
    let st = cmd
        .args(["-e", &format!("trace={calls}"), "-o"])
        .arg(&out)
        .arg(prog)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run the tracer");
    assert!(st.success(), "{cmd:?} failed: {st}");
    let text = std::fs::read_to_string(&out).expect("read the trace");
    let _ = std::fs::remove_file(&out);
    text
}

/// The normalised lines of strace 7.2 and of rstrace for `prog`, or `None`
/// (after printing why) when strace 7.2 is missing.
fn both(calls: &str, prog: &Path) -> Option<(Vec<String>, Vec<String>)> {
    let oracle = match strace72() {
        Ok(cmd) => cmd,
        Err(why) => {
            eprintln!("skip: {why}");
            return None;
        }
    };
    let want = normalize(&trace(oracle, calls, prog));
    let got = normalize(&trace(Command::new(rstrace()), calls, prog));
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    Some((lines(&want), lines(&got)))
}

fn compare(calls: &str, prog: &Path) {
    let Some((want, got)) = both(calls, prog) else {
        return;
    };
    assert!(want.len() > 1, "strace 7.2 traced nothing: {want:?}");
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_eq!(g, w, "line {} differs from strace 7.2", i + 1);
    }
    assert_eq!(
        got.len(),
        want.len(),
        "rstrace: {got:#?}\nstrace 7.2: {want:#?}"
    );
}

#[test]
fn syscalls_added_since_strace_6_1_match_strace_7_2() {
    compare(
        "fchmodat2,cachestat,futex_wake,futex_wait,futex_requeue,mseal,map_shadow_stack",
        &testprog("dec_new_syscalls"),
    );
}

#[test]
fn xattrat_calls_match_strace_7_2() {
    compare(
        "setxattrat,getxattrat,listxattrat,removexattrat",
        &testprog("dec_xattrat"),
    );
}
