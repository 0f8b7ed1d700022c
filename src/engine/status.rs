//! Classifies raw wait statuses into the stops ptrace can report.
//!
//! Pure functions over the status word, so every case is unit-tested without
//! a tracee.

/// `PTRACE_EVENT_*` codes as they appear in `status >> 16`.
pub mod event {
    /// fork.
    pub const FORK: i32 = 1;
    /// vfork.
    pub const VFORK: i32 = 2;
    /// clone.
    pub const CLONE: i32 = 3;
    /// exec.
    pub const EXEC: i32 = 4;
    /// vfork done.
    pub const VFORK_DONE: i32 = 5;
    /// exit.
    pub const EXIT: i32 = 6;
    /// seccomp `RET_TRACE`.
    pub const SECCOMP: i32 = 7;
    /// group-stop or interrupt of a seized tracee.
    pub const STOP: i32 = 128;
}

/// What one wait status means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The task exited with this code.
    Exited(i32),
    /// The task was killed by a signal (`core` if it dumped core).
    Killed {
        /// The signal.
        sig: i32,
        /// Core dumped.
        core: bool,
    },
    /// Syscall-entry or -exit stop (`SIGTRAP | 0x80`).
    Syscall,
    /// A `PTRACE_EVENT_*` stop other than `STOP`.
    Event(i32),
    /// `PTRACE_EVENT_STOP` with a stop signal: a group-stop of a seized tracee.
    GroupStop(i32),
    /// `PTRACE_EVENT_STOP` with SIGTRAP: `PTRACE_INTERRUPT` or a new child's
    /// first stop.
    Interrupt,
    /// Signal-delivery stop.
    Signal(i32),
    /// Anything else (a `SIGCONT`-continued report, which `__WALL` without
    /// `WCONTINUED` does not produce).
    Other,
}

/// Classifies a wait status of a seized tracee.
pub fn classify(status: i32) -> Status {
    if libc::WIFEXITED(status) {
        return Status::Exited(libc::WEXITSTATUS(status));
    }
    if libc::WIFSIGNALED(status) {
        return Status::Killed {
            sig: libc::WTERMSIG(status),
            core: libc::WCOREDUMP(status),
        };
    }
    if !libc::WIFSTOPPED(status) {
        return Status::Other;
    }
    let sig = libc::WSTOPSIG(status);
    let ev = status >> 16;
    if sig == libc::SIGTRAP | 0x80 {
        return Status::Syscall;
    }
    if ev == event::STOP {
        return match sig {
            libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU => Status::GroupStop(sig),
            _ => Status::Interrupt,
        };
    }
    if ev != 0 && sig == libc::SIGTRAP {
        return Status::Event(ev);
    }
    Status::Signal(sig)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stopped(sig: i32, ev: i32) -> i32 {
        (ev << 16) | (sig << 8) | 0x7f
    }

    #[test]
    fn classifies() {
        assert_eq!(classify(3 << 8), Status::Exited(3));
        assert_eq!(
            classify(9),
            Status::Killed {
                sig: 9,
                core: false
            }
        );
        assert_eq!(
            classify(11 | 0x80),
            Status::Killed {
                sig: 11,
                core: true
            }
        );
        assert_eq!(classify(stopped(libc::SIGTRAP | 0x80, 0)), Status::Syscall);
        assert_eq!(
            classify(stopped(libc::SIGTRAP, event::CLONE)),
            Status::Event(event::CLONE)
        );
        assert_eq!(
            classify(stopped(libc::SIGSTOP, event::STOP)),
            Status::GroupStop(libc::SIGSTOP)
        );
        assert_eq!(
            classify(stopped(libc::SIGTRAP, event::STOP)),
            Status::Interrupt
        );
        // Real-time signals survive classification.
        assert_eq!(classify(stopped(34, 0)), Status::Signal(34));
        assert_eq!(
            classify(stopped(libc::SIGTRAP, 0)),
            Status::Signal(libc::SIGTRAP)
        );
    }
}
