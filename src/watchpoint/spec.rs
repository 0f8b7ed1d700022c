//! What to watch: expressions as typed, and the plan they resolve to (one
//! debug-register slot per watch).

use rtrace_arch::x86_debugreg::{self, Kind, Slot, SLOTS};
use std::fmt;

/// A watch expression as the user typed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A global variable (or, with `--exec`, a function).
    Symbol(String),
    /// A part of a global variable: `var.field`, `table[3]`, `p->x`
    /// (resolved through DWARF types).
    Path {
        /// The variable.
        var: String,
        /// The whole expression as typed.
        text: String,
    },
    /// `*ADDR[:LEN]`.
    Addr {
        /// Address in the tracee.
        addr: u64,
        /// Bytes; `None` means the default (8, or 1 for `--exec`).
        len: Option<u64>,
    },
}

fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '$' || x == ':')
}

impl Expr {
    /// Parses one expression.
    pub fn parse(s: &str) -> Result<Expr, String> {
        if let Some(rest) = s.strip_prefix('*') {
            let (a, l) = match rest.split_once(':') {
                Some((a, l)) => (a, Some(l)),
                None => (rest, None),
            };
            let addr = parse_num(a).ok_or_else(|| {
                format!("{s}: {a:?} is not an address (use hex with 0x, or decimal)")
            })?;
            let len = match l {
                None => None,
                Some(l) => {
                    let n = parse_num(l).ok_or_else(|| format!("{s}: {l:?} is not a length"))?;
                    if x86_debugreg::Len::from_bytes(n).is_none() {
                        return Err(format!(
                            "{s}: length {n} is not supported: a hardware watchpoint covers 1, 2, 4 or 8 bytes"
                        ));
                    }
                    Some(n)
                }
            };
            return Ok(Expr::Addr { addr, len });
        }
        let var_len = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == ':'))
            .unwrap_or(s.len());
        let var = &s[..var_len];
        if !is_ident(var) {
            return Err(format!(
                "{s:?} is not something to watch: give a variable name, var.field, \
                 var[N] or *ADDR[:LEN]"
            ));
        }
        let rest = &s[var_len..];
        if rest.is_empty() {
            return Ok(Expr::Symbol(var.to_string()));
        }
        if !(rest.starts_with('.') || rest.starts_with('[') || rest.starts_with("->")) {
            return Err(format!(
                "{s:?}: expected .field, ->field or [N] after '{var}'"
            ));
        }
        Ok(Expr::Path {
            var: var.to_string(),
            text: s.to_string(),
        })
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Symbol(s) => f.write_str(s),
            Expr::Path { text, .. } => f.write_str(text),
            Expr::Addr { addr, len: Some(l) } => write!(f, "*{addr:#x}:{l}"),
            Expr::Addr { addr, len: None } => write!(f, "*{addr:#x}"),
        }
    }
}

/// One planned watchpoint: a resolved range in one slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watch {
    /// 1-based number, in command-line order.
    pub id: usize,
    /// What the user typed.
    pub expr: Expr,
    /// Address in the tracee.
    pub addr: u64,
    /// Bytes watched.
    pub len: u64,
    /// Access that traps.
    pub kind: Kind,
    /// Its debug-register slot.
    pub slot: Slot,
}

/// Why a plan cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// More watches than slots.
    TooMany(usize),
    /// A range a slot cannot cover.
    Range(Expr, x86_debugreg::RangeError),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::TooMany(n) => write!(
                f,
                "{n} watchpoints asked for, but the CPU has only {SLOTS} debug address registers \
                 (DR0-DR3): watch at most {SLOTS} ranges at once"
            ),
            PlanError::Range(e, r) => write!(f, "cannot watch {e}: {r}"),
        }
    }
}

/// Assigns slots in order and checks each range (length and alignment).
/// `targets` are the resolved `(expr, addr, len)` of each expression.
pub fn plan(targets: &[(Expr, u64, u64)], kind: Kind) -> Result<Vec<Watch>, PlanError> {
    if targets.len() > SLOTS {
        return Err(PlanError::TooMany(targets.len()));
    }
    let mut out = Vec::new();
    for (i, (expr, addr, len)) in targets.iter().enumerate() {
        x86_debugreg::check_range(*addr, *len, kind)
            .map_err(|e| PlanError::Range(expr.clone(), e))?;
        out.push(Watch {
            id: i + 1,
            expr: expr.clone(),
            addr: *addr,
            len: *len,
            kind,
            slot: Slot::new(i).expect("checked count"),
        });
    }
    Ok(out)
}

/// How many expressions can ever be planned (checked before anything is
/// launched or resolved, so the error comes first).
pub fn check_count(n: usize) -> Result<(), PlanError> {
    if n > SLOTS {
        Err(PlanError::TooMany(n))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_expressions() {
        assert_eq!(
            Expr::parse("*0x10:4"),
            Ok(Expr::Addr {
                addr: 16,
                len: Some(4)
            })
        );
        assert_eq!(
            Expr::parse("*4096"),
            Ok(Expr::Addr {
                addr: 4096,
                len: None
            })
        );
        assert_eq!(Expr::parse("counter"), Ok(Expr::Symbol("counter".into())));
        assert_eq!(
            Expr::parse("cfg.limits.max"),
            Ok(Expr::Path {
                var: "cfg".into(),
                text: "cfg.limits.max".into()
            })
        );
        assert_eq!(
            Expr::parse("table[3]"),
            Ok(Expr::Path {
                var: "table".into(),
                text: "table[3]".into()
            })
        );
        assert!(Expr::parse("cfg+1").is_err());
        assert!(Expr::parse("*0x10:3").unwrap_err().contains("1, 2, 4 or 8"));
        assert!(Expr::parse("*zz").is_err());
        assert!(Expr::parse("1abc").is_err());
        assert_eq!(Expr::parse("*0x10:4").unwrap().to_string(), "*0x10:4");
    }

    #[test]
    fn plans_slots_and_checks_ranges() {
        let t = |a: u64, l: u64| {
            (
                Expr::Addr {
                    addr: a,
                    len: Some(l),
                },
                a,
                l,
            )
        };
        let p = plan(&[t(0x1000, 4), t(0x2000, 8)], Kind::Write).unwrap();
        assert_eq!(p[1].slot.index(), 1);
        assert_eq!(p[1].id, 2);
        let five: Vec<_> = (0..5).map(|i| t(0x1000 + 8 * i, 8)).collect();
        let e = plan(&five, Kind::Write).unwrap_err();
        assert_eq!(e, PlanError::TooMany(5));
        assert!(e.to_string().contains("only 4"));
        let e = plan(&[t(0x1002, 4)], Kind::Write).unwrap_err();
        assert!(e.to_string().contains("not aligned"), "{e}");
        assert!(plan(&[(Expr::Symbol("f".into()), 0x1003, 1)], Kind::Exec).is_ok());
    }
}
