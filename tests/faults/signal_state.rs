//! A traced command starts with exactly the signal dispositions and mask it
//! would have had untraced, under every tool, backend and option: rtrace
//! ignores fatal signals itself under `-o FILE` (`-I3`, as strace) and must
//! not pass that on (rltrace's kernel backend once started the command
//! with SIGHUP, SIGINT, SIGQUIT and SIGTERM ignored, so Ctrl-C and SIGTERM
//! could not stop it).
//!
//! Each case runs `sig_state` (it writes its SigBlk/SigIgn/SigCgt lines to
//! a file) untraced and under the tool, both started from the same state:
//! once clean, once with SIGHUP and SIGUSR1 ignored and SIGUSR2 blocked
//! (what a shell's `nohup` or a CI runner may hand down).

use crate::common;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

/// The starting state a test process hands to what it runs.
#[derive(Clone, Copy, Debug)]
enum Start {
    /// Nothing ignored or blocked.
    Clean,
    /// SIGHUP and SIGUSR1 ignored, SIGUSR2 blocked.
    Inherited,
}

fn with_start(cmd: &mut Command, start: Start) -> &mut Command {
    // SAFETY: signal(2) and sigprocmask(2) are async-signal-safe; only
    // this child's dispositions and mask change.
    unsafe {
        cmd.pre_exec(move || {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in 1..32 {
                if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                    libc::signal(sig, libc::SIG_DFL);
                }
            }
            if let Start::Inherited = start {
                libc::signal(libc::SIGHUP, libc::SIG_IGN);
                libc::signal(libc::SIGUSR1, libc::SIG_IGN);
                libc::sigaddset(&mut set, libc::SIGUSR2);
            }
            libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
            Ok(())
        })
    }
}

/// The Sig* lines `sig_state` wrote when run as `tool_args... PROG OUT`
/// (an empty `tool_args` runs it untraced).
fn state_under(tool: Option<&Path>, args: &[&str], start: Start, tag: &str) -> String {
    let prog = common::testprog("sig_state");
    let out = common::temp_path(&format!("sigstate-{tag}"));
    let mut cmd = match tool {
        Some(t) => {
            let mut c = Command::new(t);
            c.args(args);
            c
        }
        None => Command::new(&prog),
    };
    if tool.is_some() {
        cmd.arg(&prog);
    }
    cmd.arg(&out);
    with_start(&mut cmd, start);
    let o = cmd.output().expect("run");
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    assert!(
        text.contains("SigIgn:"),
        "{tag}: the program wrote no state ({:?}); stderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    text
}

/// Runs every case in `cases` (a tag and the tool's arguments before the
/// program) from both starting states and compares with the untraced run.
fn check(tool: &Path, cases: &[(&str, Vec<String>)]) {
    for start in [Start::Clean, Start::Inherited] {
        let want = state_under(None, &[], start, "untraced");
        let mut wrong = Vec::new();
        for (tag, args) in cases {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let got = state_under(Some(tool), &args, start, tag);
            if got != want {
                wrong.push(format!("{tag} ({start:?}):\n{got}"));
            }
        }
        assert!(
            wrong.is_empty(),
            "untraced ({start:?}):\n{want}\ndiffers under:\n{}",
            wrong.join("\n")
        );
    }
}

fn v(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn out_file(tag: &str) -> String {
    common::temp_path(&format!("sigstate-trace-{tag}"))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn rstrace_passes_the_start_state_on() {
    let o = out_file("rstrace");
    check(
        &common::rstrace(),
        &[
            ("plain", v(&["-qq", "-e", "trace=none"])),
            ("-o", v(&["-o", &o])),
            ("-f -o", v(&["-f", "-o", &o])),
            ("-I1", v(&["-I1", "-o", &o])),
            ("-I3", v(&["-I3"])),
            ("-I4 -o", v(&["-I4", "-o", &o])),
            ("filtered -o", v(&["-e", "trace=openat", "-o", &o])),
            ("-c", v(&["-c", "-o", &o])),
        ],
    );
    let _ = std::fs::remove_file(&o);
}

#[test]
fn rltrace_passes_the_start_state_on() {
    let o = out_file("rltrace");
    let mut cases = vec![
        ("ptrace", v(&["--backend", "ptrace"])),
        ("ptrace -o", v(&["--backend", "ptrace", "-o", &o])),
        ("auto -o", v(&["-o", &o])),
    ];
    if common::uprobe_tracefs().is_some() {
        cases.push(("kernel", v(&["--backend", "kernel"])));
        cases.push(("kernel -o", v(&["--backend", "kernel", "-o", &o])));
        cases.push(("kernel -c", v(&["--backend", "kernel", "-c", "-o", &o])));
    }
    check(&common::rltrace(), &cases);
    let _ = std::fs::remove_file(&o);
}

#[test]
fn rtrace_break_and_watch_pass_the_start_state_on() {
    let o = out_file("rtrace");
    let mut cases = vec![
        (
            "break ptrace",
            v(&["break", "report", "--backend", "ptrace", "--"]),
        ),
        ("break -o", v(&["break", "report", "-o", &o, "--"])),
        ("watch", v(&["watch", "touched", "--"])),
        ("watch -o", v(&["watch", "touched", "-o", &o, "--"])),
        ("record", v(&["record", "-o", &o, "--"])),
    ];
    if common::uprobe_tracefs().is_some() {
        cases.push((
            "break --count kernel",
            v(&["break", "report", "--count", "--backend", "kernel", "--"]),
        ));
        cases.push((
            "kernel trace",
            v(&["kernel", "trace", "-e", "sched:sched_process_exec", "--"]),
        ));
    }
    cases.push(("stat", v(&["stat", "-e", "task-clock", "--"])));
    check(&common::rtrace(), &cases);
    let _ = std::fs::remove_file(&o);
}
