//! Breakpoint conditions: a small expression language over program
//! variables, registers and integers, parsed once ([`parse_cond`], pure)
//! and evaluated at each hit against a [`CondEnv`] ([`FrameEnv`] reads
//! DWARF variables of a stopped frame).
//!
//! ```text
//! or      := and ('||' and)*
//! and     := cmp ('&&' cmp)*
//! cmp     := unary (('=='|'!='|'<'|'<='|'>'|'>=') unary)?
//! unary   := '!' unary | '-' unary | primary
//! primary := INTEGER | 'c' | '$' NAME | PATH | '(' or ')'
//! PATH    := NAME ('.' NAME | '->' NAME | '[' INTEGER ']')*
//! ```
//!
//! Values are 64-bit signed integers (pointers, `unsigned long` and
//! literals above `i64::MAX` wrap); a condition holds when it is non-zero.
//! A `PATH` is a parameter, local or global (or an enumerator name such as
//! `GREEN`); `$NAME` is a register by its DWARF name (`$rdi`) or `$pc`,
//! `$sp`, `$fp`.
//! `&&` and `||` short-circuit, so `p != 0 && p->x > 1` is safe.

use crate::engine::memory::Memory;
use crate::symbols::ModuleMap;
use crate::vars::{parse_path, FrameRegs, PathError, Vars};
use std::fmt;

/// Parentheses and unary operators nest at most this deep.
const MAX_NESTING: usize = 64;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A parsed condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    /// An integer literal.
    Int(i64),
    /// A variable path (`x`, `cfg.limit`, `p->next`).
    Var(String),
    /// A register (`$rdi`, `$pc`).
    Reg(String),
    /// `!a`
    Not(Box<Cond>),
    /// `-a`
    Neg(Box<Cond>),
    /// `a OP b`
    Cmp(CmpOp, Box<Cond>, Box<Cond>),
    /// `a && b`
    And(Box<Cond>, Box<Cond>),
    /// `a || b`
    Or(Box<Cond>, Box<Cond>),
}

/// A syntax error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset in the condition.
    pub at: usize,
    /// What is wrong.
    pub msg: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.msg, self.at)
    }
}

/// Why a condition could not be evaluated at a hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CondError {
    /// No register of that name.
    UnknownRegister(String),
    /// The register's value is not known in this frame.
    RegisterUnavailable(String),
    /// A variable could not be resolved or read.
    Variable(String, PathError),
}

impl fmt::Display for CondError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CondError::UnknownRegister(r) => write!(f, "unknown register ${r}"),
            CondError::RegisterUnavailable(r) => write!(f, "register ${r} is not available"),
            CondError::Variable(v, e) => write!(f, "{v}: {e}"),
        }
    }
}

/// What a condition's names evaluate to.
pub trait CondEnv {
    /// A variable path's integer value.
    fn var(&mut self, path: &str) -> Result<i64, CondError>;
    /// A register's value (`name` without the `$`).
    fn reg(&mut self, name: &str) -> Result<i64, CondError>;
}

impl Cond {
    /// Whether the condition holds.
    pub fn holds(&self, env: &mut dyn CondEnv) -> Result<bool, CondError> {
        Ok(self.value(env)? != 0)
    }

