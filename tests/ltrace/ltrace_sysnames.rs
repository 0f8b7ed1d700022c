//! The name `-S` gives every system call number, against ltrace 0.7.3:
//! testprogs/lt_sysnames.c makes each number from 0 to 470 once (a seccomp
//! filter refuses them all with ENOSYS, so none has an effect), built
//! 64-bit and 32-bit. Both tools must print the same `SYS_…` names in the
//! same order: ltrace's tables end at `process_vm_writev` and leave holes
//! (`SYS_260`), and name some calls the old way (`SYS_pread`,
//! `SYS_madvise1`).
//!
//! Only names are compared. ltrace 0.7.3 reads an i386 program's third
//! and later arguments from the wrong place (it prints `SYS_read(0, nil,
//! 4158944967)` for `read(0, NULL, 0)`) and zero-extends an i386 return
//! value (`0xffffffda` for -38); rltrace prints the values the program
//! passed and got.

use crate::common;
use crate::ltrace_util::{run, run_cmd, Run};

use std::path::Path;
use std::process::Command;

fn names(r: &Run) -> Vec<&str> {
    r.trace
        .lines()
        .filter(|l| l.starts_with("SYS_"))
        .map(|l| l.split('(').next().unwrap_or(l))
        .collect()
}

fn same_names_as_ltrace(prog: &Path) {
    let theirs = run_cmd(Command::new("ltrace"), &["-S"], prog, &[]);
    let ours = run(&["-S"], prog, &[]);
    assert_eq!(ours.code, Some(0), "rltrace: {}", ours.stderr);
    let (t, o) = (names(&theirs), names(&ours));
    // Every number was made (and the start-up calls besides).
    assert!(
        t.len() > 470,
        "ltrace saw {} calls:\n{}",
        t.len(),
        theirs.trace
    );
    for (i, (a, b)) in t.iter().zip(&o).enumerate() {
        assert_eq!(
            a,
            b,
            "call #{i} of {}: ltrace {a}, rltrace {b}",
            prog.display()
        );
    }
    assert_eq!(t.len(), o.len(), "calls of {}", prog.display());
}

#[test]
fn every_number_named_as_ltrace_64_bit() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    same_names_as_ltrace(&common::testprog("lt_sysnames"));
}

#[test]
fn every_number_named_as_ltrace_32_bit() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    if !common::m32() {
        return;
    }
    same_names_as_ltrace(&common::testprog_variant("lt_sysnames", "m32", &["-m32"]));
}
