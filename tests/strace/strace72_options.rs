//! rstrace's options new in strace 7.2 (`--syscall-limit`, `--trace-fds`,
//! `--argv0`, `--stack-trace-frame-limit`, `--always-show-pid`, the eventfd
//! and signalfd classes of `--decode-fds`), their
//! argument errors, and `-V`'s layout, against strace 7.2 (fetched by
//! `.ci/strace-72`, run through `common::strace72`): the same program
//! with the same options must give the same trace lines and the same
//! messages once pids and addresses are normalised. Skipped (with the
//! reason) when strace 7.2 is not at hand.

use crate::common::{self, rstrace, testprog};
use crate::strace72_run::{oracle, run_tracer, tracer_names};
use crate::strace_opts_util::{norm_lines, prog, test_dir};
use regex_lite::Regex;
use std::path::Path;
use std::process::Command;

/// What one tracer run left: its exit code, the trace file and stderr,
/// normalised.
#[derive(Debug, PartialEq)]
struct Run {
    code: i32,
    trace: Vec<String>,
    stderr: Vec<String>,
}

/// Runs `cmd args… -o FILE`-style: `args` as given, in `dir`, with the
/// trace in `dir/trace`.
fn run(mut cmd: Command, args: &[&str], dir: &Path) -> Run {
    let out = dir.join("trace");
    let _ = std::fs::remove_file(&out);
    cmd.arg("-o").arg(&out);
    let (code, pid, stderr) = run_tracer(cmd, args, dir);
    let trace = std::fs::read_to_string(&out).unwrap_or_default();
    // A -c/-C table's % time, seconds and usecs/call are timings (a run of
    // a few closes can measure 0.000000 or 0.000013): compared as columns.
    let timing = Regex::new(r"^ *\d+\.\d+ +\d+\.\d+ +\d+ +").unwrap();
    Run {
        code,
        trace: norm_lines(&trace, pid)
            .iter()
            .map(|l| timing.replace(l, "TIME ").into_owned())
            .collect(),
        stderr: norm_lines(&stderr, pid)
            .iter()
            .map(|l| tracer_names(l))
            .collect(),
    }
}

/// Traces `args` with both tracers and asserts the same trace, messages
/// and exit code.
fn compare(name: &str, args: &[&str]) {
    let Some(c) = oracle() else { return };
    let dir = test_dir(name);
    let want = run(c, args, &dir);
    let got = run(common::named(rstrace()), args, &dir);
    assert!(!want.trace.is_empty(), "{name}: strace 7.2 traced nothing");
    assert_eq!(got, want, "{name} {args:?}: rstrace, then strace 7.2");
}

#[test]
fn syscall_limit_matches_strace_7_2() {
    let p = prog();
    let cases: &[&[&str]] = &[
        &["--syscall-limit=5"],
        &["--syscall-limit=5", "-e", "trace=%file"],
        &["--syscall-limit=3", "-P", "/etc/hostname"],
        &["--syscall-limit=2", "-Z"],
        &["--syscall-limit=2", "-e", "status=failed"],
        &["--syscall-limit=3", "--trace-fds=3"],
        &["--syscall-limit=3", "-f", "--seccomp-bpf"],
        &["--syscall-limit=3", "-e", "quiet=none"],
        &["--syscall-limit=4", "-C", "-e", "trace=close"],
    ];
    for opts in cases {
        let mut args = opts.to_vec();
        args.extend([p.as_str(), "basic"]);
        compare("syscall_limit", &args);
    }
    compare(
        "syscall_limit_fork",
        &[
            "--syscall-limit=2",
            "-f",
            "-e",
            "trace=getpid,getppid",
            &p,
            "fork",
        ],
    );
}

#[test]
fn trace_fds_matches_strace_7_2() {
    let p = prog();
    let cases: &[&[&str]] = &[
        &["--trace-fds=3"],
        &["-e", "fd=1,2"],
        &["-e", "trace-fds=!3"],
        &["-e", "trace-fd=all", "-e", "trace=%desc"],
        &["--trace-fds=3", "-e", "trace=read,close"],
        &["--trace-fds=1", "-P", "/etc/hostname"],
    ];
    for opts in cases {
        let mut args = opts.to_vec();
        args.extend([p.as_str(), "basic"]);
        compare("trace_fds", &args);
    }
}

#[test]
fn argv0_and_always_show_pid_match_strace_7_2() {
    let p = prog();
    compare(
        "argv0",
        &[
            "--argv0=renamed",
            "-e",
            "trace=execve,write",
            &p,
            "env",
            "OPT_ENV",
        ],
    );
    compare(
        "always_show_pid",
        &["--always-show-pid", "-e", "trace=getpid,kill", &p, "basic"],
    );
}

/// `-k` stacks of `stack_k` (7 frames) under frame limits below, at and
/// above its depth. strace 7.2 and 6.1 name some libc functions by
/// different aliases: libc frames are compared without the name.
#[test]
fn stack_trace_frame_limit_matches_strace_7_2() {
    let p = testprog("stack_k").to_string_lossy().into_owned();
    let alias = Regex::new(r"libc\.so\.6\([^)]*\)").unwrap();
    for n in ["2", "6", "7", "8"] {
        let Some(c) = oracle() else { return };
        let limit = format!("--stack-trace-frame-limit={n}");
        let args = ["-k", &limit, "-e", "trace=write", &p];
        let dir = test_dir("frame_limit");
        let strip = |mut r: Run| {
            r.trace = r
                .trace
                .iter()
                .map(|l| alias.replace(l, "libc.so.6(…)").into_owned())
                .collect();
            r
        };
        let want = strip(run(c, &args, &dir));
        let got = strip(run(common::named(rstrace()), &args, &dir));
        assert!(want.trace.len() > 2, "strace 7.2 printed no stack");
        assert_eq!(got, want, "{args:?}: rstrace, then strace 7.2");
    }
}

