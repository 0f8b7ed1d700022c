//! `rstrace -e inject=` / `-e fault=`: the traced program really sees the
//! injected errors, return values, signals and delays at the chosen
//! invocations, and the trace marks them as strace does (`(INJECTED)`,
//! `(DELAYED)`). `testprogs/inject_open.c` calls open(2) itself (libc and
//! the dynamic linker use openat), so `-e inject=open` counts exactly its
//! calls; it prints what each call returned. Where strace is installed, the
//! same expressions are compared with its output.

use crate::common;

use common::{have, rstrace, testprog};
use std::process::Output;

fn run(args: &[&str], prog_args: &[&str]) -> Output {
    common::named(rstrace())
        .args(args)
        .arg(testprog("inject_open"))
        .args(prog_args)
        .output()
        .expect("run rstrace")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `open(` lines of a trace, `[pid N] ` prefixes and the alignment
/// before ` = ` removed.
fn open_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .map(|l| match l.strip_prefix("[pid ") {
            Some(r) => r.split_once("] ").map_or(l, |x| x.1),
            None => l,
        })
        .filter(|l| l.starts_with("open("))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

const ENOENT_LINE: &str =
    "open(\"/dev/null\", O_RDONLY) = -1 ENOENT (No such file or directory) (INJECTED)";
const OK_LINE: &str = "open(\"/dev/null\", O_RDONLY) = 3";

#[test]
fn third_open_fails_with_enoent_and_the_trace_marks_it() {
    let o = run(
        &["-e", "trace=open", "-e", "inject=open:error=ENOENT:when=3"],
        &["5"],
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        text(&o.stdout),
        "0:ok\n1:ok\n2:err=2\n3:ok\n4:ok\nusr1=0\n",
        "{}",
        text(&o.stderr)
    );
    let lines = open_lines(&text(&o.stderr));
    assert_eq!(lines, [OK_LINE, OK_LINE, ENOENT_LINE, OK_LINE, OK_LINE]);
}

#[test]
fn counters_are_per_thread() {
    for mode in [&["-f"][..], &["-f", "--seccomp-bpf"][..]] {
        let mut args = mode.to_vec();
        args.extend(["-e", "trace=open", "-e", "inject=open:error=EIO:when=2"]);
        let o = run(&args, &["3", "threads"]);
        assert!(o.status.success(), "{o:?}");
        assert_eq!(
            text(&o.stdout),
            "a0:ok\na1:err=5\na2:ok\nb0:ok\nb1:err=5\nb2:ok\nusr1=0\n",
            "{mode:?}"
        );
        let marked = open_lines(&text(&o.stderr))
            .iter()
            .filter(|l| l.ends_with("= -1 EIO (Input/output error) (INJECTED)"))
            .count();
        assert_eq!(marked, 2, "{mode:?}: {}", text(&o.stderr));
    }
}

#[test]
fn retval_with_a_step_and_fault_default() {
    let o = run(
        &["-e", "trace=open", "-e", "inject=open:retval=42:when=2+2"],
        &["5"],
    );
    assert_eq!(text(&o.stdout), "0:ok\n1:42\n2:ok\n3:42\n4:ok\nusr1=0\n");
    let lines = open_lines(&text(&o.stderr));
    assert_eq!(lines[1], "open(\"/dev/null\", O_RDONLY) = 42 (INJECTED)");
    assert_eq!(lines[2], OK_LINE);
    // -e fault= injects ENOSYS by default; a range with no step is every call in it.
    let o = run(&["-e", "trace=open", "-e", "fault=open:when=2..3"], &["4"]);
    assert_eq!(text(&o.stdout), "0:ok\n1:err=38\n2:err=38\n3:ok\nusr1=0\n");
    // A later rule replaces an earlier one for its syscalls.
    let o = run(
        &[
            "-e",
            "trace=open",
            "-e",
            "inject=open:error=EIO:when=1",
            "-e",
            "inject=open:error=EACCES:when=2",
        ],
        &["3"],
    );
    assert_eq!(text(&o.stdout), "0:ok\n1:err=13\n2:ok\nusr1=0\n");
}

#[test]
fn signal_is_delivered_at_entry_in_both_stop_modes() {
    // Without -f every syscall stops; with -f a seccomp filter stops only
    // open, whose entry is a seccomp event (the signal goes with the exit).
    for mode in [&[][..], &["-f"][..]] {
        let mut args = mode.to_vec();
        args.extend([
            "-e",
            "trace=open",
            "-e",
            "inject=open:signal=SIGUSR1:when=2",
        ]);
        let o = run(&args, &["3"]);
        assert!(o.status.success(), "{o:?}");
        assert_eq!(text(&o.stdout), "0:ok\n1:ok\n2:ok\nusr1=1\n", "{mode:?}");
        let err = text(&o.stderr);
        let sig = "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_KERNEL} ---";
        let lines: Vec<&str> = err.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == sig)
            .unwrap_or_else(|| panic!("{err}"));
        // After the second open, before the third.
        assert_eq!(
            lines[..at]
                .iter()
                .filter(|l| l.starts_with("open("))
                .count(),
            2,
            "{mode:?}: {err}"
        );
    }
}

