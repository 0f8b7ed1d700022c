//! `rtrace record`: runs a command under the rstrace engine (`-f --json`)
//! and writes one trace file: a `header` line, the events exactly as
//! `rstrace -f --json` prints them, and a `footer` line (schema in
//! [`super::file`] and README.md, "Trace file").
//!
//! Nothing here traces: the command line is turned into rstrace options and
//! handed to [`crate::strace::run`] with a sink that writes into the trace
//! file through a [`Tally`], which counts the events by type on their way
//! to the file (every event line starts with `{"type":"…"`), so the footer
//! can carry the counts without a second pass. With `--libcalls` the
//! options are rltrace's instead and [`crate::ltrace::trace`] runs with
//! `-f -S --json`: library calls (`"type":"libcall"`) and system calls
//! (rstrace's JSON shape, decoded by the same decoders) land in the same
//! file; [`TypeFirst`] moves each libcall object's `"type"` key to the
//! front (serde_json writes keys sorted), so every line of a trace file
//! starts with its type. With `--zstd` (or `-o FILE.zst`) the file is
//! written through [`ZstdWriter`]: one zstd frame per MiB of text, so
//! memory stays bounded and `zstd -d` reads the result. With `--probe SPEC`
//! rtrace break's breakpoints run in the same session
//! ([`super::probe::Probes`], a layer in front of rstrace's handler) and
//! their hits land in the file as `"type":"probe"` events. The command's fate becomes
//! rtrace's exit status the way a shell reports it: the exit code, or
//! 128 + N when it was killed by signal N (or when rtrace itself was
//! interrupted by signal N and killed the command).

use super::file::ZstdWriter;
use super::probe;
use crate::engine::Outcome;
use crate::ltrace::cli as lcli;
use crate::output::json::push_str;
use crate::strace::{self, cli, sink::Sink, Ended};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The trace file written when `-o` is not given.
pub const DEFAULT_OUTPUT: &str = "rtrace.rtrace";

const USAGE: &str = "\
usage: rtrace record [-o FILE] [--zstd] [--syscalls] [-k|--stack] [--probe SPEC...] [rstrace options] [--] CMD [ARGS...]
       rtrace record --libcalls [-o FILE] [--zstd] [rltrace options] [--] CMD [ARGS...]

Records the system calls of CMD and every process it starts into FILE
(default rtrace.rtrace): JSON Lines with a header (command, cwd,
environment digest, host, kernel, start time), the events as
`rstrace -f --json` prints them, and a footer (exit status, elapsed time,
event counts). Exits with CMD's exit status (128+N if CMD was killed by
signal N), so it can wrap a CI step unchanged.

  -o FILE          the trace file (default rtrace.rtrace; a name ending in
                   .zst means --zstd)
  --zstd           compress the file with zstd (one frame per MiB of text:
                   `zstd -d` and rtrace report/diff/export read it)
  --syscalls       record system calls (the default)
  --libcalls       record library calls too, with rltrace's engine
                   (`rltrace -f -S --json`): \"libcall\" events with function,
                   caller, library, arguments, return value and duration, and
                   the system calls; give it before the other options, which
                   are then rltrace's: -e FILTER, -l LIB, -x FILTER, -s N, -A N,
                   -C, -F FILE, -u USER, -b, --inject=..., --no-cpu-pin
  -k, --stack      add the user stack of every syscall (\"stack\" frames;
                   not with --libcalls)
  --probe SPEC     also record the hits of a breakpoint (\"probe\" events, in
                   time order with the syscalls): rtrace break's SPEC syntax,
                   func, lib:func, file.c:LINE, *ADDR, ret:func (return value
                   and duration), 'SPEC if COND'; repeatable; not with
                   --libcalls. Function arguments come from DWARF.
  rstrace options  filters and decoding: -e trace=..., -e signal=..., -e status=...,
                   -e inject=..., -P PATH, -s N, -v, -y, -yy, -X ..., -E VAR=VAL,
                   -u USER, -b execve, -I N, --seccomp-bpf, --no-cpu-pin
";

