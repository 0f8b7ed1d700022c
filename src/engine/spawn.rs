//! Launching a command under trace.
//!
//! The child blocks reading a pipe while the parent seizes it
//! (`PTRACE_SEIZE`, so group-stops and `PTRACE_LISTEN` work) and interrupts it
//! once; then the parent closes the pipe and the child installs the seccomp
//! filter (if any) and execs. No stop signal is involved, so nothing has to be
//! suppressed or explained to the program.

use super::ptrace::{self, Tid};
use super::seccomp::{self, Insn};
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
    let mut argv: Vec<*const libc::c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
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
    let mut envp: Vec<*const libc::c_char> = c_env.iter().map(|a| a.as_ptr()).collect();
    envp.push(std::ptr::null());

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

    let mut fds = [0i32; 2];
    // SAFETY: `fds` is a valid 2-int array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let (rd, wr) = (fds[0], fds[1]);
    // The command: waits for the tracer to hold it, then execs.
    let exec_child = || -> ! {
        // SAFETY: all pointers were prepared before fork and stay valid;
        // only async-signal-safe functions are called.
        unsafe {
            libc::close(wr);
            super::signals::reset_in_child();
            let mut b = 0u8;
            while libc::read(rd, (&mut b as *mut u8).cast(), 1) < 0 {}
            libc::close(rd);
            if let Some((uid, gid, groups)) = &cmd.user {
                if libc::setgroups(groups.len(), groups.as_ptr()) != 0
                    || libc::setgid(*gid) != 0
                    || libc::setuid(*uid) != 0
                {
                    child_fail(b"rstrace: cannot switch user\n");
                }
            }
            if let Some(f) = filter {
                if seccomp::install(f).is_err() {
                    child_fail(b"rstrace: seccomp filter could not be installed\n");
                }
            }
            libc::execve(c_path.as_ptr(), argv.as_ptr(), envp.as_ptr());
            // Say why (ENOEXEC for a file that is not a program): the
            // process is single-threaded, so strerror is safe after fork.
            let why = std::ffi::CStr::from_ptr(libc::strerror(*libc::__errno_location()));
            libc::write(2, exec_prefix.as_ptr().cast(), exec_prefix.len());
            libc::write(2, why.as_ptr().cast(), why.to_bytes().len());
            libc::write(2, b"\n".as_ptr().cast(), 1);
            libc::_exit(fail_code);
        }
    };
    if daemon > 0 {
        // SAFETY: getpid/prctl/fork/waitpid/setpgid/setsid/close with
        // valid arguments; rtrace is single-threaded here.
        unsafe {
            let parent = libc::getpid();
            // Under Yama, only an ancestor may trace by default.
            libc::prctl(libc::PR_SET_PTRACER, libc::PR_SET_PTRACER_ANY, 0, 0, 0);
            let pid = libc::fork();
            if pid < 0 {
                return Err(io::Error::last_os_error());
            }
            if pid == 0 {
                // The middle child leaves at once: the tracer is orphaned.
                if libc::fork() != 0 {
                    libc::_exit(0);
                }
                libc::close(rd);
                match daemon {
                    2 => {
                        libc::setpgid(0, 0);
                    }
                    3 => {
                        libc::setsid();
                    }
                    _ => {}
                }
                let res = ptrace::seize(parent, options).and_then(|_| ptrace::interrupt(parent));
                // Release the command whatever happened.
                libc::close(wr);
                return res.map(|_| parent);
            }
            let mut st = 0;
            while libc::waitpid(pid, &mut st, 0) < 0 && *libc::__errno_location() == libc::EINTR {}
        }
        exec_child();
    }
    // SAFETY: rtrace is single-threaded here; the child only calls
    // async-signal-safe functions on memory prepared before the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        exec_child();
    }
    // SAFETY: closing our copy of the read end.
    unsafe { libc::close(rd) };
    let res = ptrace::seize(pid, options).and_then(|_| ptrace::interrupt(pid));
    // Release the child whatever happened: on error it must not hang forever.
    // SAFETY: closing our write end.
    unsafe { libc::close(wr) };
    if let Err(e) = res {
        let _ = ptrace::kill(pid, libc::SIGKILL);
        return Err(e);
    }
    Ok(pid)
}

fn child_fail(msg: &[u8]) -> ! {
    // SAFETY: write to stderr and exit: async-signal-safe.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::_exit(127)
    }
}