#[test]
fn delay_and_substitute_syscall() {
    // An entry delay is inside the call's -T time (as in strace); an exit
    // delay comes after the exit stop, so only the run takes longer.
    let o = run(
        &[
            "-T",
            "-e",
            "trace=open",
            "-e",
            "inject=open:delay_enter=80ms:when=2",
        ],
        &["2"],
    );
    assert_eq!(text(&o.stdout), "0:ok\n1:ok\nusr1=0\n");
    let lines = open_lines(&text(&o.stderr));
    let (head, time) = lines[1].rsplit_once(" <").expect("-T time");
    assert!(head.ends_with("= 3 (DELAYED)"), "{}", lines[1]);
    let secs: f64 = time.trim_end_matches('>').parse().expect("seconds");
    assert!(secs >= 0.08, "{secs}");
    assert!(!lines[0].contains("DELAYED"));
    let t = std::time::Instant::now();
    let o = run(
        &[
            "-e",
            "trace=open",
            "-e",
            "inject=open:delay_exit=300ms:when=1",
        ],
        &["1"],
    );
    assert!(t.elapsed() >= std::time::Duration::from_millis(300));
    assert_eq!(
        open_lines(&text(&o.stderr)),
        [format!("{OK_LINE} (DELAYED)")]
    );
    // syscall=getpid runs getpid instead of open, then the error is set.
    let o = run(
        &[
            "-e",
            "trace=open",
            "-e",
            "inject=open:syscall=getpid:error=ENOENT:when=1",
        ],
        &["1"],
    );
    assert_eq!(text(&o.stdout), "0:err=2\nusr1=0\n");
    assert_eq!(open_lines(&text(&o.stderr)), [ENOENT_LINE]);
}

#[test]
fn json_lines_carry_the_marks() {
    let o = run(
        &[
            "--json",
            "-e",
            "trace=open",
            "-e",
            "inject=open:error=ENOENT:when=2",
        ],
        &["2"],
    );
    let recs: Vec<serde_json::Value> = text(&o.stderr)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v["syscall"] == "open")
        .collect();
    assert_eq!(recs.len(), 2, "{}", text(&o.stderr));
    assert_eq!(recs[0].get("injected"), None);
    assert_eq!(recs[1]["injected"], true);
    assert_eq!(recs[1]["errno"], "ENOENT");
}

#[test]
fn summary_counts_injected_errors() {
    let o = run(
        &[
            "-c",
            "-e",
            "trace=open",
            "-e",
            "inject=open:error=EIO:when=1+2",
        ],
        &["5"],
    );
    assert!(o.status.success());
    let err = text(&o.stderr);
    let row = err
        .lines()
        .find(|l| l.ends_with(" open"))
        .unwrap_or_else(|| panic!("{err}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    // % time, seconds, usecs/call, calls, errors, syscall
    assert_eq!((cols[3], cols[4]), ("5", "3"), "{row}");
}

#[test]
fn bad_expressions_are_refused_as_strace_refuses_them() {
    for (expr, msg) in [
        ("inject=open", "rstrace: invalid inject argument 'open'"),
        (
            "inject=open:error=FOO",
            "rstrace: invalid inject argument 'open:error=FOO'",
        ),
        (
            "inject=open:when=0:error=EIO",
            "rstrace: invalid inject argument 'open:when=0:error=EIO'",
        ),
        (
            "fault=open:retval=1",
            "rstrace: invalid fault argument 'open:retval=1'",
        ),
        (
            "inject=nosuch:error=EIO",
            "rstrace: invalid system call 'nosuch'",
        ),
    ] {
        let o = run(&["-e", expr], &["1"]);
        assert_eq!(o.status.code(), Some(1), "{expr}");
        assert_eq!(text(&o.stderr).lines().next(), Some(msg), "{expr}");
        assert!(o.stdout.is_empty(), "{expr}: the program must not run");
    }
}

#[test]
fn same_output_as_strace() {
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    let prog = testprog("inject_open");
    for expr in [
        "inject=open:error=ENOENT:when=3",
        "inject=open:retval=42:when=2+2",
        "fault=open:when=4+",
        "inject=open:error=2:when=1+2",
        "inject=open:signal=SIGUSR1:error=EIO:when=2",
        "inject=open:delay_enter=1ms:retval=5:when=1",
        "inject=open:error=4095:when=1",
        "inject=open:error=513:when=2",
        "inject=%file:error=EACCES:when=2",
    ] {
        let out = |tool: &std::path::Path| {
            let o = common::named(tool)
                .args(["-e", "trace=open", "-e", expr])
                .arg(&prog)
                .arg("4")
                .output()
                .expect("run tracer");
            (o.status.code(), text(&o.stdout), text(&o.stderr))
        };
        let theirs = out(std::path::Path::new("strace"));
        let ours = out(&rstrace());
        assert_eq!(ours, theirs, "{expr}");
    }
}