/// The record command line, split into ours and rstrace's.
#[derive(Debug, Default, PartialEq)]
struct Args {
    output: Option<OsString>,
    stack: bool,
    zstd: bool,
    /// `--libcalls`: `pass` holds rltrace options.
    libcalls: bool,
    /// `--probe` specs, as given.
    probes: Vec<String>,
    help: bool,
    /// rstrace options passed through, in order.
    pass: Vec<OsString>,
    command: Vec<OsString>,
}

/// rltrace's short options that take a value, and its long ones.
const LTRACE_WITH_ARG: &[u8] = b"aADeFlnopsuwx";
const LTRACE_LONG_WITH_ARG: &[&str] = &[
    "align", "debug", "config", "library", "indent", "output", "where", "inject",
];

fn parse(args: &[OsString]) -> Result<Args, String> {
    let mut a = Args {
        // Decides how the options before it are split, so it is looked for
        // first (up to `--`).
        libcalls: args
            .iter()
            .take_while(|x| *x != "--")
            .any(|x| x == "--libcalls"),
        ..Args::default()
    };
    let with_arg: &[u8] = if a.libcalls {
        LTRACE_WITH_ARG
    } else {
        cli::WITH_ARG
    };
    let long_takes_arg = |name: &str| {
        if a.libcalls {
            LTRACE_LONG_WITH_ARG.contains(&name)
        } else {
            cli::long_takes_arg(name)
        }
    };
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].to_string_lossy().into_owned();
        let next = |i: usize| -> Result<OsString, String> {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| format!("option '{arg}' requires an argument"))
        };
        match arg.as_str() {
            "--" => {
                a.command = args[i + 1..].to_vec();
                break;
            }
            "-h" | "--help" => {
                a.help = true;
                return Ok(a);
            }
            "-o" | "--output" => {
                a.output = Some(next(i)?);
                i += 2;
                continue;
            }
            "--syscalls" => {}
            "-k" | "--stack" | "--stack-traces" => a.stack = true,
            "--libcalls" => {}
            "--zstd" => a.zstd = true,
            "--normalize" => {
                return Err(
                    "a recording keeps the real values; normalise when reading it \
                            (rtrace report --normalize)"
                        .into(),
                )
            }
            "--probe" => {
                a.probes.push(next(i)?.to_string_lossy().into_owned());
                i += 2;
                continue;
            }
            _ if arg.starts_with("--probe=") => {
                a.probes.push(arg["--probe=".len()..].to_string());
            }
            _ if arg.starts_with("--output=") => {
                a.output = Some(OsString::from(&arg["--output=".len()..]));
            }
            _ if arg.starts_with("--") => {
                a.pass.push(args[i].clone());
                let name = &arg[2..];
                if !name.contains('=') && long_takes_arg(name) {
                    a.pass.push(next(i)?);
                    i += 1;
                }
            }
            _ if arg.starts_with('-') && arg.len() > 1 => {
                let bytes = arg.as_bytes();
                let mut takes_next = false;
                for (j, &c) in bytes.iter().enumerate().skip(1) {
                    if c == b'o' && j == 1 {
                        // `-oFILE`.
                        a.output = Some(OsString::from(&arg[2..]));
                        break;
                    }
                    if c == b'o' {
                        return Err(format!("give -o on its own, not inside '{arg}'"));
                    }
                    if c == b'k' && !a.libcalls {
                        a.stack = true;
                    }
                    if with_arg.contains(&c) {
                        takes_next = j + 1 == bytes.len();
                        break;
                    }
                }
                if bytes[1] != b'o' {
                    a.pass.push(args[i].clone());
                }
                if takes_next {
                    a.pass.push(next(i)?);
                    i += 1;
                }
            }
            _ => {
                a.command = args[i..].to_vec();
                break;
            }
        }
        i += 1;
    }
    if a.output
        .as_ref()
        .is_some_and(|o| o.as_bytes().ends_with(b".zst"))
    {
        a.zstd = true;
    }
    if a.libcalls && a.stack {
        return Err("-k/--stack is not supported with --libcalls".into());
    }
    if a.libcalls && !a.probes.is_empty() {
        return Err(
            "--probe is not supported with --libcalls (rltrace's engine places its own \
             breakpoints); record probes with the syscalls only"
                .into(),
        );
    }
    Ok(a)
}

