//! What to watch: expressions as typed (with their `if` conditions), and
//! the plan they resolve to (one debug-register slot per watch, or several
//! aligned pieces for a range wider than 8 bytes).

use crate::probe::cond::{self, Expr as CondExpr};
use rtrace_arch::x86_debugreg::{self, Kind, Slot, SLOTS};
use std::fmt;

/// One watch as typed: `EXPR` or `EXPR if COND` (gdb's `watch x if x > 5`,
/// the spelling of `rtrace break SPEC if EXPR`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// What to watch.
    pub expr: Expr,
    /// Report a hit only when this holds after the access.
    pub cond: Option<Cond>,
}

/// A watch's condition: parsed, and as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond {
    /// The expression ([`crate::probe::cond`], the language of `rtrace
    /// break`).
    pub expr: CondExpr,
    /// As typed.
    pub text: String,
}

impl Spec {
    /// Parses `EXPR` or `EXPR if COND`.
    pub fn parse(s: &str) -> Result<Spec, String> {
        let s = s.trim();
        let Some(i) = crate::probe::spec::if_word(s) else {
            return Ok(Spec {
                expr: Expr::parse(s)?,
                cond: None,
            });
        };
        let text = s[i + 2..].trim();
        if text.is_empty() {
            return Err(format!("'{s}': empty condition after 'if'"));
        }
        let expr = cond::parse(text).map_err(|e| format!("'{s}': condition '{text}': {e}"))?;
        check_names(s, &expr)?;
        Ok(Spec {
            expr: Expr::parse(s[..i].trim())?,
            cond: Some(Cond {
                expr,
                text: text.to_string(),
            }),
        })
    }
}

/// Refuses the `$` names a watchpoint hit never has: `$retval` and
/// `$argN` belong to a function's entry or return, not to an access.
fn check_names(s: &str, e: &CondExpr) -> Result<(), String> {
    for leaf in e.names() {
        let CondExpr::Reg(r) = leaf else { continue };
        let arg = r
            .strip_prefix("arg")
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| (1..=6).contains(&n));
        if arg || r == "retval" {
            return Err(format!(
                "'{s}': ${r} is known at a breakpoint, not at a watchpoint hit: \
                 test variables or registers"
            ));
        }
    }
    Ok(())
}

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
    /// A local variable (or parameter) of a function, `func:var`: watched
    /// in each activation of `func`, from its entry until it returns.
    Local {
        /// The function.
        func: String,
        /// The variable.
        var: String,
    },
    /// `*ADDR[:LEN]`.
    Addr {
        /// Address in the tracee.
        addr: u64,
        /// Bytes (1, 2, 4, 8, or more than 8 over several slots); `None`
        /// means the default (8, or 1 for `--exec`).
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

/// `func:var` (one colon; `ns::name` is a C++ name): the function and the
/// local.
fn local_parts(s: &str) -> Option<(&str, &str)> {
    let (func, var) = s.split_once(':')?;
    let plain = |x: &str| is_ident(x) && !x.contains(':');
    (plain(func) && plain(var)).then_some((func, var))
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
                    if n <= 8 && x86_debugreg::Len::from_bytes(n).is_none() {
                        return Err(format!(
                            "{s}: length {n} is not supported: a hardware watchpoint covers 1, 2, 4 \
                             or 8 aligned bytes, or more than 8 over several debug registers"
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
        if let Some((func, local)) = local_parts(var) {
            if !rest.is_empty() {
                return Err(format!(
                    "{s:?}: a local is watched whole: give {func}:{local}"
                ));
            }
            return Ok(Expr::Local {
                func: func.to_string(),
                var: local.to_string(),
            });
        }
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
            Expr::Local { func, var } => write!(f, "{func}:{var}"),
            Expr::Addr { addr, len: Some(l) } => write!(f, "*{addr:#x}:{l}"),
            Expr::Addr { addr, len: None } => write!(f, "*{addr:#x}"),
        }
    }
}

/// One debug register's share of a watch: an aligned range of 1, 2, 4 or
/// 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The debug-register slot.
    pub slot: Slot,
    /// Address in the tracee.
    pub addr: u64,
    /// Bytes (1, 2, 4 or 8; `addr` is a multiple).
    pub len: u64,
}

/// One planned watchpoint: a resolved range over one slot, or, wider than
/// 8 bytes, over several.
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
    /// Its debug-register slots, in address order (consecutive slots).
    pub pieces: Vec<Piece>,
}

