//! Fault injection: `-e inject=SET[:error=ERRNO|:retval=VALUE][:signal=SIG]
//! [:syscall=SYSCALL][:delay_enter=DELAY][:delay_exit=DELAY][:when=EXPR]`
//! and `-e fault=SET[:error=ERRNO][:when=EXPR]`, with strace's syntax,
//! checks and semantics:
//!
//! - A later rule replaces an earlier one for the syscalls it names.
//! - Invocations are counted per thread and per syscall, from the first
//!   traced one (the counters of a new thread or process start at zero);
//!   only traced syscalls are counted and tampered with.
//! - `when=FIRST` fires once, `FIRST+` from FIRST on, `FIRST+STEP` every
//!   STEP-th from FIRST, `FIRST..LAST[+STEP]` up to LAST; the default is
//!   every call. Numbers are 1..=65535 (STEP 0..=65535).
//! - `error=`/`retval=` skip the syscall (its number becomes -1, or the
//!   pure syscall `syscall=` names) and set the return value at exit; the
//!   line ends in ` (INJECTED)`. `signal=` delivers the signal as the call
//!   is entered (`si_code` `SI_KERNEL`, as strace does through the restart
//!   of the syscall-entry stop); `delay_enter=`/`delay_exit=` hold the
//!   thread at entry or exit (units `s`, `ms`, `us` (default), `ns`) and
//!   add ` (DELAYED)`.
//!
//! The plan is [`Injections`] (parsed once); per-event work is one lookup
//! in a per-arch table and one counter update.

use super::filter::{self, FilterError, SyscallSet};
use rtrace_arch::Arch;
use std::collections::HashMap;
use std::time::Duration;

/// Largest errno strace accepts (`MAX_ERRNO_VALUE`).
const MAX_ERRNO: u64 = 4095;
/// Largest `when=` number.
const MAX_WHEN: u64 = 65535;

/// When a rule fires, in per-thread invocation numbers (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct When {
    /// First invocation that fires.
    pub first: u32,
    /// Last one that may fire (`None`: no end).
    pub last: Option<u32>,
    /// Distance between firing invocations (0: only `first`).
    pub step: u32,
}

impl Default for When {
    fn default() -> When {
        When {
            first: 1,
            last: None,
            step: 1,
        }
    }
}

impl When {
    /// Does the `n`-th invocation fire?
    pub fn fires(&self, n: u32) -> bool {
        if n < self.first || self.last.is_some_and(|l| n > l) {
            return false;
        }
        match self.step {
            0 => n == self.first,
            s => (n - self.first).is_multiple_of(s),
        }
    }

    fn parse(v: &str) -> Option<When> {
        let num = |s: &str, min: u64| {
            filter::string_to_uint(s, MAX_WHEN)
                .filter(|&n| n >= min)
                .map(|n| n as u32)
        };
        let (range, step) = match v.split_once('+') {
            Some((r, "")) => (r, Some(1)),
            Some((r, s)) => (r, Some(num(s, 0)?)),
            None => (v, None),
        };
        let (first, last) = match range.split_once("..") {
            Some((f, l)) => {
                let (f, l) = (num(f, 1)?, num(l, 1)?);
                if l < f {
                    return None;
                }
                (f, Some(l))
            }
            None => (num(range, 1)?, None),
        };
        let step = match (step, last) {
            (Some(s), _) => s,
            // FIRST..LAST: every call in the range.
            (None, Some(_)) => 1,
            (None, None) => 0,
        };
        Some(When { first, last, step })
    }
}

/// What a rule does when it fires.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Action {
    /// Return value set at exit (`-errno` for `error=`); the syscall is
    /// skipped.
    pub ret: Option<i64>,
    /// Signal delivered as the syscall is entered.
    pub signal: Option<i32>,
    /// Syscall run instead (its name; resolved per personality).
    pub syscall: Option<String>,
    /// Hold at entry.
    pub delay_enter: Option<Duration>,
    /// Hold at exit.
    pub delay_exit: Option<Duration>,
}

