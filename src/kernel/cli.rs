//! The kernel subcommands' command lines (`rtrace kernel list|trace|probe|
//! ftrace|cleanup`, `rtrace stat`), declared for clap: the top-level
//! `rtrace` parser (src/app/) embeds them, so `--help`, errors, completions
//! and man pages come from these declarations.

use super::sink::Mode;
use std::ffi::OsString;

/// `rtrace kernel SUBCOMMAND`.
#[derive(clap::Subcommand, Debug)]
pub enum KernelCmd {
    /// List tracepoints, kernel functions, tracers or rtrace's dynamic probes.
    #[command(after_help = LIST_EXAMPLES)]
    List(ListArgs),
    /// Stream, count or aggregate kernel tracepoints.
    #[command(after_help = TRACE_EXAMPLES)]
    Trace(TraceArgs),
    /// Dynamic probes: uprobes on user functions, kprobes on kernel functions.
    #[command(after_help = PROBE_EXAMPLES)]
    Probe(ProbeArgs),
    /// The kernel's function tracer, on the functions matching a glob.
    #[command(after_help = FTRACE_EXAMPLES)]
    Ftrace(FtraceArgs),
    /// Remove the tracefs instances and probes that a killed rtrace left.
    #[command(after_help = CLEANUP_EXAMPLES)]
    Cleanup(CleanupArgs),
}

const LIST_EXAMPLES: &str = "\
Examples:
  rtrace kernel list events 'syscalls:*openat*'
  rtrace kernel list functions 'vfs_*'
  rtrace kernel list probes";

const TRACE_EXAMPLES: &str = "\
Examples:
  rtrace kernel trace -e sched:sched_switch -c -- make -j2
  rtrace kernel trace -e syscalls:sys_enter_openat --strings -- cat /etc/hostname
  rtrace kernel trace -e 'syscalls:sys_exit_read' --filter 'ret < 0' --by ret -p 1234
  rtrace kernel trace -e block:block_rq_issue --hist bytes -o issue.txt -p 1234";

const PROBE_EXAMPLES: &str = "\
SPEC:
  u:BINARY:FUNC[+OFF] [ARG...]   a uprobe on FUNC in BINARY
  ur:BINARY:FUNC [ARG...]        a return uprobe ($retval)
  k:FUNC [ARG...], kr:FUNC       kprobes (where the kernel has them)
  'p:[GRP/]NAME PLACE ARGS', 'r:[GRP/]NAME PLACE ARGS'   the kernel's own syntax
ARG: a DWARF parameter name, $argN, $retval, $comm, or NAME=FETCHARG[:TYPE]

Examples:
  rtrace kernel probe 'u:/lib/x86_64-linux-gnu/libc.so.6:malloc $arg1' -c -- ls
  rtrace kernel probe 'ur:./prog:compute $retval' --json -p 1234
  rtrace kernel probe 'u:./prog:work n' --hist n -- ./prog";

const FTRACE_EXAMPLES: &str = "\
Examples:
  rtrace kernel ftrace -f 'vfs_*' -- cat /etc/hostname
  rtrace kernel ftrace -f 'tcp_*' -n tcp_poll -c -p 1234
  rtrace kernel ftrace -f 'ext4_*' --by ip --json -o ext4.jsonl -- sync";

const CLEANUP_EXAMPLES: &str = "\
Examples:
  rtrace kernel cleanup
  rtrace kernel cleanup --all";

/// `rtrace kernel list`.
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// What to list.
    #[arg(value_enum, default_value = "events")]
    pub what: ListWhat,
    /// Only the names matching this glob.
    #[arg(default_value = "*")]
    pub glob: String,
}

/// What `rtrace kernel list` lists.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListWhat {
    /// Tracepoints, as SUBSYS:EVENT.
    Events,
    /// Kernel functions the function tracer can trace.
    Functions,
    /// The kernel's tracers.
    Tracers,
    /// Dynamic probes (uprobes, kprobes) defined now.
    Probes,
}

/// `rtrace kernel cleanup`.
#[derive(clap::Args, Debug)]
pub struct CleanupArgs {
    /// Also what running rtrace processes own, not only that of dead ones.
    #[arg(long)]
    pub all: bool,
}

/// The output choices `trace` and `probe` share: `-c`, `--by`, `--hist`,
/// `--json`, `-o`.
#[derive(clap::Args, Debug, Default)]
pub struct OutputArgs {
    /// Count the events by name; print the table at the end.
    #[arg(short = 'c', long = "count", conflicts_with_all = ["by", "hist"])]
    pub count: bool,
    /// Count the events by the value of FIELD.
    #[arg(long, value_name = "FIELD", conflicts_with = "hist")]
    pub by: Option<String>,
    /// A log2 histogram of FIELD's values.
    #[arg(long, value_name = "FIELD")]
    pub hist: Option<String>,
    /// JSON Lines output.
    #[arg(long)]
    pub json: bool,
    /// Write the events (or the summary) to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
    /// Trace these running processes (repeatable, or PID,PID,...).
    #[arg(short = 'p', long = "pid", value_name = "PID", value_delimiter = ',')]
    pub pids: Vec<i32>,
}

impl OutputArgs {
    /// The output mode from `-c`, `--by`, `--hist` (clap makes them
    /// exclusive).
    pub fn mode(&self) -> Mode {
        mode(self.count, self.by.clone(), self.hist.clone())
    }
}

