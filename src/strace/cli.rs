//! The strace command line, parsed getopt-style from a slice of arguments so
//! it is unit-testable. Option letters, long names (with getopt's unique
//! prefixes), defaults, the checks strace makes after parsing, and the
//! wording of every error and warning follow strace 6.1, so
//! `alias strace=rstrace` works and scripts see the same diagnostics.
//!
//! Fatal problems come back as [`UsageError`]; non-fatal ones (strace's
//! "has no effect" notes) are collected in [`Options::warnings`] and printed
//! by the tracer before it starts.

use super::filter::{self, NameSet, SyscallSet};
use std::ffi::OsString;

/// `-S` sort keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    /// Total time (default).
    Time,
    /// Calls.
    Calls,
    /// Errors.
    Errors,
    /// Name.
    Name,
    /// Average time.
    AvgTime,
    /// Minimum time.
    MinTime,
    /// Maximum time.
    MaxTime,
    /// Table order.
    Nothing,
}

/// How absolute timestamps are printed (`-t`, `--timestamps=format:…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TimeFormat {
    /// No timestamps.
    #[default]
    None,
    /// Local time of day, `HH:MM:SS`.
    Time,
    /// Seconds since the epoch.
    Unix,
}

/// Absolute timestamps: format and digits after the point (0, 3, 6 or 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Stamps {
    /// The format.
    pub format: TimeFormat,
    /// Fraction digits: 0 (`s`), 3 (`ms`), 6 (`us`), 9 (`ns`).
    pub width: u8,
}

/// Every option rstrace understands.
#[derive(Clone, Debug)]
pub struct Options {
    /// `-f`.
    pub follow: bool,
    /// `-ff` / `--output-separately` (with `-o`).
    pub output_separately: bool,
    /// `-o FILE` (`|CMD` / `!CMD` pipes into a command).
    pub output: Option<String>,
    /// `-A`.
    pub append: bool,
    /// `-c` (summary only).
    pub summary_only: bool,
    /// `-C` (summary and trace).
    pub summary: bool,
    /// `-w`.
    pub wall_clock: bool,
    /// `-S`.
    pub sort_by: SortBy,
    /// `-s`.
    pub string_limit: usize,
    /// `-x` count (2: all strings in hex).
    pub xflag: u8,
    /// `-X`: 0 abbrev, 1 raw, 2 verbose.
    pub xlat_style: u8,
    /// `-t`, `-tt`, `-ttt`, `--timestamps`.
    pub stamps: Stamps,
    /// `-r`: fraction digits of relative timestamps.
    pub relative: Option<u8>,
    /// `-T`: fraction digits of syscall times.
    pub syscall_times: Option<u8>,
    /// `-E`.
    pub env: Vec<(OsString, Option<OsString>)>,
    /// `-u`.
    pub user: Option<String>,
    /// `-a`.
    pub column: usize,
    /// `-p`.
    pub pids: Vec<i32>,
    /// `-P`.
    pub trace_paths: Vec<String>,
    /// `-b execve`: stop tracing a task when it executes a program (except
    /// the launched command's first exec).
    pub detach_on_execve: bool,
    /// `-y` level: 0 none, 1 paths, 2 paths and socket/device details.
    pub decode_fds: u8,
    /// `-i`.
    pub instruction_pointer: bool,
    /// `-n`.
    pub syscall_number: bool,
    /// `-k`.
    pub stack_traces: bool,
    /// `-I`.
    pub interruptible: Option<u8>,
    /// `-e trace=`.
    pub trace: SyscallSet,
    /// `-e abbrev=` (`-v` empties it).
    pub abbrev: SyscallSet,
    /// `-e verbose=`.
    pub verbose: SyscallSet,
    /// `-Y` / `--decode-pids=comm`: pids with their command names.
    pub decode_pids_comm: bool,
    /// `-e raw=`.
    pub raw: SyscallSet,
    /// `-e signal=`: which signals to print.
    pub signals: NameSet,
    /// `-e status=`, `-z`, `-Z` (numbers of [`filter::status`]).
    pub status: NameSet,
    /// `-e quiet=`, `-q`… (numbers of [`filter::quiet`]).
    pub quiet_set: NameSet,
    /// `--seccomp-bpf` / `--no-seccomp-bpf`; `None` = automatic.
    pub seccomp: Option<bool>,
    /// `--json`.
    pub json: bool,
    /// `--normalize`: stable placeholders for pids, addresses, times and
    /// temp paths in the output (see `output::normalize`).
    pub normalize: bool,
    /// `--no-syscall-info`: read registers instead (the tested fallback).
    pub regs_only: bool,
    /// Run tracer and launched command on one CPU (`--no-cpu-pin` turns it off).
    pub cpu_pin: bool,
    /// The command.
    pub command: Vec<OsString>,
    /// `-h`.
    pub help: bool,
    /// `-V`.
    pub version: bool,
    /// Non-fatal diagnostics, printed as `rstrace: MSG` before tracing starts.
    pub warnings: Vec<String>,
    /// `-e read=`: descriptors whose reads are dumped.
    pub dump_reads: super::dumpio::FdSet,
    /// `-e write=`: descriptors whose writes are dumped.
    pub dump_writes: super::dumpio::FdSet,
    /// `-e inject=` / `-e fault=` rules, in order.
    pub inject: Vec<super::inject::Rule>,
    /// `--replay-faults`: the recorded errors to inject.
    pub replay: Option<super::replay::Plan>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            follow: false,
            output_separately: false,
            output: None,
            append: false,
            summary_only: false,
            summary: false,
            wall_clock: false,
            sort_by: SortBy::Time,
            string_limit: 32,
            xflag: 0,
            xlat_style: 0,
            stamps: Stamps::default(),
            relative: None,
            syscall_times: None,
            env: Vec::new(),
            user: None,
            column: 40,
            pids: Vec::new(),
            trace_paths: Vec::new(),
            detach_on_execve: false,
            decode_fds: 0,
            instruction_pointer: false,
            syscall_number: false,
            stack_traces: false,
            interruptible: None,
            trace: SyscallSet::all(),
            abbrev: SyscallSet::all(),
            verbose: SyscallSet::all(),
            decode_pids_comm: false,
            raw: SyscallSet::none(),
            signals: NameSet::all(),
            status: NameSet::all(),
            quiet_set: NameSet::none(),
            seccomp: None,
            json: false,
            normalize: false,
            regs_only: false,
            cpu_pin: true,
            command: Vec::new(),
            help: false,
            version: false,
            warnings: Vec::new(),
            inject: Vec::new(),
            replay: None,
            dump_reads: Default::default(),
            dump_writes: Default::default(),
        }
    }
}

