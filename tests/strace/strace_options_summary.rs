//! rstrace's `-c`/`-C`/`-w`/`-S`/`-U` summaries against the installed
//! strace: calls, errors and names compared, times by format (helpers in
//! strace_opts_util; skipped when strace is not installed).

use crate::strace_opts_util;

use regex_lite::Regex;
use std::path::Path;
use strace_opts_util::*;

// Summaries: calls, errors and names are compared; times only by format.

/// One parsed `-c` table: rows of (calls, errors, name), then the total row.
pub(crate) fn summary_rows(name: &str, table: &str) -> Vec<(u64, u64, String)> {
    let header = "% time     seconds  usecs/call     calls    errors syscall";
    let dash = "------ ----------- ----------- --------- --------- ----------------";
    let row = Regex::new(r"^ *(\d+\.\d\d) +(\d+\.\d{6}) +(\d+) +(\d+) +(\d*) (\S+)$").unwrap();
    let lines: Vec<&str> = table.lines().collect();
    let start = lines
        .iter()
        .position(|l| *l == header)
        .unwrap_or_else(|| panic!("{name}: no summary header in\n{table}"));
    assert_eq!(lines.get(start + 1), Some(&dash), "{name}: summary rule");
    let mut rows = Vec::new();
    let mut rules = 1;
    for l in &lines[start + 2..] {
        if *l == dash {
            rules += 1;
            continue;
        }
        let c = row
            .captures(l)
            .unwrap_or_else(|| panic!("{name}: summary row format: {l:?}"));
        // Fixed widths: "%6.2f %11.6f %11lu %9u %9s %s".
        assert_eq!(
            l.len(),
            6 + 1 + 11 + 1 + 11 + 1 + 9 + 1 + 9 + 1 + c[6].len(),
            "{name}: widths of {l:?}"
        );
        rows.push((
            c[4].parse().unwrap(),
            c[5].parse().unwrap_or(0),
            c[6].to_string(),
        ));
    }
    assert_eq!(rules, 2, "{name}: two rules");
    assert_eq!(
        rows.last().map(|r| r.2.as_str()),
        Some("total"),
        "{name}: total row last"
    );
    rows
}

fn compare_summary(name: &str, opts: &[&str], ordered: bool) {
    let args = basic(opts);
    let (a, b, _) = pair(name, &refs(&args));
    let mut ra = summary_rows(name, &a.stderr);
    let mut rb = summary_rows(name, &b.stderr);
    if !ordered {
        ra.sort_by(|x, y| x.2.cmp(&y.2));
        rb.sort_by(|x, y| x.2.cmp(&y.2));
    }
    assert_eq!(ra, rb, "{name}: summary rows (calls, errors, name) differ");
}

#[test]
fn summary() {
    if strace_missing() {
        return;
    }
    compare_summary("c", &["-c"], false);
    compare_summary("c_S_calls", &["-c", "-S", "calls"], true);
    compare_summary("c_S_name", &["-c", "-S", "name"], true);
    compare_summary("c_S_errors", &["-c", "-S", "errors"], true);
    compare_summary("c_S_nothing", &["-c", "-S", "nothing"], true);
    compare_summary("c_S_time", &["-c", "-S", "time"], false);
    compare_summary("c_w", &["-c", "-w", "-S", "calls"], true);
    compare_summary(
        "c_filtered",
        &["-c", "-e", "trace=%file", "-S", "name"],
        true,
    );
    compare_summary(
        "summary_only_long",
        &["--summary-only", "--summary-sort-by=calls"],
        true,
    );
}

#[test]
fn summary_with_trace() {
    if strace_missing() {
        return;
    }
    let args = basic(&["-C", "-S", "name"]);
    let (a, b, _) = pair("C", &refs(&args));
    let split = |o: &Out| -> (Vec<String>, Vec<(u64, u64, String)>) {
        let at = o.stderr.find("% time").expect("-C: no summary");
        (
            norm_lines(&o.stderr[..at], o.pid),
            summary_rows("C", &o.stderr[at..]),
        )
    };
    let (ta, sa) = split(&a);
    let (tb, sb) = split(&b);
    assert_lines("C", "trace part", &ta, &tb);
    assert_eq!(sa, sb, "C: summary rows differ");
}

#[test]
fn summary_follow() {
    if strace_missing() {
        return;
    }
    let p = prog();
    let (a, b, _) = pair("c_f", &["-f", "-c", "-S", "name", &p, "fork"]);
    assert_eq!(
        summary_rows("c_f", &a.stderr),
        summary_rows("c_f", &b.stderr)
    );
}

