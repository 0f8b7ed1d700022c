//! `-c`/`-C` with `-z`/`-Z`/`-e status=` against strace 7.2: 7.2 counts in
//! the summary only the calls that pass the status filter (6.1 counted
//! every traced call). Rows are compared by (calls, errors, name), times
//! only by format (`summary_rows`); the trace part of `-C` line by line
//! after pid normalisation. Skipped when strace 7.2 is not at hand.

use crate::common::{self, rstrace};
use crate::strace72_run::{oracle, run_tracer, tracer_names};
use crate::strace_options_summary::summary_rows;
use crate::strace_opts_util::{norm_lines, prog, test_dir};
use std::path::Path;
use std::process::Command;

/// One run's stderr split into the normalised trace lines before the
/// table and the table's rows.
type Split = (Vec<String>, Vec<(u64, u64, String)>);

fn run(name: &str, cmd: Command, args: &[&str], dir: &Path) -> (i32, Split) {
    let (code, pid, err) = run_tracer(cmd, args, dir);
    let at = err.find("% time").unwrap_or(err.len());
    let rows = if at < err.len() {
        summary_rows(name, &err[at..])
    } else {
        Vec::new()
    };
    (
        code,
        (
            norm_lines(&err[..at], pid)
                .iter()
                .map(|l| tracer_names(l))
                .collect(),
            rows,
        ),
    )
}

fn compare(name: &str, opts: &[&str], mode: &str) -> Option<Split> {
    let c = oracle()?;
    let p = prog();
    let mut args = opts.to_vec();
    args.extend(["-S", "name", &p, mode]);
    let dir = test_dir(name);
    let want = run(name, c, &args, &dir);
    let got = run(name, common::named(rstrace()), &args, &dir);
    assert_eq!(got, want, "{name} {args:?}: rstrace, then strace 7.2");
    Some(want.1)
}

#[test]
fn summary_of_failed_calls_matches_strace_7_2() {
    for (name, opts) in [
        ("c_Z", &["-c", "-Z"][..]),
        ("c_status_failed", &["-c", "-e", "status=failed"]),
        ("C_Z", &["-C", "-Z"]),
    ] {
        let Some((_, rows)) = compare(name, opts, "basic") else {
            return;
        };
        // Only failed calls: every row (and the total) is all errors.
        assert!(rows.len() > 2, "{name}: no failed calls counted");
        assert!(rows.iter().all(|r| r.0 == r.1), "{name}: {rows:?}");
    }
}

#[test]
fn summary_of_successful_calls_matches_strace_7_2() {
    for (name, opts) in [
        ("c_z", &["-c", "-z"][..]),
        // A trace filter keeps rseq out: 7.2 decodes its struct, rstrace
        // prints the address (a decoder difference, not a summary one).
        ("C_z", &["-C", "-z", "-e", "trace=!rseq"]),
        ("c_status_successful", &["-c", "-e", "status=successful"]),
    ] {
        let Some((_, rows)) = compare(name, opts, "basic") else {
            return;
        };
        assert!(rows.len() > 10, "{name}: too few calls counted");
        assert!(rows.iter().all(|r| r.1 == 0), "{name}: {rows:?}");
    }
}

/// Under -f the children's calls are filtered the same way; a status
/// nothing passes leaves no table at all.
#[test]
fn summary_status_follow_and_empty_match_strace_7_2() {
    if compare("c_f_Z", &["-f", "-c", "-Z"], "fork").is_none() {
        return;
    }
    compare("c_f_z", &["-f", "-c", "-z"], "fork");
    let Some((_, rows)) = compare("c_unfinished", &["-c", "-e", "status=unfinished"], "basic")
    else {
        return;
    };
    assert!(rows.is_empty(), "{rows:?}");
}
