//! The kernel side: tracefs dynamic events, tracepoints, the function
//! tracer and perf_event counters (`rtrace kernel …`, `rtrace stat`).
//! Not implemented yet.

use std::ffi::OsString;

/// `rtrace kernel ARGS…`; returns the exit code.
pub fn main(_args: &[OsString]) -> i32 {
    eprintln!("rtrace kernel: not implemented yet");
    1
}

/// `rtrace stat ARGS…`; returns the exit code.
pub fn stat_main(_args: &[OsString]) -> i32 {
    eprintln!("rtrace stat: not implemented yet");
    1
}
