//! Running one measured command: its I/O files, wall and CPU time, and a
//! watchdog that kills runs that hang.
//!
//! Wall time is `Instant` around spawn + wait (fork + trace for the floor).
//! CPU time is user + system of the harness and of all waited-for
//! descendants (`getrusage` SELF + CHILDREN deltas), so it covers the tracer,
//! the workload and, for the floor, the tracing done by the harness itself.

use super::floor::{self, FloorIo, FloorStats};
use super::per_cpu;
use std::cell::Cell;
use std::ffi::{CString, OsString};
use std::fs::{self, File};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How to start one measured run.
pub enum Launch {
    /// Run `argv` as it is: the workload alone, or a tracer command line.
    Plain(Vec<OsString>),
    /// Run under an in-harness floor tracer.
    Floor(FloorRun),
}

/// A run under a floor tracer.
pub struct FloorRun {
    /// The workload's command line.
    pub argv: Vec<OsString>,
    /// `None`: the single floor on the harness's thread, unpinned.
    /// `Some(n)`: the per-CPU floor with at most `n` tracer threads, each
    /// pinned to its CPU (1: one tracer, the workload pinned with it).
    pub tracers: Option<usize>,
    /// Count the entries to this syscall number (self-test only).
    pub count: Option<u64>,
}

impl FloorRun {
    /// The single floor on `argv`.
    pub fn single(argv: Vec<OsString>) -> Launch {
        Launch::Floor(FloorRun {
            argv,
            tracers: None,
            count: None,
        })
    }
}

/// What one run did.
pub struct Outcome {
    /// Wall time from spawn to reaped.
    pub wall: Duration,
    /// User + system time of the harness and everything it reaped meanwhile.
    pub cpu: Duration,
    /// Exit code, or 128 + signal number when killed by a signal.
    pub exit_code: i32,
    /// The watchdog killed the run.
    pub timed_out: bool,
    /// What the floor tracer saw (floor runs only).
    pub floor: Option<FloorStats>,
    /// Tracer threads used and threads handed between them (per-CPU floor).
    pub per_cpu: Option<(usize, u64)>,
}

/// Runs commands with their output in files under one directory.
pub struct Runner {
    dir: PathBuf,
    watchdog: Watchdog,
    timeout: Duration,
}

impl Runner {
    /// A runner whose commands write `stdout`/`stderr` files in `dir` and are
    /// killed after `timeout`.
    pub fn new(dir: &Path, timeout: Duration) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            watchdog: Watchdog::start(),
            timeout,
        })
    }

    /// Runs one command to completion and measures it.
    pub fn run(&self, launch: &Launch) -> io::Result<Outcome> {
        let stdin = File::open("/dev/null")?;
        let stdout = File::create(self.dir.join("stdout"))?;
        let stderr = File::create(self.dir.join("stderr"))?;
        match launch {
            Launch::Plain(argv) => self.run_plain(argv, stdin, stdout, stderr),
            Launch::Floor(run) => {
                let io = FloorIo {
                    stdin: &stdin,
                    stdout: &stdout,
                    stderr: &stderr,
                };
                self.run_floor(run, &io)
            }
        }
    }

    fn run_plain(
        &self,
        argv: &[OsString],
        stdin: File,
        stdout: File,
        stderr: File,
    ) -> io::Result<Outcome> {
        let (program, args) = argv.split_first().expect("empty command line");
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::from(stdin))
            .stdout(Stdio::from(stdout))
            .stderr(Stdio::from(stderr))
            // Own process group, so the watchdog can kill tracer and tracees.
            .process_group(0);

        let cpu_before = cpu_time();
        let start = Instant::now();
        let mut child = command.spawn()?;
        self.watchdog.arm(child.id() as libc::pid_t, self.timeout);
        let status = child.wait();
        let wall = start.elapsed();
        let timed_out = self.watchdog.disarm();
        let status = status?;
        Ok(Outcome {
            wall,
            cpu: cpu_time().saturating_sub(cpu_before),
            exit_code: status
                .code()
                .or_else(|| status.signal().map(|s| 128 + s))
                .unwrap_or(-1),
            timed_out,
            floor: None,
            per_cpu: None,
        })
    }

    fn run_floor(&self, run: &FloorRun, io: &FloorIo) -> io::Result<Outcome> {
        let argv: Vec<CString> = run
            .argv
            .iter()
            .map(|a| CString::new(a.as_bytes()).map_err(io::Error::other))
            .collect::<io::Result<_>>()?;
        let cpus = match run.tracers {
            Some(n) => Some(per_cpu::usable_cpus(n)?),
            None => None,
        };

        let cpu_before = cpu_time();
        let start = Instant::now();
        let (result, per_cpu) = match cpus {
            None => {
                let tracee = floor::spawn(&argv, io)?;
                self.watchdog.arm(tracee.pid(), self.timeout);
                (floor::trace(tracee, run.count), None)
            }
            Some(cpus) => {
                let arm = |pid| self.watchdog.arm(pid, self.timeout);
                match per_cpu::run(&argv, io, cpus, run.count, arm) {
                    Ok((code, s)) => (Ok((code, s.floor)), Some((s.tracers, s.handoffs))),
                    Err(e) => (Err(e), None),
                }
            }
        };
        let wall = start.elapsed();
        let timed_out = self.watchdog.disarm();
        let (exit_code, stats) = result?;
        Ok(Outcome {
            wall,
            cpu: cpu_time().saturating_sub(cpu_before),
            exit_code,
            timed_out,
            floor: Some(stats),
            per_cpu,
        })
    }

    /// Standard output of the last run.
    pub fn stdout(&self) -> String {
        fs::read_to_string(self.dir.join("stdout")).unwrap_or_default()
    }

    /// The first lines of the last run's standard error, on one line.
    pub fn stderr_excerpt(&self) -> String {
        let text = fs::read_to_string(self.dir.join("stderr")).unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(3)
            .collect();
        lines.join(" | ")
    }
}