/// A command-line error: printed as `rstrace: MSG` and exit status 1.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError {
    /// The message (without the program name).
    pub msg: String,
    /// Follow with "Try 'rstrace -h' for more information.".
    pub hint: bool,
}

fn err(msg: impl Into<String>) -> UsageError {
    UsageError {
        msg: msg.into(),
        hint: false,
    }
}

fn err_hint(msg: impl Into<String>) -> UsageError {
    UsageError {
        msg: msg.into(),
        hint: true,
    }
}

impl From<filter::FilterError> for UsageError {
    fn from(e: filter::FilterError) -> UsageError {
        UsageError {
            msg: e.msg,
            hint: e.hint,
        }
    }
}

/// Short options that take an argument (strace's optstring
/// `+a:Ab:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yzZ`).
pub const WITH_ARG: &[u8] = b"abeEIoOpPsSuUX";
/// Short options without an argument.
const NO_ARG: &[u8] = b"AcCdDfFhiknqrtTvVwxyYzZ";

/// What a long option does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Long {
    /// The same as this short option.
    Short(u8),
    /// `--follow-forks`.
    FollowForks,
    /// `--output-separately`.
    OutputSeparately,
    /// `--daemonize[=…]`.
    Daemonize,
    /// `--absolute-timestamps[=…]` / `--timestamps[=…]`.
    Timestamps,
    /// `--strings-in-hex[=…]`.
    StringsInHex,
    /// `--pidns-translation`.
    PidnsTranslation,
    /// `--seccomp-bpf`.
    SeccompBpf,
    /// `--tips[=…]`.
    Tips,
    /// `--secontext[=…]`.
    Secontext,
    /// `--trace=`, `--abbrev=`, …: `-e KEY=VALUE`.
    Qualify(&'static str),
    /// `--quiet[=…]`: `-e quiet=VALUE`, default `attach,personality`.
    Quiet,
    /// `--decode-fds[=…]`: `-e decode-fds=VALUE`, default `path`.
    DecodeFds,
    /// rstrace extensions.
    Json,
    /// `--normalize`.
    Normalize,
    /// `--no-syscall-info`.
    NoSyscallInfo,
    /// `--no-cpu-pin`.
    NoCpuPin,
    /// `--no-seccomp-bpf`.
    NoSeccompBpf,
    /// `--replay-faults FILE[:trace=SET]`.
    ReplayFaults,
}

/// Argument kinds of long options.
const NONE: u8 = 0;
const REQUIRED: u8 = 1;
const OPTIONAL: u8 = 2;

/// strace 6.1's long options in its table order (getopt lists ambiguous
/// prefixes in this order), then rstrace's own.
const LONG: &[(&str, Long, u8)] = &[
    ("columns", Long::Short(b'a'), REQUIRED),
    ("output-append-mode", Long::Short(b'A'), NONE),
    ("detach-on", Long::Short(b'b'), REQUIRED),
    ("summary-only", Long::Short(b'c'), NONE),
    ("summary", Long::Short(b'C'), NONE),
    ("debug", Long::Short(b'd'), NONE),
    ("daemonize", Long::Daemonize, OPTIONAL),
    ("daemonised", Long::Daemonize, OPTIONAL),
    ("daemonized", Long::Daemonize, OPTIONAL),
    ("env", Long::Short(b'E'), REQUIRED),
    ("follow-forks", Long::FollowForks, NONE),
    ("output-separately", Long::OutputSeparately, NONE),
    ("help", Long::Short(b'h'), NONE),
    ("instruction-pointer", Long::Short(b'i'), NONE),
    ("interruptible", Long::Short(b'I'), REQUIRED),
    ("stack-traces", Long::Short(b'k'), NONE),
    ("syscall-number", Long::Short(b'n'), NONE),
    ("output", Long::Short(b'o'), REQUIRED),
    ("summary-syscall-overhead", Long::Short(b'O'), REQUIRED),
    ("attach", Long::Short(b'p'), REQUIRED),
    ("trace-path", Long::Short(b'P'), REQUIRED),
    ("relative-timestamps", Long::Short(b'r'), OPTIONAL),
    ("string-limit", Long::Short(b's'), REQUIRED),
    ("summary-sort-by", Long::Short(b'S'), REQUIRED),
    ("absolute-timestamps", Long::Timestamps, OPTIONAL),
    ("timestamps", Long::Timestamps, OPTIONAL),
    ("syscall-times", Long::Short(b'T'), OPTIONAL),
    ("user", Long::Short(b'u'), REQUIRED),
    ("summary-columns", Long::Short(b'U'), REQUIRED),
    ("no-abbrev", Long::Short(b'v'), NONE),
    ("version", Long::Short(b'V'), NONE),
    ("summary-wall-clock", Long::Short(b'w'), NONE),
    ("strings-in-hex", Long::StringsInHex, OPTIONAL),
    ("const-print-style", Long::Short(b'X'), REQUIRED),
    ("pidns-translation", Long::PidnsTranslation, NONE),
    ("successful-only", Long::Short(b'z'), NONE),
    ("failed-only", Long::Short(b'Z'), NONE),
    ("failing-only", Long::Short(b'Z'), NONE),
    ("seccomp-bpf", Long::SeccompBpf, NONE),
    ("tips", Long::Tips, OPTIONAL),
    ("trace", Long::Qualify("trace"), REQUIRED),
    ("abbrev", Long::Qualify("abbrev"), REQUIRED),
    ("verbose", Long::Qualify("verbose"), REQUIRED),
    ("raw", Long::Qualify("raw"), REQUIRED),
    ("signals", Long::Qualify("signal"), REQUIRED),
    ("status", Long::Qualify("status"), REQUIRED),
    ("read", Long::Qualify("read"), REQUIRED),
    ("write", Long::Qualify("write"), REQUIRED),
    ("fault", Long::Qualify("fault"), REQUIRED),
    ("inject", Long::Qualify("inject"), REQUIRED),
    ("kvm", Long::Qualify("kvm"), REQUIRED),
    ("quiet", Long::Quiet, OPTIONAL),
    ("silent", Long::Quiet, OPTIONAL),
    ("silence", Long::Quiet, OPTIONAL),
    ("decode-fds", Long::DecodeFds, OPTIONAL),
    ("decode-pids", Long::Qualify("decode-pids"), REQUIRED),
    ("secontext", Long::Secontext, OPTIONAL),
    ("json", Long::Json, NONE),
    ("normalize", Long::Normalize, NONE),
    ("no-syscall-info", Long::NoSyscallInfo, NONE),
    ("no-cpu-pin", Long::NoCpuPin, NONE),
    ("no-seccomp-bpf", Long::NoSeccompBpf, NONE),
    ("replay-faults", Long::ReplayFaults, REQUIRED),
];

