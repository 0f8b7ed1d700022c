//! rtrace: a Linux tracer and debugger.
//!
//! The library is the product; `rstrace`, `rltrace` and `rtrace` are thin
//! binaries over it. Data flows one way: command line -> plan -> backend
//! (the ptrace [`engine`]) -> events -> [`syscall`] decoders -> values ->
//! [`output`] renderers. [`strace`] wires these into the strace-compatible
//! tool.

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
