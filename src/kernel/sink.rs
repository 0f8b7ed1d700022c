//! What happens to decoded kernel events: streamed as text or JSON Lines,
//! counted per event (`-c`), counted per value of a field (`--by`), or
//! gathered into a log2 histogram of a numeric field (`--hist`).

use super::event::{json_line, text_line, Comms, KEvent};
use super::tracefs::Tracefs;
use crate::output::paced::Paced;
use crate::value::text::{render_value, RenderOpts};
use crate::value::Value;
use std::collections::HashMap;
use std::io::Write;

/// The output mode of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// One line per event.
    Stream,
    /// `-c`: events per event name.
    Count,
    /// `--by FIELD`: events per value of FIELD.
    By(String),
    /// `--hist FIELD`: log2 histogram of FIELD.
    Hist(String),
}

/// A function applied to every event before it is rendered.
pub type Hook = Box<dyn FnMut(&mut KEvent)>;

/// Consumes events and prints them or a summary.
pub struct Sink {
    mode: Mode,
    json: bool,
    comms: Comms,
    out: std::io::BufWriter<Box<dyn Write>>,
    counts: HashMap<String, u64>,
    hist: HashMap<i32, u64>,
    line: String,
    hook: Option<Hook>,
    /// Events seen.
    pub seen: u64,
}

impl Sink {
    /// A sink for `mode` writing to `out` (see [`open_output`]); `json`
    /// selects JSON Lines.
    pub fn new(top: &Tracefs, mode: Mode, json: bool, out: Box<dyn Write>) -> Sink {
        let mut out = std::io::BufWriter::new(out);
        if json && mode == Mode::Stream {
            let line = crate::value::json_shape::schema_line("kernel");
            let _ = out.write_all(line.as_bytes());
        }
        Sink {
            mode,
            json,
            comms: Comms::with_saved(top),
            out,
            counts: HashMap::new(),
            hist: HashMap::new(),
            line: String::new(),
            hook: None,
            seen: 0,
        }
    }

    /// Sets a function applied to every event first (symbolisation).
    pub fn set_hook(&mut self, hook: Hook) {
        self.hook = Some(hook);
    }

    /// Takes one event; false when output can no longer be written.
    pub fn event(&mut self, mut ev: KEvent) -> bool {
        self.seen += 1;
        if let Some(h) = self.hook.as_mut() {
            h(&mut ev);
        }
        match &self.mode {
            Mode::Stream => {
                self.line.clear();
                let comm = self.comms.get(ev.pid).to_string();
                if self.json {
                    json_line(&mut self.line, &ev, &comm);
                } else {
                    text_line(&mut self.line, &ev, &comm);
                }
                self.line.push('\n');
                self.out.write_all(self.line.as_bytes()).is_ok()
            }
            Mode::Count => {
                *self
                    .counts
                    .entry(format!("{}:{}", ev.format.system, ev.format.name))
                    .or_default() += 1;
                true
            }
            Mode::By(field) => {
                let key = if field == "comm" {
                    self.comms.get(ev.pid).to_string()
                } else {
                    let mut s = String::new();
                    match ev.field(field) {
                        Some(v) => render_value(&mut s, &v, &RenderOpts::default()),
                        None => s.push_str("<none>"),
                    }
                    s
                };
                *self.counts.entry(key).or_default() += 1;
                true
            }
            Mode::Hist(field) => {
                let b = match ev.field(field) {
                    Some(Value::Int(i)) => bucket_signed(i),
                    Some(Value::UInt(u) | Value::Hex(u)) => bucket(u),
                    _ => return true,
                };
                *self.hist.entry(b).or_default() += 1;
                true
            }
        }
    }

    /// Flushes streamed output (after each batch).
    pub fn flush(&mut self) -> bool {
        self.comms.clear();
        self.out.flush().is_ok()
    }

