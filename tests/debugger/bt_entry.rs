//! Arguments of `rtrace break --bt` frames in `gcc -O2 -g` code against
//! gdb's `bt` at every stop of the same breakpoint, argument by argument:
//! values at entry from the caller's DWARF call sites (`DW_OP_entry_value`)
//! in gdb's default `print entry-values` forms, `n=n@entry=5`,
//! `n=20, n@entry=5`, `n=33` and `n=<optimized out>`.
//! `testprogs/bt_entry.c` has one caller per form; `testprogs/bt_tailcall.c`
//! adds a tail-call frame (its arguments from the jump's call site) and an
//! argument the call site has no value for. Text lines and the JSON
//! `bt_args` must both say what gdb says; the JSON follows its schema.
//! `rtrace watch --bt` frames are checked the same way against gdb's `bt`
//! at its `watch` stops (the global `sink` that leaf() writes).
#![cfg(target_arch = "x86_64")]

use crate::bt_run::{frame_name, line_of, rtrace_break, rtrace_sub};
use crate::common;
use crate::unwind::parse_gdb_frame;
use crate::watch_gdb::gdb_continue_to_exit;
use serde_json::Value;
use std::path::Path;

/// One frame: function, its arguments as gdb prints them (`n=n@entry=5`,
/// `n=20`, `n@entry=5` each one item), and its line.
type Frame = (String, Vec<String>, u32);

/// `a=1, b=b@entry=2` -> its arguments (values here are integers or
/// `<optimized out>`, which hold no comma).
fn split_args(s: &str) -> Vec<String> {
    s.split(", ")
        .filter(|a| !a.is_empty())
        .map(str::to_string)
        .collect()
}

/// How the stops are made: `rtrace break --bt FUNC` and gdb's `break
/// FUNC`, or `rtrace watch --bt VAR` and gdb's `watch VAR`.
#[derive(Clone, Copy)]
enum Stop<'a> {
    Break(&'a str),
    Watch(&'a str),
}

impl Stop<'_> {
    /// gdb's command, rtrace's subcommand and its JSON backtrace key.
    fn parts(self) -> (String, &'static str, &'static str) {
        match self {
            Stop::Break(f) => (format!("break {f}"), "break", "backtrace"),
            Stop::Watch(v) => (format!("watch {v}"), "watch", "bt"),
        }
    }
}

/// gdb's frames at each stop (a `bt` on every stop).
fn gdb_stops(stop: Stop, prog: &Path) -> Vec<Vec<Frame>> {
    let text = gdb_continue_to_exit(
        &[
            &stop.parts().0,
            "python gdb.events.stop.connect(lambda e: gdb.execute('bt'))",
            "run",
        ],
        prog,
    );
    let mut stops: Vec<Vec<Frame>> = Vec::new();
    for l in text.lines().filter(|l| l.starts_with('#')) {
        let f = parse_gdb_frame(l).unwrap_or_else(|| panic!("frame line {l}"));
        // `FUNC (ARGS) at FILE:LINE`: the arguments between the name's
        // parenthesis and the one before ` at `.
        let (head, at) = l.rsplit_once(" at ").expect("at FILE:LINE");
        let args = head
            .split_once(&format!("{} (", f.function))
            .and_then(|(_, r)| r.strip_suffix(')'))
            .unwrap_or_else(|| panic!("arguments in {l}"));
        let line = at.rsplit_once(':').and_then(|(_, n)| n.parse().ok());
        let frame = (f.function, split_args(args), line.expect("line"));
        if l.starts_with("#0 ") {
            stops.push(Vec::new());
        }
        stops.last_mut().expect("#0 first").push(frame);
    }
    assert!(!stops.is_empty(), "no stops from gdb:\n{text}");
    stops
}

/// `rtrace break|watch ARGS -- PROG`, which must succeed: its stderr.
fn rtrace(stop: Stop, args: &[&str], prog: &Path) -> String {
    let target = match stop {
        Stop::Break(f) | Stop::Watch(f) => f,
    };
    let sub = match stop {
        Stop::Break(_) => "break",
        Stop::Watch(_) => "watch",
    };
    rtrace_sub(sub, &[args, &[target]].concat(), prog)
}

/// rtrace's `--bt` frames at each stop: from the text lines
/// (`func(ARGS)+0xoff (file:line) [module]`, after `#N ` for a watch)
/// and from the JSON (the backtrace + `bt_args`), which must agree.
fn our_stops(stop: Stop, prog: &Path) -> Vec<Vec<Frame>> {
    let (_, tool, bt_key) = stop.parts();
    let text = rtrace(stop, &["--bt"], prog);
    let mut from_text: Vec<Vec<Frame>> = Vec::new();
    for l in text.lines() {
        if l.starts_with('+') || l.starts_with("[pid ") {
            from_text.push(Vec::new());
        } else if let Some(f) = l.strip_prefix("    ") {
            let f = match stop {
                Stop::Break(_) => f,
                Stop::Watch(_) => f.split_once(' ').expect("#N frame").1,
            };
            let (name, rest) = f.split_once('(').expect("arguments");
            let (args, loc) = rest.split_once(')').expect("arguments");
            from_text.last_mut().expect("hit line first").push((
                name.to_string(),
                split_args(args),
                line_of(loc),
            ));
        }
    }
    let json = rtrace(stop, &["--json", "--bt"], prog);
    common::schema::Schemas::load()
        .check_lines(&format!("{tool}.schema.json"), &json)
        .unwrap_or_else(|e| panic!("{e}\n{json}"));
    let from_json: Vec<Vec<Frame>> = json
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "hit")
        .map(|v| {
            let bt = v[bt_key].as_array().expect("backtrace");
            let args = v["bt_args"].as_array().expect("bt_args");
            assert_eq!(bt.len(), args.len(), "{v}");
            bt.iter()
                .zip(args)
                .map(|(f, a)| {
                    let f = f.as_str().expect("frame");
                    (frame_name(f).to_string(), json_args(a), line_of(f))
                })
                .collect()
        })
        .collect();
    assert_eq!(
        from_text, from_json,
        "text and JSON differ:\n{text}\n{json}"
    );
    from_text
}

