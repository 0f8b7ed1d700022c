//! What each option does to [`Options`]: short options, long-only options,
//! timestamp formats and the `-e KEY=VALUE` qualifiers.

use super::table::Long;
use super::{err, err_hint, Options, Seen, TimeFormat, UsageError};
use crate::strace::filter::{self, NameSet, SyscallSet};
/// strace 7.2's words for `-kk` / `--stack-trace=source` in a build without
/// libdw: rstrace's stacks have no source lines either.
const NO_SOURCE_LINES: &str = "Stack traces with source line information \
     (-kk/--stack-trace=source option) are not supported by this build of strace";

/// `-N`: strace 7.2 prints each argument's name; rstrace's decoders do
/// not know the names, so it refuses rather than ignoring the option.
const ARG_NAMES_UNSUPPORTED: &str =
    "-N/--arg-names (syscall argument names) is not supported by rstrace";

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

pub(super) fn apply_short(
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
        b'd' => o.debug = true,
        b'D' => {
            seen.daemonize = true;
            seen.daemonize_short += 1;
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
                "1" | "anywhere" | "always" => 1,
                "2" | "waiting" => 2,
                "3" | "never" => 3,
                "4" | "never_tstp" => 4,
                _ => return Err(opt_arg_err(c, lname, &v)),
            };
            o.interruptible = Some(n);
        }
        b'k' => {
            // strace's -kk (source lines, libdw builds only).
            if o.stack_traces {
                return Err(err(NO_SOURCE_LINES));
            }
            o.stack_traces = true
        }
        b'N' => return Err(err(ARG_NAMES_UNSUPPORTED)),
        b'n' => o.syscall_number = true,
        b'o' => o.output = Some(v),
        b'O' => {
            // strace's parse_ts, as for injection delays.
            o.overhead = Some(
                crate::strace::inject::parse_delay(&v).ok_or_else(|| opt_arg_err(c, lname, &v))?,
            );
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
            o.sort_by = crate::strace::summary::sort_by_name(&v)
                .ok_or_else(|| err_hint(format!("invalid sortby: '{v}'")))?;
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
            o.columns = crate::strace::summary::parse_columns(&v).map_err(err_hint)?;
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
        // Like strace, each of -Y, --pidns-translation and --decode-pids=
        // replaces the set of pid decorations.
        b'Y' => (o.decode_pids_comm, o.decode_pids_ns) = (true, false),
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

pub(super) fn apply_long(
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
        Long::Daemonize => {
            // strace's values, matched without regard to case.
            let level = match val.as_deref().map(str::to_ascii_lowercase).as_deref() {
                None | Some("grandchild") => 1,
                Some("pgroup") | Some("pgrp") => 2,
                Some("session") => 3,
                Some(_) => return Err(bad(val.as_deref().unwrap_or(""))),
            };
            seen.daemonize = true;
            seen.daemonize_long = Some(level);
        }
        Long::Timestamps => {
            seen.tflag_long = true;
            parse_ts(o, val.as_deref().unwrap_or("format:time"))
                .map_err(|_| bad(val.as_deref().unwrap_or("")))?;
        }
        Long::StringsInHex => {
            seen.xflag_long = Some(match val.as_deref() {
                None | Some("all") => 2,
                Some("non-ascii") => 1,
                Some("non-ascii-chars") => 3,
                Some("none") => 0,
                Some(v) => return Err(bad(v)),
            })
        }
        Long::PidnsTranslation => (o.decode_pids_comm, o.decode_pids_ns) = (false, true),
        Long::SeccompBpf => o.seccomp = Some(true),
        Long::Tips => {
            let v = val.as_deref().unwrap_or("");
            o.tips.apply(v).map_err(|_| bad(v))?
        }
        // strace's own words (a build without SELinux support), which
        // scripts and strace's tests match.
        Long::Secontext => {
            return Err(err(
                "SELinux context printing (--secontext option) is not supported by this build of strace",
            ))
        }
        Long::StackTrace => match val.as_deref() {
            None | Some("symbol") => o.stack_traces = true,
            Some("source") => return Err(err(NO_SOURCE_LINES)),
            Some(v) => return Err(bad(v)),
        },
        Long::StackTraceFrameLimit => {
            let v = val.as_deref().unwrap_or("");
            // strace: `i <= 0 || i > -1U / 4` is an invalid argument.
            match filter::string_to_uint(v, (u32::MAX / 4) as u64) {
                Some(n) if n > 0 => o.stack_frame_limit = Some(n as usize),
                _ => return Err(bad(v)),
            }
        }
        Long::SyscallLimit => {
            let v = val.as_deref().unwrap_or("");
            // strace reads a long long: 0, negative and overflowing
            // values are invalid.
            match filter::string_to_uint(v, i64::MAX as u64) {
                Some(n) if n > 0 => o.syscall_limit = Some(n),
                _ => return Err(bad(v)),
            }
        }
        Long::KillOnExit => o.kill_on_exit = true,
        Long::Argv0 => o.argv0 = val.map(Into::into),
        Long::AlwaysShowPid => o.always_show_pid = true,
        Long::Color => match val.as_deref().unwrap_or("") {
            // rstrace never colours its output: "never" is what it does.
            "never" => {}
            "auto" | "always" => {
                return Err(err(
                    "colorized output (--color=auto|always) is not supported by rstrace",
                ))
            }
            v => return Err(bad(v)),
        },
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
            let plan = crate::strace::replay::Plan::load(val.as_deref().unwrap_or(""))
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
    ("trace-fd", "trace-fds"),
    ("trace-fds", "trace-fds"),
    ("fd", "trace-fds"),
    ("fds", "trace-fds"),
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
    ("namespace", "namespace"),
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
        "trace-fds" => o.trace_fds = Some(crate::strace::dumpio::FdSet::parse(val)?),
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
            use filter::decode_fd::{DEV, EVENTFD, PIDFD, SIGNALFD, SOCKET};
            let detail = [SOCKET, DEV, PIDFD, EVENTFD, SIGNALFD];
            o.decode_fd_set = (0..6).filter(|&n| s.contains(n)).map(|n| 1 << n).sum();
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
            o.decode_pids_ns = s.contains(0);
        }
        "read" => o.dump_reads = crate::strace::dumpio::FdSet::parse(val)?,
        "write" => o.dump_writes = crate::strace::dumpio::FdSet::parse(val)?,
        "inject" | "fault" => o.inject.push(crate::strace::inject::Rule::parse(val, qual == "fault")?),
        "kvm" => {
            if val != "vcpu" {
                return Err(err(format!("invalid -e kvm= argument: '{val}'")));
            }
            o.kvm_vcpu = true;
        }
        "namespace" => {
            if val != "new" {
                return Err(err(format!("invalid -e namespace= argument: '{val}'")));
            }
            return Err(err(
                "printing namespace IDs (-e namespace=new) is not supported by rstrace",
            ));
        }
        "secontext" => {
            return Err(err(
                "SELinux context printing (--secontext option) is not supported by this build of strace",
            ))
        }
        _ => unreachable!("unknown qualifier {qual}"),
    }
    Ok(())
}