/// Finds a long option by exact name or unique prefix, as getopt_long does.
/// `arg` is the whole argument, for the messages.
fn find_long(name: &str, arg: &str) -> Result<&'static (&'static str, Long, u8), UsageError> {
    if let Some(l) = LONG.iter().find(|l| l.0 == name) {
        return Ok(l);
    }
    let cands: Vec<&(&str, Long, u8)> = LONG.iter().filter(|l| l.0.starts_with(name)).collect();
    match cands.as_slice() {
        [] => Err(err_hint(format!("unrecognized option '{arg}'"))),
        [one] => Ok(one),
        [first, rest @ ..] if rest.iter().all(|l| l.1 == first.1 && l.2 == first.2) => Ok(first),
        _ => {
            let list: Vec<String> = cands.iter().map(|l| format!("'--{}'", l.0)).collect();
            Err(err_hint(format!(
                "option '{arg}' is ambiguous; possibilities: {}",
                list.join(" ")
            )))
        }
    }
}

/// Does the long option `--NAME` (a unique prefix is enough) take its
/// value from the next argument when none is given with `=`? For front
/// ends (`rtrace record`) that pass rstrace options through.
pub fn long_takes_arg(name: &str) -> bool {
    find_long(name, name).is_ok_and(|l| l.2 == REQUIRED)
}

/// What strace counts while parsing, for the checks after it.
#[derive(Default)]
struct Seen {
    follow_short: u32,
    follow_long: bool,
    output_separately_long: bool,
    tflag_short: u32,
    tflag_long: bool,
    xflag_long: Option<u8>,
    yflag_short: u32,
    decode_fds_updated: bool,
    qflag_short: u32,
    quiet_updated: bool,
    zflags: u32,
    opt_f: bool,
    columns_set: bool,
    sortby_set: bool,
    detach_on_execve: bool,
    daemonize: bool,
    decode_pids: bool,
}

/// Parses `args` (without argv[0]).
pub fn parse(args: &[OsString]) -> Result<Options, UsageError> {
    let mut o = Options::default();
    let mut seen = Seen::default();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy().into_owned();
        if a == "--" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let &(lname, what, takes) = find_long(name, &a)?;
            let val = match (takes, inline) {
                (NONE, Some(_)) => {
                    return Err(err_hint(format!(
                        "option '--{lname}' doesn't allow an argument"
                    )))
                }
                (REQUIRED, None) => {
                    i += 1;
                    match args.get(i) {
                        Some(v) => Some(v.to_string_lossy().into_owned()),
                        None => {
                            return Err(err_hint(format!(
                                "option '--{lname}' requires an argument"
                            )))
                        }
                    }
                }
                (_, v) => v,
            };
            i += 1;
            match what {
                Long::Short(c) => apply_short(&mut o, &mut seen, c, val, Some(lname))?,
                _ => apply_long(&mut o, &mut seen, what, lname, val)?,
            }
            if o.help || o.version {
                return Ok(o);
            }
            continue;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        let bytes = a.as_bytes();
        let mut j = 1;
        while j < bytes.len() {
            let c = bytes[j];
            j += 1;
            if WITH_ARG.contains(&c) {
                let val = if j < bytes.len() {
                    let v = String::from_utf8_lossy(&bytes[j..]).into_owned();
                    j = bytes.len();
                    v
                } else {
                    i += 1;
                    match args.get(i) {
                        Some(v) => v.to_string_lossy().into_owned(),
                        None => {
                            return Err(err_hint(format!(
                                "option requires an argument -- '{}'",
                                c as char
                            )))
                        }
                    }
                };
                apply_short(&mut o, &mut seen, c, Some(val), None)?;
            } else if NO_ARG.contains(&c) {
                apply_short(&mut o, &mut seen, c, None, None)?;
            } else {
                let shown = a[j - 1..].chars().next().unwrap_or('?');
                return Err(err_hint(format!("invalid option -- '{shown}'")));
            }
            if o.help || o.version {
                return Ok(o);
            }
        }
        i += 1;
    }
    o.command = args[i.min(args.len())..].to_vec();
    after_parse(&mut o, &mut seen)?;
    Ok(o)
}