/// The cells of a summary table with chosen columns, split by the widths
/// of its rule line: the header, then each row; time cells become `T` after
/// their format is checked (`N.NN` percent, `N.NNNNNN` seconds, integer
/// microseconds).
fn column_cells(name: &str, table: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = table.lines().collect();
    let rule = lines
        .get(1)
        .filter(|l| l.starts_with('-'))
        .unwrap_or_else(|| panic!("{name}: no rule under the header in\n{table}"));
    let mut spans = Vec::new();
    let mut at = 0;
    for dashes in rule.split(' ') {
        spans.push((at, at + dashes.len()));
        at += dashes.len() + 1;
    }
    let header: Vec<String> = lines[0].split_whitespace().map(String::from).collect();
    let time = Regex::new(r"^ *(\d+\.\d\d|\d+\.\d{6})$").unwrap();
    let mut out = vec![header.clone()];
    for l in lines[2..].iter().filter(|l| !l.starts_with('-')) {
        let mut row = Vec::new();
        for (i, &(a, b)) in spans.iter().enumerate() {
            let last = i + 1 == spans.len();
            let cell = if last { &l[a.min(l.len())..] } else { &l[a..b] };
            let is_time = matches!(
                lines[0][a..if last { lines[0].len() } else { b }].trim(),
                "% time" | "seconds" | "shortest" | "longest"
            );
            let avg = lines[0][a..b.min(lines[0].len())].trim() == "usecs/call";
            if is_time {
                assert!(time.is_match(cell), "{name}: time cell {cell:?} in {l:?}");
                row.push("T".to_string());
            } else if avg {
                assert!(
                    cell.trim().parse::<u64>().is_ok(),
                    "{name}: {cell:?} in {l:?}"
                );
                row.push("T".to_string());
            } else {
                row.push(cell.to_string());
            }
        }
        out.push(row);
    }
    out
}

/// `-U`: the columns chosen, in their order, with the widths strace gives
/// them; `-S` by one of them.
#[test]
fn summary_columns() {
    if strace_missing() {
        return;
    }
    for (name, cols) in [
        (
            "U_all",
            "name,calls,errors,longest,shortest,avg-time,total_time,time",
        ),
        ("U_some", "calls,errors"),
        ("U_default", "time,seconds,usecs/call,calls,errors,name"),
        (
            "U_long",
            "--summary-columns=time-percent,time-max,syscall_name",
        ),
    ] {
        let mut opts = vec!["-c", "-S", "name"];
        if cols.starts_with("--") {
            opts.push(cols);
        } else {
            opts.extend(["-U", cols]);
        }
        let args = basic(&opts);
        let (a, b, _) = pair(name, &refs(&args));
        if name == "U_default" {
            // Not column names: both refuse them alike.
            assert_eq!(a.code, 1);
            assert_eq!(
                a.stderr.replace("strace", "TRACER"),
                b.stderr.replace("rstrace", "TRACER")
            );
            continue;
        }
        let ca = column_cells(name, &a.stderr);
        let cb = column_cells(name, &b.stderr);
        assert_eq!(
            ca, cb,
            "{name}: tables differ\nstrace:\n{}\nrstrace:\n{}",
            a.stderr, b.stderr
        );
    }
}

/// strace's messages for `-U`/`-S` values and for checks strace makes after
/// warnings it has already printed (each line compared).
#[test]
fn summary_columns_and_ordering_errors() {
    if strace_missing() {
        return;
    }
    let cases: &[&[&str]] = &[
        &["-U", "non", "true"],
        &["-U", "time,,name", "true"],
        &["-U", "time,time_percent,time_total", "true"],
        &["-U", "name", "true"],
        &["-S", "syscall_names", "true"],
        &["-c", "-U", "time-percent,max_time", "-S", "time-avg"],
        &["--seccomp-bpf", "-w", "true"],
        &["-F", "-w", "true"],
        &["-c", "-i", "-u", ":no-such-user:", "true"],
        &["-q", "--quiet", "-P", "///", "true"],
        &["--tips=id:", "true"],
        &["--tips=format:full,3", "--tips"],
    ];
    for args in cases {
        let dir = test_dir("column_errors");
        let a = run_in(Path::new("strace"), args, &dir, &[]);
        let b = run_in(&rstrace(), args, &dir, &[]);
        assert_eq!(
            (a.code, b.code),
            (1, 1),
            "{args:?}: {}\n{}",
            a.stderr,
            b.stderr
        );
        let lines = |s: &str, prog: &str| -> Vec<String> {
            s.lines()
                .map(|l| l.replacen(&format!("{prog}: "), "TRACER: ", 1))
                .map(|l| l.replace(&format!("Try '{prog} -h'"), "Try 'TRACER -h'"))
                .collect()
        };
        assert_eq!(
            lines(&a.stderr, "strace"),
            lines(&b.stderr, "rstrace"),
            "{args:?}: messages differ"
        );
    }
}

// ---------------------------------------------------------------------------
// Output files and several tasks.
