//! strace's checks and defaults after option parsing (conflicting options,
//! options without effect, `-u` without root), in strace's order.

use super::{err, err_hint, Options, Seen, Stamps, TimeFormat, UsageError};
use crate::strace::filter::{self, NameSet};
/// strace's checks and defaults after option parsing, in its order.
pub(super) fn after_parse(o: &mut Options, seen: &mut Seen) -> Result<(), UsageError> {
    let argc = o.command.len();
    if let Some(level) = seen.daemonize_long {
        if seen.daemonize_short > 0 {
            return Err(err("-D and --daemonize cannot be provided simultaneously"));
        }
        seen.daemonize_short = u32::from(level);
    }
    if argc == 0 && o.pids.is_empty() {
        return Err(err_hint("must have PROG [ARGS] or -p PID"));
    }
    if argc == 0 && o.argv0.is_some() {
        return Err(err_hint("PROG [ARGS] must be specified with --argv0"));
    }
    if argc == 0 && seen.daemonize {
        return Err(err_hint(
            "PROG [ARGS] must be specified with -D/--daemonize",
        ));
    }
    if seen.daemonize_short > 3 {
        return Err(err_hint(format!(
            "Too many -D's ({}), maximum supported -D count is 3",
            seen.daemonize_short
        )));
    }
    o.daemonize = seen.daemonize_short as u8;
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
    if o.syscall_limit.is_some() {
        if o.seccomp == Some(true) {
            o.warnings.push(
                "--seccomp-bpf is not enabled because it is not compatible with --syscall-limit"
                    .into(),
            );
        }
        // Once the limit detaches them, filtered tasks would get ENOSYS
        // for the calls the filter sends to a tracer they no longer have.
        o.seccomp = Some(false);
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
            (o.stack_traces, "-k/--stack-trace"),
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
    // strace resolves the -P paths here, before -q can quiet the notices.
    let announce = !o.quiet_set.contains(filter::quiet::PATH_RESOLVE);
    let (set, notes) = crate::strace::filter::path_rule::select_paths(&o.trace_paths, announce);
    o.warnings.extend(notes);
    o.trace_path_set = Some(set);
    if o.stack_frame_limit.is_some() && !o.stack_traces {
        o.warnings
            .push("--stack-trace-frame-limit has no effect without -k/--stack-trace".into());
    }
    if let Some(user) = &o.user {
        if !running_as_root() {
            return Err(err("You must be root to use the -u/--username option"));
        }
        if !user_known(user) {
            return Err(err(format!("Cannot find user '{user}'")));
        }
    }
    if o.kill_on_exit && !o.pids.is_empty() {
        return Err(err(
            "--kill-on-exit and -p/--attach are mutually exclusive options",
        ));
    }
    match o.output.as_deref() {
        Some(out) if out.starts_with('|') || out.starts_with('!') => {
            if o.output_separately {
                return Err(err_hint(
                    "piping the output and -ff/--output-separately are mutually exclusive",
                ));
            }
        }
        // Room for `.PID` within PATH_MAX, as strace requires.
        Some(out) if o.output_separately && out.len() >= PATH_MAX - 12 => {
            return Err(err(format!("{out}: File name too long")));
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
    // strace's first check as it starts the command.
    if o.command.first().is_some_and(|p| p.len() > PATH_MAX - 1) {
        return Err(err("exec: File name too long"));
    }
    Ok(())
}

/// Linux's `PATH_MAX`.
const PATH_MAX: usize = 4096;

/// Does `/etc/passwd` have user `name` (strace's `getpwnam` check for `-u`)?
fn user_known(name: &str) -> bool {
    std::fs::read_to_string("/etc/passwd")
        .map(|p| p.lines().any(|l| l.split(':').next() == Some(name)))
        .unwrap_or(false)
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
