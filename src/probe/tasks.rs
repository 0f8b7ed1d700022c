//! The task lifecycle of the INT3 tools (`rtrace break`, rltrace's ptrace
//! backend): which threads share which breakpoint space, what a fork, a
//! vfork, an exec and an exit do to them, and how a thread is let go with
//! every change undone.
//!
//! A space is one address space with its breakpoints ([`Space`], or a
//! tool's wrapper around one: [`Owner`]); each thread keeps the shadow
//! stack of the calls whose return address was hijacked ([`Frame`]).
//! - A thread joins its creator's space.
//! - A fork child gets a copy of the space and of its creator's shadow
//!   stack (the child's stack holds the same hijacked return addresses).
//!   Unfollowed, the copy's code bytes and return addresses are restored at
//!   once and the child is queued for detach.
//! - A vfork child shares its parent's space until it execs; unfollowed, it
//!   is let go at the exec ([`Tasks::leaving`]).
//! - A thread whose first trap comes before its creation event is adopted
//!   through its thread group or its parent ([`Tasks::space_of`]).
//! - [`Tasks::release`] undoes everything for a thread being detached: code
//!   bytes, a pc inside the out-of-line page or at the trampoline, the
//!   hijacked return addresses, the pages themselves.

use super::space::Space;
use crate::engine::ptrace::{self, Tid};
use crate::engine::tracee::{task_ids, TaskIds, Tracee};
use rtrace_arch::x86_64::{can_inject, PC, SP};
use std::collections::{HashMap, HashSet};

/// What a tool keeps per address space: a [`Space`] and its own data.
pub trait Owner: Sized {
    /// The breakpoints of the space.
    fn space(&self) -> &Space;
    /// The same, to change.
    fn space_mut(&mut self) -> &mut Space;
    /// The state of a fork child `child` (memory copied at the fork).
    fn fork_copy(&self, child: Tid) -> Self;
}

impl Owner for Space {
    fn space(&self) -> &Space {
        self
    }
    fn space_mut(&mut self) -> &mut Space {
        self
    }
    fn fork_copy(&self, child: Tid) -> Space {
        Space::fork_copy(self, child)
    }
}

/// One pending call on a shadow stack: its original return address and the
/// stack slot that held it.
pub trait Frame: Clone {
    /// The original return address.
    fn ret(&self) -> u64;
    /// Where it was on the stack.
    fn slot(&self) -> u64;
    /// What a vfork child (which returns through the same stack) inherits
    /// of this call; `followed` says whether its calls are shown. `None`:
    /// nothing.
    fn for_vfork_child(&self, followed: bool) -> Option<Self>;
}

/// A thread: its space and shadow stack.
pub struct Task<F> {
    /// The space's id.
    pub space: u64,
    /// Calls whose return was hijacked, outermost first.
    pub shadow: Vec<F>,
}

/// Threads and spaces of one tool run.
pub struct Tasks<P, F> {
    /// Spaces by id.
    pub spaces: HashMap<u64, P>,
    next: u64,
    /// Threads by tid.
    pub threads: HashMap<Tid, Task<F>>,
    /// Threads to let go (the engine asks for them).
    pub detach: Vec<Tid>,
    /// Unfollowed vfork children, let go at their exec.
    pub leaving: Vec<Tid>,
    follow: bool,
}

/// What [`Tasks::exec`] decided.
#[derive(Debug, PartialEq, Eq)]
pub enum AfterExec {
    /// A new program to trace: start a space for it.
    Start,
    /// An unfollowed vfork child: it is queued for detach.
    Leave,
}

impl<P: Owner, F: Frame> Tasks<P, F> {
    /// No threads yet; `follow`: fork children are traced (`-f`).
    pub fn new(follow: bool) -> Self {
        Tasks {
            spaces: HashMap::new(),
            next: 1,
            threads: HashMap::new(),
            detach: Vec::new(),
            leaving: Vec::new(),
            follow,
        }
    }

    /// Adds a space; returns its id.
    pub fn add_space(&mut self, p: P) -> u64 {
        let id = self.next;
        self.next += 1;
        self.spaces.insert(id, p);
        id
    }

    /// Adds thread `tid` to space `space`.
    pub fn add_thread(&mut self, tid: Tid, space: u64, shadow: Vec<F>) {
        if let Some(p) = self.spaces.get_mut(&space) {
            p.space_mut().threads.insert(tid);
        }
        self.threads.insert(tid, Task { space, shadow });
    }

    /// Forgets `tid`; returns the id of its space when that space lost its
    /// last thread and was dropped.
    pub fn remove_thread(&mut self, tid: Tid) -> Option<u64> {
        let t = self.threads.remove(&tid)?;
        let p = self.spaces.get_mut(&t.space)?;
        p.space_mut().threads.remove(&tid);
        if !p.space().threads.is_empty() {
            return None;
        }
        self.spaces.remove(&t.space);
        Some(t.space)
    }

    /// The space of `tid`, adopting a thread or child whose creation event
    /// has not come yet (its first trap may come first). The second value
    /// is a space made for it (a fork child's copy).
    pub fn space_of(&mut self, tid: Tid) -> Option<(u64, Option<(u64, u64)>)> {
        if let Some(t) = self.threads.get(&tid) {
            return Some((t.space, None));
        }
        // Read only for a thread met before its creation event, never per hit.
        let TaskIds { tgid, ppid, .. } = task_ids(tid)?;
        if tgid != tid {
            if let Some(id) = self.threads.get(&tgid).map(|t| t.space) {
                self.add_thread(tid, id, Vec::new());
                return Some((id, None));
            }
        }
        let parent = self.threads.get(&ppid).map(|t| t.space)?;
        let made = self.new_child(ppid, tid, parent);
        let id = self.threads.get(&tid).map(|t| t.space)?;
        Some((id, made.map(|m| (parent, m))))
    }

