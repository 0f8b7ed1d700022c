//! Fault matrix, the traced program: SIGKILL mid-syscall, SIGSTOP/SIGCONT
//! from outside, exec from a non-leader thread, vfork + exec, reparenting,
//! a program that ignores and blocks every signal, real-time signals on
//! an alternate stack, a process already traced, a setuid binary run by an
//! unprivileged user, and static, stripped and corrupted-DWARF binaries.
//! Where strace is installed its output is the oracle for the markers.

use crate::common;

use common::{
    count_lines, have, lines_of, next_line, poll_until, rltrace, rstrace, rtrace, run, temp_path,
    testprog, testprog_variant, wait_bounded,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// The `+++`/`---` marker lines with pids and addresses normalized, sorted:
/// what rstrace and strace must agree on.
fn markers(trace: &str) -> Vec<String> {
    let mut m: Vec<String> = common::normalize(trace)
        .lines()
        .map(|l| l.trim_start_matches("PID ").to_string())
        .filter(|l| l.starts_with("+++") || l.starts_with("---"))
        // CPU time of a child (si_utime/si_stime in a SIGCHLD) is a
        // scheduler tick or not, run by run.
        .map(|l| {
            let re = regex_lite::Regex::new(r"(si_[us]time)=\d+( /\* [0-9.]+ s \*/)?").unwrap();
            re.replace_all(&l, "$1=T").into_owned()
        })
        // The old thread id: numbered by first appearance, which depends on
        // how the two threads' lines interleave.
        .map(|l| match l.split_once("superseded by execve in pid ") {
            Some((head, _)) => format!("{head}superseded by execve in pid N +++"),
            None => l,
        })
        .collect();
    m.sort();
    m
}

/// Traces `prog args` with rstrace -f and, when present, strace -f; checks
/// the program's output and status and that the markers agree.
fn against_strace(prog: &Path, args: &[&str], stdout: &str, code: i32) -> String {
    let p = prog.to_str().expect("path");
    let mut a = vec!["-f", "-o", "/dev/stderr", p];
    a.extend_from_slice(args);
    let (st, out, err) = run(&rstrace(), &a);
    assert_eq!(out, stdout, "{err}");
    assert_eq!(st.code(), Some(code), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    if have("strace") {
        let (sst, sout, serr) = run(Path::new("strace"), &a);
        if (sst.code(), sout.as_str()) != (Some(code), stdout) {
            // The oracle itself failed (strace loses exec-from-thread now
            // and then under load): nothing to compare with.
            eprintln!("note: strace failed ({sst:?}); markers not compared:\n{serr}");
            return err;
        }
        assert_eq!(
            markers(&err),
            markers(&serr),
            "rstrace:\n{err}\nstrace:\n{serr}"
        );
    } else {
        eprintln!("note: strace not installed; markers not compared");
    }
    err
}

fn proc_state(pid: u32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let after = stat.rsplit_once(") ").expect("comm").1;
    after.chars().next().expect("state")
}

/// Starts `TOOL -o FILE … fault_stop` with a piped stdin; returns the
/// tool, the program's stdin, its stdout lines and pid.
fn start_stop_prog(
    tool: &Path,
    pre: &[&str],
    trace: &Path,
) -> (Child, std::process::ChildStdin, Receiver<String>, u32) {
    let mut c = Command::new(tool);
    c.args(pre).arg("-o").arg(trace);
    if tool == rtrace() {
        c.arg("--");
    }
    let mut child = c
        .arg(testprog("fault_stop"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let pin = child.stdin.take().expect("stdin");
    let pout = lines_of(child.stdout.take().expect("stdout"));
    let ready = next_line(&pout, "ready");
    let pid = ready
        .strip_prefix("ready ")
        .and_then(|p| p.parse().ok())
        .expect("ready PID");
    (child, pin, pout, pid)
}

#[test]
fn sigkill_from_outside_mid_syscall() {
    for (tool, pre) in [
        (rstrace(), vec!["-f"]),
        (rltrace(), vec!["-f"]),
        (rtrace(), vec!["break", "main"]),
    ] {
        let trace = temp_path("fault-kill");
        let (mut child, _pin, _pout, pid) = start_stop_prog(&tool, &pre, &trace);
        // Blocked in read(2) on its stdin, traced: rstrace writes the
        // call's start to its trace as the call begins (a kill from there
        // on finds it in the call or entering it, which ends the same);
        // the others print nothing there.
        if tool == rstrace() {
            wait_trace(&trace, &child, "read(0");
        } else {
            wait_blocked(pid);
        }
        // SAFETY: killing the program we started.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        let st = wait_bounded(&mut child, 30, "tracer after SIGKILL");
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        let _ = std::fs::remove_file(&trace);
        use std::os::unix::process::ExitStatusExt;
        // strace (and rstrace) die by the same signal as the program; the
        // other tools report it and exit 128 + 9 or with it.
        let what = format!("{} {pre:?}", tool.display());
        assert!(
            st.signal() == Some(libc::SIGKILL) || st.code() == Some(128 + libc::SIGKILL),
            "{what}: {st:?}\n{text}"
        );
        if tool == rstrace() {
            assert_eq!(st.signal(), Some(libc::SIGKILL), "{text}");
            assert!(
                text.trim_end().ends_with("+++ killed by SIGKILL +++"),
                "{text}"
            );
        } else {
            assert!(text.contains("killed by SIGKILL"), "{what}: {text}");
        }
    }
}

#[test]
fn sigstop_and_sigcont_from_outside() {
    for (tool, pre) in [(rstrace(), vec!["-f"]), (rltrace(), vec![])] {
        let trace = temp_path("fault-stop");
        let (mut child, mut pin, pout, pid) = start_stop_prog(&tool, &pre, &trace);
        writeln!(pin, "one").expect("write");
        assert_eq!(next_line(&pout, "echo one"), "echo one");
        // SAFETY: signalling the program we started.
        unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
        // Stopped once the tool says so: rstrace at the group stop,
        // rltrace as the signal is delivered (from there on the program
        // runs none of its code until SIGCONT).
        let stopped = if tool == rstrace() {
            "--- stopped by SIGSTOP ---"
        } else {
            "--- SIGSTOP "
        };
        wait_trace(&trace, &child, stopped);
        // Stopped means stopped: input waits, no answer comes.
        writeln!(pin, "two").expect("write");
        assert!(
            pout.recv_timeout(Duration::from_millis(400)).is_err(),
            "ran while stopped"
        );
        assert!(matches!(proc_state(pid), 'T' | 't'));
        // SAFETY: as above.
        unsafe { libc::kill(pid as i32, libc::SIGCONT) };
        assert_eq!(next_line(&pout, "echo two"), "echo two");
        drop(pin);
        assert_eq!(next_line(&pout, "bye"), "bye");
        let st = wait_bounded(&mut child, 30, "tracer");
        assert_eq!(st.code(), Some(0));
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        let _ = std::fs::remove_file(&trace);
        if tool == rstrace() {
            // As strace shows them: the signal, the stop, the continue.
            for m in [
                "--- SIGSTOP {si_signo=SIGSTOP, si_code=SI_USER",
                "--- stopped by SIGSTOP ---",
                "--- SIGCONT {si_signo=SIGCONT, si_code=SI_USER",
            ] {
                assert_eq!(count_lines(&text, m), 1, "{m}\n{text}");
            }
        } else {
            assert!(text.contains("SIGSTOP"), "{text}");
            assert!(text.contains("SIGCONT"), "{text}");
        }
    }
}

#[test]
fn exec_from_a_non_leader_thread_agrees_with_strace() {
    let err = against_strace(&testprog("fault_execthread"), &[], "exec from thread\n", 6);
    assert_eq!(count_lines(&err, "execve("), 2, "{err}");
    assert!(err.trim_end().ends_with("+++ exited with 6 +++"), "{err}");
    let (st, out, lt) = run(
        &rltrace(),
        &["-f", testprog("fault_execthread").to_str().unwrap()],
    );
    assert_eq!(
        (st.code(), out.as_str()),
        (Some(6), "exec from thread\n"),
        "{lt}"
    );
    assert!(!lt.contains("panicked"), "{lt}");
}

#[test]
fn vfork_and_exec_agree_with_strace() {
    let err = against_strace(&testprog("fault_vfork"), &[], "vforked 3 sum 6\n", 0);
    assert_eq!(count_lines(&err, "vfork("), 3, "{err}");
    for k in 1..=3 {
        assert_eq!(
            count_lines(&err, &format!("+++ exited with {k} +++")),
            1,
            "{err}"
        );
    }
    let (st, out, lt) = run(
        &rltrace(),
        &["-f", testprog("fault_vfork").to_str().unwrap()],
    );
    assert_eq!(
        (st.code(), out.as_str()),
        (Some(0), "vforked 3 sum 6\n"),
        "{lt}"
    );
}

#[test]
fn reparented_grandchild_is_traced_to_its_end() {
    let err = against_strace(&testprog("fault_orphan"), &[], "orphan reparented 5\n", 0);
    // Its five getppid calls after the reparenting (one line each, whole
    // or the unfinished half when another process's line cut it), and its
    // exit.
    assert_eq!(count_lines(&err, "getppid("), 5, "{err}");
    assert_eq!(count_lines(&err, "+++ exited with 5 +++"), 1, "{err}");
    assert_eq!(count_lines(&err, "+++ exited with 0 +++"), 2, "{err}");
}

#[test]
fn ignored_and_blocked_signals_agree_with_strace() {
    let err = against_strace(&testprog("fault_sigall"), &[], "pending 2\ndone\n", 0);
    // Ignored ones are still shown to the tracer; blocked ones stay pending.
    for s in ["SIGUSR1", "SIGTERM", "SIGHUP"] {
        assert_eq!(count_lines(&err, &format!("--- {s} ")), 1, "{err}");
    }
    assert_eq!(count_lines(&err, "--- SIGUSR2 "), 0, "{err}");
}

#[test]
fn sigterm_to_rstrace_with_a_tracee_that_ignores_it() {
    // strace sends its own fatal signal to the command and detaches; the
    // command, which ignores it, runs on untraced.
    let mut child = common::named(rstrace())
        .arg(testprog("fault_sigall"))
        .arg("wait")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut pin = child.stdin.take().expect("stdin");
    let pout = lines_of(child.stdout.take().expect("stdout"));
    assert_eq!(next_line(&pout, "pending"), "pending 2");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let st = wait_bounded(&mut child, 30, "rstrace after SIGTERM");
    assert_eq!(st.code(), Some(128 + libc::SIGTERM));
    writeln!(pin, "more").expect("the program still reads");
    drop(pin);
    assert_eq!(next_line(&pout, "done"), "done");
}

#[test]
fn real_time_signals_on_an_alternate_stack() {
    let prog = testprog("fault_altstack");
    let want = "rt 20 sum 210 usr1 1 onstack 21\n";
    let err = against_strace(&prog, &[], want, 0);
    // All 20 queued real-time signals, each with its value, in order.
    let vals: Vec<String> = err
        .lines()
        .filter(|l| l.contains("--- SIGRT_") && l.contains("SI_QUEUE"))
        .map(|l| {
            l.split("si_int=")
                .nth(1)
                .unwrap_or("")
                .split(',')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(
        vals,
        (1..=20).map(|i| i.to_string()).collect::<Vec<_>>(),
        "{err}"
    );
    assert_eq!(count_lines(&err, "--- SIGUSR1 "), 1);
    assert_eq!(count_lines(&err, "rt_sigreturn("), 21, "{err}");
    let p = prog.to_str().unwrap();
    let (st, out, lt) = run(&rltrace(), &[p]);
    assert_eq!((st.code(), out.as_str()), (Some(0), want), "{lt}");
    let (st, out, bt) = run(
        &rtrace(),
        &[
            "break",
            "--count",
            "--backend",
            "ptrace",
            "handler",
            "--",
            p,
        ],
    );
    assert_eq!((st.code(), out.as_str()), (Some(0), want), "{bt}");
    let row = bt
        .lines()
        .find(|l| l.starts_with("handler "))
        .unwrap_or_else(|| panic!("{bt}"));
    assert_eq!(row.split_whitespace().nth(1), Some("21"), "{bt}");
}

#[test]
fn attaching_to_a_traced_process_names_the_tracer() {
    let trace = temp_path("fault-traced");
    let (mut child, pin, _pout, pid) = start_stop_prog(&rstrace(), &[], &trace);
    let p = pid.to_string();
    for (tool, args) in [
        (rstrace(), vec!["-p", &p]),
        (rltrace(), vec!["-p", &p]),
        (rtrace(), vec!["break", "main", "-p", &p]),
        (rtrace(), vec!["watch", "*0x1000", "-p", &p]),
    ] {
        let (st, _, err) = run(&tool, &args);
        assert_eq!(st.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("Operation not permitted"), "{args:?}: {err}");
        assert!(
            err.contains(&format!("already traced by process {}", child.id())),
            "{args:?}: {err}"
        );
    }
    drop(pin);
    assert!(wait_bounded(&mut child, 30, "rstrace").success());
    let _ = std::fs::remove_file(&trace);
}

#[test]
fn setuid_binary_run_by_an_unprivileged_user_gains_nothing() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || !have("setpriv") {
        eprintln!("skip: needs root (to install a setuid file) and setpriv");
        return;
    }
    let dir = temp_path("fault-suid");
    std::fs::create_dir_all(&dir).expect("dir");
    let prog = dir.join("fault_euid");
    std::fs::copy(testprog("fault_euid"), &prog).expect("copy");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o4755)).expect("chmod");
    let as_nobody = |args: &[&str]| -> Output {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("setpriv")
    };
    let p = prog.to_str().unwrap();
    let plain = as_nobody(&[p]);
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();
    if plain != "uid 65534 euid 0\n" {
        eprintln!("skip: setuid has no effect here (nosuid mount?): {plain}");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let (rs, rl, rt) = (rstrace(), rltrace(), rtrace());
    for args in [
        vec![rs.to_str().unwrap(), "-o", "/dev/null", p],
        vec![rl.to_str().unwrap(), "-o", "/dev/null", p],
        vec![
            rt.to_str().unwrap(),
            "break",
            "--count",
            "--backend",
            "ptrace",
            "main",
            "--",
            p,
        ],
    ] {
        let o = as_nobody(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{args:?}: {err}");
        // Traced, so the kernel ran it without the setuid bit.
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "uid 65534 euid 65534\n",
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn static_prog() -> Option<PathBuf> {
    let has_libc_a = [
        "/usr/lib/x86_64-linux-gnu/libc.a",
        "/usr/lib64/libc.a",
        "/usr/lib/libc.a",
    ]
    .iter()
    .any(|p| Path::new(p).exists());
    if !has_libc_a {
        eprintln!("skip: no static libc (libc6-dev's libc.a)");
        return None;
    }
    Some(testprog_variant("fault_plain", "static", &["-static"]))
}

#[test]
fn static_binary() {
    let Some(prog) = static_prog() else { return };
    let p = prog.to_str().unwrap();
    let (st, out, err) = run(&rstrace(), &["-e", "trace=getppid", p]);
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(out.ends_with(" counter 7\n"), "{out}");
    assert_eq!(count_lines(&err, "getppid()"), 7, "{err}");
    // Breakpoints and watchpoints by symbol work.
    let (st, out, err) = run(
        &rtrace(),
        &[
            "break",
            "--count",
            "--backend",
            "ptrace",
            "work",
            "ret:work",
            "--",
            p,
        ],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(out.ends_with(" counter 7\n"), "{out}");
    for spec in ["work", "ret:work"] {
        let row = err
            .lines()
            .find(|l| l.split_whitespace().next() == Some(spec));
        assert_eq!(
            row.and_then(|r| r.split_whitespace().nth(1)),
            Some("7"),
            "{err}"
        );
    }
    let (st, _, err) = run(&rtrace(), &["watch", "--count", "counter", "--", p]);
    assert_eq!(st.code(), Some(0), "{err}");
    let row = err
        .lines()
        .find(|l| l.ends_with(" counter"))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(row.split_whitespace().nth(4), Some("7"), "{err}");
}

#[test]
fn stripped_binary() {
    let prog = testprog_variant("fault_plain", "stripped", &["-no-pie", "-s"]);
    let p = prog.to_str().unwrap();
    let plain = Command::new(&prog).output().expect("run");
    let plain = String::from_utf8_lossy(&plain.stdout).into_owned();
    let addr = plain
        .split_whitespace()
        .nth(1)
        .expect("address")
        .to_string();
    // By address: exact.
    let spec = format!("*{addr}");
    let (st, out, err) = run(
        &rtrace(),
        &["break", "--count", "--backend", "ptrace", &spec, "--", p],
    );
    assert_eq!(
        (st.code(), out.as_str()),
        (Some(0), plain.as_str()),
        "{err}"
    );
    let row = err
        .lines()
        .find(|l| l.starts_with(&spec))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(row.split_whitespace().nth(1), Some("7"), "{err}");
    // By name: the function is named as not found (why: see
    // stripped_binary_by_name_says_it_has_no_symbol_table).
    let (_, _, err) = run(
        &rtrace(),
        &["break", "--count", "--backend", "ptrace", "work", "--", p],
    );
    assert!(err.contains("'work' matched nothing"), "{err}");
    // rltrace still finds the PLT calls through the dynamic symbols.
    let (st, out, err) = run(&rltrace(), &["-e", "getppid", p]);
    assert_eq!(
        (st.code(), out.as_str()),
        (Some(0), plain.as_str()),
        "{err}"
    );
    assert_eq!(count_lines(&err, "getppid()"), 7, "{err}");
}

/// A copy of fault_plain whose .debug_info is replaced by random bytes of
/// the same size (objcopy --update-section).
fn garbage_debug_info() -> Option<PathBuf> {
    if !have("objcopy") {
        eprintln!("skip: objcopy not installed");
        return None;
    }
    let prog = testprog("fault_plain");
    let data = std::fs::read(&prog).expect("read");
    let elf = object::read::File::parse(&*data).expect("elf");
    use object::{Object, ObjectSection};
    let size = elf
        .section_by_name(".debug_info")
        .expect(".debug_info")
        .size() as usize;
    // A fixed xorshift stream: the same garbage every run.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let garbage: Vec<u8> = (0..size)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let g = temp_path("fault-garbage");
    std::fs::write(&g, &garbage).expect("write garbage");
    let out = temp_path("fault-dwarf");
    let st = Command::new("objcopy")
        .arg(format!("--update-section=.debug_info={}", g.display()))
        .arg(&prog)
        .arg(&out)
        .status()
        .expect("objcopy");
    let _ = std::fs::remove_file(&g);
    assert!(st.success());
    Some(out)
}

#[test]
fn garbage_debug_info_warns() {
    let Some(prog) = garbage_debug_info() else {
        return;
    };
    let p = prog.to_str().unwrap();
    let (_, _, err) = run(
        &rtrace(),
        &["break", "--backend", "ptrace", "work", "--", p],
    );
    let _ = std::fs::remove_file(&prog);
    assert!(
        err.contains("warning") && err.contains("debug info"),
        "{err}"
    );
}

#[test]
fn garbage_debug_info_tracing_goes_on() {
    let Some(prog) = garbage_debug_info() else {
        return;
    };
    let p = prog.to_str().unwrap();
    let (st, out, err) = run(
        &rtrace(),
        &["break", "--backend", "ptrace", "work", "--", p],
    );
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(out.ends_with(" counter 7\n"), "{out}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("warning") && err.contains("debug info"),
        "{err}"
    );
    assert_eq!(count_lines(&err, " work"), 7, "{err}");
    let (st, _, err) = run(&rtrace(), &["watch", "--count", "counter", "--", p]);
    assert_eq!(st.code(), Some(0), "{err}");
    let row = err
        .lines()
        .find(|l| l.ends_with(" counter"))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(row.split_whitespace().nth(4), Some("7"), "{err}");
    let (st, _, err) = run(&rltrace(), &["-e", "getppid", p]);
    assert_eq!(st.code(), Some(0), "{err}");
    assert_eq!(count_lines(&err, "getppid()"), 7, "{err}");
    let (st, _, err) = run(&rstrace(), &["-e", "trace=getppid", p]);
    assert_eq!(st.code(), Some(0), "{err}");
    assert_eq!(count_lines(&err, "getppid()"), 7, "{err}");
    let _ = std::fs::remove_file(&prog);
}

#[test]
fn static_binary_rltrace_says_no_dynamic_imports() {
    let Some(prog) = static_prog() else { return };
    let p = prog.to_str().unwrap();
    // No dynamic imports: rltrace says so once, then runs the program to
    // its end and passes its exit status through (ltrace 0.7.3 prints
    // "Couldn't find .dynsym or .dynstr" and exits 1).
    let (st, out, err) = run(&rltrace(), &[p]);
    assert!(out.ends_with(" counter 7\n"), "{out}");
    assert_eq!(st.code(), Some(0), "{err}");
    assert_eq!(
        count_lines(&err, "no dynamic library imports (statically linked)"),
        1,
        "{err}"
    );
    assert!(err.contains(p), "{err}");
    assert!(!err.contains("getppid"), "{err}");
    // With -x the program's own functions are traced: no such message.
    let (st, out, err) = run(&rltrace(), &["-x", "work", p]);
    assert!(out.ends_with(" counter 7\n"), "{out}");
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(!err.contains("no dynamic"), "{err}");
    assert_eq!(count_lines(&err, "work("), 7, "{err}");
    // Nor with library calls turned off (-L), system calls traced (-S).
    let (st, _, err) = run(&rltrace(), &["-L", "-S", p]);
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(!err.contains("no dynamic"), "{err}");
    assert_eq!(count_lines(&err, "SYS_getppid("), 7, "{err}");
}

#[test]
fn stripped_binary_by_name_says_it_has_no_symbol_table() {
    let prog = testprog_variant("fault_plain", "stripped", &["-no-pie", "-s"]);
    let p = prog.to_str().unwrap();
    // Refused before the program starts (exit status 2), with the reason.
    let (st, out, err) = run(
        &rtrace(),
        &["break", "--count", "--backend", "ptrace", "work", "--", p],
    );
    assert_eq!(st.code(), Some(2), "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains(&format!(
            "'work' matched nothing ({p} has no symbol table: stripped?)"
        )),
        "{err}"
    );
    // A source line: no DWARF either.
    let (_, _, err) = run(
        &rtrace(),
        &["break", "--backend", "ptrace", "fault_plain.c:13", "--", p],
    );
    assert!(
        err.contains(&format!(
            "'fault_plain.c:13' matched nothing ({p} has no debug info"
        )),
        "{err}"
    );
    // A name missing from a program with its symbols: no such reason; nor
    // for a spec limited to a library.
    let plain = testprog("fault_plain");
    let (_, _, err) = run(
        &rtrace(),
        &[
            "break",
            "--backend",
            "ptrace",
            "no_such_function",
            "--",
            plain.to_str().unwrap(),
        ],
    );
    assert!(
        err.contains("'no_such_function' matched nothing (no such function in fault_plain "),
        "{err}"
    );
    let (_, _, err) = run(
        &rtrace(),
        &["break", "--backend", "ptrace", "libc.so.6:work", "--", p],
    );
    assert!(
        err.contains("'libc.so.6:work' matched nothing (libc.so.6 has no such function)\n"),
        "{err}"
    );
}

/// Waits until the trace file `trace` that `tool` writes holds `needle`.
fn wait_trace(trace: &Path, tool: &Child, needle: &str) {
    common::wait_file(trace, tool.id(), 30, needle, || {
        let text = std::fs::read_to_string(trace).unwrap_or_default();
        text.contains(needle).then_some(()).ok_or(text)
    });
}

/// Waits until `pid` sleeps in a syscall (blocked in its read): for a
/// tool that prints nothing as the call begins, nothing tells, so this
/// polls /proc.
fn wait_blocked(pid: u32) {
    poll_until(10, "blocked in a syscall", || {
        let asleep = std::fs::read_to_string(format!("/proc/{pid}/wchan")).is_ok_and(|w| w != "0");
        match proc_state(pid) {
            'S' if asleep => Ok(()),
            s => Err(format!("state {s}")),
        }
    });
}

/// `TOOL fault_stop`, the trace on a pipe (line by line, as strace
/// writes it): the program blocked in read(2) on its stdin is stopped
/// (SIGSTOP; the read is interrupted), continued once the group stop is
/// reported (SIGCONT: the read restarts), and killed blocked in the
/// restarted read. The trace from the SIGSTOP on.
fn stopped_then_killed(tool: &Path) -> String {
    let mut child = Command::new(tool)
        .arg(testprog("fault_stop"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let _pin = child.stdin.take().expect("stdin");
    let pout = lines_of(child.stdout.take().expect("stdout"));
    let trace = lines_of(child.stderr.take().expect("stderr"));
    let pid: u32 = next_line(&pout, "ready")
        .strip_prefix("ready ")
        .and_then(|p| p.parse().ok())
        .expect("ready PID");
    let mut text = String::new();
    let mut until = |needle: &str| loop {
        let l = next_line(&trace, needle);
        text.push_str(&l);
        text.push('\n');
        if l.starts_with(needle) {
            break;
        }
    };
    wait_blocked(pid);
    // SAFETY: signalling the program we started.
    unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
    until("--- stopped by SIGSTOP ---");
    // SAFETY: as above.
    unsafe { libc::kill(pid as i32, libc::SIGCONT) };
    until("--- SIGCONT ");
    wait_blocked(pid);
    // SAFETY: as above.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let st = wait_bounded(&mut child, 30, &tool.display().to_string());
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(st.signal(), Some(libc::SIGKILL), "{text}");
    text.extend(trace.iter().map(|l| l + "\n"));
    let from = text
        .find("--- SIGSTOP ")
        .unwrap_or_else(|| panic!("{text}"));
    text[from..].to_string()
}

#[test]
fn killed_after_stop_shows_the_unfinished_call_as_strace_does() {
    let text = stopped_then_killed(&rstrace());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[1], "--- stopped by SIGSTOP ---", "{text}");
    assert!(lines[2].starts_with("--- SIGCONT "), "{text}");
    assert!(
        lines[3].starts_with("read(0,  <unfinished ...>)") && lines[3].ends_with(" = ?"),
        "{text}"
    );
    assert_eq!(lines[4], "+++ killed by SIGKILL +++", "{text}");
    if have("strace") {
        // Signals come from this process: the lines are the same, byte
        // for byte.
        assert_eq!(text, stopped_then_killed(Path::new("strace")));
    } else {
        eprintln!("note: strace not installed; not compared");
    }
}
