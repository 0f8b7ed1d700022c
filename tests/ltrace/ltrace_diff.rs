//! rltrace against ltrace 0.7.3 on a program where ltrace works (a lazily
//! bound PIE calling functions ltrace.conf knows): the same lines after
//! normalising addresses, times and alignment. Skips when ltrace is not
//! installed (`apt-get install ltrace`).

use crate::common;
use crate::ltrace_util::{count_rows, rltrace, run_cmd};

use std::path::{Path, PathBuf};
use std::process::Command;
/// The `-o` trace of `TOOL OPTS PROG` (rltrace or ltrace), which must
/// not die of a signal.
pub(crate) fn trace(tool: &Path, opts: &[&str], prog: &Path) -> String {
    let r = run_cmd(Command::new(tool), opts, prog, &[]);
    assert!(r.code.is_some(), "{tool:?} died");
    r.trace
}

/// Addresses, pids, times and alignment spaces made equal.
pub(crate) fn normalize(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut words: Vec<String> = Vec::new();
        for w in line.split(' ').filter(|w| !w.is_empty()) {
            let digits_dot = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_digit() || c == '.' || c == ':')
            };
            let w = if digits_dot(w) && (w.contains('.') || w.contains(':')) {
                "TIME".to_string()
            } else if w.starts_with('<') && w.ends_with('>') && digits_dot(&w[1..w.len() - 1]) {
                "<TIME>".to_string()
            } else {
                w.to_string()
            };
            words.push(w);
        }
        out.push_str(&common::normalize(&words.join(" ")));
        out.push('\n');
    }
    out
}

#[test]
fn same_output_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    // A copy of its own: the other test's rltrace -c puts uprobes in the
    // file (kernel backend), which ltrace's run of it must not meet.
    let prog = common::PrivateCopy::new(&common::testprog_variant(
        "lt_diff",
        "lazy",
        &["-fno-builtin"],
    ));
    let rl = rltrace();
    let lt = PathBuf::from("ltrace");
    let sets: &[&[&str]] = &[
        &[],
        // ltrace 0.7.3 cannot name the PLT slots of today's libc (its
        // `.plt.sec`), so libc's own calls to malloc are left out with @MAIN.
        &["-e", "malloc@MAIN+free@MAIN"],
        &["-e", "str*@MAIN"],
        &["-e", "@MAIN-free"],
        &["-i"],
        &["-T"],
        &["-r"],
        &["-tt"],
        &["-ttt"],
        &["-s", "3"],
        &["-a", "30"],
        &["-L"],
    ];
    for opts in sets {
        let want = trace(&lt, opts, &prog);
        if want.is_empty() {
            eprintln!("skip {opts:?}: ltrace wrote nothing (is ptrace allowed?)");
            continue;
        }
        let got = trace(&rl, opts, &prog);
        assert_eq!(
            normalize(&got),
            normalize(&want),
            "options {opts:?}\nrltrace:\n{got}\nltrace:\n{want}"
        );
    }
}

#[test]
fn same_counts_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    // A copy of its own: the other test's rltrace -c puts uprobes in the
    // file (kernel backend), which ltrace's run of it must not meet.
    let prog = common::PrivateCopy::new(&common::testprog_variant(
        "lt_diff",
        "lazy",
        &["-fno-builtin"],
    ));
    let rl = rltrace();
    let want = trace(Path::new("ltrace"), &["-c"], &prog);
    let got = trace(&rl, &["-c"], &prog);
    assert!(!count_rows(&want).is_empty(), "{want}");
    assert_eq!(
        count_rows(&got),
        count_rows(&want),
        "rltrace:\n{got}\nltrace:\n{want}"
    );
}

/// Prototypes for `testprogs/lt_outparam.c` (out-parameters, an array).
const OUTPARAM_CONF: &str = "int k_out(int, +int*, addr);
int k_only(+int*, addr);
int k_arr(array(int, arg2)*, int);
int puts(string);
";

/// Builds `lt_outlib.c` as a library and `lt_outparam.c` against it in a
/// fresh directory; returns the program (named `ltoutp`) and the prototype
/// file, or None (with the reason printed) when gcc is missing.
fn outparam_prog(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    if !common::have("gcc") {
        eprintln!("skip: gcc is not installed");
        return None;
    }
    std::fs::create_dir_all(dir).expect("temp dir");
    let src = common::workspace_dir().join("testprogs");
    let gcc = |args: &[&str]| {
        let out = Command::new("gcc")
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
    let lib_c = src.join("lt_outlib.c");
    gcc(&[
        "-shared",
        "-fPIC",
        "-O0",
        "-o",
        "libltout.so",
        lib_c.to_str().unwrap(),
    ]);
    let main_c = src.join("lt_outparam.c");
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    gcc(&[
        "-O0",
        "-fno-builtin",
        "-o",
        "ltoutp",
        main_c.to_str().unwrap(),
        "-L.",
        "-lltout",
        &rpath,
    ]);
    let conf = dir.join("ltoutp.conf");
    std::fs::write(&conf, OUTPARAM_CONF).expect("write conf");
    Some((dir.join("ltoutp"), conf))
}

/// Out-parameters shown at a return that another line interrupted keep
/// ltrace's separator (`<... k_out resumed> , 5, 0x…) = 1`); `-A N` limits
/// arrays as ltrace's does; `@PROG` (the program's own file name) selects
/// the calls the main program makes.
#[test]
fn resumed_out_params_array_limit_and_prog_name_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rltrace-diff-outp-{}", std::process::id()));
    let Some((prog, conf)) = outparam_prog(&dir) else {
        return;
    };
    let conf = conf.to_str().unwrap().to_string();
    let rl = rltrace();
    let lt = PathBuf::from("ltrace");
    let sets: &[&[&str]] = &[
        &[],
        &["-A", "2"],
        &["-A", "0"],
        &["-A", "10"],
        &["-e", "puts@ltoutp"],
        &["-e", "k_*@ltoutp"],
        &["-e", "*@ltoutp-puts"],
        &["-e", "k_arr@libltout.so"],
    ];
    let mut failures = Vec::new();
    let mut checked = 0;
    for opts in sets {
        let mut all = vec!["-F", conf.as_str()];
        all.extend_from_slice(opts);
        let want = trace(&lt, &all, &prog);
        if want.is_empty() {
            eprintln!("skip {opts:?}: ltrace wrote nothing (is ptrace allowed?)");
            continue;
        }
        checked += 1;
        if opts.is_empty() {
            // The case this is about occurs (another line inside k_out).
            assert!(want.contains("<... k_out resumed> , "), "{want}");
        }
        let got = trace(&rl, &all, &prog);
        if normalize(&got) != normalize(&want) {
            failures.push(format!(
                "options {opts:?}\nrltrace:\n{got}\nltrace:\n{want}"
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{checked} option sets compared");
}