/// Refuses rstrace options that make no sense in a recording.
fn check(o: &cli::Options) -> Result<(), String> {
    if !o.pids.is_empty() {
        return Err("-p: record launches a command; attaching is not supported".into());
    }
    if o.command.is_empty() {
        return Err("no command to record (rtrace record [options] -- CMD [ARGS...])".into());
    }
    if o.summary || o.summary_only {
        return Err("-c/-C: record keeps every event; summarise with rtrace report FILE".into());
    }
    let text_only = [
        (o.stamps != cli::Stamps::default(), "-t/--timestamps"),
        (o.relative.is_some(), "-r"),
        (o.syscall_times.is_some(), "-T"),
        (o.instruction_pointer, "-i"),
        (o.syscall_number, "-n"),
        (o.column != 40, "-a"),
        (o.xflag != 0, "-x"),
        (o.json, "--json"),
        (
            !(o.dump_reads.is_empty() && o.dump_writes.is_empty()),
            "-e read=/-e write=",
        ),
    ];
    if let Some((_, name)) = text_only.iter().find(|t| t.0) {
        return Err(format!(
            "{name} only changes rstrace's text output; a recording always holds times, \
             durations and decoded values"
        ));
    }
    Ok(())
}

/// Where the trace file's bytes go: the file itself, or zstd frames.
enum Output {
    Plain(Box<dyn Write>),
    Zstd(ZstdWriter<Box<dyn Write>>),
}

impl Output {
    fn new(w: Box<dyn Write>, zstd: bool) -> Output {
        if zstd {
            Output::Zstd(ZstdWriter::new(w))
        } else {
            Output::Plain(w)
        }
    }

    /// Flushes, writing the last zstd frame.
    fn finish(&mut self) -> io::Result<()> {
        match self {
            Output::Plain(w) => w.flush(),
            Output::Zstd(z) => z.finish(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Plain(w) => w.write(buf),
            Output::Zstd(z) => z.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Plain(w) => w.flush(),
            Output::Zstd(z) => z.flush(),
        }
    }
}

/// Counts event lines by their `"type"` on their way to the file.
pub struct Tally {
    out: Output,
    /// The first bytes of the current line (enough for the type).
    head: Vec<u8>,
    /// Events by type.
    pub counts: BTreeMap<String, u64>,
    /// The first write error.
    pub error: Option<io::Error>,
}

/// Bytes of a line kept to find its type: `{"type":"` and a name.
const HEAD: usize = 32;

impl Tally {
    fn new(out: Output) -> Tally {
        Tally {
            out,
            head: Vec::with_capacity(HEAD),
            counts: BTreeMap::new(),
            error: None,
        }
    }

    fn scan(&mut self, mut buf: &[u8]) {
        while !buf.is_empty() {
            let nl = buf.iter().position(|&b| b == b'\n');
            let seg = &buf[..nl.unwrap_or(buf.len())];
            let room = HEAD.saturating_sub(self.head.len()).min(seg.len());
            self.head.extend_from_slice(&seg[..room]);
            match nl {
                Some(n) => {
                    self.line_done();
                    buf = &buf[n + 1..];
                }
                None => break,
            }
        }
    }

