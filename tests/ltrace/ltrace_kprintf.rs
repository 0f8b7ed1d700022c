//! printf-family calls under rltrace's kernel backend: their uprobes fetch
//! the format and raw argument words, and the line is made from them
//! (src/ltrace/uprobe/printf.rs). testprogs/ltk_printf.c traced by the
//! kernel backend prints what the ptrace backend prints, and what ltrace
//! 0.7.3 prints, with no ptrace breakpoint; a program holding a `%f`
//! format keeps its printf-family functions on ptrace (and still shows the
//! float: the format could be passed to any of them); a float
//! format made at run time is counted and warned about.

use crate::common;
use crate::ltrace_diff::{normalize, trace};
use crate::ltrace_kernel::{backend, both, run, same, tracefs};

use std::path::PathBuf;

/// ltk_printf, not PIE (ltrace 0.7.3 sees no call of a PIE program).
fn prog(variant: &str, flags: &[&str]) -> PathBuf {
    let mut f = vec!["-fno-builtin", "-no-pie"];
    f.extend_from_slice(flags);
    common::testprog_variant("ltk_printf", variant, &f)
}

#[test]
fn printf_family_by_uprobes_as_ptrace_and_ltrace() {
    let Some(_) = tracefs() else { return };
    let p = prog("nopie", &[]);
    let (b, _) = backend(&["--backend", "kernel"], &p, &[]);
    assert!(
        b.starts_with("rltrace: backend kernel: uprobes on 6 PLT stub(s)")
            && !b.contains("ptrace breakpoints"),
        "{b}"
    );
    for opts in [&[][..], &["-s", "5"], &["-T", "-n", "2"]] {
        let (k, pt) = both(opts, &p, &[]);
        same(&format!("{opts:?}"), &k, &pt);
    }
    let (k, _) = both(&[], &p, &[]);
    // What C makes of them (the buffers), and the arguments on the stack.
    for want in [
        "printf(\"%d %u %x %ld %c %s %p %p %%\\n\", -42, 3000000000, 0xbeef, -1234567890123, \
         'q', \"world\", 0x1234, 0) = 58",
        "sprintf(\"world-17-z-abc-   xy|\", \"%s-%d-%c-%x-%5.2s|\", \"world\", 17, 'z', 0xabc, \
         \"xyz\") = 21",
        "snprintf(\"truncat\", 8, \"%s:%05d\", \"truncated\", 12) = 15",
        "snprintf(\"18446744073709551615/-5/3   |44|\"..., 64, \"%lu/%lld/%-4d|%hhd|%hu\", \
         18446744073709551615, 18446744073709551611, 3, ',', 4464) = 36",
        "snprintf(nil, 0, \"%d\", 12345) ",
        "\"key\", 1, \"s3\", \"s4\", \"s5\", \"s6\") = 18",
        "\"a string longer than thirty-two \"...) = ",
        "3, 42, \"hello\", 4, 3, \"abc\", 1, 2, \"he\") = ",
    ] {
        assert!(k.trace.contains(want), "{want}\n{}", k.trace);
    }
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed (apt-get install ltrace)");
        return;
    }
    let theirs = trace(std::path::Path::new("ltrace"), &[], &p);
    assert_eq!(
        normalize(&k.trace),
        normalize(&theirs),
        "rltrace --backend kernel:\n{}\nltrace:\n{theirs}",
        k.trace
    );
}

#[test]
fn a_float_format_keeps_printf_on_ptrace() {
    let Some(_) = tracefs() else { return };
    let p = prog("float", &["-DWITH_FLOAT"]);
    let (b, _) = backend(&["--backend", "kernel"], &p, &[]);
    assert!(
        b.starts_with("rltrace: backend kernel: uprobes on 2 PLT stub(s)")
            && b.contains(
                "ptrace breakpoints on 4 (printf: the program has a floating-point format"
            ),
        "{b}"
    );
    let (k, pt) = both(&[], &p, &[]);
    same("float", &k, &pt);
    assert!(
        k.trace.contains("printf(\"%f %d\\n\", 1.500000, 3) "),
        "{}",
        k.trace
    );
}

#[test]
fn a_float_format_made_at_run_time_is_warned_about() {
    let Some(_) = tracefs() else { return };
    let p = prog("nopie", &[]);
    let r = run(&["--backend", "kernel"], &p, &["f"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("warning: 1 printf-family call(s) passed a format"),
        "{}",
        r.stderr
    );
    // The formats of the program are all shown as they are.
    let r = run(&["--backend", "kernel"], &p, &["d"]);
    assert!(!r.stderr.contains("rltrace:"), "{}", r.stderr);
}
