//! The option tables: short option letters with and without an argument,
//! strace 6.1's long options (with rstrace's own) and getopt_long's lookup
//! by unique prefix.

use super::{err_hint, UsageError};
/// Short options that take an argument (strace's optstring
/// `+a:Ab:cCdDe:E:fFhiI:kNno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ`).
pub const WITH_ARG: &[u8] = b"abeEIoOpPsSuUX";
/// Short options without an argument.
pub const NO_ARG: &[u8] = b"AcCdDfFhikNnqrtTvVwxyYzZ";

/// What a long option does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Long {
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
    /// `--stack-trace[=symbol|source]` / `--stack-traces[=…]`.
    StackTrace,
    /// `--stack-trace-frame-limit=N`.
    StackTraceFrameLimit,
    /// `--syscall-limit=N`.
    SyscallLimit,
    /// `--kill-on-exit`.
    KillOnExit,
    /// `--argv0=NAME`.
    Argv0,
    /// `--always-show-pid`.
    AlwaysShowPid,
    /// `--color=WHEN`.
    Color,
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
pub(super) const NONE: u8 = 0;
pub(super) const REQUIRED: u8 = 1;
const OPTIONAL: u8 = 2;

/// strace 7.2's long options in its table order (getopt lists ambiguous
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
    ("kill-on-exit", Long::KillOnExit, NONE),
    ("stack-trace", Long::StackTrace, OPTIONAL),
    ("stack-traces", Long::StackTrace, OPTIONAL),
    (
        "stack-trace-frame-limit",
        Long::StackTraceFrameLimit,
        REQUIRED,
    ),
    ("syscall-limit", Long::SyscallLimit, REQUIRED),
    ("syscall-number", Long::Short(b'n'), NONE),
    ("arg-names", Long::Short(b'N'), NONE),
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
    ("argv0", Long::Argv0, REQUIRED),
    ("always-show-pid", Long::AlwaysShowPid, NONE),
    ("color", Long::Color, REQUIRED),
    ("trace", Long::Qualify("trace"), REQUIRED),
    ("trace-fds", Long::Qualify("trace-fds"), REQUIRED),
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
    ("namespace", Long::Qualify("namespace"), REQUIRED),
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
pub(super) fn find_long(
    name: &str,
    arg: &str,
) -> Result<&'static (&'static str, Long, u8), UsageError> {
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

/// Every long option: its name, the short option it stands for (if any),
/// and whether its value is required (`Some(true)`), optional
/// (`Some(false)`) or absent (`None`). For the man page
/// ([`super::man`]), which reads the same table as the parser.
pub fn long_options() -> impl Iterator<Item = (&'static str, Long, Option<bool>)> {
    LONG.iter().map(|&(n, l, kind)| {
        let v = match kind {
            REQUIRED => Some(true),
            OPTIONAL => Some(false),
            _ => None,
        };
        (n, l, v)
    })
}
