//! The decsys families (ioctl, scheduler, xattr, mount, IPC, capabilities,
//! ptrace, seccomp, memfd, landlock, keys and prctl):
//! each `testprogs/dec_sys_*.c` program makes its calls and prints, for
//! each, the exact line strace 6.1 prints (formatted by the program with the
//! real addresses, values and return codes). rstrace's output must contain
//! every such line; when strace is installed, strace's output must contain
//! them too, which checks the programs' expectations themselves.

use crate::common;

use common::{have, rstrace, testprog};
use std::path::Path;
use std::process::Command;

/// strace pads the ` = ` column; the expected lines do not.
fn unpad(line: &str) -> String {
    match line.find(") ") {
        Some(_) => {
            let mut out = String::with_capacity(line.len());
            let mut rest = line;
            // Collapse the run of spaces between the closing `)` and ` = `.
            while let Some(i) = rest.find(")  ") {
                let tail = rest[i + 1..].trim_start_matches(' ');
                if tail.starts_with("= ") {
                    out.push_str(&rest[..i + 1]);
                    out.push(' ');
                    rest = tail;
                } else {
                    out.push_str(&rest[..i + 3]);
                    rest = &rest[i + 3..];
                }
            }
            out.push_str(rest);
            out
        }
        None => line.to_string(),
    }
}

/// Runs `prog` under `tracer`; returns the program's stdout (the expected
/// lines) and the trace, or `None` when the program asked to be skipped (77).
fn run_traced(tracer: &Path, opts: &[&str], prog: &Path, tag: &str) -> Option<(String, String)> {
    let out = std::env::temp_dir().join(format!(
        "rtrace-decode-sys-{tag}-{}.trace",
        std::process::id()
    ));
    let res = Command::new(tracer)
        .args(opts)
        .arg("-o")
        .arg(&out)
        .arg(prog)
        .output()
        .expect("run tracer");
    let trace = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if res.status.code() == Some(77) {
        eprintln!("skip {tag}: the program could not set up its objects");
        return None;
    }
    assert!(
        res.status.success(),
        "{tag}: {} exited with {:?}\n{}",
        tracer.display(),
        res.status,
        String::from_utf8_lossy(&res.stderr)
    );
    Some((String::from_utf8(res.stdout).expect("utf-8 stdout"), trace))
}

