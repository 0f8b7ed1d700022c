//! Function names in `rtrace break` hit lines and `--bt` frames against
//! gdb's `Breakpoint N, NAME (ARGS)` and `bt` lines at the same stop: C++
//! and Rust functions by their qualified names (`outer::Meter::read`,
//! `outer::Box<long>::get`, `(anonymous namespace)::hidden`,
//! `bk_rust::geo::P::len`), each frame with gdb's arguments, and the
//! backtrace ending at gdb's main (Rust's `bk_rust::main`).
//!
//! Programs: testprogs/bk_cxx_names.cc (g++ -O0), testprogs/bt_cxx_inline.cc
//! (-O2: methods inlined, `this=<synthetic pointer>`, `v=v@entry=0`),
//! testprogs/bk_rust.rs (rustc -g, legacy mangling). gdb runs without
//! address randomization: addresses are compared as `0x?`.

use crate::break_langs::rust_prog;
use crate::bt_run::rtrace_break;
use crate::common;
use serde_json::Value;
use std::path::Path;

/// `s` with every hex number as `0x?`.
fn hex_free(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("0x") {
        out.push_str(&rest[..i]);
        out.push_str("0x?");
        rest = rest[i + 2..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
    }
    out.push_str(rest);
    out
}

/// Where the argument list of `name(args)…` opens: the first `(` outside
/// template arguments that is not an anonymous namespace's.
fn args_open(s: &str) -> Option<usize> {
    let mut depth = 0;
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with("(anonymous namespace)") {
            i += "(anonymous namespace)".len();
            continue;
        }
        match s.as_bytes()[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b'(' if depth == 0 => return Some(i),
            b'+' | b' ' if depth == 0 => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// One of our frames (`name(args)+0xoff (file:line) [module]`, `name(args)
/// [inlined] …`, `name+0xoff …`) or our hit line's `name(args)`, as `name
/// (args)` with addresses as `0x?`.
fn our_frame(s: &str) -> String {
    let Some(open) = args_open(s) else {
        let end = s.find(['+', ' ']).unwrap_or(s.len());
        return format!("{} ()", &s[..end]);
    };
    let mut depth = 0;
    let close = s[open..]
        .char_indices()
        .find(|&(_, c)| {
            depth += match c {
                '(' => 1,
                ')' => -1,
                _ => 0,
            };
            depth == 0
        })
        .map_or(s.len(), |(i, _)| open + i);
    hex_free(&format!("{} ({})", &s[..open], &s[open + 1..close]))
}

/// gdb's `NAME (ARGS) at FILE:LINE` (after `#N  [0x… in ]` or
/// `Breakpoint N, `) as `name (args)`.
fn gdb_frame(s: &str) -> String {
    let s = s.rsplit_once(" at ").map_or(s, |(f, _)| f);
    hex_free(s.trim())
}

/// Our first hit: the hit line's function and arguments, then the
/// `--bt` frames.
fn ours(spec: &str, prog: &Path) -> Vec<String> {
    let text = rtrace_break(&["--bt", spec], prog);
    let mut lines = text.lines().skip_while(|l| !l.contains("] "));
    let hit = lines.next().expect("a hit");
    let call = hit.split_once("] ").expect("hit line").1;
    let call = call.rsplit_once(" at ").map_or(call, |(c, _)| c);
    let mut out = vec![our_frame(call)];
    out.extend(
        lines
            .take_while(|l| l.starts_with("    "))
            .map(|l| our_frame(l.trim_start())),
    );
    out
}

/// gdb's first stop at `break SPEC`: its `Breakpoint` line, then `bt`.
fn gdbs(spec: &str, prog: &Path) -> Vec<String> {
    let out = common::gdb_batch()
        .args(["-ex", &format!("break {spec}"), "-ex", "run", "-ex", "bt"])
        .arg(prog)
        .output()
        .expect("run gdb");
    let text = String::from_utf8_lossy(&out.stdout);
    let hit = text
        .lines()
        // `Breakpoint 1, ` or, at one of several locations, `Breakpoint 1.2, `.
        .find_map(|l| {
            let rest = l.strip_prefix("Breakpoint 1")?;
            let rest = rest
                .strip_prefix('.')
                .map_or(rest, |r| r.trim_start_matches(|c: char| c.is_ascii_digit()));
            rest.strip_prefix(", ")
        })
        .unwrap_or_else(|| panic!("gdb did not stop at {spec}:\n{text}"));
    let mut names = vec![gdb_frame(hit)];
    names.extend(text.lines().filter_map(|l| {
        let rest = l.strip_prefix('#')?;
        let rest = rest
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
        let rest = match rest.split_once(" in ") {
            Some((addr, tail)) if addr.starts_with("0x") => tail,
            _ => rest,
        };
        Some(gdb_frame(rest))
    }));
    names
}

/// The JSON hit record's `function` and its backtrace's frame names.
fn our_json_names(spec: &str, prog: &Path) -> (String, Vec<String>) {
    let text = rtrace_break(&["--json", "--bt", spec], prog);
    let rec: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "hit")
        .expect("a hit record");
    let function = rec["function"].as_str().expect("function").to_string();
    let frames = rec["backtrace"]
        .as_array()
        .expect("backtrace")
        .iter()
        .map(|f| {
            let f = f.as_str().expect("frame");
            let end = f.find("+0x").or_else(|| f.find(" [")).unwrap_or(f.len());
            f[..end].to_string()
        })
        .collect();
    (function, frames)
}

/// Text and JSON against gdb at the first stop of `spec`.
fn check(spec: &str, prog: &Path, frames: usize) {
    let ours = ours(spec, prog);
    let gdb = gdbs(spec, prog);
    assert_eq!(ours, gdb, "{spec}");
    assert_eq!(ours.len(), frames + 1, "{spec}: {ours:#?}");
    let name = |f: &String| f.split(" (").next().unwrap_or("").to_string();
    let (function, bt) = our_json_names(spec.split(" if ").next().unwrap_or(spec), prog);
    assert_eq!(function, name(&gdb[0]), "{spec}");
    if !spec.contains(" if ") {
        let want: Vec<String> = gdb[1..].iter().map(name).collect();
        assert_eq!(bt, want, "{spec}");
    }
}

#[test]
fn cxx_qualified_names_as_gdb() {
    if !common::have("gdb") || !common::have("g++") {
        eprintln!("skip: gdb or g++ is not installed");
        return;
    }
    let prog = common::testprog("bk_cxx_names");
    // A free function in a nested namespace, called by a const method
    // defined outside its class.
    check("outer::inner::scale", &prog, 3);
    assert_eq!(
        ours("outer::inner::scale", &prog)[..3],
        [
            "outer::inner::scale (v=2)",
            "outer::inner::scale (v=2)",
            "outer::Meter::read (this=0x?, k=2)"
        ]
    );
    // The same function called from an anonymous namespace's.
    check("outer::inner::scale if v == 7", &prog, 3);
    assert_eq!(
        ours("outer::inner::scale if v == 7", &prog)[2],
        "(anonymous namespace)::hidden (x=7)"
    );
    // The anonymous namespace's function by its own name, and by its
    // whole path, as gdb finds it.
    check("hidden", &prog, 2);
    check("(anonymous namespace)::hidden", &prog, 2);
    check("outer::Meter::read", &prog, 2);
    check("outer::Meter::unit", &prog, 2);
    // A class template instance: g++'s `Box<long int>`, gdb's `Box<long>`.
    check("outer::Box<long>::get", &prog, 2);
    assert_eq!(
        ours("outer::Box<long>::get", &prog)[0],
        "outer::Box<long>::get (this=0x?, k=1)"
    );
    // An overload pair: the first call.
    check("outer::pick", &prog, 2);
}

/// Methods of a template class inlined at -O2: gdb's names, `this` as
/// `<synthetic pointer>`, the leaf's argument as its value at entry.
#[test]
fn cxx_inlined_methods_with_arguments_as_gdb() {
    if !common::have("gdb") || !common::have("g++") {
        eprintln!("skip: gdb or g++ is not installed");
        return;
    }
    let prog = common::testprog_variant("bt_cxx_inline", "O2", &["-O2"]);
    check("calc::leaf", &prog, 4);
    assert_eq!(
        ours("calc::leaf", &prog)[1..4],
        [
            "calc::leaf (v=v@entry=0)",
            "calc::Acc::add (v=0, this=<synthetic pointer>)",
            "calc::Runner<calc::Acc>::run (n=3, this=<synthetic pointer>)"
        ]
    );
}

/// Rust functions by their module paths; the backtrace ends at
/// `bk_rust::main`, the function rustc flags as the program's main.
#[test]
fn rust_paths_and_main_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb is not installed");
        return;
    }
    let Some(prog) = rust_prog("legacy") else {
        return;
    };
    check("bk_rust::geo::calc::area", &prog, 2);
    check("bk_rust::geo::P::len", &prog, 2);
    assert_eq!(
        ours("bk_rust::geo::P::len", &prog),
        [
            "bk_rust::geo::P::len (self=0x?)",
            "bk_rust::geo::P::len (self=0x?)",
            "bk_rust::main ()"
        ]
    );
    let _ = std::fs::remove_dir_all(prog.parent().expect("dir"));
}

#[test]
fn frames_parsed_with_their_arguments() {
    assert_eq!(
        our_frame("ns::R<ns::A>::run(n=3, this=<synthetic pointer>) [inlined] (a.cc:3) [/x/a]"),
        "ns::R<ns::A>::run (n=3, this=<synthetic pointer>)"
    );
    assert_eq!(
        our_frame("(anonymous namespace)::h(x=7)+0x4 (a.cc:3) [/x/a]"),
        "(anonymous namespace)::h (x=7)"
    );
    assert_eq!(
        our_frame("__libc_start_main+0x80 [/lib/libc.so.6]"),
        "__libc_start_main ()"
    );
    assert_eq!(
        gdb_frame("outer::Meter::read (this=0x7fffffffe6c4, k=2) at f.cc:19"),
        "outer::Meter::read (this=0x?, k=2)"
    );
}
