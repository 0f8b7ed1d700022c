//! The `-o FILE` of every tracer holds each finished event while the
//! traced program still runs, and keeps it when the tracer is killed with
//! SIGKILL: rstrace (`-o` and `-ff`), rltrace (`--backend ptrace` and `--backend kernel`),
//! `rtrace break` and `rtrace watch`, each on testprogs/flush_marks.c.
//!
//! The program marks its progress (`mark(K)`: a breakpoint site, a write
//! of the watched global `marks`, library calls and an `openat` of a path
//! named after K), prints "ready" and blocks reading stdin. Tests wait for
//! "ready" on its stdout; the live test then waits for the file to be
//! written (inotify wakes it; the limit only turns a hang into a failure),
//! while the program is still blocked. The SIGKILL test kills the tracer as
//! soon as "ready" comes and needs the marks the program made at least
//! 200 ms before it (twice the promised 100 ms).
//!
//! The kernel backend skips, saying why, without root or uprobes. Every
//! run traces a private copy of the program (see common/private.rs).

use crate::common;

use common::{lines_of, next_line, PrivateCopy};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How long the live test lets the tracer take to write its file (the
/// promise is 100 ms; this only bounds a failing run).
const LIVE_LIMIT: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, Debug)]
enum Tool {
    Rstrace,
    /// `rstrace -ff`: one file per process, FILE.PID.
    RstraceFf,
    RltracePtrace,
    RltraceKernel,
    Break,
    Watch,
}

impl Tool {
    /// The tracer running `prog args` with `-o file`.
    fn command(self, file: &Path, prog: &Path, args: &[&str]) -> Command {
        let mut c = match self {
            Tool::Rstrace => Command::new(common::rstrace()),
            Tool::RstraceFf => {
                let mut c = Command::new(common::rstrace());
                c.arg("-ff");
                c
            }
            Tool::RltracePtrace | Tool::RltraceKernel => {
                let mut c = Command::new(common::rltrace());
                let backend = match self {
                    Tool::RltracePtrace => "ptrace",
                    _ => "kernel",
                };
                // -s: the marks' paths are longer than the default 32.
                c.args(["--backend", backend, "-s", "200"]);
                c
            }
            Tool::Break | Tool::Watch => {
                let mut c = Command::new(common::rtrace());
                c.arg(match self {
                    Tool::Break => "break",
                    _ => "watch",
                });
                c
            }
        };
        c.arg("-o").arg(file);
        match self {
            Tool::Break => {
                c.args(["mark", "--"]);
            }
            Tool::Watch => {
                c.args(["marks", "--"]);
            }
            _ => {}
        }
        c.arg(prog).args(args);
        c
    }

    /// What the line of `mark(k)` holds, `sum` being `marks` after it.
    fn line_of_mark(self, base: &str, k: u64, sum: u64) -> String {
        match self {
            Tool::Rstrace | Tool::RstraceFf => {
                format!("openat(AT_FDCWD, \"{base}.{k}\", O_RDONLY) = -1 ENOENT")
            }
            Tool::RltracePtrace | Tool::RltraceKernel => format!("open(\"{base}.{k}\", 0, 00)"),
            Tool::Break => format!("mark(k={k}) at flush_marks.c"),
            Tool::Watch => format!("write old {} ({:#x}) new {sum} (", sum - k, sum - k),
        }
    }

    /// Whether this machine can run it (else the reason is printed).
    fn available(self) -> bool {
        match self {
            Tool::RltraceKernel => common::uprobe_tracefs().is_some(),
            _ => true,
        }
    }
}

/// A tracer at work on flush_marks.
struct Traced {
    tool: Tool,
    tracer: Child,
    /// The program's stdin (closing it lets the program end).
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Receiver<String>,
    file: PathBuf,
    /// The program's BASE argument.
    base: String,
    _copy: PrivateCopy,
}

