//! ltrace's command line (0.7.3): getopt-style short options with
//! clustering (`-tt`, `-fS`), attached or separate values (`-s64`, `-s 64`),
//! the long options ltrace has, and its messages for bad values.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// Everything the command line asks for.
#[derive(Debug, Clone)]
pub struct Options {
    /// `-a COLUMN`: where ` = ` goes (ltrace's default 50).
    pub align: usize,
    /// `-A N`: most array elements printed.
    pub max_elts: Option<usize>,
    /// `-b`: no signal lines.
    pub no_signals: bool,
    /// `-c`: a summary table instead of calls.
    pub count: bool,
    /// `-C`: demangle C++ names.
    pub demangle: bool,
    /// `-D MASK` (octal): debugging messages.
    pub debug: u32,
    /// `-e` expressions, in order.
    pub e_filters: Vec<String>,
    /// `-f`: follow forks (and print `[pid N]`).
    pub follow: bool,
    /// `-F FILE`: prototype files.
    pub config_files: Vec<PathBuf>,
    /// `-h`.
    pub help: bool,
    /// `-i`: the caller's instruction pointer.
    pub ip: bool,
    /// `-l LIB`: functions implemented by these libraries.
    pub libs: Vec<String>,
    /// `-L`: no library calls (with `-x` or `-S`).
    pub no_plt: bool,
    /// `-n N`: indentation per nesting level.
    pub indent: usize,
    /// `-o FILE`.
    pub output: Option<PathBuf>,
    /// `-p PID`.
    pub pids: Vec<i32>,
    /// `-r`: time since the previous line.
    pub relative: bool,
    /// `-s N`: longest string printed.
    pub string_len: usize,
    /// `-S`: system calls too.
    pub syscalls: bool,
    /// `-t` count: 1 `HH:MM:SS`, 2 with microseconds, 3 epoch seconds.
    pub time: u8,
    /// `-T`: time spent in each call.
    pub time_in_call: bool,
    /// `-u USER`.
    pub user: Option<String>,
    /// `-V`.
    pub version: bool,
    /// `-w N`: frames of backtrace after each call.
    pub where_depth: usize,
    /// `-x` expressions.
    pub x_filters: Vec<String>,
    /// `--json`: one JSON object per call (and syscall) instead of text.
    pub json: bool,
    /// `--inject FUNC:retval=N[:error=E][:when=W]` rules, as given.
    pub injects: Vec<String>,
    /// `--no-cpu-pin`: never run the command on rltrace's CPU.
    pub no_cpu_pin: bool,
    /// `--backend auto|ptrace|kernel`: how calls are caught (see `crate::ltrace::uprobe`).
    pub backend: crate::probe::Backend,
    /// The command and its arguments.
    pub command: Vec<OsString>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            align: 50,
            max_elts: None,
            no_signals: false,
            count: false,
            demangle: false,
            debug: 0,
            e_filters: Vec::new(),
            follow: false,
            config_files: Vec::new(),
            help: false,
            ip: false,
            libs: Vec::new(),
            no_plt: false,
            indent: 0,
            output: None,
            pids: Vec::new(),
            relative: false,
            string_len: 32,
            syscalls: false,
            time: 0,
            time_in_call: false,
            user: None,
            version: false,
            where_depth: 0,
            x_filters: Vec::new(),
            json: false,
            injects: Vec::new(),
            no_cpu_pin: false,
            backend: crate::probe::Backend::Auto,
            command: Vec::new(),
        }
    }
}

