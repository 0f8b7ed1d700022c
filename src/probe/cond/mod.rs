//! The one condition language: `rtrace break SPEC if EXPR`, `rtrace watch
//! 'EXPR if COND'`, and so
//! `rtrace record --probe 'SPEC if EXPR'` (the same specs, the same
//! breaker). A small expression language, parsed once ([`parse`], pure)
//! and evaluated at each hit over the values a [`ValueProvider`] supplies:
//! registers and `$argN` ([`RegValues`]), program
//! variables of the stopped frame through DWARF
//! (`breakpoint::values::DwarfValues` at a breakpoint hit,
//! [`FrameValues`] over any unwound frame).
//!
//! Grammar (64-bit signed arithmetic; a condition holds when non-zero):
//!
//! ```text
//! expr    := and ('||' and)*
//! and     := cmp ('&&' cmp)*
//! cmp     := bits (('=='|'!='|'<'|'<='|'>'|'>=') bits)?
//! bits    := sum (('&'|'|'|'^') sum)*          (a single '|' or '&')
//! sum     := product (('+'|'-') product)*
//! product := unary (('*'|'/'|'%') unary)*     (signed; `/ 0` is an error)
//! unary   := ('!'|'-'|'~') unary | primary
//! primary := NUMBER | CHAR | '$' NAME | PATH | '(' expr ')'
//! NUMBER  := decimal | '0x' hex                (above i64::MAX wraps)
//! CHAR    := "'" c "'" | "'\" ('n'|'t'|'r'|'0'|'\'|"'") "'"
//! PATH    := NAME ('.' NAME | '->' NAME | '[' NUMBER ']')*
//! ```
//!
//! Unlike C, the bit operators bind tighter than the comparisons
//! (`$rdi & 1 == 1` is `($rdi & 1) == 1`), and comparisons do not chain
//! (`a < b < c` is an error). `&&` and `||` short-circuit, so
//! `p != 0 && p->x > 1` never reads through a null `p`. Parentheses and
//! unary operators nest at most 64 deep.
//!
//! `$rdi`, `$rax`, … are registers, `$pc`, `$sp` and `$fp` their generic
//! names; `$arg1`…`$arg6` are the integer arguments by ABI position;
//! `$retval` is the return value (at a `ret:` probe). A bare `PATH` is a
//! program variable (parameter, local, global or enumerator name such as
//! `GREEN`), handed whole to `crate::vars::Vars::lookup_scalar`; only a
//! DWARF-aware provider can supply it (the register provider answers
//! [`EvalError::NoVariables`]).
//!
//! What else takes an expression, and why it is not this one:
//! `rtrace watch EXPR` names *what* to watch (`var`, `var.field`,
//! `*ADDR:LEN`: `watchpoint::spec::Expr`), a location and not a
//! condition; its `EXPR if COND` conditions are this language
//! (`watchpoint::condition`). rstrace's
//! `-e inject=…:arg1=5:fd>2` conditions keep strace-style syntax (`=`
//! compares, `&` means "all these bits set", octal `0644`), which this
//! language spells differently (`strace::inject::cond`).

use crate::vars::{parse_path, PathError};
use std::fmt;

mod frame;
mod regs;
pub use frame::FrameValues;
pub use regs::RegValues;

/// Parentheses and unary operators nest at most this deep (the parser
/// and the evaluator recurse on them).
const MAX_NESTING: usize = 64;

/// A parsed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A literal.
    Num(i64),
    /// `$name`: a register, `$argN` or `$retval`.
    Reg(String),
    /// A program variable (`x`, `p.field`), from DWARF.
    Var(String),
    /// A unary operation.
    Unary(char, Box<Expr>),
    /// A binary operation.
    Bin(Op, Box<Expr>, Box<Expr>),
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `||`
    Or,
    /// `&&`
    And,
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
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (truncating, as C)
    Div,
    /// `%` (the sign of the dividend, as C)
    Rem,
}

