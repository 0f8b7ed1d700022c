//! Child processes under a time limit: running a command to its end with
//! its output collected, waiting for a child with a deadline, reading a
//! pipe line by line through a channel (so a missing line fails a test
//! instead of hanging it), and unique temporary paths.
//!
//! Waits are exact: a helper thread blocks in `waitid(WNOWAIT)` until the
//! child ends and the caller waits on a channel with the deadline, so
//! nothing polls and the child is reaped by [`Child::wait`] as usual.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// How long [`run`] lets a command take.
pub const RUN_LIMIT_SECS: u64 = 60;

/// How long [`next_line`] waits for a line.
pub const LINE_LIMIT_SECS: u64 = 30;

/// The lines of a pipe through a channel, read by a thread of their own.
pub fn lines_of<R: Read + Send + 'static>(r: R) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines() {
            let Ok(l) = l else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

/// The next line from [`lines_of`]; fails naming `what` after
/// [`LINE_LIMIT_SECS`] without one or when the pipe closed.
pub fn next_line(rx: &Receiver<String>, what: &str) -> String {
    rx.recv_timeout(Duration::from_secs(LINE_LIMIT_SECS))
        .unwrap_or_else(|e| panic!("waiting for {what}: {e}"))
}

/// Waits for `child` at most `secs` seconds; kills it and fails, naming
/// `what`, on timeout.
pub fn wait_bounded(child: &mut Child, secs: u64, what: &str) -> ExitStatus {
    let pid = child.id() as libc::id_t;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || loop {
        // SAFETY: siginfo_t is plain data; all-zero is a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid, writable siginfo_t. WNOWAIT leaves the
        // child a zombie: `Child::wait` reaps it, and its pid cannot be
        // reused meanwhile.
        let r = unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            let _ = tx.send(());
            return;
        }
    });
    if rx.recv_timeout(Duration::from_secs(secs)).is_err() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what} did not end within {secs} s");
    }
    child.wait().expect("wait")
}

/// Checks `cond` every few milliseconds until it holds; fails naming
/// `what` (with `cond`'s last answer) after `secs` seconds. Only for a
/// state nothing notifies a test of: a process blocked in a syscall
/// when its tracer prints nothing as it enters it. A line a program or
/// tool writes is waited for by [`next_line`], a file
/// that grows by [`super::wait_file`], a child's exit by [`wait_bounded`].
pub fn poll_until(secs: u64, what: &str, mut cond: impl FnMut() -> Result<(), String>) {
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        match cond() {
            Ok(()) => return,
            Err(last) if std::time::Instant::now() >= end => {
                panic!("{what} within {secs} s: {last}")
            }
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// Runs `cmd args` (stdin from /dev/null) with the limit [`RUN_LIMIT_SECS`];
/// its status, stdout and stderr.
pub fn run(cmd: &Path, args: &[&str]) -> (ExitStatus, String, String) {
    run_within(cmd, args, RUN_LIMIT_SECS)
}

/// [`run`] with a limit of `secs` seconds.
pub fn run_within(cmd: &Path, args: &[&str], secs: u64) -> (ExitStatus, String, String) {
    let mut child = super::named(cmd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let collect = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = r.read_to_end(&mut b);
            String::from_utf8_lossy(&b).into_owned()
        })
    };
    let out = collect(Box::new(child.stdout.take().expect("stdout")));
    let err = collect(Box::new(child.stderr.take().expect("stderr")));
    let st = wait_bounded(&mut child, secs, &format!("{} {args:?}", cmd.display()));
    (st, out.join().expect("stdout"), err.join().expect("stderr"))
}

/// How many lines of `text` contain `needle`.
pub fn count_lines(text: &str, needle: &str) -> usize {
    text.lines().filter(|l| l.contains(needle)).count()
}

/// A path in the temporary directory no other test (thread or process)
/// uses: `rtrace-TAG-PID-N`. Nothing is created.
pub fn temp_path(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "rtrace-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ))
}
