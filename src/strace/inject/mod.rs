//! Fault injection: `-e inject=SET[:error=ERRNO|:retval=VALUE][:signal=SIG]
//! [:syscall=SYSCALL][:delay_enter=DELAY][:delay_exit=DELAY][:when=EXPR]`
//! and `-e fault=SET[:error=ERRNO][:when=EXPR]`, with strace's syntax,
//! checks and semantics, plus rtrace's conditions ([`cond`]):
//! `:path=GLOB`, `:argN OP VALUE`, `:fd OP VALUE`.
//!
//! - A rule without conditions (strace's syntax) replaces the earlier rules
//!   without conditions for the syscalls it names, as in strace. A rule
//!   with conditions (targeted) is kept beside the others: a syscall may
//!   have several rules. At each traced call the rules of its syscall are
//!   tried in command-line order; every rule whose conditions hold counts
//!   the call, and the first of them whose `when=` fires acts.
//! - Invocations are counted per thread, per syscall and per rule, from the
//!   first traced one (the counters of a new thread or process start at
//!   zero); a targeted rule counts only the calls its conditions select;
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
//! - `--replay-faults` ([`super::replay`]) injects recorded errors before
//!   the rules are tried (the rules still count the call).
//!
//! The plan is [`Injections`] (parsed once); per-event work is one lookup
//! in a per-arch table, the conditions of that syscall's rules and one
//! counter update per matching rule.

pub mod cond;
pub mod poke;