/// Why an expression could not be evaluated at a hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// No register of that name.
    UnknownRegister(String),
    /// `x / 0` or `x % 0`.
    DivisionByZero,
    /// The value is not available here (`$retval` at an entry).
    Unavailable(String),
    /// Program variables need DWARF, which this provider does not read.
    NoVariables(String),
    /// A program variable that DWARF could not give here.
    Variable {
        /// The path as written.
        name: String,
        /// Why (not found, optimized out, not a scalar, …).
        why: String,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::UnknownRegister(r) => write!(f, "unknown register ${r}"),
            EvalError::DivisionByZero => write!(f, "division by zero"),
            EvalError::Unavailable(r) => write!(f, "${r} is not available at this probe"),
            EvalError::Variable { name, why } => write!(f, "variable '{name}': {why}"),
            EvalError::NoVariables(v) => write!(
                f,
                "variable '{v}': program variables need DWARF support, which is not there yet"
            ),
        }
    }
}

/// Supplies the values an expression names, at one hit.
///
/// A register provider answers `$…` names; a DWARF provider answers
/// [`ValueProvider::variable`] too.
pub trait ValueProvider {
    /// `$name` (a register, `argN`, `retval`).
    fn dollar(&mut self, name: &str) -> Result<i64, EvalError>;
    /// A program variable by name (`x`, `s.field`).
    fn variable(&mut self, name: &str) -> Result<i64, EvalError> {
        Err(EvalError::NoVariables(name.to_string()))
    }
}

/// A syntax error with its byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Offset into the expression.
    pub at: usize,
    /// What was expected.
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.msg, self.at)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(i64),
    Dollar(String),
    Name(String),
    Punct(&'static str),
}

fn lex(s: &str) -> Result<Vec<(usize, Tok)>, ParseError> {
    const PUNCT: [&str; 21] = [
        "||", "&&", "==", "!=", "<=", ">=", "<", ">", "&", "|", "^", "+", "-", "*", "/", "%", "!",
        "~", "(", ")", "=",
    ];
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    let word = |i: &mut usize| {
        let st = *i;
        while *i < b.len() && (b[*i].is_ascii_alphanumeric() || b[*i] == b'_' || b[*i] == b'.') {
            *i += 1;
        }
        s[st..*i].to_string()
    };
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let at = i;
        if c.is_ascii_digit() {
            let w = word(&mut i);
            let v = if let Some(h) = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")) {
                u64::from_str_radix(h, 16).map(|v| v as i64)
            } else {
                w.parse::<u64>().map(|v| v as i64)
            };
            let v = v.map_err(|_| ParseError {
                at,
                msg: format!("bad number '{w}'"),
            })?;
            out.push((at, Tok::Num(v)));
        } else if c == b'\'' {
            let (v, len) = char_literal(&b[i..]).map_err(|msg| ParseError {
                at,
                msg: msg.into(),
            })?;
            out.push((at, Tok::Num(v)));
            i += len;
        } else if c == b'$' {
            i += 1;
            let w = word(&mut i);
            if w.is_empty() {
                return Err(ParseError {
                    at,
                    msg: "register name expected after '$'".into(),
                });
            }
            out.push((at, Tok::Dollar(w)));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            // A variable path: `a.b`, `p->x`, `t[3]` steps stay in the name
            // (the DWARF provider resolves the whole path).
            word(&mut i);
            loop {
                if s[i..].starts_with("->")
                    && b.get(i + 2)
                        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                {
                    i += 2;
                    word(&mut i);
                } else if b.get(i) == Some(&b'[') {
                    let close = s[i..].find(']').ok_or_else(|| ParseError {
                        at: i,
                        msg: "']' expected".into(),
                    })?;
                    i += close + 1;
                    word(&mut i);
                } else {
                    break;
                }
            }
            let path = &s[at..i];
            if let Err(PathError::Syntax(off)) = parse_path(path) {
                return Err(ParseError {
                    at: at + off,
                    msg: format!("bad variable path '{path}'"),
                });
            }
            out.push((at, Tok::Name(path.to_string())));
        } else {
            let p = PUNCT
                .iter()
                .find(|p| s[i..].starts_with(**p))
                .ok_or_else(|| ParseError {
                    at,
                    msg: format!("unexpected '{}'", s[i..].chars().next().unwrap_or('?')),
                })?;
            if *p == "=" {
                return Err(ParseError {
                    at,
                    msg: "'=' is not a comparison; use '=='".into(),
                });
            }
            i += p.len();
            out.push((at, Tok::Punct(p)));
        }
    }
    Ok(out)
}