/// User + system time of this process plus its reaped descendants.
fn cpu_time() -> Duration {
    let usage = |who| {
        // SAFETY: an all-zero rusage is valid; getrusage fills it in.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a valid out-pointer; RUSAGE_SELF and
        // RUSAGE_CHILDREN cannot fail.
        unsafe { libc::getrusage(who, &mut ru) };
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        tv(ru.ru_utime) + tv(ru.ru_stime)
    };
    usage(libc::RUSAGE_SELF) + usage(libc::RUSAGE_CHILDREN)
}

enum Message {
    /// Watch run number `.0` (process group `.1`) for at most `.2`.
    Arm(u64, libc::pid_t, Duration),
    Disarm,
}

/// Kills a run's process group when it outlives its time limit, so a hung
/// tracer fails one measurement instead of the whole session. One thread for
/// the whole session: arming costs a channel send, not a thread spawn.
struct Watchdog {
    tx: Sender<Message>,
    /// Number of the last run that was killed (runs count from 1).
    killed: Arc<AtomicU64>,
    /// Number of the current run.
    run: Cell<u64>,
}

impl Watchdog {
    fn start() -> Self {
        let (tx, rx) = mpsc::channel();
        let killed = Arc::new(AtomicU64::new(0));
        let shared = Arc::clone(&killed);
        std::thread::spawn(move || {
            while let Ok(message) = rx.recv() {
                let Message::Arm(run, group, limit) = message else {
                    continue;
                };
                if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(limit) {
                    shared.store(run, Ordering::SeqCst);
                    // SAFETY: kill(2) on a process group we started.
                    unsafe { libc::kill(-group, libc::SIGKILL) };
                }
            }
        });
        Self {
            tx,
            killed,
            run: Cell::new(0),
        }
    }

    fn arm(&self, group: libc::pid_t, limit: Duration) {
        self.run.set(self.run.get() + 1);
        let _ = self.tx.send(Message::Arm(self.run.get(), group, limit));
    }

    /// Stops watching; returns whether the run was killed. Runs are
    /// numbered, so a timeout that fires just as a run ends marks that run
    /// (it did reach its limit) and never a later one.
    fn disarm(&self) -> bool {
        let _ = self.tx.send(Message::Disarm);
        self.killed.load(Ordering::SeqCst) == self.run.get()
    }
}
