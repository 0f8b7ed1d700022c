//! Output of `rtrace break`: one record per hit or return, as text or JSON
//! Lines from the same [`Record`], and the `--count` table.
//!
//! Text:
//!
//! ```text
//! +0.000123 [pid 100 tid 101] fib (bp_fib.c:4) @0x55d0c0a01139
//! +0.000456 [pid 100 tid 101]   ret fib -> 5 (0x5) in 3.2us
//! ```
//!
//! Nested return-probed calls are indented two spaces per level.

use rtrace_arch::x86_64::REG_NAMES;
use serde_json::{json, Map, Value as J};
use std::io::Write;
use std::time::Duration;

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
        bt: Option<&'a [String]>,
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
    },
}

/// Where records go.
pub struct Sink {
    out: Box<dyn Write>,
    json: bool,
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

fn regs_json(regs: &[u64]) -> J {
    let mut m = Map::new();
    for (n, v) in REG_NAMES.iter().zip(regs) {
        m.insert(n.to_string(), json!(v));
    }
    J::Object(m)
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
    pub fn new(out: Box<dyn Write>, json: bool) -> Sink {
        Sink { out, json }
    }

    /// Writes one record.
    pub fn record(&mut self, r: &Record<'_>) {
        let line = if self.json {
            Self::json(r).to_string()
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
                ..
            } => {
                let mut s = format!(
                    "+{:.6} [pid {pid} tid {tid}] {:indent$}{label} @{addr:#x}",
                    time.as_secs_f64(),
                    "",
                    indent = depth * 2
                );
                if let Some(regs) = regs {
                    regs_text(&mut s, regs);
                }
                for f in bt.unwrap_or(&[]) {
                    s.push_str("\n    ");
                    s.push_str(f);
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
                if let Some(regs) = regs {
                    regs_text(&mut s, regs);
                }
                s
            }
        }
    }

    fn json(r: &Record<'_>) -> J {
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
            } => {
                let mut m = json!({
                    "type": "hit", "spec": spec, "pid": pid, "tid": tid,
                    "time": time.as_secs_f64(), "addr": format!("{addr:#x}"),
                    "location": label, "depth": depth,
                });
                if let Some(regs) = regs {
                    m["regs"] = regs_json(regs);
                }
                if let Some(bt) = bt {
                    m["backtrace"] = json!(bt);
                }
                m
            }
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
            } => {
                let mut m = json!({
                    "type": "return", "spec": spec, "pid": pid, "tid": tid,
                    "time": time.as_secs_f64(), "location": label,
                    "retval": retval as i64, "duration_ns": duration.as_nanos() as u64,
                    "depth": depth, "entry_args": args,
                });
                if let Some(regs) = regs {
                    m["regs"] = regs_json(regs);
                }
                m
            }
        }
    }

    /// The `--count` table.
    pub fn table(&mut self, rows: &[(String, u64)]) {
        if self.json {
            for (spec, hits) in rows {
                let _ = writeln!(
                    self.out,
                    "{}",
                    json!({"type": "count", "spec": spec, "hits": hits})
                );
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
        };
        assert_eq!(
            Sink::text(&r),
            "+0.001500 [pid 1 tid 2]   ret fib -> 5 (0x5) in 3.2us"
        );
        let j = Sink::json(&r);
        assert_eq!(j["retval"], 5);
        assert_eq!(j["entry_args"][0], 5);
        assert_eq!(j["depth"], 1);
    }
}
