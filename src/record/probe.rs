//! `rtrace record --probe SPEC`: rtrace break's breakpoints and return
//! probes in the same ptrace session as the recorded syscalls.
//!
//! [`Probes`] is a [`Layer`] in front of rstrace's handler
//! ([`crate::strace::run_layered`]): every engine event goes to a
//! [`Breaker`] (which places breakpoints at each exec and library load,
//! copies them into forked children and follows threads) and to rstrace's
//! handler alike. A SIGTRAP raised by an INT3 (`si_code` `SI_KERNEL`) is
//! held back from rstrace until the breaker has seen the stop: a trap at
//! one of its sites or at its return trampoline is its own (suppressed, the
//! displaced instruction emulated or run out of line, so the program goes
//! on); any other SIGTRAP reaches rstrace, which records it as a signal as
//! it would without probes. The same test applies to the traps the engine
//! collects while it stops every thread to detach (no `Signal` event
//! precedes those). Detaching (rtrace interrupted) goes through the
//! breaker first, so code bytes, hijacked return addresses and the
//! out-of-line page are restored in every process let go. A thread caught
//! at a syscall-entry stop (which `rtrace break`, running without syscall
//! stops, never sees) cannot run the `munmap` that removes the page, so it
//! is first moved to that call's exit stop with the call skipped, and left
//! to run the call again after the detach ([`leave_syscall_entry`]).
//!
//! The breaker writes its hits as `rtrace break --json` lines into a
//! buffer; after each stop they become trace-file `probe` events written
//! through rstrace's sink (so they sit in file order with the syscalls):
//! `type` `probe`, `pid` the thread (as in every event of a trace file),
//! `ts_ns` the wall clock at the stop in nanoseconds since the Unix epoch
//! (the clock of the syscall events), `kind` `hit` or `return`, `tgid` the process, then
//! rtrace break's fields unchanged (`spec`, `tid`, `addr`, `location`,
//! `depth`, `function` and `args` from DWARF; for returns `retval`,
//! `dur_ns`, `entry_args`).

use crate::breakpoint::cli::Options as BreakOptions;
use crate::breakpoint::hit::Breaker;
use crate::breakpoint::report::Sink as BreakSink;
use crate::engine::memory::proc::ProcMem;
use crate::engine::memory::Memory;
use crate::engine::ptrace::{self, info_op, Tid};
use crate::engine::status::{classify, Status};
use crate::engine::tracee::Tracee;
use crate::engine::{Event, Handler, Resume, Stamp};
use crate::probe::spec::{self, Spec};
use crate::strace::trace::Strace;
use crate::strace::Layer;
use crate::value::json::push_str;
use rtrace_arch::x86_64::{reg_index, PC, RET};
use serde_json::Value;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::rc::Rc;
use std::time::SystemTime;

/// `si_code` of the SIGTRAP an INT3 raises.
const SI_KERNEL: i32 = 0x80;

/// Parses the `--probe` specs (rtrace break's syntax); the error names the
/// spec.
pub fn parse_specs(texts: &[String]) -> Result<Vec<Spec>, String> {
    texts
        .iter()
        .map(|t| spec::parse(t).map_err(|e| format!("--probe '{t}': {e}")))
        .collect()
}

