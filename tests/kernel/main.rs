//! `rtrace kernel …` against this machine's tracefs (tracepoints,
//! uprobes, ftrace, -o FILE, syscall strings, cleanup) and `rtrace stat`
//! (perf_event_open counters). Helpers: kernel_util.

// Shared with the other test crates and benches/: not under this directory.
#[path = "../common/mod.rs"]
mod common;

mod kernel;
mod kernel_output;
mod kernel_strings;
mod kernel_util;
mod stat;
