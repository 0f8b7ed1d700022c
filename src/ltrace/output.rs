//! ltrace's output format: the line leader (`[pid N] `, `-r`/`-t`
//! timestamps, `-i` address, `-n` indentation), `func(args) = ret` with the
//! result aligned at `-a`'s column, ` <unfinished ...>` / `<... func
//! resumed>` when another line comes between a call's entry and its return,
//! `<no return ...>` for calls a thread never returns from, and the `-c`
//! table.
//!
//! A call's entry is kept, not written, until its return or another line
//! (of any thread) comes: so a call that returns with nothing in between
//! is one line with its full arguments (out-parameters included).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How lines begin.
#[derive(Clone, Debug, Default)]
pub struct LeaderOpts {
    /// `[pid N] ` on stderr, `N ` in a file.
    pub pid_prefix: bool,
    /// The output is a file (`-o`).
    pub to_file: bool,
    /// `-r`.
    pub relative: bool,
    /// `-t` level.
    pub time: u8,
    /// `-i`.
    pub ip: bool,
    /// `-n`.
    pub indent: usize,
    /// `-a`.
    pub align: usize,
    /// `-T`.
    pub time_in_call: bool,
}

/// An entry not written yet.
struct Open {
    tid: i32,
    call: u64,
    /// The leader as of the entry.
    leader: String,
    /// `name(` and the entry arguments.
    head: String,
}

/// The writer of trace lines.
pub struct Out {
    w: Box<dyn Write>,
    o: LeaderOpts,
    open: Option<Open>,
    last: Option<Instant>,
    /// The moment lines are stamped with instead of now (the kernel
    /// backend prints events after they happened).
    at: Option<(Instant, SystemTime)>,
    /// Write errors are reported once, at the end.
    pub error: Option<std::io::Error>,
}

/// Time of day (seconds since midnight, UTC) and microseconds for `-t`.
/// ltrace prints local time (localtime(3)); rltrace prints UTC, which is
/// the same in the containers and CI machines it runs in (documented gap).
fn local_secs(t: SystemTime) -> (u64, u32) {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() % 86400, d.subsec_micros())
}

impl Out {
    /// A writer on `w`.
    pub fn new(w: Box<dyn Write>, o: LeaderOpts) -> Out {
        Out {
            w,
            o,
            open: None,
            last: None,
            at: None,
            error: None,
        }
    }

    fn put(&mut self, s: &str) {
        if let Err(e) = self.w.write_all(s.as_bytes()) {
            self.error.get_or_insert(e);
        }
    }

    /// Stamps the following lines with `at` (`None`: the time they are made).
    pub fn set_time(&mut self, at: Option<(Instant, SystemTime)>) {
        self.at = at;
    }