    fn line_done(&mut self) {
        let h = std::mem::take(&mut self.head);
        let ty = h
            .strip_prefix(b"{\"type\":\"")
            .and_then(|r| r.iter().position(|&b| b == b'"').map(|e| &r[..e]))
            .map_or("other".to_string(), |t| {
                String::from_utf8_lossy(t).into_owned()
            });
        *self.counts.entry(ty).or_default() += 1;
        self.head = h;
        self.head.clear();
    }
}

/// A `Write` handle on a shared [`Tally`] (the sink owns one, `record`
/// keeps another for the footer).
struct Shared(Rc<RefCell<Tally>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut t = self.0.borrow_mut();
        t.scan(buf);
        if let Err(e) = t.out.write_all(buf) {
            let kind = e.kind();
            t.error.get_or_insert(e);
            return Err(io::Error::from(kind));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().out.flush()
    }
}

/// Moves a `"type"` key that ends a line's object to its front:
/// rltrace's libcall objects come from serde_json with sorted keys
/// (`{"args":…,"type":"libcall"}`); a trace file's lines all start with
/// `{"type":"…"` (README.md, "Trace file"; [`Tally`] relies on it). Other
/// lines pass unchanged. `,"type":"` cannot occur inside a JSON string
/// (its quotes are escaped there), so the match is exact.
struct TypeFirst<W: Write> {
    inner: W,
    line: Vec<u8>,
}

impl<W: Write> TypeFirst<W> {
    fn new(inner: W) -> TypeFirst<W> {
        TypeFirst {
            inner,
            line: Vec::new(),
        }
    }

    fn put_line(&mut self) -> io::Result<()> {
        let l = &self.line;
        let fixed = reorder_type(l);
        let r = match &fixed {
            Some(f) => self.inner.write_all(f),
            None => self.inner.write_all(l),
        };
        self.line.clear();
        r
    }
}

/// `{"a":1,"type":"x"}\n` -> `{"type":"x","a":1}\n`; `None` when the line
/// starts with its type already or does not end with one.
fn reorder_type(l: &[u8]) -> Option<Vec<u8>> {
    const KEY: &[u8] = b",\"type\":\"";
    if l.starts_with(b"{\"type\":") {
        return None;
    }
    let body = l.strip_suffix(b"\n").unwrap_or(l);
    let inner = body.strip_suffix(b"\"}")?;
    let at = inner.windows(KEY.len()).rposition(|w| w == KEY)?;
    let name = &inner[at + KEY.len()..];
    if at == 0 || name.is_empty() || !name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        return None;
    }
    let mut out = Vec::with_capacity(l.len());
    out.push(b'{');
    out.extend_from_slice(&body[at + 1..body.len() - 1]);
    out.push(b',');
    out.extend_from_slice(&body[1..at]);
    out.push(b'}');
    out.extend_from_slice(&l[body.len()..]);
    Some(out)
}

impl<W: Write> Write for TypeFirst<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(n) = rest.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&rest[..=n]);
            self.put_line()?;
            rest = &rest[n + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for TypeFirst<W> {
    fn drop(&mut self) {
        if !self.line.is_empty() {
            let _ = self.put_line();
        }
        let _ = self.inner.flush();
    }
}

fn unix_now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format!("{}.{:09}", d.as_secs(), d.subsec_nanos())
}

/// FNV-1a (64 bit) of the sorted environment the command gets (`-E`
/// applied): `VAR=VALUE\0` per variable. Values never reach the file.
fn env_digest(changes: &[(OsString, Option<OsString>)]) -> (String, usize) {
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    for (k, v) in changes {
        match v {
            Some(v) => env.insert(k.clone(), v.clone()),
            None => env.remove(k),
        };
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, v) in &env {
        for b in k
            .as_bytes()
            .iter()
            .chain(b"=")
            .chain(v.as_bytes())
            .chain(b"\0")
        {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    (format!("fnv1a64:{h:016x}"), env.len())
}

/// (nodename, release) from uname(2).
fn uname() -> (String, String) {
    // SAFETY: uname fills the struct we own; the fields are NUL-terminated.
    unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut u) != 0 {
            return (String::new(), String::new());
        }
        let s = |f: &[libc::c_char]| {
            std::ffi::CStr::from_ptr(f.as_ptr())
                .to_string_lossy()
                .into_owned()
        };
        (s(&u.nodename), s(&u.release))
    }
}

fn push_os_list(out: &mut String, items: &[OsString]) {
    out.push('[');
    for (i, a) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str(out, &a.to_string_lossy());
    }
    out.push(']');
}

/// What the header says about the command: argv, `-E` changes.
struct Cmd<'a> {
    command: &'a [OsString],
    env: &'a [(OsString, Option<OsString>)],
}

