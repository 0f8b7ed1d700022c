//! Hardware watchpoints (`rtrace watch`). Not implemented yet.

/// `rtrace watch ARGS…`; returns the exit code.
pub fn main(_args: &[std::ffi::OsString]) -> i32 {
    eprintln!("rtrace watch: not implemented yet");
    1
}
