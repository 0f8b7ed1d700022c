//! Software breakpoints and return probes (`rtrace break`). Not implemented yet.

/// `rtrace break ARGS…`; returns the exit code.
pub fn main(_args: &[std::ffi::OsString]) -> i32 {
    eprintln!("rtrace break: not implemented yet");
    1
}
