//! Engine behaviours of rstrace compared with strace 6.1 on the same
//! program (`testprogs/engine_opts.c`): string reads through the per-stop
//! page cache (counted by tracing the tracer), `poke_enter=`/`poke_exit=`
//! tampering, `restart_syscall` naming the interrupted call, injection
//! delays that hold one tracee without holding up the others, a failing
//! first exec, a full output file, calls no table names (traced even with
//! `-e trace=none`) and standard descriptors the command must find closed.
//!
//! Every test is skipped (with a message) when strace is not installed.

use crate::common;

use common::{have, rstrace, testprog};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn strace_missing() -> bool {
    if have("strace") {
        return false;
    }
    eprintln!("skip: strace is not installed");
    true
}

fn prog() -> String {
    testprog("engine_opts").to_string_lossy().into_owned()
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let d = common::target_dir()
        .join("strace_engine_opts")
        .join(format!("{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn run(tracer: &str, args: &[&str]) -> Output {
    Command::new(tracer)
        .args(args)
        .output()
        .expect("run tracer")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The tracer's stderr with its own name replaced by `TRACER`.
fn stderr_of(o: &Output, tracer: &str) -> String {
    text(&o.stderr).replace(tracer, "TRACER")
}

#[test]
fn string_reads_cost_one_process_vm_readv_per_page() {
    if strace_missing() {
        return;
    }
    let dir = scratch("umove");
    let p = prog();
    let count = |inner: &str| {
        let cnt = dir.join(format!("{}.cnt", inner.replace('/', "_")));
        let log = dir.join("inner.log");
        let o = run(
            "strace",
            &[
                "-qq",
                "-esignal=none",
                "-eprocess_vm_readv",
                "-o",
                cnt.to_str().unwrap(),
                "--",
                inner,
                "-o",
                log.to_str().unwrap(),
                "-e",
                "trace=writev",
                &p,
                "writev",
            ],
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        let reads = std::fs::read_to_string(&cnt)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("process_vm_readv("))
            .count();
        (reads, std::fs::read_to_string(&log).unwrap())
    };
    let r = rstrace();
    let (ours, our_log) = count(r.to_str().unwrap());
    let (theirs, their_log) = count("strace");
    assert_eq!(our_log, their_log, "the writev line differs");
    assert!(ours > 0, "no process_vm_readv counted");
    assert!(
        ours <= theirs,
        "rstrace made {ours} process_vm_readv calls, strace {theirs}"
    );
}

#[test]
fn poke_enter_and_exit_like_strace() {
    if strace_missing() {
        return;
    }
    let p = prog();
    let args = [
        "-a10",
        "-e",
        "trace=chdir,getcwd",
        "-einject=chdir:poke_enter=@arg1=2f746d7000",
        "-einject=getcwd:poke_exit=@arg1=5374726163652100",
        &p,
        "poke",
    ];
    let r = rstrace();
    let ours = run(r.to_str().unwrap(), &args);
    let theirs = run("strace", &args);
    let ours_text = stderr_of(&ours, r.to_str().unwrap());
    assert!(
        ours_text.contains("chdir(\"/tmp\") = 0 (INJECTED: args)"),
        "{ours_text}"
    );
    assert_eq!(ours_text, stderr_of(&theirs, "strace"));
    // A poke rule is an inject rule only, with strace's syntax checks.
    let bad = run(
        r.to_str().unwrap(),
        &["-e", "fault=chdir:poke_enter=@arg1=00", &p],
    );
    assert!(!bad.status.success());
}

#[test]
fn restart_syscall_names_the_interrupted_call() {
    if strace_missing() {
        return;
    }
    let p = prog();
    let args = ["-e", "trace=restart_syscall,/nanosleep", &p, "restart"];
    let r = rstrace();
    let pick = |o: &Output| {
        text(&o.stderr)
            .lines()
            .find(|l| l.starts_with("restart_syscall("))
            .map(str::to_string)
    };
    let theirs = pick(&run("strace", &args)).expect("strace shows restart_syscall");
    assert_eq!(pick(&run(r.to_str().unwrap(), &args)), Some(theirs));
}

#[test]
fn delays_hold_one_tracee_not_all() {
    let p = prog();
    let r = rstrace();
    let start = Instant::now();
    let o = run(
        r.to_str().unwrap(),
        &[
            "-f",
            "-qq",
            "-e",
            "trace=getppid",
            "-e",
            "inject=getppid:delay_enter=400ms",
            &p,
            "delay",
        ],
    );
    let took = start.elapsed();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stderr);
    assert_eq!(out.matches("(DELAYED)").count(), 2, "{out}");
    // Held one after the other, the two children would need 800 ms.
    assert!(took < Duration::from_millis(750), "took {took:?}:\n{out}");
    assert!(took >= Duration::from_millis(400), "took {took:?}:\n{out}");
}

#[test]
fn failing_first_exec_like_strace() {
    if strace_missing() {
        return;
    }
    let r = rstrace();
    let ours = run(r.to_str().unwrap(), &["/"]);
    let theirs = run("strace", &["/"]);
    assert_eq!(ours.status.code(), Some(1));
    assert_eq!(ours.status.code(), theirs.status.code());
    let norm = |s: String| {
        s.lines()
            .map(|l| match l.find("], 0x") {
                Some(i) => format!("{}], ENV{}", &l[..i], &l[l.find(" */)").unwrap_or(i)..]),
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let o = norm(stderr_of(&ours, r.to_str().unwrap()));
    assert_eq!(o, norm(stderr_of(&theirs, "strace")));
    assert!(
        o.ends_with("TRACER: exec: Permission denied\n+++ exited with 1 +++"),
        "{o}"
    );
}

#[test]
fn full_output_file_is_reported_by_name() {
    if strace_missing() || !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let r = rstrace();
    let args = ["-o", "/dev/full", "-e", "trace=none", "true"];
    let ours = run(r.to_str().unwrap(), &args);
    let theirs = run("strace", &args);
    assert_eq!(
        stderr_of(&ours, r.to_str().unwrap()),
        stderr_of(&theirs, "strace")
    );
    assert!(text(&ours.stderr).contains("/dev/full: No space left on device"));
}

#[test]
fn unnamed_syscalls_are_traced_even_with_trace_none() {
    if strace_missing() {
        return;
    }
    let p = prog();
    for extra in [&[][..], &["-f"][..]] {
        let mut args: Vec<&str> = extra.to_vec();
        args.extend(["-e", "trace=none", &p, "nosys"]);
        let r = rstrace();
        let ours = stderr_of(&run(r.to_str().unwrap(), &args), r.to_str().unwrap());
        let theirs = stderr_of(&run("strace", &args), "strace");
        assert!(ours.contains("syscall_0x1f4(0x1, 0x2"), "{ours}");
        assert_eq!(ours, theirs);
    }
}

#[test]
fn closed_standard_descriptors_stay_closed_for_the_command() {
    if strace_missing() {
        return;
    }
    let r = rstrace();
    let script = "for fd in 0 1; do if [ -e /proc/self/fd/$fd ]; then echo $fd:open >&2; \
                  else echo $fd:closed >&2; fi; done";
    let check = |tracer: &str| {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "exec 0<&- 1>&-; exec \"$0\" -e trace=none -qq sh -c '{script}'"
            ))
            .arg(tracer)
            .output()
            .expect("sh");
        text(&o.stderr)
    };
    let ours = check(r.to_str().unwrap());
    assert_eq!(ours, "0:closed\n1:closed\n");
    assert_eq!(ours, check("strace"));
}

/// `PPid` and `TracerPid` of the traced shell, as it printed them.
fn ppid_tracer(status: &str) -> (i64, i64) {
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(-1)
    };
    (field("PPid:"), field("TracerPid:"))
}

#[test]
fn daemonized_tracer_is_not_the_parent() {
    if strace_missing() {
        return;
    }
    let r = rstrace();
    for (d, tracer) in [
        ("-D", r.to_str().unwrap()),
        ("-DD", r.to_str().unwrap()),
        ("-DDD", r.to_str().unwrap()),
        ("-D", "strace"),
    ] {
        let o = run(
            tracer,
            &[d, "-qq", "-e", "trace=none", "cat", "/proc/self/status"],
        );
        assert!(o.status.success(), "{tracer} {d}: {}", text(&o.stderr));
        let (ppid, tracer_pid) = ppid_tracer(&text(&o.stdout));
        assert!(
            ppid > 0 && tracer_pid > 0,
            "{tracer} {d}: {ppid} {tracer_pid}"
        );
        assert_ne!(ppid, tracer_pid, "{tracer} {d}");
        // The command keeps the tracer's process: its parent is this test.
        assert_eq!(ppid, std::process::id() as i64, "{tracer} {d}");
    }
    // Without -D the tracer is the parent.
    let o = run(
        r.to_str().unwrap(),
        &["-qq", "-e", "trace=none", "cat", "/proc/self/status"],
    );
    let (ppid, tracer_pid) = ppid_tracer(&text(&o.stdout));
    assert_eq!(ppid, tracer_pid);
}

#[test]
fn daemonize_option_errors_like_strace() {
    if strace_missing() {
        return;
    }
    let r = rstrace();
    let me = std::process::id().to_string();
    let cases: [&[&str]; 6] = [
        &["-D", "-p", &me],
        &["-DDDD", "true"],
        &["-D", "--daemonize", "-p", &me],
        &["--daemonize=pgr", "true"],
        &["--daemonize=SESSION", "-p", &me],
        &["-O", "-42", "true"],
    ];
    for args in cases {
        let ours = run(r.to_str().unwrap(), args);
        let theirs = run("strace", args);
        assert!(!ours.status.success(), "{args:?}");
        assert_eq!(
            stderr_of(&ours, r.to_str().unwrap()),
            stderr_of(&theirs, "strace"),
            "{args:?}"
        );
    }
}