/// Every expected line of `prog` is in `tracer`'s output.
fn check(tracer: &Path, opts: &[&str], name: &str, tag: &str) {
    let prog = testprog(name);
    let Some((expected, trace)) = run_traced(tracer, opts, &prog, tag) else {
        return;
    };
    let got: Vec<String> = trace.lines().map(unpad).collect();
    let want: Vec<&str> = expected.lines().collect();
    assert!(!want.is_empty(), "{name} printed no expected lines");
    let missing: Vec<&&str> = want
        .iter()
        .filter(|l| !got.iter().any(|g| g == *l))
        .collect();
    assert!(
        missing.is_empty(),
        "{tag}: {} of {} lines missing:\n{}\n--- trace ---\n{trace}",
        missing.len(),
        want.len(),
        missing
            .iter()
            .map(|l| format!("  {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// rstrace prints every line the program expects.
fn rstrace_check(name: &str) {
    check(&rstrace(), &[], name, &format!("rstrace-{name}"));
}

/// The installed strace prints them too (skipped without strace).
fn strace_check(name: &str) {
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    check(Path::new("strace"), &[], name, &format!("strace-{name}"));
}

macro_rules! family {
    ($rs:ident, $st:ident, $prog:literal) => {
        #[test]
        fn $rs() {
            rstrace_check($prog);
        }

        #[test]
        fn $st() {
            strace_check($prog);
        }
    };
}

family!(ioctl_rstrace, ioctl_strace, "dec_sys_ioctl");
family!(sched_rstrace, sched_strace, "dec_sys_sched");
family!(xattr_rstrace, xattr_strace, "dec_sys_xattr");
family!(mount_rstrace, mount_strace, "dec_sys_mount");
family!(ipc_rstrace, ipc_strace, "dec_sys_ipc");
family!(caps_rstrace, caps_strace, "dec_sys_caps");
family!(ptrace_rstrace, ptrace_strace, "dec_sys_ptrace");
family!(seccomp_rstrace, seccomp_strace, "dec_sys_seccomp");
family!(landlock_rstrace, landlock_strace, "dec_sys_landlock");
family!(keyctl_rstrace, keyctl_strace, "dec_sys_keyctl");
family!(prctl_rstrace, prctl_strace, "dec_sys_prctl");
family!(creds_rstrace, creds_strace, "dec_sys_creds");

#[test]
fn unpad_collapses_the_return_column() {
    assert_eq!(unpad("close(3)          = 0"), "close(3) = 0");
    assert_eq!(
        unpad("write(1, \")  x\", 4)   = 4"),
        "write(1, \")  x\", 4) = 4"
    );
}

/// NUMA policy calls (`src/syscall/numa.rs`): rstrace's lines equal
/// strace's (addresses normalised); without strace, the lines the decoder
/// must give on any kernel that has the calls.
#[test]
fn numa_matches_strace() {
    let prog = testprog("dec_numa");
    let set = "trace=mbind,set_mempolicy,get_mempolicy,migrate_pages,move_pages";
    let run = |tracer: &Path| {
        let o = Command::new(tracer)
            .args(["-e", set])
            .arg(&prog)
            .output()
            .expect("run tracer");
        assert!(o.status.success(), "{}", tracer.display());
        let addr = regex_lite::Regex::new(r"0x7[0-9a-f]{9,}").unwrap();
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .map(|l| unpad(&addr.replace_all(l, "ADDR")))
            .collect::<Vec<_>>()
    };
    let ours = run(&rstrace());
    if ours.iter().any(|l| l.contains("ENOSYS")) {
        eprintln!("skip: this kernel has no NUMA policy calls");
        return;
    }
    for want in [
        "set_mempolicy(MPOL_DEFAULT, NULL, 0) = 0",
        "set_mempolicy(0x63 /* MPOL_??? */, [0x00000000000001], 2) = -1 EINVAL (Invalid argument)",
        "mbind(ADDR, 4096, MPOL_BIND|MPOL_F_STATIC_NODES, [0x00000000000001], 65, MPOL_MF_MOVE|MPOL_MF_MOVE_ALL) = 0",
        "get_mempolicy(NULL, [0x00000000000001], 64, NULL, MPOL_F_MEMS_ALLOWED) = 0",
        "mbind(ADDR, 4096, MPOL_BIND, 0x8, 2, 0) = -1 EFAULT (Bad address)",
    ] {
        assert!(ours.iter().any(|l| l == want), "missing {want}:\n{ours:#?}");
    }
    if have("strace") {
        assert_eq!(ours, run(Path::new("strace")));
    }
}

/// ioprio_get/ioprio_set (`src/syscall/ioprio.rs`) against strace, and the
/// lines the decoder must give without it.
#[test]
fn ioprio_matches_strace() {
    let prog = testprog("dec_ioprio");
    let run = |tracer: &Path| {
        let o = Command::new(tracer)
            .args(["-e", "trace=ioprio_get,ioprio_set"])
            .arg(&prog)
            .output()
            .expect("run tracer");
        assert!(o.status.success(), "{}", tracer.display());
        // The program's own pid differs between the runs.
        let pid = regex_lite::Regex::new(r"IOPRIO_WHO_PROCESS, [1-9]\d*").unwrap();
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .map(|l| unpad(&pid.replace_all(l, "IOPRIO_WHO_PROCESS, PID")))
            .collect::<Vec<_>>()
    };
    let ours = run(&rstrace());
    for want in [
        "ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)) = 0",
        "ioprio_get(IOPRIO_WHO_PROCESS, 0) = 16388 (IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4))",
        "ioprio_set(0x9 /* IOPRIO_WHO_??? */, 0, IOPRIO_PRIO_VALUE(0x7 /* IOPRIO_CLASS_??? */, 1)) = -1 EINVAL (Invalid argument)",
    ] {
        assert!(ours.iter().any(|l| l == want), "missing {want}:\n{ours:#?}");
    }
    if have("strace") {
        assert_eq!(ours, run(Path::new("strace")));
    }
}