/// The mode of `-c`, `--by FIELD`, `--hist FIELD` (at most one given).
pub fn mode(count: bool, by: Option<String>, hist: Option<String>) -> Mode {
    match (count, by, hist) {
        (true, _, _) => Mode::Count,
        (_, Some(f), _) => Mode::By(f),
        (_, _, Some(f)) => Mode::Hist(f),
        _ => Mode::Stream,
    }
}

/// `rtrace kernel trace`.
#[derive(clap::Args, Debug)]
pub struct TraceArgs {
    /// Tracepoints to enable, SUBSYS:EVENT (globs, repeatable, or comma-separated).
    #[arg(
        short = 'e',
        long = "event",
        value_name = "SUBSYS:EVENT",
        required = true
    )]
    pub events: Vec<String>,
    /// A kernel filter expression on every event ('ret < 0', 'prev_pid == 1').
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Syscall string arguments (filename, pathname, ...) as strings copied by the
    /// kernel at the event (an event probe, CONFIG_EPROBE_EVENTS); without it, or
    /// where the kernel cannot, they print as the pointer the tracepoint recorded.
    #[arg(long)]
    pub strings: bool,
    #[command(flatten)]
    pub out: OutputArgs,
    /// The command to run and trace (after --, or from the first argument that is not an option).
    #[arg(value_name = "CMD", trailing_var_arg = true)]
    pub cmd: Vec<OsString>,
}

/// `rtrace kernel probe`.
#[derive(clap::Args, Debug)]
pub struct ProbeArgs {
    /// Probes to place (see SPEC below).
    #[arg(value_name = "SPEC", required = true)]
    pub specs: Vec<String>,
    #[command(flatten)]
    pub out: OutputArgs,
    /// The command to run and trace.
    #[arg(value_name = "CMD", last = true)]
    pub cmd: Vec<OsString>,
}

/// `rtrace kernel ftrace`.
#[derive(clap::Args, Debug)]
pub struct FtraceArgs {
    /// Trace the kernel functions matching GLOB (repeatable).
    #[arg(short = 'f', long = "function", value_name = "GLOB", required = true)]
    pub functions: Vec<String>,
    /// But not those matching GLOB (repeatable).
    #[arg(short = 'n', long = "notrace", value_name = "GLOB")]
    pub notrace: Vec<String>,
    /// The function_graph tracer (call graph with durations).
    #[arg(long)]
    pub graph: bool,
    /// Count the calls by function; print the table at the end.
    #[arg(short = 'c', long = "count", conflicts_with = "by")]
    pub count: bool,
    /// Count the calls by the value of FIELD (ip, parent_ip).
    #[arg(long, value_name = "FIELD")]
    pub by: Option<String>,
    /// JSON Lines output.
    #[arg(long)]
    pub json: bool,
    /// Write the events (or the summary) to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
    /// Trace these running processes (repeatable, or PID,PID,...).
    #[arg(short = 'p', long = "pid", value_name = "PID", value_delimiter = ',')]
    pub pids: Vec<i32>,
    /// The command to run and trace (after --, or from the first argument that is not an option).
    #[arg(value_name = "CMD", trailing_var_arg = true)]
    pub cmd: Vec<OsString>,
}

/// `rtrace stat`.
#[derive(clap::Args, Debug)]
#[command(after_help = STAT_AFTER)]
pub struct StatArgs {
    /// The events to count (repeatable, or comma-separated): task-clock, cpu-clock,
    /// context-switches (cs), cpu-migrations, page-faults, minor-faults,
    /// major-faults, cycles, instructions, branches, branch-misses,
    /// cache-references, cache-misses, ..., or a tracepoint SUBSYS:EVENT (see
    /// `rtrace kernel list events`). Default: task-clock, context-switches,
    /// cpu-migrations, page-faults, cycles, instructions, branches,
    /// branch-misses; an event the machine cannot count shows <not supported>.
    #[arg(
        short = 'e',
        long = "event",
        value_name = "EVENT",
        value_delimiter = ','
    )]
    pub events: Vec<String>,
    /// Run the command N times and print the mean of each count with its
    /// relative standard error ( +- N% ).
    #[arg(short = 'r', long = "repeat", value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Count in a running process, all its threads (repeatable, or
    /// PID,PID,...), until it exits or Ctrl-C.
    #[arg(
        short = 'p',
        long = "pid",
        value_name = "PID",
        value_delimiter = ',',
        required_unless_present = "cmd",
        conflicts_with = "cmd"
    )]
    pub pids: Vec<i32>,
    /// The command to run (after --, or from the first argument that is not an option).
    #[arg(value_name = "CMD", trailing_var_arg = true)]
    pub cmd: Vec<OsString>,
}

const STAT_AFTER: &str = "\
Counts perf events over a command's run, or in running processes until they
exit or Ctrl-C, and prints them on standard error as `perf stat` does.
Counting starts when the command execs (rtrace's own fork is not counted)
and follows its children. Exit status: the command's (128+N if it was killed
by signal N); 128+N when rtrace is stopped by signal N (Ctrl-C: 130); 1 when
the command cannot be run or counting fails; 2 for a bad command line.

Examples:
  rtrace stat -- make -j2
  rtrace stat -e page-faults,syscalls:sys_enter_openat -r 5 -- ./prog arg
  rtrace stat -e context-switches -p 1234";
