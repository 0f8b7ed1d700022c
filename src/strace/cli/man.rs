//! rstrace(1): the man page, from the option tables the getopt parser reads
//! ([`super::table`]): every short letter of `WITH_ARG` and `NO_ARG` and
//! every long option of the long table gets an entry; only the words are
//! written here.

use super::table::{long_options, Long, NO_ARG, WITH_ARG};
use crate::output::roff::{self, Opt};

/// A short option's value name and description.
fn short(c: u8) -> (Option<&'static str>, &'static str) {
    match c {
        b'a' => (Some("COLUMN"), "align return values at COLUMN (default 40)"),
        b'A' => (None, "open the -o file in append mode"),
        b'b' => (Some("SYSCALL"), "detach when SYSCALL (execve) is called"),
        b'c' => (None, "count time, calls and errors per syscall; print only the summary"),
        b'C' => (None, "like -c, and print the trace too"),
        b'd' => (None, "print rstrace's own debugging output"),
        b'D' => (None, "run the tracer as a detached grandchild (-DD, -DDD: own process group, session)"),
        b'e' => (Some("EXPR"), "a qualifying expression: trace=, abbrev=, verbose=, raw=, signal=, status=, quiet=, decode-fds=, decode-pids=, read=, write=, inject=, fault=, kvm= (see EXPRESSIONS)"),
        b'E' => (Some("VAR=VAL"), "put VAR=VAL in the command's environment (-E VAR removes VAR)"),
        b'f' => (None, "follow forks (-ff with -o: one output file per process)"),
        b'F' => (None, "the same as -f (kept for old scripts)"),
        b'h' => (None, "print the help and exit"),
        b'i' => (None, "print the instruction pointer at each syscall"),
        b'I' => (Some("N"), "interruptible: 1 anywhere, 2 waiting (default), 3 never, 4 never_tstp"),
        b'k' => (None, "print the user stack of each syscall (--stack-trace-frame-limit: at most N frames, default 256)"),
        b'N' => (None, "print argument names (refused: rstrace's decoders do not know them)"),
        b'n' => (None, "print the syscall number"),
        b'o' => (Some("FILE"), "write the trace to FILE instead of standard error"),
        b'O' => (Some("OVERHEAD"), "the tracing overhead per syscall that -c subtracts"),
        b'p' => (Some("PID"), "attach to process PID (repeatable)"),
        b'P' => (Some("PATH"), "trace only the syscalls that access PATH (repeatable)"),
        b'q' => (None, "suppress attach and detach messages (-qq: exit messages too)"),
        b'r' => (None, "print relative timestamps"),
        b's' => (Some("STRSIZE"), "print at most STRSIZE characters of strings (default 32)"),
        b'S' => (Some("SORTBY"), "sort the -c summary by time, calls, errors, name, avg-time, min-time, max-time or nothing"),
        b't' => (None, "print absolute timestamps (-tt: microseconds, -ttt: since the epoch)"),
        b'T' => (None, "print the time spent in each syscall"),
        b'u' => (Some("USERNAME"), "run the command as USERNAME"),
        b'U' => (Some("COLUMNS"), "the columns of the -c summary"),
        b'v' => (None, "print structures unabbreviated"),
        b'V' => (None, "print the version and exit"),
        b'w' => (None, "summarise wall-clock latency in -c (default: system time)"),
        b'x' => (None, "print non-ASCII strings in hex (-xx: all strings)"),
        b'X' => (Some("FORMAT"), "print constants raw, abbrev or verbose"),
        b'y' => (None, "print the paths of file descriptors (-yy: socket and device details)"),
        b'Y' => (None, "print the command names of pids"),
        b'z' => (None, "print only successful syscalls"),
        b'Z' => (None, "print only failed syscalls"),
        _ => (None, ""),
    }
}

