//! `--inject FUNC:retval=N[:error=ERRNO][:when=EXPR]`: library calls that
//! are not run.
//!
//! At the entry breakpoint of a traced call whose rule fires, rltrace does
//! what the function's `ret` would do without running any of it: the
//! return register gets N, the return address is popped off the stack into
//! the program counter, and the thread goes on after the call. With
//! `error=E` the calling thread's `errno` is set to E as well (and the
//! return value defaults to -1, libc's convention): `errno`'s address is
//! found the way libc's own `__errno_location` finds it — its first
//! instruction loads the thread-pointer offset of libc's `errno` from the
//! GOT (`mov rax, [rip+X]`), then adds the thread pointer (`fs:0`) —
//! by decoding that instruction and reading the slot and `fs:0` in the
//! tracee. When libc's `__errno_location` does not have that shape,
//! `error=` is refused at the first injection with a message instead of
//! being ignored.
//!
//! `when=` has strace's syntax and meaning (`N`, `N+`, `N+S`, `N..M`,
//! `N..M+S`; default every call), reusing rstrace's
//! [`crate::strace::inject::When`]. Calls are counted per process (the
//! program's n-th call of FUNC, as `--replay-faults` indexes them), per
//! rule, from the first traced call; only traced calls count (a call the
//! filter does not select is neither counted nor injected). The first rule
//! naming FUNC whose `when=` fires acts.

use crate::strace::inject::When;
use std::collections::HashMap;

/// One `--inject` rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// The function (as in the prototype tables, mangled for C++).
    pub func: String,
    /// The value the call returns.
    pub retval: u64,
    /// `errno` to set.
    pub error: Option<i32>,
    /// Which calls.
    pub when: When,
}

/// What to do with one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action {
    /// Return value.
    pub retval: u64,
    /// `errno` to set.
    pub error: Option<i32>,
}

/// The rules and their per-process counters.
#[derive(Default)]
pub struct Injector {
    rules: Vec<Rule>,
    /// (process key, rule index) → calls counted.
    counts: HashMap<(u64, usize), u32>,
}

fn parse_num(s: &str) -> Option<u64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<u64>().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

fn errno_of(v: &str) -> Option<i32> {
    if let Ok(n) = v.parse::<i32>() {
        return (1..=4095).contains(&n).then_some(n);
    }
    (1..=4095).find(|&n| rtrace_arch::tables::errno_name(n as u64) == Some(v))
}

impl Rule {
    /// Parses `FUNC:retval=N[:error=ERRNO][:when=EXPR]`.
    pub fn parse(spec: &str) -> Result<Rule, String> {
        let bad = |m: &str| format!("invalid --inject '{spec}': {m}");
        let mut parts = spec.split(':');
        let func = parts.next().unwrap_or("");
        if func.is_empty() || func.contains(['*', '?', '[', '@']) {
            return Err(bad("expected a function name first"));
        }
        let (mut retval, mut error, mut when) = (None, None, When::default());
        for p in parts {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| bad(&format!("'{p}' is not KEY=VALUE")))?;
            match k {
                "retval" => retval = Some(parse_num(v).ok_or_else(|| bad("bad retval"))?),
                "error" => error = Some(errno_of(v).ok_or_else(|| bad("unknown errno"))?),
                "when" => when = When::parse(v).ok_or_else(|| bad("bad when= expression"))?,
                _ => return Err(bad(&format!("unknown key '{k}'"))),
            }
        }
        let retval = match (retval, error) {
            (Some(r), _) => r,
            (None, Some(_)) => u64::MAX,
            (None, None) => return Err(bad("retval= or error= is required")),
        };
        Ok(Rule {
            func: func.to_string(),
            retval,
            error,
            when,
        })
    }
}

impl Injector {
    /// The rules of the `--inject` options, in order.
    pub fn parse(specs: &[String]) -> Result<Injector, String> {
        let rules = specs
            .iter()
            .map(|s| Rule::parse(s))
            .collect::<Result<_, _>>()?;
        Ok(Injector {
            rules,
            counts: HashMap::new(),
        })
    }

    /// No rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// A traced call of `func` in process `proc`: counts it for every rule
    /// naming `func`; the first rule that fires says what to do.
    pub fn on_call(&mut self, proc: u64, func: &str) -> Option<Action> {
        let mut act = None;
        for (i, r) in self.rules.iter().enumerate() {
            if r.func != func {
                continue;
            }
            let n = self.counts.entry((proc, i)).or_default();
            *n = n.saturating_add(1);
            if act.is_none() && r.when.fires(*n) {
                act = Some(Action {
                    retval: r.retval,
                    error: r.error,
                });
            }
        }
        act
    }

    /// A process is gone: its counters go too.
    pub fn forget(&mut self, proc: u64) {
        self.counts.retain(|k, _| k.0 != proc);
    }
}