/// strace's checks and defaults after option parsing, in its order.
fn after_parse(o: &mut Options, seen: &mut Seen) -> Result<(), UsageError> {
    let argc = o.command.len();
    if argc == 0 && o.pids.is_empty() {
        return Err(err_hint("must have PROG [ARGS] or -p PID"));
    }
    if argc == 0 && seen.daemonize {
        return Err(err_hint(
            "PROG [ARGS] must be specified with -D/--daemonize",
        ));
    }
    if seen.tflag_short > 0 {
        if seen.tflag_long {
            return Err(err(
                "-t and --absolute-timestamps cannot be provided simultaneously",
            ));
        }
        o.stamps = match seen.tflag_short {
            1 => Stamps {
                format: TimeFormat::Time,
                width: 0,
            },
            2 => Stamps {
                format: TimeFormat::Time,
                width: 6,
            },
            _ => Stamps {
                format: TimeFormat::Unix,
                width: 6,
            },
        };
    }
    if let Some(x) = seen.xflag_long {
        if o.xflag > 0 {
            return Err(err(
                "-x and --strings-in-hex cannot be provided simultaneously",
            ));
        }
        o.xflag = x;
    }
    if seen.yflag_short > 0 {
        if seen.decode_fds_updated {
            return Err(err("-y and --decode-fds cannot be provided simultaneously"));
        }
        o.decode_fds = seen.yflag_short.min(2) as u8;
    }
    if seen.detach_on_execve {
        if o.seccomp == Some(true) {
            o.warnings
                .push("--seccomp-bpf is not enabled because it is not compatible with -b".into());
        }
        // A detached task keeps the filter and would get ENOSYS for the
        // calls it sends to a tracer it no longer has.
        o.seccomp = Some(false);
        // Nor may it stay pinned to rstrace's CPU: the engine's per-task
        // detach does not restore the affinity it set, so do not pin at all.
        o.cpu_pin = false;
        o.detach_on_execve = true;
    }
    if seen.follow_short > 0 {
        if seen.follow_long {
            return Err(err(
                "-f and --follow-forks cannot be provided simultaneously",
            ));
        }
        if seen.follow_short >= 2 && seen.output_separately_long {
            return Err(err(
                "-ff and --output-separately cannot be provided simultaneously",
            ));
        }
        o.follow = true;
        o.output_separately = seen.follow_short >= 2;
    } else {
        o.follow = seen.follow_long;
        o.output_separately = seen.output_separately_long;
    }
    if o.seccomp == Some(true) {
        if !o.pids.is_empty() && argc == 0 {
            o.warnings
                .push("--seccomp-bpf is not enabled for processes attached with -p".into());
        }
        if !o.follow {
            o.warnings
                .push("--seccomp-bpf cannot be used without -f/--follow-forks, disabling".into());
            o.seccomp = Some(false);
        }
    }
    if seen.opt_f {
        if o.follow {
            o.warnings.push("deprecated option -F ignored".into());
        } else {
            o.warnings
                .push("option -F is deprecated, please use -f/--follow-forks instead".into());
            o.follow = true;
        }
    }
    let cflag = o.summary_only || o.summary;
    if o.output_separately && cflag {
        return Err(err_hint(
            "(-c/--summary-only or -C/--summary) and -ff/--output-separately are mutually exclusive",
        ));
    }
    if o.wall_clock && !cflag {
        return Err(err_hint(
            "-w/--summary-wall-clock must be given with (-c/--summary-only or -C/--summary)",
        ));
    }
    if seen.columns_set && !cflag {
        return Err(err_hint(
            "-U/--summary-columns must be given with (-c/--summary-only or -C/--summary)",
        ));
    }
    if seen.sortby_set && !cflag {
        o.warnings.push(
            "-S/--summary-sort-by has no effect without (-c/--summary-only or -C/--summary)".into(),
        );
    }
    if o.summary_only {
        let ignored = [
            (o.instruction_pointer, "-i/--instruction-pointer"),
            (o.stack_traces, "-k/--stack-traces"),
            (o.syscall_number, "-n/--syscall-number"),
            (o.relative.is_some(), "-r/--relative-timestamps"),
            (
                o.stamps.format != TimeFormat::None,
                "-t/--absolute-timestamps",
            ),
            (o.syscall_times.is_some(), "-T/--syscall-times"),
            (o.decode_fds > 0, "-y/--decode-fds"),
        ];
        for (set, what) in ignored {
            if set {
                o.warnings
                    .push(format!("{what} has no effect with -c/--summary-only"));
            }
        }
    }
    if o.output.is_none() {
        if o.output_separately && !o.follow {
            o.warnings
                .push("--output-separately has no effect without -o/--output".into());
        }
        if o.append {
            o.warnings
                .push("-A/--output-append-mode has no effect without -o/--output".into());
        }
    }
    if seen.zflags > 1 {
        o.warnings.push(
            "Only the last of -z/--successful-only/-Z/--failed-only options will take effect. \
             See status qualifier for more complex filters."
                .into(),
        );
    }
    if o.user.is_some() && !running_as_root() {
        return Err(err("You must be root to use the -u/--username option"));
    }
    match o.output.as_deref() {
        Some(out) if out.starts_with('|') || out.starts_with('!') => {
            if o.output_separately {
                return Err(err_hint(
                    "piping the output and -ff/--output-separately are mutually exclusive",
                ));
            }
        }
        Some(_) => {}
        // -ff without -o FILE is the same as a single -f.
        None => o.output_separately = false,
    }
    // With -o and a command, strace is quiet about attaching by default.
    if o.output.is_some() && argc > 0 && seen.qflag_short == 0 && !seen.quiet_updated {
        seen.qflag_short = 1;
    }
    if seen.qflag_short > 0 {
        if seen.quiet_updated {
            return Err(err(
                "-q and -e quiet/--quiet cannot be provided simultaneously",
            ));
        }
        let spec = match seen.qflag_short {
            1 => "attach,personality",
            2 => "exit,attach,personality",
            _ => "all",
        };
        o.quiet_set = NameSet::parse(spec, "quiet", filter::quiet_number)?;
    }
    if o.replay.as_ref().is_some_and(|p| p.in_children) && !o.follow {
        o.warnings.push(
            "--replay-faults: the recording has errors in child processes, which are only \
             replayed with -f"
                .into(),
        );
    }
    // Accepted by strace, not implemented here: refuse rather than ignore.
    if seen.decode_pids {
        return Err(err(
            "-e decode-pids=pidns is not implemented yet in rstrace",
        ));
    }
    Ok(())
}

