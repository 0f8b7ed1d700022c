//! Launching a command under trace.
//!
//! The child blocks reading a pipe while the parent seizes it
//! (`PTRACE_SEIZE`, so group-stops and `PTRACE_LISTEN` work) and interrupts it
//! once; then the parent closes the pipe and the child installs the seccomp
//! filter (if any) and execs. No stop signal is involved, so nothing has to be
//! suppressed or explained to the program.

use super::ptrace::{self, Tid};
use super::seccomp::{self, Insn};
use crate::sys::fd;
use crate::sys::process::{self, Forked};
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// What to run and how.
pub struct Command {
    /// Program as given (resolved through PATH like execvp).
    pub program: OsString,
    /// Arguments including argv[0].
    pub args: Vec<OsString>,
    /// Extra environment changes (`-E VAR=VAL` / `-E VAR`).
    pub env: Vec<(OsString, Option<OsString>)>,
    /// Run as this user (`-u`): uid, gid, supplementary groups.
    pub user: Option<(u32, u32, Vec<u32>)>,
}

/// How a failed exec in the child is reported: the message prefix (before
/// `: exec: REASON`) and the exit code. Unset: the program's file name and
/// 127.
static EXEC_FAILURE: std::sync::OnceLock<(Vec<u8>, i32)> = std::sync::OnceLock::new();

/// Sets how a failed exec is reported (rstrace: argv[0] and 1, as strace
/// dies with `perror_msg_and_die`). Only the first call counts.
pub fn set_exec_failure(prefix: &str, code: i32) {
    let _ = EXEC_FAILURE.set((prefix.as_bytes().to_vec(), code));
}

