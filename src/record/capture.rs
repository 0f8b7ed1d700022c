//! `rtrace record`: runs a command under the rstrace engine (`-f --json`)
//! and writes one trace file: a `header` line, the events exactly as
//! `rstrace -f --json` prints them, and a `footer` line (schema in
//! [`super::file`] and README.md, "Trace file").
//!
//! Nothing here traces: the command line is turned into rstrace options and
//! handed to [`crate::strace::run`] with a sink that writes into the trace
//! file through a [`Tally`], which counts the events by type on their way
//! to the file (every event line starts with `{"type":"…"`), so the footer
//! can carry the counts without a second pass. The command's fate becomes
//! rtrace's exit status the way a shell reports it: the exit code, or
//! 128 + N when it was killed by signal N (or when rtrace itself was
//! interrupted by signal N and killed the command).

use crate::engine::Outcome;
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
usage: rtrace record [-o FILE] [--syscalls] [-k|--stack] [rstrace options] [--] CMD [ARGS...]

Records the system calls of CMD and every process it starts into FILE
(default rtrace.rtrace): JSON Lines with a header (command, cwd,
environment digest, host, kernel, start time), the events as
`rstrace -f --json` prints them, and a footer (exit status, elapsed time,
event counts). Exits with CMD's exit status (128+N if CMD was killed by
signal N), so it can wrap a CI step unchanged.

  -o FILE          the trace file (default rtrace.rtrace)
  --syscalls       record system calls (the default and, for now, the only kind)
  -k, --stack      add the user stack of every syscall (\"stack\" frames)
  rstrace options  filters and decoding: -e trace=..., -e signal=..., -e status=...,
                   -e inject=..., -P PATH, -s N, -v, -y, -yy, -X ..., -E VAR=VAL,
                   -u USER, -b execve, -I N, --seccomp-bpf, --no-cpu-pin
Not supported yet: --libcalls (needs rltrace --json), --probe SPEC,
zstd compression (--zstd, -o FILE.zst).
";

/// The record command line, split into ours and rstrace's.
#[derive(Debug, Default, PartialEq)]
struct Args {
    output: Option<OsString>,
    stack: bool,
    help: bool,
    /// rstrace options passed through, in order.
    pass: Vec<OsString>,
    command: Vec<OsString>,
}

fn parse(args: &[OsString]) -> Result<Args, String> {
    let mut a = Args::default();
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
            "--libcalls" => {
                return Err(
                    "--libcalls is not supported yet: recording library calls needs \
                            rltrace's JSON output, which this build does not have"
                        .into(),
                )
            }
            "--zstd" => {
                return Err(
                    "zstd-compressed trace files are not supported by this build; \
                            compress the file afterwards (zstd run.rtrace) and decompress it \
                            before reading"
                        .into(),
                )
            }
            "--normalize" => {
                return Err(
                    "a recording keeps the real values; normalise when reading it \
                            (rtrace report --normalize)"
                        .into(),
                )
            }
            _ if arg == "--probe" || arg.starts_with("--probe=") => {
                return Err(
                    "--probe is not supported yet: record only captures system calls \
                            (use rtrace kernel probe for uprobes)"
                        .into(),
                )
            }
            _ if arg.starts_with("--output=") => {
                a.output = Some(OsString::from(&arg["--output=".len()..]));
            }
            _ if arg.starts_with("--") => {
                a.pass.push(args[i].clone());
                let name = &arg[2..];
                if !name.contains('=') && cli::long_takes_arg(name) {
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
                    if c == b'k' {
                        a.stack = true;
                    }
                    if cli::WITH_ARG.contains(&c) {
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

/// Counts event lines by their `"type"` on their way to the file.
pub struct Tally {
    out: Box<dyn Write>,
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
    fn new(out: Box<dyn Write>) -> Tally {
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

fn header(a: &Args, o: &cli::Options) -> String {
    let (host, kernel) = uname();
    let (digest, nvars) = env_digest(&o.env);
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut h = format!(
        "{{\"type\":\"header\",\"version\":{},\"tool\":\"rtrace\",\"rtrace_version\":\"{}\",\"command\":",
        super::file::VERSION,
        env!("CARGO_PKG_VERSION")
    );
    push_os_list(&mut h, &o.command);
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
        ",\"arch\":\"{}\",\"start\":{},\"recorded\":{{\"syscalls\":true,\"libcalls\":false,\"stack\":{},\"probes\":[]}},\"options\":",
        std::env::consts::ARCH,
        unix_now(),
        a.stack
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
    let path = a.output.clone().unwrap_or_else(|| DEFAULT_OUTPUT.into());
    if path.as_bytes().ends_with(b".zst") {
        eprintln!(
            "rtrace record: zstd-compressed trace files are not supported by this build; \
             record to a plain file and compress it afterwards"
        );
        return 1;
    }
    let file = match File::create(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("rtrace record: cannot create '{}': {e}", show(&path));
            return 1;
        }
    };
    let tally = Rc::new(RefCell::new(Tally::new(Box::new(file))));
    let head = header(&a, &o);
    if let Err(e) = tally.borrow_mut().out.write_all(head.as_bytes()) {
        eprintln!("rtrace record: writing '{}': {e}", show(&path));
        return 1;
    }
    let started = Instant::now();
    let sink = Sink::to_writer(Box::new(Shared(tally.clone())));
    let end = strace::run(o, sink);
    let mut t = tally.borrow_mut();
    let counts = t.counts.clone();
    let (foot, status) = footer(end, started, &counts);
    let wrote = t.out.write_all(foot.as_bytes()).and_then(|_| t.out.flush());
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
    }

    #[test]
    fn unsupported_options_are_refused() {
        for bad in [
            &["--libcalls", "true"][..],
            &["--probe", "x", "true"],
            &["--zstd", "true"],
            &["-fo", "x", "true"],
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
    fn tally_counts_types_across_chunks() {
        let mut t = Tally::new(Box::new(io::sink()));
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
