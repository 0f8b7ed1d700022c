//! The `rtrace watch` command line, parsed from a slice so it is unit-tested.
//!
//! ```text
//! rtrace watch EXPR... [--write|--rw|--exec] [--count] [--bt] [--json]
//!              [-o FILE] [-p PID | -- CMD...]
//! ```

use super::spec::Expr;
use crate::probe::disasm;
use rtrace_arch::x86_debugreg::Kind;
use std::ffi::OsString;
use std::path::PathBuf;

/// Help text.
pub const HELP: &str = "\
usage: rtrace watch EXPR... [options] [-p PID | -- CMD...]

Hardware watchpoints (x86 debug registers DR0-DR3): report every access to
up to four memory ranges, in every thread, with old and new values and the
accessing instruction.

EXPR:
  NAME            a global variable (address and size from the ELF symbol table,
                  value printed by its DWARF type when there is debug info);
                  with --exec, a function
  NAME.FIELD, NAME[N], NAME.A[N].B
                  a member or element of a global (placed by DWARF)
  *ADDR[:LEN]     LEN bytes (1, 2, 4 or 8; default 8, 1 for --exec) at ADDR
                  (hex with 0x, or decimal)

options:
  --write         trap on writes (default)
  --rw            trap on reads and writes
  --exec          trap when the instruction at the address executes
  --count         only count hits; print a table at exit
  --bt            print a backtrace per hit
  --disasm[=N]    print N (default 5) instructions per hit, as gdb's 'x/Ni'
                  prints them, from the accessing instruction (the '=>' line
                  is the pc: after it, for data watches)
  --json          JSON Lines output
  -o FILE         write the report to FILE (default: standard error)
  -p PID          attach to a running process (all its threads)
  -h, --help      this help
";

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The expressions to watch, in slot order.
    pub exprs: Vec<Expr>,
    /// The access that traps.
    pub kind: Kind,
    /// Only count hits.
    pub count: bool,
    /// Backtrace per hit.
    pub bt: bool,
    /// JSON Lines.
    pub json: bool,
    /// Report file.
    pub output: Option<PathBuf>,
    /// Process to attach to.
    pub pid: Option<i32>,
    /// Command to launch.
    pub command: Vec<OsString>,
    /// `-h`.
    pub help: bool,
    /// `--disasm[=N]`: instructions to print per hit.
    pub disasm: Option<usize>,
}

/// A command-line mistake; the message says what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, UsageError> {
    Err(UsageError(msg.into()))
}

/// Parses the arguments after `watch`.
pub fn parse(args: &[OsString]) -> Result<Options, UsageError> {
    let mut o = Options {
        exprs: Vec::new(),
        kind: Kind::Write,
        count: false,
        bt: false,
        json: false,
        output: None,
        pid: None,
        command: Vec::new(),
        help: false,
        disasm: None,
    };
    let mut kind_flag: Option<&str> = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let Some(s) = a.to_str() else {
            return err(format!("argument {a:?} is not valid UTF-8"));
        };
        i += 1;
        let mut value = |name: &str| -> Result<&OsString, UsageError> {
            let v = args.get(i);
            i += 1;
            v.map_or_else(|| err(format!("option {name} needs a value")), Ok)
        };
        match s {
            "--" => {
                o.command = args[i..].to_vec();
                break;
            }
            "-h" | "--help" => o.help = true,
            "--write" | "--rw" | "--exec" => {
                if let Some(prev) = kind_flag.filter(|p| *p != s) {
                    return err(format!("{prev} and {s} exclude each other"));
                }
                kind_flag = Some(match s {
                    "--write" => "--write",
                    "--rw" => "--rw",
                    _ => "--exec",
                });
                o.kind = match s {
                    "--write" => Kind::Write,
                    "--rw" => Kind::ReadWrite,
                    _ => Kind::Exec,
                };
            }
            "--count" => o.count = true,
            "--bt" => o.bt = true,
            "--disasm" => o.disasm = Some(disasm::DEFAULT_COUNT),
            _ if s.starts_with("--disasm=") => {
                o.disasm = Some(disasm::parse_count(&s[9..]).map_err(UsageError)?)
            }
            "--json" => o.json = true,
            "-o" => o.output = Some(PathBuf::from(value("-o")?)),
            "-p" => {
                let v = value("-p")?;
                let pid = v
                    .to_str()
                    .and_then(|v| v.parse::<i32>().ok())
                    .filter(|p| *p > 0);
                match pid {
                    Some(p) => o.pid = Some(p),
                    None => return err(format!("-p needs a process id, not {v:?}")),
                }
            }
            _ if s.starts_with("-p") && s.len() > 2 => match s[2..].parse::<i32>() {
                Ok(p) if p > 0 => o.pid = Some(p),
                _ => return err(format!("-p needs a process id, not {:?}", &s[2..])),
            },
            _ if s.starts_with('-') && s.len() > 1 => {
                return err(format!("unknown option {s} (see rtrace watch -h)"))
            }
            _ => o.exprs.push(Expr::parse(s).map_err(UsageError)?),
        }
    }
    if o.help {
        return Ok(o);
    }
    if o.exprs.is_empty() {
        return err("nothing to watch: give EXPR or *ADDR[:LEN] (see rtrace watch -h)");
    }
    match (o.pid.is_some(), o.command.is_empty()) {
        (true, false) => return err("give either -p PID or -- CMD, not both"),
        (false, true) => return err("give -p PID or -- CMD to trace"),
        _ => {}
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_a_launch() {
        let o = parse(&args(&["counter", "--rw", "--json", "--", "./prog", "-x"])).unwrap();
        assert_eq!(o.exprs, vec![Expr::Symbol("counter".into())]);
        assert_eq!(o.kind, Kind::ReadWrite);
        assert!(o.json && !o.count && !o.bt);
        assert_eq!(o.command, args(&["./prog", "-x"]));
    }

    #[test]
    fn parses_an_attach() {
        let o = parse(&args(&["*0x1000:4", "--count", "-p", "42"])).unwrap();
        assert_eq!(
            o.exprs,
            vec![Expr::Addr {
                addr: 0x1000,
                len: Some(4)
            }]
        );
        assert_eq!(o.pid, Some(42));
        let o = parse(&args(&["*0x1000", "-p42", "--exec"])).unwrap();
        assert_eq!(o.pid, Some(42));
        assert_eq!(o.kind, Kind::Exec);
        let o = parse(&args(&["v", "--disasm=2", "-p", "1"])).unwrap();
        assert_eq!(o.disasm, Some(2));
        let o = parse(&args(&["v", "--disasm", "-p", "1"])).unwrap();
        assert_eq!(o.disasm, Some(5));
        assert!(parse(&args(&["v", "--disasm=", "-p", "1"])).is_err());
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
        assert!(parse(&args(&["-h"])).unwrap().help);
    }
}
