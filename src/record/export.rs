//! `rtrace export` (being written).

use std::ffi::OsString;

/// Runs `rtrace export` with `args`; returns the exit code.
pub fn main(_args: &[OsString]) -> i32 {
    eprintln!("rtrace: 'export' is not implemented yet");
    1
}
