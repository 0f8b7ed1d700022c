//! `--disasm[=N]` of `rtrace break` and `rtrace watch` against gdb: at the
//! same stop, the lines `rtrace break FUNC --disasm=N` prints must be the
//! lines gdb's `break FUNC; run; x/Ni $pc` prints, character for character,
//! with one normalisation: gdb names data objects in its `# 0xADDR <obj>`
//! comments from the ELF symbol table (`<pts>`, `<sink>`), while rtrace's
//! symbol tables hold functions only, so rtrace prints `# 0xADDR` and the
//! comparison drops the `<obj>` after a comment's address. Lines are
//! compared while gdb's stay in the stopped function (past its end gdb and
//! rtrace name alignment padding differently).

use crate::common::{self, testprog, testprog_variant};
use serde_json::Value as J;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn progs() -> Vec<(&'static str, PathBuf)> {
    vec![
        ("O0", testprog("bp_args")),
        ("O2", testprog_variant("bp_args", "O2", &["-O2"])),
    ]
}

/// gdb's `x/Ni $pc` lines at the first stop of `break FUNC`.
fn gdb_lines(prog: &Path, func: &str, n: usize) -> Vec<String> {
    let g = common::gdb_batch()
        .args(["-ex", &format!("break {func}"), "-ex", "run"])
        .args(["-ex", &format!("x/{n}i $pc")])
        .arg(prog)
        .output()
        .expect("gdb");
    String::from_utf8_lossy(&g.stdout)
        .lines()
        .filter(|l| l.starts_with("=> 0x") || l.starts_with("   0x"))
        .map(str::to_string)
        .collect()
}

/// The `--disasm` lines of the first hit of `rtrace break ARGS`, run
/// without address randomization as gdb runs the program.
fn rtrace_lines(prog: &Path, args: &[&str]) -> Vec<String> {
    let o = Command::new("setarch")
        .arg("-R")
        .arg(common::rtrace())
        .arg("break")
        .args(args)
        .arg("--")
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("rtrace");
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    err.lines()
        .skip_while(|l| !l.starts_with('+'))
        .skip(1)
        .take_while(|l| !l.starts_with('+'))
        .filter_map(|l| l.strip_prefix("    "))
        .filter(|l| l.starts_with("=> 0x") || l.starts_with("   0x"))
        .map(str::to_string)
        .collect()
}

/// Drops the object name gdb adds after a comment's address.
fn normalise(l: &str) -> String {
    match l.split_once("        # ") {
        Some((insn, comment)) => {
            let addr = comment.split(' ').next().unwrap_or(comment);
            format!("{insn}        # {addr}")
        }
        None => l.to_string(),
    }
}

/// gdb's lines inside `func`, normalised.
fn in_function(lines: &[String], func: &str) -> Vec<String> {
    lines
        .iter()
        .take_while(|l| l.contains(&format!(" <{func}+")) || l.contains(&format!(" <{func}>")))
        .map(|l| normalise(l))
        .collect()
}

#[test]
fn break_disasm_matches_gdb_x_i_at_the_same_stop() {
    if !common::have("gdb") || !common::have("setarch") {
        eprintln!("skipped: needs gdb and setarch");
        return;
    }
    let mut compared = 0;
    for (variant, prog) in progs() {
        for func in ["visit", "main"] {
            let gdb = gdb_lines(&prog, func, 40);
            let want = in_function(&gdb, func);
            assert!(want.len() >= 8, "{variant} {func}: {gdb:?}");
            assert!(want[0].starts_with("=> 0x"), "{variant} {func}: {gdb:?}");
            let ours = rtrace_lines(&prog, &[func, "--disasm=40"]);
            assert_eq!(ours.len(), 40, "{variant} {func}: {ours:?}");
            let ours: Vec<String> = ours[..want.len()].iter().map(|l| normalise(l)).collect();
            assert_eq!(ours, want, "{variant} {func}");
            compared += want.len();

            // A second breakpoint inside the listing: its INT3 is shown as
            // the instruction it displaced, as gdb shows it.
            let third = want[2].split_whitespace().next().expect("address");
            let spec = format!("*{third}");
            let ours = rtrace_lines(&prog, &[func, &spec, "--disasm=40"]);
            let ours: Vec<String> = ours[..want.len()].iter().map(|l| normalise(l)).collect();
            assert_eq!(ours, want, "{variant} {func} with a breakpoint at {third}");
        }
    }
    println!("{compared} instructions compared with gdb's x/i");
}

