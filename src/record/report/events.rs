//! `rtrace report --events FILE`: the recording printed back as rstrace's
//! and rltrace's text (as `perf script` and `uftrace replay` do), one
//! event per line, read as a stream: `PID name(args) = ret` for a
//! syscall (strace's quoting, flags, `fd<path>`, the result at column
//! 40), `PID func(args) = ret` for a library call, `--- SIGNAL ---` and
//! `+++ exited with N +++` lines. Filters: `-e trace=SET` (rstrace's
//! syscall-set syntax, [`SyscallSet`]; other events pass), `--pid PID`
//! (the thread, or the process of a probe hit) and `--from`/`--to`
//! (seconds since the recording's start, the header's `start_ns`).
//! Events are read typed ([`Reader::next_typed`], the model of
//! [`crate::tracefile::event`]), decoded values as
//! [`Decoded`]s.

use crate::strace::filter::SyscallSet;
use crate::tracefile::event::{Event, Return, Syscall};
use crate::tracefile::Reader;
use crate::value::decoded::Decoded;
use crate::value::text::{errno_message, quote_bytes};
use std::fmt::Write as _;
use std::io::{self, Write};

/// Which events `--events` prints.
#[derive(Default)]
pub(super) struct Filter {
    /// `-e trace=SET`.
    pub trace: Option<SyscallSet>,
    /// `--pid PID` (repeatable).
    pub pids: Vec<i64>,
    /// `--from SECS`, `--to SECS`: since the recording's start.
    pub from: Option<f64>,
    pub to: Option<f64>,
}

/// The thread, the process (probe hits: their `tgid`) and the time of an
/// event; `Other` events have none.
fn who_when(ev: &Event) -> (Option<i64>, Option<i64>, Option<u64>) {
    match ev {
        Event::Syscall(s) => (Some(s.pid.into()), None, Some(s.ts_ns)),
        Event::Libcall(c) => (Some(c.pid.into()), None, Some(c.ts_ns)),
        Event::Probe(p) => (Some(p.pid.into()), Some(p.tgid.into()), Some(p.ts_ns)),
        Event::Signal(g) => (Some(g.pid.into()), None, None),
        Event::Exit(x) => (Some(x.pid.into()), None, None),
        Event::Other(v) => (v["pid"].as_i64(), v["tgid"].as_i64(), v["ts_ns"].as_u64()),
    }
}

impl Filter {
    fn keeps(&self, ev: &Event, start: Option<u64>) -> bool {
        if let (Some(set), Event::Syscall(s)) = (&self.trace, ev) {
            if !set.matches_name(&s.syscall) {
                return false;
            }
        }
        let (pid, tgid, ts) = who_when(ev);
        if !self.pids.is_empty() && !self.pids.iter().any(|&p| Some(p) == pid || Some(p) == tgid) {
            return false;
        }
        if self.from.is_some() || self.to.is_some() {
            let (Some(t), Some(s)) = (ts, start) else {
                return false;
            };
            let rel = (t as f64 - s as f64) / 1e9;
            if self.from.is_some_and(|f| rel < f) || self.to.is_some_and(|to| rel > to) {
                return false;
            }
        }
        true
    }
}

/// Syscalls whose result strace prints in hex (an address).
const HEX_RESULT: &[&str] = &["brk", "mmap", "mmap2", "mremap", "shmat"];

/// An argument as strace prints it.
fn arg(out: &mut String, v: &Decoded) {
    match v {
        Decoded::Null => out.push_str("NULL"),
        Decoded::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Decoded::Str { bytes, truncated } => {
            quote_bytes(out, &bytes.0, 0);
            if *truncated {
                out.push_str("...");
            }
        }
        Decoded::Ptr { addr, .. } => {
            let _ = write!(out, "{addr:#x}");
        }
        Decoded::Sym(t) | Decoded::Expr(t) => out.push_str(t),
        Decoded::Flags { names, rest } => {
            let mut names = names.clone();
            if *rest != 0 {
                // A file type's permission bits are octal, as strace
                // prints a mode.
                if names.iter().any(|n| n.starts_with("S_IF")) {
                    names.push(format!("0{rest:o}"));
                } else {
                    names.push(format!("{rest:#x}"));
                }
            }
            if names.is_empty() {
                names.push("0".into());
            }
            out.push_str(&names.join("|"));
        }
        Decoded::Fd { fd, path, details } => {
            let _ = write!(out, "{fd}");
            // `-yy`: the path, then the details (as the text renderer).
            if path.is_some() || details.is_some() {
                out.push('<');
                for p in [path, details].into_iter().flatten() {
                    out.push_str(&p.escaped());
                }
                out.push('>');
            }
        }
        Decoded::Pid { pid, comm } => {
            let _ = write!(out, "{pid}<{}>", comm.escaped());
        }
        Decoded::Array(items, more) => {
            out.push('[');
            list(out, items);
            cut(out, items.is_empty(), *more);
            out.push(']');
        }
        Decoded::Struct(fields, more) => {
            out.push('{');
            for (k, (name, x)) in fields.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(name);
                out.push('=');
                arg(out, x);
            }
            cut(out, fields.is_empty(), *more);
            out.push('}');
        }
        Decoded::Changed(i, o) => {
            arg(out, i);
            out.push_str(" => ");
            arg(out, o);
        }
        Decoded::Commented(x, c) => {
            arg(out, x);
            let _ = write!(out, " /* {c} */");
        }
        Decoded::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Decoded::Float(f) => {
            let _ = write!(out, "{f}");
        }
    }
}