fn header(a: &Args, o: Cmd) -> String {
    let (host, kernel) = uname();
    let (digest, nvars) = env_digest(o.env);
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut h = format!(
        "{{\"type\":\"header\",\"version\":{},\"tool\":\"rtrace\",\"rtrace_version\":\"{}\",\"command\":",
        super::file::VERSION,
        env!("CARGO_PKG_VERSION")
    );
    push_os_list(&mut h, o.command);
    h.push_str(",\"cwd\":");
    push_str(&mut h, &cwd);
    h.push_str(",\"env_digest\":");
    push_str(&mut h, &digest);
    let _ = write!(h, ",\"env_vars\":{nvars},\"hostname\":");
    push_str(&mut h, &host);
    h.push_str(",\"kernel\":");
    push_str(&mut h, &kernel);
    let _ = write!(
        h,
        ",\"arch\":\"{}\",\"start\":{},\"recorded\":{{\"syscalls\":true,\"libcalls\":{},\"stack\":{},\"probes\":",
        std::env::consts::ARCH,
        unix_now(),
        a.libcalls,
        a.stack,
    );
    push_os_list(
        &mut h,
        &a.probes.iter().map(OsString::from).collect::<Vec<_>>(),
    );
    let _ = write!(
        h,
        "}},\"compression\":{},\"options\":",
        if a.zstd { "\"zstd\"" } else { "null" }
    );
    push_os_list(&mut h, &a.pass);
    h.push_str("}\n");
    h
}

fn signame(sig: i32) -> String {
    crate::syscall::ctx::signal_name(sig as u64)
        .map(|c| c.into_owned())
        .unwrap_or_else(|| sig.to_string())
}

/// The footer and the exit status to pass on.
fn footer(end: Ended, started: Instant, counts: &BTreeMap<String, u64>) -> (String, i32) {
    let mut f = String::from("{\"type\":\"footer\"");
    let null = "null".to_string();
    let quoted = |s: String| {
        let mut q = String::new();
        push_str(&mut q, &s);
        q
    };
    let (code, signal, core, interrupted, status) = match end {
        Ended::Done(Outcome::Exited(c)) => (c.to_string(), null.clone(), false, null.clone(), c),
        Ended::Done(Outcome::Killed(s, core)) => (
            null.clone(),
            quoted(signame(s)),
            core,
            null.clone(),
            128 + s,
        ),
        Ended::Done(Outcome::None) => (null.clone(), null.clone(), false, null.clone(), 0),
        Ended::Interrupted(s) => (
            null.clone(),
            null.clone(),
            false,
            quoted(signame(s)),
            128 + s,
        ),
        Ended::Failed(c) => (null.clone(), null.clone(), false, null.clone(), c),
    };
    let _ = write!(
        f,
        ",\"exit_code\":{code},\"signal\":{signal},\"core_dumped\":{core},\"interrupted\":{interrupted}"
    );
    if let Ended::Failed(_) = end {
        f.push_str(",\"error\":\"the command could not be traced (see rtrace's messages)\"");
    }
    let el = started.elapsed();
    let _ = write!(
        f,
        ",\"elapsed\":{}.{:09},\"end\":{},\"events\":{{",
        el.as_secs(),
        el.subsec_nanos(),
        unix_now()
    );
    let mut total = 0;
    for (i, (k, n)) in counts.iter().enumerate() {
        if i > 0 {
            f.push(',');
        }
        push_str(&mut f, k);
        let _ = write!(f, ":{n}");
        total += n;
    }
    let _ = writeln!(f, "}},\"events_total\":{total}}}");
    (f, status)
}

