//! Output of `rtrace break`: one record per hit or return, as text or JSON
//! Lines from the same [`Record`], and the `--count` table.
//!
//! Text: a hit with DWARF for its address prints gdb's frame line,
//! `func(name=value, …) at file:line`, arguments by name in declaration
//! order, values as strace renders them (integers in decimal, enums by
//! enumerator name, pointers in hex, `char *` as a quoted string of at most
//! 32 bytes, structs one level deep as `{x=1, y=2}`, `<optimized out>`);
//! `--locals` adds one `name = value` line per local, innermost block
//! first. Without DWARF the site's `func+0xoff (file:line)` label stands.
//!
//! ```text
//! +0.000123 [pid 100 tid 101] fib(n=5) at bp_fib.c:9 @0x55d0c0a01139
//!     i = 0
//! +0.000456 [pid 100 tid 101]   ret fib -> 5 (0x5) in 3.2us
//! ```
//!
//! A parameter whose value at the function's entry is known (optimized
//! code: the caller's DWARF call site says what it passed) prints as gdb's
//! default `print entry-values` does: `n=n@entry=5` when it still has that
//! value, `n=6, n@entry=5` when not. `--bt` frames with DWARF show their
//! function's arguments the same way after the name:
//! `g(n=n@entry=5)+0x0 (t.c:18) [/bin/t]`.
//!
//! JSON hit records carry `function`, and `args`/`locals` as arrays of
//! `{"name", "type", "value"}` (a parameter's value at entry as `entry`,
//! when known), `bt_args` beside `backtrace` (per frame its arguments, or
//! null), with the value in rtrace's JSON value form
//! (the value layer's `Serialize`). Each JSON object kind is a
//! `#[derive(Serialize)]` struct here (`HitJson`, `ReturnJson`,
//! `KilledJson`, `CountJson`): `type` first, then its keys in sorted
//! order.
//!
//! Nested return-probed calls are indented two spaces per level.

use crate::probe::disasm::{self, Line};
use crate::probe::frames::{args_text, named_text, BtArgs, NamedList};
pub use crate::probe::frames::{BtEntry, Named};
use rtrace_arch::x86_64::REG_NAMES;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, SystemTime};

/// What happened at one stop.
pub enum Record<'a> {
    /// A breakpoint fired.
    Hit {
        /// The spec as written.
        spec: &'a str,
        /// Process.
        pid: i32,
        /// Thread.
        tid: i32,
        /// Since rtrace started.
        time: Duration,
        /// Breakpoint address.
        addr: u64,
        /// `func+off (file:line)`.
        label: &'a str,
        /// Return probes pending in this thread.
        depth: usize,
        /// Registers (`--regs`).
        regs: Option<&'a [u64]>,
        /// Frames (`--bt`).
        bt: Option<&'a [BtEntry]>,
        /// The function and its arguments from DWARF, if there is DWARF
        /// for the address.
        frame: Option<&'a FrameVals>,
        /// Locals visible at the address (`--locals`).
        locals: Option<&'a [Named]>,
        /// The instructions at the address (`--disasm`).
        disasm: Option<&'a [Line]>,
        /// `--print` expressions and their values.
        prints: &'a [Named],
    },
    /// A probed function returned.
    Return {
        /// The spec as written.
        spec: &'a str,
        /// Process.
        pid: i32,
        /// Thread.
        tid: i32,
        /// Since rtrace started.
        time: Duration,
        /// The function.
        label: &'a str,
        /// The integer return register.
        retval: u64,
        /// Time in the call.
        duration: Duration,
        /// Return probes still pending in this thread.
        depth: usize,
        /// Argument registers at entry.
        args: [u64; 6],
        /// Registers at the return (`--regs`).
        regs: Option<&'a [u64]>,
        /// `--print` expressions and their values.
        prints: &'a [Named],
    },
}

/// The DWARF view of the function a hit is in.
#[derive(Clone, Debug)]
pub struct FrameVals {
    /// The function's name from DWARF.
    pub function: String,
    /// Its parameters, in declaration order.
    pub args: Vec<Named>,
}

