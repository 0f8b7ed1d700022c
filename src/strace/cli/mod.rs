//! The strace command line, parsed getopt-style from a slice of arguments so
//! it is unit-testable. Option letters, long names (with getopt's unique
//! prefixes), defaults, the checks strace makes after parsing, and the
//! wording of every error and warning follow strace 6.1, so
//! `alias strace=rstrace` works and scripts see the same diagnostics.
//!
//! Fatal problems come back as [`UsageError`]; non-fatal ones (strace's
//! "has no effect" notes) are collected in [`Options::warnings`] and printed
//! by the tracer before it starts.
//!
//! Submodules: [`table`] holds the option letters and the long-option table,
//! [`apply`] what each option does, [`checks`] strace's checks after parsing,
//! [`help`] the `-h` text; this file the [`Options`] and the parse loop.

mod apply;
mod checks;
mod help;
pub mod man;
mod table;
pub mod tips;

pub use apply::apply_expr;
pub use help::HELP;
pub use table::{long_takes_arg, WITH_ARG};

use apply::{apply_long, apply_short};
use checks::after_parse;
use table::{find_long, Long, NONE, NO_ARG, REQUIRED};

use super::filter::{self, NameSet, SyscallSet};
use std::ffi::OsString;

pub use crate::strace::summary::SortBy;

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
    /// `-D`/`-DD`/`-DDD` (`--daemonize=grandchild|pgroup|session`): the
    /// tracer runs as a detached grandchild (in a new process group, in a
    /// new session) and the command keeps rstrace's process; 0: no.
    pub daemonize: u8,
    /// `-c` (summary only).
    pub summary_only: bool,
    /// `-C` (summary and trace).
    pub summary: bool,
    /// `-w`.
    pub wall_clock: bool,
    /// `-O`: time subtracted from each call's time in the `-c` summary.
    pub overhead: Option<std::time::Duration>,
    /// `-S`.
    pub sort_by: SortBy,
    /// `-U`: the summary's columns, in order.
    pub columns: Vec<super::summary::Column>,
    /// `--tips[=…]`: a tip to print on exit.
    pub tips: tips::Tips,
    /// `-d`: rstrace's debug messages on stderr.
    pub debug: bool,
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
    /// The `-P` paths and what they resolve to, as the checks after parsing
    /// found them (`None`: not resolved yet).
    pub trace_path_set: Option<Vec<Vec<u8>>>,
    /// `-b execve`: stop tracing a task when it executes a program (except
    /// the launched command's first exec).
    pub detach_on_execve: bool,
    /// `-y` level: 0 none, 1 paths, 2 paths and socket/device details.
    pub decode_fds: u8,
    /// `--decode-fds=SET` as bits of `syscall::fd_details::decode_set`
    /// (0: every class, as `-yy`).
    pub decode_fd_set: u32,
    /// `-i`.
    pub instruction_pointer: bool,
    /// `-n`.
    pub syscall_number: bool,
    /// `-k` / `--stack-trace[=symbol]`.
    pub stack_traces: bool,
    /// `--stack-trace-frame-limit=N`: frames per `-k` stack (`None`: 256).
    pub stack_frame_limit: Option<usize>,
    /// `--syscall-limit=N`: detach from every tracee once N syscalls were
    /// traced (printed, or counted with `-c`).
    pub syscall_limit: Option<u64>,
    /// `--trace-fds=SET` / `-e trace-fds=SET`: only syscalls on these
    /// descriptors (with `-P`, on these or on the paths).
    pub trace_fds: Option<super::dumpio::FdSet>,
    /// `--argv0=NAME`: the launched command's argv[0].
    pub argv0: Option<OsString>,
    /// `--kill-on-exit`: tracees die with rstrace (`PTRACE_O_EXITKILL`).
    pub kill_on_exit: bool,
    /// `--always-show-pid`: the pid prefix on every line.
    pub always_show_pid: bool,
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
    /// `--pidns-translation` / `--decode-pids=pidns`: pids of tracees in
    /// another PID namespace get a `/* N in strace's PID NS */` comment.
    pub decode_pids_ns: bool,
    /// `-e kvm=vcpu`: KVM_RUN returns with the vCPU's exit reason.
    pub kvm_vcpu: bool,
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
            daemonize: 0,
            summary_only: false,
            summary: false,
            wall_clock: false,
            overhead: None,
            sort_by: SortBy::Time,
            columns: super::summary::DEFAULT_COLUMNS.to_vec(),
            tips: Default::default(),
            debug: false,
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
            trace_path_set: None,
            detach_on_execve: false,
            decode_fds: 0,
            decode_fd_set: 0,
            instruction_pointer: false,
            syscall_number: false,
            stack_traces: false,
            stack_frame_limit: None,
            syscall_limit: None,
            trace_fds: None,
            argv0: None,
            kill_on_exit: false,
            always_show_pid: false,
            interruptible: None,
            trace: SyscallSet::all(),
            abbrev: SyscallSet::all(),
            verbose: SyscallSet::all(),
            decode_pids_comm: false,
            decode_pids_ns: false,
            kvm_vcpu: false,
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
    /// Warnings strace would have printed before this error (each printed
    /// as `rstrace: NOTE` first).
    pub notes: Vec<String>,
}

fn err(msg: impl Into<String>) -> UsageError {
    UsageError {
        msg: msg.into(),
        hint: false,
        notes: Vec::new(),
    }
}

fn err_hint(msg: impl Into<String>) -> UsageError {
    UsageError {
        msg: msg.into(),
        hint: true,
        notes: Vec::new(),
    }
}

