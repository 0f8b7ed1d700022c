//! rtrace: a Linux tracer and debugger.
//!
//! The library is the product; `rstrace`, `rltrace` and `rtrace` are thin
//! binaries over it. Modules form layers; a module imports only from layers
//! below it (`tests/cli/layers.rs` reads every `crate::` path and fails on one
//! that goes up). Bottom to top:
//!
//! | layer | holds |
//! |---|---|
//! | `rtrace_arch` (arch/) | registers, syscall/errno/signal/ioctl tables per architecture |
//! | [`sys`] | the process's own facts and libc calls every layer may need |
//! | [`output`] | where text goes: the line latch, the paced writer, the normaliser |
//! | [`engine`] | ptrace: spawning and attaching, stops, tracee memory, signals |
//! | [`symbols`] | ELF symbols, PLT stubs, module maps, DWARF line tables |
//! | [`value`] | decoded values and their text and JSON renderings |
//! | [`unwind`] | stack unwinding (CFI, frame pointers, signal frames) |
//! | [`vars`] | DWARF variables: types, locations, scopes |
//! | [`syscall`] | syscall decoders, one family per module |
//! | [`tracefile`] | the trace file format `record` writes and `report`/`diff` read |
//! | [`kernel`] | tracefs dynamic events, tracepoints, ftrace, perf counters |
//! | [`probe`] | user-space probes the tools share: specs, sites, the shadow stack |
//! | [`strace`] | rstrace |
//! | [`watchpoint`] | `rtrace watch` |
//! | [`breakpoint`] | `rtrace break` (uses watchpoints for `--watch`) |
//! | [`ltrace`] | rltrace (its `-S` uses the strace decoders and inject) |
//! | [`record`] | `rtrace record`, `report`, `diff`, `export` over the tools |
//! | [`app`] | `rtrace`'s own command line (clap): subcommands, completions, man pages |
//!
//! docs/ARCHITECTURE.md follows each tool's data through these layers.

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

// Bottom to top, as in the table above (a blank line keeps rustfmt from
// sorting them).
pub mod sys;

pub mod output;

pub mod engine;

pub mod symbols;

pub mod value;

pub mod unwind;

pub mod vars;

pub mod syscall;

pub mod tracefile;

pub mod kernel;

pub mod probe;

pub mod strace;

pub mod watchpoint;

pub mod breakpoint;

pub mod ltrace;

pub mod record;

pub mod app;