    /// The condition's integer value (comparisons give 0 or 1).
    pub fn value(&self, env: &mut dyn CondEnv) -> Result<i64, CondError> {
        Ok(match self {
            Cond::Int(i) => *i,
            Cond::Var(p) => env.var(p)?,
            Cond::Reg(r) => env.reg(r)?,
            Cond::Not(a) => i64::from(a.value(env)? == 0),
            Cond::Neg(a) => a.value(env)?.wrapping_neg(),
            Cond::And(a, b) => i64::from(a.holds(env)? && b.holds(env)?),
            Cond::Or(a, b) => i64::from(a.holds(env)? || b.holds(env)?),
            Cond::Cmp(op, a, b) => {
                let (a, b) = (a.value(env)?, b.value(env)?);
                i64::from(match op {
                    CmpOp::Eq => a == b,
                    CmpOp::Ne => a != b,
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Gt => a > b,
                    CmpOp::Ge => a >= b,
                })
            }
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i64),
    Reg(String),
    Path(String),
    Op(&'static str),
}

/// Operators, longest first.
const OPS: [&str; 13] = [
    "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "-", "(", ")", "=",
];

fn lex(s: &str) -> Result<Vec<(usize, Tok)>, ParseError> {
    let b = s.as_bytes();
    let err = |at, msg| Err(ParseError { at, msg });
    let mut out = Vec::new();
    let mut i = 0;
    let word_end = |mut j: usize| {
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        j
    };
    while i < b.len() {
        let at = i;
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            i = word_end(i);
            let w = &s[at..i];
            let v = match w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16).map(|v| v as i64).ok(),
                None => w.parse::<u64>().map(|v| v as i64).ok(),
            };
            match v {
                Some(v) => out.push((at, Tok::Int(v))),
                None => return err(at, "bad integer"),
            }
        } else if c == b'\'' {
            let (v, len) = match (b.get(i + 1), b.get(i + 2), b.get(i + 3)) {
                (Some(b'\\'), Some(e), Some(b'\'')) => match e {
                    b'n' => (10, 4),
                    b't' => (9, 4),
                    b'r' => (13, 4),
                    b'0' => (0, 4),
                    b'\\' | b'\'' => (i64::from(*e), 4),
                    _ => return err(at, "unknown escape in character literal"),
                },
                (Some(&ch), Some(b'\''), _) if ch != b'\\' && ch.is_ascii() => (i64::from(ch), 3),
                _ => return err(at, "bad character literal"),
            };
            out.push((at, Tok::Int(v)));
            i += len;
        } else if c == b'$' {
            i = word_end(i + 1);
            if i == at + 1 {
                return err(at, "register name expected after '$'");
            }
            out.push((at, Tok::Reg(s[at + 1..i].to_string())));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            // A path: NAME ('.' NAME | '->' NAME | '[' ... ']')*.
            i = word_end(i);
            loop {
                if b.get(i) == Some(&b'.') {
                    i = word_end(i + 1);
                } else if s[i..].starts_with("->") {
                    i = word_end(i + 2);
                } else if b.get(i) == Some(&b'[') {
                    match s[i..].find(']') {
                        Some(e) => i += e + 1,
                        None => return err(i, "missing ']'"),
                    }
                } else {
                    break;
                }
            }
            let path = &s[at..i];
            if let Err(PathError::Syntax(off)) = parse_path(path) {
                return err(at + off, "bad variable path");
            }
            out.push((at, Tok::Path(path.to_string())));
        } else {
            let Some(op) = OPS.iter().find(|op| s[i..].starts_with(**op)) else {
                return err(at, "unexpected character");
            };
            if *op == "=" {
                return err(at, "'=' is an assignment; compare with '=='");
            }
            i += op.len();
            out.push((at, Tok::Op(op)));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    end: usize,
    nesting: usize,
}

impl Parser {
    fn peek_op(&self) -> Option<&'static str> {
        match self.toks.get(self.pos) {
            Some((_, Tok::Op(op))) => Some(op),
            _ => None,
        }
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |t| t.0)
    }

