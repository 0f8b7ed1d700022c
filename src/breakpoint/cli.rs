//! `rtrace break` command line, declared for clap ([`BreakArgs`]) and
//! checked into [`Options`]; [`parse`] runs the same parser on a slice, so
//! it is unit-tested without a process.

use crate::probe::cond::{self, Expr as CondExpr};
use crate::probe::disasm;
use crate::probe::spec::{self, Spec};
use crate::unwind::backtrace::Depth;
use crate::watchpoint::spec::Spec as WatchSpec;
use clap::Parser as _;
use rtrace_arch::x86_debugreg::Kind;
use std::ffi::OsString;

/// `rtrace break --help` after the options.
pub const AFTER_HELP: &str = "\
SPEC:
  func            a function (every module that defines it)
  'glob*'         every function matching the glob
  lib:func        a function in one library (libc.so.6:getpid)
  file.c:LINE     the code of a source line
  *0xADDR         an address
  ret:FUNC        a return probe: return value and duration
  'SPEC if EXPR'  only when EXPR holds: program variables from DWARF (n, p->x,
                  cfg.limit, t[2], enumerator names), registers ($rdi, $rax,
                  $pc, $sp, $fp, ...), $arg1..$arg6, $retval (ret: probes),
                  literals (42, 0x2a, 'A'), == != < <= > >= && || ! & | ^ + - ~

Each hit prints the function's arguments from DWARF, like gdb's frame line:
  func(n=5, s=\"text\", p=0x5555...) at file.c:LINE
A 'func' breakpoint that prints or tests variables is placed past the
prologue (as gdb's 'break func'), where unoptimized code has stored them.

A SPEC that cannot match (no such function, line or library function; a
condition's variable that the function does not have; a malformed
condition) is refused before the program starts or -p attaches: exit
status 2. A SPEC that may match later is 'pending' and tracing goes on:
'lib:func' while lib is not loaded, or any name when the program or its
libraries call dlopen or run other programs (exec, system, posix_spawn).
A glob selects functions, not their PLT stubs ('f@plt'); name those with
@plt ('f@plt', '*@plt').

Examples:
  rtrace break main -- ./prog
  rtrace break --count 'libc.so.6:mall*' --backend=kernel -- ./prog
  rtrace break 'ret:parse if $retval < 0' --bt -p 1234
  rtrace break compute --watch counter --rw -o hits.txt -- ./prog
  rtrace break --list file.c:42 -- ./prog";

/// `rtrace break`'s options as clap reads them.
#[derive(clap::Args, Debug, Default)]
#[command(after_help = AFTER_HELP)]
pub struct BreakArgs {
    /// Breakpoints (see SPEC below).
    #[arg(value_name = "SPEC", required = true)]
    pub specs: Vec<String>,
    /// Only count hits; print a table at exit.
    #[arg(short = 'c', long)]
    pub count: bool,
    /// Print a backtrace at each hit, as gdb's `bt` (down to main; all
    /// frames, or the innermost N with --bt=N).
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub bt: Option<Option<u32>>,
    /// With --bt, go on below main (__libc_start_call_main, _start), as gdb's
    /// 'set backtrace past-main on'.
    #[arg(long, requires = "bt")]
    pub past_main: bool,
    /// Print the registers at each hit.
    #[arg(long)]
    pub regs: bool,
    /// Report at most N hits of each SPEC, then take it out (gdb's 'enable
    /// count N'); hits its condition rejects or --ignore skips do not count.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_hits: Option<u64>,
    /// Temporary breakpoints (gdb's 'tbreak'): --max-hits 1.
    #[arg(long, conflicts_with = "max_hits")]
    pub tbreak: bool,
    /// Do not report the first N hits of each SPEC whose condition holds
    /// (gdb's 'ignore').
    #[arg(long, value_name = "N")]
    pub ignore: Option<u64>,
    /// Print EXPR at each hit, as 'EXPR = VALUE' (gdb's 'print' at a
    /// 'dprintf'): a variable path (n, p->x, t[2], cfg.limit) by its DWARF
    /// type, or an expression of the condition language (n * 2, $rdi,
    /// $retval at ret: probes) as an integer; repeatable.
    #[arg(long = "print", value_name = "EXPR")]
    pub print: Vec<String>,
    /// Print the local variables visible at each hit.
    #[arg(long)]
    pub locals: bool,
    /// JSON Lines output.
    #[arg(long)]
    pub json: bool,
    /// Write the output to FILE (default: standard error).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<OsString>,
    /// Keep breakpoints in forked children (default: remove them and let go).
    #[arg(short = 'f', long = "follow")]
    pub follow: bool,
    /// Attach to a running process (repeatable, or PID,PID; detach on Ctrl-C
    /// restores its code).
    #[arg(short = 'p', long = "pid", value_name = "PID", value_delimiter = ',')]
    pub pids: Vec<i32>,
    /// Do not run rtrace and the program on one CPU (by default every
    /// thread runs on rtrace's CPU, invisibly to the program: a hit then
    /// costs a context switch, not a cross-CPU wake-up).
    #[arg(long)]
    pub no_cpu_pin: bool,
    /// Also a hardware watchpoint on writes to EXPR (a global, var.field,
    /// var[N] or *ADDR[:LEN], and 'EXPR if COND', as in 'rtrace watch');
    /// up to four.
    #[arg(long = "watch", value_name = "EXPR")]
    pub watch: Vec<String>,
    /// The --watch watchpoints trap on reads and writes (one kind per session).
    #[arg(long)]
    pub rw: bool,
    /// Old spelling of --watch EXPR --rw.
    #[arg(long = "awatch", value_name = "EXPR", hide = true)]
    pub awatch: Vec<String>,
    /// How --count counts: ptrace (INT3 stops), kernel (uprobe events counted
    /// by perf: functions, globs and ret: probes, without conditions, in a
    /// launched program and the libraries it loads at start-up), auto (kernel
    /// when it can do what is asked, else ptrace).
    #[arg(long, value_name = "BACKEND", default_value = "auto",
          value_parser = ["auto", "ptrace", "kernel"])]
    pub backend: String,
    /// Print the addresses each SPEC resolves to and exit, without running the
    /// program (file addresses, as nm prints them; the running process's with -p).
    #[arg(long)]
    pub list: bool,
    /// Print the same, then run.
    #[arg(short = 'D', long = "describe")]
    pub describe: bool,
    /// Print the N (default 5) instructions at each hit, as gdb's `x/Ni $pc`.
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true,
          value_parser = disasm::parse_count)]
    pub disasm: Option<Option<usize>>,
    /// The command to run (after --).
    #[arg(value_name = "CMD", last = true)]
    pub command: Vec<OsString>,
}

