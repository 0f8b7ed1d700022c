//! `-o FILE` of `rtrace kernel trace|probe|ftrace`: events go to the file and
//! the traced program's stdout is left alone; a file that cannot be created
//! is an error before anything is set up in tracefs.

use crate::common;
use crate::kernel_util;

use common::testprog;
use kernel_util::{assert_clean, run, text, tracefs, unique_path, Global};

#[test]
fn events_to_the_file_program_output_to_stdout() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let out = unique_path("out");
    let target = unique_path("target");
    let prog = testprog("k_openat");
    let (o, pid) = run(&[
        "kernel",
        "trace",
        "-e",
        "syscalls:sys_enter_openat",
        "-o",
        &out,
        "--",
        prog.to_str().unwrap(),
        &target,
    ]);
    let (stdout, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_clean(&root, pid, &before);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "only the program's output: {stdout}");
    let ptr = lines[0].strip_prefix("ptr=").expect("ptr= line");
    assert_eq!(lines[1], "opened");
    let events = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert!(
        events.lines().any(|l| l.contains("sys_enter_openat:")
            && l.contains(&format!(" filename={ptr} flags=193 "))),
        "{events}"
    );

    // probe: the same for uprobe events (and a summary with -c).
    let prog = testprog("k_calls");
    let p = prog.to_str().unwrap();
    let (o, pid) = run(&[
        "kernel",
        "probe",
        &format!("u:{p}:compute n"),
        "-o",
        &out,
        "--",
        p,
        "3",
    ]);
    let (stdout, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_clean(&root, pid, &before);
    // compute returns n * 3 - 7 + 7: 0 + 3 + 6.
    assert_eq!(stdout, "sum=9\n");
    let events = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let hits: Vec<&str> = events
        .lines()
        .filter(|l| l.contains(" compute: "))
        .collect();
    assert_eq!(hits.len(), 3, "{events}");
    assert!(hits[2].ends_with(" n=2"), "{events}");
}

#[test]
fn unwritable_output_file_is_an_error_before_tracefs_is_touched() {
    let Some(root) = tracefs() else { return };
    let before = Global::snap(&root);
    let bad = format!("{}/no/such/dir/events", unique_path("nodir"));
    let prog = testprog("k_calls");
    let p = prog.to_str().unwrap();
    let probe = format!("u:{p}:compute n");
    for args in [
        vec!["kernel", "trace", "-e", "syscalls:sys_enter_openat"],
        vec!["kernel", "probe", &probe],
        vec!["kernel", "ftrace", "-f", "do_mkdirat"],
    ] {
        let mut args = args.clone();
        args.extend(["-o", &bad, "--", p]);
        let (o, pid) = run(&args);
        let (stdout, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&format!("cannot write the output file '{bad}' (-o)"))
                && err.contains("No such file or directory"),
            "{args:?}: {err}"
        );
        // The command never ran.
        assert_eq!(stdout, "", "{args:?}");
        assert_clean(&root, pid, &before);
    }
}
