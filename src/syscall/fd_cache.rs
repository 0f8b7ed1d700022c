//! What a tracee's descriptor refers to, cached per (pid, fd) so that
//! decoders which need it on every call (is this sendto's descriptor a
//! netlink socket?) read `/proc/PID/fd/N` once per descriptor instead of
//! once per event.
//!
//! An entry is filled at the first lookup and dropped whenever a syscall
//! may have changed what its number refers to:
//!
//! - at the entry and at the exit of `close`, `dup2`/`dup3` (the target),
//!   `close_range` (the range), whatever they return (a close that fails
//!   with EINTR has still closed);
//! - at the exit of every call that returns a new descriptor (`open*`,
//!   `socket`, `accept*`, `dup`, `fcntl(F_DUPFD…)`, `*fd_create`, `bpf`,
//!   `ioctl`, …, and any call rstrace has no name for): its number is
//!   replaced;
//! - all of them at an exec (close-on-exec descriptors) and at
//!   `io_uring_enter` (a ring can close descriptors without a syscall);
//! - a task's entries when it exits, and a new task's (a reused pid).
//!
//! Descriptors created without their number in the return value (`pipe`,
//! `socketpair`, `SCM_RIGHTS`) take numbers that were free, so the close
//! that freed them already dropped the entry. Entries are dropped by
//! descriptor number for every pid at once: threads and `CLONE_FILES`
//! children share one table.
//!
//! The cache is only trusted when the tracer sees every syscall of every
//! task ([`start`] with `complete`); under a seccomp filter (rstrace's
//! default with `-f` and a `-e trace=` set) closes go unseen, and every
//! lookup reads `/proc` as before.

use std::cell::RefCell;
use std::collections::HashMap;

/// The cache: descriptor number → (pid, socket inode or `None` for a
/// descriptor that is not a socket).
#[derive(Default)]
struct State {
    enabled: bool,
    /// New threads are traced too (`-f`); without it a thread that shares
    /// the table (clone with CLONE_FILES, or clone3) turns the cache off.
    follow: bool,
    by_fd: HashMap<i64, Vec<(i32, Option<u64>)>>,
    /// `/proc/PID/fd/N` reads so far (for tests).
    reads: u64,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Empties the cache; `complete`: the caller reports every syscall entry and
/// exit of every traced task to [`on_entry`]/[`on_exit`], so entries can be
/// trusted; `follow`: the tasks a traced task creates are traced too.
pub fn start(complete: bool, follow: bool) {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.by_fd.clear();
        s.enabled = complete;
        s.follow = follow;
    });
}

/// The `/proc/PID/fd/N` reads made so far on this thread.
pub fn proc_reads() -> u64 {
    STATE.with(|s| s.borrow().reads)
}

/// The inode of socket `fd` of `pid`, `None` when it is not a socket (or not
/// open). Reads `/proc/PID/fd/N` unless cached.
pub fn socket_inode(pid: i32, fd: i64) -> Option<u64> {
    if fd < 0 {
        return None;
    }
    let hit = STATE.with(|s| {
        let s = s.borrow();
        if !s.enabled {
            return None;
        }
        s.by_fd
            .get(&fd)?
            .iter()
            .find(|(p, _)| *p == pid)
            .map(|(_, v)| *v)
    });
    if let Some(v) = hit {
        return v;
    }
    STATE.with(|s| s.borrow_mut().reads += 1);
    let link = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()?;
    let ino = link
        .to_str()
        .and_then(|l| l.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok());
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        if s.enabled {
            let v = s.by_fd.entry(fd).or_default();
            v.retain(|(p, _)| *p != pid);
            v.push((pid, ino));
        }
    });
    ino
}

fn drop_fd(s: &mut State, fd: i64) {
    s.by_fd.remove(&fd);
}

/// Drops the entries of `fd` (every pid).
pub fn invalidate(fd: i64) {
    STATE.with(|s| drop_fd(&mut s.borrow_mut(), fd));
}

/// Drops the entries of task `tid` (it exited, or a new task got its id).
pub fn forget_task(tid: i32) {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        for v in s.by_fd.values_mut() {
            v.retain(|(p, _)| *p != tid);
        }
        s.by_fd.retain(|_, v| !v.is_empty());
    });
}

/// Drops everything (an exec closed the close-on-exec descriptors).
pub fn forget_all() {
    STATE.with(|s| s.borrow_mut().by_fd.clear());
}

/// Calls whose return value, when not an error, is a new descriptor.
const RETURNS_FD: &[&str] = &[
    "accept",
    "accept4",
    "bpf",
    "creat",
    "dup",
    "epoll_create",
    "epoll_create1",
    "eventfd",
    "eventfd2",
    "fanotify_init",
    "fcntl",
    "fcntl64",
    "fsmount",
    "fsopen",
    "fspick",
    "inotify_init",
    "inotify_init1",
    "io_uring_setup",
    "ioctl",
    "landlock_create_ruleset",
    "memfd_create",
    "memfd_secret",
    "mq_open",
    "open",
    "open_by_handle_at",
    "open_tree",
    "openat",
    "openat2",
    "perf_event_open",
    "pidfd_getfd",
    "pidfd_open",
    "seccomp",
    "signalfd",
    "signalfd4",
    "socket",
    "socketcall",
    "timerfd_create",
    "userfaultfd",
];

