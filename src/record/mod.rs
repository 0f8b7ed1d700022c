//! CI reproduction: `rtrace record` writes a trace file, `rtrace report`
//! summarises one, `rtrace diff` compares two, `rtrace export` turns one into
//! a Chrome trace, folded stacks or a flamegraph.
//!
//! The trace file ([`file`]) is JSON Lines: a `header` object, the events
//! rstrace's `--json` prints (plus library calls, probe hits and injections),
//! and a `footer` with the command's fate. Every reader goes through
//! [`crate::tracefile::Recording`].

pub mod capture;
pub mod diff;
pub mod export;
mod header;
pub mod probe;
pub mod report;
mod writers;
