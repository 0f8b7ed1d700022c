//! The command lines every tool shares: --version and --help, bad options
//! and bad input files (never a panic or a hang), the JSON shapes of values
//! whichever tool prints them; self-tests of the helpers in tests/common;
//! and the shape of the source tree (the layers of src/, the paths docs name).

// Shared with the other test crates and benches/: not under this directory.
#[path = "../common/mod.rs"]
mod common;

mod bad_inputs;
mod cli_clap;
mod cli_usage;
mod common_selftest;
mod docs_paths;
mod json_schemas;
mod json_shapes;
mod layers;