/// The value and length of the character literal `b` starts with (`'A'`,
/// `'\n'`).
fn char_literal(b: &[u8]) -> Result<(i64, usize), &'static str> {
    match (b.get(1), b.get(2), b.get(3)) {
        (Some(b'\\'), Some(e), Some(b'\'')) => match e {
            b'n' => Ok((10, 4)),
            b't' => Ok((9, 4)),
            b'r' => Ok((13, 4)),
            b'0' => Ok((0, 4)),
            b'\\' | b'\'' => Ok((i64::from(*e), 4)),
            _ => Err("unknown escape in character literal"),
        },
        (Some(&ch), Some(b'\''), _) if ch != b'\\' && ch != b'\'' && ch.is_ascii() => {
            Ok((i64::from(ch), 3))
        }
        _ => Err("bad character literal"),
    }
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    end: usize,
    /// Unary operators and parentheses open at this point.
    nesting: usize,
}

impl Parser {
    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |t| t.0)
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.toks.get(self.pos), Some((_, Tok::Punct(q))) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn binary(
        &mut self,
        ops: &[(&str, Op)],
        next: fn(&mut Parser) -> Result<Expr, ParseError>,
        once: bool,
    ) -> Result<Expr, ParseError> {
        let mut l = next(self)?;
        'outer: loop {
            for (p, op) in ops {
                if self.eat(p) {
                    let r = next(self)?;
                    l = Expr::Bin(*op, Box::new(l), Box::new(r));
                    if once {
                        break 'outer;
                    }
                    continue 'outer;
                }
            }
            break;
        }
        Ok(l)
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        self.binary(&[("||", Op::Or)], Parser::and, false)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        self.binary(&[("&&", Op::And)], Parser::cmp, false)
    }

    fn cmp(&mut self) -> Result<Expr, ParseError> {
        let ops = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        let e = self.binary(&ops, Parser::bits, true)?;
        if matches!(self.toks.get(self.pos), Some((_, Tok::Punct(p))) if ops.iter().any(|o| o.0 == *p))
        {
            return Err(ParseError {
                at: self.at(),
                msg: "chained comparison; use parentheses".into(),
            });
        }
        Ok(e)
    }

    fn bits(&mut self) -> Result<Expr, ParseError> {
        let ops = [("&", Op::BitAnd), ("|", Op::BitOr), ("^", Op::BitXor)];
        self.binary(&ops, Parser::sum, false)
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        self.binary(&[("+", Op::Add), ("-", Op::Sub)], Parser::product, false)
    }

    fn product(&mut self) -> Result<Expr, ParseError> {
        let ops = [("*", Op::Mul), ("/", Op::Div), ("%", Op::Rem)];
        self.binary(&ops, Parser::unary, false)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(ParseError {
                at: self.at(),
                msg: "nested too deeply".into(),
            });
        }
        let op = ['!', '-', '~']
            .into_iter()
            .find(|op| self.eat(&op.to_string()));
        let e = match op {
            Some(op) => self.unary().map(|e| Expr::Unary(op, Box::new(e))),
            None => self.primary(),
        };
        self.nesting -= 1;
        e
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let at = self.at();
        if self.eat("(") {
            let e = self.expr()?;
            if !self.eat(")") {
                return Err(ParseError {
                    at: self.at(),
                    msg: "')' expected".into(),
                });
            }
            return Ok(e);
        }
        let t = self.toks.get(self.pos).map(|t| t.1.clone());
        self.pos += 1;
        match t {
            Some(Tok::Num(v)) => Ok(Expr::Num(v)),
            Some(Tok::Dollar(r)) => Ok(Expr::Reg(r)),
            Some(Tok::Name(n)) => Ok(Expr::Var(n)),
            _ => Err(ParseError {
                at,
                msg: "value expected".into(),
            }),
        }
    }
}

