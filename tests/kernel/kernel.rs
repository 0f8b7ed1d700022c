//! `rtrace kernel …` against this machine's real tracefs: tracepoints,
//! uprobes/uretprobes, the kprobe-missing error, the function tracer where
//! the kernel lets us, and cleanup after normal ends, SIGINT, SIGTERM and
//! SIGKILL + `rtrace kernel cleanup`.
//!
//! Parallel-safe: every rtrace run owns `instances/rtrace-PID` and the
//! group `rtrace_PID` of its own pid; checks look only at those names and
//! at global files rtrace never writes (set_event, current_tracer).

use crate::common;
use crate::kernel_util;

use common::testprog;
use kernel_util::{assert_clean, read, rtrace, run, text, tracefs, unique_path, Global};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Runs a tracepoint trace of k_mkdir and returns (event line, testprog pid).
fn mkdir_trace(root: &Path, json: bool) {
    let before = Global::snap(root);
    let prog = testprog("k_mkdir");
    let dir = unique_path("mkdir");
    let mut args = vec!["kernel", "trace", "-e", "syscalls:sys_enter_mkdirat"];
    if json {
        args.push("--json");
    }
    let mut child = Command::new(rtrace())
        .args(&args)
        .arg("--")
        .arg(&prog)
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let rpid = child.id();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut prog_pid = None;
    let mut ptr = None;
    let mut event = None;
    let mut json_lines = String::new();
    for l in lines.by_ref() {
        let l = l.unwrap();
        if l.starts_with("{\"") {
            json_lines.push_str(&l);
            json_lines.push('\n');
        }
        if let Some(p) = l.strip_prefix("pid=") {
            prog_pid = Some(p.parse::<i32>().unwrap());
        } else if let Some(p) = l.strip_prefix("path=0x") {
            ptr = Some(u64::from_str_radix(p, 16).unwrap());
        } else if l.contains("sys_enter_mkdirat") {
            event = Some(l);
            break;
        }
    }
    // Let the testprog exit only now: it kept the path readable until here.
    drop(child.stdin.take());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "rtrace failed: {err}");
    let (pid, ptr, ev) = (
        prog_pid.expect("testprog pid"),
        ptr.expect("testprog path address"),
        event.expect("mkdirat event"),
    );
    assert!(
        !rest.iter().any(|l| l.contains("sys_enter_mkdirat")),
        "one mkdirat only: {rest:?}"
    );
    if json {
        // The stream starts with its schema line and follows
        // docs/schema/kernel.schema.json.
        assert!(
            json_lines.starts_with("{\"type\":\"schema\",\"stream\":\"kernel\",\"version\":1}\n"),
            "{json_lines}"
        );
        let n = crate::common::schema::Schemas::load()
            .check_lines("kernel.schema.json", &json_lines)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(n, 2, "{json_lines}");
        let v: serde_json::Value = serde_json::from_str(&ev).unwrap();
        assert_eq!(v["pid"], pid);
        assert_eq!(v["system"], "syscalls");
        // The tracepoint records the pointer, not the string.
        assert_eq!(v["fields"]["pathname"], ptr);
        assert_eq!(v["fields"]["dfd"], -100);
        assert_eq!(v["fields"]["mode"], 0o750);
    } else {
        assert!(ev.contains(&format!("-{pid} ")), "{ev}");
        assert!(ev.contains(&format!(" pathname={ptr:#x} ")), "{ev}");
        assert!(ev.contains("dfd=-100 "), "{ev}");
        assert!(ev.contains(&format!("mode={}", 0o750)), "{ev}");
    }
    assert_clean(root, rpid, &before);
}

#[test]
fn tracepoint_mkdirat_sees_path_and_pid() {
    let Some(root) = tracefs() else { return };
    mkdir_trace(&root, false);
}

#[test]
fn tracepoint_json_lines_from_the_same_values() {
    let Some(root) = tracefs() else { return };
    mkdir_trace(&root, true);
}