/// The descriptors a call closes or overwrites: `close(fd)`, the target of
/// `dup2`/`dup3`, every cached descriptor in a `close_range` range.
fn closes(s: &mut State, name: &str, args: &[u64; 6]) {
    match name {
        "close" => drop_fd(s, args[0] as i32 as i64),
        "dup2" | "dup3" => drop_fd(s, args[1] as i32 as i64),
        "close_range" => {
            let (lo, hi) = (args[0] as u32 as i64, args[1] as u32 as i64);
            s.by_fd.retain(|fd, _| *fd < lo || *fd > hi);
        }
        "io_uring_enter" => s.by_fd.clear(),
        _ => {}
    }
}

/// A syscall entry of any task (`name`: `None` for a number rstrace has no
/// name for).
pub fn on_entry(name: Option<&str>, args: &[u64; 6]) {
    let Some(name) = name else { return };
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        if !s.by_fd.is_empty() {
            closes(&mut s, name, args);
        }
    });
}

/// Whether a clone may share the descriptor table (CLONE_FILES; clone3's
/// flags are in memory, so any clone3).
fn shares_table(name: Option<&str>, args: &[u64; 6]) -> bool {
    const CLONE_FILES: u64 = 0x400;
    name == Some("clone3") || args[0] & CLONE_FILES != 0
}

/// A syscall exit of any task, with its raw return value.
pub fn on_exit(name: Option<&str>, args: &[u64; 6], ret: i64) {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        if !s.enabled || (s.by_fd.is_empty() && s.follow) {
            return;
        }
        let ok = !(-4095..0).contains(&ret);
        match name {
            Some("execve" | "execveat") if ok => s.by_fd.clear(),
            Some("clone" | "clone3") if ok && ret > 0 && !s.follow && shares_table(name, args) => {
                // An untraced thread shares the table: its closes go unseen.
                s.enabled = false;
                s.by_fd.clear();
            }
            Some("clone" | "clone3" | "fork" | "vfork") if ok && ret > 0 => {
                let tid = ret as i32;
                for v in s.by_fd.values_mut() {
                    v.retain(|(p, _)| *p != tid);
                }
            }
            Some(n) => {
                closes(&mut s, n, args);
                if ok && RETURNS_FD.contains(&n) {
                    drop_fd(&mut s, ret);
                }
            }
            None if ok => drop_fd(&mut s, ret),
            None => {}
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::io::AsRawFd;

    #[test]
    fn cached_until_the_number_changes() {
        start(true, true);
        let pid = std::process::id() as i32;
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        let fd = a.as_raw_fd() as i64;
        let before = proc_reads();
        let ino = socket_inode(pid, fd);
        assert!(ino.is_some());
        for _ in 0..100 {
            assert_eq!(socket_inode(pid, fd), ino);
        }
        assert_eq!(proc_reads(), before + 1);
        // Unrelated calls keep it; a close of another number too.
        on_exit(Some("sendto"), &[fd as u64, 0, 0, 0, 0, 0], 20);
        on_entry(Some("close"), &[fd as u64 + 1, 0, 0, 0, 0, 0]);
        assert_eq!(socket_inode(pid, fd), ino);
        assert_eq!(proc_reads(), before + 1);
        // A close of it, a dup2 onto it, a call returning it, close_range
        // over it, an exec: each makes the next lookup read /proc again.
        let changes: &[(&str, [u64; 6], i64)] = &[
            ("close", [fd as u64, 0, 0, 0, 0, 0], 0),
            ("dup2", [0, fd as u64, 0, 0, 0, 0], fd),
            ("openat", [0; 6], fd),
            ("close_range", [0, u32::MAX as u64, 0, 0, 0, 0], 0),
            ("execve", [0; 6], 0),
        ];
        for (i, (name, args, ret)) in changes.iter().enumerate() {
            on_exit(Some(name), args, *ret);
            assert_eq!(socket_inode(pid, fd), ino);
            assert_eq!(proc_reads(), before + 2 + i as u64, "{name}");
        }
        // A thread nobody traces would share the table: the cache turns off.
        start(true, false);
        socket_inode(pid, fd);
        on_exit(Some("clone"), &[0x400 | 0x10000, 0, 0, 0, 0, 0], 1234);
        let n = proc_reads();
        socket_inode(pid, fd);
        socket_inode(pid, fd);
        assert_eq!(proc_reads(), n + 2);
        start(true, true);
        // Not a socket: cached as such.
        let f = std::fs::File::open("/dev/null").unwrap();
        assert_eq!(socket_inode(pid, f.as_raw_fd() as i64), None);
        let n = proc_reads();
        assert_eq!(socket_inode(pid, f.as_raw_fd() as i64), None);
        assert_eq!(proc_reads(), n);
        start(false, true);
    }

    #[test]
    fn disabled_reads_every_time() {
        start(false, true);
        let pid = std::process::id() as i32;
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        let before = proc_reads();
        for _ in 0..3 {
            assert!(socket_inode(pid, a.as_raw_fd() as i64).is_some());
        }
        assert_eq!(proc_reads(), before + 3);
    }
}
