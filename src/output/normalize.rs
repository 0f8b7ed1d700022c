//! `--normalize`: turns tracer output into text that is the same from run
//! to run of a deterministic program, for golden files in CI.
//!
//! Works line by line on finished text (strace-style lines, `-c` tables,
//! `rtrace report`, JSON Lines) and replaces:
//!
//! * **process and thread ids** by `PID1`, `PID2`, … numbered in order of
//!   first appearance. A number is taken for a pid when it is a line's pid
//!   prefix (`12345 ` with `-f -o`, `[pid 12345] `), appears in
//!   `Process N attached/detached`, `in pid N`, `si_pid=N`, `"pid":N`, or is
//!   the result of `clone`, `clone3`, `fork`, `vfork`, `getpid`, `gettid`,
//!   `getppid`, `set_tid_address`, `wait4` or `waitid`. From then on every
//!   whole-word occurrence of that number in later text is replaced too
//!   (`kill(PID1, SIGTERM)`, `/proc/PID1/status`). The pid prefix loses its
//!   padding (`PID1 read(`, `[pid PID2] `).
//! * **addresses**: hexadecimal literals of six or more digits
//!   (`0x7ffc1234abcd`, `0x401000`) become `0xADDR`; shorter ones (flags,
//!   modes, small constants) are kept.
//! * **times**: the `-t`/`-tt`/`-ttt`/`-r` stamp after the pid prefix
//!   becomes `TIME`; `-T` durations `<0.000123>` become `<DUR>`; in JSON the
//!   values of `ts_ns`, `dur_ns`, `elapsed_ns`, `start_ns`, `end_ns` (and the
//!   `time`, `duration`, `elapsed`, `start`, `end` of older streams) become the
//!   strings `"TIME"` / `"DUR"`; in `-c` tables the `% time`, `seconds` and
//!   `usecs/call` columns become `X.XX`, `X.XXXXXX`, `X` (calls, errors and
//!   names stay; the row order still follows time unless `-S calls` or
//!   `-S name` is given).
//! * **temporary paths**: `/tmp/NAME`, `/var/tmp/NAME`, `/dev/shm/NAME` and
//!   `$TMPDIR/NAME` become `TMP1`, `TMP2`, … (numbered by first appearance
//!   of NAME; the rest of the path is kept: `TMP1/out.txt`).
//! * **inode numbers** of anonymous files: `pipe:[123]` → `pipe:[INODE]`.
//! * **result alignment**: the padding before ` = ` is reduced to one
//!   space, since it depends on the length of what was replaced.
//!
//! Not normalised: file descriptor numbers, sizes, byte counts, stat
//! contents (inode numbers, times in `st_atime=`), environment-dependent
//! strings, and the interleaving of lines from concurrent processes.

use regex_lite::{Captures, Regex};
use std::collections::HashMap;

/// Placeholder state: what was numbered so far.
pub struct Normalizer {
    pids: HashMap<String, usize>,
    tmps: HashMap<String, usize>,
    tmp_dirs: Vec<String>,
    leader: Regex,
    stamp: Regex,
    learn: Regex,
    pid_result: Regex,
    table_row: Regex,
    tokens: Regex,
    align: Regex,
}

impl Default for Normalizer {
    fn default() -> Self {
        Normalizer::new()
    }
}

/// Syscalls whose result is a process or thread id.
const PID_RESULTS: &str =
    "clone|clone3|fork|vfork|getpid|gettid|getppid|set_tid_address|wait4|waitid";

