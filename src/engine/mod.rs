//! The ptrace engine: launch, attach, the wait loop, tracee memory.
//!
//! Scope: everything that touches a tracee through ptrace, in one place.
//! Tools (rstrace, and later breakpoints and watchpoints) plug in as
//! [`tracer::Handler`]s and never call ptrace themselves.

pub mod memory;

pub mod affinity;
pub mod delay;
pub mod memory_write;
pub mod page_cache;
pub mod ptrace;
pub mod seccomp;
pub mod signals;
pub mod spawn;
pub mod startup;
pub mod status;
pub mod tracee;
pub mod tracer;

/// `-4095..-1` are errors in every Linux ABI.
pub fn is_error(ret: i64) -> bool {
    (-4095..0).contains(&ret)
}

pub use tracer::{Config, Event, Handler, Outcome, Resume, Stamp, Tracer};
