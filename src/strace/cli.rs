//! The strace command line, parsed getopt-style from a slice of arguments so
//! it is unit-testable. Option letters, long names, defaults and error
//! wording follow strace 6.x, so `alias strace=rstrace` works.

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

/// Where timestamps come from (`-t`, `-tt`, `-ttt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Stamps {
    /// None.
    #[default]
    None,
    /// `HH:MM:SS`.
    Time,
    /// `HH:MM:SS.uuuuuu`.
    TimeUs,
    /// `SECONDS.uuuuuu`.
    UnixUs,
}

/// Every option rstrace understands.
#[derive(Clone, Debug)]
pub struct Options {
    /// `-f`.
    pub follow: bool,
    /// `-ff` / `--output-separately`.
    pub output_separately: bool,
    /// `-o FILE`.
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
    /// `-x` count.
    pub xflag: u8,
    /// `-X`: 0 abbrev, 1 raw, 2 verbose.
    pub xlat_style: u8,
    /// `-t` level.
    pub stamps: Stamps,
    /// `-r`.
    pub relative: bool,
    /// `-T`.
    pub syscall_times: bool,
    /// `-z`.
    pub successful_only: bool,
    /// `-Z`.
    pub failed_only: bool,
    /// `-q` count.
    pub quiet: u8,
    /// `-v`.
    pub verbose_all: bool,
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
    /// `-b execve`.
    pub detach_on_execve: bool,
    /// `-y` count.
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
    /// `-e abbrev=`.
    pub abbrev: SyscallSet,
    /// `-e verbose=`.
    pub verbose: SyscallSet,
    /// `-e raw=`.
    pub raw: SyscallSet,
    /// `-e signal=`: which signals to print.
    pub signals: NameSet,
    /// `-e status=`.
    pub status: NameSet,
    /// `-e quiet=` (also set by -q).
    pub quiet_set: NameSet,
    /// `--seccomp-bpf` / `--no-seccomp-bpf`; `None` = automatic.
    pub seccomp: Option<bool>,
    /// `--json`.
    pub json: bool,
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
            stamps: Stamps::None,
            relative: false,
            syscall_times: false,
            successful_only: false,
            failed_only: false,
            quiet: 0,
            verbose_all: false,
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
            raw: SyscallSet::none(),
            signals: NameSet::All,
            status: NameSet::All,
            quiet_set: NameSet::none(),
            seccomp: None,
            json: false,
            regs_only: false,
            cpu_pin: true,
            command: Vec::new(),
            help: false,
            version: false,
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

/// Short options that take an argument.
const WITH_ARG: &[u8] = b"abeEIoOpPsSuUX";

/// Long options: (name, short equivalent or 0, takes argument: 0 no, 1 yes, 2 optional).
const LONG: &[(&str, u8, u8)] = &[
    ("follow-forks", b'f', 0),
    ("output-separately", 0, 0),
    ("output", b'o', 1),
    ("output-append-mode", b'A', 0),
    ("summary-only", b'c', 0),
    ("summary", b'C', 0),
    ("summary-wall-clock", b'w', 0),
    ("summary-sort-by", b'S', 1),
    ("string-limit", b's', 1),
    ("strings-in-hex", 0, 2),
    ("const-print-style", b'X', 1),
    ("absolute-timestamps", 0, 2),
    ("relative-timestamps", b'r', 2),
    ("syscall-times", b'T', 2),
    ("successful-only", b'z', 0),
    ("failed-only", b'Z', 0),
    ("no-abbrev", b'v', 0),
    ("env", b'E', 1),
    ("user", b'u', 1),
    ("columns", b'a', 1),
    ("attach", b'p', 1),
    ("trace-path", b'P', 1),
    ("detach-on", b'b', 1),
    ("decode-fds", 0, 2),
    ("instruction-pointer", b'i', 0),
    ("syscall-number", b'n', 0),
    ("stack-traces", b'k', 0),
    ("interruptible", b'I', 1),
    ("trace", 0, 1),
    ("abbrev", 0, 1),
    ("verbose", 0, 1),
    ("raw", 0, 1),
    ("signal", 0, 1),
    ("status", 0, 1),
    ("quiet", 0, 2),
    ("seccomp-bpf", 0, 0),
    ("no-seccomp-bpf", 0, 0),
    ("json", 0, 0),
    ("no-syscall-info", 0, 0),
    ("no-cpu-pin", 0, 0),
    ("help", b'h', 0),
    ("version", b'V', 0),
];

/// Parses `args` (without argv[0]).
pub fn parse(args: &[OsString]) -> Result<Options, UsageError> {
    let mut o = Options::default();
    let mut follow_count = 0;
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
            let Some(&(lname, short, takes)) = LONG.iter().find(|l| l.0 == name) else {
                return Err(err_hint(format!("unrecognized option '--{name}'")));
            };
            let val = match (takes, inline) {
                (0, Some(_)) => {
                    return Err(err_hint(format!(
                        "option '--{lname}' doesn't allow an argument"
                    )))
                }
                (1, None) => {
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
            if short != 0 && !(takes == 2 && val.is_some()) {
                apply_short(&mut o, short, val, &mut follow_count)?;
            } else {
                apply_long(&mut o, lname, val, &mut follow_count)?;
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
                    let v = a[j..].to_string();
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
                apply_short(&mut o, c, Some(val), &mut follow_count)?;
            } else {
                apply_short(&mut o, c, None, &mut follow_count)?;
            }
        }
        i += 1;
    }
    o.command = args[i.min(args.len())..].to_vec();
    if follow_count >= 2 {
        o.output_separately = true;
    }
    if o.help || o.version {
        return Ok(o);
    }
    if o.command.is_empty() && o.pids.is_empty() {
        return Err(err_hint("must have PROG [ARGS] or -p PID"));
    }
    if o.output_separately && o.output.is_none() {
        // strace silently treats -ff without -o as -f.
        o.output_separately = false;
    }
    if o.summary_only && o.summary {
        return Err(err("-c and -C are mutually exclusive"));
    }
    if o.successful_only && o.failed_only {
        // strace: -z and -Z together print nothing; keep its behaviour.
    }
    Ok(o)
}

fn num<T: std::str::FromStr>(v: &str, what: &str) -> Result<T, UsageError> {
    v.parse::<T>()
        .map_err(|_| err_hint(format!("invalid {what} argument: '{v}'")))
}

fn apply_short(
    o: &mut Options,
    c: u8,
    val: Option<String>,
    follow_count: &mut u32,
) -> Result<(), UsageError> {
    let v = val.unwrap_or_default();
    match c {
        b'f' => {
            o.follow = true;
            *follow_count += 1;
        }
        b'c' => o.summary_only = true,
        b'C' => o.summary = true,
        b'w' => o.wall_clock = true,
        b'A' => o.append = true,
        b'z' => o.successful_only = true,
        b'Z' => o.failed_only = true,
        b'v' => o.verbose_all = true,
        b'x' => o.xflag = (o.xflag + 1).min(2),
        b'y' => o.decode_fds = (o.decode_fds + 1).min(2),
        b'i' => o.instruction_pointer = true,
        b'n' => o.syscall_number = true,
        b'k' => o.stack_traces = true,
        b'q' => o.quiet = (o.quiet + 1).min(3),
        b'r' => o.relative = true,
        b'T' => o.syscall_times = true,
        b't' => {
            o.stamps = match o.stamps {
                Stamps::None => Stamps::Time,
                Stamps::Time => Stamps::TimeUs,
                _ => Stamps::UnixUs,
            }
        }
        b'h' => o.help = true,
        b'V' => o.version = true,
        b'd' | b'D' | b'F' => {}
        b'o' => o.output = Some(v),
        b's' => {
            let n: i64 = num(&v, "-s")?;
            if n < 0 {
                return Err(err_hint(format!("invalid -s argument: '{v}'")));
            }
            o.string_limit = n as usize;
        }
        b'a' => {
            let n: i64 = num(&v, "-a")?;
            if n < 0 {
                return Err(err_hint(format!("invalid -a argument: '{v}'")));
            }
            o.column = n as usize;
        }
        b'p' => {
            for p in v.split([',', ' ', '\t', '\n']).filter(|s| !s.is_empty()) {
                match p.parse::<i32>() {
                    Ok(n) if n > 0 => o.pids.push(n),
                    _ => return Err(err(format!("Invalid process id: '{p}'"))),
                }
            }
        }
        b'P' => o.trace_paths.push(v),
        b'E' => match v.split_once('=') {
            Some((k, val)) => o.env.push((k.into(), Some(val.into()))),
            None => o.env.push((v.into(), None)),
        },
        b'u' => o.user = Some(v),
        b'b' => {
            if v == "execve" {
                o.detach_on_execve = true;
            } else {
                return Err(err_hint(format!("invalid -b argument: '{v}'")));
            }
        }
        b'I' => {
            let n = match v.as_str() {
                "1" | "anywhere" => 1,
                "2" | "waiting" => 2,
                "3" | "never" => 3,
                "4" | "never_tstp" => 4,
                _ => return Err(err_hint(format!("invalid -I argument: '{v}'"))),
            };
            o.interruptible = Some(n);
        }
        b'S' => {
            o.sort_by = match v.as_str() {
                "time" | "time_total" | "total_time" => SortBy::Time,
                "calls" | "count" => SortBy::Calls,
                "errors" | "error" => SortBy::Errors,
                "name" | "syscall" | "syscall_name" => SortBy::Name,
                "avg-time" | "avg_time" | "time_avg" => SortBy::AvgTime,
                "min-time" | "min_time" | "time_min" => SortBy::MinTime,
                "max-time" | "max_time" | "time_max" => SortBy::MaxTime,
                "nothing" | "none" => SortBy::Nothing,
                _ => return Err(err_hint(format!("invalid sortby: '{v}'"))),
            }
        }
        b'X' => {
            o.xlat_style = match v.as_str() {
                "raw" => 1,
                "abbrev" => 0,
                "verbose" => 2,
                _ => return Err(err_hint(format!("invalid xlat style '{v}'"))),
            }
        }
        b'O' | b'U' => {}
        b'e' => apply_expr(o, &v)?,
        _ => {
            return Err(err_hint(format!("invalid option -- '{}'", c as char)));
        }
    }
    Ok(())
}

fn apply_long(
    o: &mut Options,
    name: &str,
    val: Option<String>,
    follow_count: &mut u32,
) -> Result<(), UsageError> {
    let v = val.clone().unwrap_or_default();
    match name {
        "output-separately" => o.output_separately = true,
        "strings-in-hex" => {
            o.xflag = match val.as_deref() {
                None | Some("all") => 2,
                Some("non-ascii") | Some("non-ascii-chars") => 1,
                Some("none") => 0,
                Some(x) => return Err(err_hint(format!("invalid strings-in-hex argument: '{x}'"))),
            }
        }
        "absolute-timestamps" => {
            o.stamps = match val.as_deref() {
                None | Some("time") | Some("format:time") => Stamps::Time,
                Some("none") | Some("format:none") => Stamps::None,
                Some("unix") | Some("format:unix") | Some("unix,us") => Stamps::UnixUs,
                Some("us") | Some("time,us") | Some("precision:us") => Stamps::TimeUs,
                Some(x) => return Err(err_hint(format!("invalid absolute timestamp format: '{x}'"))),
            }
        }
        "relative-timestamps" => o.relative = true,
        "syscall-times" => o.syscall_times = true,
        "decode-fds" => {
            o.decode_fds = match val.as_deref() {
                None | Some("path") => 1,
                Some("all") => 2,
                Some(_) => 1,
            }
        }
        "trace" | "abbrev" | "verbose" | "raw" | "signal" | "status" => {
            apply_expr(o, &format!("{name}={v}"))?
        }
        "quiet" => match val {
            None => o.quiet = 1,
            Some(v) => apply_expr(o, &format!("quiet={v}"))?,
        },
        "seccomp-bpf" => o.seccomp = Some(true),
        "no-seccomp-bpf" => o.seccomp = Some(false),
        "json" => o.json = true,
        "no-syscall-info" => o.regs_only = true,
        "no-cpu-pin" => o.cpu_pin = false,
        _ => {
            let _ = follow_count;
            return Err(err_hint(format!("unrecognized option '--{name}'")));
        }
    }
    Ok(())
}

/// Applies one `-e EXPR`.
pub fn apply_expr(o: &mut Options, expr: &str) -> Result<(), UsageError> {
    let (key, val) = match expr.split_once('=') {
        Some((k, v)) => (k, v),
        None => ("trace", expr),
    };
    match key {
        "trace" | "t" => {
            o.trace = SyscallSet::parse(val).map_err(err)?;
        }
        "abbrev" | "a" => o.abbrev = SyscallSet::parse(val).map_err(err)?,
        "verbose" | "v" => o.verbose = SyscallSet::parse(val).map_err(err)?,
        "raw" | "x" => o.raw = SyscallSet::parse(val).map_err(err)?,
        "signal" | "signals" | "s" => {
            o.signals = NameSet::parse(val, filter::signal_number).map_err(|_| {
                err(format!("invalid signal '{}'", val.trim_start_matches('!')))
            })?
        }
        "status" => {
            o.status = NameSet::parse(val, |s| {
                ["successful", "failed", "unfinished", "unavailable", "detached"]
                    .iter()
                    .position(|x| *x == s)
                    .map(|p| p as u32)
            })
            .map_err(|_| err(format!("invalid status '{val}'")))?
        }
        "quiet" | "silent" | "silence" | "q" => {
            o.quiet_set = NameSet::parse(val, |s| {
                [
                    "attach",
                    "exit",
                    "path-resolution",
                    "personality",
                    "thread-execve",
                    "superseded",
                ]
                .iter()
                .position(|x| *x == s)
                .map(|p| p as u32)
            })
            .map_err(|_| err(format!("invalid quiet '{val}'")))?
        }
        "read" | "write" | "r" | "w" => {
            return Err(err(format!(
                "-e {key}= (I/O dumps) is not implemented yet in rstrace"
            )))
        }
        "inject" | "fault" => {
            return Err(err(format!(
                "-e {key}= (fault injection) is not implemented yet in rstrace"
            )))
        }
        "kvm" => return Err(err("-e kvm= is not supported by rstrace")),
        "decode-fds" => {
            o.decode_fds = if val.contains("all") || val.contains("socket") {
                2
            } else {
                1
            }
        }
        _ => return Err(err(format!("invalid filter action '{key}'"))),
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
  --json         one JSON object per event instead of text
Statistics:
  -c             summary only;  -C: summary and trace
  -S SORTBY      time, calls, errors, name, avg-time, min-time, max-time, nothing
  -w             summarise wall-clock latency (default: system time)
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
        assert_eq!(o.stamps, Stamps::UnixUs);
        assert_eq!(o.string_limit, 100);
        assert_eq!(o.output.as_deref(), Some("x"));
        assert_eq!(o.command, vec![OsString::from("ls"), OsString::from("-l")]);
    }

    #[test]
    fn ff_needs_output() {
        let o = p(&["-ff", "-o", "x", "true"]).unwrap();
        assert!(o.output_separately && o.follow);
    }

    #[test]
    fn errors_like_strace() {
        assert_eq!(p(&["-s", "abc", "true"]).unwrap_err().msg, "invalid -s argument: 'abc'");
        assert_eq!(p(&[]).unwrap_err().msg, "must have PROG [ARGS] or -p PID");
        assert_eq!(p(&["-Q", "true"]).unwrap_err().msg, "invalid option -- 'Q'");
        assert_eq!(
            p(&["-e", "trace=foo", "true"]).unwrap_err().msg,
            "invalid system call 'foo'"
        );
        assert_eq!(
            p(&["-e", "signal=FOO", "true"]).unwrap_err().msg,
            "invalid signal 'FOO'"
        );
        assert!(p(&["--bogus", "true"]).is_err());
        assert!(p(&["-o"]).is_err());
    }

    #[test]
    fn long_options() {
        let o = p(&["--follow-forks", "--trace=openat", "--string-limit=5", "--seccomp-bpf", "x"]).unwrap();
        assert!(o.follow);
        assert_eq!(o.string_limit, 5);
        assert_eq!(o.seccomp, Some(true));
        assert!(o.trace.matches_name("openat"));
        assert!(!o.trace.matches_name("read"));
    }

    #[test]
    fn command_stops_option_parsing() {
        let o = p(&["-f", "sh", "-c", "ls -f"]).unwrap();
        assert_eq!(o.command.len(), 3);
    }
}