/// One `-e inject=`/`-e fault=` rule.
#[derive(Clone, Debug)]
pub struct Rule {
    set: SyscallSet,
    /// What it does.
    pub action: Action,
    /// When.
    pub when: When,
}

/// Parses a delay: a non-negative decimal with an optional unit suffix
/// (`s`, `ms`, `us`, `ns`; microseconds without one).
fn parse_delay(v: &str) -> Option<Duration> {
    let (num, scale) = [("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)]
        .iter()
        .find_map(|(u, k)| v.strip_suffix(u).map(|n| (n, *k)))
        .unwrap_or((v, 1e-6));
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let x: f64 = num.parse().ok()?;
    let secs = x * scale;
    (secs.is_finite() && secs < 1e9).then(|| Duration::from_secs_f64(secs))
}

/// A non-negative number as C's `strtoul(v, .., 0)` reads it (decimal,
/// `0x` hex, `0` octal), the whole string, at most `i64::MAX`.
fn parse_c_ulong(v: &str) -> Option<u64> {
    let (digits, radix) = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None if v.len() > 1 && v.starts_with('0') => (&v[1..], 8),
        None => (v, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix)
        .ok()
        .filter(|&n| n <= i64::MAX as u64)
}

fn parse_errno(v: &str) -> Option<u64> {
    if v.starts_with(|c: char| c.is_ascii_digit()) {
        return filter::string_to_uint(v, MAX_ERRNO).filter(|&n| n >= 1);
    }
    rtrace_arch::tables::errno_value(&v.to_ascii_uppercase()).map(u64::from)
}

/// Is `name` a syscall `syscall=` may substitute (strace's "pure" class:
/// no arguments, no side effects)?
fn pure(name: &str) -> bool {
    rtrace_arch::tables::syscall_info(name)
        .is_some_and(|i| i.classes.contains(rtrace_arch::tables::Classes::PURE))
}

impl Rule {
    /// Parses the value of `-e inject=` (`fault` false) or `-e fault=`.
    pub fn parse(val: &str, fault: bool) -> Result<Rule, FilterError> {
        let what = if fault { "fault" } else { "inject" };
        let bad = || FilterError {
            msg: format!("invalid {what} argument '{val}'"),
            hint: false,
        };
        let mut parts = val.split(':');
        let set = SyscallSet::parse(parts.next().unwrap_or(""))?;
        let mut a = Action::default();
        let mut when = When::default();
        let (mut error, mut retval) = (None, None);
        for tok in parts {
            let (k, v) = tok.split_once('=').ok_or_else(bad)?;
            match k {
                "when" => when = When::parse(v).ok_or_else(bad)?,
                "error" if error.is_none() && retval.is_none() => {
                    error = Some(parse_errno(v).ok_or_else(bad)?)
                }
                "retval" if !fault && error.is_none() && retval.is_none() => {
                    retval = Some(parse_c_ulong(v).ok_or_else(bad)?)
                }
                "signal" if !fault && a.signal.is_none() => {
                    let n = filter::signal_number(v).filter(|&n| (1..=64).contains(&n));
                    a.signal = Some(n.ok_or_else(bad)? as i32);
                }
                "syscall" if !fault && a.syscall.is_none() => {
                    if !pure(v) {
                        return Err(bad());
                    }
                    a.syscall = Some(v.to_string());
                }
                "delay_enter" if !fault && a.delay_enter.is_none() => {
                    a.delay_enter = Some(parse_delay(v).ok_or_else(bad)?)
                }
                "delay_exit" if !fault && a.delay_exit.is_none() => {
                    a.delay_exit = Some(parse_delay(v).ok_or_else(bad)?)
                }
                _ => return Err(bad()),
            }
        }
        if fault && error.is_none() {
            error = Some(libc::ENOSYS as u64);
        }
        a.ret = error.map(|e| -(e as i64)).or(retval.map(|r| r as i64));
        // Something to do; a substitute syscall needs a return value.
        let acts = a.ret.is_some()
            || a.signal.is_some()
            || a.delay_enter.is_some()
            || a.delay_exit.is_some();
        if !acts || (a.syscall.is_some() && a.ret.is_none()) {
            return Err(bad());
        }
        Ok(Rule {
            set,
            action: a,
            when,
        })
    }
}

/// What fired at one syscall entry; kept until its exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fired {
    /// The rule's action.
    pub action: Action,
    /// The number the syscall runs as instead (`-1` skips it), when the
    /// return value is injected.
    pub nr: Option<u64>,
}

impl Fired {
    /// Held at entry or exit.
    pub fn delayed(&self) -> bool {
        self.action.delay_enter.is_some() || self.action.delay_exit.is_some()
    }

    /// The markers strace appends to the line: ` (INJECTED)`, ` (DELAYED)`.
    pub fn marks(&self) -> &'static str {
        match (self.action.ret.is_some(), self.delayed()) {
            (true, true) => " (INJECTED) (DELAYED)",
            (true, false) => " (INJECTED)",
            (false, true) => " (DELAYED)",
            (false, false) => "",
        }
    }
}

