//! `rtrace diff` (being written).

use std::ffi::OsString;

/// Runs `rtrace diff` with `args`; returns the exit code.
pub fn main(_args: &[OsString]) -> i32 {
    eprintln!("rtrace: 'diff' is not implemented yet");
    1
}