    fn or(&mut self) -> Result<Cond, ParseError> {
        let mut left = self.and()?;
        while self.peek_op() == Some("||") {
            self.pos += 1;
            left = Cond::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Cond, ParseError> {
        let mut left = self.cmp()?;
        while self.peek_op() == Some("&&") {
            self.pos += 1;
            left = Cond::And(Box::new(left), Box::new(self.cmp()?));
        }
        Ok(left)
    }

    fn cmp(&mut self) -> Result<Cond, ParseError> {
        let left = self.unary()?;
        let op = match self.peek_op() {
            Some("==") => CmpOp::Eq,
            Some("!=") => CmpOp::Ne,
            Some("<") => CmpOp::Lt,
            Some("<=") => CmpOp::Le,
            Some(">") => CmpOp::Gt,
            Some(">=") => CmpOp::Ge,
            _ => return Ok(left),
        };
        self.pos += 1;
        let right = self.unary()?;
        if matches!(self.peek_op(), Some("==" | "!=" | "<" | "<=" | ">" | ">=")) {
            return Err(ParseError {
                at: self.at(),
                msg: "chained comparison; use parentheses",
            });
        }
        Ok(Cond::Cmp(op, Box::new(left), Box::new(right)))
    }

    fn unary(&mut self) -> Result<Cond, ParseError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(ParseError {
                at: self.at(),
                msg: "nested too deeply",
            });
        }
        let r = match self.peek_op() {
            Some("!") => {
                self.pos += 1;
                self.unary().map(|c| Cond::Not(Box::new(c)))
            }
            Some("-") => {
                self.pos += 1;
                self.unary().map(|c| match c {
                    Cond::Int(i) => Cond::Int(i.wrapping_neg()),
                    c => Cond::Neg(Box::new(c)),
                })
            }
            _ => self.primary(),
        };
        self.nesting -= 1;
        r
    }

    fn primary(&mut self) -> Result<Cond, ParseError> {
        let at = self.at();
        let Some((_, tok)) = self.toks.get(self.pos).cloned() else {
            return Err(ParseError {
                at,
                msg: "operand expected",
            });
        };
        self.pos += 1;
        match tok {
            Tok::Int(i) => Ok(Cond::Int(i)),
            Tok::Reg(r) => Ok(Cond::Reg(r)),
            Tok::Path(p) => Ok(Cond::Var(p)),
            Tok::Op("(") => {
                let inner = self.or()?;
                if self.peek_op() != Some(")") {
                    return Err(ParseError {
                        at: self.at(),
                        msg: "')' expected",
                    });
                }
                self.pos += 1;
                Ok(inner)
            }
            Tok::Op(_) => Err(ParseError {
                at,
                msg: "operand expected",
            }),
        }
    }
}

/// Parses a condition. Pure: no DWARF, no process.
pub fn parse_cond(s: &str) -> Result<Cond, ParseError> {
    let toks = lex(s)?;
    let mut p = Parser {
        toks,
        pos: 0,
        end: s.len(),
        nesting: 0,
    };
    let c = p.or()?;
    if p.pos < p.toks.len() {
        return Err(ParseError {
            at: p.at(),
            msg: "unexpected token after the condition",
        });
    }
    Ok(c)
}

/// Conditions over a stopped frame: variables from DWARF, registers from
/// the frame's register set.
pub struct FrameEnv<'a> {
    /// The DWARF variables reader.
    pub vars: &'a Vars,
    /// The process's modules.
    pub map: &'a ModuleMap,
    /// The frame's registers.
    pub frame: &'a FrameRegs,
    /// The process's memory.
    pub mem: &'a mut dyn Memory,
}

impl CondEnv for FrameEnv<'_> {
    fn var(&mut self, path: &str) -> Result<i64, CondError> {
        self.vars
            .lookup_scalar(self.map, self.frame, self.mem, path)
            .map_err(|e| CondError::Variable(path.to_string(), e))
    }

    fn reg(&mut self, name: &str) -> Result<i64, CondError> {
        let regs = &self.frame.regs;
        let arch = regs.arch;
        let n = match name {
            "pc" => return Ok(regs.pc as i64),
            "sp" => Some(arch.sp),
            "fp" => Some(arch.fp),
            _ => arch.names.iter().position(|r| *r == name).map(|n| n as u16),
        };
        let n = n.ok_or_else(|| CondError::UnknownRegister(name.to_string()))?;
        if n == arch.ra && usize::from(n) < arch.names.len() {
            // The return-address column is the pc itself (x86_64 `rip`).
            return Ok(regs.pc as i64);
        }
        regs.get(n)
            .map(|v| v as i64)
            .ok_or_else(|| CondError::RegisterUnavailable(name.to_string()))
    }
}

#[cfg(test)]
mod tests;
