//! The kernel side: tracefs tracepoints, dynamic probes (uprobes; kprobes
//! where the kernel has them), the function tracer and perf_event counters
//! (`rtrace kernel …`, `rtrace stat`).
//!
//! Layers: [`tracefs`] knows paths and owns what rtrace creates there (a
//! private instance, a dynamic-event group); [`ringbuf`] walks the binary
//! per-CPU buffers; [`format`] and [`event`] turn records into values;
//! [`sink`] renders them (text and JSON from the same values) or counts
//! them; [`trace`], [`probe`], [`ftrace`] and [`stat`] are the commands.
//!
//! Not covered: event triggers and hist triggers (this kernel has no
//! CONFIG_HIST_TRIGGERS; `--hist`/`--by` aggregate in rtrace), synthetic
//! events; event probes only as [`strings`] uses them.

pub mod cli;
pub mod dwarfargs;
pub mod dynevent;
pub mod event;
pub mod format;
pub mod ftrace;
pub mod list;
pub mod perf;
pub mod probe;
pub mod ringbuf;
pub mod session;
pub mod sink;
pub mod stat;
pub mod strings;
pub mod trace;
pub mod tracefs;

use std::ffi::OsString;

const USAGE: &str = "\
usage: rtrace kernel list [events|functions|tracers|probes] [GLOB]
       rtrace kernel trace -e SUBSYS:EVENT[,...] [--filter EXPR] [-p PID | -- CMD...]
                           [-c | --by FIELD | --hist FIELD] [--json] [--strings] [-o FILE]
       rtrace kernel probe SPEC... [-c] [--json] [-o FILE] [-p PID | -- CMD...]
           SPEC: u:BINARY:FUNC[+OFF] [ARG...]   ur:BINARY:FUNC [ARG...]
                 k:FUNC [ARG...]   kr:FUNC [ARG...]
                 'p:[GRP/]NAME PLACE ARGS'   'r:[GRP/]NAME PLACE ARGS' (kernel syntax)
           ARG: a DWARF parameter name, $argN, $retval, $comm, or NAME=FETCHARG[:TYPE]
       rtrace kernel ftrace -f GLOB [-n GLOB] [--graph] [-o FILE] [-p PID | -- CMD...]
       rtrace kernel cleanup [--all]
";

fn report(r: Result<i32, String>, what: &str) -> i32 {
    match r {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rtrace {what}: {e}");
            1
        }
    }
}

/// `rtrace kernel ARGS…`; returns the exit code.
pub fn main(args: &[OsString]) -> i32 {
    let sub = args.first().and_then(|s| s.to_str()).unwrap_or("");
    let rest = args.get(1..).unwrap_or(&[]);
    let r = match sub {
        "list" => cli::parse(rest, &[], &[], false).and_then(|a| list::main(&a.positional)),
        "trace" => trace::main(rest),
        "probe" => probe::main(rest),
        "ftrace" => ftrace::main(rest),
        "cleanup" => cli::parse(rest, &[], &["all"], false).and_then(|a| {
            if let Some(p) = a.positional.first() {
                return Err(format!("unexpected argument '{p}'"));
            }
            list::cleanup_main(a.flag("all"))
        }),
        "-h" | "--help" => {
            print!("{USAGE}");
            return 0;
        }
        _ => {
            if let Some(other) = args.first() {
                eprintln!(
                    "rtrace kernel: unknown subcommand '{}'",
                    other.to_string_lossy()
                );
            }
            eprint!("{USAGE}");
            return 1;
        }
    };
    report(r, "kernel")
}

/// `rtrace stat ARGS…`; returns the exit code.
pub fn stat_main(args: &[OsString]) -> i32 {
    report(stat::main(args), "stat")
}
