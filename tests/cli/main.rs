//! The command lines every tool shares: --version and --help, bad options
//! and bad input files (never a panic or a hang), the JSON shapes of values
//! whichever tool prints them; and self-tests of the helpers in tests/common.

// Shared with the other test crates and benches/: not under this directory.
#[path = "../common/mod.rs"]
mod common;

mod bad_inputs;
mod cli_usage;
mod common_selftest;
mod json_shapes;
