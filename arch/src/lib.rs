//! Everything in rtrace that differs per CPU architecture.
//!
//! Scope: syscall tables (x86_64, the i386 personality, aarch64), per-syscall
//! metadata (argument counts, strace trace classes), constant ("xlat") tables,
//! register views for syscall stops, trap bytes and seccomp audit-arch values.
//! Every architecture module compiles on every host; only the choice of
//! [`native`] depends on `cfg(target_arch)`.
//!
//! Non-goals: anything that talks to the kernel. This crate is pure data and
//! pure functions over bytes, so it can be tested on any host.

pub mod aarch64;
pub mod i386;
pub mod insn;
pub mod insn_aarch64;
pub mod insn_x86;
pub mod insn_x86_summary;
pub mod prologue;
pub mod regs;
pub mod tables;
pub mod x86_64;
pub mod x86_debugreg;
pub mod xlat;

pub use regs::SyscallRegs;
pub use tables::{syscall_info, Arch, Classes, SyscallInfo};
pub use xlat::{Xlat, XlatKind};

/// The architecture this binary runs on.
#[cfg(target_arch = "x86_64")]
pub use x86_64 as native;

/// The architecture this binary runs on.
#[cfg(target_arch = "aarch64")]
pub use aarch64 as native;