    /// The leader of a line starting now for thread `tid`.
    pub fn leader(&mut self, tid: i32, ip: Option<u64>, depth: usize) -> String {
        let mut s = String::new();
        if self.o.pid_prefix {
            if self.o.to_file {
                let _ = write!(s, "{tid} ");
            } else {
                let _ = write!(s, "[pid {tid}] ");
            }
        }
        if self.o.relative {
            let now = self.at.map_or_else(Instant::now, |a| a.0);
            let d = self.last.map(|l| now - l).unwrap_or_default();
            self.last = Some(now);
            let _ = write!(s, "{:3}.{:06} ", d.as_secs(), d.subsec_micros());
        }
        if self.o.time > 0 {
            let now = self.at.map_or_else(SystemTime::now, |a| a.1);
            match self.o.time {
                1 | 2 => {
                    let (t, us) = local_secs(now);
                    let _ = write!(s, "{:02}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60);
                    if self.o.time == 2 {
                        let _ = write!(s, ".{us:06}");
                    }
                    s.push(' ');
                }
                _ => {
                    let d = now.duration_since(UNIX_EPOCH).unwrap_or_default();
                    let _ = write!(s, "{}.{:06} ", d.as_secs(), d.subsec_micros());
                }
            }
        }
        if self.o.ip {
            match ip {
                Some(a) => {
                    let _ = write!(s, "[{a:#x}] ");
                }
                None => s.push_str("[0xffffffffffffffff] "),
            }
        }
        for _ in 0..depth * self.o.indent {
            s.push(' ');
        }
        s
    }

    /// Writes the kept entry, if any, as `… <unfinished ...>`.
    fn interrupt(&mut self) {
        if let Some(op) = self.open.take() {
            let line = format!("{}{} <unfinished ...>\n", op.leader, op.head);
            self.put(&line);
        }
    }

    /// A call entered: `name(` + `args` (kept until its return or another
    /// line).
    pub fn entry(&mut self, tid: i32, call: u64, leader: String, name: &str, args: &str) {
        self.interrupt();
        self.open = Some(Open {
            tid,
            call,
            leader,
            head: format!("{name}({args}"),
        });
    }

    fn pad_result(&self, line: &mut String, ret: &str, dur: Option<Duration>) {
        let start = line.rfind('\n').map_or(0, |p| p + 1);
        let col = line[start..].chars().count();
        let want = self.o.align.saturating_sub(2);
        for _ in col..want {
            line.push(' ');
        }
        let _ = write!(line, " = {ret}");
        if let (true, Some(d)) = (self.o.time_in_call, dur) {
            let _ = write!(line, " <{}.{:06}>", d.as_secs(), d.subsec_micros());
        }
        line.push('\n');
    }

    /// A call returned: one full line if its entry is still kept, else
    /// `<... name resumed> rest) = ret`.
    #[allow(clippy::too_many_arguments)]
    pub fn ret(
        &mut self,
        tid: i32,
        call: u64,
        leader: impl FnOnce(&mut Out) -> String,
        (name, bare): (&str, &str),
        full_args: &str,
        entry_args: &str,
        ret: &str,
        dur: Option<Duration>,
    ) {
        let mut line;
        match self.open.take() {
            Some(op) if op.call == call && op.tid == tid => {
                line = format!("{}{name}({full_args})", op.leader);
            }
            other => {
                self.open = other;
                self.interrupt();
                // As ltrace: everything after the entry text, separator
                // included (`<... f resumed> , 5, 0x…)`).
                let rest = full_args.strip_prefix(entry_args).unwrap_or("");
                line = leader(self);
                let _ = write!(line, "<... {bare} resumed> {rest})");
            }
        }
        self.pad_result(&mut line, ret, dur);
        self.put(&line);
    }

    /// A line of its own (signal, exit, backtrace frame).
    pub fn line(&mut self, leader: &str, text: &str) {
        self.interrupt();
        let line = format!("{leader}{text}\n");
        self.put(&line);
    }

    /// Thread `tid` is gone: its kept entry never returns.
    pub fn no_return(&mut self, tid: i32) {
        if self.open.as_ref().is_some_and(|o| o.tid == tid) {
            let op = self.open.take().expect("checked");
            let line = format!("{}{} <no return ...>\n", op.leader, op.head);
            self.put(&line);
        }
    }

    /// Writes what is kept and flushes.
    pub fn flush(&mut self) {
        self.interrupt();
        if let Err(e) = self.w.flush() {
            self.error.get_or_insert(e);
        }
    }

    /// Prefixes lines with the thread id from now on (a second thread
    /// appeared: interleaved lines must say whose they are).
    pub fn set_pid_prefix(&mut self) {
        self.o.pid_prefix = true;
    }

    /// Writes raw text (the `-c` table).
    pub fn raw(&mut self, s: &str) {
        self.interrupt();
        self.put(s);
    }
}

/// `-c`: calls and time per function.
#[derive(Default)]
pub struct Summary {
    rows: HashMap<String, (u64, Duration)>,
}

impl Summary {
    /// One call of `name` (counted at entry, so calls that never return
    /// count too).
    pub fn call(&mut self, name: &str) {
        // No allocation once the function has a row (every call of `-c`).
        match self.rows.get_mut(name) {
            Some(r) => r.0 += 1,
            None => {
                self.rows.insert(name.to_string(), (1, Duration::ZERO));
            }
        }
    }

    /// Time spent in one call of `name`.
    pub fn time(&mut self, name: &str, d: Duration) {
        match self.rows.get_mut(name) {
            Some(r) => r.1 += d,
            None => {
                self.rows.insert(name.to_string(), (0, d));
            }
        }
    }

    /// Calls of `name` so far.
    pub fn count(&self, name: &str) -> u64 {
        self.rows.get(name).map_or(0, |r| r.0)
    }

