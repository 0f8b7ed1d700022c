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

fn report(r: Result<i32, String>, what: &str) -> i32 {
    match r {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rtrace {what}: {e}");
            1
        }
    }
}

/// `rtrace kernel SUBCOMMAND`, parsed; returns the exit code.
pub fn main(cmd: cli::KernelCmd) -> i32 {
    use cli::KernelCmd as K;
    let r = match cmd {
        K::List(a) => list::main(a.what, &a.glob),
        K::Trace(a) => trace::main(a),
        K::Probe(a) => probe::main(a),
        K::Ftrace(a) => ftrace::main(a),
        K::Cleanup(a) => list::cleanup_main(a.all),
    };
    report(r, "kernel")
}

/// `rtrace stat`, parsed; returns the exit code.
pub fn stat_main(a: cli::StatArgs) -> i32 {
    report(stat::main(a), "stat")
}