/// The breaker's output buffer.
#[derive(Clone, Default)]
struct Buf(Rc<RefCell<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Breakpoints sharing the recording's session (see the module docs).
pub struct Probes {
    bp: Breaker,
    out: Buf,
    /// An INT3-like SIGTRAP whose `Signal` event waits for the breaker's
    /// verdict: the thread and the event's stamp.
    held: Option<(Tid, Stamp)>,
}

impl Probes {
    /// A breaker for `specs`, following forks (a recording always does).
    pub fn new(specs: Vec<Spec>) -> Probes {
        let out = Buf::default();
        let mut o = BreakOptions {
            specs,
            json: true,
            follow: true,
            ..BreakOptions::default()
        };
        let sink = BreakSink::new(Box::new(out.clone()), true);
        Probes {
            bp: Breaker::new(&mut o, sink),
            out,
            held: None,
        }
    }

    /// Writes the breaker's records as `probe` events (dropping its other
    /// lines, e.g. `killed`, which rstrace records itself).
    fn drain(&mut self, s: &mut Strace, wall: SystemTime) {
        let bytes = std::mem::take(&mut *self.out.0.borrow_mut());
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            if let Some((tid, text)) = probe_line(line, wall) {
                s.write_foreign_line(tid, &text);
            }
        }
    }

    /// After the run: what the user should hear about (specs that matched
    /// nothing, unusable debug information), one message each.
    pub fn finish(&mut self) -> Vec<String> {
        let mut msgs: Vec<String> = self
            .bp
            .unplaced()
            .into_iter()
            .map(|(s, why)| match why {
                Some(w) => format!("probe '{s}' matched nothing ({w})"),
                None => format!("probe '{s}' matched nothing"),
            })
            .collect();
        msgs.extend(
            self.bp
                .symbol_warnings()
                .into_iter()
                .map(|w| format!("warning: {w}; recording went on without it")),
        );
        self.bp.finish();
        self.out.0.borrow_mut().clear();
        msgs
    }
}

/// One `rtrace break --json` record as a trace-file `probe` line (with
/// its newline) and the thread it belongs to; `None` for other records.
fn probe_line(line: &[u8], wall: SystemTime) -> Option<(Tid, String)> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let kind = match v["type"].as_str()? {
        k @ ("hit" | "return") => k,
        _ => return None,
    };
    let tid = v["tid"].as_i64()? as Tid;
    let mut out = format!(
        "{{\"type\":\"probe\",\"pid\":{tid},\"ts_ns\":{},\"kind\":\"{kind}\",\"tgid\":{}",
        crate::value::json::unix_ns(wall),
        v["pid"]
    );
    for (k, val) in v.as_object()? {
        if matches!(k.as_str(), "type" | "pid" | "ts_ns") {
            continue;
        }
        out.push(',');
        push_str(&mut out, k);
        let _ = write!(out, ":{val}");
    }
    out.push_str("}\n");
    Some((tid, out))
}

fn si_code(info: &[u8; 128]) -> i32 {
    i32::from_ne_bytes([info[8], info[9], info[10], info[11]])
}

/// Moves thread `tid`, stopped at a syscall-entry stop, to the exit stop of
/// that call with the call skipped (`orig_rax` = -1), where the breaker can
/// inject the `munmap` of its page (at an entry stop the kernel would run
/// the thread's own call over it). Returns the registers that run the call
/// again once the thread is let go: the pc back on its `syscall`
/// instruction and `rax` holding the number (strace's restart). `None`
/// when the thread is not at an entry stop or this cannot be done.
fn leave_syscall_entry(tid: Tid) -> Option<Vec<u64>> {
    let info = ptrace::get_syscall_info(tid).ok()?;
    if info.op != info_op::ENTRY {
        return None;
    }
    let orig = reg_index("orig_rax")?;
    let t = Tracee::new(tid);
    let saved = t.regs().ok()?;
    let at = saved[PC].wrapping_sub(2);
    let mut insn = [0u8; 2];
    if ProcMem::new(tid).read(at, &mut insn) != 2 || insn != [0x0f, 0x05] {
        return None;
    }
    let mut skip = saved.clone();
    skip[orig] = u64::MAX;
    t.set_regs(&skip).ok()?;
    let mut back = saved.clone();
    back[PC] = at;
    back[RET] = saved[orig];
    if ptrace::syscall(tid, 0).is_err() {
        let _ = t.set_regs(&saved);
        return None;
    }
    // The exit stop of a skipped call follows at once; anything else
    // (the thread killed meanwhile) leaves nothing to do.
    match ptrace::wait_tid(tid).map(classify) {
        Ok(Status::Syscall) => Some(back),
        _ => None,
    }
}

