//! rtrace: a Linux tracer and debugger.
//!
//! The library is the product; `rstrace`, `rltrace` and `rtrace` are thin
//! binaries over it. Data flows one way: command line -> plan -> backend
//! (the ptrace [`engine`]) -> events -> [`syscall`] decoders -> values ->
//! [`output`] renderers. [`strace`] wires these into the strace-compatible
//! tool.

pub mod tracefile;
pub mod value;
pub mod vars;

/// `eprintln!` that never panics: std's panics when stderr is a closed pipe
/// or a full disk, and a tracer whose reader went away must still detach
/// and restore what it changed. A failed write is dropped; rtrace's own
/// SIGPIPE handling ends the run.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics (see `eprintln!` above).
#[allow(unused_macros)]
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

pub mod breakpoint;
pub mod engine;
pub mod kernel;
pub mod ltrace;
pub mod output;
pub mod record;
pub mod strace;
pub mod symbols;
pub mod syscall;
pub mod unwind;
pub mod watchpoint;