/// `func(a=1, s="x") at file.c:12` from the DWARF frame and the site's
/// `func+0xoff (file.c:12)` label.
fn frame_line(f: &FrameVals, label: &str) -> String {
    let mut s = format!("{}({})", f.function, args_text(&f.args));
    if let Some(at) = label
        .rsplit_once(" (")
        .and_then(|(_, r)| r.strip_suffix(')'))
    {
        s.push_str(" at ");
        s.push_str(at);
    }
    s
}

/// Where records go.
pub struct Sink {
    out: Box<dyn Write>,
    json: bool,
    /// Wall-clock time at the start records' times count from.
    origin: SystemTime,
}

fn regs_text(out: &mut String, regs: &[u64]) {
    for (i, (n, v)) in REG_NAMES.iter().zip(regs).enumerate() {
        if i % 4 == 0 {
            out.push_str("\n    ");
        } else {
            out.push(' ');
        }
        out.push_str(&format!("{n:>8}={v:#018x}"));
    }
}

/// `--regs` as a JSON object, register names in sorted order.
fn regs_json(regs: &[u64]) -> BTreeMap<&'static str, u64> {
    REG_NAMES
        .iter()
        .copied()
        .zip(regs.iter().copied())
        .collect()
}

/// A hit's JSON object (docs/schema/break.schema.json): `type` first,
/// then the keys in sorted order.
#[derive(Serialize)]
struct HitJson<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    addr: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<NamedList<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    backtrace: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bt_args: Option<BtArgs<'a>>,
    depth: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    disasm: Option<disasm::Json<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    locals: Option<NamedList<'a>>,
    location: &'a str,
    pid: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    print: Option<NamedList<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    regs: Option<BTreeMap<&'static str, u64>>,
    spec: &'a str,
    tid: i32,
    ts_ns: u64,
}

/// A return's JSON object (docs/schema/break.schema.json).
#[derive(Serialize)]
struct ReturnJson<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    depth: usize,
    dur_ns: u64,
    entry_args: [u64; 6],
    location: &'a str,
    pid: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    print: Option<NamedList<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    regs: Option<BTreeMap<&'static str, u64>>,
    retval: i64,
    spec: &'a str,
    tid: i32,
    ts_ns: u64,
}

/// A traced process killed by a signal.
#[derive(Serialize)]
struct KilledJson<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    pid: i32,
    signal: &'a str,
    ts_ns: u64,
}

/// One row of the `--count` table.
#[derive(Serialize)]
struct CountJson<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    hits: u64,
    spec: &'a str,
}

fn json_text<T: Serialize>(v: &T) -> String {
    let mut s = String::new();
    crate::value::serialize::write_json(&mut s, v);
    s
}

fn micros(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.1}us")
    } else if us < 1e6 {
        format!("{:.3}ms", us / 1e3)
    } else {
        format!("{:.6}s", us / 1e6)
    }
}

impl Sink {
    /// A sink writing to `out`.
    pub fn new(mut out: Box<dyn Write>, json: bool) -> Sink {
        if json {
            let _ = out.write_all(crate::value::json_shape::schema_line("break").as_bytes());
        }
        Sink {
            out,
            json,
            origin: SystemTime::now(),
        }
    }

    /// The wall-clock time of the moment record times count from (read
    /// together with the `Instant` they are measured against): JSON
    /// `ts_ns` is this plus a record's time.
    pub fn set_origin(&mut self, wall: SystemTime) {
        self.origin = wall;
    }

    fn ts_ns(&self, since: Duration) -> u64 {
        crate::value::json::unix_ns(self.origin + since)
    }

    /// Writes one record.
    pub fn record(&mut self, r: &Record<'_>) {
        let line = if self.json {
            self.json(r)
        } else {
            Self::text(r)
        };
        let _ = writeln!(self.out, "{line}");
    }