/// Bad values and the refusals and warnings that go with the new options:
/// strace 7.2's words, with rstrace's name.
#[test]
fn new_option_errors_match_strace_7_2() {
    let cases: &[&[&str]] = &[
        &["--syscall-limit=0", "true"],
        &["--syscall-limit=x", "true"],
        &["--syscall-limit=-1", "true"],
        &["--syscall-limit=", "true"],
        &["--syscall-limit=99999999999999999999", "true"],
        &["--stack-trace-frame-limit=-1", "-k", "true"],
        &["--stack-trace-frame-limit=0", "-k", "true"],
        &["--stack-trace-frame-limit=1073741824", "-k", "true"],
        &["--stack-trace=x", "true"],
        &["--stack-trace=source", "true"],
        &["-kk", "true"],
        &["--trace-fds=x", "true"],
        &["--trace-fds=", "true"],
        &["-e", "fd=-1", "true"],
        &["--color=bogus", "true"],
        &["-e", "namespace=x", "true"],
        &["--argv0=foo"],
        &["--kill-on-exit", "-p", "1"],
        &["--syscall", "true"],
        &["--stack-trace-frame-limit=5", "-e", "trace=none", "true"],
        &["-c", "-k", "-e", "trace=none", "true"],
        &[
            "--syscall-limit=1",
            "--seccomp-bpf",
            "-f",
            "-e",
            "trace=none",
            "true",
        ],
    ];
    errors_match_strace_7_2(cases);
}

/// Each of `cases` ends with the same exit code and stderr under rstrace
/// as under strace 7.2.
fn errors_match_strace_7_2(cases: &[&[&str]]) {
    for args in cases {
        let Some(c) = oracle() else { return };
        let dir = test_dir("errors72");
        let want = run(c, args, &dir);
        let got = run(common::named(rstrace()), args, &dir);
        assert_eq!(
            (got.code, &got.stderr),
            (want.code, &want.stderr),
            "{args:?}: rstrace, then strace 7.2"
        );
    }
}

/// `-V`: strace 7.2's layout (version line, copyright and licence, a blank
/// line, the optional features) with rstrace's name and version; options
/// after it are still read.
#[test]
fn version_layout_matches_strace_7_2() {
    let Some(mut c) = oracle() else { return };
    let want = String::from_utf8(c.arg("-V").output().unwrap().stdout).unwrap();
    let o = common::named(rstrace()).arg("-V").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let got = String::from_utf8(o.stdout).unwrap();
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    assert_eq!(g.len(), w.len(), "rstrace:\n{got}\nstrace 7.2:\n{want}");
    assert_eq!(
        g[0],
        format!("rstrace -- version {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(w[0].starts_with("strace -- version 7.2"));
    assert!(g[1].starts_with("Copyright (c) "));
    assert_eq!(g[2..4], w[2..4], "licence lines");
    assert_eq!(g[4], "");
    assert!(g[5].starts_with("Optional features enabled: "), "{got}");
    assert!(w[5].starts_with("Optional features enabled: "), "{want}");
    let bad = common::named(rstrace())
        .args(["-V", "-Q"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1), "-V -Q must still reject -Q");
}

/// `--decode-fds=eventfd` and `signalfd` (and their place in `all`, `-yy`
/// and with the other classes): an eventfd's counter, id and mode and a
/// signalfd's mask (in each `-X` style) from `testprogs/fd_anon72.c`, and
/// the messages for bad sets, as strace 7.2 prints them. The eventfd ids
/// are the kernel's (another test's eventfds may take one), so they are
/// compared as `N`.
#[test]
fn decode_fds_eventfd_signalfd_match_strace_7_2() {
    let p = testprog("fd_anon72").to_string_lossy().into_owned();
    let trace = "-e trace=eventfd2,signalfd4,read,write,close";
    let id = Regex::new(r"eventfd-id=\d+").unwrap();
    for set in [
        "--decode-fds=eventfd",
        "--decode-fds=signalfd",
        "--decode-fds=all",
        "-yy",
        "--decode-fds=path,eventfd",
        "--decode-fds=signalfd,socket",
        "--decode-fds=!eventfd",
        "-X raw -yy",
        "-X verbose --decode-fds=signalfd",
    ] {
        let args: Vec<&str> = set
            .split(' ')
            .chain(trace.split(' '))
            .chain([p.as_str()])
            .collect();
        let Some(c) = oracle() else { return };
        let dir = test_dir("fd_anon72");
        let mut want = run(c, &args, &dir);
        let mut got = run(common::named(rstrace()), &args, &dir);
        for r in [&mut want, &mut got] {
            for l in r.trace.iter_mut() {
                *l = id.replace_all(l, "eventfd-id=N").into_owned();
            }
        }
        assert!(
            want.trace.iter().any(|l| l.contains('<')),
            "{set}: {:?}",
            want.trace
        );
        assert_eq!(got, want, "{set}: rstrace, then strace 7.2");
    }
    errors_match_strace_7_2(&[
        &["--decode-fds=eventfds", "true"],
        &["--decode-fds=eventfd,bar", "true"],
        &["--decode-fds=all,signalfd", "true"],
        &["-e", "decode-fds=signalfd,", "true"],
        &["--decode-fds=", "true"],
    ]);
}
