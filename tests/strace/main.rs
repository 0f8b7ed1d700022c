//! rstrace: its output against strace's (options, summaries, -yy, PID
//! namespaces, i386, read=/write= dumps), fault injection, the syscall
//! decoders against what the test programs print (decode_*), the syscall
//! table against the running kernel, and the ptrace engine (threads,
//! signals, exec, attach). Helpers: strace_opts_util (the options tests),
//! strace72_run (running a tracer for the strace 7.2 comparisons),
//! decnet_util (decode_net, decode_poll, decode_eventfds).

// Shared with the other test crates and benches/: not under this directory.
#[path = "../common/mod.rs"]
mod common;

mod decnet_util;
mod decode_bpf_perf_uring;
mod decode_eventfds;
mod decode_net;
mod decode_netlink;
mod decode_poll;
mod decode_sys;
mod engine;
mod strace72_consts;
mod strace72_decoders;
mod strace72_diff;
mod strace72_help;
mod strace72_options;
mod strace72_ptrace;
mod strace72_rseq;
mod strace72_run;
mod strace72_summary;
mod strace_diff;
mod strace_dumpio;
mod strace_engine_opts;
mod strace_i386;
mod strace_inject;
mod strace_inject_targeted;
mod strace_no_bare_pointers;
mod strace_options;
mod strace_options_cli;
mod strace_options_output;
mod strace_options_summary;
mod strace_opts_util;
mod strace_pidns;
mod strace_pinning;
mod strace_yy;
mod syscall_table;
