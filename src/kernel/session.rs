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
use crate::sys::{self, process, signal::Disposition};
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
        let _ = sys::signal::set_disposition(sig, Disposition::Handler(on_signal), false);
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
    sys::mono_ns()
}

/// `flock(2)` on `file`: exclusive or shared, waiting or not; whether the
/// lock is held.
pub fn flock(file: &std::fs::File, exclusive: bool, wait: bool) -> bool {
    sys::fd::flock(file, exclusive, wait)
}

/// A command forked and held before `execvp` until [`Child::release`].
pub struct Child {
    /// Its pid.
    pub pid: i32,
    go: Option<process::Opener>,
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
        let file = argv.first().cloned().unwrap_or_default();
        let exec = process::Exec::new(file, argv, None);
        let (err_rd, err_wr) = sys::fd::pipe().map_err(|e| format!("pipe: {e}"))?;
        // The child only calls async-signal-safe functions on memory
        // prepared before the fork.
        let held = process::fork_held(|gate| {
            sys::fd::close(err_rd);
            // The dispositions and mask the command would have had
            // without rtrace (which may ignore fatal signals itself).
            crate::engine::signals::reset_in_child();
            if !gate.wait() {
                // rtrace gave up before releasing us.
                process::exit_now(127);
            }
            let errno = exec.exec();
            // Tell rtrace why (it prints the message), as a shell would
            // exit: 127.
            sys::fd::write(err_wr, &errno.to_ne_bytes());
            process::exit_now(127);
        });
        sys::fd::close(err_wr);
        let held = held.map_err(|e| {
            sys::fd::close(err_rd);
            format!("fork: {e}")
        })?;
        Ok(Child {
            pid: held.pid,
            go: Some(held.opener),
            exec_err: Some(err_rd),
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
        if let Some(go) = self.go.take() {
            go.open();
        }
        let Some(fd) = self.exec_err.take() else {
            return Ok(());
        };
        let mut b = [0u8; 4];
        let n = loop {
            let n = sys::fd::read(fd, &mut b);
            if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break n;
            }
        };
        sys::fd::close(fd);
        if n != 4 {
            return Ok(());
        }
        let e = std::io::Error::from_raw_os_error(i32::from_ne_bytes(b));
        Err(format!("{}: {e}", self.name))
    }

    /// Its exit code (`128+sig` for a signal) once it has exited.
    pub fn try_wait(&mut self) -> Option<i32> {
        if self.status.is_none() {
            match process::waitpid(self.pid, libc::WNOHANG) {
                Ok((r, st)) if r == self.pid => {
                    self.status = Some(if libc::WIFEXITED(st) {
                        libc::WEXITSTATUS(st)
                    } else {
                        128 + libc::WTERMSIG(st)
                    });
                }
                Ok(_) => {}
                Err(_) => self.status = Some(127),
            }
        }
        self.status
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Some(fd) = self.exec_err.take() {
            sys::fd::close(fd);
        }
        // Never released (setup failed): closing the pipe makes it exit.
        drop(self.go.take());
        if self.status.is_none() {
            // Reaping our own child (blocking: it is exiting or will be
            // killed by the same signal that stopped rtrace).
            let _ = process::waitpid(self.pid, 0);
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
    process::alive(pid)
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
