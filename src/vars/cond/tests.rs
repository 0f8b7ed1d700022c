//! Unit tests of the condition parser and evaluator.

use crate::vars::cond::*;
use std::collections::HashMap;

struct Env(HashMap<&'static str, i64>, usize);

impl CondEnv for Env {
    fn var(&mut self, p: &str) -> Result<i64, CondError> {
        self.1 += 1;
        self.0
            .get(p)
            .copied()
            .ok_or_else(|| CondError::Variable(p.into(), PathError::NotFound(p.into())))
    }
    fn reg(&mut self, r: &str) -> Result<i64, CondError> {
        match r {
            "rdi" => Ok(7),
            _ => Err(CondError::UnknownRegister(r.into())),
        }
    }
}

fn env() -> Env {
    let vars = [
        ("n", 5),
        ("cfg.limit", 42),
        ("p", 0),
        ("p->x", 1),
        ("c", 65),
    ];
    Env(vars.into_iter().collect(), 0)
}

fn eval(s: &str) -> Result<bool, CondError> {
    parse_cond(s)
        .unwrap_or_else(|e| panic!("{s}: {e}"))
        .holds(&mut env())
}

fn var(s: &str) -> Box<Cond> {
    Box::new(Cond::Var(s.into()))
}

#[test]
fn parses_operands_and_precedence() {
    assert_eq!(
        parse_cond("n == 5 || cfg.limit > 0x10 && !p"),
        Ok(Cond::Or(
            Box::new(Cond::Cmp(CmpOp::Eq, var("n"), Box::new(Cond::Int(5)))),
            Box::new(Cond::And(
                Box::new(Cond::Cmp(
                    CmpOp::Gt,
                    var("cfg.limit"),
                    Box::new(Cond::Int(16))
                )),
                Box::new(Cond::Not(var("p")))
            ))
        ))
    );
    assert_eq!(
        parse_cond("$rdi>=-1"),
        Ok(Cond::Cmp(
            CmpOp::Ge,
            Box::new(Cond::Reg("rdi".into())),
            Box::new(Cond::Int(-1))
        ))
    );
    assert_eq!(parse_cond("c == 'A'"), parse_cond("c==65"));
    assert_eq!(parse_cond("'\\n'"), Ok(Cond::Int(10)));
    assert_eq!(
        parse_cond("p->next[2].v"),
        Ok(Cond::Var("p->next[2].v".into()))
    );
    assert_eq!(parse_cond("0xffffffffffffffff"), Ok(Cond::Int(-1)));
}

#[test]
fn evaluates_with_short_circuit() {
    assert_eq!(eval("n == 5"), Ok(true));
    assert_eq!(eval("n != 5 || cfg.limit >= 42"), Ok(true));
    assert_eq!(eval("(n < 5) == 0"), Ok(true));
    assert_eq!(eval("!(n <= 4) && c == 'A'"), Ok(true));
    assert_eq!(eval("-n < 0 && $rdi == 7"), Ok(true));
    assert_eq!(eval("n"), Ok(true));
    assert_eq!(eval("!n"), Ok(false));
    // `p->x` is never read when `p` is null.
    let c = parse_cond("p != 0 && p->x == 1 && missing").unwrap();
    let mut e = env();
    assert_eq!(c.holds(&mut e), Ok(false));
    assert_eq!(e.1, 1, "only p was read");
    assert_eq!(
        eval("missing == 1"),
        Err(CondError::Variable(
            "missing".into(),
            PathError::NotFound("missing".into())
        ))
    );
    assert_eq!(eval("$xyz"), Err(CondError::UnknownRegister("xyz".into())));
    assert_eq!(
        eval("-9223372036854775808 < 0 && -(-9223372036854775807) > 0"),
        Ok(true),
        "wraps"
    );
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    let cases = [
        ("", 0, "operand expected"),
        ("n ==", 4, "operand expected"),
        ("n = 5", 2, "'=' is an assignment; compare with '=='"),
        ("(n == 5", 7, "')' expected"),
        ("n == 5)", 6, "unexpected token after the condition"),
        ("n 5", 2, "unexpected token after the condition"),
        ("1 < 2 < 3", 6, "chained comparison; use parentheses"),
        ("$", 0, "register name expected after '$'"),
        ("99999999999999999999", 0, "bad integer"),
        ("0xg", 0, "bad integer"),
        ("12abc", 0, "bad integer"),
        ("a.", 2, "bad variable path"),
        ("a[", 1, "missing ']'"),
        ("a[x] == 1", 2, "bad variable path"),
        ("n # 1", 2, "unexpected character"),
        ("'ab'", 0, "bad character literal"),
        ("'\\q'", 0, "unknown escape in character literal"),
        ("&& n", 0, "operand expected"),
        ("n & 1", 2, "unexpected character"),
        ("é", 0, "unexpected character"),
    ];
    for (s, at, msg) in cases {
        assert_eq!(parse_cond(s), Err(ParseError { at, msg }), "{s:?}");
    }
    let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    assert_eq!(parse_cond(&deep).unwrap_err().msg, "nested too deeply");
    let nots = format!("{}1", "!".repeat(10_000));
    assert!(parse_cond(&nots).is_err());
    // Every prefix of valid conditions parses or fails cleanly.
    let valid = "!(n == 5 || cfg.limit >= 0x2a) && p->x[3] != 'x' || $rdi < -1";
    for end in 0..=valid.len() {
        let _ = parse_cond(&valid[..end]);
    }
    let long_or = vec!["n == 1"; 5000].join(" || ");
    assert!(parse_cond(&long_or).is_ok(), "binary chains do not recurse");
}
