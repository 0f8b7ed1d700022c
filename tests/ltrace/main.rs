//! rltrace: call sequences, options, prototypes and formatting, --json,
//! --inject, the comparison with ltrace 0.7.3, and the kernel (uprobe)
//! backend against the ptrace one. Helpers: ltrace_util.

// Shared with the other test crates and benches/: not under this directory.
#[path = "../common/mod.rs"]
mod common;

mod ltrace;
mod ltrace_builds;
mod ltrace_diff;
mod ltrace_inject;
mod ltrace_json;
mod ltrace_kcount;
mod ltrace_kernel;
mod ltrace_kprintf;
mod ltrace_langs;
mod ltrace_launched;
mod ltrace_nesting;
mod ltrace_options;
mod ltrace_pinning;
mod ltrace_printf;
mod ltrace_proto;
mod ltrace_protos;
mod ltrace_syscalls;
mod ltrace_sysnames;
mod ltrace_util;
mod ltrace_where;
