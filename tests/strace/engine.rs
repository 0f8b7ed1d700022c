//! The ptrace engine through rstrace: threads, seccomp, signals, job control,
//! exec from a thread, death by signal, SIGKILL mid-syscall, attach/detach.

use crate::common;

use common::{rstrace, testprog};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = common::named(rstrace())
        .args(args)
        .output()
        .expect("run rstrace");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn count_lines(text: &str, needle: &str) -> usize {
    text.lines().filter(|l| l.contains(needle)).count()
}

#[test]
fn threads_created_later_are_filtered_and_counted_exactly() {
    let prog = testprog("threads");
    for extra in [
        &[][..],
        &["--no-seccomp-bpf"][..],
        &["--no-syscall-info"][..],
    ] {
        let mut args = vec!["-f", "-e", "trace=getppid", "-o", "/dev/stderr"];
        args.extend_from_slice(extra);
        let p = prog.to_str().unwrap();
        args.push(p);
        args.push("500");
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, "threads done 4000\n");
        let calls = count_lines(&err, "getppid(");
        assert_eq!(
            calls,
            4000,
            "extra={extra:?}\n{}",
            &err[..err.len().min(2000)]
        );
        assert_eq!(count_lines(&err, "getpid("), 0);
    }
}

#[test]
fn seccomp_filter_stops_only_at_traced_calls() {
    let prog = testprog("many_getpid");
    let out = common::named(rstrace())
        .env("RTRACE_STATS", "1")
        .args(["-f", "-e", "trace=getppid", "-o", "/dev/null"])
        .arg(&prog)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let stops: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("rstrace: stats: stops="))
        .expect("stats line")
        .parse()
        .unwrap();
    // 5 traced calls (entry+exit) plus start-up and exit: far below 20000.
    assert!(stops < 200, "{stops} stops with the filter");
    // Without the filter every getpid stops twice.
    let out = common::named(rstrace())
        .env("RTRACE_STATS", "1")
        .args([
            "-f",
            "--no-seccomp-bpf",
            "-e",
            "trace=getppid",
            "-o",
            "/dev/null",
        ])
        .arg(&prog)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let stops: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("rstrace: stats: stops="))
        .unwrap()
        .parse()
        .unwrap();
    assert!(stops > 40000, "{stops}");
}

