//! CPU pinning under rltrace's ptrace backend: the program runs on
//! rltrace's CPU but its `sched_getaffinity` shows its untraced mask (with
//! `-S` hidden at the syscall stops, else through the engine's filter that
//! stops only the affinity calls), in threads and children; a thread that
//! sets its own mask keeps it; an unfollowed child is unpinned and its
//! affinity calls work; an attached process has every thread's mask back
//! after the detach.

use crate::common;
use crate::ltrace_util::{rltrace, run};
use common::affinity::{real_masks, real_of, single_cpu, thread_masks};

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

fn probe() -> PathBuf {
    // labs() through the PLT, not gcc's builtin.
    common::testprog_variant("pin_probe", "nobuiltin", &["-fno-builtin"])
}

#[test]
fn ptrace_backend_tracees_see_their_own_affinity_while_pinned() {
    let prog = probe();
    let plain = Command::new(&prog).output().expect("run pin_probe");
    assert!(plain.status.success());
    let want = String::from_utf8_lossy(&plain.stdout).into_owned();
    let plain = real_masks(&plain.stderr);
    if single_cpu(&real_of(&plain, "main")) {
        println!("skip: the program may run on one CPU only, nothing to pin");
        return;
    }
    for (opts, follow, labs) in [
        (&["--backend", "ptrace"][..], false, 4),
        (&["--backend", "ptrace", "-f"][..], true, 5),
        (&["--backend", "ptrace", "-S"][..], false, 4),
    ] {
        let r = run(opts, &prog, &[]);
        assert_eq!(r.code, Some(0), "{opts:?}: {}", r.stderr);
        assert_eq!(r.stdout, want, "{opts:?}");
        let rows = real_masks(r.stderr.as_bytes());
        let cpu = real_of(&rows, "main");
        assert!(single_cpu(&cpu), "{opts:?}: {rows:?}");
        assert_eq!(real_of(&rows, "thread"), cpu, "{opts:?}");
        assert_eq!(real_of(&rows, "own"), real_of(&plain, "own"), "{opts:?}");
        let child = real_of(&rows, "child");
        if follow {
            assert_eq!(child, cpu);
        } else {
            assert_eq!(child, real_of(&plain, "child"), "{opts:?}");
        }
        let calls = r.trace.lines().filter(|l| l.contains("labs(")).count();
        assert_eq!(calls, labs, "{opts:?}: {}", r.trace);
    }
    let r = run(&["--backend", "ptrace", "--no-cpu-pin"], &prog, &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let rows = real_masks(r.stderr.as_bytes());
    assert_eq!(real_of(&rows, "main"), real_of(&plain, "main"));
}

fn ask(pin: &mut ChildStdin, pout: &mut BufReader<ChildStdout>, n: u32) -> String {
    writeln!(pin, "go {n}").expect("write");
    let mut l = String::new();
    pout.read_line(&mut l).expect("sum");
    l
}

#[test]
fn attached_process_gets_its_masks_back_at_detach() {
    let mut p = Command::new(probe())
        .arg("attach")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut pin = p.stdin.take().expect("stdin");
    let mut pout = BufReader::new(p.stdout.take().expect("stdout"));
    let mut line = String::new();
    pout.read_line(&mut line).expect("ready");
    assert!(line.starts_with("ready "), "{line}");
    let pid = p.id();
    let before = thread_masks(pid);
    assert_eq!(before.len(), 2, "{before:?}");
    if before.iter().all(|(_, l)| single_cpu(l)) {
        println!("skip: the program may run on one CPU only, nothing to pin");
        drop(pin);
        assert!(p.wait().expect("wait").success());
        return;
    }
    let mut r = common::default_sigint(&mut Command::new(rltrace()))
        .args(["--backend", "ptrace", "-D", "1", "-o", "/dev/null"])
        .args(["-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .expect("rltrace");
    let mut rerr = BufReader::new(r.stderr.take().expect("stderr"));
    let mut said = String::new();
    while !said.contains("attached") {
        said.clear();
        assert!(
            rerr.read_line(&mut said).expect("read") > 0,
            "rltrace ended early"
        );
    }
    let during = thread_masks(pid);
    assert!(during.iter().all(|(_, l)| single_cpu(l)), "{during:?}");
    // Few enough calls that rtrace's report fits the pipe unread.
    assert_eq!(ask(&mut pin, &mut pout, 20), "sum 190\n");
    // SAFETY: kill with a live child's pid.
    unsafe { libc::kill(r.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    rerr.read_to_string(&mut rest).expect("rest");
    assert_eq!(r.wait().expect("wait").code(), Some(130), "{rest}");
    assert_eq!(thread_masks(pid), before, "{rest}");
    assert_eq!(ask(&mut pin, &mut pout, 10), "sum 45\n");
    drop(pin);
    let mut tail = String::new();
    pout.read_to_string(&mut tail).expect("tail");
    assert_eq!(tail, "bye\n");
    assert!(p.wait().expect("wait").success());
}
