//! `-x` (and the PLT calls around it) on the builds today's toolchains
//! make: a non-PIE lazily bound program (where ltrace 0.7.3 works), PIE,
//! BIND_NOW (`-Wl,-z,now`), IBT (`-fcf-protection`: `endbr64` at every
//! function's entry, calls through `.plt.sec`) and `-fno-plt` (calls
//! through `call *func@GOTPCREL(%rip)`, no stub at all). rltrace must
//! print the same lines on every one; ltrace 0.7.3 sees no call through
//! `.plt.sec` or the GOT, so its lines on the non-PIE build are the oracle
//! for all five. testprogs/lt_nest*.c: a program calling a library function
//! that calls a second library.

use crate::common;
use crate::ltrace_diff::{normalize, trace};
use crate::ltrace_nesting::nest_prog_with;

use std::path::PathBuf;

/// (name, gcc flags for every object) of the builds.
const BUILDS: &[(&str, &[&str])] = &[
    ("nopie-lazy", &["-no-pie"]),
    ("pie", &["-fpie", "-pie"]),
    ("now", &["-Wl,-z,now"]),
    ("ibt", &["-fcf-protection=full", "-Wl,-z,ibtplt"]),
    ("noplt", &["-fno-plt"]),
];

/// `-x` alone, beside `-e` on the same function and on others, on the
/// program's `main` and across the libraries.
const SETS: &[&[&str]] = &[
    &["-xfunc1"],
    &["-efunc1", "-xfunc1"],
    &["-xmain"],
    &["-L", "-xmain", "-xfunc1"],
    &["-xfunc*"],
    &["-efunc1", "-xfunc2"],
    &["-xfunc1", "-xfunc2"],
    &["-efunc2@libltnest1.so"],
];

#[test]
fn x_lines_same_on_every_build_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    let root = std::env::temp_dir().join(format!("rltrace-builds-{}", std::process::id()));
    let mut progs = Vec::new();
    for (name, flags) in BUILDS {
        let Some(p) = nest_prog_with(&root.join(name), flags) else {
            return;
        };
        progs.push((*name, p));
    }
    let rl = PathBuf::from(env!("CARGO_BIN_EXE_rltrace"));
    let lt = PathBuf::from("ltrace");
    let mut failures = Vec::new();
    for &opts in SETS {
        let want = normalize(&trace(&lt, opts, &progs[0].1));
        assert!(
            want.contains("func"),
            "ltrace {opts:?} traced nothing: {want}"
        );
        for (name, prog) in &progs {
            let got = normalize(&trace(&rl, opts, prog));
            if got != want {
                failures.push(format!(
                    "{opts:?} on the {name} build\nrltrace:\n{got}\nltrace (non-PIE, lazy):\n{want}"
                ));
            }
        }
    }
    // The builds are what they say: ltrace misses calls of the IBT build
    // (it stops at the lazy `.plt` stub, which a bound `.plt.sec` stub no
    // longer passes: only the first call) and every call of the `-fno-plt`
    // one, which rltrace sees (three, above).
    for name in ["ibt", "noplt"] {
        let prog = &progs.iter().find(|p| p.0 == name).unwrap().1;
        let lt_lines = trace(&lt, &["-efunc1"], prog);
        assert!(
            common::count_lines(&lt_lines, "func1(") < 3,
            "{name}: ltrace saw every call: {lt_lines}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `-x` on the program's own functions (testprogs/lt_where.c) built with
/// optimisation, IBT (`endbr64` first), BIND_NOW, `-fno-plt` and no frame
/// pointer: the same lines as ltrace 0.7.3 on the same build (with `-L`
/// ltrace needs no PLT; the arguments past the first are whatever the
/// registers hold, which differs between builds).
#[test]
fn x_on_own_functions_of_optimised_builds_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    let rl = PathBuf::from(env!("CARGO_BIN_EXE_rltrace"));
    let lt = PathBuf::from("ltrace");
    let builds: &[(&str, &[&str])] = &[
        ("nopie", &["-fno-builtin", "-no-pie"]),
        (
            "O2-ibt-now",
            &[
                "-fno-builtin",
                "-O2",
                "-fcf-protection=full",
                "-Wl,-z,ibtplt",
                "-Wl,-z,now",
            ],
        ),
        (
            "O2-noplt-nofp",
            &["-fno-builtin", "-O2", "-fno-plt", "-fomit-frame-pointer"],
        ),
    ];
    for (name, flags) in builds {
        let prog = common::PrivateCopy::new(&common::testprog_variant("lt_where", name, flags));
        for opts in [
            &["-L", "-x", "inner", "-x", "outer"][..],
            &["-L", "-x", "*er"],
        ] {
            let want = trace(&lt, opts, &prog);
            assert!(want.contains("inner("), "ltrace {opts:?}: {want}");
            let got = trace(&rl, opts, &prog);
            assert_eq!(
                normalize(&got),
                normalize(&want),
                "{opts:?} on {name}\nrltrace:\n{got}\nltrace:\n{want}"
            );
        }
    }
}
