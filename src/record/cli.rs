//! The command lines of `rtrace record`, `report`, `diff` and `export`,
//! declared for clap (the top-level `rtrace` parser in src/app/ embeds
//! them: `--help`, errors, completions and man pages come from here).

use std::ffi::OsString;
use std::path::PathBuf;

/// `rtrace record`.
///
/// Its own options are declared here; every other option is rstrace's (or,
/// with `--libcalls`, rltrace's) and goes, in order, to that tool's
/// getopt-exact parser (src/strace/cli/, src/ltrace/cli.rs): clap cannot
/// take an option table that `--libcalls` switches, nor strace's clustering
/// and abbreviations, so `rest` holds them with the command, and
/// [`super::capture`] splits them as rstrace's table says.
#[derive(clap::Args, Debug, Default)]
#[command(after_help = RECORD_AFTER)]
pub struct RecordArgs {
    /// The trace file (default rtrace.rtrace; a name ending in .zst means --zstd).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<OsString>,
    /// Compress the file with zstd, on a thread of its own, as independent
    /// frames (one per 50 ms flush or MiB of text): `zstd -d` and rtrace
    /// report/diff/export read it, and a recording cut by a kill reads up to
    /// its last frame.
    #[arg(long)]
    pub zstd: bool,
    /// Record system calls (the default).
    #[arg(long)]
    pub syscalls: bool,
    /// Record library calls too, with rltrace's engine (`rltrace -f -S
    /// --json`); the other options are then rltrace's: -e FILTER, -l LIB,
    /// -x FILTER, -s N, -A N, -C, -F FILE, -u USER, -b, --inject=..., --no-cpu-pin.
    #[arg(long)]
    pub libcalls: bool,
    /// Record running processes (repeatable, or PID,PID) instead of a command.
    #[arg(short = 'p', long = "pid", value_name = "PID")]
    pub pids: Vec<String>,
    /// Add the user stack of every syscall ("stack" frames; not with --libcalls).
    #[arg(short = 'k', long = "stack", alias = "stack-traces")]
    pub stack: bool,
    /// Also record the hits of a breakpoint ("probe" events): rtrace break's
    /// SPEC syntax (func, lib:func, file.c:LINE, *ADDR, ret:func, 'SPEC if
    /// COND'); repeatable; not with --libcalls.
    #[arg(long = "probe", value_name = "SPEC")]
    pub probes: Vec<String>,
    /// rstrace's options (rltrace's with --libcalls), then [--] CMD [ARGS...].
    #[arg(
        value_name = "OPTIONS/CMD",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub rest: Vec<OsString>,
}

const RECORD_AFTER: &str = "\
Records the system calls of CMD and every process it starts into FILE: JSON
Lines with a header (command, cwd, environment digest, host, kernel, start
time), the events as `rstrace -f --json` prints them, and a footer (exit
status, elapsed time, event counts). Exits with CMD's exit status (128+N if
CMD was killed by signal N), so it can wrap a CI step unchanged. With -p PID
it attaches to a running process (and its threads and later children)
instead, records until the process exits or until Ctrl-C/SIGTERM, then
detaches and leaves it running; the exit status is then 0, or 128+N after
signal N (as strace -p).

rstrace options (filters and decoding) may come anywhere before CMD:
-e trace=..., -e signal=..., -e status=..., -e inject=..., -P PATH, -s N, -v,
-y, -yy, -X ..., -E VAR=VAL, -u USER, -b execve, -I N, --seccomp-bpf,
--no-cpu-pin.

Examples:
  rtrace record -o run.rtrace -- make test
  rtrace record --zstd -e trace=%file,%process -k -- ./prog arg
  rtrace record --probe 'ret:parse' -o run.rtrace.zst -- ./prog
  rtrace record --libcalls -l libc.so.6 -o calls.rtrace -- ./prog
  rtrace record -p 1234 -o attached.rtrace";