    /// ltrace's table, most time first.
    pub fn render(&self) -> String {
        let mut rows: Vec<(&String, &(u64, Duration))> = self.rows.iter().collect();
        rows.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(b.0)));
        let total: Duration = rows.iter().map(|r| r.1 .1).sum();
        let calls: u64 = rows.iter().map(|r| r.1 .0).sum();
        let mut s = String::new();
        s.push_str("% time     seconds  usecs/call     calls      function\n");
        s.push_str("------ ----------- ----------- --------- --------------------\n");
        for (name, (n, t)) in rows {
            let pct = if total.is_zero() {
                0.0
            } else {
                100.0 * t.as_secs_f64() / total.as_secs_f64()
            };
            let per = if *n == 0 {
                0
            } else {
                (t.as_micros() / *n as u128) as u64
            };
            let _ = writeln!(
                s,
                "{pct:6.2} {:4}.{:06} {per:11} {n:9} {name}",
                t.as_secs(),
                t.subsec_micros()
            );
        }
        s.push_str("------ ----------- ----------- --------- --------------------\n");
        let _ = writeln!(
            s,
            "100.00 {:4}.{:06}             {calls:9} total",
            total.as_secs(),
            total.subsec_micros()
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn out() -> (Out, Buf) {
        let b = Buf::default();
        let o = LeaderOpts {
            align: 50,
            ..Default::default()
        };
        (Out::new(Box::new(b.clone()), o), b)
    }

    fn text(b: &Buf) -> String {
        String::from_utf8(b.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn one_line_and_alignment() {
        let (mut o, b) = out();
        o.entry(1, 1, String::new(), "strlen", "\"hello world\"");
        o.ret(
            1,
            1,
            |_| String::new(),
            ("strlen", "strlen"),
            "\"hello world\"",
            "",
            "11",
            None,
        );
        let long = "a".repeat(60);
        o.entry(1, 2, String::new(), "f", &long);
        o.ret(1, 2, |_| String::new(), ("f", "f"), &long, &long, "0", None);
        let t = text(&b);
        let first = t.lines().next().unwrap();
        assert_eq!(first.find('=').unwrap(), 49, "ltrace puts '=' in column 50");
        assert!(t.lines().nth(1).unwrap().ends_with(") = 0"));
    }

    #[test]
    fn unfinished_and_resumed() {
        let (mut o, b) = out();
        o.entry(1, 1, String::new(), "puts", "\"x\"");
        o.entry(1, 2, "  ".into(), "malloc", "4");
        o.ret(
            1,
            2,
            |_| "  ".into(),
            ("malloc", "malloc"),
            "4",
            "4",
            "0x10",
            None,
        );
        o.ret(
            1,
            1,
            |_| String::new(),
            ("x->puts", "puts"),
            "\"x\"",
            "\"x\"",
            "2",
            None,
        );
        o.entry(1, 3, String::new(), "exit", "0");
        o.no_return(1);
        let t = text(&b);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "puts(\"x\" <unfinished ...>");
        assert!(lines[1].starts_with("  malloc(4) "));
        assert!(lines[2].starts_with("<... puts resumed> ) "));
        assert!(lines[2].ends_with("= 2"));
        assert_eq!(lines[3], "exit(0 <no return ...>");
    }

    #[test]
    fn resumed_keeps_the_separator_before_out_params() {
        let (mut o, b) = out();
        o.entry(1, 1, String::new(), "k_out", "3");
        o.entry(1, 2, String::new(), "puts", "\"x\"");
        o.ret(
            1,
            2,
            |_| String::new(),
            ("puts", "puts"),
            "\"x\"",
            "\"x\"",
            "2",
            None,
        );
        o.ret(
            1,
            1,
            |_| String::new(),
            ("k_out", "k_out"),
            "3, 5, 0x10",
            "3",
            "1",
            None,
        );
        o.entry(1, 3, String::new(), "k_only", "");
        o.entry(1, 4, String::new(), "puts", "\"x\"");
        o.ret(
            1,
            4,
            |_| String::new(),
            ("puts", "puts"),
            "\"x\"",
            "\"x\"",
            "2",
            None,
        );
        o.ret(
            1,
            3,
            |_| String::new(),
            ("k_only", "k_only"),
            "7, 0x10",
            "",
            "2",
            None,
        );
        let t = text(&b);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "k_out(3 <unfinished ...>");
        assert!(
            lines[2].starts_with("<... k_out resumed> , 5, 0x10) "),
            "{t}"
        );
        assert_eq!(lines[3], "k_only( <unfinished ...>");
        assert!(
            lines[5].starts_with("<... k_only resumed> 7, 0x10) "),
            "{t}"
        );
    }

    #[test]
    fn summary_table() {
        let mut s = Summary::default();
        for _ in 0..3 {
            s.call("malloc");
            s.time("malloc", Duration::from_micros(10));
        }
        s.call("exit");
        let t = s.render();
        assert!(t.contains("      3 malloc"));
        assert!(t.contains("         4 total"));
        assert_eq!(s.count("exit"), 1);
    }
}
