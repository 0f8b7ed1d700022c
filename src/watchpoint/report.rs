//! What `rtrace watch` prints: hits, notes and the `--count` table, as text
//! or JSON Lines from the same records. Each JSON object kind is a
//! `#[derive(Serialize)]` struct (`HitJson`, `PlaceJson`, `WatchJson`,
//! `NoteJson`): `type` first, then its keys in sorted order.

use super::resolve::Place;
use super::spec::Watch;
use super::value::WatchValue;
use crate::engine::ptrace::Tid;
use crate::probe::disasm::{self, Line};
use crate::probe::frames::{BtArgs, BtEntry};
use rtrace_arch::x86_debugreg::Kind;
use serde::Serialize;
use serde_json::Value as J;
use std::io::{self, Write};

/// How the accessing instruction of a data watchpoint hit was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// Decoded forward from the start of the function containing the pc:
    /// the instruction ending exactly at the pc.
    FromFunctionStart,
    /// Decoded backward from the pc: the only instruction ending at the pc
    /// whose memory operand (addressed with the registers at the trap)
    /// covers the watched range.
    OnlyCandidate,
}

impl Found {
    fn name(self) -> &'static str {
        match self {
            Found::FromFunctionStart => "function-start",
            Found::OnlyCandidate => "only-candidate",
        }
    }
}

/// The instruction that made the access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Where it is.
    pub place: Place,
    /// Its disassembly.
    pub text: String,
    /// How it was found.
    pub found: Found,
}

/// One watchpoint hit.
#[derive(Clone, Debug)]
pub struct Hit<'a> {
    /// The thread.
    pub tid: Tid,
    /// The watch that fired.
    pub watch: &'a Watch,
    /// The value before (data watches).
    pub old: Option<WatchValue>,
    /// The value now (data watches).
    pub new: Option<WatchValue>,
    /// `read`, `write` or `read-write`, when known.
    pub access: Option<&'static str>,
    /// The pc at the trap: for an exec watch the watched instruction, for a
    /// data watch the instruction after the accessing one.
    pub pc: Place,
    /// The accessing instruction (data watches), when it could be found.
    pub site: Option<Site>,
    /// Backtrace frames (with their functions' arguments), with `--bt`.
    pub bt: Option<Vec<BtEntry>>,
    /// `--disasm`: the instructions from the accessing one (data watches)
    /// or the pc.
    pub disasm: Option<Vec<Line>>,
}

/// Where and how the report is written.
pub struct Report {
    out: Box<dyn Write>,
    json: bool,
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

/// A code place's JSON object; the accessing instruction's (`insn`) adds
/// `found` and `text`. Keys in sorted order.
#[derive(Serialize)]
struct PlaceJson<'a> {
    addr: String,
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    found: Option<&'static str>,
    func: Option<&'a str>,
    inlined: Option<&'a str>,
    line: Option<u32>,
    location: String,
    offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

fn place_json(p: &Place) -> PlaceJson<'_> {
    PlaceJson {
        addr: hex(p.addr),
        file: p.file.as_deref(),
        found: None,
        func: p.func.as_deref(),
        inlined: p.inlined.as_deref(),
        line: p.line,
        location: p.to_string(),
        offset: p.off,
        text: None,
    }
}

/// A hit's JSON object (docs/schema/watch.schema.json): `type` first,
/// then the keys in sorted order; `access`, `insn`, `new` and `old` only
/// for data watches (each `null` when unknown).
#[derive(Serialize)]
struct HitJson<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    access: Option<Option<&'static str>>,
    addr: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    bt: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bt_args: Option<BtArgs<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    disasm: Option<disasm::Json<'a>>,
    expr: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    insn: Option<Option<PlaceJson<'a>>>,
    kind: &'static str,
    len: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<J>,
    #[serde(skip_serializing_if = "Option::is_none")]
    old: Option<J>,
    pc: PlaceJson<'a>,
    tid: Tid,
    watch: usize,
}