/// `rtrace report`.
#[derive(clap::Args, Debug)]
#[command(after_help = REPORT_AFTER)]
pub struct ReportArgs {
    /// The trace file (`-` reads standard input; .zst files are read as they are).
    #[arg(value_name = "FILE")]
    pub file: String,
    /// One JSON object with the same sections instead of text.
    #[arg(long)]
    pub json: bool,
    /// Stable text for golden files: pids become PID1..., times and durations
    /// placeholders, the summary sorted by name, no slowest-calls section,
    /// addresses and temp paths masked.
    #[arg(long)]
    pub normalize: bool,
    /// How many of the slowest calls to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Print the events instead, as rstrace/rltrace text, one line each
    /// (PID name(args) = ret), like perf script.
    #[arg(long, conflicts_with_all = ["json", "normalize"])]
    pub events: bool,
    /// With --events: only these syscalls (rstrace's syntax: names, %file,
    /// %net, /regex, !negation); other events stay.
    #[arg(short = 'e', value_name = "trace=SET", requires = "events")]
    pub trace: Option<String>,
    /// With --events: only this thread or process (repeatable).
    #[arg(long, value_name = "PID", requires = "events")]
    pub pid: Vec<i64>,
    /// With --events: only events from S seconds after the recording's
    /// start (decimals allowed).
    #[arg(long, value_name = "S", requires = "events", value_parser = seconds)]
    pub from: Option<f64>,
    /// With --events: only events up to S seconds after the recording's start.
    #[arg(long, value_name = "S", requires = "events", value_parser = seconds)]
    pub to: Option<f64>,
}

/// A time offset in seconds, finite and not negative.
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("'{s}' is not a number of seconds")),
    }
}

const REPORT_AFTER: &str = "\
Summarises a trace file written by `rtrace record` (or `rstrace -f --json`
output): the run (command, host, exit status), the syscall summary of the
whole tree and of each process (strace -c -w's table), the slowest calls,
failed calls by syscall, errno and path, files opened and written, the
process tree with exit statuses, network peers, library calls (--libcalls
recordings) and probe hits (--probe recordings).

Exit status: 0 done, 1 when the file cannot be read or holds no events,
2 for a bad command line.

Examples:
  rtrace report run.rtrace
  rtrace report --json --top 3 run.rtrace.zst
  rtrace report --normalize --top=5 run.rtrace
  rtrace report --events -e trace=%file --pid 1234 --from 0.5 run.rtrace";

/// `rtrace diff`.
#[derive(clap::Args, Debug)]
#[command(after_help = DIFF_AFTER)]
pub struct DiffArgs {
    /// The first recording.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The second recording.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// The same as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Lines of context around the divergence.
    #[arg(short = 'C', long, value_name = "N", default_value_t = 3)]
    pub context: usize,
}

const DIFF_AFTER: &str = "\
Compares two recordings of the same command (`rtrace record` files, or
`rstrace -f --json` output): processes are matched by their place in the
process tree and the program they ran, threads by rank; each pair's syscalls
are normalised (pids, addresses, fds, times, temp paths) and aligned. Prints
the first meaningful divergence with context from both sides, then a summary
(syscalls only in A or B, different results, files, exit statuses, probe
hit counts).

Exit status (as diff(1)): 0 no meaningful difference (differences of the
environment only, such as stdout a pipe in one run and a terminal in the
other, included), 1 different, 2 trouble (a file cannot be read, a bad
command line).

Examples:
  rtrace diff pass.rtrace fail.rtrace
  rtrace diff --json --context 5 a.rtrace b.rtrace.zst";

/// `rtrace export`'s formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Chrome trace event JSON (Perfetto, chrome://tracing).
    #[value(alias = "perfetto")]
    Chrome,
    /// Folded stacks for flamegraph tools.
    Folded,
    /// An SVG flamegraph.
    #[value(alias = "svg")]
    Flamegraph,
}

/// What a folded stack counts.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// One per call.
    Count,
    /// Time in the call (ns).
    Time,
}

/// `rtrace export`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXPORT_AFTER)]
pub struct ExportArgs {
    /// What to write.
    #[arg(
        short = 'f',
        long,
        value_enum,
        value_name = "FORMAT",
        required_unless_present = "folded"
    )]
    pub format: Option<Format>,
    /// The same as --format folded.
    #[arg(long, hide = true, conflicts_with = "format")]
    pub folded: bool,
    /// What a stack's weight is (folded and flamegraph only).
    #[arg(long, value_enum, default_value = "count")]
    pub weight: Weight,
    /// Write to OUT (default, or `-`: standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// The recording.
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
}

const EXPORT_AFTER: &str = "\
Turns a recording into something a viewer reads: chrome (Chrome trace event
JSON, for Perfetto, chrome://tracing and trace_processor), folded (folded
stacks for flamegraph tools) or flamegraph (an SVG flamegraph of the same
stacks). Stacks come from `rtrace record -k`; without them a stack is
program;syscall.

Examples:
  rtrace export --format chrome -o run.json run.rtrace
  rtrace export --format folded --weight time run.rtrace > run.folded
  rtrace export --format flamegraph -o run.svg run.rtrace.zst";
