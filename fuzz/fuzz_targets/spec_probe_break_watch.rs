//! The spec languages of `rtrace break`, `rtrace watch` and `rtrace
//! kernel probe`: probe specs (`p:libc:malloc size=%di`), breakpoint
//! locations (`file.c:12`, `func+4`, `*0x401000`), the condition language
//! (parsed, then evaluated over values derived from the input),
//! variable paths (`cfg.origin.x`, `table[3]`), watch expressions, and the
//! three subcommands' whole command lines. The first byte picks the
//! parser; the rest is its input (command lines: NUL-separated arguments,
//! not necessarily UTF-8).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtrace::probe::cond::{self as bcond, EvalError, ValueProvider};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

/// Values derived from the name (so the evaluator meets zero, negative and
/// extreme operands), some names failing.
fn value_of(name: &str) -> Option<i64> {
    let h = name
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    match h % 6 {
        0 => None,
        1 => Some(0),
        2 => Some(-1),
        3 => Some(i64::MIN),
        4 => Some(i64::MAX),
        _ => Some(h as i64),
    }
}

struct Provider;

impl ValueProvider for Provider {
    fn dollar(&mut self, name: &str) -> Result<i64, EvalError> {
        value_of(name).ok_or_else(|| EvalError::UnknownRegister(name.into()))
    }
    fn variable(&mut self, name: &str) -> Result<i64, EvalError> {
        value_of(name).ok_or_else(|| EvalError::NoVariables(name.into()))
    }
}

fn args(data: &[u8]) -> Vec<OsString> {
    data.split(|&b| b == 0)
        .map(|a| OsString::from_vec(a.to_vec()))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match sel % 9 {
        0 => {
            let _ = rtrace::kernel::probe::parse_spec(&text);
        }
        1 => {
            if let Ok(spec) = rtrace::probe::spec::parse(&text) {
                let _ = spec.loc.is_glob();
            }
        }
        2 => {
            if let Ok(e) = bcond::parse(&text) {
                let _ = e.uses_variables();
                let _ = e.eval(&mut Provider);
            }
        }
        3 => {
            // Once the second condition language; its inputs (character
            // literals, `$pc`, deep nesting) now go to the one that is left.
            if let Ok(e) = bcond::parse(&text) {
                let _ = e.names();
                let _ = e.holds(&mut Provider);
            }
        }
        4 => {
            let _ = rtrace::vars::parse_path(&text);
        }
        5 => {
            if let Ok(e) = rtrace::watchpoint::spec::Expr::parse(&text) {
                let shown = e.to_string();
                let _ = rtrace::watchpoint::spec::Expr::parse(&shown);
            }
        }
        6 => {
            let _ = rtrace::breakpoint::cli::parse(&args(rest));
        }
        7 => {
            let _ = rtrace::watchpoint::cli::parse(&args(rest));
        }
        _ => {
            let mut a: Vec<std::ffi::OsString> = vec!["kernel".into(), "trace".into()];
            a.extend(args(rest));
            let _ = rtrace::app::parse(a);
        }
    }
});
