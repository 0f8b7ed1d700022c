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
    hits(&our_records(&[spec], prog))
}

/// `rtrace break --json ARGS -- PROG`: its hit records.
fn our_records(args: &[&str], prog: &Path) -> Vec<Value> {
    let out = Command::new(common::rtrace())
        .args(["break", "--json"])
        .args(args)
        .arg("--")
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    err.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "hit")
        .collect()
}

/// Hit records as [`Hit`]s.
fn hits(recs: &[Value]) -> Vec<Hit> {
    recs.iter()
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
    gdbs_with(&format!("break {spec}"), &[], prog)
}

/// [`gdbs`] with breakpoint 1 set by `set` (`tbreak SPEC`), then the
/// `settings` (`ignore 1 2`) run.
fn gdbs_with(set: &str, settings: &[&str], prog: &Path) -> Option<Vec<Hit>> {
    let mut script = vec![set.to_string()];
    script.extend(settings.iter().map(|s| s.to_string()));
    script.extend([
        "commands 1".into(),
        "silent".into(),
        "bt 1".into(),
        "continue".into(),
        "end".into(),
        "run".into(),
    ]);
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
pub(crate) fn rust_prog(mangling: &str) -> Option<PathBuf> {
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

/// gdb's `dprintf SPEC,"hit %d …\n", EXPR…` on `prog`: the printed values
/// of each hit, `hit ` removed.
fn gdb_dprintf(spec: &str, exprs: &[&str], prog: &Path) -> Vec<String> {
    let format = vec!["%d"; exprs.len()].join(" ");
    let script = [
        format!("dprintf {spec},\"hit {format}\\n\", {}", exprs.join(", ")),
        "run".into(),
    ];
    let out = common::gdb_script(&script, prog);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("hit "))
        .map(str::to_string)
        .collect()
}

/// The `--print` values of each hit record, space-separated.
fn printed(recs: &[Value]) -> Vec<String> {
    recs.iter()
        .map(|r| {
            r["print"]
                .as_array()
                .expect("print")
                .iter()
                .map(|p| p["value"].as_i64().expect("integer").to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// `--tbreak`, `--ignore`, `--max-hits` and `--print` on a C++ method
/// and an overloaded function named as gdb names them: the hits gdb's
/// `tbreak`, `ignore`, `enable count` and `dprintf` give.
#[test]
fn cxx_hit_limits_and_prints_as_gdb() {
    if !common::have("gdb") || !common::have("g++") {
        eprintln!("skip: gdb or g++ is not installed");
        return;
    }
    let prog = common::testprog("bk_cxx");
    // Six calls of the two overloads, in call order: area(0), area(),
    // area(1), …; skip two, report two.
    let spec = "ns::Shape::area";
    let got = hits(&our_records(
        &["--ignore", "2", "--max-hits", "2", spec],
        &prog,
    ));
    assert_eq!(got.len(), 2, "{got:?}");
    let settings = ["ignore 1 2", "enable count 2 1"];
    let want = gdbs_with(&format!("break {spec}"), &settings, &prog);
    assert_eq!(Some(got), want);
    // The first call of an overloaded free function only.
    let got = hits(&our_records(&["--tbreak", "ns::twice"], &prog));
    assert_eq!(got, ["ns::twice (x=0)"]);
    assert_eq!(Some(got), gdbs_with("tbreak ns::twice", &[], &prog));
    // A parameter and a member through `this`, at one overload.
    let spec = "ns::Shape::area(int) const";
    let exprs = ["k", "this->w", "k + this->w"];
    let mut args = Vec::new();
    for e in exprs {
        args.extend(["--print", e]);
    }
    args.push(spec);
    let got = printed(&our_records(&args, &prog));
    assert_eq!(got, ["0 3 3", "1 3 4", "2 3 5"]);
    assert_eq!(got, gdb_dprintf(&format!("'{spec}'"), &exprs, &prog));
}

/// The same on Rust paths (legacy mangling): a module function and an
/// inherent method.
#[test]
fn rust_hit_limits_and_prints_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb is not installed");
        return;
    }
    let Some(prog) = rust_prog("legacy") else {
        return;
    };
    // area(i, 3) for i in 0..4: skip the first, report two.
    let spec = "bk_rust::geo::calc::area";
    let got = hits(&our_records(
        &["--ignore", "1", "--max-hits", "2", spec],
        &prog,
    ));
    assert_eq!(got.len(), 2, "{got:?}");
    let settings = ["ignore 1 1", "enable count 2 1"];
    let want = gdbs_with(&format!("break {spec}"), &settings, &prog);
    assert_eq!(Some(got.clone()), want);
    let spec = "bk_rust::geo::P::len";
    let got = hits(&our_records(&["--tbreak", spec], &prog));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(Some(got), gdbs_with(&format!("tbreak {spec}"), &[], &prog));
    let spec = "bk_rust::geo::calc::area";
    let got = printed(&our_records(
        &["--print", "w", "--print", "h", "--print", "w + h", spec],
        &prog,
    ));
    assert_eq!(got, ["0 3 3", "1 3 4", "2 3 5", "3 3 6"]);
    assert_eq!(got, gdb_dprintf(spec, &["w", "h", "w + h"], &prog));
    let _ = std::fs::remove_dir_all(prog.parent().expect("dir"));
}