/// Runs `rtrace record` with `args`; returns the exit code (the command's).
pub fn main(args: &[OsString]) -> i32 {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rtrace record: {e}");
            eprintln!("Try 'rtrace record --help' for more information.");
            return 1;
        }
    };
    if a.help {
        print!("{USAGE}");
        return 0;
    }
    if a.libcalls {
        return main_libcalls(&a);
    }
    // Attach notices would only clutter a CI log; the user's own -e quiet=
    // (later) still wins.
    let mut rargs: Vec<OsString> = ["-f", "--json", "-e", "quiet=attach,personality"]
        .iter()
        .map(OsString::from)
        .collect();
    rargs.extend(a.pass.iter().cloned());
    if a.stack && !a.pass.iter().any(|p| p == "-k") {
        rargs.push("-k".into());
    }
    rargs.push("--".into());
    rargs.extend(a.command.iter().cloned());
    let o = match cli::parse(&rargs) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("rtrace record: {}", e.msg);
            return 1;
        }
    };
    // `--json` is ours; refuse the user's own text-only options.
    let mut probe = o.clone();
    probe.json = a.pass.iter().any(|p| p == "--json");
    if let Err(e) = check(&probe) {
        eprintln!("rtrace record: {e}");
        return 1;
    }
    let mut probes = match probe::parse_specs(&a.probes) {
        Ok(specs) if specs.is_empty() => None,
        Ok(specs) => {
            if rtrace_arch::Arch::native() != rtrace_arch::Arch::X86_64 {
                eprintln!("rtrace record: --probe: only x86-64 is supported so far");
                return 1;
            }
            Some(probe::Probes::new(specs))
        }
        Err(e) => {
            eprintln!("rtrace record: {e}");
            return 1;
        }
    };
    let head = header(
        &a,
        Cmd {
            command: &o.command,
            env: &o.env,
        },
    );
    let status = record_to(&a, head, |w| {
        let layer = probes.as_mut().map(|p| p as &mut dyn strace::Layer);
        strace::run_layered(o, Sink::to_writer(w), layer)
    });
    for m in probes
        .as_mut()
        .map(probe::Probes::finish)
        .unwrap_or_default()
    {
        eprintln!("rtrace record: {m}");
    }
    status
}

/// Refuses rltrace options that make no sense in a recording.
fn check_libcalls(o: &lcli::Options, pass: &[OsString]) -> Result<(), String> {
    if !o.pids.is_empty() {
        return Err("-p: record launches a command; attaching is not supported".into());
    }
    if o.command.is_empty() {
        return Err(
            "no command to record (rtrace record --libcalls [options] -- CMD [ARGS...])".into(),
        );
    }
    if o.count {
        return Err("-c: record keeps every event; summarise with rtrace report FILE".into());
    }
    if o.no_plt {
        return Err("-L leaves out the library calls --libcalls is for".into());
    }
    if o.backend != crate::breakpoint::kcount::Backend::Auto {
        return Err(
            "--backend: a recording sees every call through ptrace; the kernel \
                    backend only counts (rltrace -c --backend kernel)"
                .into(),
        );
    }
    let text_only = [
        (o.time > 0, "-t"),
        (o.relative, "-r"),
        (o.time_in_call, "-T"),
        (o.ip, "-i"),
        (o.indent != 0, "-n"),
        (o.align != lcli::Options::default().align, "-a"),
        (o.where_depth != 0, "-w"),
        (pass.iter().any(|p| p == "--json"), "--json"),
    ];
    if let Some((_, name)) = text_only.iter().find(|t| t.0) {
        return Err(format!(
            "{name} only changes rltrace's text output; a recording always holds times, \
             durations and decoded values"
        ));
    }
    Ok(())
}

/// `rtrace record --libcalls`: rltrace's engine with `-f -S --json`.
fn main_libcalls(a: &Args) -> i32 {
    let mut largs: Vec<OsString> = ["-f", "-S", "--json"].iter().map(OsString::from).collect();
    largs.extend(a.pass.iter().cloned());
    largs.push("--".into());
    largs.extend(a.command.iter().cloned());
    let o = match lcli::parse(&largs) {
        Ok(o) => o,
        Err(lcli::CliError::Usage(m) | lcli::CliError::Value(m)) => {
            eprintln!("rtrace record: {m}");
            return 1;
        }
        Err(lcli::CliError::DebugHelp) => {
            print!("{}", lcli::DEBUG_HELP);
            return 0;
        }
    };
    if let Err(e) = check_libcalls(&o, &a.pass) {
        eprintln!("rtrace record: {e}");
        return 1;
    }
    let head = header(
        a,
        Cmd {
            command: &o.command,
            env: &[],
        },
    );
    record_to(a, head, |w| {
        let w = TypeFirst::new(io::BufWriter::with_capacity(1 << 16, w));
        crate::ltrace::trace(&o, Some(Box::new(w)))
    })
}

