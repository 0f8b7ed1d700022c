//! Unit tests of the condition parser and evaluator.

use super::*;
use std::collections::HashMap;

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
fn products_bind_tighter_than_sums_and_divide_as_c() {
    assert_eq!(ev("$rdi * 2 + 1"), Ok(7));
    assert_eq!(ev("1 + $rdi * 2"), Ok(7));
    assert_eq!(ev("($rdi + 1) * 2"), Ok(8));
    assert_eq!(ev("-7 / 2"), Ok(-3));
    assert_eq!(ev("-7 % 2"), Ok(-1));
    assert_eq!(ev("7 % $rdi == 1"), Ok(1));
    assert_eq!(ev("$rax * 0x7fffffffffffffff"), Ok(-0x7fffffffffffffff));
    assert_eq!(ev("$rdi / ($rdi - 3)"), Err(EvalError::DivisionByZero));
    assert_eq!(ev("1 % 0"), Err(EvalError::DivisionByZero));
    assert_eq!(EvalError::DivisionByZero.to_string(), "division by zero");
    assert!(parse("2 *").is_err());
    assert!(parse("* 2").is_err());
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

/// Variables by path, counting reads (to see `&&` short-circuit).
struct Vars(HashMap<&'static str, i64>, usize);

impl ValueProvider for Vars {
    fn dollar(&mut self, name: &str) -> Result<i64, EvalError> {
        match name {
            "rdi" => Ok(7),
            _ => Err(EvalError::UnknownRegister(name.into())),
        }
    }

    fn variable(&mut self, name: &str) -> Result<i64, EvalError> {
        self.1 += 1;
        self.0
            .get(name)
            .copied()
            .ok_or_else(|| EvalError::Variable {
                name: name.into(),
                why: "not found".into(),
            })
    }
}

fn vars() -> Vars {
    let v = [
        ("n", 5),
        ("cfg.limit", 42),
        ("p", 0),
        ("p->x", 1),
        ("c", 65),
    ];
    Vars(v.into_iter().collect(), 0)
}

fn holds(s: &str) -> Result<bool, EvalError> {
    parse(s)
        .unwrap_or_else(|e| panic!("{s}: {e}"))
        .holds(&mut vars())
}

fn var(s: &str) -> Box<Expr> {
    Box::new(Expr::Var(s.into()))
}

#[test]
fn parses_operands_and_precedence() {
    assert_eq!(
        parse("n == 5 || cfg.limit > 0x10 && !p"),
        Ok(Expr::Bin(
            Op::Or,
            Box::new(Expr::Bin(Op::Eq, var("n"), Box::new(Expr::Num(5)))),
            Box::new(Expr::Bin(
                Op::And,
                Box::new(Expr::Bin(Op::Gt, var("cfg.limit"), Box::new(Expr::Num(16)))),
                Box::new(Expr::Unary('!', var("p")))
            ))
        ))
    );
    assert_eq!(
        parse("$rdi>=-1"),
        Ok(Expr::Bin(
            Op::Ge,
            Box::new(Expr::Reg("rdi".into())),
            Box::new(Expr::Unary('-', Box::new(Expr::Num(1))))
        ))
    );
    assert_eq!(parse("c == 'A'"), parse("c==65"));
    assert_eq!(parse("'\\n'"), Ok(Expr::Num(10)));
    assert_eq!(parse("'\\''"), Ok(Expr::Num(39)));
    assert_eq!(parse("' '"), Ok(Expr::Num(32)));
    assert_eq!(parse("p->next[2].v"), Ok(Expr::Var("p->next[2].v".into())));
    assert_eq!(parse("0xffffffffffffffff"), Ok(Expr::Num(-1)));
    // Bit operators bind tighter than comparisons (unlike C).
    assert_eq!(parse("$rdi & 1 == 1"), parse("($rdi & 1) == 1"));
}

#[test]
fn evaluates_with_short_circuit() {
    assert_eq!(holds("n == 5"), Ok(true));
    assert_eq!(holds("n != 5 || cfg.limit >= 42"), Ok(true));
    assert_eq!(holds("(n < 5) == 0"), Ok(true));
    assert_eq!(holds("!(n <= 4) && c == 'A'"), Ok(true));
    assert_eq!(holds("-n < 0 && $rdi == 7"), Ok(true));
    assert_eq!(holds("n"), Ok(true));
    assert_eq!(holds("!n"), Ok(false));
    // `p->x` is never read when `p` is null.
    let c = parse("p != 0 && p->x == 1 && missing").unwrap();
    let mut v = vars();
    assert_eq!(c.holds(&mut v), Ok(false));
    assert_eq!(v.1, 1, "only p was read");
    assert_eq!(
        holds("missing == 1"),
        Err(EvalError::Variable {
            name: "missing".into(),
            why: "not found".into()
        })
    );
    assert_eq!(holds("$xyz"), Err(EvalError::UnknownRegister("xyz".into())));
    assert_eq!(
        holds("-9223372036854775808 < 0 && -(-9223372036854775807) > 0"),
        Ok(true),
        "wraps"
    );
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    let cases = [
        ("", 0, "value expected"),
        ("n ==", 4, "value expected"),
        ("n = 5", 2, "'=' is not a comparison; use '=='"),
        ("(n == 5", 7, "')' expected"),
        ("n == 5)", 6, "operator expected"),
        ("n 5", 2, "operator expected"),
        ("1 < 2 < 3", 6, "chained comparison; use parentheses"),
        ("$", 0, "register name expected after '$'"),
        (
            "99999999999999999999",
            0,
            "bad number '99999999999999999999'",
        ),
        ("0xg", 0, "bad number '0xg'"),
        ("12abc", 0, "bad number '12abc'"),
        ("a.", 2, "bad variable path 'a.'"),
        ("a[", 1, "']' expected"),
        ("a[x] == 1", 2, "bad variable path 'a[x]'"),
        ("n # 1", 2, "unexpected '#'"),
        ("'ab'", 0, "bad character literal"),
        ("''", 0, "bad character literal"),
        ("'", 0, "bad character literal"),
        ("'\\q'", 0, "unknown escape in character literal"),
        ("&& n", 0, "value expected"),
        ("é", 0, "unexpected 'é'"),
    ];
    for (s, at, msg) in cases {
        assert_eq!(
            parse(s),
            Err(ParseError {
                at,
                msg: msg.into()
            }),
            "{s:?}"
        );
    }
    let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    assert_eq!(parse(&deep).unwrap_err().msg, "nested too deeply");
    let nots = format!("{}1", "!".repeat(10_000));
    assert_eq!(parse(&nots).unwrap_err().msg, "nested too deeply");
    let ok = format!("{}1{}", "(-".repeat(24), ")".repeat(24));
    assert_eq!(parse(&ok).map(|e| e.eval(&mut vars())), Ok(Ok(1)));
    // Every prefix of valid conditions parses or fails cleanly.
    let valid = "!(n == 5 || cfg.limit >= 0x2a) && p->x[3] != 'x' || $rdi < -1 + ~2 ^ 4";
    for end in 0..=valid.len() {
        let _ = parse(&valid[..end]);
    }
    let long_or = vec!["n == 1"; 5000].join(" || ");
    assert!(parse(&long_or).is_ok(), "binary chains do not recurse");
}