impl Normalizer {
    /// A fresh normaliser (placeholders start at 1).
    pub fn new() -> Normalizer {
        let mut tmp_dirs = vec!["/tmp".to_string(), "/var/tmp".into(), "/dev/shm".into()];
        if let Some(t) = std::env::var_os("TMPDIR") {
            let t = t.to_string_lossy().trim_end_matches('/').to_string();
            if t.starts_with('/') && t.len() > 1 && !tmp_dirs.contains(&t) {
                tmp_dirs.push(t);
            }
        }
        let dirs: Vec<String> = tmp_dirs.iter().map(|d| regex_escape(d)).collect();
        let re = |s: &str| Regex::new(s).expect("normalizer regex");
        Normalizer {
            pids: HashMap::new(),
            tmps: HashMap::new(),
            leader: re(r"^(?:\[pid +(\d+)\]|(\d+)) +"),
            stamp: re(r"^ *(?:\d\d:\d\d:\d\d(?:\.\d+)?|\d+\.\d+|\d{9,})(?: \(\+ *\d+\.\d+\))? +"),
            learn: re(
                r#"(?:Process (\d+) (?:attached|detached)|in pid (\d+)|si_pid=(\d+)|"pid":(\d+))"#,
            ),
            pid_result: re(&format!(
                r#"^(?:(?:<\.\.\. )?(?:{PID_RESULTS})\b.*\) += (\d+)\b|\{{.*"syscall":"(?:{PID_RESULTS})".*"return":(\d+)\b)"#
            )),
            table_row: re(r"^ *\d+\.\d\d +\d+\.\d{6} +\d+"),
            tokens: re(&format!(
                r#"(0x[0-9a-fA-F]{{6,}})|(<\d+\.\d+>)|(:\[\d+\])|((?:{})/[^/\s"',)\]]+)|"(time|start|end|ts_ns|start_ns|end_ns)":-?[0-9.eE+-]+|"(duration|elapsed|dur_ns|elapsed_ns)":-?[0-9.eE+-]+|\b(\d+)\b"#,
                dirs.join("|")
            )),
            align: re(r" {2,}= "),
            tmp_dirs,
        }
    }

    /// The placeholder of pid text `n`, numbering it if new.
    fn pid(&mut self, n: &str) -> String {
        let k = self.pids.len() + 1;
        format!("PID{}", self.pids.entry(n.to_string()).or_insert(k))
    }

    /// Normalises a whole text, line by line (line ends kept).
    pub fn text(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for l in text.split_inclusive('\n') {
            let (body, nl) = match l.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (l, ""),
            };
            out.push_str(&self.line(body));
            out.push_str(nl);
        }
        out
    }

    /// Normalises one line (without its newline).
    pub fn line(&mut self, line: &str) -> String {
        let json = line.starts_with('{');
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        if !json {
            if let Some(c) = self.leader.captures(rest) {
                let whole = c.get(0).map_or(0, |m| m.end());
                if let Some(p) = c.get(1) {
                    let ph = self.pid(p.as_str());
                    out.push_str(&format!("[pid {ph}] "));
                } else if let Some(p) = c.get(2) {
                    let ph = self.pid(p.as_str());
                    out.push_str(&ph);
                    out.push(' ');
                }
                rest = &rest[whole..];
            }
            if let Some(m) = self.table_row.find(rest) {
                out.push_str("  X.XX    X.XXXXXX           X");
                rest = &rest[m.end()..];
            } else if let Some(m) = self.stamp.find(rest) {
                out.push_str("TIME ");
                rest = &rest[m.end()..];
            }
        }
        // Learn the pids this line names before replacing numbers.
        let learned: Vec<String> = self
            .learn
            .captures_iter(rest)
            .chain(self.pid_result.captures_iter(rest))
            .filter_map(|c| {
                c.iter()
                    .skip(1)
                    .flatten()
                    .next()
                    .map(|m| m.as_str().to_string())
            })
            .collect();
        for p in learned {
            self.pid(&p);
        }
        let tokens = self.tokens.clone();
        let replaced = tokens.replace_all(rest, |c: &Captures| self.token(c, json));
        out.push_str(&self.align.replace_all(&replaced, " = "));
        out
    }

    fn token(&mut self, c: &Captures, json: bool) -> String {
        let whole = c.get(0).map_or("", |m| m.as_str()).to_string();
        if c.get(1).is_some() {
            "0xADDR".into()
        } else if c.get(2).is_some() {
            "<DUR>".into()
        } else if c.get(3).is_some() {
            ":[INODE]".into()
        } else if let Some(p) = c.get(4) {
            let p = p.as_str();
            let dir = self
                .tmp_dirs
                .iter()
                .filter(|d| p.starts_with(&format!("{d}/")))
                .max_by_key(|d| d.len())
                .map_or(0, |d| d.len());
            let name = &p[dir + 1..];
            let k = self.tmps.len() + 1;
            format!("TMP{}", self.tmps.entry(name.to_string()).or_insert(k))
        } else if let Some(k) = c.get(5) {
            format!("\"{}\":\"TIME\"", k.as_str())
        } else if let Some(k) = c.get(6) {
            format!("\"{}\":\"DUR\"", k.as_str())
        } else if let Some(n) = c.get(7) {
            if self.pids.contains_key(n.as_str()) {
                let ph = self.pid(n.as_str());
                if json {
                    format!("\"{ph}\"")
                } else {
                    ph
                }
            } else {
                whole
            }
        } else {
            whole
        }
    }
}