/// Creates the trace file, writes `head`, runs `trace` with a writer into
/// the file (through the [`Tally`]), then writes the footer; returns the
/// exit status to pass on.
fn record_to(a: &Args, head: String, trace: impl FnOnce(Box<dyn Write>) -> Ended) -> i32 {
    let path = a.output.clone().unwrap_or_else(|| DEFAULT_OUTPUT.into());
    let file = match File::create(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("rtrace record: cannot create '{}': {e}", show(&path));
            return 1;
        }
    };
    let out = Output::new(Box::new(file), a.zstd);
    let tally = Rc::new(RefCell::new(Tally::new(out)));
    if let Err(e) = tally.borrow_mut().out.write_all(head.as_bytes()) {
        eprintln!("rtrace record: writing '{}': {e}", show(&path));
        return 1;
    }
    let started = Instant::now();
    let end = trace(Box::new(Shared(tally.clone())));
    let mut t = tally.borrow_mut();
    let counts = t.counts.clone();
    let (foot, status) = footer(end, started, &counts);
    let wrote = t
        .out
        .write_all(foot.as_bytes())
        .and_then(|_| t.out.finish());
    if let Some(e) = t.error.take().or(wrote.err()) {
        eprintln!("rtrace record: writing '{}': {e}", show(&path));
        if status == 0 {
            return 1;
        }
    }
    status
}

