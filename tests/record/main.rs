//! Recordings: `rtrace record` (with --probe and --libcalls), `rtrace
//! report`, `rtrace diff`, `rtrace export` (Chrome trace, folded), and
//! `rstrace --replay-faults` from a recording.

// Shared with the other test crates and benches/: not under this directory.
#[path = "../common/mod.rs"]
mod common;

mod record;
mod record_bytes;
mod record_diff;
mod record_diff_env;
mod record_events;
mod record_export;
mod record_probe;
mod record_stream;
mod record_typed;
mod replay_faults;
