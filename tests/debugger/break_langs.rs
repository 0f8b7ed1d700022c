//! `rtrace break` on C++ and Rust names, against gdb's `break` on the same
//! programs: each spec gives the same hits, in the same order, in the same
//! functions, with the same argument values.
//!
//! - C++ (testprogs/bk_cxx.cc, g++ -O0 -g): a qualified method
//!   (`ns::Shape::area`), its overloads by signature, gdb's wild matching
//!   of a name's last components (`twice`, `Shape::area`), a function
//!   template with and without its template arguments.
//! - Rust (testprogs/bk_rust.rs, rustc -g, legacy and v0 manglings): a
//!   function by its crate path and an inherent method by the path gdb
//!   uses (`bk_rust::geo::P::len`), and by v0's `<bk_rust::geo::P>::len`.

use crate::common;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One hit: the function (qualified, no parameter list or return type)
/// and its arguments other than `this`/`self`, as `name=value`.
type Hit = String;

/// The function part of a label: `int ns::triple<int>(int)+0x7 (f.cc:3)`
/// gives `ns::triple<int>`.
fn function_of(label: &str) -> String {
    let mut depth = 0;
    let mut end = label.len();
    for (i, c) in label.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' | '+' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let head = label[..end].trim();
    // A template function's return type comes first.
    let f = head.rsplit(' ').next().unwrap_or(head);
    // rustc's v0 mangling names an inherent method `<krate::Type>::m`
    // (the symbol's name, which labels show); gdb shows DWARF's
    // `krate::Type::m`.
    match f.strip_prefix('<').and_then(|r| r.split_once(">::")) {
        Some((ty, m)) if !ty.contains(' ') => format!("{ty}::{m}"),
        _ => f.to_string(),
    }
}

/// `rtrace break --json SPEC -- PROG`: the hits.
fn ours(spec: &str, prog: &Path) -> Vec<Hit> {
    let out = Command::new(common::rtrace())
        .args(["break", "--json", spec, "--"])
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{spec}: {err}");
    err.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "hit")
        .map(|v| {
            let f = function_of(v["location"].as_str().expect("location"));
            let args: Vec<String> = v["args"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|a| a["name"] != "this" && a["name"] != "self")
                .map(|a| {
                    let val = &a["value"];
                    let text = val["sym"]
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| val.to_string());
                    format!("{}={text}", a["name"].as_str().unwrap_or("?"))
                })
                .collect();
            format!("{f} ({})", args.join(", "))
        })
        .collect()
}

/// gdb's `break SPEC` with commands printing the innermost frame at each
/// hit: the same form as [`ours`]. None when gdb refuses the spec.
fn gdbs(spec: &str, prog: &Path) -> Option<Vec<Hit>> {
    let script = [
        format!("break {spec}"),
        "commands 1".into(),
        "silent".into(),
        "bt 1".into(),
        "continue".into(),
        "end".into(),
        "run".into(),
    ];
    let out = common::gdb_script(&script, prog);
    let text = String::from_utf8_lossy(&out.stdout);
    if String::from_utf8_lossy(&out.stderr).contains("not defined") {
        return None;
    }
    Some(
        text.lines()
            .filter_map(|l| l.strip_prefix("#0  "))
            .map(|l| {
                // `ns::Shape::area (this=0x7ffd…, k=1) at f.cc:9`
                let (f, rest) = l.split_once(" (").expect("frame");
                let args = rest.rsplit_once(") at ").map_or(rest, |(a, _)| a);
                let args: Vec<&str> = args
                    .split(", ")
                    .filter(|a| !a.is_empty())
                    .filter(|a| !a.starts_with("this=") && !a.starts_with("self="))
                    .collect();
                format!("{f} ({})", args.join(", "))
            })
            .collect(),
    )
}

fn check(prog: &Path, spec: &str, hits: usize) {
    let got = ours(spec, prog);
    assert_eq!(got.len(), hits, "{spec}: {got:#?}");
    match gdbs(spec, prog) {
        Some(want) => assert_eq!(got, want, "{spec}"),
        None => panic!("gdb refuses {spec}"),
    }
}

#[test]
fn cxx_names_as_gdb() {
    if !common::have("gdb") || !common::have("g++") {
        eprintln!("skip: gdb or g++ is not installed");
        return;
    }
    let prog = common::testprog("bk_cxx");
    for (spec, hits) in [
        ("ns::Shape::area", 6),
        ("ns::Shape::area(int) const", 3),
        ("Shape::area", 6),
        ("area() const", 3),
        ("ns::twice", 4),
        ("twice", 4),
        ("twice(double)", 1),
        ("ns::triple<int>", 3),
        ("triple", 4),
    ] {
        check(&prog, spec, hits);
    }
    // Whole components only, and a const method's signature with its
    // `const`, as gdb: both refuse these.
    for spec in ["wice", "area()"] {
        assert_eq!(gdbs(spec, &prog), None, "gdb takes {spec}");
        let out = Command::new(common::rtrace())
            .args(["break", "--count", spec, "--"])
            .arg(&prog)
            .output()
            .expect("run rtrace");
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("'{spec}' matched nothing")), "{err}");
    }
}

/// testprogs/bk_rust.rs built with `rustc -g`, with `-C
/// symbol-mangling-version=v0` for "v0" (legacy is the default; naming it
/// needs an unstable option).
fn rust_prog(mangling: &str) -> Option<PathBuf> {
    if !common::have("rustc") {
        eprintln!("skip: rustc is not installed");
        return None;
    }
    let dir = common::child::temp_path("bk-rust");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("bk_rust");
    let src = common::workspace_dir().join("testprogs/bk_rust.rs");
    let mut rustc = Command::new("rustc");
    rustc.args(["-g", "-C", "opt-level=1"]);
    if mangling == "v0" {
        rustc.args(["-C", "symbol-mangling-version=v0"]);
    }
    let st = rustc.arg("-o").arg(&out).arg(&src).output().expect("rustc");
    assert!(
        st.status.success(),
        "rustc: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    Some(out)
}

#[test]
fn rust_paths_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb is not installed");
        return;
    }
    for mangling in ["legacy", "v0"] {
        let Some(prog) = rust_prog(mangling) else {
            return;
        };
        check(&prog, "bk_rust::geo::calc::area", 4);
        check(&prog, "bk_rust::geo::P::len", 4);
        if mangling == "v0" {
            // v0's own spelling of the method: the same four hits.
            let want = ours("bk_rust::geo::P::len", &prog);
            assert_eq!(ours("<bk_rust::geo::P>::len", &prog), want);
        }
        let _ = std::fs::remove_dir_all(prog.parent().expect("dir"));
    }
}
