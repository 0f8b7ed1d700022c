//! `rtrace break` spec resolution before the program runs: a glob selects
//! functions and not their PLT stubs (both backends count each call once),
//! `--list`/`-D` say where each spec resolved, and a spec that can never
//! match (or a condition that can never be read) is refused with exit
//! status 2 before the program starts or `-p` attaches; one that may match
//! later is pending and the run goes on.

use crate::common;

use common::{rtrace, temp_path, testprog, testprog_variant};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The shared library (`bp_globlib`) and the program linked against it
/// (`bp_glob`), which calls it through its PLT.
fn glob_programs() -> (PathBuf, PathBuf) {
    let lib = testprog_variant("bp_globlib", "so", &["-shared", "-fPIC"]);
    let lib_s = lib.to_str().expect("utf-8 path");
    // The library before the program's object: kept with --no-as-needed.
    let prog = testprog_variant("bp_glob", "linked", &["-Wl,--no-as-needed", lib_s]);
    (lib, prog)
}

fn brk(args: &[&str], prog: &Path, prog_args: &[&str]) -> Output {
    Command::new(rtrace())
        .arg("break")
        .args(args)
        .arg("--")
        .arg(prog)
        .args(prog_args)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace")
}

/// The `--count --json` rows: spec -> hits.
fn counts(stderr: &[u8]) -> Vec<(String, u64)> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "count")
        .map(|v| {
            (
                v["spec"].as_str().unwrap_or("").to_string(),
                v["hits"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect()
}

/// The number after `word` in `line` (`globlib_leaf 1500 …`).
fn number_after(line: &str, word: &str) -> u64 {
    let mut it = line.split_whitespace();
    it.find(|w| *w == word)
        .and_then(|_| it.next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no '{word} N' in {line:?}"))
}

#[test]
fn glob_counts_each_call_once_not_its_plt_stubs() {
    let (_, prog) = glob_programs();
    let out = Command::new(&prog).output().expect("run bp_glob");
    assert!(out.status.success());
    let expect = String::from_utf8_lossy(&out.stdout).into_owned();
    // The program's own counts: globlib_leaf is entered `leaf` times
    // (`leaf - outer` from main, `outer` from globlib_outer), globlib_outer
    // `outer` times. Through a PLT stub: every call from main, and
    // globlib_outer's call of globlib_leaf through the library's own stub.
    let leaf = number_after(&expect, "globlib_leaf");
    let outer = number_after(&expect, "globlib_outer");
    let stub_leaf = leaf; // (leaf - outer) from main + outer from the library
    let stub_all = (leaf - outer) + outer + outer;
    let specs = [
        "globlib_*",
        "globlib_leaf",
        "globlib_leaf@plt",
        "globlib_*@plt",
    ];
    let want = [leaf + outer, leaf, stub_leaf, stub_all];
    for backend in ["ptrace", "kernel", "auto"] {
        let mut args = vec!["--count", "--json", "--backend", backend];
        args.extend(specs);
        let o = brk(&args, &prog, &[]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        if backend == "kernel" && (err.contains("needs tracefs") || err.contains("no uprobe")) {
            eprintln!("skip: kernel backend: {err}");
            continue;
        }
        assert!(o.status.success(), "{backend}: {err}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), expect, "{backend}");
        let rows = counts(&o.stderr);
        let got: Vec<u64> = specs
            .iter()
            .map(|s| {
                rows.iter()
                    .find(|r| r.0 == *s)
                    .unwrap_or_else(|| panic!("{backend}: no row for {s}: {err}"))
                    .1
            })
            .collect();
        assert_eq!(got, want, "{backend}: {specs:?}: {err}");
    }
}

/// The function symbols of `file` as `nm` prints them: name -> address.
fn nm(file: &Path) -> Vec<(String, u64)> {
    let o = Command::new("nm").arg(file).output().expect("run nm");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let addr = u64::from_str_radix(f.next()?, 16).ok()?;
            let kind = f.next()?;
            let name = f.next()?;
            kind.eq_ignore_ascii_case("t")
                .then(|| (name.to_string(), addr))
        })
        .collect()
}

#[test]
fn list_says_where_each_spec_resolved_without_running() {
    let (lib, prog) = glob_programs();
    if !common::have("nm") {
        eprintln!("skip: no nm to compare addresses with");
        return;
    }
    let o = brk(&["--list", "globlib_*", "globlib_*@plt"], &prog, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    // Nothing ran: the program prints a line when it does.
    assert!(!out.contains("sum"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let libname = lib.file_name().unwrap().to_string_lossy().into_owned();
    let syms = nm(&lib);
    let at = |n: &str| syms.iter().find(|s| s.0 == n).expect("in nm").1;
    assert_eq!(
        lines[0],
        format!(
            "spec 'globlib_*': {:#x} globlib_leaf ({libname}), {:#x} globlib_outer ({libname})",
            at("globlib_leaf"),
            at("globlib_outer")
        )
    );
    // Stubs only when named: main's two and the library's own.
    let stubs = lines[1];
    assert!(stubs.starts_with("spec 'globlib_*@plt': "), "{stubs}");
    let progname = prog.file_name().unwrap().to_string_lossy().into_owned();
    for (n, m) in [
        ("globlib_leaf@plt", &progname),
        ("globlib_outer@plt", &progname),
        ("globlib_leaf@plt", &libname),
    ] {
        assert!(stubs.contains(&format!(" {n} ({m})")), "{stubs}");
    }
    assert_eq!(stubs.matches("@plt (").count(), 3, "{stubs}");

    // -D says the same, then runs.
    let o = brk(
        &["-D", "--count", "--backend", "ptrace", "globlib_*"],
        &prog,
        &[],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("sum"));
    assert!(
        err.contains(&format!("rtrace break: {}\n", lines[0])),
        "{err}"
    );
}

#[test]
fn typo_specs_are_refused_before_the_program_starts() {
    let prog = testprog("bp_spec");
    let cases = [
        // (spec, what the error must say)
        (
            "nosuchfunc",
            "'nosuchfunc' matched nothing (no such function",
        ),
        (
            "libc.so.6:nosuchfunc",
            "'libc.so.6:nosuchfunc' matched nothing",
        ),
        ("bp_spec.c:999", "'bp_spec.c:999' matched nothing"),
        ("work if nosuchvar > 1", "no variable 'nosuchvar' in work"),
        ("bump if", "'bump if': empty condition"),
        ("work if (n", "'work if (n': condition"),
        ("work if $nosuchreg > 1", "unknown register $nosuchreg"),
        ("ret:work if n > 1", "not program variables ('n')"),
        ("work if $retval > 1", "only known at a return probe"),
    ];
    for (spec, says) in cases {
        for backend in ["ptrace", "auto"] {
            let marker = temp_path("bp_spec_marker");
            let _ = std::fs::remove_file(&marker);
            let m = marker.to_str().expect("utf-8 path");
            let o = brk(&["--count", "--backend", backend, spec], &prog, &[m]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{spec} ({backend}): {err}");
            assert!(err.contains(says), "{spec} ({backend}): {err}");
            assert!(!marker.exists(), "{spec} ({backend}): the program ran");
            assert!(o.stdout.is_empty(), "{spec} ({backend})");
        }
    }
    // A condition on a variable the function has is kept, and holds.
    let marker = temp_path("bp_spec_marker");
    let m = marker.to_str().expect("utf-8 path");
    let o = brk(&["--count", "--json", "work if n > 6"], &prog, &[m]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(counts(&o.stderr), vec![("work if n > 6".to_string(), 3)]);
    let _ = std::fs::remove_file(&marker);
}

#[test]
fn specs_that_may_resolve_later_are_pending_and_run() {
    let prog = testprog("bp_spec");
    let marker = temp_path("bp_spec_marker");
    let _ = std::fs::remove_file(&marker);
    let m = marker.to_str().expect("utf-8 path");
    // A library that is not loaded (yet): it could be dlopen'ed.
    let o = brk(&["--count", "libnotloaded.so:f", "work"], &prog, &[m]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("spec 'libnotloaded.so:f': pending until a library defines it"),
        "{err}"
    );
    assert!(marker.exists());
    let _ = std::fs::remove_file(&marker);
    // A plain name in a program that calls dlopen.
    let lib = testprog_variant("bp_lib", "so", &["-shared", "-fPIC"]);
    let dl = testprog("bp_dlopen");
    let o = brk(
        &[
            "--count",
            "--json",
            "--backend",
            "ptrace",
            "bp_lib_func",
            "nosuchfunc",
        ],
        &dl,
        &[lib.to_str().expect("utf-8 path")],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(
            "spec 'nosuchfunc': pending until a library defines it (bp_dlopen calls dlopen)"
        ),
        "{err}"
    );
    let rows = counts(&o.stderr);
    assert!(rows.contains(&("bp_lib_func".to_string(), 500)), "{rows:?}");
}

#[test]
fn attach_refuses_before_attaching() {
    let prog = testprog("bp_spec");
    let marker = temp_path("bp_spec_attach");
    let mut child = Command::new(&prog)
        .arg(&marker)
        .arg("wait")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start bp_spec");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("ready");
    assert_eq!(line, "ready\n");
    let pid = child.id().to_string();
    for spec in ["nosuchfunc", "work if nosuchvar > 1", "bump if"] {
        let o = Command::new(rtrace())
            .args(["break", spec, "-p", &pid])
            .output()
            .expect("run rtrace");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{spec}: {err}");
        assert!(err.contains(&format!("'{spec}'")), "{spec}: {err}");
        assert!(!err.contains("attached"), "{spec}: {err}");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
        assert!(status.contains("TracerPid:\t0\n"), "{spec}");
    }
    // --list reads the running process and leaves it alone.
    let o = Command::new(rtrace())
        .args(["break", "--list", "work if n > 1", "-p", &pid])
        .output()
        .expect("run rtrace");
    assert!(o.status.success(), "{o:?}");
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(listed.starts_with("spec 'work if n > 1': 0x"), "{listed}");
    assert!(listed.trim_end().ends_with(" work (bp_spec)"), "{listed}");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "go").expect("write");
    line.clear();
    out.read_line(&mut line).expect("total");
    assert_eq!(line, "total 100\n");
    assert!(child.wait().expect("wait").success());
    let _ = std::fs::remove_file(&marker);
}