impl Layer for Probes {
    fn event(&mut self, s: &mut Strace, ev: Event<'_>, when: &Stamp) {
        if let Event::Signal { tid, sig, info } = ev {
            if sig == libc::SIGTRAP && si_code(info) == SI_KERNEL {
                self.held = Some((tid, *when));
                return;
            }
        }
        self.bp.event(ev, when);
        s.event(ev, when);
        self.drain(s, SystemTime::now());
    }

    fn signal_stop(&mut self, s: &mut Strace, tid: Tid, sig: i32, info: &[u8; 128]) -> Resume {
        let wall = SystemTime::now();
        let held = self.held.take().filter(|h| h.0 == tid);
        // While detaching, the engine asks without a `Signal` event first.
        if sig == libc::SIGTRAP && si_code(info) == SI_KERNEL {
            let r = self.bp.signal_stop(tid, sig, info);
            self.drain(s, wall);
            if r != Resume::Deliver {
                return r;
            }
        }
        if let Some((_, stamp)) = held {
            // Not a breakpoint of ours: rstrace records the signal.
            s.event(Event::Signal { tid, sig, info }, &stamp);
        }
        s.signal_stop(tid, sig, info)
    }

    fn detach_requests(&mut self, s: &mut Strace) -> Vec<Tid> {
        let mut v = self.bp.detach_requests();
        for t in s.detach_requests() {
            if !v.contains(&t) {
                v.push(t);
            }
        }
        v
    }

    fn task_ready(&mut self, s: &mut Strace, tid: Tid) {
        self.bp.task_ready(tid);
        s.task_ready(tid);
    }

    fn detaching(&mut self, s: &mut Strace, tid: Tid) {
        if let Some(back) = leave_syscall_entry(tid) {
            self.bp.detaching(tid);
            let t = Tracee::new(tid);
            // Unless the breaker moved the pc (out of its page), the call
            // runs again once the thread goes.
            if t.regs().is_ok_and(|r| r[PC] == back[PC] + 2) {
                let _ = t.set_regs(&back);
            }
        } else {
            self.bp.detaching(tid);
        }
        s.detaching(tid);
        self.drain(s, SystemTime::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn break_records_become_probe_events() {
        let wall = UNIX_EPOCH + Duration::new(7, 5);
        let hit = br#"{"type":"hit","spec":"f","pid":10,"tid":11,"ts_ns":500000000,"addr":"0x1000","location":"f+0x8 (a.c:3)","depth":0,"function":"f","args":[{"name":"n","type":"int","value":3}]}"#;
        let (tid, line) = probe_line(hit, wall).unwrap();
        assert_eq!(tid, 11);
        assert!(
            line.starts_with(
                "{\"type\":\"probe\",\"pid\":11,\"ts_ns\":7000000005,\"kind\":\"hit\",\"tgid\":10,"
            ),
            "{line}"
        );
        assert!(line.ends_with("}\n"));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["spec"], "f");
        assert_eq!(v["tid"], 11);
        assert_eq!(v["args"][0]["value"], 3);
        assert_eq!(v["addr"], "0x1000");
        let ret = br#"{"type":"return","spec":"ret:f","pid":10,"tid":10,"ts_ns":1000000000,"location":"f","retval":-1,"dur_ns":42,"depth":0,"entry_args":[1,2,3,4,5,6]}"#;
        let (_, line) = probe_line(ret, wall).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            (v["kind"].as_str(), v["retval"].as_i64()),
            (Some("return"), Some(-1))
        );
        assert_eq!(v["dur_ns"], 42);
        assert!(probe_line(br#"{"type":"killed","pid":1}"#, wall).is_none());
        assert!(probe_line(b"not json", wall).is_none());
    }

    #[test]
    fn bad_specs_name_themselves() {
        let e = parse_specs(&["f".into(), "ret:".into()]).unwrap_err();
        assert!(e.contains("--probe 'ret:'"), "{e}");
        assert_eq!(parse_specs(&["f".into(), "ret:g".into()]).unwrap().len(), 2);
    }
}