/// `rltrace -h`.
pub const HELP: &str = "\
Usage: rltrace [option ...] [command [arg ...]]
Trace library calls of a given program.

  -a, --align=COLUMN  align return values in a specific column.
  -A MAXELTS          maximum number of array elements to print.
  -b, --no-signals    don't print signals.
  -c                  count time and calls, and report a summary on exit.
  -C, --demangle      decode low-level symbol names into user-level names.
  -D, --debug=MASK    enable debugging (see -Dh or --debug=help).
  -Dh, --debug=help   show help on debugging.
  -e FILTER           modify which library calls to trace.
  -f                  trace children (fork() and clone()).
  -F, --config=FILE   load alternate configuration file (may be repeated).
  -h, --help          display this help and exit.
  -i                  print instruction pointer at time of library call.
  -l, --library=LIBRARY_PATTERN only trace symbols implemented by this library.
  -L                  do NOT display library calls.
  -n, --indent=NR     indent output by NR spaces for each call level nesting.
  -o, --output=FILENAME write the trace output to file with given name.
  -p PID              attach to the process with the process ID pid.
  -r                  print relative timestamps.
  -s STRSIZE          specify the maximum string size to print.
  -S                  trace system calls as well as library calls.
  -t, -tt, -ttt       print absolute timestamps.
  -T                  show the time spent inside each call.
  -u USERNAME         run command with the userid, groupid of username.
  -V, --version       output version information and exit.
  -w, --where=NR      print backtrace showing NR stack frames at most.
  -x FILTER           modify which static functions to trace.

rltrace's own options:
  --json              one JSON object per call (and per syscall with -S).
  --inject=FUNC:retval=N[:error=ERRNO][:when=N|N+|N+S|N..M]
                      do not run FUNC: make it return N (may be repeated).
  --no-cpu-pin        do not run the command on rltrace's CPU.
  --backend=auto|ptrace|kernel
                      how calls are caught: ptrace breakpoints, or kernel
                      uprobes (the main program's PLT calls, integer and
                      string arguments; much faster). auto (the default)
                      takes the kernel where its output is the same and
                      ptrace otherwise; -D 1 says which ran and why.
";

/// `-D help`.
pub const DEBUG_HELP: &str = "\
rltrace debugging option, --debug=<octal> or -D<octal>:

 number  ref. in source   description
      1   general           Generally helpful progress information
     10   event             Shows every event received by a traced process
     20   process           Shows actions carried upon a traced processes
     40   function          Shows every entry to internal functions

Debugging options are mixed using bitwise-or.
";

/// Debug mask bits (`-D`).
pub mod debug {
    /// Progress information (what is placed where).
    pub const GENERAL: u32 = 0o1;
    /// Every event of a traced process.
    pub const EVENT: u32 = 0o10;
    /// Actions on traced processes.
    pub const PROCESS: u32 = 0o20;
}

/// What parsing asks the caller to do besides tracing.
#[derive(Debug)]
pub enum CliError {
    /// A usage error: the message, then "Try ... --help".
    Usage(String),
    /// A bad value: the message alone (ltrace's wording).
    Value(String),
    /// `-D help`: print [`DEBUG_HELP`] and exit 0.
    DebugHelp,
}

fn int_in(opt: char, v: &str, lo: i64, hi: Option<i64>) -> Result<i64, CliError> {
    let bad = || {
        CliError::Value(match hi {
            Some(h) => format!("Invalid argument to -{opt}: '{v}'.  Use integer {lo}..{h}."),
            None => format!("Invalid argument to -{opt}: '{v}'.  Use integer >={lo}."),
        })
    };
    let n: i64 = v.parse().map_err(|_| bad())?;
    if n < lo || hi.is_some_and(|h| n > h) {
        return Err(bad());
    }
    Ok(n)
}

const LONG: &[(&str, char, bool)] = &[
    ("align", 'a', true),
    ("demangle", 'C', false),
    ("debug", 'D', true),
    ("config", 'F', true),
    ("help", 'h', false),
    ("library", 'l', true),
    ("indent", 'n', true),
    ("output", 'o', true),
    ("version", 'V', false),
    ("where", 'w', true),
    ("no-signals", 'b', false),
    ("json", LONG_JSON, false),
    ("inject", LONG_INJECT, true),
    ("no-cpu-pin", LONG_NO_PIN, false),
    ("backend", LONG_BACKEND, true),
];

/// Pseudo option characters of rltrace's long-only options.
const LONG_JSON: char = '\u{1}';
const LONG_INJECT: char = '\u{2}';
const LONG_NO_PIN: char = '\u{3}';
const LONG_BACKEND: char = '\u{4}';