/// `rtrace break` alone, so [`parse`] can run clap on a slice.
#[derive(clap::Parser, Debug)]
#[command(name = "rtrace break", no_binary_name = true)]
struct Alone {
    #[command(flatten)]
    args: BreakArgs,
}

/// Parses `args` (without the program and subcommand names): clap's parser,
/// then [`BreakArgs::check`]. A clap error is an [`Error::Usage`].
pub fn parse(args: &[OsString]) -> Result<Options, Error> {
    let a = Alone::try_parse_from(args).map_err(|e| Error::Usage(e.to_string()))?;
    a.args.check()
}

/// Why a command line was refused.
#[derive(Debug)]
pub enum Error {
    /// Not a valid command line (exit status 2, as clap's errors).
    Usage(String),
    /// A spec that can never work (exit status 2).
    Spec(String),
}

impl Error {
    /// The exit status it ends `rtrace break` with.
    pub fn status(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::Spec(_) => 2,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage(m) | Error::Spec(m) => f.write_str(m),
        }
    }
}

impl From<String> for Error {
    fn from(m: String) -> Error {
        Error::Usage(m)
    }
}

impl From<&str> for Error {
    fn from(m: &str) -> Error {
        Error::Usage(m.to_string())
    }
}

/// Parsed options.
#[derive(Debug, Default)]
pub struct Options {
    /// Breakpoint specs.
    pub specs: Vec<Spec>,
    /// `--count`.
    pub count: bool,
    /// `--bt[=N]` and `--past-main`.
    pub bt: Option<Depth>,
    /// `--regs`.
    pub regs: bool,
    /// `--max-hits N` (`--tbreak`: 1): hits reported per spec.
    pub max_hits: Option<u64>,
    /// `--ignore N`: hits per spec not reported first.
    pub ignore: u64,
    /// `--print EXPR` (repeatable): the text and its parsed form.
    pub prints: Vec<(String, CondExpr)>,
    /// `--locals`: locals visible at the hit, from DWARF.
    pub locals: bool,
    /// `--json`.
    pub json: bool,
    /// `-o FILE`.
    pub output: Option<OsString>,
    /// `-f`.
    pub follow: bool,
    /// `-p PID` (repeatable).
    pub pids: Vec<i32>,
    /// Run rtrace and the program on one CPU (not `--no-cpu-pin`).
    pub cpu_pin: bool,
    /// The command after `--`.
    pub command: Vec<OsString>,
    /// `--watch`/`--awatch` expressions.
    pub watches: Vec<WatchSpec>,
    /// Their access kind (one per session: the debug-register plan is
    /// shared).
    pub watch_kind: Option<Kind>,
    /// `--backend`.
    pub backend: crate::probe::Backend,
    /// `--list`: print what each spec resolves to, run nothing.
    pub list: bool,
    /// `-D`: print what each spec resolves to, then run.
    pub describe: bool,
    /// `--disasm[=N]`: instructions to print at each hit.
    pub disasm: Option<usize>,
}