/// A watch once placed (`watch`, with `slot`, and `cond` when it has a
/// condition), or a row of the `--count` table (`count`, with `hits`).
#[derive(Serialize)]
struct WatchJson<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    addr: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cond: Option<&'a str>,
    expr: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    hits: Option<u64>,
    kind: &'static str,
    len: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    slot: Option<String>,
    watch: usize,
}

impl WatchJson<'_> {
    fn new(ty: &'static str, w: &Watch) -> WatchJson<'static> {
        WatchJson {
            ty,
            addr: hex(w.addr),
            cond: None,
            expr: w.expr.to_string(),
            hits: None,
            kind: w.kind.name(),
            len: w.len,
            slot: None,
            watch: w.id,
        }
    }
}

/// A local watch's activation has returned (`scope`): the caller resumes
/// at `pc`.
#[derive(Serialize)]
struct ScopeJson<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    addr: String,
    expr: String,
    pc: PlaceJson<'a>,
    tid: Tid,
    watch: usize,
}

/// A thread armed or cleared (`tid`), or a note (`message`).
#[derive(Serialize)]
struct NoteJson<'a> {
    #[serde(rename = "type")]
    ty: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tid: Option<Tid>,
}

fn json_text<T: Serialize>(v: &T) -> String {
    let mut s = String::new();
    crate::value::serialize::write_json(&mut s, v);
    s
}

impl Report {
    /// A report to `out`.
    pub fn new(mut out: Box<dyn Write>, json: bool) -> Report {
        if json {
            let _ = out.write_all(crate::value::json_shape::schema_line("watch").as_bytes());
        }
        Report { out, json }
    }

    fn line(&mut self, s: &str) {
        // The report is best effort: a closed pipe must not stop the
        // cleanup that follows.
        // Not flushed per line: stderr is unbuffered, and an `-o` file is
        // paced (output/paced.rs), written out within 100 ms.
        let _ = writeln!(self.out, "{s}");
    }

    /// The text of one hit.
    pub fn hit_text(h: &Hit<'_>) -> String {
        let w = h.watch;
        let mut s = format!("[pid {}] watch {} {} ", h.tid, w.id, w.kind);
        match w.expr {
            super::spec::Expr::Addr { .. } => s.push_str(&format!("*{:#x}:{}", w.addr, w.len)),
            _ => s.push_str(&format!("{} (*{:#x}:{})", w.expr, w.addr, w.len)),
        }
        if w.kind == Kind::Exec {
            s.push_str(&format!(": at {}", h.pc));
        } else {
            let v = |x: &Option<WatchValue>| x.as_ref().map_or("?".to_string(), |v| v.text());
            match h.access {
                Some("read") => s.push_str(&format!(": read {}", v(&h.new))),
                Some(a) => s.push_str(&format!(": {a} old {} new {}", v(&h.old), v(&h.new))),
                None => s.push_str(&format!(": old {} new {}", v(&h.old), v(&h.new))),
            }
            match &h.site {
                Some(site) => {
                    s.push_str(&format!(" by {:#x}", site.place.addr));
                    if site.place.func.is_some() {
                        s.push_str(&format!(" {}", site.place));
                    }
                    s.push_str(&format!(" \"{}\"", site.text));
                    if site.found == Found::OnlyCandidate {
                        // No function start: decoded backward from the pc.
                        s.push_str(" [decoded backward]");
                    }
                    s.push_str(&format!(", pc {:#x}", h.pc.addr));
                }
                None => s.push_str(&format!(
                    " by the instruction before pc {} (not decodable)",
                    h.pc
                )),
            }
        }
        if let Some(d) = &h.disasm {
            s.push_str(&disasm::text(d, h.pc.addr, "    "));
        }
        if let Some(bt) = &h.bt {
            for (i, f) in bt.iter().enumerate() {
                s.push_str(&format!("\n    #{i} {}", f.line()));
            }
        }
        s
    }