/// Short options and whether they take a value (ltrace's optstring); the
/// parser and the man page ([`super::man`]) read this table.
pub const SHORT: &[(char, bool)] = &[
    ('a', true),
    ('A', true),
    ('b', false),
    ('c', false),
    ('C', false),
    ('D', true),
    ('e', true),
    ('f', false),
    ('F', true),
    ('h', false),
    ('i', false),
    ('l', true),
    ('L', false),
    ('n', true),
    ('o', true),
    ('p', true),
    ('r', false),
    ('s', true),
    ('S', false),
    ('t', false),
    ('T', false),
    ('u', true),
    ('V', false),
    ('w', true),
    ('x', true),
];

/// Whether short option `c` takes a value (`None`: no such option).
fn takes_value(c: char) -> Option<bool> {
    SHORT.iter().find(|s| s.0 == c).map(|s| s.1)
}

/// Every long option: its name, the short option it stands for (`None`
/// for rltrace's long-only ones) and whether it takes a value.
pub fn long_options() -> impl Iterator<Item = (&'static str, Option<char>, bool)> {
    LONG.iter()
        .map(|&(n, c, v)| (n, SHORT.iter().any(|s| s.0 == c).then_some(c), v))
}

fn apply(o: &mut Options, c: char, v: Option<&str>) -> Result<(), CliError> {
    let v = v.unwrap_or("");
    match c {
        'a' => o.align = int_in('a', v, 0, None)? as usize,
        'A' => o.max_elts = Some(int_in('A', v, 0, None)? as usize),
        'b' => o.no_signals = true,
        'c' => o.count = true,
        'C' => o.demangle = true,
        'D' => {
            if v == "h" || v == "help" {
                return Err(CliError::DebugHelp);
            }
            o.debug = u32::from_str_radix(v, 8).map_err(|_| {
                CliError::Value(format!("Invalid argument to -D: '{v}'.  Use octal mask."))
            })?;
        }
        'e' => o.e_filters.push(v.to_string()),
        'f' => o.follow = true,
        'F' => o.config_files.push(PathBuf::from(v)),
        'h' => o.help = true,
        'i' => o.ip = true,
        'l' => o.libs.push(v.to_string()),
        'L' => o.no_plt = true,
        'n' => o.indent = int_in('n', v, 0, Some(20))? as usize,
        'o' => o.output = Some(PathBuf::from(v)),
        'p' => o.pids.push(int_in('p', v, 1, None)? as i32),
        'r' => o.relative = true,
        's' => o.string_len = int_in('s', v, 0, None)? as usize,
        'S' => o.syscalls = true,
        't' => o.time = (o.time + 1).min(3),
        'T' => o.time_in_call = true,
        'u' => o.user = Some(v.to_string()),
        'V' => o.version = true,
        'w' => o.where_depth = int_in('w', v, 1, None)? as usize,
        'x' => o.x_filters.push(v.to_string()),
        LONG_JSON => o.json = true,
        LONG_INJECT => o.injects.push(v.to_string()),
        LONG_NO_PIN => o.no_cpu_pin = true,
        LONG_BACKEND => {
            o.backend = crate::probe::Backend::parse(v)
                .map_err(|m| CliError::Value(format!("rltrace: {m}")))?
        }
        _ => return Err(CliError::Usage(format!("invalid option -- '{c}'"))),
    }
    Ok(())
}

fn utf8(a: &OsStr) -> Result<&str, CliError> {
    a.to_str()
        .ok_or_else(|| CliError::Usage(format!("invalid argument {a:?}")))
}

