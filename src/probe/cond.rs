//! Conditions (`SPEC if EXPR`): a small expression language over values a
//! [`ValueProvider`] supplies at the hit.
//!
//! Grammar (C precedence, 64-bit signed arithmetic):
//!
//! ```text
//! expr    := and ('||' and)*
//! and     := cmp ('&&' cmp)*
//! cmp     := bits (('=='|'!='|'<'|'<='|'>'|'>=') bits)?
//! bits    := sum (('&'|'|'|'^') sum)*          (a single '|' or '&')
//! sum     := unary (('+'|'-') unary)*
//! unary   := ('!'|'-'|'~') unary | primary
//! primary := NUMBER | '$' NAME | PATH | '(' expr ')'
//! PATH    := NAME ('.' NAME | '->' NAME | '[' NUMBER ']')*
//! ```
//!
//! `$rdi`, `$rax`, … are registers; `$arg1`…`$arg6` are the integer arguments
//! by ABI position; `$retval` is the return value (at a `ret:` probe);
//! a bare `PATH` is a program variable (parameter, local, global or
//! enumerator name), which only a DWARF-aware provider can supply
//! ([`crate::breakpoint::values::DwarfValues`]; the register provider answers
//! [`EvalError::NoVariables`]).
//!
//! This parser is kept, rather than replaced by
//! `crate::vars::cond::parse_cond`, because it has what that one
//! lacks and existing specs use: `$argN`, `$retval`, bit operators and
//! `+`/`-`. Variable paths are handed whole to
//! `crate::vars::Vars::lookup_scalar`, so both accept the same
//! paths.

use std::fmt;

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
}

/// Why an expression could not be evaluated at a hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// No register of that name.
    UnknownRegister(String),
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
/// The register provider ([`crate::breakpoint::values::RegValues`]) answers `$…` names; a
/// DWARF provider would wrap it and answer [`ValueProvider::variable`] too.
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
    const PUNCT: [&str; 18] = [
        "||", "&&", "==", "!=", "<=", ">=", "<", ">", "&", "|", "^", "+", "-", "!", "~", "(", ")",
        "=",
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
            out.push((at, Tok::Name(s[at..i].to_string())));
        } else {
            let p = PUNCT
                .iter()
                .find(|p| s[i..].starts_with(**p))
                .ok_or_else(|| ParseError {
                    at,
                    msg: format!("unexpected '{}'", c as char),
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

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    end: usize,
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
        self.binary(&ops, Parser::bits, true)
    }

    fn bits(&mut self) -> Result<Expr, ParseError> {
        let ops = [("&", Op::BitAnd), ("|", Op::BitOr), ("^", Op::BitXor)];
        self.binary(&ops, Parser::sum, false)
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        self.binary(&[("+", Op::Add), ("-", Op::Sub)], Parser::unary, false)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        for op in ['!', '-', '~'] {
            if self.eat(&op.to_string()) {
                return Ok(Expr::Unary(op, Box::new(self.unary()?)));
            }
        }
        self.primary()
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
                    Op::Or | Op::And => unreachable!("handled above"),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;

    impl ValueProvider for Fake {
        fn dollar(&mut self, name: &str) -> Result<i64, EvalError> {
            match name {
                "rdi" | "arg1" => Ok(3),
                "rax" => Ok(-1),
                _ => Err(EvalError::UnknownRegister(name.into())),
            }
        }
    }

    fn ev(s: &str) -> Result<i64, EvalError> {
        parse(s).unwrap().eval(&mut Fake)
    }

    #[test]
    fn variable_paths_are_one_token() {
        let e = parse("pp->y == 3 && t[2].x > n.m").unwrap();
        assert!(e.uses_variables());
        let Expr::Bin(Op::And, a, b) = e else {
            panic!("not &&")
        };
        assert_eq!(
            *a,
            Expr::Bin(
                Op::Eq,
                Box::new(Expr::Var("pp->y".into())),
                Box::new(Expr::Num(3))
            )
        );
        assert!(matches!(*b, Expr::Bin(Op::Gt, ref l, _) if **l == Expr::Var("t[2].x".into())));
        // `->` only joins a name; `p - >` stays arithmetic.
        assert!(parse("p - 1 > 0").is_ok());
        assert!(!parse("$rdi > 1").unwrap().uses_variables());
        assert!(parse("t[2").is_err());
    }

    #[test]
    fn registers_literals_and_logic() {
        assert_eq!(ev("$rdi == 3 && $rax < 0"), Ok(1));
        assert_eq!(ev("$rdi == 3 && $rax > 0"), Ok(0));
        assert_eq!(ev("$rdi == 4 || $arg1 >= 0x3"), Ok(1));
        assert_eq!(ev("!($rdi - 3) && ($rdi & 1) == 1"), Ok(1));
        assert_eq!(ev("-1 == $rax"), Ok(1));
        assert_eq!(ev("1 + 2 == 3"), Ok(1));
    }

    #[test]
    fn errors_are_reported() {
        assert!(matches!(
            ev("$xyz == 1"),
            Err(EvalError::UnknownRegister(_))
        ));
        assert!(matches!(ev("count > 1"), Err(EvalError::NoVariables(_))));
        assert!(parse("$rdi = 3").is_err());
        assert!(parse("$rdi ==").is_err());
        assert!(parse("($rdi == 3").is_err());
        assert!(parse("1 2").is_err());
    }
}
