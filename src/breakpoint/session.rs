//! One debugging session with breakpoints and, optionally, hardware
//! watchpoints on the same process (`rtrace break SPEC… --watch EXPR`).
//!
//! The [`Session`] handler hands every engine event to the [`Breaker`] and
//! the [`Watcher`] alike; a SIGTRAP goes to the watcher when its `si_code`
//! says a debug register fired (`TRAP_HWBKPT`), to the breaker otherwise
//! (INT3 traps carry `SI_KERNEL`). Both undo their changes when a thread is
//! let go ([`Handler::detaching`]): INT3 bytes, hijacked return addresses and
//! out-of-line pages, and the debug registers of every thread.
//!
//! Forked children are the breaker's to decide (restored and let go, or kept
//! with `-f`); the watcher arms only threads of the process it watches, so a
//! followed child has breakpoints but no watchpoints. Writes done by an
//! instruction the breaker emulates (a `push` at a function's entry) are
//! made through ptrace and do not trigger a watchpoint; watched globals are
//! not written by such instructions.

use super::hit::Breaker;
use crate::engine::ptrace::Tid;
use crate::engine::{Event, Handler, Resume, Stamp};
use crate::watchpoint::handler::Watcher;
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

/// `si_code` of a debug-register trap.
const TRAP_HWBKPT: i32 = 4;

/// The engine handler of `rtrace break`.
pub struct Session {
    /// The breakpoints.
    pub bp: Breaker,
    /// The watchpoints, when `--watch`/`--awatch` gave any.
    pub wp: Option<Watcher>,
}

impl Handler for Session {
    fn event(&mut self, ev: Event<'_>, when: &Stamp) {
        self.bp.event(ev, when);
        if let Some(wp) = &mut self.wp {
            wp.event(ev, when);
        }
    }

    fn signal_stop(&mut self, tid: Tid, sig: i32, info: &[u8; 128]) -> Resume {
        let code = i32::from_ne_bytes([info[8], info[9], info[10], info[11]]);
        match &mut self.wp {
            Some(wp) if sig == libc::SIGTRAP && code == TRAP_HWBKPT => {
                wp.signal_stop(tid, sig, info)
            }
            _ => self.bp.signal_stop(tid, sig, info),
        }
    }

    fn detach_requests(&mut self) -> Vec<Tid> {
        if let Some(wp) = &mut self.wp {
            // The watcher asks to let forked children go; the breaker
            // decides about those (it restores their code first).
            wp.detach_requests();
        }
        self.bp.detach_requests()
    }

    fn task_ready(&mut self, tid: Tid) {
        self.bp.task_ready(tid);
        if let Some(wp) = &mut self.wp {
            wp.task_ready(tid);
        }
    }

    fn detaching(&mut self, tid: Tid) {
        self.bp.detaching(tid);
        if let Some(wp) = &mut self.wp {
            wp.detaching(tid);
        }
    }
}

/// One output stream written by both reporters, so their lines interleave
/// in the order of the hits.
#[derive(Clone)]
pub struct SharedWriter(Rc<RefCell<Box<dyn Write>>>);

impl SharedWriter {
    /// Shares `out`.
    pub fn new(out: Box<dyn Write>) -> SharedWriter {
        SharedWriter(Rc::new(RefCell::new(out)))
    }
}

impl Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.borrow_mut().flush()
    }
}
