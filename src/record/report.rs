//! `rtrace report` (being written).

use std::ffi::OsString;

/// Runs `rtrace report` with `args`; returns the exit code.
pub fn main(_args: &[OsString]) -> i32 {
    eprintln!("rtrace: 'report' is not implemented yet");
    1
}