use super::filter::{self, FilterError, PathRule, SyscallSet};
use super::replay::Replay;
use cond::{ArgKinds, Cond, EntryMem, Subject};
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

    /// Parses strace's `when=` expression (also rltrace's `--inject`).
    pub fn parse(v: &str) -> Option<When> {
        let num = |s: &str, min: u64| {
            filter::string_to_uint(s, MAX_WHEN)
                .filter(|&n| n >= min)
                .map(|n| n as u32)
        };
        let (range, step) = match v.split_once('+') {
            Some((r, "")) => (r, Some(1)),
            // A step of 0 is refused, as strace refuses it.
            Some((r, s)) => (r, Some(num(s, 1)?)),
            None => (v, None),
        };
        let (first, last) = match range.split_once("..") {
            Some((f, l)) => {
                let (f, l) = (num(f, 1)?, num(l, 1)?);
                // strace keeps 65535 for "no last": it is refused as a last.
                if l < f || u64::from(l) == MAX_WHEN {
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
    /// `ret` came from `retval=`: the call shows as a success whatever the
    /// value, as strace shows it (`retval=-1` prints `= 18446744073709551615`).
    pub retval: bool,
    /// Signal delivered as the syscall is entered.
    pub signal: Option<i32>,
    /// Syscall run instead (its name; resolved per personality).
    pub syscall: Option<String>,
    /// Hold at entry.
    pub delay_enter: Option<Duration>,
    /// Hold at exit.
    pub delay_exit: Option<Duration>,
    /// `poke_enter=` / `poke_exit=`: bytes written into the tracee.
    pub pokes: Vec<poke::Poke>,
}

/// One `-e inject=`/`-e fault=` rule.
#[derive(Clone, Debug)]
pub struct Rule {
    set: SyscallSet,
    /// What it does.
    pub action: Action,
    /// When.
    pub when: When,
    /// rtrace's conditions (empty: a strace rule).
    pub conds: Vec<Cond>,
}

/// The path and descriptor arguments of syscall `nr` (strace's `-P` table).
fn arg_kinds(arch: Arch, nr: u64) -> ArgKinds {
    let Some(info) = arch.info(nr) else {
        return ArgKinds::default();
    };
    match filter::path_rule(arch, info.name, info.classes) {
        PathRule::Args { fds, paths } => ArgKinds { paths, fds },
        _ => ArgKinds::default(),
    }
}

/// Parses a delay as strace's `parse_ts` does: a non-negative number,
/// integer or floating point (`8e5`, `.16E7`, `+8e8`), with an optional
/// unit suffix (`s`, `ms`, `us`, `ns`; microseconds without one).
pub(crate) fn parse_delay(v: &str) -> Option<Duration> {
    let n = v
        .find(|c: char| !"eE.-+0123456789".contains(c))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(n);
    let scale = match unit {
        "" | "us" => 1e-6,
        "ns" => 1e-9,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    };
    if num.is_empty() {
        return None;
    }
    let x: f64 = num.parse().ok()?;
    let secs = x * scale;
    (x >= 0.0 && secs.is_finite() && secs < 1e9).then(|| Duration::from_secs_f64(secs))
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
    u64::from_str_radix(digits, radix).ok()
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
        // rtrace's own errors say what is wrong.
        let why = |m: String| FilterError {
            msg: format!("invalid {what} argument '{val}': {m}"),
            hint: false,
        };
        let mut parts = val.split(':');
        let set = SyscallSet::parse(parts.next().unwrap_or(""))?;
        let mut a = Action::default();
        let mut when = When::default();
        let (mut error, mut retval) = (None, None);
        let mut conds: Vec<Cond> = Vec::new();
        for tok in parts {
            if let Some(c) = cond::parse_cmp(tok) {
                let c = c.map_err(why)?;
                if let Cond::Cmp(subj, ..) = c {
                    if conds
                        .iter()
                        .any(|o| matches!(o, Cond::Cmp(s, ..) if *s == subj))
                    {
                        return Err(why(format!(
                            "conflicting conditions on {}",
                            subject_name(subj)
                        )));
                    }
                }
                conds.push(c);
                continue;
            }
            let Some((k, v)) = tok.split_once('=') else {
                return Err(why(format!("'{tok}' is not KEY=VALUE")));
            };
            match k {
                "path" => {
                    if conds.iter().any(|c| matches!(c, Cond::Path(_))) {
                        return Err(why("conflicting path= conditions".into()));
                    }
                    conds.push(Cond::Path(cond::Glob::new(v).map_err(why)?));
                }
                "when" => when = When::parse(v).ok_or_else(bad)?,
                "error" if error.is_none() && retval.is_none() => {
                    error = Some(parse_errno(v).ok_or_else(bad)?)
                }
                "retval" if !fault && error.is_none() && retval.is_none() => {
                    let r = parse_c_ulong(v).ok_or_else(bad)?;
                    if (-4095..0).contains(&(r as i64)) {
                        // strace's warning: the tracee will take it for an error.
                        eprintln!(
                            "{}: Inadvertent injection of error {} is possible for retval={r}",
                            crate::strace::prog(),
                            -(r as i64)
                        );
                    }
                    retval = Some(r)
                }
                "signal" if !fault && a.signal.is_none() => {
                    let n = filter::signal_number(v).filter(|&n| (1..=64).contains(&n));
                    a.signal = Some(n.ok_or_else(bad)? as i32);
                }
                "syscall" if a.syscall.is_none() => {
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
                "poke_enter" | "poke_exit" if !fault => {
                    if !poke::parse(v, k == "poke_enter", &mut a.pokes) {
                        return Err(bad());
                    }
                }
                "error" | "retval" | "signal" | "syscall" | "delay_enter" | "delay_exit" => {
                    return Err(bad())
                }
                _ => return Err(why(format!("unknown key '{k}'"))),
            }
        }
        if fault && error.is_none() {
            error = Some(libc::ENOSYS as u64);
        }
        a.ret = error.map(|e| -(e as i64)).or(retval.map(|r| r as i64));
        a.retval = error.is_none() && retval.is_some();
        // Something to do. A substitute syscall alone is not an action (its
        // own result is returned), as in strace.
        let acts = a.ret.is_some()
            || a.signal.is_some()
            || a.delay_enter.is_some()
            || a.delay_exit.is_some()
            || !a.pokes.is_empty();
        if !acts {
            return Err(bad());
        }
        for (needs, kind) in [(has_path(&conds), "path"), (has_fd(&conds), "descriptor")] {
            if needs && !rule_args(&set, kind) {
                return Err(why(format!(
                    "no syscall in the set takes a {kind} argument"
                )));
            }
        }
        Ok(Rule {
            set,
            action: a,
            when,
            conds,
        })
    }

    /// Has conditions (rtrace's extension; kept beside other rules).
    pub fn targeted(&self) -> bool {
        !self.conds.is_empty()
    }
}

fn subject_name(s: Subject) -> String {
    match s {
        Subject::Fd => "fd".into(),
        Subject::Arg(i) => format!("arg{}", i + 1),
    }
}

fn has_path(conds: &[Cond]) -> bool {
    conds.iter().any(|c| matches!(c, Cond::Path(_)))
}

fn has_fd(conds: &[Cond]) -> bool {
    conds
        .iter()
        .any(|c| matches!(c, Cond::Cmp(Subject::Fd, ..)))
}

/// Does some syscall of `set` take a `kind` ("path" or "descriptor") argument?
fn rule_args(set: &SyscallSet, kind: &str) -> bool {
    Arch::native_personalities().iter().any(|&a| {
        (0..a.table_len() as u64).any(|nr| {
            let k = arg_kinds(a, nr);
            set.contains(a, nr) && !if kind == "path" { k.paths } else { k.fds }.is_empty()
        })
    })
}

/// What fired at one syscall entry; kept until its exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fired {
    /// The rule's action.
    pub action: Action,
    /// The number the syscall runs as instead (`-1` skips it), when the
    /// return value is injected.
    pub nr: Option<u64>,
    /// A `poke_enter=`/`poke_exit=` wrote into the tracee.
    pub poked: bool,
}

impl Fired {
    /// Held at entry or exit.
    pub fn delayed(&self) -> bool {
        self.action.delay_enter.is_some() || self.action.delay_exit.is_some()
    }

    /// The markers strace appends to the line: ` (INJECTED)`,
    /// ` (INJECTED: args)`, ` (INJECTED: args, retval)`, ` (DELAYED)`.
    pub fn marks(&self) -> &'static str {
        match (self.poked, self.action.ret.is_some(), self.delayed()) {
            (true, true, true) => " (INJECTED: args, retval) (DELAYED)",
            (true, true, false) => " (INJECTED: args, retval)",
            (true, false, true) => " (INJECTED: args) (DELAYED)",
            (true, false, false) => " (INJECTED: args)",
            (false, true, true) => " (INJECTED) (DELAYED)",
            (false, true, false) => " (INJECTED)",
            (false, false, true) => " (DELAYED)",
            (false, false, false) => "",
        }
    }
}

/// One rule as it applies to one syscall.
#[derive(Clone, Copy, Debug)]
struct Slot {
    rule: u16,
    kinds: ArgKinds,
}

/// One traced (or, for replay, untraced) syscall entry.
pub struct Call<'a> {
    /// Thread.
    pub tid: i32,
    /// Personality.
    pub arch: Arch,
    /// Number.
    pub nr: u64,
    /// Name, if known.
    pub name: Option<&'static str>,
    /// Raw arguments.
    pub args: &'a [u64; 6],
    /// Selected by `-e trace=` (rules only act on traced calls).
    pub traced: bool,
}