/// Every rule, resolved per personality, and the per-thread counters.
#[derive(Debug, Default)]
pub struct Injections {
    rules: Vec<Rule>,
    /// Per personality: syscall number -> index of the rule that applies.
    table: HashMap<Arch, Vec<Option<u16>>>,
    /// (thread, personality, syscall) -> invocations so far.
    counts: HashMap<(i32, Arch, u64), u32>,
}

impl Injections {
    /// Resolves `rules` (in command-line order; later ones win).
    pub fn new(rules: Vec<Rule>) -> Injections {
        let mut table = HashMap::new();
        if !rules.is_empty() {
            for &a in Arch::native_personalities() {
                let n = a.table_len();
                let mut t = vec![None; n];
                for (i, r) in rules.iter().enumerate() {
                    for (nr, slot) in t.iter_mut().enumerate() {
                        if r.set.contains(a, nr as u64) {
                            *slot = Some(i as u16);
                        }
                    }
                }
                table.insert(a, t);
            }
        }
        Injections {
            rules,
            table,
            counts: HashMap::new(),
        }
    }

    /// No rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The syscalls of `arch` some rule applies to (they must stop).
    pub fn numbers(&self, arch: Arch) -> Vec<u32> {
        self.table.get(&arch).map_or(Vec::new(), |t| {
            (0..t.len() as u32)
                .filter(|&i| t[i as usize].is_some())
                .collect()
        })
    }

    /// Counts a traced entry of `nr` by `tid`; what to do if a rule fires.
    pub fn on_entry(&mut self, tid: i32, arch: Arch, nr: u64) -> Option<Fired> {
        let idx = (*self.table.get(&arch)?.get(nr as usize)?)?;
        let n = self.counts.entry((tid, arch, nr)).or_insert(0);
        *n = n.saturating_add(1);
        let rule = &self.rules[idx as usize];
        if !rule.when.fires(*n) {
            return None;
        }
        let action = rule.action.clone();
        let nr = match (&action.ret, &action.syscall) {
            (None, _) => None,
            (Some(_), None) => Some(u64::MAX),
            (Some(_), Some(name)) => Some(arch.syscall_nr(name).map_or(u64::MAX, u64::from)),
        };
        Some(Fired { action, nr })
    }