fn show(p: &OsStr) -> String {
    p.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &[&str]) -> Result<Args, String> {
        parse(&s.iter().map(OsString::from).collect::<Vec<_>>())
    }
    fn os(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    #[test]
    fn splits_own_and_rstrace_options() {
        let a = p(&[
            "-o",
            "x.rtrace",
            "-e",
            "trace=openat",
            "-s64",
            "-k",
            "--trace",
            "%file",
            "make",
            "-o",
            "y",
        ])
        .unwrap();
        assert_eq!(a.output, Some("x.rtrace".into()));
        assert!(a.stack);
        assert_eq!(
            a.pass,
            os(&["-e", "trace=openat", "-s64", "--trace", "%file"])
        );
        assert_eq!(a.command, os(&["make", "-o", "y"]));
        let a = p(&["--output=f", "-yy", "--", "ls", "-l"]).unwrap();
        assert_eq!(a.output, Some("f".into()));
        assert_eq!(a.command, os(&["ls", "-l"]));
        assert_eq!(p(&["-ofile", "true"]).unwrap().output, Some("file".into()));
        let a = p(&[
            "--probe",
            "f",
            "--probe=ret:f",
            "-e",
            "trace=getpid",
            "prog",
        ])
        .unwrap();
        assert_eq!(a.probes, ["f", "ret:f"]);
        assert_eq!(a.pass, os(&["-e", "trace=getpid"]));
        assert_eq!(a.command, os(&["prog"]));
    }

    #[test]
    fn unsupported_options_are_refused() {
        for bad in [
            &["--libcalls", "--probe", "x", "true"][..],
            &["--probe"],
            &["-fo", "x", "true"],
            &["--libcalls", "-k", "true"],
        ] {
            assert!(p(bad).is_err(), "{bad:?}");
        }
        let o = cli::parse(&os(&["-f", "-c", "--", "true"])).unwrap();
        assert!(check(&o).unwrap_err().contains("rtrace report"));
        let o = cli::parse(&os(&["-f", "-T", "--", "true"])).unwrap();
        assert!(check(&o).unwrap_err().contains("-T"));
        let o = cli::parse(&os(&["-f", "-p", "1"])).unwrap();
        assert!(check(&o).is_err());
        let o = cli::parse(&os(&["-f", "-e", "trace=openat", "--", "true"])).unwrap();
        assert!(check(&o).is_ok());
    }

    #[test]
    fn zstd_and_libcalls_options() {
        let a = p(&["--zstd", "-o", "x", "true"]).unwrap();
        assert!(a.zstd && !a.libcalls);
        assert!(p(&["-o", "x.rtrace.zst", "true"]).unwrap().zstd);
        assert!(!p(&["-o", "x.rtrace", "true"]).unwrap().zstd);
        // rltrace's options: -l and -x take a value, -S does not.
        let a = p(&[
            "-l",
            "libm.so*",
            "--libcalls",
            "-x",
            "main",
            "-S",
            "prog",
            "-l",
        ])
        .unwrap();
        assert!(a.libcalls);
        assert_eq!(a.pass, os(&["-l", "libm.so*", "-x", "main", "-S"]));
        assert_eq!(a.command, os(&["prog", "-l"]));
        // After `--` it is the command's.
        let a = p(&["--", "prog", "--libcalls"]).unwrap();
        assert!(!a.libcalls);
        assert_eq!(a.command, os(&["prog", "--libcalls"]));
        let lo = |s: &[&str]| lcli::parse(&os(s)).unwrap();
        assert!(check_libcalls(&lo(&["-f", "--", "true"]), &[]).is_ok());
        assert!(check_libcalls(&lo(&["-c", "--", "true"]), &[])
            .unwrap_err()
            .contains("rtrace report"));
        assert!(
            check_libcalls(&lo(&["--backend=kernel", "--", "true"]), &[])
                .unwrap_err()
                .contains("--backend")
        );
        assert!(check_libcalls(&lo(&["-tt", "--", "true"]), &[])
            .unwrap_err()
            .contains("-t"));
        assert!(check_libcalls(&lo(&["-L", "--", "true"]), &[]).is_err());
        assert!(check_libcalls(&lo(&["-p", "1"]), &[]).is_err());
    }

    #[test]
    fn type_key_moves_to_the_front() {
        let fix = |l: &str| reorder_type(l.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(
            fix("{\"args\":[\"\\\",\\\"type\\\":\\\"x\"],\"pid\":1,\"type\":\"libcall\"}\n")
                .as_deref(),
            Some("{\"type\":\"libcall\",\"args\":[\"\\\",\\\"type\\\":\\\"x\"],\"pid\":1}\n")
        );
        assert_eq!(fix("{\"type\":\"syscall\",\"pid\":1}\n"), None);
        assert_eq!(fix("{\"a\":1}\n"), None);
        assert_eq!(fix("{\"a\":\"x\"}\n"), None);
        // Through the writer, in pieces, with a Tally behind it.
        let t = Rc::new(RefCell::new(Tally::new(Output::Plain(
            Box::new(io::sink()),
        ))));
        {
            let mut w = TypeFirst::new(Shared(t.clone()));
            let text = b"{\"args\":[],\"type\":\"libcall\"}\n{\"type\":\"exit\",\"pid\":1}\n";
            for c in text.chunks(7) {
                w.write_all(c).unwrap();
            }
        }
        let t = t.borrow();
        assert_eq!(t.counts["libcall"], 1);
        assert_eq!(t.counts["exit"], 1);
        assert!(!t.counts.contains_key("other"));
    }

    #[test]
    fn tally_counts_types_across_chunks() {
        let mut t = Tally::new(Output::Plain(Box::new(io::sink())));
        let text = b"{\"type\":\"syscall\",\"pid\":1}\n{\"type\":\"syscall\",\"pid\":2}\n{\"type\":\"exit\",\"pid\":1}\n{\"type\":\"signal\"}\n";
        for chunk in text.chunks(5) {
            t.scan(chunk);
        }
        assert_eq!(t.counts["syscall"], 2);
        assert_eq!(t.counts["exit"], 1);
        assert_eq!(t.counts["signal"], 1);
    }

    #[test]
    fn env_digest_hides_values_but_tracks_them() {
        let (a, n) = env_digest(&[]);
        let (b, m) = env_digest(&[("RTRACE_TEST_X".into(), Some("1".into()))]);
        let (c, _) = env_digest(&[("RTRACE_TEST_X".into(), Some("2".into()))]);
        assert!(a.starts_with("fnv1a64:") && a.len() == 24);
        assert_ne!(a, b);
        assert_ne!(b, c);
        assert_eq!(m, n + 1);
    }
}
