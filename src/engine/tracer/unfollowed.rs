//! Children that are not followed, seen only to take rtrace's CPU pin off
//! them.
//!
//! A pinned task's children inherit its one-CPU mask (the kernel copies the
//! mask at fork and clone). When children are not followed they would run
//! on that one CPU for good, and see it, since only traced tasks have their
//! affinity calls rewritten ([`crate::engine::affinity`]). So while rtrace
//! pins a launched command without following its children, it asks for the
//! fork, vfork and clone events anyway: each new child is auto-attached,
//! given the mask the command would have had, and detached at its first
//! stop, before it runs an instruction of its own. The tool hears nothing
//! of it, and rtrace does not wait for it: the detach comes at the child's
//! first stop, which the kernel reports right after the fork.
//!
//! A child created with `CLONE_PTRACE` is attached by the kernel even
//! without these events; strace lets it go with a "Detached unknown pid"
//! line, and so it is still reported to the tool ([`Event::Unknown`]).
//!
//! The child's first stop may come before its creator's fork event (see the
//! wait loop's rules): it is then let go at once, its creator found through
//! /proc, and the later event only finds it gone.

use super::procfs::creator_of;
use super::{Event, Handler, Stamp, Tracer};
use crate::engine::ptrace::{self, Tid};
use crate::engine::status::{classify, Status};
use crate::engine::tracee::Tracee;
use std::collections::{HashMap, HashSet};

/// The unfollowed children rtrace still has to let go.
#[derive(Debug, Default)]
pub(super) struct Unfollowed {
    /// New children are reported (the fork events were asked for).
    pub watching: bool,
    /// Announced by their creator's event, first stop not seen yet; true
    /// when created with `CLONE_PTRACE`.
    pub awaiting: HashMap<Tid, bool>,
    /// Let go at a first stop that came before the creator's event.
    early: HashSet<Tid>,
}

impl Tracer {
    /// The fork event of `parent` announced `child`, a child not followed.
    pub(super) fn unfollowed_child(&mut self, parent: Tid, child: Tid) {
        if self.kids.early.remove(&child) {
            return;
        }
        self.unpin_kid(parent, child);
        let by_request = self.clone_ptrace(parent);
        self.kids.awaiting.insert(child, by_request);
    }

    /// A stop of `tid`, a task rtrace does not follow: lets it go, saying so
    /// only when it was attached at its creator's request.
    pub(super) fn let_go_unfollowed(&mut self, tid: Tid, h: &mut dyn Handler, stamp: &Stamp) {
        let by_request = match self.kids.awaiting.remove(&tid) {
            Some(r) => r,
            None if self.kids.watching => match creator_of(tid) {
                Some(c) if self.tasks.contains_key(&c) => {
                    // Its creator's fork event is still to come.
                    self.kids.early.insert(tid);
                    self.unpin_kid(c, tid);
                    self.clone_ptrace(c)
                }
                _ => true,
            },
            // Without the fork events only CLONE_PTRACE attaches a child.
            None => true,
        };
        let _ = ptrace::detach(tid, 0);
        if by_request {
            h.event(Event::Unknown { tid, exited: false }, stamp);
        }
    }

    /// The end of `tid` when it is an unfollowed child still to be let go
    /// (killed before its first stop): forgotten silently. False when `tid`
    /// is not one.
    pub(super) fn unfollowed_gone(&mut self, tid: Tid) -> bool {
        self.kids.awaiting.remove(&tid).is_some()
    }

    /// Lets go the unfollowed children whose first stop has not been
    /// handled yet (rtrace is ending), before a wait for other tasks could
    /// take that stop.
    pub(super) fn let_go_awaiting(&mut self, h: &mut dyn Handler) {
        for (tid, by_request) in std::mem::take(&mut self.kids.awaiting) {
            if release(tid) && by_request {
                h.event(Event::Unknown { tid, exited: false }, &Stamp::default());
            }
        }
    }

    /// Gives `child` the mask the command would have had, when it inherited
    /// rtrace's pin from `parent` (not when `parent` set its own mask).
    fn unpin_kid(&self, parent: Tid, child: Tid) {
        let (Some(pin), Some(t)) = (&self.pin, self.tasks.get(&parent)) else {
            return;
        };
        if t.pinned {
            // ESRCH: the child is already gone.
            let _ = pin.restore(child);
        }
    }

    /// Whether `parent`'s clone call in progress asked for `CLONE_PTRACE`
    /// (every syscall stops when children are not followed, so its entry
    /// was seen).
    fn clone_ptrace(&self, parent: Tid) -> bool {
        let Some(t) = self.tasks.get(&parent) else {
            return false;
        };
        let Some(arch) = t.cur_arch else { return false };
        let flags = match arch.syscall_name(t.cur_nr) {
            Some("clone") => t.cur_args[0],
            Some("clone3") => {
                // struct clone_args starts with the u64 flags.
                let mut b = [0u8; 8];
                if Tracee::new(parent).read(t.cur_args[0], &mut b) != 8 {
                    return false;
                }
                u64::from_ne_bytes(b)
            }
            _ => return false,
        };
        flags & libc::CLONE_PTRACE as u64 != 0
    }
}

/// Detaches `tid`, an unfollowed child: at once when it is in a
/// ptrace-stop, else (`PTRACE_DETACH` fails with ESRCH on a running
/// tracee) after its first stop, which the kernel reports right after the
/// fork. False when it ended first.
fn release(tid: Tid) -> bool {
    if ptrace::detach(tid, 0).is_ok() {
        return true;
    }
    match ptrace::wait_tid(tid).map(classify) {
        Ok(Status::Exited(_) | Status::Killed { .. }) | Err(_) => false,
        Ok(_) => ptrace::detach(tid, 0).is_ok(),
    }
}

impl Drop for Unfollowed {
    /// Every exit path lets them go: rtrace's end would otherwise kill them
    /// (`PTRACE_O_EXITKILL` is inherited by auto-attached children).
    fn drop(&mut self) {
        for &tid in self.awaiting.keys() {
            release(tid);
        }
    }
}