/// strace's `...` for elements or fields left out.
fn cut(out: &mut String, empty: bool, more: bool) {
    if more {
        out.push_str(if empty { "..." } else { ", ..." });
    }
}

fn list(out: &mut String, a: &[Decoded]) {
    for (k, x) in a.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        arg(out, x);
    }
}

/// Pads to column 40 (strace's result column) and writes ` = RET`.
fn result(
    out: &mut String,
    line_start: usize,
    ret: &Option<Return>,
    errno: Option<&str>,
    hex: bool,
) {
    let col = out[line_start..].chars().count();
    out.extend(std::iter::repeat_n(' ', 40usize.saturating_sub(col).max(1)));
    out.push_str("= ");
    match (ret, errno) {
        (None, _) => out.push('?'),
        (Some(r), Some(e)) => {
            let msg = rtrace_arch::tables::errno_value(e)
                .map(|n| errno_message(u64::from(n)))
                .unwrap_or_default();
            ret_text(out, r, false);
            let _ = write!(out, " {e} ({msg})");
        }
        (Some(r), None) => ret_text(out, r, hex),
    }
}

fn ret_text(out: &mut String, r: &Return, hex: bool) {
    match r {
        Return::Int(i) if hex && *i > 0 => {
            let _ = write!(out, "{i:#x}");
        }
        Return::UInt(u) if hex && *u != 0 => {
            let _ = write!(out, "{u:#x}");
        }
        Return::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Return::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        Return::Text(t) => out.push_str(t),
    }
}

fn syscall(out: &mut String, s: &Syscall) {
    out.push_str(&s.syscall);
    out.push('(');
    list(out, &s.args);
    out.push(')');
    let hex = HEX_RESULT.contains(&s.syscall.as_str());
    result(out, 0, &s.ret, s.errno.as_deref(), hex);
}

/// One event as a line of text (without its newline); `None` for events
/// with no text form.
pub(super) fn line(ev: &Event) -> Option<String> {
    let mut out = String::new();
    if let Some(pid) = who_when(ev).0 {
        let _ = write!(out, "{pid} ");
    }
    match ev {
        Event::Syscall(s) => syscall(&mut out, s),
        Event::Libcall(c) => {
            out.push_str(&c.func);
            out.push('(');
            // rltrace's arguments are already text.
            out.push_str(&c.args.join(", "));
            out.push(')');
            let ret = c.ret.clone().map(Return::Text);
            result(&mut out, 0, &ret, None, false);
        }
        Event::Exit(x) => {
            let _ = write!(out, "+++ {} +++", x.text()?);
        }
        Event::Signal(g) => {
            out.push_str("--- ");
            out.push_str(&g.signal);
            if g.siginfo != Decoded::Null {
                out.push(' ');
                arg(&mut out, &g.siginfo);
            }
            out.push_str(" ---");
        }
        Event::Probe(p) => {
            let _ = write!(out, "probe {} {} {}", p.kind, p.spec, p.location);
        }
        Event::Other(v) => {
            let _ = write!(out, "--- {} ---", v["type"].as_str()?);
        }
    }
    Some(out)
}

/// Prints the events of `reader` that `filter` keeps to `out`; returns
/// how many were printed.
pub(super) fn print(reader: &mut Reader, filter: &Filter, out: &mut dyn Write) -> io::Result<u64> {
    // Without a header (`rstrace --json` output): the first event's time.
    let mut start = reader.header["start_ns"].as_u64().or_else(|| {
        // Schema versions before 3: float seconds.
        let s = reader.header["start"].as_f64()?;
        (s.is_finite() && s >= 0.0).then(|| (s * 1e9).round() as u64)
    });
    let mut n = 0;
    while let Some(ev) = reader.next_typed()? {
        start = start.or(who_when(&ev).2);
        if !filter.keeps(&ev, start) {
            continue;
        }
        if let Some(l) = line(&ev) {
            writeln!(out, "{l}")?;
            n += 1;
        }
    }
    Ok(n)
}

/// `rtrace report --events FILE`: exit status 0, 1 when the file cannot
/// be read.
pub(super) fn main(file: &str, filter: &Filter) -> i32 {
    let mut reader = match Reader::open(std::path::Path::new(file)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rtrace report: {file}: {e}");
            return 1;
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let r = print(&mut reader, filter, &mut out).and_then(|_| out.flush());
    if let Some(cut) = &reader.cut {
        eprintln!("rtrace report: warning: {file}: {cut}");
    }
    match r {
        Ok(()) => 0,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            crate::engine::signals::die_like(libc::SIGPIPE)
        }
        Err(e) => {
            eprintln!("rtrace report: {file}: {e}");
            1
        }
    }
}
