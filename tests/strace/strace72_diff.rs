//! Differential tests against strace 7.2 (fetched by `.ci/strace-72`, run
//! through `common::strace72`): the syscalls added since strace 6.1, called by
//! `testprogs/dec_new_syscalls.c` and one `testprogs/dec_*.c` per later
//! family with valid and invalid arguments, must print as strace 7.2 prints
//! them, line by line after normalising pids and addresses. Skipped (with the
//! reason) when strace 7.2 is not at hand.

use crate::common;

use common::{normalize, rstrace, strace72, temp_path, testprog, testprog_variant};
use std::path::Path;
use std::process::{Command, Stdio};

/// A traced run: the tracer's own options, the calls traced, the program
/// and its arguments.
pub(crate) struct Run<'a> {
    pub(crate) opts: &'a [&'a str],
    pub(crate) calls: &'a str,
    pub(crate) prog: &'a Path,
    pub(crate) args: &'a [&'a str],
}

/// Traces `r.prog` with `r.opts` and `-e trace=<calls>` into a file and
/// returns its text.
fn trace(mut cmd: Command, r: &Run) -> String {
    let out = temp_path("strace72-diff");
    let st = cmd
        .args(r.opts)
        .args(["-e", &format!("trace={}", r.calls), "-o"])
        .arg(&out)
        .arg(r.prog)
        .args(r.args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run the tracer");
    assert!(st.success(), "{cmd:?} failed: {st}");
    let text = std::fs::read_to_string(&out).expect("read the trace");
    let _ = std::fs::remove_file(&out);
    text
}

/// The normalised lines of strace 7.2 and of rstrace for `r`, each passed
/// through `map`, or `None` (after printing why) when strace 7.2 is missing.
fn both(r: &Run, map: fn(&str) -> String) -> Option<(Vec<String>, Vec<String>)> {
    let oracle = match strace72() {
        Ok(cmd) => cmd,
        Err(why) => {
            eprintln!("skip: {why}");
            return None;
        }
    };
    let want = normalize(&trace(oracle, r));
    let got = normalize(&trace(Command::new(rstrace()), r));
    let lines = |s: &str| s.lines().map(map).collect::<Vec<_>>();
    Some((lines(&want), lines(&got)))
}

pub(crate) fn compare(calls: &str, prog: &Path) {
    compare_run(&Run {
        opts: &[],
        calls,
        prog,
        args: &[],
    });
}

/// [`compare`], then again under each of `-v`, `-X raw`, `-X verbose` and
/// `-e verbose=none` (structures as addresses).
pub(crate) fn compare_variants(calls: &str, prog: &Path) {
    compare(calls, prog);
    let variants: [&[&str]; 4] = [
        &["-v"],
        &["-X", "raw"],
        &["-X", "verbose"],
        &["-e", "verbose=none"],
    ];
    for opts in variants {
        compare_run(&Run {
            opts,
            calls,
            prog,
            args: &[],
        });
    }
}

pub(crate) fn compare_run(r: &Run) {
    compare_run_mapped(r, str::to_string);
}

/// [`compare_run`] with each normalised line passed through `map` (for
/// values that differ from run to run which `normalize` leaves alone).
pub(crate) fn compare_run_mapped(r: &Run, map: fn(&str) -> String) {
    let Some((want, got)) = both(r, map) else {
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
    compare_variants(
        "setxattrat,getxattrat,listxattrat,removexattrat",
        &testprog("dec_xattrat"),
    );
}

#[test]
fn statmount_listmount_match_strace_7_2() {
    compare_variants("statmount,listmount", &testprog("dec_statmount"));
}

/// Crafted `struct statmount` answers (the call replaced by
/// `-e inject=statmount:retval=0`), plain and under `-X verbose`, `-s 3`.
#[test]
fn statmount_answers_match_strace_7_2() {
    let prog = testprog("dec_statmount");
    for opts in [&[][..], &["-X", "verbose"], &["-s", "3"]] {
        let opts: Vec<&str> = opts
            .iter()
            .copied()
            .chain(["-e", "inject=statmount:retval=0"])
            .collect();
        compare_run(&Run {
            opts: &opts,
            calls: "statmount",
            prog: &prog,
            args: &["inject"],
        });
    }
}

#[test]
fn lsm_calls_match_strace_7_2() {
    compare_variants(
        "lsm_get_self_attr,lsm_set_self_attr,lsm_list_modules",
        &testprog("dec_lsm"),
    );
}

/// Crafted `struct lsm_ctx` sequences (the call replaced by
/// `-e inject=lsm_get_self_attr:retval=2`), plain and under `-X verbose`,
/// `-s 2`.
#[test]
fn lsm_ctx_sequences_match_strace_7_2() {
    let prog = testprog("dec_lsm");
    for opts in [&[][..], &["-X", "verbose"], &["-s", "2"]] {
        let opts: Vec<&str> = opts
            .iter()
            .copied()
            .chain(["-e", "inject=lsm_get_self_attr:retval=2"])
            .collect();
        compare_run(&Run {
            opts: &opts,
            calls: "lsm_get_self_attr",
            prog: &prog,
            args: &["inject"],
        });
    }
}

#[test]
fn file_attr_calls_match_strace_7_2() {
    compare_variants("file_getattr,file_setattr", &testprog("dec_file_attr"));
}

#[test]
fn open_tree_attr_matches_strace_7_2() {
    compare_variants("open_tree_attr", &testprog("dec_open_tree_attr"));
}

/// listns: where the kernel lacks it (ENOSYS), the requests still print.
#[test]
fn listns_matches_strace_7_2() {
    compare_variants("listns", &testprog("dec_listns"));
}

/// The same programs built with `gcc -m32`: the i386 personality (whose
/// structures these calls share with x86_64) prints as strace 7.2 does.
#[test]
fn i386_personality_matches_strace_7_2() {
    if !crate::common::m32() {
        return;
    }
    let cases = [
        (
            "dec_xattrat",
            "setxattrat,getxattrat,listxattrat,removexattrat",
        ),
        ("dec_statmount", "statmount,listmount"),
        (
            "dec_lsm",
            "lsm_get_self_attr,lsm_set_self_attr,lsm_list_modules",
        ),
        ("dec_file_attr", "file_getattr,file_setattr"),
        ("dec_open_tree_attr", "open_tree_attr"),
        ("dec_listns", "listns"),
    ];
    for (name, calls) in cases {
        compare(calls, &testprog_variant(name, "m32", &["-m32"]));
    }
}