    fn text(r: &Record<'_>) -> String {
        match *r {
            Record::Hit {
                pid,
                tid,
                time,
                addr,
                label,
                depth,
                regs,
                bt,
                frame,
                locals,
                disasm,
                prints,
                ..
            } => {
                let place = match frame {
                    Some(f) => frame_line(f, label),
                    None => label.to_string(),
                };
                let mut s = format!(
                    "+{:.6} [pid {pid} tid {tid}] {:indent$}{place} @{addr:#x}",
                    time.as_secs_f64(),
                    "",
                    indent = depth * 2
                );
                for l in locals.unwrap_or(&[]).iter().chain(prints) {
                    s.push_str(&format!("\n    {} = {}", l.name, named_text(l)));
                }
                if let Some(regs) = regs {
                    regs_text(&mut s, regs);
                }
                if let Some(d) = disasm {
                    s.push_str(&disasm::text(d, addr, "    "));
                }
                for f in bt.unwrap_or(&[]) {
                    s.push_str("\n    ");
                    s.push_str(&f.line());
                }
                s
            }
            Record::Return {
                pid,
                tid,
                time,
                label,
                retval,
                duration,
                depth,
                regs,
                prints,
                ..
            } => {
                let mut s = format!(
                    "+{:.6} [pid {pid} tid {tid}] {:indent$}ret {label} -> {} ({retval:#x}) in {}",
                    time.as_secs_f64(),
                    "",
                    retval as i64,
                    micros(duration),
                    indent = depth * 2
                );
                for l in prints {
                    s.push_str(&format!("\n    {} = {}", l.name, named_text(l)));
                }
                if let Some(regs) = regs {
                    regs_text(&mut s, regs);
                }
                s
            }
        }
    }

    fn json(&self, r: &Record<'_>) -> String {
        match *r {
            Record::Hit {
                spec,
                pid,
                tid,
                time,
                addr,
                label,
                depth,
                regs,
                bt,
                frame,
                locals,
                disasm,
                prints,
            } => json_text(&HitJson {
                ty: "hit",
                addr: format!("{addr:#x}"),
                args: frame.map(|f| NamedList(&f.args)),
                backtrace: bt.map(|b| b.iter().map(|e| e.text.as_str()).collect()),
                bt_args: bt.map(BtArgs),
                depth,
                disasm: disasm.map(|d| disasm::Json(d, addr)),
                function: frame.map(|f| f.function.as_str()),
                locals: locals.map(NamedList),
                location: label,
                pid,
                print: (!prints.is_empty()).then_some(NamedList(prints)),
                regs: regs.map(regs_json),
                spec,
                tid,
                ts_ns: self.ts_ns(time),
            }),
            Record::Return {
                spec,
                pid,
                tid,
                time,
                label,
                retval,
                duration,
                depth,
                args,
                regs,
                prints,
            } => json_text(&ReturnJson {
                ty: "return",
                depth,
                dur_ns: duration.as_nanos() as u64,
                entry_args: args,
                location: label,
                pid,
                print: (!prints.is_empty()).then_some(NamedList(prints)),
                regs: regs.map(regs_json),
                retval: retval as i64,
                spec,
                tid,
                ts_ns: self.ts_ns(time),
            }),
        }
    }

    /// A traced process died of signal `sig`, like strace's
    /// `+++ killed by SIGKILL +++` (the hits before it are not the whole
    /// story).
    pub fn killed(&mut self, pid: i32, time: Duration, sig: i32) {
        let name = crate::syscall::ctx::signal_name(sig as u64)
            .map_or_else(|| sig.to_string(), |n| n.into_owned());
        let line = if self.json {
            json_text(&KilledJson {
                ty: "killed",
                pid,
                signal: &name,
                ts_ns: self.ts_ns(time),
            })
        } else {
            format!(
                "+{:.6} [pid {pid}] +++ killed by {name} +++",
                time.as_secs_f64()
            )
        };
        let _ = writeln!(self.out, "{line}");
    }

    /// The `--count` table.
    pub fn table(&mut self, rows: &[(String, u64)]) {
        if self.json {
            for (spec, hits) in rows {
                let row = CountJson {
                    ty: "count",
                    hits: *hits,
                    spec,
                };
                let _ = writeln!(self.out, "{}", json_text(&row));
            }
            return;
        }
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
        let _ = writeln!(self.out, "{:<w$}  {:>10}", "spec", "hits");
        let _ = writeln!(self.out, "{:-<w$}  {:->10}", "", "");
        for (spec, hits) in rows {
            let _ = writeln!(self.out, "{spec:<w$}  {hits:>10}");
        }
    }

