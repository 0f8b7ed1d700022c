//! perf_event_open through raw syscalls: counting events (software,
//! hardware, tracepoints by their tracefs id), named as `perf list` names
//! them. perf-event2 would look tracepoint ids up in debugfs; tracefs ids are
//! read here instead, and counting needs nothing else.

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};

/// `PERF_TYPE_HARDWARE`.
pub const TYPE_HARDWARE: u32 = 0;
/// `PERF_TYPE_SOFTWARE`.
pub const TYPE_SOFTWARE: u32 = 1;
/// `PERF_TYPE_TRACEPOINT`.
pub const TYPE_TRACEPOINT: u32 = 2;

const FORMAT_TOTAL_TIME_ENABLED: u64 = 1 << 0;
const FORMAT_TOTAL_TIME_RUNNING: u64 = 1 << 1;
const FLAG_DISABLED: u64 = 1 << 0;
const FLAG_INHERIT: u64 = 1 << 1;
const FLAG_ENABLE_ON_EXEC: u64 = 1 << 12;
/// `inherit_thread`: inherit only into threads, not forked processes.
const FLAG_INHERIT_THREAD: u64 = 1 << 35;

/// A named countable event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventId {
    /// The name as the user wrote it (or perf's canonical name).
    pub name: String,
    /// `PERF_TYPE_*`.
    pub type_: u32,
    /// Config.
    pub config: u64,
}

/// perf's names of the generic software and hardware events.
const NAMED: &[(&str, u32, u64)] = &[
    ("cpu-clock", TYPE_SOFTWARE, 0),
    ("task-clock", TYPE_SOFTWARE, 1),
    ("page-faults", TYPE_SOFTWARE, 2),
    ("faults", TYPE_SOFTWARE, 2),
    ("context-switches", TYPE_SOFTWARE, 3),
    ("cs", TYPE_SOFTWARE, 3),
    ("cpu-migrations", TYPE_SOFTWARE, 4),
    ("migrations", TYPE_SOFTWARE, 4),
    ("minor-faults", TYPE_SOFTWARE, 5),
    ("major-faults", TYPE_SOFTWARE, 6),
    ("alignment-faults", TYPE_SOFTWARE, 7),
    ("emulation-faults", TYPE_SOFTWARE, 8),
    ("cycles", TYPE_HARDWARE, 0),
    ("cpu-cycles", TYPE_HARDWARE, 0),
    ("instructions", TYPE_HARDWARE, 1),
    ("cache-references", TYPE_HARDWARE, 2),
    ("cache-misses", TYPE_HARDWARE, 3),
    ("branches", TYPE_HARDWARE, 4),
    ("branch-instructions", TYPE_HARDWARE, 4),
    ("branch-misses", TYPE_HARDWARE, 5),
    ("bus-cycles", TYPE_HARDWARE, 6),
    ("stalled-cycles-frontend", TYPE_HARDWARE, 7),
    ("stalled-cycles-backend", TYPE_HARDWARE, 8),
    ("ref-cycles", TYPE_HARDWARE, 9),
];

/// perf stat's default events.
pub const DEFAULT_EVENTS: &[&str] = &[
    "task-clock",
    "context-switches",
    "cpu-migrations",
    "page-faults",
    "cycles",
    "instructions",
    "branches",
    "branch-misses",
];

/// Resolves a generic event name; tracepoints (`sys:event`) are resolved by
/// the caller from tracefs ids.
pub fn named_event(name: &str) -> Option<EventId> {
    NAMED
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, type_, config)| EventId {
            name: name.to_string(),
            type_,
            config,
        })
}

/// An open counter.
pub struct Counter {
    fd: OwnedFd,
}

impl Counter {
    /// Opens a counter of `ev` on task `pid` (all CPUs). `inherit` counts
    /// children created later; `on_exec` starts it at the task's next exec.
    pub fn open(ev: &EventId, pid: i32, inherit: bool, on_exec: bool) -> io::Result<Counter> {
        let mut flags = 0;
        if inherit {
            flags |= FLAG_INHERIT;
        }
        if on_exec {
            flags |= FLAG_DISABLED | FLAG_ENABLE_ON_EXEC;
        }
        Counter::open_flags(ev, pid, flags)
    }

    fn open_flags(ev: &EventId, pid: i32, flags: u64) -> io::Result<Counter> {
        Ok(Counter {
            fd: crate::sys::perf::open(
                ev.type_,
                ev.config,
                FORMAT_TOTAL_TIME_ENABLED | FORMAT_TOTAL_TIME_RUNNING,
                flags,
                pid,
            )?,
        })
    }

    /// A counter of `ev` on the command `pid` from its next exec,
    /// inherited by its threads and, with `processes`, by its children.
    pub fn open_task_tree(ev: &EventId, pid: i32, processes: bool) -> io::Result<Counter> {
        let flags = FLAG_INHERIT
            | FLAG_DISABLED
            | FLAG_ENABLE_ON_EXEC
            | if processes { 0 } else { FLAG_INHERIT_THREAD };
        Counter::open_flags(ev, pid, flags)
    }

    /// Stops counting.
    pub fn disable(&self) {
        crate::sys::perf::disable(self.fd.as_fd());
    }

    /// (value scaled for multiplexing, time enabled, time running).
    pub fn read(&self) -> io::Result<(u64, u64, u64)> {
        let mut bytes = [0u8; 24];
        if crate::sys::fd::read(self.fd.as_raw_fd(), &mut bytes) != 24 {
            return Err(io::Error::last_os_error());
        }
        let word =
            |i: usize| u64::from_ne_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        let [v, en, run] = [word(0), word(1), word(2)];
        let scaled = if run > 0 && run < en {
            (v as u128 * en as u128 / run as u128) as u64
        } else {
            v
        };
        Ok((scaled, en, run))
    }
}

/// Whether an open error means "this event does not exist here" (perf's
/// `<not supported>`) rather than a failure.
pub fn is_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV | libc::ENXIO)
    )
}