    /// The JSON object of one hit.
    pub fn hit_json(h: &Hit<'_>) -> String {
        let w = h.watch;
        let data = w.kind != Kind::Exec;
        let value = |x: &Option<WatchValue>| x.as_ref().map_or(J::Null, |v| v.json());
        json_text(&HitJson {
            ty: "hit",
            access: data.then_some(h.access),
            addr: hex(w.addr),
            bt: h
                .bt
                .as_ref()
                .map(|b| b.iter().map(|e| e.text.as_str()).collect()),
            bt_args: h.bt.as_deref().map(BtArgs),
            disasm: h.disasm.as_deref().map(|d| disasm::Json(d, h.pc.addr)),
            expr: w.expr.to_string(),
            insn: data.then(|| {
                h.site.as_ref().map(|site| PlaceJson {
                    found: Some(site.found.name()),
                    text: Some(&site.text),
                    ..place_json(&site.place)
                })
            }),
            kind: w.kind.name(),
            len: w.len,
            new: data.then(|| value(&h.new)),
            old: data.then(|| value(&h.old)),
            pc: place_json(&h.pc),
            tid: h.tid,
            watch: w.id,
        })
    }

    /// Prints one hit.
    pub fn hit(&mut self, h: &Hit<'_>) {
        let s = if self.json {
            Self::hit_json(h)
        } else {
            Self::hit_text(h)
        };
        self.line(&s);
    }

    /// A thread's debug registers were set (`armed`) or cleared (`cleared`);
    /// printed in JSON, and as text when `text` is set.
    pub fn thread(&mut self, what: &str, tid: Tid, text: bool) {
        if self.json {
            self.line(&json_text(&NoteJson {
                ty: what,
                message: None,
                tid: Some(tid),
            }));
        } else if text {
            self.line(&format!("rtrace watch: [pid {tid}] watchpoints {what}"));
        }
    }

    /// The watches, once their addresses are known, with their
    /// conditions (`conds[i]` of `plan[i]`).
    pub fn plan(&mut self, plan: &[Watch], conds: &[Option<&str>]) {
        for (i, w) in plan.iter().enumerate() {
            let cond = conds.get(i).copied().flatten();
            if self.json {
                let o = WatchJson {
                    cond,
                    slot: Some(w.slots_text()),
                    ..WatchJson::new("watch", w)
                };
                self.line(&json_text(&o));
            } else {
                self.line(&format!(
                    "rtrace watch: watch {}: {} {} at {:#x}, {} byte{} ({}){}",
                    w.id,
                    w.kind,
                    w.expr,
                    w.addr,
                    w.len,
                    if w.len == 1 { "" } else { "s" },
                    w.slots_text(),
                    cond.map_or(String::new(), |c| format!(" if {c}"))
                ));
            }
        }
    }

    /// The activation a `func:var` watch was placed in has returned
    /// (gdb: "Watchpoint N deleted because the program has left the block
    /// in which its expression is valid."); the caller resumes at `at`.
    pub fn left_scope(&mut self, tid: Tid, w: &Watch, at: &Place) {
        if self.json {
            self.line(&json_text(&ScopeJson {
                ty: "scope",
                addr: hex(w.addr),
                expr: w.expr.to_string(),
                pc: place_json(at),
                tid,
                watch: w.id,
            }));
        } else {
            let func = match &w.expr {
                super::spec::Expr::Local { func, .. } => func.as_str(),
                _ => "its function",
            };
            self.line(&format!(
                "[pid {tid}] watch {} {}: out of scope, {func} returned; continuing at {:#x} in {}",
                w.id, w.expr, at.addr, at
            ));
        }
    }

    /// A message for the user.
    pub fn note(&mut self, msg: &str) {
        if self.json {
            self.line(&json_text(&NoteJson {
                ty: "note",
                message: Some(msg),
                tid: None,
            }));
        } else {
            self.line(&format!("rtrace watch: {msg}"));
        }
    }

    /// The `--count` table.
    pub fn counts(&mut self, plan: &[Watch], hits: &[u64]) {
        if self.json {
            for (w, n) in plan.iter().zip(hits) {
                let o = WatchJson {
                    hits: Some(*n),
                    ..WatchJson::new("count", w)
                };
                self.line(&json_text(&o));
            }
            return;
        }
        self.line(&format!(
            "{:>5} {:>5} {:>18} {:>3} {:>10}  expr",
            "watch", "kind", "address", "len", "hits"
        ));
        for (w, n) in plan.iter().zip(hits) {
            self.line(&format!(
                "{:>5} {:>5} {:>18} {:>3} {:>10}  {}",
                w.id,
                w.kind.name(),
                hex(w.addr),
                w.len,
                n,
                w.expr
            ));
        }
    }