    /// Flushes buffered output.
    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;
    use crate::vars::EntryValue;

    #[test]
    fn entry_values_print_as_gdb_default() {
        let mut a = Named::new("n".into(), "int".into(), Value::Int(5));
        a.entry = Some(EntryValue::Same);
        let mut b = Named::new("m".into(), "int".into(), Value::Int(20));
        b.entry = Some(EntryValue::Differs(Value::Int(5)));
        let c = Named::new("k".into(), "int".into(), Value::sym("<optimized out>"));
        assert_eq!(
            args_text(&[a, b, c]),
            "n=n@entry=5, m=20, m@entry=5, k=<optimized out>"
        );
    }

    #[test]
    fn hit_prints_a_frame_line_and_locals() {
        let named = |name: &str, ty: &str, value| Named::new(name.into(), ty.into(), value);
        let frame = FrameVals {
            function: "visit".into(),
            args: vec![
                named("n", "int", Value::Int(3)),
                named("m", "enum mode", Value::sym("SLOW")),
                named("p", "struct point *", Value::Hex(0x1000)),
            ],
        };
        let locals = [named("sum", "int", Value::Int(6))];
        let disasm = [Line {
            addr: 0x1008,
            symbol: Some("visit+8".into()),
            text: "mov    $0x0,%eax".into(),
        }];
        let prints = [named("p->x", "int", Value::Int(7))];
        let r = Record::Hit {
            spec: "visit",
            pid: 1,
            tid: 1,
            time: Duration::from_micros(2),
            addr: 0x1008,
            label: "visit+0x8 (bp_args.c:26)",
            depth: 0,
            regs: None,
            bt: None,
            frame: Some(&frame),
            locals: Some(&locals),
            disasm: Some(&disasm),
            prints: &prints,
        };
        assert_eq!(
            Sink::text(&r),
            "+0.000002 [pid 1 tid 1] visit(n=3, m=SLOW, p=0x1000) at bp_args.c:26 @0x1008\n    sum = 6\n    p->x = 7\
             \n    => 0x1008 <visit+8>:\tmov    $0x0,%eax"
        );
        let j: serde_json::Value =
            serde_json::from_str(&Sink::new(Box::new(std::io::sink()), true).json(&r)).unwrap();
        assert_eq!(j["function"], "visit");
        assert_eq!(
            j["args"][0],
            serde_json::json!({"name": "n", "type": "int", "value": 3})
        );
        assert_eq!(j["args"][1]["value"], serde_json::json!({"sym": "SLOW"}));
        assert_eq!(j["locals"][0]["name"], "sum");
        assert_eq!(j["disasm"][0]["text"], "mov    $0x0,%eax");
        assert_eq!(j["disasm"][0]["pc"], true);
        assert_eq!(
            j["print"][0],
            serde_json::json!({"name": "p->x", "type": "int", "value": 7})
        );
    }

    #[test]
    fn text_and_json_agree() {
        let r = Record::Return {
            spec: "ret:fib",
            pid: 1,
            tid: 2,
            time: Duration::from_micros(1500),
            label: "fib",
            retval: 5,
            duration: Duration::from_nanos(3200),
            depth: 1,
            args: [5, 0, 0, 0, 0, 0],
            regs: None,
            prints: &[],
        };
        assert_eq!(
            Sink::text(&r),
            "+0.001500 [pid 1 tid 2]   ret fib -> 5 (0x5) in 3.2us"
        );
        let line = Sink::new(Box::new(std::io::sink()), true).json(&r);
        assert!(
            line.starts_with("{\"type\":\"return\",\"depth\":1,"),
            "{line}"
        );
        let j: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(j["retval"], 5);
        assert_eq!(j["entry_args"][0], 5);
        assert_eq!(j["depth"], 1);
    }
}