/// Every rule, resolved per personality, the per-thread counters and the
/// `--replay-faults` state.
#[derive(Debug, Default)]
pub struct Injections {
    rules: Vec<Rule>,
    /// Per personality: syscall number -> the rules that apply, in order.
    table: HashMap<Arch, Vec<Vec<Slot>>>,
    /// (thread, personality, syscall, rule) -> invocations so far.
    counts: HashMap<(i32, Arch, u64, u16), u32>,
    replay: Option<Replay>,
}

impl Injections {
    /// Resolves `rules` (in command-line order): a rule without conditions
    /// replaces the earlier ones without conditions for its syscalls.
    pub fn new(rules: Vec<Rule>) -> Injections {
        let mut table = HashMap::new();
        if !rules.is_empty() {
            for &a in Arch::native_personalities() {
                let n = a.table_len();
                let mut t: Vec<Vec<Slot>> = vec![Vec::new(); n];
                for (i, r) in rules.iter().enumerate() {
                    for (nr, slots) in t.iter_mut().enumerate() {
                        if !r.set.contains(a, nr as u64) {
                            continue;
                        }
                        if !r.targeted() {
                            slots.retain(|s| rules[s.rule as usize].targeted());
                        }
                        slots.push(Slot {
                            rule: i as u16,
                            kinds: arg_kinds(a, nr as u64),
                        });
                    }
                }
                table.insert(a, t);
            }
        }
        Injections {
            rules,
            table,
            counts: HashMap::new(),
            replay: None,
        }
    }

