//! What rltrace's ptrace side (the [`trace`](super::trace) handler) sends
//! the uprobe backend's consumer ([`uprobe`](super::uprobe)) when both run:
//! thread lifecycle events and the calls caught at INT3 breakpoints, in one
//! channel, so the consumer orders them with the uprobes' events.

/// What the ptrace side reports, stamped with `mono_ns` at the stop.
#[derive(Debug, Clone)]
pub enum Life {
    /// A thread of the traced process appeared (lines get `[pid N]`).
    Thread,
    /// An exec completed in `tid` (called by `old`).
    Exec { old: i32 },
    /// The thread exited.
    Exited { code: i32 },
    /// The thread was killed by this signal.
    Killed { sig: i32 },
    /// The thread was let go.
    Detached,
    /// A signal is delivered to the thread.
    Signal { sig: i32 },
}

/// A message from the ptrace side.
#[derive(Debug, Clone)]
pub enum Msg {
    /// A lifecycle event of thread `tid` at `ts`.
    Life { tid: i32, ts: u64, what: Life },
    /// A call the ptrace side caught at a breakpoint (a function whose
    /// arguments the kernel cannot fetch), formatted there.
    Call {
        tid: i32,
        ts: u64,
        /// The stack slot of its return address.
        sp: u64,
        call: Shown,
    },
    /// The return of such a call: `sp` is the stack pointer after it.
    Back {
        tid: i32,
        ts: u64,
        sp: u64,
        /// The arguments as shown at return, and the result.
        full: String,
        ret: String,
    },
    /// Every tracee is gone: drain what is left and finish.
    Done,
}

/// A call formatted by the ptrace side.
#[derive(Debug, Clone)]
pub struct Shown {
    /// As printed (`caller->name`), and in `<... name resumed>`.
    pub shown: String,
    pub bare: String,
    /// The arguments as shown at entry.
    pub text: String,
}