#[test]
fn summary_counts_are_exact_with_threads() {
    let prog = testprog("threads");
    let (code, out, err) = run(&[
        "-f",
        "-c",
        "-e",
        "trace=getppid,getpid",
        prog.to_str().unwrap(),
        "300",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, "threads done 2400\n");
    let row = |name: &str| -> u64 {
        err.lines()
            .find(|l| l.ends_with(&format!(" {name}")))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no row {name} in\n{err}"))
    };
    assert_eq!(row("getppid"), 2400);
    assert!(row("getpid") >= 24000);
}

#[test]
fn real_time_signals_are_delivered_intact() {
    let prog = testprog("rtsig");
    let (code, out, err) = run(&["-f", "-o", "/dev/stderr", prog.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "rtsig sum 1225 count 50\n");
    assert_eq!(count_lines(&err, "--- SIGRT_3 "), 50, "{err}");
}

#[test]
fn group_stop_keeps_the_child_stopped_until_sigcont() {
    let prog = testprog("stopcont");
    let (code, out, err) = run(&["-f", "-o", "/dev/stderr", prog.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "stopped 19\nstill stopped\ncontinued\nchild exited 7\n"
    );
    assert!(err.contains("--- stopped by SIGSTOP ---"), "{err}");
    assert!(err.contains("--- SIGCONT "), "{err}");
}

#[test]
fn exec_from_a_non_leader_thread() {
    let prog = testprog("exec_thread");
    let (code, _out, err) = run(&["-f", "-o", "/dev/stderr", prog.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("execve(\"/bin/true\""), "{err}");
    assert!(err.trim_end().ends_with("+++ exited with 0 +++"), "{err}");
}

#[test]
fn death_by_signal_is_reported_and_passed_on() {
    let prog = testprog("sigsegv");
    let out = common::named(rstrace()).arg(&prog).output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(libc::SIGSEGV), "{:?}", out.status);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--- SIGSEGV {si_signo=SIGSEGV"), "{err}");
    assert!(err.contains("+++ killed by SIGSEGV"), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "about to crash\n");
}

#[test]
fn sigkill_in_the_middle_of_a_syscall() {
    let prog = testprog("killed_midcall");
    let (code, out, err) = run(&["-f", "-o", "/dev/stderr", prog.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "child killed by 9\n");
    assert!(err.contains("+++ killed by SIGKILL +++"), "{err}");
}

#[test]
fn fork_vfork_and_threads_are_followed() {
    let prog = testprog("forker");
    let (code, out, err) = run(&["-f", "-o", "/dev/stderr", prog.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "fork child exited 3\nvfork child exited 0\nthread joined\n"
    );
    assert!(err.contains("+++ exited with 3 +++"), "{err}");
    assert!(err.contains("execve(\"/bin/true\""), "{err}");
    assert_eq!(count_lines(&err, "+++ exited with"), 4, "{err}");
}

#[test]
fn exit_status_is_passed_through() {
    let (code, _, _) = run(&["-o", "/dev/null", "sh", "-c", "exit 42"]);
    assert_eq!(code, 42);
}

#[test]
fn attach_trace_and_detach_on_sigint_leaves_the_process_running() {
    let prog = testprog("echoer");
    let mut child = Command::new(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    writeln!(stdin, "one").unwrap();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "got one\n");

    let mut tracer = common::named(rstrace())
        .args(["-p", &child.id().to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut terr = BufReader::new(tracer.stderr.take().unwrap());
    let mut seen = String::new();
    // Wait for the attach message, then make the program do syscalls.
    loop {
        let mut l = String::new();
        assert!(
            terr.read_line(&mut l).unwrap() > 0,
            "tracer ended early: {seen}"
        );
        seen.push_str(&l);
        if l.contains("attached") {
            break;
        }
    }
    writeln!(stdin, "two").unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "got two\n");
    // The traced write of "got two" appears in the trace.
    loop {
        let mut l = String::new();
        assert!(terr.read_line(&mut l).unwrap() > 0, "no write seen: {seen}");
        seen.push_str(&l);
        if l.contains("write(1, \"got two\\n\", 8)") {
            break;
        }
    }
    // SIGINT: rstrace detaches and exits; the program runs on.
    unsafe { libc::kill(tracer.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut terr, &mut rest).unwrap();
    let st = tracer.wait().unwrap();
    assert_eq!(st.code(), Some(130), "{seen}{rest}");
    assert!(rest.contains("detached"), "{rest}");
    writeln!(stdin, "three").unwrap();
    drop(stdin);
    let mut tail = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut tail).unwrap();
    assert_eq!(tail, "got three\ntotal 3\n");
    assert!(child.wait().unwrap().success());
}

/// `-d` prints the ptrace options the tracer sets, as strace's first debug
/// line (strace's further debug lines log its own internals).
#[test]
fn debug_prints_ptrace_options() {
    let (code, _, err) = run(&["-d", "-e", "trace=none", "true"]);
    assert_eq!(code, 0, "{err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("rstrace: ptrace_setoptions = 0x"),
        "{err}"
    );
    let v = u32::from_str_radix(first.rsplit("0x").next().unwrap(), 16).unwrap();
    // TRACESYSGOOD, TRACEEXEC and TRACEEXIT at least; no fork events without -f.
    assert_eq!(v & 0x51, 0x51, "{first}");
    assert_eq!(v & 0xe, 0, "{first}");
}

#[test]
fn bad_command_lines_fail_cleanly() {
    for args in [
        &["-e", "trace=nosuchcall", "true"][..],
        &["-s", "x", "true"],
        &["-Q", "true"],
        &[],
        &["-e", "signal=NOPE", "true"],
        &["/nonexistent/program"],
        &["-p", "0"],
        // Implemented, with strace's checks.
        &["-c", "-U", "calls,nosuchcolumn", "true"],
        &["-U", "calls", "true"],
        &["-DDDD", "true"],
        &["-O", "-5", "true"],
        &["-e", "inject=open:error=NOSUCHERRNO", "true"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(out.is_empty());
        assert!(err.starts_with("rstrace: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn cpu_pinning_is_invisible_to_the_command() {
    // rstrace runs an unfiltered command on its own CPU for speed; the command
    // must still see its real affinity mask.
    let plain = Command::new("nproc").output().unwrap();
    let (code, out, err) = run(&["-o", "/dev/null", "nproc"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, String::from_utf8_lossy(&plain.stdout));
    let (code, out, _) = run(&[
        "-f",
        "-o",
        "/dev/null",
        "sh",
        "-c",
        "taskset -p $$ | sed 's/.*: //'",
    ]);
    let plain = Command::new("sh")
        .args(["-c", "taskset -p $$ | sed 's/.*: //'"])
        .output()
        .unwrap();
    assert_eq!(code, 0);
    assert_eq!(out, String::from_utf8_lossy(&plain.stdout));
    // Also under a seccomp filter, where pinning holds while one task runs.
    let (code, out, _) = run(&["-f", "-e", "trace=openat", "-o", "/dev/null", "nproc"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        String::from_utf8_lossy(&Command::new("nproc").output().unwrap().stdout)
    );
    let (code, out, _) = run(&[
        "-f",
        "-e",
        "trace=openat",
        "-o",
        "/dev/null",
        "sh",
        "-c",
        "taskset -p $$ | sed 's/.*: //'",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, String::from_utf8_lossy(&plain.stdout));
    // A command that sets its own affinity keeps it.
    let (code, out, _) = run(&[
        "-f",
        "-o",
        "/dev/null",
        "sh",
        "-c",
        "taskset -c 0 sh -c 'taskset -p $$' | sed 's/.*: //'",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, "1\n");
}

#[test]
fn leader_exiting_before_its_threads() {
    let prog = testprog("leader_exits");
    let (code, out, err) = run(&["-f", "-o", "/dev/stderr", prog.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "worker done\n");
    assert_eq!(count_lines(&err, "getppid("), 5, "{err}");
    assert_eq!(count_lines(&err, "+++ exited with 0 +++"), 2, "{err}");
}

#[test]
fn sigterm_kills_a_launched_command_and_exits_128_plus_15() {
    let prog = testprog("echoer");
    let mut child_in = common::named(rstrace())
        .arg(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child_in.stdin.take().unwrap();
    let mut stdout = BufReader::new(child_in.stdout.take().unwrap());
    writeln!(stdin, "x").unwrap();
    let mut l = String::new();
    stdout.read_line(&mut l).unwrap();
    assert_eq!(l, "got x\n");
    // The command is now blocked reading stdin under trace.
    unsafe { libc::kill(child_in.id() as i32, libc::SIGTERM) };
    let st = child_in.wait().unwrap();
    assert_eq!(st.code(), Some(128 + 15));
    // The command was killed with the same signal: its stdout closes.
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert_eq!(rest, "");
}

#[test]
fn json_lines_carry_structured_values() {
    let (code, _, err) = run(&[
        "--json",
        "-e",
        "trace=openat,read,close",
        "cat",
        "/etc/hostname",
    ]);
    assert_eq!(code, 0);
    let mut saw_open = false;
    for line in err.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if v["type"] == "syscall" && v["syscall"] == "openat" && v["args"][1] == "/etc/hostname" {
            assert_eq!(v["args"][0]["sym"], "AT_FDCWD");
            assert_eq!(v["args"][2]["flags"][0], "O_RDONLY");
            assert!(v["return"].as_i64().unwrap() >= 3);
            assert!(v["dur_ns"].as_u64().is_some());
            saw_open = true;
        }
    }
    assert!(saw_open, "{err}");
    assert!(err.lines().last().unwrap().contains("\"type\":\"exit\""));
}
