//! `rltrace`: ltrace-compatible library-call tracing. Not implemented yet.

use std::ffi::OsString;

/// `rltrace ARGS…` (also `rtrace ltrace ARGS…`); returns the exit code.
pub fn main(_args: &[OsString]) -> i32 {
    eprintln!("rltrace: not implemented yet");
    1
}