/// Is rstrace running with real and effective uid 0 (strace's `-u` check)?
fn running_as_root() -> bool {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else {
        return true;
    };
    s.lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .map(|v| {
            let ids: Vec<&str> = v.split_whitespace().collect();
            ids.first() == Some(&"0") && ids.get(1) == Some(&"0")
        })
        .unwrap_or(true)
}

/// strace's `error_opt_arg`: `invalid -X argument: 'V'` or, when the option
/// was given by its long name, `invalid --NAME argument: 'V'`.
fn opt_arg_err(c: u8, lname: Option<&str>, v: &str) -> UsageError {
    match lname {
        Some(l) => err_hint(format!("invalid --{l} argument: '{v}'")),
        None => err_hint(format!("invalid -{} argument: '{v}'", c as char)),
    }
}

/// Digits after the point of a time precision suffix (`s`, `ms`, `us`, `ns`).
fn precision(s: &str) -> Option<u8> {
    match s {
        "s" => Some(0),
        "ms" => Some(3),
        "us" => Some(6),
        "ns" => Some(9),
        _ => None,
    }
}

/// `--timestamps=` tokens: `[format:]none|time|unix`, `[precision:]s|ms|us|ns`.
fn parse_ts(o: &mut Options, arg: &str) -> Result<(), ()> {
    let mut format = None;
    let mut width = None;
    for tok in arg.split(',').filter(|t| !t.is_empty()) {
        let fmt = |s: &str| match s {
            "none" => Some(TimeFormat::None),
            "time" => Some(TimeFormat::Time),
            "unix" => Some(TimeFormat::Unix),
            _ => None,
        };
        if let Some(f) = tok.strip_prefix("format:") {
            format = Some(fmt(f).ok_or(())?);
        } else if let Some(p) = tok.strip_prefix("precision:") {
            width = Some(precision(p).ok_or(())?);
        } else if let Some(f) = fmt(tok) {
            format = Some(f);
        } else if let Some(p) = precision(tok) {
            width = Some(p);
        } else {
            return Err(());
        }
    }
    o.stamps.format = format.unwrap_or(match o.stamps.format {
        TimeFormat::None => TimeFormat::Time,
        f => f,
    });
    if let Some(w) = width {
        o.stamps.width = w;
    }
    Ok(())
}

fn apply_short(
    o: &mut Options,
    seen: &mut Seen,
    c: u8,
    val: Option<String>,
    lname: Option<&str>,
) -> Result<(), UsageError> {
    let v = val.clone().unwrap_or_default();
    match c {
        b'a' => {
            o.column = filter::string_to_uint(&v, i32::MAX as u64)
                .ok_or_else(|| opt_arg_err(c, lname, &v))? as usize
        }
        b'A' => o.append = true,
        b'b' => {
            if v != "execve" {
                return Err(err(format!("Syscall '{v}' for -b isn't supported")));
            }
            seen.detach_on_execve = true;
        }
        b'c' => {
            if o.summary {
                return Err(err_hint(
                    "-c/--summary-only and -C/--summary are mutually exclusive",
                ));
            }
            o.summary_only = true;
        }
        b'C' => {
            if o.summary_only {
                return Err(err_hint(
                    "-c/--summary-only and -C/--summary are mutually exclusive",
                ));
            }
            o.summary = true;
        }
        b'd' => return Err(err("-d (debug output) is not implemented in rstrace")),
        b'D' => {
            seen.daemonize = true;
            return Err(err("-D (daemonize) is not implemented in rstrace"));
        }
        b'e' => apply_expr_seen(o, seen, &v)?,
        b'E' => match v.split_once('=') {
            Some((k, val)) => o.env.push((k.into(), Some(val.into()))),
            None => o.env.push((v.into(), None)),
        },
        b'f' => seen.follow_short += 1,
        b'F' => seen.opt_f = true,
        b'h' => o.help = true,
        b'i' => o.instruction_pointer = true,
        b'I' => {
            let n = match v.as_str() {
                "1" | "anywhere" => 1,
                "2" | "waiting" => 2,
                "3" | "never" => 3,
                "4" | "never_tstp" => 4,
                _ => return Err(opt_arg_err(c, lname, &v)),
            };
            o.interruptible = Some(n);
        }
        b'k' => o.stack_traces = true,
        b'n' => o.syscall_number = true,
        b'o' => o.output = Some(v),
        b'O' => {
            return Err(err(
                "-O (syscall overhead for -c) is not implemented in rstrace",
            ))
        }
        b'p' => {
            for p in v.split([',', ' ', '\t', '\n']).filter(|s| !s.is_empty()) {
                match filter::string_to_uint(p, i32::MAX as u64) {
                    Some(n) if n > 0 => {
                        if n == std::process::id() as u64 {
                            return Err(err("I'm sorry, I can't let you do that, Dave."));
                        }
                        o.pids.push(n as i32)
                    }
                    _ => return Err(err(format!("Invalid process id: '{p}'"))),
                }
            }
        }
        b'P' => o.trace_paths.push(v),
        b'q' => seen.qflag_short += 1,
        b'r' => {
            o.relative = Some(match val.as_deref() {
                None => 6,
                Some(p) => precision(p).ok_or_else(|| opt_arg_err(c, lname, p))?,
            })
        }
        b's' => {
            o.string_limit = filter::string_to_uint(&v, (u32::MAX / 4) as u64)
                .ok_or_else(|| opt_arg_err(c, lname, &v))? as usize
        }
        b'S' => {
            seen.sortby_set = true;
            o.sort_by = match v.as_str() {
                "time" | "time_total" | "total_time" => SortBy::Time,
                "calls" | "count" => SortBy::Calls,
                "errors" | "error" => SortBy::Errors,
                "name" | "syscall" | "syscall_name" => SortBy::Name,
                "avg-time" | "avg_time" | "time_avg" => SortBy::AvgTime,
                "min-time" | "min_time" | "time_min" | "shortest" => SortBy::MinTime,
                "max-time" | "max_time" | "time_max" | "longest" => SortBy::MaxTime,
                "nothing" | "none" => SortBy::Nothing,
                _ => return Err(err_hint(format!("invalid sortby: '{v}'"))),
            }
        }
        b't' => seen.tflag_short += 1,
        b'T' => {
            o.syscall_times = Some(match val.as_deref() {
                None => 6,
                Some(p) => precision(p).ok_or_else(|| opt_arg_err(c, lname, p))?,
            })
        }
        b'u' => o.user = Some(v),
        b'U' => {
            seen.columns_set = true;
            return Err(err("-U (summary columns) is not implemented in rstrace"));
        }
        b'v' => o.abbrev = SyscallSet::none(),
        b'V' => o.version = true,
        b'w' => o.wall_clock = true,
        b'x' => o.xflag = (o.xflag + 1).min(2),
        b'X' => {
            o.xlat_style = match v.as_str() {
                "raw" => 1,
                "abbrev" => 0,
                "verbose" => 2,
                _ => return Err(opt_arg_err(c, lname, &v)),
            }
        }
        b'y' => seen.yflag_short += 1,
        b'Y' => o.decode_pids_comm = true,
        b'z' => {
            o.status = NameSet::of(&[filter::status::SUCCESSFUL]);
            seen.zflags += 1;
        }
        b'Z' => {
            o.status = NameSet::of(&[filter::status::FAILED]);
            seen.zflags += 1;
        }
        _ => return Err(err_hint(format!("invalid option -- '{}'", c as char))),
    }
    Ok(())
}