impl Traced {
    /// Starts `tool` on flush_marks with ROUNDS = `rounds` and waits for
    /// the program's "ready".
    fn until_ready(tool: Tool, rounds: u64) -> Traced {
        let copy = PrivateCopy::new(&common::testprog("flush_marks"));
        let file = common::temp_path("flush-out");
        let base = common::temp_path("flush-mark").display().to_string();
        let mut tracer = tool
            .command(&file, copy.path(), &[&base, &rounds.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the tracer");
        let stdin = tracer.stdin.take();
        let stdout = lines_of(tracer.stdout.take().expect("stdout"));
        let stderr = lines_of(tracer.stderr.take().expect("stderr"));
        let t = Traced {
            tool,
            tracer,
            stdin,
            stdout,
            stderr,
            file,
            base,
            _copy: copy,
        };
        let ready = next_line(&t.stdout, &format!("{tool:?}: the program's ready line"));
        assert_eq!(ready, "ready", "{tool:?}");
        t
    }

    /// The marks `mark(K)` with their `marks` sums, in order: 1, 2, 3,
    /// then 100.. for `rounds` rounds.
    fn marks(rounds: u64) -> Vec<(u64, u64)> {
        let mut sum = 0;
        (1..=3)
            .chain(100..100 + rounds)
            .map(|k| {
                sum += k;
                (k, sum)
            })
            .collect()
    }

    /// The marks (of `marks`) whose finished line `text` lacks.
    fn missing(&self, text: &str, marks: &[(u64, u64)]) -> Vec<u64> {
        let whole: Vec<&str> = text
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .collect();
        marks
            .iter()
            .filter(|(k, sum)| {
                let want = self.tool.line_of_mark(&self.base, *k, *sum);
                !whole.iter().any(|l| l.contains(&want))
            })
            .map(|(k, _)| *k)
            .collect()
    }

    /// The files the tracer wrote: `-o`'s, or with `-ff` those named
    /// after it.
    fn files(&self) -> Vec<PathBuf> {
        let dir = self.file.parent().expect("a directory");
        let name = self.file.file_name().expect("a name").to_string_lossy();
        let per_pid = format!("{name}.");
        let mut v = vec![self.file.clone()];
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if e.file_name().to_string_lossy().starts_with(&per_pid) {
                v.push(e.path());
            }
        }
        v
    }

    /// The file holding the program's trace: `-o`'s, or with `-ff` the
    /// one of its pid (it is the only process).
    fn trace_file(&self) -> PathBuf {
        match self.tool {
            Tool::RstraceFf => {
                let f = self.files();
                assert_eq!(f.len(), 2, "-ff: one file for the one process: {f:?}");
                f[1].clone()
            }
            _ => self.file.clone(),
        }
    }

    fn stderr_text(&self) -> String {
        self.stderr.try_iter().collect::<Vec<_>>().join("\n")
    }
}

impl Traced {
    /// SIGKILLs the tracer and reaps it. What a killed kernel backend
    /// could not remove (its uprobes) is removed by the tool that removes
    /// what dead rtrace processes left.
    fn kill(&mut self) {
        self.tracer.kill().expect("SIGKILL the tracer");
        self.tracer.wait().expect("reap the tracer");
        if matches!(self.tool, Tool::RltraceKernel) {
            let _one_cleanup = common::tracefs_cleanup_lock();
            let c = Command::new(common::rtrace())
                .args(["kernel", "cleanup"])
                .output()
                .expect("rtrace kernel cleanup");
            assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
        }
    }
}

impl Drop for Traced {
    fn drop(&mut self) {
        if let Ok(None) = self.tracer.try_wait() {
            self.kill();
        }
        for f in self.files() {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// Waits until `done` holds for the text of `path`, woken by inotify as
/// the file changes; the text, or (after `limit`) the last text seen.
fn await_text(path: &Path, limit: Duration, done: impl Fn(&str) -> bool) -> Result<String, String> {
    let c = CString::new(path.as_os_str().as_bytes()).expect("no NUL in a temp path");
    // SAFETY: inotify_init1 takes flags; the fd is ours and closed below.
    let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC) };
    assert!(
        fd >= 0,
        "inotify_init1: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: a valid fd and NUL-terminated path.
    let wd = unsafe { libc::inotify_add_watch(fd, c.as_ptr(), libc::IN_MODIFY) };
    assert!(
        wd >= 0,
        "inotify_add_watch {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
    let deadline = Instant::now() + limit;
    let res = loop {
        // Read after the watch is in place: no write can fall between.
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned();
        if done(&text) {
            break Ok(text);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break Err(text);
        }
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut p, 1, left.as_millis().min(i32::MAX as u128) as i32) };
        if n == 1 {
            let mut events = [0u8; 4096];
            // SAFETY: reading into a local buffer of that size.
            unsafe { libc::read(fd, events.as_mut_ptr().cast(), events.len()) };
        }
    };
    // SAFETY: closing the fd we opened.
    unsafe { libc::close(fd) };
    res
}

/// While the program is blocked on stdin, the file holds the lines of the
/// marks it made; then the program ends normally.
fn live(tool: Tool) {
    if !tool.available() {
        return;
    }
    let mut t = Traced::until_ready(tool, 0);
    let marks = Traced::marks(0);
    let seen = await_text(&t.trace_file(), LIVE_LIMIT, |text| {
        t.missing(text, &marks).is_empty()
    });
    let running = t.tracer.try_wait().expect("try_wait").is_none();
    if let Err(text) = &seen {
        panic!(
            "{tool:?}: with the program blocked after its marks, the -o file lacks marks {:?} after {LIVE_LIMIT:?}:\n{text}\nstderr: {}",
            t.missing(text, &marks),
            t.stderr_text()
        );
    }
    assert!(running, "{tool:?}: the tracer ended before the program did");
    drop(t.stdin.take());
    assert_eq!(
        next_line(&t.stdout, "the program's bye line"),
        "bye",
        "{tool:?}"
    );
    let st = common::wait_bounded(&mut t.tracer, 30, &format!("{tool:?}"));
    assert!(
        st.success(),
        "{tool:?}: {st:?}\nstderr: {}",
        t.stderr_text()
    );
    let text = std::fs::read_to_string(t.trace_file()).expect("read the -o file");
    assert!(
        t.missing(&text, &marks).is_empty(),
        "{tool:?}: at the end:\n{text}"
    );
}

/// ROUNDS of the SIGKILL test: 25 rounds of a mark and a 10 ms sleep.
const ROUNDS: u64 = 25;

/// The tracer killed with SIGKILL as soon as the program is ready leaves
/// the lines of every mark made at least 200 ms before: marks 1, 2, 3
/// and rounds 0..=5 (each followed by at least 20 sleeps of 10 ms).
fn sigkill(tool: Tool) {
    if !tool.available() {
        return;
    }
    let mut t = Traced::until_ready(tool, ROUNDS);
    t.kill();
    // Whatever the tracer did not write is lost now.
    let text =
        String::from_utf8_lossy(&std::fs::read(t.trace_file()).unwrap_or_default()).into_owned();
    drop(t.stdin.take());
    let old: Vec<(u64, u64)> = Traced::marks(ROUNDS).into_iter().take(3 + 6).collect();
    let missing = t.missing(&text, &old);
    assert!(
        missing.is_empty(),
        "{tool:?}: after SIGKILL the -o file lacks marks {missing:?}:\n{text}\nstderr: {}",
        t.stderr_text()
    );
}

#[test]
fn rstrace_file_is_written_while_the_program_runs() {
    live(Tool::Rstrace);
}

#[test]
fn rstrace_file_keeps_its_lines_after_sigkill() {
    sigkill(Tool::Rstrace);
}

#[test]
fn rstrace_ff_files_are_written_while_the_program_runs() {
    live(Tool::RstraceFf);
}

#[test]
fn rstrace_ff_files_keep_their_lines_after_sigkill() {
    sigkill(Tool::RstraceFf);
}

#[test]
fn rltrace_ptrace_file_is_written_while_the_program_runs() {
    live(Tool::RltracePtrace);
}

#[test]
fn rltrace_ptrace_file_keeps_its_lines_after_sigkill() {
    sigkill(Tool::RltracePtrace);
}

#[test]
fn rltrace_kernel_file_is_written_while_the_program_runs() {
    live(Tool::RltraceKernel);
}

#[test]
fn rltrace_kernel_file_keeps_its_lines_after_sigkill() {
    sigkill(Tool::RltraceKernel);
}

#[test]
fn break_file_is_written_while_the_program_runs() {
    live(Tool::Break);
}

#[test]
fn break_file_keeps_its_lines_after_sigkill() {
    sigkill(Tool::Break);
}

#[test]
fn watch_file_is_written_while_the_program_runs() {
    live(Tool::Watch);
}

#[test]
fn watch_file_keeps_its_lines_after_sigkill() {
    sigkill(Tool::Watch);
}