#[test]
fn attach_to_pid_follows_its_children() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let prog = testprog("k_mkdir");
    let dir = unique_path("pid");
    // A shell that runs k_mkdir when told to (a line on its stdin).
    let mut sh = Command::new("sh")
        .arg("-c")
        .arg(r#"read go; "$0" "$1" </dev/null; read done"#)
        .arg(&prog)
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let shpid = sh.id().to_string();
    let mut rt = Command::new(rtrace())
        .args([
            "kernel",
            "trace",
            "-e",
            "syscalls:sys_enter_mkdirat",
            "-p",
            &shpid,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Notes (the pointer fields) come first; then rtrace is tracing.
    let mut err = BufReader::new(rt.stderr.take().unwrap());
    let mut ready = String::new();
    while !ready.contains("tracing") {
        ready.clear();
        assert!(err.read_line(&mut ready).unwrap() > 0, "no 'tracing' line");
    }
    let mut input = sh.stdin.take().unwrap();
    writeln!(input, "go").unwrap();
    let mut lines = BufReader::new(rt.stdout.take().unwrap()).lines();
    let ev = lines.next().expect("an event").unwrap();
    assert!(
        ev.contains("sys_enter_mkdirat") && ev.contains("dfd=-100"),
        "{ev}"
    );
    // The shell ends; rtrace notices its pid is gone and exits by itself.
    writeln!(input, "done").unwrap();
    drop(input);
    sh.wait().unwrap();
    let status = rt.wait().unwrap();
    assert!(status.success());
    assert_clean(&root, rt.id(), &before);
}

#[test]
fn filter_count_by_and_hist() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let prog = testprog_static_opens();
    let p = prog.to_str().unwrap();
    let ev = "syscalls:sys_enter_openat";
    let (o, pid) = run(&[
        "kernel",
        "trace",
        "-e",
        ev,
        "--filter",
        "flags == 0",
        "-c",
        "--",
        p,
        "300",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["300", ev]),
        "{out}"
    );
    assert_clean(&root, pid, &before);
    // A filter nothing passes.
    let (o, pid) = run(&[
        "kernel",
        "trace",
        "-e",
        ev,
        "--filter",
        "flags == 1",
        "-c",
        "--",
        p,
        "300",
    ]);
    let (out, _) = text(&o);
    assert!(!out.contains(ev), "{out}");
    assert_clean(&root, pid, &before);
    let (o, pid) = run(&["kernel", "trace", "-e", ev, "--by", "dfd", "--", p, "200"]);
    let (out, _) = text(&o);
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["200", "-100"]),
        "{out}"
    );
    assert_clean(&root, pid, &before);
    let (o, pid) = run(&[
        "kernel", "trace", "-e", ev, "--hist", "flags", "--", p, "50",
    ]);
    let (out, _) = text(&o);
    assert!(out.starts_with("@flags:\n[0]"), "{out}");
    assert!(out.lines().nth(1).unwrap().contains(" 50 |"), "{out}");
    assert_clean(&root, pid, &before);
}

fn testprog_static_opens() -> PathBuf {
    common::testprog_variant("k_opens", "static", &["-static"])
}

#[test]
fn uprobe_and_uretprobe_by_name_with_dwarf_args() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let prog = testprog("k_calls");
    let p = prog.to_str().unwrap();
    let n = 7;
    let (o, pid) = run(&[
        "kernel",
        "probe",
        &format!("u:{p}:compute n s"),
        &format!("ur:{p}:compute"),
        "--",
        p,
        &n.to_string(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let entries: Vec<&str> = out.lines().filter(|l| l.contains(" compute: ")).collect();
    let rets: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" compute__return: "))
        .collect();
    assert_eq!(entries.len(), n, "{out}");
    assert_eq!(rets.len(), n, "{out}");
    for i in 0..n {
        assert!(
            entries[i].ends_with(&format!(" n={i} s=\"k_calls\"")),
            "{}",
            entries[i]
        );
        // compute returns n * 3 - 7 + strlen("k_calls").
        assert!(rets[i].ends_with(&format!(" ret={}", i * 3)), "{}", rets[i]);
    }
    assert_clean(&root, pid, &before);
}

#[test]
fn uprobe_counts_exactly() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let prog = testprog("k_calls");
    let p = prog.to_str().unwrap();
    let (o, pid) = run(&[
        "kernel",
        "probe",
        &format!("u:{p}:compute $arg1"),
        "-c",
        "--",
        p,
        "1000",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let row = out
        .lines()
        .find(|l| l.ends_with(":compute"))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(row.split_whitespace().next(), Some("1000"), "{out}");
    assert_eq!(
        row.split_whitespace().nth(1),
        Some(format!("rtrace_{pid}:compute").as_str())
    );
    assert_clean(&root, pid, &before);
}

#[test]
fn kprobes_work_or_fail_clearly() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let (o, pid) = run(&["kernel", "probe", "k:do_mkdirat", "--", "true"]);
    let (_, err) = text(&o);
    if root.join("kprobe_events").exists() {
        assert!(o.status.success(), "{err}");
    } else {
        assert_eq!(o.status.code(), Some(1));
        assert!(
            err.contains("this kernel has no kprobes (CONFIG_KPROBES)"),
            "{err}"
        );
    }
    assert_clean(&root, pid, &before);
}