    /// Forgets a thread that is gone (its tid may be reused).
    pub fn forget(&mut self, tid: i32) {
        if !self.counts.is_empty() {
            self.counts.retain(|k, _| k.0 != tid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(v: &str) -> Result<Rule, String> {
        Rule::parse(v, false).map_err(|e| e.msg)
    }

    #[test]
    fn when_forms() {
        let w = |s| When::parse(s).unwrap();
        let fired = |w: When| (1..=12).filter(|&n| w.fires(n)).collect::<Vec<_>>();
        assert_eq!(fired(w("3")), vec![3]);
        assert_eq!(fired(w("10+")), vec![10, 11, 12]);
        assert_eq!(fired(w("2+4")), vec![2, 6, 10]);
        assert_eq!(fired(w("2..4")), vec![2, 3, 4]);
        assert_eq!(fired(w("1..2+3")), vec![1]);
        assert_eq!(fired(w("1..9+4")), vec![1, 5, 9]);
        assert_eq!(fired(When::default()).len(), 12);
        for bad in ["0", "65536", "3..2", "3..", "", "x", "2+65536", "+3"] {
            assert!(When::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn rules_as_strace_checks_them() {
        let r = rule("openat:error=ENOENT:when=3").unwrap();
        assert_eq!(r.action.ret, Some(-2));
        assert_eq!(rule("openat:error=eio").unwrap().action.ret, Some(-5));
        assert_eq!(rule("openat:error=4095").unwrap().action.ret, Some(-4095));
        assert_eq!(rule("openat:retval=0x10").unwrap().action.ret, Some(16));
        assert_eq!(rule("openat:retval=010").unwrap().action.ret, Some(8));
        assert_eq!(rule("openat:retval=0").unwrap().action.ret, Some(0));
        assert_eq!(
            rule("openat:signal=SIGUSR1").unwrap().action.signal,
            Some(10)
        );
        let d = rule("openat:delay_enter=10ms:delay_exit=1.5")
            .unwrap()
            .action;
        assert_eq!(d.delay_enter, Some(Duration::from_millis(10)));
        assert_eq!(d.delay_exit, Some(Duration::from_nanos(1500)));
        assert_eq!(
            rule("openat:syscall=getpid:error=ENOENT")
                .unwrap()
                .action
                .syscall
                .as_deref(),
            Some("getpid")
        );
        let f = Rule::parse("openat:when=4", true).unwrap();
        assert_eq!(f.action.ret, Some(-(libc::ENOSYS as i64)));
        for bad in [
            "openat",
            "openat:error=FOO",
            "openat:error=4096",
            "openat:when=0",
            "openat:retval=1:error=EIO",
            "openat:error=EIO:error=ENOENT",
            "openat:syscall=write:error=EIO",
            "openat:syscall=getpid",
            "openat:signal=99",
            "openat:delay_enter=abc",
            "openat:delay_exit=-5",
            "openat:frob=1",
        ] {
            assert_eq!(
                rule(bad).unwrap_err(),
                format!("invalid inject argument '{bad}'")
            );
        }
        for bad in ["openat:retval=1", "openat:signal=SIGUSR1"] {
            assert!(Rule::parse(bad, true).is_err(), "{bad}");
        }
        assert_eq!(
            rule("nosuch:error=EIO").unwrap_err(),
            "invalid system call 'nosuch'"
        );
    }

    #[test]
    fn counts_per_thread_and_syscall_later_rules_win() {
        let a = Arch::native();
        let open = a.syscall_nr("openat").unwrap() as u64;
        let close = a.syscall_nr("close").unwrap() as u64;
        let mut inj = Injections::new(vec![
            rule("openat,close:error=EIO:when=2").unwrap(),
            rule("close:retval=7:when=1").unwrap(),
        ]);
        assert_eq!(inj.on_entry(1, a, open), None);
        let f = inj.on_entry(1, a, open).unwrap();
        assert_eq!((f.action.ret, f.nr), (Some(-5), Some(u64::MAX)));
        assert_eq!(f.marks(), " (INJECTED)");
        assert_eq!(inj.on_entry(1, a, open), None);
        // Another thread counts from 1 again.
        assert_eq!(inj.on_entry(2, a, open), None);
        assert!(inj.on_entry(2, a, open).is_some());
        // close: the later rule.
        assert_eq!(inj.on_entry(1, a, close).unwrap().action.ret, Some(7));
        assert_eq!(inj.on_entry(1, a, close), None);
        assert_eq!(inj.numbers(a).len(), 2);
        inj.forget(1);
        assert_eq!(inj.on_entry(1, a, open), None);
    }
}