/// Parses the arguments after the program name.
pub fn parse(args: &[OsString]) -> Result<Options, CliError> {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let bytes = a.as_encoded_bytes();
        if bytes == b"--" {
            i += 1;
            break;
        }
        if bytes.len() < 2 || bytes[0] != b'-' {
            break;
        }
        let s = utf8(a)?;
        if let Some(long) = s.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let hits: Vec<_> = LONG
                .iter()
                .filter(|(n, _, _)| n.starts_with(name))
                .collect();
            let &(_, c, needs) = match hits.iter().find(|(n, _, _)| *n == name) {
                Some(h) => *h,
                None if hits.len() == 1 => hits[0],
                None if hits.is_empty() => {
                    return Err(CliError::Usage(format!("unrecognized option '--{name}'")))
                }
                None => return Err(CliError::Usage(format!("option '--{name}' is ambiguous"))),
            };
            let val = if needs {
                match val {
                    Some(v) => Some(v),
                    None => {
                        i += 1;
                        let v = args.get(i).ok_or_else(|| {
                            CliError::Usage(format!("option '--{name}' requires an argument"))
                        })?;
                        Some(utf8(v)?.to_string())
                    }
                }
            } else if val.is_some() {
                return Err(CliError::Usage(format!(
                    "option '--{name}' doesn't allow an argument"
                )));
            } else {
                None
            };
            apply(&mut o, c, val.as_deref())?;
            i += 1;
            continue;
        }
        let chars: Vec<char> = s[1..].chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            match takes_value(c) {
                None => return Err(CliError::Usage(format!("invalid option -- '{c}'"))),
                Some(false) => apply(&mut o, c, None)?,
                Some(true) => {
                    let rest: String = chars[j + 1..].iter().collect();
                    let v = if !rest.is_empty() {
                        rest
                    } else {
                        i += 1;
                        let v = args.get(i).ok_or_else(|| {
                            CliError::Usage(format!("option requires an argument -- '{c}'"))
                        })?;
                        utf8(v)?.to_string()
                    };
                    apply(&mut o, c, Some(&v))?;
                    break;
                }
            }
            j += 1;
        }
        i += 1;
    }
    o.command = args[i.min(args.len())..].to_vec();
    if !o.help && !o.version && o.command.is_empty() && o.pids.is_empty() {
        return Err(CliError::Usage("too few arguments".into()));
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &[&str]) -> Result<Options, CliError> {
        parse(&v.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn clusters_values_and_command() {
        let o = p(&[
            "-fStt", "-s64", "-e", "malloc", "-n", "2", "prog", "-x", "y",
        ])
        .unwrap();
        assert!(o.follow && o.syscalls);
        assert_eq!(o.time, 2);
        assert_eq!(o.string_len, 64);
        assert_eq!(o.e_filters, ["malloc"]);
        assert_eq!(o.indent, 2);
        assert_eq!(o.command, ["prog", "-x", "y"]);
        assert!(
            o.x_filters.is_empty(),
            "options after the command are its own"
        );
        let o = p(&["--output=f", "--lib", "libc.so.6", "--demangle", "true"]).unwrap();
        assert_eq!(o.output.as_deref(), Some(std::path::Path::new("f")));
        assert_eq!(o.libs, ["libc.so.6"]);
        assert!(o.demangle);
    }

    #[test]
    fn ltrace_messages_for_bad_values() {
        let msg = |v: &[&str]| match p(v) {
            Err(CliError::Value(m)) | Err(CliError::Usage(m)) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            msg(&["-s", "abc", "true"]),
            "Invalid argument to -s: 'abc'.  Use integer >=0."
        );
        assert_eq!(
            msg(&["-n", "x", "true"]),
            "Invalid argument to -n: 'x'.  Use integer 0..20."
        );
        assert_eq!(
            msg(&["-p", "abc"]),
            "Invalid argument to -p: 'abc'.  Use integer >=1."
        );
        assert_eq!(msg(&["-z", "true"]), "invalid option -- 'z'");
        assert_eq!(msg(&[]), "too few arguments");
        assert!(matches!(p(&["-Dh"]), Err(CliError::DebugHelp)));
        assert_eq!(p(&["-D", "17", "true"]).unwrap().debug, 0o17);
        use crate::probe::Backend;
        assert_eq!(p(&["true"]).unwrap().backend, Backend::Auto);
        assert_eq!(
            p(&["--backend=kernel", "-c", "true"]).unwrap().backend,
            Backend::Kernel
        );
        assert_eq!(
            p(&["--backend", "ptrace", "true"]).unwrap().backend,
            Backend::Ptrace
        );
        assert_eq!(
            msg(&["--backend=bpf", "true"]),
            "rltrace: --backend: 'bpf' is not one of auto, ptrace, kernel"
        );
    }
}