#[test]
fn ftrace_function_filter() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let prog = testprog("k_mkdir");
    let dir = unique_path("ft");
    let (o, pid) = run(&[
        "kernel",
        "ftrace",
        "-f",
        "do_mkdirat",
        "--",
        prog.to_str().unwrap(),
        &dir,
    ]);
    let (out, err) = text(&o);
    assert_clean(&root, pid, &before);
    if err.contains("refuses the function tracer") {
        eprintln!("skip: this kernel refuses the function tracer here: {err}");
        return;
    }
    assert!(o.status.success(), "{err}");
    assert!(
        out.lines().any(|l| l.contains("function: ip=do_mkdirat")),
        "{out}"
    );
}

#[test]
fn lists() {
    let Some(_root) = tracefs() else { return };
    let (o, _) = run(&["kernel", "list", "events", "sched:sched_swi*"]);
    assert_eq!(text(&o).0.trim(), "sched:sched_switch");
    let (o, _) = run(&["kernel", "list", "tracers"]);
    assert!(text(&o).0.lines().any(|l| l == "nop"));
    let (o, _) = run(&["kernel", "list", "nonsense"]);
    assert!(!o.status.success());
}

/// Starts a long-running probe session; returns it once the command runs
/// (the command prints "ready PID" only after rtrace released it).
fn start_long(prog: &Path) -> (Child, i32) {
    let p = prog.to_str().unwrap();
    let mut child = Command::new(rtrace())
        .args([
            "kernel",
            "probe",
            &format!("u:{p}:compute n"),
            "--",
            "sh",
            "-c",
        ])
        .arg("echo ready $$; exec sleep 600")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let sh = line
        .trim()
        .strip_prefix("ready ")
        .expect("ready line")
        .parse()
        .unwrap();
    (child, sh)
}

fn signal_cleans_up(sig: i32) {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let (mut child, _) = start_long(&testprog("k_calls"));
    let pid = child.id();
    assert!(root.join(format!("instances/rtrace-{pid}")).exists());
    assert!(read(&root, "uprobe_events").contains(&format!("rtrace_{pid}/compute")));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, sig) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + sig));
    assert_clean(&root, pid, &before);
}

#[test]
fn sigint_mid_trace_cleans_up() {
    signal_cleans_up(libc::SIGINT);
}

#[test]
fn sigterm_mid_trace_cleans_up() {
    signal_cleans_up(libc::SIGTERM);
}

#[test]
fn sigkill_then_cleanup_command() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let (mut child, sh) = start_long(&testprog("k_calls"));
    let pid = child.id();
    let _no_other_cleanup = common::tracefs_cleanup_lock();
    child.kill().unwrap();
    child.wait().unwrap();
    // SAFETY: the orphaned command was ours.
    unsafe { libc::kill(sh, libc::SIGKILL) };
    // The killed rtrace could not clean up: its leftovers are there.
    assert!(root.join(format!("instances/rtrace-{pid}")).exists());
    assert!(read(&root, "uprobe_events").contains(&format!("rtrace_{pid}/compute")));
    let (o, _) = run(&["kernel", "cleanup"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    // A concurrent test's cleanup may have removed them first; either way
    // they must be gone now.
    if !out.contains(&format!("removed instance rtrace-{pid}")) {
        eprintln!("note: a concurrent cleanup removed rtrace-{pid}: {out}");
    }
    assert_clean(&root, pid, &before);
}

#[test]
fn bad_arguments_leave_nothing() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let prog = testprog("k_calls");
    let p = prog.to_str().unwrap();
    for args in [
        vec!["kernel", "trace", "-e", "nosuch:event", "--", "true"],
        vec![
            "kernel",
            "trace",
            "-e",
            "sched:sched_switch",
            "--filter",
            "(((",
            "--",
            "true",
        ],
        vec![
            "kernel",
            "probe",
            &format!("u:{p}:no_such_function"),
            "--",
            "true",
        ],
        vec![
            "kernel",
            "probe",
            &format!("u:{p}:compute nosuchparam"),
            "--",
            "true",
        ],
    ] {
        let (o, pid) = run(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.is_empty());
        assert_clean(&root, pid, &before);
    }
    let _ = std::io::stderr().flush();
}