/// Finds `prog` as execvp would; strace's error wording on failure.
pub fn resolve(prog: &OsStr) -> io::Result<PathBuf> {
    let p = Path::new(prog);
    if prog.as_bytes().contains(&b'/') {
        std::fs::metadata(p)?;
        return Ok(p.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    for dir in std::env::split_paths(&path) {
        let cand = dir.join(p);
        if let Ok(m) = std::fs::metadata(&cand) {
            use std::os::unix::fs::PermissionsExt;
            if m.is_file() && m.permissions().mode() & 0o111 != 0 {
                return Ok(cand);
            }
        }
    }
    Err(io::Error::from_raw_os_error(libc::ENOENT))
}

fn cstr(s: &OsStr) -> CString {
    CString::new(s.as_bytes()).unwrap_or_else(|_| CString::new("?").expect("no NUL"))
}

/// Forks, seizes and releases the child; returns its pid. The child's first
/// stop (`PTRACE_EVENT_STOP` from the interrupt) is left for the wait loop.
pub fn spawn(cmd: &Command, options: libc::c_int, filter: Option<&[Insn]>) -> io::Result<Tid> {
    spawn_mode(cmd, options, filter, 0)
}

/// strace's `-D` (`level` 1), `-DD` (2), `-DDD` (3): the calling process
/// becomes the command, and a grandchild of it (orphaned at once; in a new
/// process group with 2, in a new session with 3) seizes it, releases it
/// and returns its pid: only the tracer returns from this call.
pub fn spawn_daemonized(
    cmd: &Command,
    options: libc::c_int,
    filter: Option<&[Insn]>,
    level: u8,
) -> io::Result<Tid> {
    spawn_mode(cmd, options, filter, level.max(1))
}

fn spawn_mode(
    cmd: &Command,
    options: libc::c_int,
    filter: Option<&[Insn]>,
    daemon: u8,
) -> io::Result<Tid> {
    let path = resolve(&cmd.program)?;
    let c_path = CString::new(path.into_os_string().into_vec())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    let c_args: Vec<CString> = cmd.args.iter().map(|a| cstr(a)).collect();
    // Environment: ours, edited by -E as putenv/unsetenv edit it (strace):
    // a variable that exists keeps its place, a new one goes at the end.
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    for (k, v) in &cmd.env {
        match (v, env.iter().position(|(ek, _)| ek == k)) {
            (Some(v), Some(i)) => {
                env[i].1 = v.clone();
                // Later duplicates of the name go.
                let mut n = 0;
                env.retain(|(ek, _)| {
                    n += usize::from(ek == k);
                    ek != k || n == 1
                });
            }
            (Some(v), None) => env.push((k.clone(), v.clone())),
            (None, _) => env.retain(|(ek, _)| ek != k),
        }
    }
    let c_env: Vec<CString> = env
        .iter()
        .map(|(k, v)| {
            let mut b = k.clone().into_vec();
            b.push(b'=');
            b.extend_from_slice(v.as_bytes());
            CString::new(b).unwrap_or_else(|_| CString::new("_=").expect("no NUL"))
        })
        .collect();
    let exec = process::Exec::new(c_path, c_args, Some(c_env));

    // "TOOL: exec: " (strace's wording), made before the fork.
    let (mut exec_prefix, fail_code) = match EXEC_FAILURE.get() {
        Some((p, code)) => (p.clone(), *code),
        None => {
            let tool = std::env::args_os()
                .next()
                .and_then(|a| Some(Path::new(&a).file_name()?.to_os_string()))
                .unwrap_or_else(|| "rtrace".into());
            (tool.into_vec(), 127)
        }
    };
    exec_prefix.extend_from_slice(b": exec: ");

    let creds = cmd
        .user
        .as_ref()
        .map(|(uid, gid, groups)| process::Creds::new(*uid, *gid, groups));

    // The command: waits for the tracer to hold it, then execs. Runs after
    // fork: only async-signal-safe calls on memory prepared before it.
    let exec_child = |gate: process::Waiter| -> ! {
        super::signals::reset_in_child();
        // Released or given up on: either way it goes on (a tracer that
        // failed kills it).
        gate.wait();
        if let Some(creds) = &creds {
            if !process::switch_user(creds) {
                child_fail(b"rstrace: cannot switch user\n");
            }
        }
        if let Some(f) = filter {
            if seccomp::install(f).is_err() {
                child_fail(b"rstrace: seccomp filter could not be installed\n");
            }
        }
        let errno = exec.exec();
        // Say why (ENOEXEC for a file that is not a program): the
        // process is single-threaded, so strerror is safe after fork.
        crate::sys::strerror_with(errno, |why| {
            fd::write(2, &exec_prefix);
            fd::write(2, why);
            fd::write(2, b"\n");
        });
        process::exit_now(fail_code)
    };
    if daemon > 0 {
        let gate = process::gate()?;
        let parent = process::pid();
        // Under Yama, only an ancestor may trace by default.
        process::allow_any_tracer();
        match process::fork()? {
            Forked::Child => {
                // The middle child leaves at once: the tracer is orphaned.
                // (rtrace is single-threaded here.)
                if !matches!(process::fork(), Ok(Forked::Child)) {
                    process::exit_now(0);
                }
                let opener = gate.opener();
                match daemon {
                    2 => process::new_process_group(),
                    3 => process::new_session(),
                    _ => {}
                }
                let res = ptrace::seize(parent, options).and_then(|_| ptrace::interrupt(parent));
                // Release the command whatever happened.
                opener.open();
                return res.map(|_| parent);
            }
            Forked::Parent(pid) => {
                let _ = process::reap(pid);
            }
        }
        exec_child(gate.waiter());
    }
    let held = process::fork_held(|gate| exec_child(gate))?;
    let pid = held.pid;
    let res = ptrace::seize(pid, options).and_then(|_| ptrace::interrupt(pid));
    // Release the child whatever happened: on error it must not hang forever.
    held.opener.open();
    if let Err(e) = res {
        let _ = ptrace::kill(pid, libc::SIGKILL);
        return Err(e);
    }
    Ok(pid)
}

/// Says `msg` on stderr and leaves (exit 127). Async-signal-safe.
fn child_fail(msg: &[u8]) -> ! {
    fd::write(2, msg);
    process::exit_now(127)
}
