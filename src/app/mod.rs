//! `rtrace`'s own command line: one clap parser for the umbrella command and
//! every native subcommand (each tool declares its options beside its code:
//! `breakpoint::cli`, `watchpoint::cli`, `kernel::cli`, `record::cli`), the
//! shell completions and the man pages generated from it ([`man`]).
//! `rtrace strace` and `rtrace ltrace` hand their arguments untouched to
//! rstrace's and rltrace's getopt-exact parsers.

pub mod man;

use crate::breakpoint::cli::BreakArgs;
use crate::kernel::cli::{KernelCmd, StatArgs};
use crate::record::cli::{DiffArgs, ExportArgs, RecordArgs, ReportArgs};
use crate::watchpoint::cli::WatchArgs;
use clap::{CommandFactory, Parser};
use std::ffi::OsString;
use std::path::PathBuf;

const AFTER_HELP: &str = "\
`rtrace SUBCOMMAND --help` describes each subcommand; `rtrace man` prints
the manual pages, `rtrace completions SHELL` the shell completions.

Examples:
  rtrace strace -f -e trace=%file -- make
  rtrace break 'ret:parse if $retval < 0' --bt -- ./prog
  rtrace watch counter --rw -p 1234
  rtrace kernel trace -e sched:sched_switch -c -- ./prog
  rtrace record -o run.rtrace -- make test && rtrace report run.rtrace
  rtrace completions bash > /etc/bash_completion.d/rtrace";

/// The `rtrace` command line.
#[derive(Parser, Debug)]
#[command(
    name = "rtrace",
    version,
    about = "Linux tracer and debugger: strace/ltrace-compatible tracing, breakpoints, \
             watchpoints, kernel probes, recordings",
    after_help = AFTER_HELP,
    arg_required_else_help = true,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// The subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum Cmd {
    /// rstrace: trace system calls with strace's options (`rtrace strace -h`).
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Strace {
        /// strace's options, then the command.
        #[arg(
            value_name = "ARGS",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        args: Vec<OsString>,
    },
    /// rltrace: trace library calls with ltrace's options (`rtrace ltrace -h`).
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Ltrace {
        /// ltrace's options, then the command.
        #[arg(
            value_name = "ARGS",
            trailing_var_arg = true,
            allow_hyphen_values = true
        )]
        args: Vec<OsString>,
    },
    /// Breakpoints: function arguments, return values, counts, backtraces.
    Break(BreakArgs),
    /// Hardware watchpoints on variables and addresses.
    Watch(WatchArgs),
    /// The kernel's tracers: tracepoints, uprobes/kprobes, ftrace.
    #[command(subcommand, after_help = KERNEL_EXAMPLES)]
    Kernel(KernelCmd),
    /// Count perf events over a command's run, as `perf stat`.
    Stat(StatArgs),
    /// Record a command's system calls (and library calls, probe hits) to a trace file.
    Record(RecordArgs),
    /// Summarise a trace file.
    Report(ReportArgs),
    /// Compare two trace files: the first meaningful divergence.
    Diff(DiffArgs),
    /// Export a trace file for Perfetto or as a flamegraph.
    Export(ExportArgs),
    /// Print shell completions for rtrace.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff), or write them all with --dir.
    #[command(after_help = MAN_EXAMPLES)]
    Man {
        /// The page: a subcommand path (kernel trace), or rstrace, rltrace;
        /// none: rtrace's own page.
        #[arg(value_name = "SUBCOMMAND", conflicts_with = "dir")]
        page: Vec<String>,
        /// Write every page (rtrace.1, rtrace-SUB.1, ..., rstrace.1,
        /// rltrace.1) into DIR.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

const KERNEL_EXAMPLES: &str = "\
Examples:
  rtrace kernel list events 'sched:*'
  rtrace kernel trace -e syscalls:sys_enter_openat --strings -- ls
  rtrace kernel probe 'u:/bin/bash:readline' -p 1234
  rtrace kernel ftrace -f 'vfs_*' -c -- cat /etc/hostname
  rtrace kernel cleanup";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  rtrace completions bash > ~/.local/share/bash-completion/completions/rtrace
  rtrace completions zsh > ~/.zfunc/_rtrace
  rtrace completions fish > ~/.config/fish/completions/rtrace.fish";

const MAN_EXAMPLES: &str = "\
Examples:
  rtrace man | man -l -
  rtrace man kernel trace | man -l -
  rtrace man rstrace > rstrace.1
  rtrace man --dir /usr/local/share/man/man1";

/// The clap command of `rtrace`, for completions and man pages.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses `rtrace ARGS…` (`args` without the program name).
pub fn parse(args: Vec<OsString>) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once(OsString::from("rtrace")).chain(args))
}

/// `rtrace ARGS…` (`args` without the program name); returns the exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    let cli = match parse(args) {
        Ok(c) => c,
        Err(e) => {
            // Help and --version (exit 0) on stdout, errors on stderr (2).
            let _ = e.print();
            return e.exit_code();
        }
    };
    match cli.cmd {
        Cmd::Strace { args } => crate::strace::main(&args),
        Cmd::Ltrace { args } => crate::ltrace::main(&args),
        Cmd::Break(a) => crate::breakpoint::main(a),
        Cmd::Watch(a) => crate::watchpoint::main(a),
        Cmd::Kernel(k) => crate::kernel::main(k),
        Cmd::Stat(a) => crate::kernel::stat_main(a),
        Cmd::Record(a) => crate::record::capture::main(a),
        Cmd::Report(a) => crate::record::report::main(a),
        Cmd::Diff(a) => crate::record::diff::main(a),
        Cmd::Export(a) => crate::record::export::main(a),
        Cmd::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut command(), "rtrace", &mut out);
            print_out(&out)
        }
        Cmd::Man {
            page,
            dir: Some(dir),
        } => {
            debug_assert!(page.is_empty());
            match man::write_all(&dir) {
                Ok(n) => {
                    println!("{n} pages in {}", dir.display());
                    0
                }
                Err(e) => {
                    eprintln!("rtrace man: {}: {e}", dir.display());
                    1
                }
            }
        }
        Cmd::Man { page, dir: None } => match man::page(&page) {
            Ok(roff) => print_out(&roff),
            Err(e) => {
                eprintln!("rtrace man: {e}");
                2
            }
        },
    }
}

/// Writes `bytes` to stdout; 0, or 1 when stdout fails.
fn print_out(bytes: &[u8]) -> i32 {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(bytes).and_then(|()| o.flush()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rtrace: stdout: {e}");
            1
        }
    }
}