/// Parses `src`.
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        end: src.len(),
        nesting: 0,
    };
    let e = p.expr()?;
    if p.pos < p.toks.len() {
        return Err(ParseError {
            at: p.at(),
            msg: "operator expected".into(),
        });
    }
    Ok(e)
}

impl Expr {
    /// Whether the expression names a program variable (so the hit needs
    /// DWARF, and a function breakpoint its post-prologue address).
    pub fn uses_variables(&self) -> bool {
        match self {
            Expr::Num(_) | Expr::Reg(_) => false,
            Expr::Var(_) => true,
            Expr::Unary(_, a) => a.uses_variables(),
            Expr::Bin(_, a, b) => a.uses_variables() || b.uses_variables(),
        }
    }

    /// The `$` names (registers, `$argN`, `$retval`) and the variable
    /// paths the expression reads, in order: what a spec is checked
    /// against before the program starts.
    pub fn names(&self) -> Vec<&Expr> {
        match self {
            Expr::Num(_) => Vec::new(),
            Expr::Reg(_) | Expr::Var(_) => vec![self],
            Expr::Unary(_, a) => a.names(),
            Expr::Bin(_, a, b) => {
                let mut v = a.names();
                v.extend(b.names());
                v
            }
        }
    }

    /// Whether the condition holds (its value is not zero).
    pub fn holds(&self, v: &mut dyn ValueProvider) -> Result<bool, EvalError> {
        Ok(self.eval(v)? != 0)
    }

    /// Evaluates the expression; comparisons and logic give 0 or 1.
    pub fn eval(&self, v: &mut dyn ValueProvider) -> Result<i64, EvalError> {
        Ok(match self {
            Expr::Num(n) => *n,
            Expr::Reg(r) => v.dollar(r)?,
            Expr::Var(n) => v.variable(n)?,
            Expr::Unary(op, e) => {
                let x = e.eval(v)?;
                match op {
                    '!' => (x == 0) as i64,
                    '-' => x.wrapping_neg(),
                    _ => !x,
                }
            }
            Expr::Bin(Op::Or, a, b) => (a.eval(v)? != 0 || b.eval(v)? != 0) as i64,
            Expr::Bin(Op::And, a, b) => (a.eval(v)? != 0 && b.eval(v)? != 0) as i64,
            Expr::Bin(op, a, b) => {
                let (x, y) = (a.eval(v)?, b.eval(v)?);
                match op {
                    Op::Eq => (x == y) as i64,
                    Op::Ne => (x != y) as i64,
                    Op::Lt => (x < y) as i64,
                    Op::Le => (x <= y) as i64,
                    Op::Gt => (x > y) as i64,
                    Op::Ge => (x >= y) as i64,
                    Op::BitAnd => x & y,
                    Op::BitOr => x | y,
                    Op::BitXor => x ^ y,
                    Op::Add => x.wrapping_add(y),
                    Op::Sub => x.wrapping_sub(y),
                    Op::Mul => x.wrapping_mul(y),
                    Op::Div | Op::Rem if y == 0 => return Err(EvalError::DivisionByZero),
                    Op::Div => x.wrapping_div(y),
                    Op::Rem => x.wrapping_rem(y),
                    Op::Or | Op::And => unreachable!("handled above"),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests;