impl Watch {
    /// Whether the slot `s` is one of this watch's.
    pub fn has_slot(&self, s: Slot) -> bool {
        self.pieces.iter().any(|p| p.slot == s)
    }

    /// Its slots as text: `DR0`, or `DR0-DR3` for a wide watch.
    pub fn slots_text(&self) -> String {
        match (self.pieces.first(), self.pieces.last()) {
            (Some(a), Some(b)) if a.slot != b.slot => format!("{}-{}", a.slot, b.slot),
            (Some(a), _) => a.slot.to_string(),
            _ => String::new(),
        }
    }
}

/// Why a plan cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// More watches than slots.
    TooMany(usize),
    /// A range a slot cannot cover.
    Range(Expr, x86_debugreg::RangeError),
    /// Wide ranges need more slots than there are: each watch with its
    /// length and the slots it needs.
    TooWide(Vec<(Expr, u64, usize)>),
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
            PlanError::TooWide(ws) => {
                if let [(e, len, n)] = &ws[..] {
                    return write!(
                        f,
                        "cannot watch {e}: its {len} bytes need {n} debug address registers \
                         (aligned pieces of 1, 2, 4 or 8 bytes), but the CPU has only {SLOTS} \
                         (DR0-DR3), {} bytes at most: watch a part of it",
                        SLOTS * 8
                    );
                }
                let total: usize = ws.iter().map(|w| w.2).sum();
                let each: Vec<String> = ws
                    .iter()
                    .map(|(e, len, n)| format!("{e}: {len} bytes, {n}"))
                    .collect();
                write!(
                    f,
                    "the watches need {total} debug address registers in all ({}), but the CPU \
                     has only {SLOTS} (DR0-DR3): watch fewer or narrower ranges",
                    each.join("; ")
                )
            }
        }
    }
}

/// The aligned ranges one watch of `len` bytes at `addr` takes: one slot
/// for 1, 2, 4 or 8 bytes (which must be aligned: a misaligned pointer is
/// more likely a mistake than a wish for two slots), and for any other
/// length the aligned pieces that cover it exactly.
fn ranges(expr: &Expr, addr: u64, len: u64, kind: Kind) -> Result<Vec<(u64, u64)>, PlanError> {
    let wide = kind != Kind::Exec && len > 0 && x86_debugreg::Len::from_bytes(len).is_none();
    if wide {
        return Ok(x86_debugreg::pieces(addr, len)
            .into_iter()
            .map(|(a, l)| (a, l.bytes()))
            .collect());
    }
    x86_debugreg::check_range(addr, len, kind).map_err(|e| PlanError::Range(expr.clone(), e))?;
    Ok(vec![(addr, len)])
}