/// A long-only option's value name and description.
fn long_only(l: Long) -> (Option<&'static str>, String) {
    let s = |v: Option<&'static str>, d: &str| (v, d.to_string());
    match l {
        Long::FollowForks => s(None, "follow forks (-f)"),
        Long::OutputSeparately => s(None, "with -o, one output file per process (-ff)"),
        Long::Daemonize => s(Some("grandchild|pgroup|session"), "run the tracer detached (-D)"),
        Long::Timestamps => s(Some("FORMAT"), "absolute timestamps (-t); FORMAT: none, time, unix, s, ms, us, ns"),
        Long::StringsInHex => s(Some("non-ascii|all"), "print strings in hex (-x, -xx)"),
        Long::PidnsTranslation => s(None, "print pids in rstrace's PID namespace too"),
        Long::SeccompBpf => s(None, "stop only at traced syscalls (a seccomp-bpf filter; on by default with -f and a filter)"),
        Long::Tips => s(Some("TIPS"), "print a tip at the end of the trace"),
        Long::Secontext => s(Some("FORMAT"), "print SELinux contexts"),
        Long::StackTrace => s(Some("symbol"), "print the user stack of each syscall (-k; =source is refused)"),
        Long::StackTraceFrameLimit => s(Some("N"), "at most N frames per -k stack (default 256)"),
        Long::SyscallLimit => s(Some("N"), "detach from every tracee after N syscalls were traced (printed, or counted with -c); the command runs on untraced"),
        Long::KillOnExit => s(None, "kill every tracee if rstrace is killed (PTRACE_O_EXITKILL); not with -p"),
        Long::Argv0 => s(Some("NAME"), "start the command with argv[0] set to NAME"),
        Long::AlwaysShowPid => s(None, "print the pid prefix on every line, with one tracee too"),
        Long::Color => s(Some("never"), "rstrace never colours its output; auto and always are refused"),
        Long::Qualify(k) => (Some("VALUE"), format!("the same as -e {k}=VALUE")),
        Long::Quiet => s(Some("SET"), "-e quiet=SET (default attach,personality)"),
        Long::DecodeFds => s(Some("SET"), "-e decode-fds=SET (default path)"),
        Long::Json => s(None, "one JSON object per event instead of text"),
        Long::Normalize => s(None, "stable placeholders for pids, addresses, times and temp paths"),
        Long::NoSyscallInfo => s(None, "read registers instead of PTRACE_GET_SYSCALL_INFO"),
        Long::NoCpuPin => s(None, "do not run rstrace and an unfiltered command on one CPU"),
        Long::NoSeccompBpf => s(None, "never install the seccomp-bpf filter"),
        Long::ReplayFaults => s(Some("FILE[:trace=SET]"), "inject the errors of a recorded run (rstrace --json, rtrace record) at the same calls; SET defaults to %file"),
        Long::Short(c) => (None, format!("the same as -{}", c as char)),
    }
}

/// The options, in the page's order: each short one with its long names,
/// then the long-only ones grouped by what they do.
pub fn options() -> Vec<(Vec<char>, Vec<&'static str>, Opt)> {
    let mut out = Vec::new();
    let longs: Vec<_> = long_options().collect();
    let mut shorts: Vec<u8> = WITH_ARG.iter().chain(NO_ARG).copied().collect();
    shorts.sort_by_key(|c| (c.to_ascii_lowercase(), c.is_ascii_uppercase()));
    for c in shorts {
        let (value, help) = short(c);
        let names: Vec<&str> = longs
            .iter()
            .filter(|l| l.1 == Long::Short(c))
            .map(|l| l.0)
            .collect();
        let optional = longs
            .iter()
            .any(|l| l.1 == Long::Short(c) && l.2 == Some(false));
        out.push((
            vec![c as char],
            names.clone(),
            Opt {
                short: Some(c as char),
                long: names,
                value: value.map(|v| {
                    if optional {
                        format!("[{v}]")
                    } else {
                        v.to_string()
                    }
                }),
                help: help.to_string(),
            },
        ));
    }
    let mut done: Vec<Long> = Vec::new();
    for &(_, l, kind) in &longs {
        if matches!(l, Long::Short(_)) || done.contains(&l) {
            continue;
        }
        done.push(l);
        let names: Vec<&str> = longs.iter().filter(|x| x.1 == l).map(|x| x.0).collect();
        let (value, help) = long_only(l);
        let value = match kind {
            Some(true) => value.map(str::to_string),
            Some(false) => value.map(|v| format!("[={v}]")),
            None => None,
        };
        out.push((
            Vec::new(),
            names.clone(),
            Opt {
                short: None,
                long: names,
                value,
                help,
            },
        ));
    }
    out
}

/// rstrace(1) in roff.
pub fn page() -> String {
    let opts: Vec<Opt> = options().into_iter().map(|o| o.2).collect();
    roff::page(
        "rstrace",
        env!("CARGO_PKG_VERSION"),
        "trace system calls and signals (strace-compatible)",
        "rstrace [-ACdffhikqqrtttTvVwxxyyzZ] [-I N] [-b execve] [-e EXPR]... [-a COLUMN] [-o FILE]\n\
         [-s STRSIZE] [-X FORMAT] [-O OVERHEAD] [-S SORTBY] [-U COLUMNS] [-P PATH]... [-p PID]...\n\
         [--seccomp-bpf] [--json] { -p PID | [-E VAR=VAL]... [-u USERNAME] PROG [ARGS] }",
        "rstrace runs PROG (or attaches to the processes given with -p) and prints each \
         system call it makes, with decoded arguments and the return value, and each \
         signal it receives, as strace(1) does: the same options (clustered short options, \
         long options and their unique prefixes, -e expressions) and the same output. \
         rtrace strace is the same program.",
        &opts,
        &[
            ("Expressions", super::HELP.split("Filtering:").nth(1).unwrap_or("").split("Output format:").next().unwrap_or("")),
            ("See also", "rltrace(1), rtrace(1), strace(1)"),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_option_is_described() {
        for (shorts, longs, o) in options() {
            assert!(!o.help.is_empty(), "{shorts:?} {longs:?}");
        }
        let p = page();
        for &c in WITH_ARG.iter().chain(NO_ARG) {
            assert!(
                p.contains(&format!("\\fB\\-{}\\fR", c as char)),
                "-{}",
                c as char
            );
        }
        for (name, _, _) in long_options() {
            assert!(
                p.contains(&format!("\\fB\\-\\-{}\\fR", roff::escape(name))),
                "--{name}"
            );
        }
    }
}