fn apply_long(
    o: &mut Options,
    seen: &mut Seen,
    what: Long,
    lname: &str,
    val: Option<String>,
) -> Result<(), UsageError> {
    let bad = |v: &str| err_hint(format!("invalid --{lname} argument: '{v}'"));
    match what {
        Long::Short(_) => unreachable!("handled by apply_short"),
        Long::FollowForks => seen.follow_long = true,
        Long::OutputSeparately => seen.output_separately_long = true,
        Long::Daemonize => match val.as_deref() {
            None | Some("grandchild") | Some("pgroup") | Some("pgrp") | Some("session")
            | Some("sid") => {
                seen.daemonize = true;
                return Err(err("-D (daemonize) is not implemented in rstrace"));
            }
            Some(v) => return Err(bad(v)),
        },
        Long::Timestamps => {
            seen.tflag_long = true;
            parse_ts(o, val.as_deref().unwrap_or("format:time"))
                .map_err(|_| bad(val.as_deref().unwrap_or("")))?;
        }
        Long::StringsInHex => {
            seen.xflag_long = Some(match val.as_deref() {
                None | Some("all") => 2,
                Some("non-ascii") => 1,
                Some("non-ascii-chars") => {
                    return Err(err(
                        "--strings-in-hex=non-ascii-chars is not implemented yet in rstrace",
                    ))
                }
                Some("none") => 0,
                Some(v) => return Err(bad(v)),
            })
        }
        Long::PidnsTranslation => {}
        Long::SeccompBpf => o.seccomp = Some(true),
        Long::Tips => return Err(err("--tips is not supported by rstrace")),
        Long::Secontext => {
            return Err(err(
                "SELinux context printing (--secontext option) is not supported by this build of rstrace",
            ))
        }
        Long::Qualify(key) => apply_qualify(o, seen, key, val.as_deref().unwrap_or(""))?,
        Long::Quiet => {
            apply_qualify(o, seen, "quiet", val.as_deref().unwrap_or("attach,personality"))?
        }
        Long::DecodeFds => apply_qualify(o, seen, "decode-fds", val.as_deref().unwrap_or("path"))?,
        Long::Json => o.json = true,
        Long::Normalize => o.normalize = true,
        Long::NoSyscallInfo => o.regs_only = true,
        Long::NoCpuPin => o.cpu_pin = false,
        Long::NoSeccompBpf => o.seccomp = Some(false),
        Long::ReplayFaults => {
            let plan = super::replay::Plan::load(val.as_deref().unwrap_or(""))
                .map_err(|m| err(format!("--replay-faults: {m}")))?;
            o.warnings.extend(plan.warnings.iter().cloned());
            o.replay = Some(plan);
        }
    }
    Ok(())
}

/// `-e` keys and the qualifier each selects (strace's `qual_options`).
const QUALIFIERS: &[(&str, &str)] = &[
    ("trace", "trace"),
    ("t", "trace"),
    ("abbrev", "abbrev"),
    ("a", "abbrev"),
    ("verbose", "verbose"),
    ("v", "verbose"),
    ("raw", "raw"),
    ("x", "raw"),
    ("signal", "signal"),
    ("signals", "signal"),
    ("status", "status"),
    ("s", "signal"),
    ("quiet", "quiet"),
    ("silent", "quiet"),
    ("silence", "quiet"),
    ("q", "quiet"),
    ("read", "read"),
    ("reads", "read"),
    ("r", "read"),
    ("write", "write"),
    ("writes", "write"),
    ("w", "write"),
    ("fault", "fault"),
    ("inject", "inject"),
    ("kvm", "kvm"),
    ("decode-fd", "decode-fds"),
    ("decode-fds", "decode-fds"),
    ("decode-pid", "decode-pids"),
    ("decode-pids", "decode-pids"),
    ("secontext", "secontext"),
];

