//! `rtrace record` (being written).

use std::ffi::OsString;

/// Runs `rtrace record` with `args`; returns the exit code.
pub fn main(_args: &[OsString]) -> i32 {
    eprintln!("rtrace: 'record' is not implemented yet");
    1
}
