//! CPU pinning under `rtrace break` and `rtrace watch`: the program runs on
//! rtrace's CPU (its real mask, from /proc, is one CPU) but its
//! `sched_getaffinity` shows the mask it has untraced, in every thread and
//! in children; a thread that sets its own mask keeps it; an unfollowed
//! child is unpinned and its affinity calls still work; a process attached
//! with -p has every thread's mask back after the detach.

use crate::common;
use common::affinity::{attach_and_detach, real_masks as real, real_of, single_cpu};

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run(tool_args: &[&str], prog: &Path) -> Output {
    Command::new(common::rtrace())
        .args(tool_args)
        .arg("--")
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace")
}

/// The untraced run, or `None` (with a skip line) when the program may
/// use a single CPU: there is nothing to pin then.
fn untraced(prog: &Path) -> Option<(String, Vec<(String, String)>)> {
    let o = Command::new(prog).output().expect("run pin_probe");
    assert!(o.status.success());
    let rows = real(&o.stderr);
    if single_cpu(&real_of(&rows, "main")) {
        println!("skip: the program may run on one CPU only, nothing to pin");
        return None;
    }
    Some((String::from_utf8_lossy(&o.stdout).into_owned(), rows))
}

fn count_of(stderr: &[u8], spec: &str) -> Option<u64> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "count" && v["spec"] == spec)
        .and_then(|v| v["hits"].as_u64())
}

#[test]
fn break_tracees_see_their_own_affinity_while_pinned() {
    let prog = common::testprog("pin_probe");
    let Some((want, plain)) = untraced(&prog) else {
        return;
    };
    for (follow, hits) in [(false, 4), (true, 5)] {
        let mut args = vec!["break", "--backend", "ptrace", "--count", "--json", "tick"];
        if follow {
            args.insert(1, "-f");
        }
        let o = run(&args, &prog);
        assert!(o.status.success(), "{o:?}");
        // What sched_getaffinity shows is the untraced mask, everywhere.
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "-f {follow}");
        let rows = real(&o.stderr);
        // Pinned meanwhile: one CPU, in the main thread and a new one.
        let cpu = real_of(&rows, "main");
        assert!(single_cpu(&cpu), "{rows:?}");
        assert_eq!(real_of(&rows, "thread"), cpu);
        assert_eq!(real_of(&rows, "main again"), cpu);
        // A thread that set its own mask keeps it.
        assert_eq!(real_of(&rows, "own"), real_of(&plain, "own"));
        // A followed child is pinned; an unfollowed one is let go with its
        // own mask (and its affinity calls work: the output matched).
        let child = real_of(&rows, "child");
        if follow {
            assert_eq!(child, cpu);
        } else {
            assert_eq!(child, real_of(&plain, "child"));
        }
        // Every hit counted, in every thread (and the child with -f).
        assert_eq!(count_of(&o.stderr, "tick"), Some(hits), "{o:?}");
    }
    // --no-cpu-pin: the program runs where the scheduler puts it.
    let o = run(
        &[
            "break",
            "--no-cpu-pin",
            "--backend",
            "ptrace",
            "--count",
            "tick",
        ],
        &prog,
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    assert_eq!(real_of(&real(&o.stderr), "main"), real_of(&plain, "main"));
}

#[test]
fn watch_tracees_see_their_own_affinity_while_pinned() {
    let prog = common::testprog("pin_probe");
    let Some((want, plain)) = untraced(&prog) else {
        return;
    };
    let o = run(&["watch", "-c", "counter"], &prog);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    let rows = real(&o.stderr);
    let cpu = real_of(&rows, "main");
    assert!(single_cpu(&cpu), "{rows:?}");
    assert_eq!(real_of(&rows, "thread"), cpu);
    assert_eq!(real_of(&rows, "own"), real_of(&plain, "own"));
    // watch does not follow forks: the child is let go unpinned.
    assert_eq!(real_of(&rows, "child"), real_of(&plain, "child"));
    let o = run(&["watch", "--no-cpu-pin", "-c", "counter"], &prog);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(real_of(&real(&o.stderr), "main"), real_of(&plain, "main"));
}

/// `pin_probe attach` started and ready: the child, its stdin and stdout.
#[test]
fn break_attached_process_gets_its_masks_back_at_detach() {
    let prog = common::testprog("pin_probe");
    attach_and_detach(
        &common::rtrace(),
        &["break", "--count", "tick"],
        "attached",
        &prog,
    );
}

#[test]
fn watch_attached_process_gets_its_masks_back_at_detach() {
    // Armed in both threads: attached and pinned.
    let prog = common::testprog("pin_probe");
    let args = ["watch", "--json", "counter"];
    attach_and_detach(&common::rtrace(), &args, "\"armed\"", &prog);
}
