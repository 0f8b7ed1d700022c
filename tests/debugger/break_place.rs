//! Where `rtrace break FUNC` stops, against gdb 13's `break FUNC` on the
//! same program (testprogs/bp_place.c) at several optimisation levels:
//! for each function the same instruction (`FUNC+OFFSET`, gdb's `p $pc`)
//! and the same line at the stop (gdb's `bt 1`). The variants cover each
//! of gdb's rules: -O0 with a frame pointer (past the frame setup, to the
//! next line-table row, also in functions without variables), -O0
//! without one (the entry), -O1/-O2 units with location lists (the entry,
//! also with a frame pointer and for functions without variables), and
//! -O2 units without location lists (`-DFLAT`: the entry of a frameless
//! function, past `push %rbp; mov %rsp,%rbp` with a frame pointer).

use crate::common;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// The functions of bp_place.c, each called once, in call order.
const ALL: &[&str] = &["main", "bare", "oneline", "params", "locals", "mixed"];
/// Those left with `-DFLAT`.
const FLAT: &[&str] = &["main", "bare"];
/// The first lines of [`ALL`]'s functions (gdb moves a breakpoint there
/// past the prologue, as `break FUNC`), and a line inside `params` (used
/// as given).
const FIRST_LINES: &[&str] = &[
    "bp_place.c:45",
    "bp_place.c:12",
    "bp_place.c:18",
    "bp_place.c:20",
    "bp_place.c:23",
    "bp_place.c:26",
    "bp_place.c:35",
];

/// One stop: function, byte offset from its symbol, line.
type Stop = (String, u64, u32);

/// `FUNC+0x1c (file.c:12)` or `FUNC (file.c:12)`.
fn parse_location(loc: &str) -> Option<Stop> {
    let (head, tail) = loc.split_once(" (")?;
    let line = tail
        .trim_end_matches(')')
        .rsplit_once(':')?
        .1
        .parse()
        .ok()?;
    let (f, off) = match head.split_once("+0x") {
        Some((f, o)) => (f, u64::from_str_radix(o, 16).ok()?),
        None => (head, 0),
    };
    Some((f.to_string(), off, line))
}

fn ours(prog: &Path, funcs: &[&str]) -> Vec<Stop> {
    let out = Command::new(common::rtrace())
        .arg("break")
        .arg("--json")
        .args(funcs)
        .arg("--")
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    err.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "hit")
        .map(|v| {
            let loc = v["location"].as_str().expect("location");
            parse_location(loc).unwrap_or_else(|| panic!("location {loc}"))
        })
        .collect()
}

/// gdb's stops: `p $pc` gives `0x5555… <FUNC+4>`, `bt 1` the line.
fn gdbs(prog: &Path, funcs: &[&str]) -> Vec<Stop> {
    let mut script: Vec<String> = funcs.iter().map(|f| format!("break {f}")).collect();
    script.extend([
        format!("commands 1-{}", funcs.len()),
        "silent".into(),
        "p $pc".into(),
        "bt 1".into(),
        "continue".into(),
        "end".into(),
        "run".into(),
    ]);
    let out = common::gdb_script(&script, prog);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut stops = Vec::new();
    let mut pc: Option<(String, u64)> = None;
    for l in text.lines() {
        if l.starts_with('$') {
            // `$1 = (void (*)(void)) 0x555555555139 <bare+4>`
            let sym = l
                .rsplit_once('<')
                .expect("pc symbol")
                .1
                .trim_end_matches('>');
            pc = Some(match sym.split_once('+') {
                Some((f, o)) => (f.to_string(), o.parse().expect("offset")),
                None => (sym.to_string(), 0),
            });
        } else if let Some(frame) = l.strip_prefix("#0  ") {
            let line = frame
                .rsplit_once(':')
                .expect("line")
                .1
                .parse()
                .expect("line");
            let (f, off) = pc.take().expect("p $pc before bt");
            stops.push((f, off, line));
        }
    }
    assert!(
        !stops.is_empty(),
        "gdb: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stops
}

#[test]
fn function_breakpoints_stop_where_gdb_stops() {
    if !common::have("gdb") {
        eprintln!("skip: gdb is not installed");
        return;
    }
    let variants: &[(&str, &[&str], &[&str])] = &[
        ("O0", &[], ALL),
        ("O0-nofp", &["-fomit-frame-pointer"], ALL),
        ("O1", &["-O1"], ALL),
        ("O2", &["-O2"], ALL),
        ("O2-fp", &["-O2", "-fno-omit-frame-pointer"], ALL),
        ("O2-flat", &["-O2", "-DFLAT"], FLAT),
        (
            "O2-flat-fp",
            &["-O2", "-DFLAT", "-fno-omit-frame-pointer"],
            FLAT,
        ),
    ];
    for &(name, flags, funcs) in variants {
        let prog = common::testprog_variant("bp_place", name, flags);
        let want = gdbs(&prog, funcs);
        assert_eq!(want.len(), funcs.len(), "{name}: gdb stopped {want:?}");
        assert_eq!(ours(&prog, funcs), want, "{name}");
    }
}

#[test]
fn first_line_breakpoints_stop_where_gdb_stops() {
    if !common::have("gdb") {
        eprintln!("skip: gdb is not installed");
        return;
    }
    for (name, flags) in [("O0", &[][..]), ("O2", &["-O2"][..])] {
        let prog = common::testprog_variant("bp_place", name, flags);
        let want = gdbs(&prog, FIRST_LINES);
        assert_eq!(
            want.len(),
            FIRST_LINES.len(),
            "{name}: gdb stopped {want:?}"
        );
        assert_eq!(ours(&prog, FIRST_LINES), want, "{name}");
        if name == "O0" {
            // Past the prologue, as `break FUNC`, unlike the entry.
            let by_name = ours(&prog, &["params"]);
            assert!(by_name[0].1 > 0, "{by_name:?}");
            assert!(want.contains(&by_name[0]), "{want:?} {by_name:?}");
        }
    }
}