fn regex_escape(s: &str) -> String {
    let mut o = String::new();
    for ch in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(ch) {
            o.push('\\');
        }
        o.push(ch);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pids_addresses_times_and_alignment() {
        let mut n = Normalizer::new();
        let t = "\
4242  12:00:01.123456 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f1234567890) = 4243 <0.000100>
4243  12:00:01.123999 kill(4242, SIGTERM) = 0 <0.000005>
4242  12:00:01.124000 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=4243, si_uid=0} ---
4242  12:00:01.124100 openat(AT_FDCWD, \"/tmp/rtrace-abc123/x.txt\", O_RDONLY|0x80000) = 3 <0.000010>
4242  12:00:01.124200 read(3, \"4243 is not a pid here but 424\", 30) = 30
4242  12:00:01.124300 pipe2([3, 4], 0) = 0
4242  12:00:01.124400 fstat(3, ...) = 0 socket:[99881]
";
        let want = "\
PID1 TIME clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0xADDR) = PID2 <DUR>
PID2 TIME kill(PID1, SIGTERM) = 0 <DUR>
PID1 TIME --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=PID2, si_uid=0} ---
PID1 TIME openat(AT_FDCWD, \"TMP1/x.txt\", O_RDONLY|0x80000) = 3 <DUR>
PID1 TIME read(3, \"PID2 is not a pid here but 424\", 30) = 30
PID1 TIME pipe2([3, 4], 0) = 0
PID1 TIME fstat(3, ...) = 0 socket:[INODE]
";
        assert_eq!(n.text(t), want);
    }

    #[test]
    fn bracketed_prefix_and_alignment() {
        let mut n = Normalizer::new();
        let a = n.text("[pid   77] getpid()                  = 77\nwrite(1, \"x\", 1)     = 1\n");
        assert_eq!(a, "[pid PID1] getpid() = PID1\nwrite(1, \"x\", 1) = 1\n");
        let mut m = Normalizer::new();
        let b = m.text("[pid 12345] getpid()             = 12345\nwrite(1, \"x\", 1)    = 1\n");
        assert_eq!(a, b, "different pid widths normalise to the same text");
    }

    #[test]
    fn json_lines_stay_json() {
        let mut n = Normalizer::new();
        let l = n.line(r#"{"type":"syscall","pid":900,"ts_ns":1795325318657944700,"syscall":"getpid","args":[],"return":900,"dur_ns":12000}"#);
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["pid"], "PID1");
        assert_eq!(v["return"], "PID1");
        assert_eq!(v["ts_ns"], "TIME");
        assert_eq!(v["dur_ns"], "DUR");
    }

    #[test]
    fn summary_rows() {
        let mut n = Normalizer::new();
        let t = " 62.50    0.000050          25         2           close\n";
        assert_eq!(
            n.text(t),
            "  X.XX    X.XXXXXX           X         2           close\n"
        );
    }
}
