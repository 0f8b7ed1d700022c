//! Every tool when things go wrong: the tracer interrupted (SIGINT, SIGTERM,
//! SIGHUP, SIGKILL) while tracing or attached, the traced program killed,
//! stopped, exec'ing from a thread, flooding with threads and forks; -o
//! files that keep each finished event; and the signal state a traced
//! command starts with.

// Shared with the other test crates and benches/: not under this directory.
#[path = "../common/mod.rs"]
mod common;

mod attach_interrupt;
mod fault_count;
mod fault_tool;
mod fault_tracee;
mod output_flush;
mod signal_state;