#[test]
fn break_disasm_json_carries_the_same_lines() {
    let prog = testprog("bp_args");
    let text = rtrace_lines(&prog, &["visit", "--disasm=3"]);
    let o = Command::new(common::rtrace())
        .args(["break", "--json", "visit", "--disasm=3", "--"])
        .arg(&prog)
        .stdin(Stdio::null())
        .output()
        .expect("rtrace");
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    common::schema::Schemas::load()
        .check_lines("break.schema.json", &err)
        .unwrap_or_else(|e| panic!("{e}\n{err}"));
    let hit: J = err
        .lines()
        .filter_map(|l| serde_json::from_str::<J>(l).ok())
        .find(|v| v["type"] == "hit")
        .unwrap_or_else(|| panic!("no hit: {err}"));
    let d = hit["disasm"].as_array().expect("disasm array");
    assert_eq!(d.len(), 3, "{hit}");
    assert_eq!(d[0]["addr"], hit["addr"]);
    assert_eq!(d[0]["pc"], true);
    assert_eq!(d[1]["pc"], false);
    // The text output (another run: other addresses) has the same
    // instructions and symbols.
    for (j, t) in d.iter().zip(&text) {
        let sym = j["symbol"].as_str().expect("symbol");
        let tail = format!(" <{sym}>:\t{}", j["text"].as_str().expect("text"));
        assert!(t.ends_with(&tail), "{t} / {j}");
    }
}

#[test]
fn watch_disasm_starts_at_the_accessing_instruction() {
    let prog = testprog("wp_write");
    let o = Command::new(common::rtrace())
        .args(["watch", "--json", "--disasm=4", "counter", "--"])
        .arg(&prog)
        .stdin(Stdio::null())
        .output()
        .expect("rtrace");
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    common::schema::Schemas::load()
        .check_lines("watch.schema.json", &err)
        .unwrap_or_else(|e| panic!("{e}\n{err}"));
    let hits: Vec<J> = err
        .lines()
        .filter_map(|l| serde_json::from_str::<J>(l).ok())
        .filter(|v| v["type"] == "hit")
        .collect();
    assert_eq!(hits.len(), 4, "{err}");
    for h in &hits {
        let d = h["disasm"].as_array().expect("disasm");
        assert_eq!(d.len(), 4, "{h}");
        // The accessing instruction first, by address and text; the pc
        // (after it: x86 reports data watchpoints after the access) next.
        assert_eq!(d[0]["addr"], h["insn"]["addr"], "{h}");
        let insn = h["insn"]["text"].as_str().expect("insn text");
        assert!(d[0]["text"].as_str().unwrap().starts_with(insn), "{h}");
        assert!(insn.starts_with("mov"), "{h}");
        assert_eq!(d[0]["pc"], false);
        assert_eq!(d[1]["addr"], h["pc"]["addr"], "{h}");
        assert_eq!(d[1]["pc"], true);
        let func = h["insn"]["func"].as_str().expect("func");
        assert!(d[0]["symbol"].as_str().unwrap().starts_with(func), "{h}");
    }
    // Text: the accessing instruction named in the hit line, then gdb's lines.
    let o = Command::new(common::rtrace())
        .args(["watch", "--disasm=2", "counter", "--"])
        .arg(&prog)
        .stdin(Stdio::null())
        .output()
        .expect("rtrace");
    let err = String::from_utf8_lossy(&o.stderr);
    let mut lines = err
        .lines()
        .skip_while(|l| !l.contains("watch 1 write counter"));
    let hit = lines.next().unwrap_or_else(|| panic!("{err}"));
    assert!(hit.contains(" by 0x") && hit.contains(" \"mov"), "{hit}");
    let first = lines.next().expect("disasm line");
    assert!(
        first.starts_with("       0x") && first.contains(">:\tmov"),
        "{first}"
    );
    assert!(lines.next().expect("pc line").starts_with("    => 0x"));
}