impl BreakArgs {
    /// What clap cannot check: the specs' syntax (exit status 2), the target
    /// and the watchpoints' limits (a usage error).
    pub fn check(self) -> Result<Options, Error> {
        if !self.awatch.is_empty() && !self.watch.is_empty() && !self.rw {
            return Err(
                "--watch and --awatch cannot be mixed: one session watches for one \
                 kind of access (--watch EXPR --rw watches reads and writes)"
                    .into(),
            );
        }
        let rw = self.rw || !self.awatch.is_empty();
        let mut watches = Vec::new();
        for e in self.watch.iter().chain(&self.awatch) {
            watches.push(WatchSpec::parse(e)?);
        }
        if self.rw && watches.is_empty() {
            return Err("--rw says how --watch watches: give --watch EXPR".into());
        }
        let o = Options {
            specs: self
                .specs
                .iter()
                .map(|s| spec::parse(s).map_err(Error::Spec))
                .collect::<Result<_, _>>()?,
            count: self.count,
            bt: self.bt.map(|n| Depth {
                limit: n.map(|n| n as usize),
                past_main: self.past_main,
            }),
            regs: self.regs,
            max_hits: if self.tbreak { Some(1) } else { self.max_hits },
            ignore: self.ignore.unwrap_or(0),
            prints: self
                .print
                .iter()
                .map(|p| {
                    cond::parse(p)
                        .map(|e| (p.clone(), e))
                        .map_err(|e| Error::Spec(format!("--print '{p}': {e}")))
                })
                .collect::<Result<_, _>>()?,
            locals: self.locals,
            json: self.json,
            output: self.output,
            follow: self.follow,
            pids: self.pids,
            cpu_pin: !self.no_cpu_pin,
            command: self.command,
            watch_kind: (!watches.is_empty()).then_some(if rw {
                Kind::ReadWrite
            } else {
                Kind::Write
            }),
            watches,
            backend: crate::probe::Backend::parse(&self.backend)?,
            list: self.list,
            describe: self.describe,
            disasm: self.disasm.map(|n| n.unwrap_or(disasm::DEFAULT_COUNT)),
        };
        if o.pids.is_empty() == o.command.is_empty() {
            return Err("give either -p PID or -- CMD".into());
        }
        if !o.watches.is_empty() && o.pids.len() > 1 {
            return Err("--watch needs a single process: one -p PID or a command".into());
        }
        if !o.watches.is_empty() && o.follow {
            return Err(
                "--watch with -f is not supported: watchpoints stay in the first process".into(),
            );
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses() {
        let o = parse(&args(&[
            "--count",
            "f",
            "ret:g if $rax > 0",
            "--",
            "prog",
            "-x",
        ]))
        .unwrap();
        assert!(o.count);
        assert_eq!(o.specs.len(), 2);
        assert_eq!(o.command, args(&["prog", "-x"]));
        let o = parse(&args(&["f", "-p", "12", "--json"])).unwrap();
        assert_eq!(o.pids, vec![12]);
        assert!(parse(&args(&["f"])).is_err());
        assert!(parse(&args(&["--", "prog"])).is_err());
        assert!(parse(&args(&["--frob", "f", "--", "p"])).is_err());
        let o = parse(&args(&["--list", "-D", "f", "--", "p"])).unwrap();
        assert!(o.list && o.describe);
        // A bad spec is refused with status 2, a bad option with 1.
        assert_eq!(
            parse(&args(&["bump if", "--", "p"])).unwrap_err().status(),
            2
        );
        assert_eq!(parse(&args(&["f", "--bogus"])).unwrap_err().status(), 2);
        // clap's spellings: --opt=VALUE, -oFILE, and the old --awatch.
        // --bt: all frames down to main; --bt=N the innermost N; --past-main
        // needs --bt; `--bt f` keeps f a spec.
        let depth = |a: &[&str]| parse(&args(a)).map(|o| o.bt);
        assert_eq!(depth(&["f", "-p1"]).unwrap(), None);
        let all = Depth::default();
        assert_eq!(depth(&["--bt", "f", "-p1"]).unwrap(), Some(all));
        let o = parse(&args(&["--bt", "f", "-p1"])).unwrap();
        assert_eq!(o.specs.len(), 1);
        let ten = Depth {
            limit: Some(10),
            past_main: true,
        };
        assert_eq!(
            depth(&["--bt=10", "--past-main", "f", "-p1"]).unwrap(),
            Some(ten)
        );
        assert!(depth(&["--bt=0", "f", "-p1"]).is_err());
        assert!(depth(&["--past-main", "f", "-p1"]).is_err());
        // Hit limits and printed expressions.
        let o = parse(&args(&["--tbreak", "--ignore", "2", "f", "-p1"])).unwrap();
        assert_eq!((o.max_hits, o.ignore), (Some(1), 2));
        let o = parse(&args(&["--max-hits=5", "--print", "p->x", "f", "-p1"])).unwrap();
        assert_eq!((o.max_hits, o.ignore, o.prints.len()), (Some(5), 0, 1));
        assert!(parse(&args(&["--tbreak", "--max-hits", "2", "f", "-p1"])).is_err());
        assert!(parse(&args(&["--max-hits", "0", "f", "-p1"])).is_err());
        let bad = parse(&args(&["--print", "a +", "f", "-p1"])).unwrap_err();
        assert_eq!(bad.status(), 2);
        let o = parse(&args(&["f", "--backend=kernel", "-oout.txt", "-p7"])).unwrap();
        assert_eq!(o.backend, crate::probe::Backend::Kernel);
        assert_eq!(o.output, Some(OsString::from("out.txt")));
        assert_eq!(o.pids, vec![7]);
    }

    #[test]
    fn disasm_count() {
        let o = parse(&args(&["--disasm", "f", "--", "p"])).unwrap();
        assert_eq!(o.disasm, Some(5));
        let o = parse(&args(&["--disasm=3", "f", "--", "p"])).unwrap();
        assert_eq!(o.disasm, Some(3));
        assert!(parse(&args(&["--disasm=0", "f", "--", "p"])).is_err());
    }

    #[test]
    fn watches() {
        let o = parse(&args(&[
            "f", "--watch", "counter", "--watch", "*0x10:4", "-p", "3",
        ]))
        .unwrap();
        assert_eq!(o.watches.len(), 2);
        assert_eq!(o.watch_kind, Some(Kind::Write));
        let o = parse(&args(&["f", "--awatch", "s.x", "--", "p"])).unwrap();
        assert_eq!(o.watch_kind, Some(Kind::ReadWrite));
        let o = parse(&args(&["f", "--watch", "s.x", "--rw", "--", "p"])).unwrap();
        assert_eq!(o.watch_kind, Some(Kind::ReadWrite));
        assert!(parse(&args(&["f", "--rw", "--", "p"])).is_err());
        let mixed = parse(&args(&["f", "--watch", "a", "--awatch", "b", "--", "p"]));
        assert!(mixed.unwrap_err().to_string().contains("cannot be mixed"));
        assert!(parse(&args(&["f", "--watch"])).is_err());
        assert!(parse(&args(&["f", "--watch", "1bad", "--", "p"])).is_err());
        assert!(parse(&args(&["f", "--watch", "a", "-p", "1", "-p", "2"])).is_err());
        assert!(parse(&args(&["f", "--watch", "a", "-f", "--", "p"])).is_err());
    }
}