impl From<filter::FilterError> for UsageError {
    fn from(e: filter::FilterError) -> UsageError {
        UsageError {
            msg: e.msg,
            hint: e.hint,
            notes: Vec::new(),
        }
    }
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
    /// `-D` count.
    daemonize_short: u32,
    /// `--daemonize[=…]` level.
    daemonize_long: Option<u8>,
}

/// Parses `args` (without argv[0]). An error carries the warnings found
/// before it, which strace would have printed by then.
pub fn parse(args: &[OsString]) -> Result<Options, UsageError> {
    let mut o = Options::default();
    match parse_into(&mut o, args) {
        Ok(()) => Ok(o),
        Err(mut e) => {
            e.notes = std::mem::take(&mut o.warnings);
            Err(e)
        }
    }
}

fn parse_into(o: &mut Options, args: &[OsString]) -> Result<(), UsageError> {
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
                Long::Short(c) => apply_short(o, &mut seen, c, val, Some(lname))?,
                _ => apply_long(o, &mut seen, what, lname, val)?,
            }
            if o.help {
                return Ok(());
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
                apply_short(o, &mut seen, c, Some(val), None)?;
            } else if NO_ARG.contains(&c) {
                apply_short(o, &mut seen, c, None, None)?;
            } else {
                let shown = a[j - 1..].chars().next().unwrap_or('?');
                return Err(err_hint(format!("invalid option -- '{shown}'")));
            }
            if o.help {
                return Ok(());
            }
        }
        i += 1;
    }
    // strace 7.2 prints its version once every option was read (so a bad
    // option after -V is still an error), before the checks that follow.
    if o.version {
        return Ok(());
    }
    o.command = args[i.min(args.len())..].to_vec();
    after_parse(o, &mut seen)?;
    Ok(())
}

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
    fn summary_columns_and_sort_names() {
        use crate::strace::summary::Column;
        let o = p(&["-c", "-U", "calls,time-max", "-S", "time-percent", "true"]).unwrap();
        assert_eq!(
            o.columns,
            vec![Column::Calls, Column::TimeMax, Column::Name]
        );
        assert_eq!(o.sort_by, SortBy::Time);
        let o = p(&["-c", "--summary-columns=syscall-name,errors", "true"]).unwrap();
        assert_eq!(o.columns, vec![Column::Name, Column::Errors]);
        let e = p(&["-c", "-U", "time,,name", "true"]).unwrap_err();
        assert_eq!((e.msg.as_str(), e.hint), ("unknown column name: ''", true));
        let e = p(&["-U", "name", "true"]).unwrap_err();
        assert_eq!(
            e.msg,
            "-U/--summary-columns must be given with (-c/--summary-only or -C/--summary)"
        );
        assert_eq!(
            p(&["-S", "syscall-name", "true"]).unwrap().sort_by,
            SortBy::Name
        );
    }

    #[test]
    fn warnings_before_an_error_come_with_it() {
        let e = p(&["--seccomp-bpf", "-w", "true"]).unwrap_err();
        assert_eq!(
            e.notes,
            vec!["--seccomp-bpf cannot be used without -f/--follow-forks, disabling".to_string()]
        );
        assert!(e.msg.starts_with("-w/--summary-wall-clock must be given"));
        let e = p(&["-c", "-n", "-u", ":no-such-user:", "true"]).unwrap_err();
        assert_eq!(e.msg, "Cannot find user ':no-such-user:'");
        assert_eq!(
            e.notes,
            vec!["-n/--syscall-number has no effect with -c/--summary-only"]
        );
        // -P paths are resolved (and announced) before -q takes effect.
        let e = p(&["-q", "--quiet", "-P", "///", "true"]).unwrap_err();
        assert_eq!(e.notes, vec![r#"Requested path "///" resolved into "/""#]);
        let o = p(&["-qqq", "-P", "/.", "true"]).unwrap();
        assert_eq!(o.warnings, vec![r#"Requested path "/." resolved into "/""#]);
        assert_eq!(o.trace_path_set, Some(vec![b"/.".to_vec(), b"/".to_vec()]));
    }

    #[test]
    fn names_too_long() {
        let long = " ".repeat(4096);
        assert_eq!(p(&[&long]).unwrap_err().msg, "exec: File name too long");
        let out = "x".repeat(4084);
        let e = p(&["-ff", "-o", &out, "true"]).unwrap_err();
        assert_eq!(e.msg, format!("{out}: File name too long"));
        assert!(p(&["-ff", "-o", &out[1..], "true"]).is_ok());
        assert!(p(&["-o", &out, "true"]).is_ok());
    }

    #[test]
    fn tips_debug_and_hex_chars() {
        let o = p(&[
            "--tips=id:3,full",
            "-d",
            "--strings-in-hex=non-ascii-chars",
            "true",
        ])
        .unwrap();
        assert_eq!(o.tips.id, Some(3));
        assert_eq!(o.tips.format, tips::TipsFormat::Full);
        assert!(o.debug);
        assert_eq!(o.xflag, 3);
        let e = p(&["--tips=id:", "true"]).unwrap_err();
        assert_eq!(
            (e.msg.as_str(), e.hint),
            ("invalid --tips argument: 'id:'", true)
        );
        assert_eq!(
            p(&["--tips", "--tips=format:none"]).unwrap_err().msg,
            "must have PROG [ARGS] or -p PID"
        );
    }

    #[test]
    fn command_stops_option_parsing() {
        let o = p(&["-f", "sh", "-c", "ls -f"]).unwrap();
        assert_eq!(o.command.len(), 3);
    }
}
