//! Breakpoint specs as users write them, parsed into a [`Spec`].
//!
//! | spec | meaning |
//! |---|---|
//! | `*0x401136` | an absolute address |
//! | `main`, `'str*'` | a function (or every function matching a glob) in any module |
//! | `libc.so.6:getpid` | a function in the named library only |
//! | `prog.c:42` | the addresses of a source line |
//! | `ret:fib` | a return probe (any of the above after `ret:`) |
//! | `SPEC if EXPR` | only when [`crate::probe::cond`] `EXPR` is true |

use crate::probe::cond::{self, Expr};
use rtrace_arch::x86_64::reg_index;

/// Entry or return probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Fires when the location is reached.
    Entry,
    /// Fires when the function returns (`ret:`).
    Return,
}

/// Where a probe goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// `*ADDR`.
    Addr(u64),
    /// A function name or glob, optionally limited to one library.
    Func {
        /// Library (file name or path), if given.
        lib: Option<String>,
        /// Name or glob.
        name: String,
    },
    /// `file:line`.
    Line {
        /// Source file as written.
        file: String,
        /// Line number.
        line: u32,
    },
}

impl Location {
    /// Whether the name is a glob pattern.
    pub fn is_glob(&self) -> bool {
        matches!(self, Location::Func { name, .. } if name.contains(['*', '?', '[']))
    }
}

/// One parsed spec.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The text as given (for messages and the `--count` table).
    pub text: String,
    /// Entry or return.
    pub kind: Kind,
    /// Where.
    pub loc: Location,
    /// Condition.
    pub cond: Option<Expr>,
}

fn parse_addr(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Whether `s` names a library rather than a C++ scope (`ns::f`).
fn looks_like_lib(s: &str) -> bool {
    s.contains(".so") || s.contains('/') || s.ends_with(".a")
}

/// Where the word `if` starts in `text`: after white space and followed
/// by white space or the end (`bump if` has an empty condition, it is not a
/// function named `bump if`). Also splits `rtrace watch 'EXPR if COND'`.
pub(crate) fn if_word(text: &str) -> Option<usize> {
    text.match_indices("if").map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + 2..].chars().next();
        before.is_some_and(char::is_whitespace) && after.is_none_or(char::is_whitespace)
    })
}

/// Refuses `$` names and variables the probe can never read: an unknown
/// register, `$retval` at an entry, a program variable at a `ret:` probe
/// (whose condition is evaluated with the registers only).
fn check_names(text: &str, kind: Kind, e: &Expr) -> Result<(), String> {
    for leaf in e.names() {
        match leaf {
            Expr::Reg(r) if r == "retval" && kind == Kind::Entry => {
                return Err(format!(
                    "'{text}': $retval is only known at a return probe (ret:)"
                ))
            }
            Expr::Reg(r)
                if r == "retval"
                    || r.strip_prefix("arg")
                        .and_then(|n| n.parse::<usize>().ok())
                        .is_some_and(|n| (1..=6).contains(&n))
                    || reg_index(r).is_some() => {}
            Expr::Reg(r) => {
                return Err(format!(
                    "'{text}': unknown register ${r} (registers, $arg1..$arg6 or $retval)"
                ))
            }
            Expr::Var(v) if kind == Kind::Return => {
                return Err(format!(
                    "'{text}': a return probe's condition reads registers, $argN and \
                     $retval, not program variables ('{v}')"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Parses one spec (`SPEC` or `SPEC if EXPR`).
pub fn parse(text: &str) -> Result<Spec, String> {
    let text = text.trim();
    let (loc_text, cond) = match if_word(text) {
        Some(i) => {
            let e = text[i + 2..].trim();
            if e.is_empty() {
                return Err(format!("'{text}': empty condition after 'if'"));
            }
            let expr = cond::parse(e).map_err(|err| format!("'{text}': condition '{e}': {err}"))?;
            (text[..i].trim(), Some(expr))
        }
        None => (text, None),
    };
    let (kind, rest) = match loc_text.strip_prefix("ret:") {
        Some(r) => (Kind::Return, r),
        None => (Kind::Entry, loc_text),
    };
    if rest.is_empty() {
        return Err(format!("empty breakpoint spec '{text}'"));
    }
    let loc = if let Some(a) = rest.strip_prefix('*') {
        Location::Addr(parse_addr(a).ok_or_else(|| format!("bad address '{a}'"))?)
    } else if let Some((file, line)) = rest
        .rsplit_once(':')
        .filter(|(f, l)| !f.is_empty() && !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
    {
        let line = line
            .parse()
            .map_err(|_| format!("bad line number in '{rest}'"))?;
        Location::Line {
            file: file.to_string(),
            line,
        }
    } else if let Some((lib, name)) = rest
        .split_once(':')
        .filter(|(l, n)| looks_like_lib(l) && !n.is_empty() && !n.starts_with(':'))
    {
        Location::Func {
            lib: Some(lib.to_string()),
            name: name.to_string(),
        }
    } else {
        Location::Func {
            lib: None,
            name: rest.to_string(),
        }
    };
    if let Some(e) = &cond {
        check_names(text, kind, e)?;
    }
    if kind == Kind::Return && matches!(loc, Location::Line { .. }) {
        return Err(format!(
            "'{text}': a return probe needs a function entry, not a source line"
        ));
    }
    Ok(Spec {
        text: text.to_string(),
        kind,
        loc,
        cond,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(s: &str) -> Location {
        parse(s).unwrap().loc
    }

    #[test]
    fn forms() {
        assert_eq!(loc("*0x401136"), Location::Addr(0x401136));
        assert_eq!(
            loc("main"),
            Location::Func {
                lib: None,
                name: "main".into()
            }
        );
        assert_eq!(
            loc("libc.so.6:getpid"),
            Location::Func {
                lib: Some("libc.so.6".into()),
                name: "getpid".into()
            }
        );
        assert_eq!(
            loc("ns::f"),
            Location::Func {
                lib: None,
                name: "ns::f".into()
            }
        );
        assert_eq!(
            loc("bp_threads.c:12"),
            Location::Line {
                file: "bp_threads.c".into(),
                line: 12
            }
        );
        let s = parse("ret:fib if $rdi == 3").unwrap();
        assert_eq!(s.kind, Kind::Return);
        assert!(s.cond.is_some());
        assert!(parse("str*").unwrap().loc.is_glob());
    }

    #[test]
    fn bad_specs() {
        assert!(parse("*0xzz").is_err());
        assert!(parse("ret:").is_err());
        assert!(parse("ret:a.c:3").is_err());
        assert!(parse("f if $rdi =").is_err());
        // An empty condition is not part of the function's name.
        assert!(parse("bump if").unwrap_err().contains("empty condition"));
        assert!(parse("bump if  ").is_err());
        assert!(parse("f if $nosuchreg > 1")
            .unwrap_err()
            .contains("$nosuchreg"));
        assert!(parse("f if $retval > 1").is_err());
        assert!(parse("ret:f if n > 1").unwrap_err().contains("'n'"));
        assert!(parse("ret:f if $retval > 1 && $arg2 == 0").is_ok());
        // `if` inside a name is a name.
        assert_eq!(
            loc("elif_branch"),
            Location::Func {
                lib: None,
                name: "elif_branch".into()
            }
        );
        assert_eq!(
            parse("diff if x").unwrap().cond,
            Some(Expr::Var("x".into()))
        );
    }
}