/// Applies one `-e EXPR`: `KEY=VALUE` for a known key, else the whole
/// expression is a `trace=` value (so `-e foo=bar` is an invalid syscall).
pub fn apply_expr(o: &mut Options, expr: &str) -> Result<(), UsageError> {
    apply_expr_seen(o, &mut Seen::default(), expr)
}

fn apply_expr_seen(o: &mut Options, seen: &mut Seen, expr: &str) -> Result<(), UsageError> {
    let (qual, val) = match expr.split_once('=') {
        Some((k, v)) => match QUALIFIERS.iter().find(|q| q.0 == k) {
            Some(q) => (q.1, v),
            None => ("trace", expr),
        },
        None => ("trace", expr),
    };
    apply_qualify(o, seen, qual, val)
}

fn apply_qualify(
    o: &mut Options,
    seen: &mut Seen,
    qual: &str,
    val: &str,
) -> Result<(), UsageError> {
    match qual {
        "trace" => o.trace = SyscallSet::parse(val)?,
        "abbrev" => o.abbrev = SyscallSet::parse(val)?,
        "verbose" => o.verbose = SyscallSet::parse(val)?,
        "raw" => o.raw = SyscallSet::parse(val)?,
        "signal" => o.signals = NameSet::parse(val, "signal", filter::signal_number)?,
        "status" => o.status = NameSet::parse(val, "status", filter::status_number)?,
        "quiet" => {
            seen.quiet_updated = true;
            o.quiet_set = NameSet::parse(val, "quiet", filter::quiet_number)?;
        }
        "decode-fds" => {
            seen.decode_fds_updated = true;
            let s = NameSet::parse(val, "decode-fds", filter::decode_fd_number)?;
            let detail = [filter::decode_fd::SOCKET, filter::decode_fd::DEV, filter::decode_fd::PIDFD];
            o.decode_fds = if detail.iter().any(|&n| s.contains(n)) {
                2
            } else if s.contains(filter::decode_fd::PATH) {
                1
            } else {
                0
            };
        }
        "decode-pids" => {
            let s = NameSet::parse(val, "decode-pids", filter::decode_pid_number)?;
            o.decode_pids_comm = s.contains(1);
            seen.decode_pids = s.contains(0);
        }
        "read" => o.dump_reads = super::dumpio::FdSet::parse(val)?,
        "write" => o.dump_writes = super::dumpio::FdSet::parse(val)?,
        "inject" | "fault" => o.inject.push(super::inject::Rule::parse(val, qual == "fault")?),
        "kvm" => {
            if val != "vcpu" {
                return Err(err(format!("invalid -e kvm= argument: '{val}'")));
            }
            return Err(err("-e kvm=vcpu is not supported by rstrace"));
        }
        "secontext" => {
            return Err(err(
                "SELinux context printing (--secontext option) is not supported by this build of rstrace",
            ))
        }
        _ => unreachable!("unknown qualifier {qual}"),
    }
    Ok(())
}

/// The `-h` text.
pub const HELP: &str = "\
Usage: rstrace [-ACfhiknqrtTvVwxyzZ] [-I N] [-b execve] [-e EXPR]...
               [-a COLUMN] [-o FILE] [-s STRSIZE] [-X FORMAT] [-S SORTBY]
               [-P PATH]... [-p PID]... [--seccomp-bpf] [--json]
               { -p PID | [-E VAR=VAL]... [-u USERNAME] PROG [ARGS] }

rstrace traces system calls like strace(1) and takes strace's options.

General:
  -e EXPR        a qualifying expression: OPTION=[!]all or OPTION=[!]VAL1[,VAL2]...
     options:    trace, abbrev, verbose, raw, signal, status, quiet, decode-fds
Startup:
  -E VAR=VAL     put VAR=VAL in the environment for command (-E VAR removes it)
  -p PID         trace process with process id PID, may be repeated
  -u USERNAME    run command as USERNAME
Tracing:
  -b execve      detach on execve syscall
  -f             follow forks;  -ff: with -o, one output file per process
  -I N           interruptible: 1 anywhere, 2 waiting (default), 3 never, 4 never_tstp
  --seccomp-bpf / --no-seccomp-bpf
                 stop only at traced syscalls (on by default with -f and a filter)
  --no-syscall-info
                 read registers instead of PTRACE_GET_SYSCALL_INFO
  --no-cpu-pin   do not run rstrace and an unfiltered command on one CPU
                 (pinning halves the cost of each stop; the command still
                 sees its original sched_getaffinity mask)
Filtering:
  -e trace=[!][?]{SYSCALL|%GROUP|/REGEX|all|none}[,...]
     groups:     %clock %creds %desc %file %fstat %fstatfs %ipc %lstat %memory
                 %net %process %pure %signal %stat %%stat %statfs %%statfs
  -e signal=SET  print only the signals in SET
  -e status=SET  successful, failed, unfinished, unavailable, detached
  -P PATH        trace accesses to PATH
  -z / -Z        print only successful / failed syscalls
Output format:
  -a COLUMN      alignment column for results (default 40)
  -i             print instruction pointer
  -n             print syscall number
  -o FILE        send trace output to FILE instead of stderr;  -A: append
  -q, -qq        suppress attach/detach, and exit messages
  -r             relative timestamps;  -t, -tt, -ttt: absolute timestamps
  -s STRSIZE     limit length of printed strings (default 32)
  -T             print time spent in each syscall
  -v             print structures unabbreviated
  -x, -xx        print non-ASCII / all strings in hex
  -X FORMAT      raw, abbrev or verbose constants
  -y             print paths of file descriptors
  -Y             print command names of pids (--decode-pids=comm)
  --json         one JSON object per event instead of text
  --normalize    stable placeholders for pids, addresses, times, temp paths
Statistics:
  -c             summary only;  -C: summary and trace
  -S SORTBY      time, calls, errors, name, avg-time, min-time, max-time, nothing
  -w             summarise wall-clock latency (default: system time)
