//! Self-tests of the shared integration-test helpers in `tests/common/`.

use crate::common;

use common::{have, normalize, testprog, testprog_variant};
use std::process::Command;

#[test]
fn normalize_pid_prefixes() {
    assert_eq!(
        normalize("[pid 12345] getppid() = 1\n[pid  7] +++ exited with 0 +++\n"),
        "[pid PID] getppid() = 1\n[pid PID] +++ exited with 0 +++\n"
    );
    // strace -f -o FILE writes a bare pid column instead.
    assert_eq!(
        normalize("4242 write(1, \"hi\", 2) = 2\n4243 +++ exited with 3 +++\n"),
        "PID write(1, \"hi\", 2) = 2\nPID +++ exited with 3 +++\n"
    );
}

#[test]
fn normalize_signal_and_exit_lines() {
    let line = "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=31337, si_uid=0, si_status=0} ---\n";
    assert_eq!(
        normalize(line),
        "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=PID, si_uid=0, si_status=0} ---\n"
    );
    // Exit codes and signal numbers are kept.
    assert_eq!(
        normalize("+++ exited with 42 +++"),
        "+++ exited with 42 +++"
    );
    assert_eq!(
        normalize("+++ killed by SIGKILL +++\n"),
        "+++ killed by SIGKILL +++\n"
    );
    assert_eq!(
        normalize("strace: Process 99 attached\n"),
        "strace: Process PID attached\n"
    );
    // si_pid outside a signal line is an argument and stays.
    assert_eq!(
        normalize("rt_sigqueueinfo(5, SIGUSR1, {si_pid=12}) = 0"),
        "rt_sigqueueinfo(5, SIGUSR1, {si_pid=12}) = 0"
    );
}

#[test]
fn normalize_addresses() {
    assert_eq!(
        normalize("mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f3a2b1c0000\n"),
        "mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, 3, 0) = 0xADDR\n"
    );
    assert_eq!(
        normalize("brk(0x55d0c0ffe000) = 0x55d0c0ffe000"),
        "brk(0xADDR) = 0xADDR"
    );
    // Short hex values are flags or sizes, not addresses.
    assert_eq!(normalize("x=0x1f y=0xfffff"), "x=0x1f y=0xfffff");
    // Not at a word start, not lowercase hex, or running into a word: kept.
    assert_eq!(normalize("a0x1234567"), "a0x1234567");
    assert_eq!(normalize("0xABCDEF12"), "0xABCDEF12");
    assert_eq!(normalize("0x123456zz"), "0x123456zz");
}

#[test]
fn normalize_keeps_other_text() {
    let text = "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3\n% time  calls\n100.00 1 total\nünïcode 0x12345\n";
    assert_eq!(normalize(text), text);
    assert_eq!(normalize(""), "");
}

#[test]
fn have_finds_sh() {
    assert!(have("sh"));
    assert!(have("/bin/sh"));
    assert!(!have("rtrace-no-such-tool"));
    assert!(!have("/"));
}

#[test]
fn testprog_builds_once_under_concurrency() {
    let paths: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| testprog_variant("bench_syscalls", "selftest", &["-O1"])))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(paths.windows(2).all(|w| w[0] == w[1]));
    assert!(paths[0].ends_with("testprogs/bench_syscalls-selftest"));
    let out = Command::new(&paths[0]).args(["10", "3"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "bench_syscalls ok 10\n"
    );

    let plain = testprog("bench_syscalls");
    assert!(plain.ends_with("testprogs/bench_syscalls"));
    assert!(plain.is_file());
}
