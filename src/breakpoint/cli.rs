//! `rtrace break` command line: parsed from a slice of arguments, so it is
//! unit-tested without a process.

use crate::probe::disasm;
use crate::probe::spec::{self, Spec};
use crate::watchpoint::spec::Expr as WatchExpr;
use rtrace_arch::x86_debugreg::Kind;
use std::ffi::OsString;

/// Usage text.
pub const HELP: &str = "\
usage: rtrace break SPEC... [options] [-p PID | -- CMD [ARG...]]

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

options:
  --count         only count hits; print a table at exit
  --bt            print a backtrace at each hit
  --regs          print the registers at each hit
  --locals        print the local variables visible at each hit
  --disasm[=N]    print the N (default 5) instructions at each hit, as gdb's
                  'x/Ni $pc' prints them
  --json          JSON Lines output
  -o FILE         write the output to FILE (default: standard error)
  -f              keep breakpoints in forked children (default: remove them and let go)
  -p PID          attach to a running process (detach on Ctrl-C restores its code)
  --watch EXPR    also a hardware watchpoint on writes to EXPR (a global, var.field,
                  var[N] or *ADDR[:LEN], as in 'rtrace watch'); up to four
  --awatch EXPR   the same on reads and writes (one kind per session)
  --backend B     how --count counts: ptrace (INT3 stops), kernel (uprobe events
                  counted by perf: functions, globs and ret: probes, without
                  conditions, in a launched program and the libraries it loads
                  at start-up), auto (kernel when it can do what is asked, else
                  ptrace; the default)
  --list          print the addresses each SPEC resolves to and exit, without
                  running the program (file addresses, as nm prints them; the
                  running process's with -p)
  -D              print the same, then run
  -h, --help      this text

A SPEC that cannot match (no such function, line or library function; a
condition's variable that the function does not have; a malformed
condition) is refused before the program starts or -p attaches: exit
status 2. A SPEC that may match later is 'pending' and tracing goes on:
'lib:func' while lib is not loaded, or any name when the program or its
libraries call dlopen or run other programs (exec, system, posix_spawn).
A glob selects functions, not their PLT stubs ('f@plt'); name those with
@plt ('f@plt', '*@plt').
";

/// Why a command line was refused.
#[derive(Debug)]
pub enum Error {
    /// Not a valid command line (exit status 1).
    Usage(String),
    /// A spec that can never work (exit status 2).
    Spec(String),
}

impl Error {
    /// The exit status it ends `rtrace break` with.
    pub fn status(&self) -> i32 {
        match self {
            Error::Usage(_) => 1,
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
    /// `--bt`.
    pub bt: bool,
    /// `--regs`.
    pub regs: bool,
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
    /// The command after `--`.
    pub command: Vec<OsString>,
    /// `-h`.
    pub help: bool,
    /// `--watch`/`--awatch` expressions.
    pub watches: Vec<WatchExpr>,
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

/// Parses `args` (without the program and subcommand names).
pub fn parse(args: &[OsString]) -> Result<Options, Error> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let s = a
            .to_str()
            .ok_or_else(|| "arguments must be UTF-8".to_string())?;
        match s {
            "--" => {
                o.command = it.cloned().collect();
                break;
            }
            "--count" | "-c" => o.count = true,
            "--bt" => o.bt = true,
            "--regs" => o.regs = true,
            "--locals" => o.locals = true,
            "--disasm" => o.disasm = Some(disasm::DEFAULT_COUNT),
            _ if s.starts_with("--disasm=") => o.disasm = Some(disasm::parse_count(&s[9..])?),
            "--json" => o.json = true,
            "-f" => o.follow = true,
            "--list" => o.list = true,
            "-D" => o.describe = true,
            "-h" | "--help" => o.help = true,
            "--watch" | "--awatch" => {
                let kind = if s == "--watch" {
                    Kind::Write
                } else {
                    Kind::ReadWrite
                };
                if o.watch_kind.is_some_and(|k| k != kind) {
                    return Err(
                        "--watch and --awatch cannot be mixed: one session watches for one \
                         kind of access"
                            .into(),
                    );
                }
                o.watch_kind = Some(kind);
                let e = it
                    .next()
                    .and_then(|e| e.to_str())
                    .ok_or_else(|| format!("{s} needs an expression"))?;
                o.watches.push(WatchExpr::parse(e)?);
            }
            "--backend" => {
                let b = it
                    .next()
                    .and_then(|b| b.to_str())
                    .ok_or("--backend needs auto, ptrace or kernel")?;
                o.backend = crate::probe::Backend::parse(b)?;
            }
            "-o" => o.output = Some(it.next().ok_or("-o needs a file name")?.clone()),
            "-p" => {
                let p = it.next().and_then(|p| p.to_str()).ok_or("-p needs a PID")?;
                o.pids
                    .push(p.parse().map_err(|_| format!("bad PID '{p}'"))?);
            }
            _ if s.starts_with("-p") && s.len() > 2 => {
                o.pids.push(
                    s[2..]
                        .parse()
                        .map_err(|_| format!("bad PID '{}'", &s[2..]))?,
                );
            }
            _ if s.starts_with('-') && !s.starts_with("-0") => {
                return Err(format!("unknown option '{s}'").into());
            }
            _ => o.specs.push(spec::parse(s).map_err(Error::Spec)?),
        }
    }
    if o.help {
        return Ok(o);
    }
    if o.specs.is_empty() {
        return Err("no breakpoint given".into());
    }
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
        let o = parse(&args(&["--disasm", "f", "--", "p"])).unwrap();
        assert_eq!(o.disasm, Some(5));
        let o = parse(&args(&["--disasm=3", "f", "--", "p"])).unwrap();
        assert_eq!(o.disasm, Some(3));
        assert!(parse(&args(&["--disasm=0", "f", "--", "p"])).is_err());
        // A bad spec is refused with status 2, a bad option with 1.
        assert_eq!(
            parse(&args(&["bump if", "--", "p"])).unwrap_err().status(),
            2
        );
        assert_eq!(parse(&args(&["f", "--bogus"])).unwrap_err().status(), 1);
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
        let mixed = parse(&args(&["f", "--watch", "a", "--awatch", "b", "--", "p"]));
        assert!(mixed.unwrap_err().to_string().contains("cannot be mixed"));
        assert!(parse(&args(&["f", "--watch"])).is_err());
        assert!(parse(&args(&["f", "--watch", "1bad", "--", "p"])).is_err());
        assert!(parse(&args(&["f", "--watch", "a", "-p", "1", "-p", "2"])).is_err());
        assert!(parse(&args(&["f", "--watch", "a", "-f", "--", "p"])).is_err());
    }
}