    /// A new task `child` of `parent`: a thread joins the parent's space, a
    /// process gets its own ([`Tasks::new_child`]). Returns (parent space,
    /// new space) when a space was made. A child already adopted at an
    /// earlier trap is left as it is.
    pub fn new_task(&mut self, parent: Tid, child: Tid, thread: bool) -> Option<(u64, u64)> {
        if self.threads.contains_key(&child) {
            return None;
        }
        let ps = self.threads.get(&parent).map(|t| t.space)?;
        if thread {
            self.add_thread(child, ps, Vec::new());
            return None;
        }
        self.new_child(parent, child, ps).map(|n| (ps, n))
    }

    /// A new process `child` of `parent` (in space `pspace`); returns the
    /// id of the space made for a fork child.
    fn new_child(&mut self, parent: Tid, child: Tid, pspace: u64) -> Option<u64> {
        let inherited = self
            .threads
            .get(&parent)
            .map(|t| t.shadow.clone())
            .unwrap_or_default();
        if ptrace::same_vm(parent, child) == Some(true) {
            // vfork (or clone(CLONE_VM)): it shares the parent's memory and
            // breakpoints until it execs, and returns through the parent's
            // stack.
            let shadow = inherited
                .iter()
                .filter_map(|f| f.for_vfork_child(self.follow))
                .collect();
            self.add_thread(child, pspace, shadow);
            if !self.follow {
                self.leaving.push(child);
            }
            return None;
        }
        let copy = self.spaces.get(&pspace)?.fork_copy(child);
        let id = self.add_space(copy);
        self.add_thread(child, id, inherited.clone());
        if !self.follow {
            // Let it go clean: bytes and return addresses restored now, in
            // its own copy of memory.
            let space = self.spaces.get_mut(&id).expect("added").space_mut();
            space.restore_code();
            restore_returns(space, &inherited);
            self.detach.push(child);
        }
        Some(id)
    }

    /// `tid` exec'd (`old_tid`: the thread that called exec, when another
    /// thread of the group did): both are forgotten. Returns the ids of
    /// spaces dropped, and what to do next.
    pub fn exec(&mut self, tid: Tid, old_tid: Tid) -> (Vec<u64>, AfterExec) {
        let gone = [old_tid, tid]
            .into_iter()
            .filter_map(|t| self.remove_thread(t))
            .collect();
        if self.leaving.contains(&tid) || self.leaving.contains(&old_tid) {
            // An unfollowed vfork child now has memory of its own, with
            // nothing of ours in it.
            self.detach.push(tid);
            return (gone, AfterExec::Leave);
        }
        (gone, AfterExec::Start)
    }

    /// `tid` exited, was killed or detached; returns the id of its space
    /// when that went with it.
    pub fn gone(&mut self, tid: Tid) -> Option<u64> {
        self.leaving.retain(|t| *t != tid);
        self.remove_thread(tid)
    }

    /// Undoes every change for thread `tid` before it is let go: code bytes
    /// of its space (first thread), its pc if inside an out-of-line page or
    /// at the trampoline, the return addresses it has hijacked; the pages
    /// once a thread stopped where it can run `munmap`. Returns the id of
    /// its space when that went with it.
    pub fn release(&mut self, tid: Tid) -> Option<u64> {
        let t = self.threads.get(&tid)?;
        let shadow = t.shadow.clone();
        let space = self.spaces.get_mut(&t.space)?.space_mut();
        space.restore_code();
        let tracee = Tracee::new(tid);
        let regs0 = tracee.regs().ok();
        if let Some(mut regs) = regs0.clone() {
            let pc = regs[PC];
            let mut newpc = space.pc_outside_pages(pc);
            if Some(pc) == space.trampoline {
                // Between `ret` and the trap: return for real.
                let want = regs[SP].wrapping_sub(8);
                newpc = shadow
                    .iter()
                    .rev()
                    .find(|s| s.slot() == want)
                    .or(shadow.last())
                    .map(|s| s.ret());
            }
            if let Some(p) = newpc {
                regs[PC] = p;
                let _ = tracee.set_regs(&regs);
            }
        }
        restore_returns(space, &shadow);
        // Every other thread of the space is stopped too (the engine stops
        // all before letting any go), and their pcs are only registers: the
        // pages can go with the first thread that can run a syscall.
        if !space.unmapped && regs0.as_deref().is_some_and(can_inject) {
            space.unmap_pages(tid);
        }
        self.remove_thread(tid)
    }
}

/// Writes back each hijacked return address still pointing at the
/// trampoline.
fn restore_returns<F: Frame>(space: &Space, shadow: &[F]) {
    let Some(tramp) = space.trampoline else {
        return;
    };
    let mut done = HashSet::new();
    for s in shadow.iter().rev() {
        if !done.insert(s.slot()) {
            continue;
        }
        let mut b = [0u8; 8];
        if space.mem.read(s.slot(), &mut b) && u64::from_le_bytes(b) == tramp {
            space.mem.write(s.slot(), &s.ret().to_le_bytes());
        }
    }
}