Tampering:
  -e inject=SET[:error=ERRNO|:retval=VALUE][:signal=SIG][:syscall=SYSCALL]
            [:delay_enter=DELAY][:delay_exit=DELAY][:when=WHEN]
            [:path=GLOB][:argN OP VALUE][:fd OP VALUE]    (OP: = != < <= > >= &)
                 rules with path=/argN/fd conditions stack; others replace
  -e fault=SET[:error=ERRNO][:when=WHEN]   (conditions as for inject)
  --replay-faults FILE[:trace=SET]
                 inject the errors of a recorded run (rstrace --json, rtrace
                 record) at the same calls; SET defaults to %file
Miscellaneous:
  -h             this help;  -V: version
";

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &[&str]) -> Result<Options, UsageError> {
        parse(&s.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn combined_short_options() {
        let o = p(&["-fttts100", "-o", "x", "ls", "-l"]).unwrap();
        assert!(o.follow);
        assert_eq!(
            o.stamps,
            Stamps {
                format: TimeFormat::Unix,
                width: 6
            }
        );
        assert_eq!(o.string_limit, 100);
        assert_eq!(o.output.as_deref(), Some("x"));
        assert_eq!(o.command, vec![OsString::from("ls"), OsString::from("-l")]);
    }

    #[test]
    fn ff_needs_output() {
        let o = p(&["-ff", "-o", "x", "true"]).unwrap();
        assert!(o.output_separately && o.follow);
        let o = p(&["-ff", "true"]).unwrap();
        assert!(!o.output_separately && o.follow);
    }

    #[test]
    fn errors_like_strace() {
        let e = |s: &[&str]| p(s).unwrap_err().msg;
        assert_eq!(e(&["-s", "abc", "true"]), "invalid -s argument: 'abc'");
        assert_eq!(e(&[]), "must have PROG [ARGS] or -p PID");
        assert_eq!(e(&["-Q", "true"]), "invalid option -- 'Q'");
        assert_eq!(e(&["-e", "trace=foo", "true"]), "invalid system call 'foo'");
        assert_eq!(e(&["-e", "signal=FOO", "true"]), "invalid signal 'FOO'");
        assert_eq!(
            e(&["-e", "foo=bar", "true"]),
            "invalid system call 'foo=bar'"
        );
        assert_eq!(e(&["-X", "foo", "true"]), "invalid -X argument: 'foo'");
        assert_eq!(
            e(&["--const-print-style=foo", "true"]),
            "invalid --const-print-style argument: 'foo'"
        );
        assert_eq!(
            e(&["-b", "foo", "true"]),
            "Syscall 'foo' for -b isn't supported"
        );
        assert_eq!(e(&["-I", "9", "true"]), "invalid -I argument: '9'");
        assert_eq!(e(&["-a", "x", "true"]), "invalid -a argument: 'x'");
        assert_eq!(e(&["-S", "foo", "true"]), "invalid sortby: 'foo'");
        assert_eq!(e(&["-p", "abc"]), "Invalid process id: 'abc'");
        assert_eq!(
            e(&["-w", "true"]),
            "-w/--summary-wall-clock must be given with (-c/--summary-only or -C/--summary)"
        );
        assert_eq!(
            e(&["-q", "-e", "quiet=exit", "true"]),
            "-q and -e quiet/--quiet cannot be provided simultaneously"
        );
        assert!(e(&["--sum", "true"]).starts_with(
            "option '--sum' is ambiguous; possibilities: '--summary-only' '--summary'"
        ));
        assert!(p(&["-b", "execve", "true"]).unwrap().detach_on_execve);
        assert!(p(&["--bogus", "true"]).is_err());
        assert!(p(&["-o"]).is_err());
    }

    #[test]
    fn warnings_like_strace() {
        let o = p(&["-S", "calls", "-A", "true"]).unwrap();
        assert_eq!(
            o.warnings,
            vec![
                "-S/--summary-sort-by has no effect without (-c/--summary-only or -C/--summary)"
                    .to_string(),
                "-A/--output-append-mode has no effect without -o/--output".to_string(),
            ]
        );
    }

    #[test]
    fn quiet_defaults() {
        use super::filter::quiet;
        let o = p(&["-o", "x", "true"]).unwrap();
        assert!(o.quiet_set.contains(quiet::ATTACH) && !o.quiet_set.contains(quiet::EXIT));
        let o = p(&["-o", "x", "-e", "quiet=none", "true"]).unwrap();
        assert!(!o.quiet_set.contains(quiet::ATTACH));
        let o = p(&["-qq", "true"]).unwrap();
        assert!(o.quiet_set.contains(quiet::EXIT) && !o.quiet_set.contains(quiet::THREAD_EXECVE));
        let o = p(&["-qqq", "true"]).unwrap();
        assert!(o.quiet_set.contains(quiet::THREAD_EXECVE));
    }

    #[test]
    fn z_and_status() {
        use super::filter::status;
        let o = p(&["-z", "-Z", "true"]).unwrap();
        assert!(o.status.contains(status::FAILED) && !o.status.contains(status::SUCCESSFUL));
        assert_eq!(o.warnings.len(), 1);
    }

    #[test]
    fn long_options() {
        let o = p(&[
            "--follow-forks",
            "--trace=openat",
            "--string-limit=5",
            "--seccomp-bpf",
            "x",
        ])
        .unwrap();
        assert!(o.follow);
        assert_eq!(o.string_limit, 5);
        assert_eq!(o.seccomp, Some(true));
        assert!(o.trace.matches_name("openat"));
        assert!(!o.trace.matches_name("read"));
        let o = p(&["--foll", "--signal=none", "--timestamps=unix,ms", "x"]).unwrap();
        assert!(o.follow && !o.signals.contains(2));
        assert_eq!(
            o.stamps,
            Stamps {
                format: TimeFormat::Unix,
                width: 3
            }
        );
    }

    #[test]
    fn command_stops_option_parsing() {
        let o = p(&["-f", "sh", "-c", "ls -f"]).unwrap();
        assert_eq!(o.command.len(), 3);
    }
}
