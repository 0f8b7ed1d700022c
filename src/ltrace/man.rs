//! rltrace(1): the man page, from the option tables the getopt parser reads
//! ([`super::cli::SHORT`], [`super::cli::long_options`]); only the words
//! are written here.

use super::cli::{long_options, SHORT};
use crate::output::roff::{self, Opt};

/// A short option's value name and description.
fn short(c: char) -> (&'static str, &'static str) {
    match c {
        'a' => ("COLUMN", "align return values at COLUMN"),
        'A' => ("MAXELTS", "print at most MAXELTS array elements"),
        'b' => ("", "do not print signals"),
        'c' => ("", "count time and calls; print a summary at exit"),
        'C' => ("", "demangle C++ symbol names"),
        'D' => (
            "MASK",
            "debugging output (octal MASK; -Dh or --debug=help lists the bits)",
        ),
        'e' => (
            "FILTER",
            "which library calls to trace (ltrace's filter syntax: [+-]SYM[@LIB],...)",
        ),
        'f' => ("", "trace children (fork and clone)"),
        'F' => ("FILE", "load a prototype configuration file (repeatable)"),
        'h' => ("", "print the help and exit"),
        'i' => ("", "print the instruction pointer at each call"),
        'l' => (
            "LIBRARY_PATTERN",
            "only trace the symbols of the libraries matching the pattern",
        ),
        'L' => ("", "do not trace library calls (with -S: syscalls only)"),
        'n' => ("NR", "indent the output by NR spaces per nesting level"),
        'o' => ("FILENAME", "write the trace to FILENAME"),
        'p' => ("PID", "attach to process PID"),
        'r' => ("", "print relative timestamps"),
        's' => ("STRSIZE", "print at most STRSIZE characters of strings"),
        'S' => ("", "trace system calls as well as library calls"),
        't' => ("", "print absolute timestamps (-tt, -ttt: finer)"),
        'T' => ("", "print the time spent inside each call"),
        'u' => ("USERNAME", "run the command as USERNAME"),
        'V' => ("", "print the version and exit"),
        'w' => ("NR", "print a backtrace of at most NR frames at each call"),
        'x' => ("FILTER", "which static (non-PLT) functions to trace"),
        _ => ("", ""),
    }
}

/// A long-only option's value name and description.
fn long_only(name: &str) -> (&'static str, &'static str) {
    match name {
        "json" => ("", "one JSON object per call (and per syscall with -S)"),
        "inject" => (
            "FUNC:retval=N[:error=ERRNO][:when=N|N+|N+S|N..M]",
            "do not run FUNC: make it return N (repeatable)",
        ),
        "no-cpu-pin" => ("", "do not run the command on rltrace's CPU"),
        "backend" => (
            "auto|ptrace|kernel",
            "how calls are caught: ptrace breakpoints, or kernel uprobes (the main program's PLT \
             calls; much faster); auto takes the kernel where its output is the same",
        ),
        _ => ("", ""),
    }
}

fn value(v: &str) -> Option<String> {
    (!v.is_empty()).then(|| v.to_string())
}

/// The options: each short one with its long names, then the long-only ones.
pub fn options() -> Vec<Opt> {
    let longs: Vec<_> = long_options().collect();
    let mut shorts: Vec<(char, bool)> = SHORT.to_vec();
    shorts.sort_by_key(|s| (s.0.to_ascii_lowercase(), s.0.is_ascii_uppercase()));
    let mut out: Vec<Opt> = shorts
        .iter()
        .map(|&(c, _)| {
            let (v, help) = short(c);
            Opt {
                short: Some(c),
                long: longs
                    .iter()
                    .filter(|l| l.1 == Some(c))
                    .map(|l| l.0)
                    .collect(),
                value: value(v),
                help: help.to_string(),
            }
        })
        .collect();
    for &(name, _, _) in longs.iter().filter(|l| l.1.is_none()) {
        let (v, help) = long_only(name);
        out.push(Opt {
            short: None,
            long: vec![name],
            value: value(v),
            help: help.to_string(),
        });
    }
    out
}

/// rltrace(1) in roff.
pub fn page() -> String {
    roff::page(
        "rltrace",
        env!("CARGO_PKG_VERSION"),
        "trace library calls (ltrace-compatible)",
        "rltrace [option ...] [command [arg ...]]",
        "rltrace runs the command (or attaches to -p PID) and prints each call it makes into \
         its shared libraries, with arguments decoded from prototypes and DWARF and the return \
         value, as ltrace(1) does: the same options (clustered short options, long options and \
         their unique prefixes) and the same output. rtrace ltrace is the same program.",
        &options(),
        &[("See also", "rstrace(1), rtrace(1), ltrace(1)")],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_option_is_described() {
        for o in options() {
            assert!(!o.help.is_empty(), "{o:?}");
        }
        let p = page();
        for (c, _) in SHORT {
            assert!(p.contains(&format!("\\fB\\-{c}\\fR")), "-{c}");
        }
        for (name, _, _) in long_options() {
            assert!(
                p.contains(&format!("\\fB\\-\\-{}\\fR", roff::escape(name))),
                "--{name}"
            );
        }
    }
}
