//! The `rtrace watch` command line, declared for clap ([`WatchArgs`]) and
//! checked into [`Options`]; [`parse`] runs it on a slice so it is
//! unit-tested.

use super::spec::Spec;
use crate::probe::disasm;
use crate::unwind::backtrace::Depth;
use clap::Parser as _;
use rtrace_arch::x86_debugreg::Kind;
use std::ffi::OsString;
use std::path::PathBuf;

/// `rtrace watch --help` after the options.
pub const AFTER_HELP: &str = "\
Hardware watchpoints (x86 debug registers DR0-DR3): report every access to
up to four memory ranges, in every thread, with old and new values and the
accessing instruction. A range of 1, 2, 4 or 8 aligned bytes takes one
register; an object of another size (a struct, an array) is split into
aligned pieces of 1, 2, 4 or 8 bytes, one register each (32 aligned bytes
take all four), and a hit prints the whole object's old and new value.

EXPR:
  NAME            a global variable (address and size from the ELF symbol table,
                  value printed by its DWARF type when there is debug info);
                  one the program does not define is looked for in the shared
                  libraries it loads at start-up, once loaded (a launched
                  program is stopped at its entry point for that);
                  with --exec, a function
  NAME.FIELD, NAME[N], NAME.A[N].B
                  a member or element of a global (placed by DWARF)
  FUNC:VAR        a local (or parameter) of FUNC, watched in each call of FUNC
                  from its entry until it returns (then reported as out of
                  scope, as gdb's 'left the block'); alone, without 'if'
  *ADDR[:LEN]     LEN bytes at ADDR (hex with 0x, or decimal): 1, 2, 4 or 8
                  aligned, or more than 8 over several registers; default 8,
                  1 for --exec
  'EXPR if COND'  report a hit only when COND holds after the access (gdb's
                  'watch x if x > 5'); COND is the condition language of
                  'rtrace break SPEC if EXPR': global variables from DWARF
                  (x, cfg.limit, t[2], enumerator names), registers ($rax,
                  $pc, $sp, ...), literals, == != < <= > >= && || ! & | ^ + - ~.
                  Hits whose condition fails are neither printed nor counted,
                  but the value they wrote is the next hit's old value (as gdb)

Examples:
  rtrace watch counter -- ./prog
  rtrace watch 'counter if counter > 5' -- ./prog
  rtrace watch cfg.limit --rw --bt -p 1234
  rtrace watch table -- ./prog        (a 32-byte array: DR0-DR3)
  rtrace watch accumulate:total -- ./prog
  rtrace watch '*0x7ffd1000:4' --count --json -o hits.jsonl -p 1234
  rtrace watch compute --exec -- ./prog";

/// `rtrace watch`'s options as clap reads them.
#[derive(clap::Args, Debug, Default)]
#[command(after_help = AFTER_HELP)]
pub struct WatchArgs {
    /// What to watch (see EXPR below), each with an optional 'if COND';
    /// up to four.
    #[arg(value_name = "EXPR", required = true)]
    pub exprs: Vec<String>,
    /// Trap on writes (the default).
    #[arg(long, conflicts_with_all = ["rw", "exec"])]
    pub write: bool,
    /// Trap on reads and writes.
    #[arg(long, alias = "awatch", conflicts_with = "exec")]
    pub rw: bool,
    /// Trap when the instruction at the address executes.
    #[arg(long)]
    pub exec: bool,
    /// Only count hits; print a table at exit.
    #[arg(short = 'c', long)]
    pub count: bool,
    /// Print a backtrace per hit, as gdb's `bt` (down to main; all
    /// frames, or the innermost N with --bt=N).
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub bt: Option<Option<u32>>,
    /// With --bt, go on below main (__libc_start_call_main, _start), as gdb's
    /// 'set backtrace past-main on'.
    #[arg(long, requires = "bt")]
    pub past_main: bool,
    /// JSON Lines output.
    #[arg(long)]
    pub json: bool,
    /// Write the report to FILE (default: standard error).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Attach to a running process (all its threads).
    #[arg(short = 'p', long = "pid", value_name = "PID",
          value_parser = clap::value_parser!(i32).range(1..))]
    pub pid: Option<i32>,
    /// Print the N (default 5) instructions per hit, as gdb's `x/Ni $pc`.
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true,
          value_parser = disasm::parse_count)]
    pub disasm: Option<Option<usize>>,
    /// Do not run rtrace and the program on one CPU (by default every
    /// thread runs on rtrace's CPU, invisibly to the program: a hit then
    /// costs a context switch, not a cross-CPU wake-up).
    #[arg(long)]
    pub no_cpu_pin: bool,
    /// The command to run (after --).
    #[arg(value_name = "CMD", last = true)]
    pub command: Vec<OsString>,
}