/// JSON arguments in gdb's words: `entry` equal to `value` is
/// `n=n@entry=V`, another `entry` a second item `n@entry=E`.
fn json_args(a: &Value) -> Vec<String> {
    let text = |v: &Value| match v {
        Value::Object(o) => o["sym"].as_str().expect("sym").to_string(),
        v => v.to_string(),
    };
    let mut out = Vec::new();
    for arg in a.as_array().expect("arguments") {
        let name = arg["name"].as_str().expect("name");
        let value = text(&arg["value"]);
        match arg.get("entry") {
            None => out.push(format!("{name}={value}")),
            Some(e) if *e == arg["value"] => out.push(format!("{name}={name}@entry={value}")),
            Some(e) => {
                out.push(format!("{name}={value}"));
                out.push(format!("{name}@entry={}", text(e)));
            }
        }
    }
    out
}

/// Every stop's frames as gdb's: names and arguments; lines of the outer
/// frames (rtrace's breakpoint may sit past gdb's in the innermost one).
fn same_as_gdb(stop: Stop, prog: &Path) -> Vec<Vec<Frame>> {
    let gdb = gdb_stops(stop, prog);
    let ours = our_stops(stop, prog);
    assert_eq!(ours.len(), gdb.len(), "stops:\nours {ours:?}\ngdb {gdb:?}");
    for (o, g) in ours.iter().zip(&gdb) {
        let strip = |s: &[Frame]| -> Vec<Frame> {
            s.iter()
                .enumerate()
                .map(|(i, f)| (f.0.clone(), f.1.clone(), if i == 0 { 0 } else { f.2 }))
                .collect()
        };
        assert_eq!(strip(o), strip(g), "\nours {o:?}\ngdb {g:?}");
    }
    gdb
}

/// The arguments of function `func`'s frames, over all stops.
fn args_of<'a>(stops: &'a [Vec<Frame>], func: &str) -> Vec<&'a [String]> {
    stops
        .iter()
        .flatten()
        .filter(|f| f.0 == func)
        .map(|f| &f.1[..])
        .collect()
}

#[test]
fn entry_values_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb not installed");
        return;
    }
    let prog = common::testprog_variant("bt_entry", "O2", &["-O2"]);
    let gdb = same_as_gdb(Stop::Break("leaf"), &prog);
    // The program is built so that gdb shows every form.
    assert_eq!(args_of(&gdb, "same"), [["n=n@entry=5"]]);
    assert_eq!(args_of(&gdb, "changed"), [["n=20", "n@entry=5"]]);
    assert_eq!(args_of(&gdb, "dead"), [["n=n@entry=7"], ["n=n@entry=7"]]);
    let lost = args_of(&gdb, "lost");
    assert_eq!(lost[1], ["n=<optimized out>"], "{lost:?}");
    assert_eq!(args_of(&gdb, "pair")[0], ["a=a@entry=11", "b=b@entry=12"]);
}

#[test]
fn tail_call_frame_arguments_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb not installed");
        return;
    }
    let prog = common::testprog_variant("bt_tailcall", "O2", &["-O2"]);
    let gdb = same_as_gdb(Stop::Break("use"), &prog);
    // f is the tail-call frame in g's stops; lost's x is optimized out.
    let names: Vec<&str> = gdb[1].iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["use", "g", "f", "h", "main"], "{gdb:?}");
    assert_eq!(gdb[1][2].1, ["n=n@entry=5"]);
    assert!(
        args_of(&gdb, "lost").contains(&&["x=<optimized out>".to_string()][..]),
        "{gdb:?}"
    );
}

/// The hit line names the arguments as gdb's `Breakpoint N, FUNC (ARGS)`.
#[test]
fn hit_line_has_entry_values() {
    if !common::have("gdb") {
        eprintln!("skip: gdb not installed");
        return;
    }
    let prog = common::testprog_variant("bt_entry", "O2", &["-O2"]);
    let text = rtrace_break(&["leaf"], &prog);
    let ours: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once("] leaf(")?.1.split_once(')'))
        .map(|(args, _)| args)
        .collect();
    let gdb = gdb_stops(Stop::Break("leaf"), &prog);
    let want: Vec<String> = gdb.iter().map(|s| s[0].1.join(", ")).collect();
    assert_eq!(ours, want, "{text}");
}

/// `rtrace watch --bt` frames carry their arguments as `rtrace break
/// --bt` frames do: at each write of the global `sink` (in leaf(), from
/// each caller), the frames of gdb's `bt` at its `watch sink` stops,
/// argument by argument, entry values included.
#[test]
fn watch_bt_arguments_as_gdb() {
    if !common::have("gdb") {
        eprintln!("skip: gdb not installed");
        return;
    }
    let prog = common::testprog_variant("bt_entry", "O2", &["-O2"]);
    let gdb = same_as_gdb(Stop::Watch("sink"), &prog);
    // A write from each call of leaf(), each with its caller's forms.
    assert_eq!(gdb.len(), 8, "{gdb:?}");
    assert_eq!(args_of(&gdb, "changed"), [["n=20", "n@entry=5"]]);
    assert_eq!(args_of(&gdb, "pair")[0], ["a=a@entry=11", "b=b@entry=12"]);
}
