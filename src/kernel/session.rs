//! Running a kernel trace: the command (held until the kernel side is set
//! up), rtrace's own fatal signals, and the read loop over the ring buffers.
//!
//! Signals: SIGINT/SIGTERM/SIGHUP/SIGQUIT only set a flag (no SA_RESTART);
//! the loop polls the buffers every few milliseconds and checks the flag,
//! so the owners of tracefs state (instance, dynamic events) are dropped on
//! the normal path. This mirrors `engine::signals`, without its wake-up
//! fork, which a ptrace wait loop needs and a polling loop does not.

use super::event::{Formats, KEvent};
use super::ringbuf::RawReader;
use super::sink::Sink;
use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

static PENDING: AtomicI32 = AtomicI32::new(0);
const FATAL: [i32; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

extern "C" fn on_signal(sig: libc::c_int) {
    PENDING.store(sig, Ordering::SeqCst);
}

/// Installs the flag-setting handlers for rtrace's fatal signals.
pub fn install_signals() {
    for sig in FATAL {
        // SAFETY: a zeroed sigaction is valid; we set handler and mask and
        // install it for a signal number that exists.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = 0;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// The fatal signal received, if any.
pub fn pending_signal() -> Option<i32> {
    match PENDING.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// `CLOCK_MONOTONIC` now, in ns: the clock of an instance whose
/// `trace_clock` is `mono`, so ring-buffer time stamps compare with it.
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `flock(2)` on `file`: exclusive or shared, waiting or not; whether the
/// lock is held.
pub fn flock(file: &std::fs::File, exclusive: bool, wait: bool) -> bool {
    use std::os::unix::io::AsRawFd;
    let mut op = if exclusive {
        libc::LOCK_EX
    } else {
        libc::LOCK_SH
    };
    if !wait {
        op |= libc::LOCK_NB;
    }
    loop {
        // SAFETY: flock on a descriptor the File owns.
        let r = unsafe { libc::flock(file.as_raw_fd(), op) };
        if r == 0 {
            return true;
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted || !wait {
            return false;
        }
    }
}

/// A command forked and held before `execvp` until [`Child::release`].
pub struct Child {
    /// Its pid.
    pub pid: i32,
    go: Option<libc::c_int>,
    /// Read end of the exec-error pipe: end of file when `execvp` succeeded
    /// (close-on-exec), the `errno` when it failed.
    exec_err: Option<libc::c_int>,
    /// `cmd[0]`, for the message when it cannot be run.
    name: String,
    status: Option<i32>,
}

impl Child {
    /// Forks `cmd`; the child waits on a pipe, then execs.
    pub fn spawn(cmd: &[OsString]) -> Result<Child, String> {
        let argv: Vec<CString> = cmd
            .iter()
            .map(|a| CString::new(a.as_bytes()).map_err(|_| "NUL in argument".to_string()))
            .collect::<Result<_, _>>()?;
        let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|c| c.as_ptr()).collect();
        ptrs.push(std::ptr::null());
        let (mut fds, mut errfds) = ([0; 2], [0; 2]);
        // SAFETY: fds and errfds are valid 2-int arrays.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0
            || unsafe { libc::pipe2(errfds.as_mut_ptr(), libc::O_CLOEXEC) } != 0
        {
            return Err(format!("pipe: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: the child only calls async-signal-safe functions (read,
        // close, execvp, write, _exit) on memory prepared before the fork.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(format!("fork: {}", std::io::Error::last_os_error()));
        }
        if pid == 0 {
            // SAFETY: see above.
            unsafe {
                libc::close(fds[1]);
                libc::close(errfds[0]);
                // The dispositions and mask the command would have had
                // without rtrace (which may ignore fatal signals itself).
                crate::engine::signals::reset_in_child();
                let mut b = 0u8;
                let n = libc::read(fds[0], (&mut b as *mut u8).cast(), 1);
                if n != 1 {
                    // rtrace gave up before releasing us.
                    libc::_exit(127);
                }
                libc::execvp(ptrs[0], ptrs.as_ptr());
                // Tell rtrace why (it prints the message), as a shell would
                // exit: 127.
                let errno = (*libc::__errno_location()).to_ne_bytes();
                libc::write(errfds[1], errno.as_ptr().cast(), errno.len());
                libc::_exit(127);
            }
        }
        // SAFETY: closing our copies of the child's ends.
        unsafe {
            libc::close(fds[0]);
            libc::close(errfds[1]);
        }
        Ok(Child {
            pid,
            go: Some(fds[1]),
            exec_err: Some(errfds[0]),
            name: cmd
                .first()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default(),
            status: None,
        })
    }

    /// Lets the child exec; waits until it has (or has failed to: the
    /// error names the command and the reason, nothing of it ran).
    pub fn release(&mut self) -> Result<(), String> {
        if let Some(fd) = self.go.take() {
            // SAFETY: fd is our pipe's write end.
            unsafe {
                libc::write(fd, b"g".as_ptr().cast(), 1);
                libc::close(fd);
            }
        }
        let Some(fd) = self.exec_err.take() else {
            return Ok(());
        };
        let mut b = [0u8; 4];
        let n = loop {
            // SAFETY: reading into an owned 4-byte buffer from our pipe.
            let n = unsafe { libc::read(fd, b.as_mut_ptr().cast(), b.len()) };
            if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break n;
            }
        };
        // SAFETY: closing our pipe's read end.
        unsafe { libc::close(fd) };
        if n != 4 {
            return Ok(());
        }
        let e = std::io::Error::from_raw_os_error(i32::from_ne_bytes(b));
        Err(format!("{}: {e}", self.name))
    }

    /// Its exit code (`128+sig` for a signal) once it has exited.
    pub fn try_wait(&mut self) -> Option<i32> {
        if self.status.is_none() {
            let mut st = 0;
            // SAFETY: waiting for our own child.
            let r = unsafe { libc::waitpid(self.pid, &mut st, libc::WNOHANG) };
            if r == self.pid {
                self.status = Some(if libc::WIFEXITED(st) {
                    libc::WEXITSTATUS(st)
                } else {
                    128 + libc::WTERMSIG(st)
                });
            } else if r < 0 {
                self.status = Some(127);
            }
        }
        self.status
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Some(fd) = self.exec_err.take() {
            // SAFETY: our exec-error pipe's read end.
            unsafe { libc::close(fd) };
        }
        if self.go.is_some() {
            // Never released (setup failed): closing the pipe makes it exit.
            if let Some(fd) = self.go.take() {
                // SAFETY: our pipe's write end.
                unsafe { libc::close(fd) };
            }
        }
        if self.status.is_none() {
            let mut st = 0;
            // SAFETY: reaping our own child (blocking: it is exiting or will
            // be killed by the same signal that stopped rtrace).
            unsafe { libc::waitpid(self.pid, &mut st, 0) };
        }
    }
}

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The command exited with this code.
    Exited(i32),
    /// Every attached pid is gone.
    PidsGone,
    /// rtrace got this signal.
    Signal(i32),
    /// The consumer asked to stop (closed output).
    Stopped,
}

impl End {
    /// The exit code rtrace returns.
    pub fn code(self) -> i32 {
        match self {
            End::Exited(c) => c,
            End::Signal(s) => crate::engine::signals::interrupted_status(s),
            End::PidsGone | End::Stopped => 0,
        }
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks existence.
    unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}

/// Reads events until the command exits, the pids are gone, a signal
/// arrives or the sink cannot write. Events of each pass are ordered by time
/// across CPUs; output is flushed after each batch.
pub fn read_loop(
    reader: &mut RawReader,
    formats: &Formats,
    mut child: Option<&mut Child>,
    pids: &[i32],
    sink: &mut Sink,
) -> Result<End, String> {
    let mut batch: Vec<KEvent> = Vec::new();
    loop {
        // Decide before draining, so everything written before the end is read.
        let end = if let Some(sig) = pending_signal() {
            Some(End::Signal(sig))
        } else if let Some(c) = child.as_deref_mut() {
            c.try_wait().map(End::Exited)
        } else if !pids.is_empty() && !pids.iter().any(|&p| alive(p)) {
            Some(End::PidsGone)
        } else {
            None
        };
        batch.clear();
        reader.drain(|cpu, ts, rec| {
            if let Some(ev) = formats.decode(cpu, ts, rec) {
                batch.push(ev);
            }
        })?;
        batch.sort_by_key(|e| e.ts);
        for ev in batch.drain(..) {
            if !sink.event(ev) {
                return Ok(End::Stopped);
            }
        }
        if !sink.flush() {
            return Ok(End::Stopped);
        }
        if let Some(end) = end {
            return Ok(end);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