    /// Flushes.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watchpoint::spec::{Expr, Piece, Watch};
    use rtrace_arch::x86_debugreg::Slot;

    fn watch(kind: Kind) -> Watch {
        Watch {
            id: 1,
            expr: Expr::Symbol("counter".into()),
            addr: 0x4010,
            len: 4,
            kind,
            pieces: vec![Piece {
                slot: Slot::new(0).unwrap(),
                addr: 0x4010,
                len: 4,
            }],
        }
    }

    #[test]
    fn renders_a_write_hit() {
        let w = watch(Kind::Write);
        let place = |addr, off| Place {
            addr,
            func: Some("bump".into()),
            off: Some(off),
            file: Some("wp.c".into()),
            line: Some(9),
            ..Place::default()
        };
        let h = Hit {
            tid: 7,
            watch: &w,
            old: Some(WatchValue::Int { value: 1, len: 4 }),
            new: Some(WatchValue::Int { value: 2, len: 4 }),
            access: Some("write"),
            pc: place(0x1010, 0x10),
            site: Some(Site {
                place: place(0x1006, 6),
                text: "movl $0x2,0x2ff4(%rip)".into(),
                found: Found::FromFunctionStart,
            }),
            bt: None,
            disasm: None,
        };
        assert_eq!(
            Report::hit_text(&h),
            "[pid 7] watch 1 write counter (*0x4010:4): write old 1 (0x1) new 2 (0x2) \
             by 0x1006 bump+0x6 (wp.c:9) \"movl $0x2,0x2ff4(%rip)\", pc 0x1010"
        );
        let j: J = serde_json::from_str(&Report::hit_json(&h)).unwrap();
        assert_eq!(j["old"]["dec"], 1);
        assert_eq!(j["new"]["hex"], "0x2");
        assert_eq!(j["insn"]["addr"], "0x1006");
        assert_eq!(j["insn"]["line"], 9);
        assert_eq!(j["insn"]["found"], "function-start");
        assert_eq!(j["pc"]["offset"], 0x10);
        assert!(j.get("disasm").is_none());
        // --disasm: from the accessing instruction; `=>` marks the pc.
        let line = |addr, sym: &str, text: &str| Line {
            addr,
            symbol: Some(sym.into()),
            text: text.into(),
        };
        let h = Hit {
            disasm: Some(vec![
                line(0x1006, "bump+6", "movl   $0x2,0x2ff4(%rip)        # 0x4010"),
                line(0x1010, "bump+16", "nop"),
            ]),
            ..h
        };
        assert!(Report::hit_text(&h).ends_with(
            "pc 0x1010\
             \n       0x1006 <bump+6>:\tmovl   $0x2,0x2ff4(%rip)        # 0x4010\
             \n    => 0x1010 <bump+16>:\tnop"
        ));
        let j: J = serde_json::from_str(&Report::hit_json(&h)).unwrap();
        assert_eq!(j["disasm"][0]["pc"], false);
        assert_eq!(j["disasm"][1]["pc"], true);
        assert_eq!(j["disasm"][1]["symbol"], "bump+16");
    }

    #[test]
    fn renders_an_exec_hit() {
        let w = watch(Kind::Exec);
        let h = Hit {
            tid: 7,
            watch: &w,
            old: None,
            new: None,
            access: None,
            pc: Place {
                addr: 0x4010,
                ..Place::default()
            },
            site: None,
            bt: Some(vec![BtEntry::plain("main+0x5".into())]),
            disasm: None,
        };
        assert_eq!(
            Report::hit_text(&h),
            "[pid 7] watch 1 exec counter (*0x4010:4): at 0x4010\n    #0 main+0x5"
        );
        let j: J = serde_json::from_str(&Report::hit_json(&h)).unwrap();
        assert!(j.get("old").is_none());
    }
}
