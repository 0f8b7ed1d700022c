//! Programs in C++ and Rust. C++ (testprogs/lt_cxx.cc, g++): `-C`
//! demangles as ltrace 0.7.3 does (`operator new[](unsigned long)(16, …)`),
//! compared with ltrace. Rust (testprogs/lt_rust.rs, `rustc -C
//! opt-level=1`): its libc calls go through the GOT with no PLT stub, which
//! ltrace 0.7.3 never sees; rltrace records them, and its Rust functions
//! under `-x` and in `-w` frames are demangled with `-C`.

use crate::common;
use crate::ltrace_diff::{normalize, trace};

use std::path::{Path, PathBuf};
use std::process::Command;

fn rltrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rltrace"))
}

#[test]
fn cxx_demangled_as_ltrace() {
    if !common::have("ltrace") {
        eprintln!("skip: ltrace is not installed");
        return;
    }
    if !common::have("g++") {
        eprintln!("skip: g++ is not installed");
        return;
    }
    let prog = common::PrivateCopy::new(&common::testprog("lt_cxx"));
    let lt = PathBuf::from("ltrace");
    let sets: &[&[&str]] = &[
        &["-C"],
        &[],
        &["--demangle", "-i"],
        // libstdc++'s own calls through its `.plt.sec` are seen by
        // rltrace only (as libc's are): @MAIN keeps the program's.
        &["-C", "-e", "_Z*@MAIN"],
        &["-C", "-x", "main"],
        &["-C", "-n", "2", "-x", "main"],
        &["-C", "-c"],
    ];
    let mut failures = Vec::new();
    for &opts in sets {
        let want = trace(&lt, opts, &prog);
        assert!(
            want.contains("_Z") || want.contains("operator"),
            "ltrace {opts:?} traced no C++ call: {want}"
        );
        let got = trace(&rltrace(), opts, &prog);
        let (got_n, want_n) = if opts.contains(&"-c") {
            (
                format!("{:?}", count_rows(&got)),
                format!("{:?}", count_rows(&want)),
            )
        } else {
            (normalize(&got), normalize(&want))
        };
        if got_n != want_n {
            failures.push(format!("{opts:?}\nrltrace:\n{got}\nltrace:\n{want}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The names are demangled: not one `_Z` left under -C.
    let got = trace(&rltrace(), &["-C"], &prog);
    assert!(got.contains("operator delete[](void*)(0x"), "{got}");
    assert!(!got.contains("_Z"), "{got}");
}

/// (calls, function) of a `-c` table, sorted: the times differ.
fn count_rows(t: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = t
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 5 && f[0].contains('.')).then(|| (f[3].to_string(), f[4..].join(" ")))
        })
        .collect();
    v.sort();
    v
}

/// testprogs/lt_rust.rs built with `rustc -C opt-level=1` into `dir`;
/// None (with the reason printed) without rustc.
fn rust_prog(dir: &Path) -> Option<PathBuf> {
    if !common::have("rustc") {
        eprintln!("skip: rustc is not installed");
        return None;
    }
    std::fs::create_dir_all(dir).expect("temp dir");
    let out = dir.join("lt_rust");
    let src = common::workspace_dir().join("testprogs/lt_rust.rs");
    let st = Command::new("rustc")
        .args(["-C", "opt-level=1", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .expect("rustc");
    assert!(
        st.status.success(),
        "rustc: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    Some(out)
}

fn temp_dir(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rltrace-{tag}-{}", std::process::id()))
}

/// The program's own output line, its allocation of `work`'s vector and
/// the matching free are recorded: calls made through the GOT.
#[test]
fn rust_libc_calls_recorded() {
    let dir = temp_dir("rust-calls");
    let Some(prog) = rust_prog(&dir) else {
        return;
    };
    let t = trace(
        &rltrace(),
        &["-e", "write@MAIN+malloc@MAIN+free@MAIN"],
        &prog,
    );
    assert_eq!(
        common::count_lines(&t, r#"->write(1, "sum 6\n", 6)"#),
        1,
        "{t}"
    );
    // `work`'s Vec<usize> of 3: malloc(24), freed.
    let line = t
        .lines()
        .find(|l| l.contains("->malloc(24)"))
        .unwrap_or_else(|| panic!("{t}"));
    let ptr = line.rsplit("= ").next().unwrap();
    assert!(
        t.lines().any(|l| l.contains(&format!("->free({ptr})"))),
        "{ptr} not freed\n{t}"
    );
    // ltrace 0.7.3 sees none of these calls (no PLT stub to stop at).
    if common::have("ltrace") {
        let lt = trace(Path::new("ltrace"), &[], &prog);
        assert!(!lt.contains("write(1"), "{lt}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-x` on a Rust function, and `-w` frames through Rust code: the mangled
/// names as stored, demangled (`lt_rust::work`) with `-C`.
#[test]
fn rust_x_and_w_demangled() {
    let dir = temp_dir("rust-x");
    let Some(prog) = rust_prog(&dir) else {
        return;
    };
    let pat = "_ZN7lt_rust4work*";
    let t = trace(&rltrace(), &["-L", "-x", pat], &prog);
    let body: Vec<&str> = t.lines().filter(|l| !l.starts_with("+++")).collect();
    assert_eq!(body.len(), 1, "{t}");
    assert!(body[0].starts_with("_ZN7lt_rust4work17h"), "{t}");
    assert!(body[0].ends_with("= 6"), "{t}");
    let t = trace(&rltrace(), &["-C", "-L", "-x", pat], &prog);
    assert!(t.starts_with("lt_rust::work(3, "), "{t}");
    assert!(t.lines().next().unwrap().ends_with("= 6"), "{t}");
    // The frames of the allocation `work` makes: work, then main.
    let t = trace(&rltrace(), &["-C", "-w", "3", "-e", "malloc@MAIN"], &prog);
    let names = frame_names_after(&t, "->malloc(24)");
    let w = names.iter().position(|n| n == "lt_rust::work");
    assert!(
        w.is_some_and(|w| names.get(w + 1).map(String::as_str) == Some("lt_rust::main")),
        "{names:?}\n{t}"
    );
    let t = trace(&rltrace(), &["-w", "3", "-e", "malloc@MAIN"], &prog);
    let names = frame_names_after(&t, "->malloc(24)");
    assert!(
        names.iter().any(|n| n.starts_with("_ZN7lt_rust4work17h")),
        "{names:?}\n{t}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The symbols of the ` > FILE(symbol+0xoff) [addr]` lines after the first
/// line containing `call`.
fn frame_names_after(t: &str, call: &str) -> Vec<String> {
    t.lines()
        .skip_while(|l| !l.contains(call))
        .skip(1)
        .map_while(|l| l.strip_prefix(" > "))
        .map(|f| {
            let sym = &f[f.find('(').expect("(") + 1..f.rfind(')').expect(")")];
            sym.rsplit_once('+').map_or(sym, |(n, _)| n).to_string()
        })
        .collect()
}
