//! ptrace(2) and quotactl(2) against strace 7.2.
//!
//! `testprogs/dec_ptrace72.c` traces a child of its own through a signal
//! stop, a syscall entry and exit and a seccomp stop and, at each, reads
//! and writes back `struct ptrace_syscall_info` (PTRACE_GET/SET_SYSCALL_INFO,
//! whole, cut at every field boundary, with `reserved`/`flags` set and a bad
//! op), then issues the signal-mask, rseq, syscall-user-dispatch and seccomp
//! requests; only its own ptrace calls are traced (no `-f`), with signals
//! left out (when its SIGCHLDs arrive is the kernel's business).
//!
//! `testprogs/dec_quotactl72.c` calls quotactl and quotactl_fd with every
//! command family, old and unknown commands and types; they fail here (no
//! quota file system), and run again with the calls made to succeed by
//! injection so the getters' structures print.
//!
//! Every line must be strace 7.2's, plain and under `-v`, `-X raw`,
//! `-X verbose` and `-e verbose=none`. Skipped (with the reason) when strace
//! 7.2 is not at hand.

use crate::common::testprog;
use crate::strace72_diff::{compare_run_mapped, Run};
use regex_lite::Regex;
use std::sync::OnceLock;

const STYLES: [&[&str]; 7] = [
    &[],
    &["-v"],
    &["-X", "raw"],
    &["-X", "verbose"],
    &["-e", "verbose=none"],
    &["-v", "-X", "raw"],
    &["-v", "-X", "verbose"],
];

/// `line` with the traced child's pid (ptrace's second argument) and the
/// parent's pid (getppid's `rval` at the child's syscall exit) made `PID`:
/// they differ from run to run.
fn pids(line: &str) -> String {
    static RE: OnceLock<(Regex, Regex)> = OnceLock::new();
    let (arg, rval) = RE.get_or_init(|| {
        (
            Regex::new(r"^(ptrace\([^,]+, )\d+").unwrap(),
            Regex::new(r"\brval=[1-9]\d*").unwrap(),
        )
    });
    let l = arg.replace(line, "${1}PID");
    rval.replace_all(&l, "rval=PID").into_owned()
}

/// Runs `prog` tracing `calls` under each of [`STYLES`] with `extra`.
fn compare_styles(calls: &str, prog: &std::path::Path, extra: &[&str]) {
    for style in STYLES {
        let opts: Vec<&str> = style.iter().chain(extra).copied().collect();
        let r = Run {
            opts: &opts,
            calls,
            prog,
            args: &[],
        };
        compare_run_mapped(&r, pids);
    }
}

#[test]
fn ptrace_requests_match_strace_7_2() {
    compare_styles("ptrace", &testprog("dec_ptrace72"), &["-e", "signal=none"]);
}

#[test]
fn quotactl_commands_match_strace_7_2() {
    let prog = testprog("dec_quotactl72");
    compare_styles("quotactl,quotactl_fd", &prog, &[]);
    compare_styles(
        "quotactl,quotactl_fd",
        &prog,
        &["-e", "inject=quotactl,quotactl_fd:retval=0"],
    );
}