/// Assigns slots in order and checks each range (length and alignment);
/// a range of another length than 1, 2, 4 or 8 takes several slots.
/// `targets` are the resolved `(expr, addr, len)` of each expression.
pub fn plan(targets: &[(Expr, u64, u64)], kind: Kind) -> Result<Vec<Watch>, PlanError> {
    check_count(targets.len())?;
    let mut split = Vec::new();
    for (expr, addr, len) in targets {
        split.push(ranges(expr, *addr, *len, kind)?);
    }
    if split.iter().map(Vec::len).sum::<usize>() > SLOTS {
        return Err(PlanError::TooWide(
            targets
                .iter()
                .zip(&split)
                .map(|((e, _, len), r)| (e.clone(), *len, r.len()))
                .collect(),
        ));
    }
    let mut slots = Slot::all();
    let mut out = Vec::new();
    for (i, ((expr, addr, len), r)) in targets.iter().zip(split).enumerate() {
        let pieces = r
            .into_iter()
            .map(|(addr, len)| Piece {
                slot: slots.next().expect("slots counted"),
                addr,
                len,
            })
            .collect();
        out.push(Watch {
            id: i + 1,
            expr: expr.clone(),
            addr: *addr,
            len: *len,
            kind,
            pieces,
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
        let local = Expr::parse("accumulate:total").unwrap();
        assert_eq!(
            local,
            Expr::Local {
                func: "accumulate".into(),
                var: "total".into()
            }
        );
        assert_eq!(local.to_string(), "accumulate:total");
        assert_eq!(Expr::parse("ns::x"), Ok(Expr::Symbol("ns::x".into())));
        assert!(Expr::parse("f:v.x").unwrap_err().contains("watched whole"));
    }

    #[test]
    fn parses_conditions() {
        let s = Spec::parse("x if x > 5").unwrap();
        assert_eq!(s.expr, Expr::Symbol("x".into()));
        let c = s.cond.unwrap();
        assert_eq!(c.text, "x > 5");
        assert_eq!(c.expr, cond::parse("x > 5").unwrap());
        assert_eq!(Spec::parse("cfg.limit").unwrap().cond, None);
        assert!(Spec::parse("x if ")
            .unwrap_err()
            .contains("empty condition"));
        assert!(Spec::parse("x if x =").unwrap_err().contains("'x if x ='"));
        assert!(Spec::parse("x if $retval > 1")
            .unwrap_err()
            .contains("$retval"));
        assert!(Spec::parse("x if $arg1 > 1").is_err());
        assert!(Spec::parse("x if $rax > 1").is_ok());
        assert!(Spec::parse("x+1 if x > 5").is_err());
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
        assert_eq!(p[1].pieces[0].slot.index(), 1);
        assert_eq!(p[1].slots_text(), "DR1");
        assert_eq!(p[1].id, 2);
        let five: Vec<_> = (0..5).map(|i| t(0x1000 + 8 * i, 8)).collect();
        let e = plan(&five, Kind::Write).unwrap_err();
        assert_eq!(e, PlanError::TooMany(5));
        assert!(e.to_string().contains("only 4"));
        let e = plan(&[t(0x1002, 4)], Kind::Write).unwrap_err();
        assert!(e.to_string().contains("not aligned"), "{e}");
        assert!(plan(&[(Expr::Symbol("f".into()), 0x1003, 1)], Kind::Exec).is_ok());
    }

    #[test]
    fn wide_ranges_take_several_slots() {
        let sym = |n: &str, a: u64, l: u64| (Expr::Symbol(n.into()), a, l);
        let p = plan(&[sym("c", 0x2000, 4), sym("arr", 0x1000, 24)], Kind::Write).unwrap();
        assert_eq!(p[1].pieces.len(), 3);
        assert_eq!(p[1].slots_text(), "DR1-DR3");
        assert_eq!(
            p[1].pieces[2],
            Piece {
                slot: Slot::new(3).unwrap(),
                addr: 0x1010,
                len: 8
            }
        );
        assert!(p[1].has_slot(Slot::new(2).unwrap()) && !p[0].has_slot(Slot::new(2).unwrap()));
        // 12 bytes at a 4-aligned address: 4 + 8.
        let p = plan(&[sym("s", 0x1004, 12)], Kind::ReadWrite).unwrap();
        let lens: Vec<u64> = p[0].pieces.iter().map(|p| p.len).collect();
        assert_eq!(lens, vec![4, 8]);
        let e = plan(&[sym("big", 0x1000, 40)], Kind::Write).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot watch big: its 40 bytes need 5 debug address registers (aligned pieces of \
             1, 2, 4 or 8 bytes), but the CPU has only 4 (DR0-DR3), 32 bytes at most: \
             watch a part of it"
        );
        let e = plan(&[sym("a", 0x1000, 16), sym("b", 0x2000, 24)], Kind::Write).unwrap_err();
        assert!(
            e.to_string()
                .contains("need 5 debug address registers in all (a: 16 bytes, 2; b: 24 bytes, 3)"),
            "{e}"
        );
        // 1, 2, 4 and 8 bytes stay one aligned slot.
        assert!(plan(&[sym("m", 0x1004, 8)], Kind::Write).is_err());
    }
}