    /// Prints the summary of a counting mode.
    pub fn finish(&mut self, missed: u64) {
        let mut s = String::new();
        match &self.mode {
            Mode::Stream => {}
            Mode::Count | Mode::By(_) => {
                let mut rows: Vec<_> = self.counts.iter().collect();
                rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                if self.json {
                    let m: serde_json::Map<_, _> = rows
                        .iter()
                        .map(|(k, v)| ((*k).clone(), serde_json::json!(v)))
                        .collect();
                    s = serde_json::Value::Object(m).to_string();
                    s.push('\n');
                } else {
                    let head = match &self.mode {
                        Mode::By(f) => f.as_str(),
                        _ => "event",
                    };
                    s.push_str(&format!("{:>12}  {head}\n", "count"));
                    for (k, v) in rows {
                        s.push_str(&format!("{v:>12}  {k}\n"));
                    }
                }
            }
            Mode::Hist(field) => s = render_hist(field, &self.hist),
        }
        if missed > 0 {
            eprintln!("rtrace: the kernel dropped events ({missed} lost or flagged pages)");
        }
        let _ = self.out.write_all(s.as_bytes());
        let _ = self.out.flush();
    }
}

/// Where events go: the file of `-o FILE` (created or truncated, as
/// strace's `-o`), else stdout. Opened before anything is set up in tracefs,
/// so a path that cannot be written changes nothing there. A file is
/// block-buffered and written out every 50 ms ([`Paced`]), so `tail -f`
/// follows it and a killed rtrace loses at most the last moment.
pub fn open_output(path: Option<&str>) -> Result<Box<dyn Write>, String> {
    match path {
        None => Ok(Box::new(std::io::stdout())),
        Some(p) => {
            let f = std::fs::File::create(p)
                .map_err(|e| format!("cannot write the output file '{p}' (-o): {e}"))?;
            crate::output::paced::start();
            Ok(Box::new(Paced::new(f)))
        }
    }
}

/// The log2 bucket of a value, as bpftrace's hist(): bucket 0 holds 0,
/// bucket k ≥ 1 holds [2^(k-1), 2^k); negative values mirror that.
fn bucket(v: u64) -> i32 {
    if v == 0 {
        0
    } else {
        64 - v.leading_zeros() as i32
    }
}

fn bucket_signed(v: i64) -> i32 {
    if v < 0 {
        -bucket(v.unsigned_abs())
    } else {
        bucket(v as u64)
    }
}

fn range_label(b: i32) -> String {
    fn pow(k: i32) -> String {
        let v: u128 = 1u128 << (k - 1);
        match k - 1 {
            n if n >= 30 => format!("{}G", v >> 30),
            n if n >= 20 => format!("{}M", v >> 20),
            n if n >= 10 => format!("{}K", v >> 10),
            _ => v.to_string(),
        }
    }
    match b {
        0 => "[0]".into(),
        1 => "[1]".into(),
        b if b > 0 => format!("[{}, {})", pow(b), pow(b + 1)),
        b => format!("(-{}, -{}]", pow(-b + 1), pow(-b)),
    }
}

/// A bpftrace-style histogram (`[4, 8)   3 |@@@@   |`).
pub fn render_hist(field: &str, h: &HashMap<i32, u64>) -> String {
    let mut s = format!("@{field}:\n");
    if h.is_empty() {
        return s;
    }
    let lo = *h.keys().min().unwrap_or(&0);
    let hi = *h.keys().max().unwrap_or(&0);
    let max = *h.values().max().unwrap_or(&1);
    for b in lo..=hi {
        let n = h.get(&b).copied().unwrap_or(0);
        let bar = (n * 52).div_ceil(max.max(1)) as usize;
        s.push_str(&format!(
            "{:<20}{:>8} |{:<52}|\n",
            range_label(b),
            n,
            "@".repeat(if n == 0 { 0 } else { bar.max(1) })
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_buckets() {
        assert_eq!([0, 1, 2, 3, 4, 7, 8].map(bucket), [0, 1, 2, 2, 3, 3, 4]);
        assert_eq!(range_label(2), "[2, 4)");
        assert_eq!(range_label(11), "[1K, 2K)");
        assert_eq!(bucket_signed(-5), -3);
        assert_eq!(range_label(-3), "(-8, -4]");
    }

    #[test]
    fn histogram_rows() {
        let h: HashMap<i32, u64> = [(1, 1), (3, 4)].into_iter().collect();
        let s = render_hist("len", &h);
        let rows: Vec<&str> = s.lines().collect();
        assert_eq!(rows[0], "@len:");
        assert!(rows[1].starts_with("[1] ") && rows[1].contains(" 1 |"));
        assert!(
            rows[2].starts_with("[2, 4)") && rows[2].contains(" 0 |") && !rows[2].contains('@')
        );
        assert!(rows[3].starts_with("[4, 8)") && rows[3].contains(&"@".repeat(52)));
    }
}
