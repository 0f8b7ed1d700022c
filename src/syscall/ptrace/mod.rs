//! ptrace: grouping module.

pub(in crate::syscall) mod info;
pub(in crate::syscall) mod req;