/// `rtrace watch` alone, so [`parse`] can run clap on a slice.
#[derive(clap::Parser, Debug)]
#[command(name = "rtrace watch", no_binary_name = true)]
struct Alone {
    #[command(flatten)]
    args: WatchArgs,
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// What to watch, in command-line order.
    pub specs: Vec<Spec>,
    /// The access that traps.
    pub kind: Kind,
    /// Only count hits.
    pub count: bool,
    /// Backtrace per hit (`--bt[=N]`, `--past-main`).
    pub bt: Option<Depth>,
    /// JSON Lines.
    pub json: bool,
    /// Report file.
    pub output: Option<PathBuf>,
    /// Process to attach to.
    pub pid: Option<i32>,
    /// Command to launch.
    pub command: Vec<OsString>,
    /// `--disasm[=N]`: instructions to print per hit.
    pub disasm: Option<usize>,
    /// Run rtrace and the program on one CPU (not `--no-cpu-pin`).
    pub cpu_pin: bool,
}

/// A command-line mistake; the message says what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses the arguments after `watch`: clap, then [`WatchArgs::check`].
pub fn parse(args: &[OsString]) -> Result<Options, UsageError> {
    let a = Alone::try_parse_from(args).map_err(|e| UsageError(e.to_string()))?;
    a.args.check()
}

impl WatchArgs {
    /// What clap cannot check: the expressions' syntax and the target.
    pub fn check(self) -> Result<Options, UsageError> {
        let specs = self
            .exprs
            .iter()
            .map(|s| Spec::parse(s).map_err(UsageError))
            .collect::<Result<Vec<_>, _>>()?;
        let kind = match (self.rw, self.exec) {
            (true, _) => Kind::ReadWrite,
            (_, true) => Kind::Exec,
            _ => Kind::Write,
        };
        match (self.pid.is_some(), self.command.is_empty()) {
            (true, false) => {
                return Err(UsageError("give either -p PID or -- CMD, not both".into()))
            }
            (false, true) => return Err(UsageError("give -p PID or -- CMD to trace".into())),
            _ => {}
        }
        Ok(Options {
            specs,
            kind,
            count: self.count,
            bt: self.bt.map(|n| Depth {
                limit: n.map(|n| n as usize),
                past_main: self.past_main,
            }),
            json: self.json,
            output: self.output,
            disasm: self.disasm.map(|n| n.unwrap_or(disasm::DEFAULT_COUNT)),
            pid: self.pid,
            command: self.command,
            cpu_pin: !self.no_cpu_pin,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watchpoint::spec::Expr;

    fn args(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_a_launch() {
        let o = parse(&args(&["counter", "--rw", "--json", "--", "./prog", "-x"])).unwrap();
        assert_eq!(o.specs[0].expr, Expr::Symbol("counter".into()));
        assert_eq!(o.specs.len(), 1);
        let c = parse(&args(&["counter if counter > 5", "--", "./prog"])).unwrap();
        assert_eq!(c.specs[0].cond.as_ref().unwrap().text, "counter > 5");
        assert_eq!(o.kind, Kind::ReadWrite);
        assert!(o.json && !o.count && o.bt.is_none());
        assert_eq!(o.command, args(&["./prog", "-x"]));
    }

    #[test]
    fn disasm_count() {
        let o = parse(&args(&["v", "--disasm=2", "-p", "1"])).unwrap();
        assert_eq!(o.disasm, Some(2));
        let o = parse(&args(&["v", "--disasm", "-p", "1"])).unwrap();
        assert_eq!(o.disasm, Some(5));
        assert!(parse(&args(&["v", "--disasm=", "-p", "1"])).is_err());
        assert!(parse(&args(&["v", "--disasm=0", "-p", "1"])).is_err());
    }

    #[test]
    fn parses_an_attach() {
        let o = parse(&args(&["*0x1000:4", "--count", "-p", "42"])).unwrap();
        assert_eq!(
            o.specs[0].expr,
            Expr::Addr {
                addr: 0x1000,
                len: Some(4)
            }
        );
        assert_eq!(o.pid, Some(42));
        let o = parse(&args(&["*0x1000", "-p42", "--exec"])).unwrap();
        assert_eq!(o.pid, Some(42));
        assert_eq!(o.kind, Kind::Exec);
        let o = parse(&args(&["v", "--bt=3", "--past-main", "-p42"])).unwrap();
        let d = Depth {
            limit: Some(3),
            past_main: true,
        };
        assert_eq!(o.bt, Some(d));
        assert!(parse(&args(&["v", "--past-main", "-p42"])).is_err());
    }

    #[test]
    fn rejects_mistakes() {
        assert!(parse(&args(&["--", "x"])).is_err());
        assert!(parse(&args(&["v"])).is_err());
        assert!(parse(&args(&["v", "-p", "1", "--", "x"])).is_err());
        assert!(parse(&args(&["v", "--rw", "--exec", "-p", "1"])).is_err());
        assert!(parse(&args(&["v", "-p", "zero"])).is_err());
        assert!(parse(&args(&["v", "--frob", "-p", "1"])).is_err());
        assert!(parse(&args(&["*0x10:3", "-p", "1"])).is_err());
        assert!(parse(&args(&["v if v ==", "-p", "1"])).is_err());
        assert!(parse(&args(&["v", "--exec", "--write", "-p", "1"])).is_err());
        // The old spelling of --rw, and clap's -oFILE / --pid=N.
        let o = parse(&args(&["v", "--awatch", "-ohits", "--pid=3"])).unwrap();
        assert_eq!(o.kind, Kind::ReadWrite);
        assert_eq!(o.output, Some(PathBuf::from("hits")));
        assert_eq!(o.pid, Some(3));
    }
}
