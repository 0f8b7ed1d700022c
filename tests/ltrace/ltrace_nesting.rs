//! Two probes on one frame: `-e func1` stops at the program's PLT stub and
//! `-x func1` at the function the stub jumps to, both before the function's
//! first instruction, with one return address between them. rltrace used to
//! stop with `returned to the trampoline with no call pending` and kill the
//! program with SIGTRAP; ltrace 0.7.3 nests the two (`<... func1 resumed>`).
//! testprogs/lt_nest*.c are ltrace's libfilt test: a program calling a
//! library function that calls into a second library.

use crate::common;
use crate::ltrace_diff::{normalize, trace};
use crate::ltrace_util::{count_rows, rltrace};

use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds libltnest2.so, libltnest1.so (calling it) and the program `ltnest`
/// in `dir`; None (with the reason printed) without gcc.
fn nest_prog(dir: &Path) -> Option<PathBuf> {
    nest_prog_with(dir, &[])
}

/// [`nest_prog`] with `flags` given to every compile and link (`-no-pie`,
/// `-fno-plt`, `-Wl,-z,now`…).
pub(crate) fn nest_prog_with(dir: &Path, flags: &[&str]) -> Option<PathBuf> {
    if !common::have("gcc") {
        eprintln!("skip: gcc is not installed");
        return None;
    }
    std::fs::create_dir_all(dir).expect("temp dir");
    let src = common::workspace_dir().join("testprogs");
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    let gcc = |args: &[&str]| {
        let out = Command::new("gcc")
            .args(flags)
            .args(args)
            .current_dir(dir)
            .output()
            .expect("gcc");
        assert!(
            out.status.success(),
            "gcc {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let path = |f: &str| src.join(f).to_str().unwrap().to_string();
    gcc(&[
        "-shared",
        "-fPIC",
        "-O0",
        "-o",
        "libltnest2.so",
        &path("lt_nest2.c"),
    ]);
    gcc(&[
        "-shared",
        "-fPIC",
        "-O0",
        "-o",
        "libltnest1.so",
        &path("lt_nest1.c"),
        "-L.",
        "-lltnest2",
        &rpath,
    ]);
    gcc(&[
        "-O0",
        "-o",
        "ltnest",
        &path("lt_nest.c"),
        "-L.",
        "-lltnest1",
        &rpath,
    ]);
    Some(dir.join("ltnest"))
}

/// The regression itself, without ltrace: the program runs to its end,
/// every call returns through both probes, nothing is said about the
/// trampoline.
#[test]
fn plt_and_entry_probes_on_one_frame_nest() {
    let dir = std::env::temp_dir().join(format!("rltrace-nest-{}", std::process::id()));
    let Some(prog) = nest_prog(&dir) else {
        return;
    };
    let out = Command::new(rltrace())
        .args(["--backend=ptrace", "-efunc1", "-xfunc1"])
        .arg(&prog)
        .output()
        .expect("rltrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{out:?}\n{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "9\n");
    assert!(!err.contains("trampoline"), "{err}");
    let count = |s: &str| err.lines().filter(|l| l.contains(s)).count();
    assert_eq!(count("ltnest->func1("), 3, "{err}");
    assert_eq!(count("func1@libltnest1.so("), 3, "{err}");
    assert_eq!(count("<... func1 resumed>"), 3, "{err}");
    // The values: func1(i) = 2i + 1, at both probes.
    for (i, v) in [(0, 1), (1, 3), (2, 5)] {
        let inner = format!("func1@libltnest1.so({i}, ");
        assert!(
            err.lines()
                .any(|l| l.starts_with(&inner) && l.ends_with(&format!("= {v}"))),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same lines as ltrace 0.7.3 with `-e func1 -x func1`, each alone,
/// and the filters that select calls between the libraries (ltrace's
/// libfilt tests).
#[test]
fn plt_and_entry_probes_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rltrace-nest-lt-{}", std::process::id()));
    let Some(prog) = nest_prog(&dir) else {
        return;
    };
    let lt = PathBuf::from("ltrace");
    let mut failures = Vec::new();
    let sets: &[&[&str]] = &[
        &["-efunc1", "-xfunc1"],
        &["-efunc1"],
        &["-xfunc1"],
        // Calls one library makes into another: `libltnest1.so->func2(…)`.
        &["-efunc2@libltnest1.so"],
        &["-e@libltnest1.so"],
        &["-efunc*"],
        &["-efunc1+func2@libltnest1.so"],
        &["-efunc1", "-xfunc2"],
        &["-xfunc1", "-xfunc2"],
        &["-L", "-xfunc1"],
        &["-L", "-xfunc*"],
    ];
    for &opts in sets {
        let want = trace(&lt, opts, &prog);
        assert!(
            want.contains("func"),
            "ltrace {opts:?} traced nothing: {want}"
        );
        let got = trace(&rltrace(), opts, &prog);
        if normalize(&got) != normalize(&want) {
            failures.push(format!(
                "options {opts:?}\nrltrace:\n{got}\nltrace:\n{want}"
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same two probes with `rtrace break` (`ret:func1@plt` and
/// `ret:func1`), which shares the shadow stack: both returns reported, the
/// stub's after the function's, and the program ends normally.
#[test]
fn break_return_probes_on_one_frame_nest() {
    let dir = std::env::temp_dir().join(format!("rltrace-nest-bp-{}", std::process::id()));
    let Some(prog) = nest_prog(&dir) else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_rtrace"))
        .args(["break", "ret:func1@plt", "ret:func1", "--"])
        .arg(&prog)
        .output()
        .expect("rtrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{out:?}\n{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "9\n");
    assert!(
        !err.contains("trampoline") && !err.contains("SIGTRAP"),
        "{err}"
    );
    let rets: Vec<&str> = err
        .lines()
        .filter_map(|l| l.split_once("] ").map(|(_, r)| r.trim_start()))
        .filter(|r| r.starts_with("ret "))
        .collect();
    let want: Vec<String> = [1, 3, 5]
        .iter()
        .flat_map(|v| {
            [
                format!("ret func1 -> {v} ({v:#x})"),
                format!("ret func1@plt -> {v} ({v:#x})"),
            ]
        })
        .collect();
    let got: Vec<&str> = rets
        .iter()
        .map(|r| r.split(" in ").next().unwrap())
        .collect();
    assert_eq!(got, want, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-c` counts by function name, as ltrace does: a call seen at the PLT
/// stub and at the function's entry counts twice under `func1`, and calls
/// between the libraries count under their own names (not `caller->name`
/// or `name@lib`, as the lines show them).
#[test]
fn counts_by_name_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rltrace-nest-c-{}", std::process::id()));
    let Some(prog) = nest_prog(&dir) else {
        return;
    };
    let lt = PathBuf::from("ltrace");
    let sets: &[&[&str]] = &[
        &["-c", "-efunc*", "-xfunc1"],
        &["-c", "-L", "-xfunc*"],
        &["-c", "-xfunc1"],
    ];
    for &opts in sets {
        let want = trace(&lt, opts, &prog);
        let got = trace(&rltrace(), opts, &prog);
        assert!(!count_rows(&want).is_empty(), "{want}");
        assert_eq!(
            count_rows(&got),
            count_rows(&want),
            "{opts:?}\nrltrace:\n{got}\nltrace:\n{want}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
