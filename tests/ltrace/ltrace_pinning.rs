//! CPU pinning under rltrace's ptrace backend: the program runs on
//! rltrace's CPU but its `sched_getaffinity` shows its untraced mask (with
//! `-S` hidden at the syscall stops, else through the engine's filter that
//! stops only the affinity calls), in threads and children; a thread that
//! sets its own mask keeps it; an unfollowed child is unpinned and its
//! affinity calls work; an attached process has every thread's mask back
//! after the detach.

use crate::common;
use crate::ltrace_util::{rltrace, run};
use common::affinity::{attach_and_detach, real_masks, real_of, single_cpu};

use std::path::PathBuf;
use std::process::Command;

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

#[test]
fn attached_process_gets_its_masks_back_at_detach() {
    let args = ["--backend", "ptrace", "-D", "1", "-o", "/dev/null"];
    attach_and_detach(&rltrace(), &args, "attached", &probe());
}