/// Where libc's `errno` is for a thread: from the code of
/// `__errno_location` at `func` (`mov rax, [rip+disp32]` after an optional
/// `endbr64`, then `add rax, fs:0`), the offset in the GOT slot it loads,
/// and the thread pointer at `fs:0` (`tp_slot` is the thread's `fs` base).
pub fn errno_address(
    code: &[u8],
    func: u64,
    read_u64: &mut dyn FnMut(u64) -> Option<u64>,
    tp_slot: u64,
) -> Option<u64> {
    const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];
    const MOV_RAX_RIP: [u8; 3] = [0x48, 0x8b, 0x05];
    const ADD_RAX_FS0: [u8; 9] = [0x64, 0x48, 0x03, 0x04, 0x25, 0, 0, 0, 0];
    let skip = if code.starts_with(&ENDBR64) { 4 } else { 0 };
    let c = code.get(skip..)?;
    if !c.starts_with(&MOV_RAX_RIP) || c.get(7..16)? != ADD_RAX_FS0 {
        return None;
    }
    let disp = i32::from_le_bytes(c[3..7].try_into().ok()?) as i64;
    let next = func.wrapping_add(skip as u64 + 7);
    let slot = next.wrapping_add(disp as u64);
    let off = read_u64(slot)?;
    let tp = read_u64(tp_slot)?;
    Some(tp.wrapping_add(off))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_as_strace_writes_them() {
        let r = Rule::parse("malloc:retval=0:when=3").unwrap();
        assert_eq!(r.func, "malloc");
        assert_eq!(r.retval, 0);
        assert_eq!(r.when.first, 3);
        assert!(r.when.fires(3) && !r.when.fires(4) && !r.when.fires(2));
        let r = Rule::parse("open:error=ENOENT:when=2+3").unwrap();
        assert_eq!(r.retval, u64::MAX);
        assert_eq!(r.error, Some(2));
        assert!(r.when.fires(2) && r.when.fires(5) && !r.when.fires(4));
        let r = Rule::parse("f:retval=-5:when=2..3").unwrap();
        assert_eq!(r.retval as i64, -5);
        assert!(!r.when.fires(1) && r.when.fires(2) && r.when.fires(3) && !r.when.fires(4));
        let r = Rule::parse("f:retval=0x10:when=4+").unwrap();
        assert_eq!(r.retval, 16);
        assert!(r.when.fires(4) && r.when.fires(9) && !r.when.fires(3));
        for bad in [
            "malloc",
            "malloc:retval=x",
            "malloc:retval=0:when=0",
            "malloc:retval=0:when=3..2",
            "mal*:retval=0",
            ":retval=0",
            "malloc:error=ENOTANERRNO",
            "malloc:colour=red",
        ] {
            assert!(Rule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn counts_per_process_and_rule() {
        let mut inj =
            Injector::parse(&["malloc:retval=0:when=2".into(), "malloc:retval=7".into()]).unwrap();
        let first = inj.on_call(1, "malloc");
        assert_eq!(first.map(|a| a.retval), Some(7), "rule 2 fires on call 1");
        assert_eq!(inj.on_call(1, "malloc").map(|a| a.retval), Some(0));
        assert_eq!(inj.on_call(2, "malloc").map(|a| a.retval), Some(7));
        assert_eq!(inj.on_call(1, "free"), None);
        inj.forget(1);
        assert_eq!(inj.on_call(1, "malloc").map(|a| a.retval), Some(7));
    }

    #[test]
    fn errno_address_from_libc_code() {
        // mov rax,[rip+0x10]; add rax,fs:0; ret — at 0x1000, slot 0x1017.
        let mut code = vec![0x48, 0x8b, 0x05, 0x10, 0, 0, 0];
        code.extend_from_slice(&[0x64, 0x48, 0x03, 0x04, 0x25, 0, 0, 0, 0, 0xc3]);
        let mut rd = |a: u64| match a {
            0x1017 => Some((-0x48i64) as u64),
            0x7000 => Some(0x7000),
            _ => None,
        };
        assert_eq!(
            errno_address(&code, 0x1000, &mut rd, 0x7000),
            Some(0x7000 - 0x48)
        );
        let mut with_endbr = vec![0xf3, 0x0f, 0x1e, 0xfa];
        with_endbr.extend_from_slice(&code);
        let mut rd2 = |a: u64| match a {
            0x101b => Some(8),
            0x7000 => Some(0x7000),
            _ => None,
        };
        assert_eq!(
            errno_address(&with_endbr, 0x1000, &mut rd2, 0x7000),
            Some(0x7008)
        );
        assert_eq!(errno_address(&[0x90; 20], 0x1000, &mut rd, 0x7000), None);
    }
}