    /// Adds the `--replay-faults` state.
    pub fn with_replay(mut self, replay: Option<Replay>) -> Injections {
        self.replay = replay;
        self
    }

    /// No rules and nothing to replay.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.replay.is_none()
    }

    /// The syscalls of `arch` some rule or the replay applies to (they must stop).
    pub fn numbers(&self, arch: Arch) -> Vec<u32> {
        let mut v: Vec<u32> = self.table.get(&arch).map_or(Vec::new(), |t| {
            (0..t.len() as u32)
                .filter(|&i| !t[i as usize].is_empty())
                .collect()
        });
        if let Some(r) = &self.replay {
            v.extend(r.plan().numbers(arch));
            v.sort_unstable();
            v.dedup();
        }
        v
    }

    /// Counts an entry; what to do if a recorded error or a rule fires.
    /// `mem` reads path arguments (kept for the decoder).
    pub fn on_entry(&mut self, c: &Call, mem: &mut EntryMem) -> Option<Fired> {
        let mut fired = None;
        if let Some(r) = self.replay.as_mut() {
            if let Some(errno) = r.on_entry(c.tid, c.arch, c.nr, c.name) {
                fired = Some(Fired {
                    action: Action {
                        ret: Some(-(errno as i64)),
                        ..Action::default()
                    },
                    nr: Some(u64::MAX),
                    poked: false,
                });
            }
        }
        if !c.traced {
            return fired;
        }
        let Some(slots) = self.table.get(&c.arch).and_then(|t| t.get(c.nr as usize)) else {
            return fired;
        };
        for s in slots {
            let rule = &self.rules[s.rule as usize];
            if !cond::all_hold(&rule.conds, s.kinds, c.arch, c.args, mem) {
                continue;
            }
            let n = self
                .counts
                .entry((c.tid, c.arch, c.nr, s.rule))
                .or_insert(0);
            *n = n.saturating_add(1);
            if fired.is_some() || !rule.when.fires(*n) {
                continue;
            }
            let action = rule.action.clone();
            // As in strace, a substitute syscall runs only in place of an
            // injected error or return value.
            let nr = match (&action.ret, &action.syscall) {
                (None, _) => None,
                (Some(_), None) => Some(u64::MAX),
                (Some(_), Some(name)) => Some(c.arch.syscall_nr(name).map_or(u64::MAX, u64::from)),
            };
            fired = Some(Fired {
                action,
                nr,
                poked: false,
            });
        }
        fired
    }

    /// A new task (for `--replay-faults`' process identities).
    pub fn new_task(&mut self, parent: i32, child: i32, thread: bool) {
        if let Some(r) = self.replay.as_mut() {
            r.new_task(parent, child, thread);
        }
    }

    /// Forgets a thread that is gone (its tid may be reused).
    pub fn forget(&mut self, tid: i32) {
        if !self.counts.is_empty() {
            self.counts.retain(|k, _| k.0 != tid);
        }
        if let Some(r) = self.replay.as_mut() {
            r.forget(tid);
        }
    }

    /// Lines for the end of the run (`--replay-faults`' summary).
    pub fn report(&self) -> Vec<String> {
        self.replay.as_ref().map_or(Vec::new(), Replay::report)
    }
}

#[cfg(test)]
mod tests;
