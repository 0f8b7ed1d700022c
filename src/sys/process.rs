//! Processes: fork, a child held before exec until its parent lets it go,
//! exec, wait, kill, exit, resource limits, credentials.
//!
//! A forked child of a process that may have threads can only call
//! async-signal-safe functions until it execs or exits: every function
//! here that says so allocates nothing and takes no lock. The child sides
//! of [`fork`] and [`fork_held`] must keep to those.
//!
//! Through nix: fork, kill, getpid, setpgid, setsid, the
//! credentials, resource limits, no-new-privs. Raw, each with its reason:
//! the waker's `clone`, exec, `_exit`, the waits, `kcmp`,
//! `PR_SET_PTRACER`.

use std::ffi::CString;
use std::io;

use nix::sys::resource::{self, Resource};
use nix::unistd::{self, ForkResult, Gid, Pid, Uid};

use super::{fd, signal, signal_raw};

/// Which side of a [`fork`] this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forked {
    /// The new process.
    Child,
    /// The caller, with the child's pid.
    Parent(i32),
}

/// `fork()`. The child must call only async-signal-safe functions (the
/// ones in `sys` that say so) until it execs or leaves by [`exit_now`].
pub fn fork() -> io::Result<Forked> {
    // SAFETY: nix's fork is unsafe for what the child may do afterwards:
    // the contract stated above, which every caller keeps (their child
    // sides use only async-signal-safe wrappers on memory prepared before
    // the fork).
    match unsafe { unistd::fork() }? {
        ForkResult::Child => Ok(Forked::Child),
        ForkResult::Parent { child } => Ok(Forked::Parent(child.as_raw())),
    }
}

/// Forks a child that exits at once, by a raw `clone(SIGCHLD)` and the raw
/// exit syscall (no atfork handlers, no locks): async-signal-safe, for a
/// signal handler or a thread that must wake a blocking `wait4`. Returns
/// the child's pid (or -1).
///
/// Raw: nix's `fork` is glibc's (atfork handlers, locks: not for a signal
/// handler) and nix's `clone` takes a boxed callback and a stack (an
/// allocation).
pub fn fork_exiting_child() -> i32 {
    // SAFETY: clone(SIGCHLD) with no new stack is fork on every
    // architecture (aarch64 has no fork syscall); the child touches no
    // memory and only calls the raw exit syscall.
    unsafe {
        let pid = libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_long, 0, 0, 0, 0);
        if pid == 0 {
            libc::syscall(libc::SYS_exit, 0);
        }
        pid as i32
    }
}

/// `_exit(code)`: leaves without exit handlers or stdio flushing.
/// Async-signal-safe.
/// Raw: nix has no `_exit` (std's `process::exit` runs exit handlers).
pub fn exit_now(code: i32) -> ! {
    // SAFETY: _exit never returns and has no preconditions.
    unsafe { libc::_exit(code) }
}

/// The pipe a held child waits on: made before the fork, each side keeps
/// its end ([`Gate::waiter`], [`Gate::opener`]).
pub struct Gate {
    rd: i32,
    wr: i32,
}

/// A gate: the command waits on it until the tracer lets it go.
pub fn gate() -> io::Result<Gate> {
    let (rd, wr) = fd::pipe()?;
    Ok(Gate { rd, wr })
}

impl Gate {
    /// The waiting side (closes the write end). Async-signal-safe.
    pub fn waiter(self) -> Waiter {
        let (rd, wr) = (self.rd, self.wr);
        std::mem::forget(self);
        fd::close(wr);
        Waiter { rd }
    }

    /// The releasing side (closes the read end).
    pub fn opener(self) -> Opener {
        let (rd, wr) = (self.rd, self.wr);
        std::mem::forget(self);
        fd::close(rd);
        Opener { wr: Some(wr) }
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        fd::close(self.rd);
        fd::close(self.wr);
    }
}

/// The held process's end of a [`Gate`].
pub struct Waiter {
    rd: i32,
}

impl Waiter {
    /// Blocks until the other side opens the gate (true) or closes it
    /// without opening (false: it gave up); closes the pipe.
    /// Async-signal-safe.
    pub fn wait(self) -> bool {
        let mut b = [0u8; 1];
        let n = loop {
            let n = fd::read(self.rd, &mut b);
            if n >= 0 || super::errno() != libc::EINTR {
                break n;
            }
        };
        fd::close(self.rd);
        n == 1
    }
}

/// The holder's end of a [`Gate`]; dropping it unopened closes it, which
/// the waiter sees as "gave up".
pub struct Opener {
    wr: Option<i32>,
}

impl Opener {
    /// Lets the waiter go (one byte) and closes the pipe.
    pub fn open(mut self) {
        if let Some(wr) = self.wr.take() {
            fd::write(wr, b"g");
            fd::close(wr);
        }
    }
}

impl Drop for Opener {
    fn drop(&mut self) {
        if let Some(wr) = self.wr.take() {
            fd::close(wr);
        }
    }
}

/// A child forked by [`fork_held`], not yet let go.
pub struct Held {
    /// Its pid.
    pub pid: i32,
    /// Opens its gate.
    pub opener: Opener,
}

/// Forks a child that runs `child` with its end of a fresh [`Gate`]
/// (`child` calls [`Waiter::wait`] when it is ready to be held: after
/// resetting signals, say). The parent gets the pid and the opener. The
/// `child` closure runs after fork: async-signal-safe calls only; it
/// should exec or exit (the child leaves by `_exit(127)` if it returns).
pub fn fork_held(child: impl FnOnce(Waiter)) -> io::Result<Held> {
    let g = gate()?;
    match fork() {
        Err(e) => Err(e),
        Ok(Forked::Child) => {
            child(g.waiter());
            exit_now(127)
        }
        Ok(Forked::Parent(pid)) => Ok(Held {
            pid,
            opener: g.opener(),
        }),
    }
}

/// A program and its arguments (and environment), made into C strings
/// before a fork so the child can exec without allocating.
pub struct Exec {
    path: CString,
    _args: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    _env: Vec<CString>,
    envp: Option<Vec<*const libc::c_char>>,
}

impl Exec {
    /// `path` with `args` (argv[0] first); `env` = Some: exactly that
    /// environment (`execve`, `path` used as is); None: this process's
    /// environment, `path` looked up in PATH (`execvp`).
    pub fn new(path: CString, args: Vec<CString>, env: Option<Vec<CString>>) -> Exec {
        let mut argv: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        let (env, envp) = match env {
            Some(env) => {
                let mut p: Vec<*const libc::c_char> = env.iter().map(|a| a.as_ptr()).collect();
                p.push(std::ptr::null());
                (env, Some(p))
            }
            None => (Vec::new(), None),
        };
        Exec {
            path,
            _args: args,
            argv,
            _env: env,
            envp,
        }
    }

    /// Execs; returns only on failure, with the errno. Async-signal-safe.
    ///
    /// Raw: nix's `execve`/`execvp` build their pointer arrays in a `Vec`
    /// at the call, an allocation in a forked child of a threaded process
    /// (malloc's lock may be held by a thread that no longer exists);
    /// these arrays are made before the fork.
    pub fn exec(&self) -> i32 {
        // SAFETY: `argv` and `envp` are NULL-terminated arrays of pointers
        // into the CStrings this struct owns, alive for the call; `path`
        // is NUL-terminated.
        unsafe {
            match &self.envp {
                Some(envp) => libc::execve(self.path.as_ptr(), self.argv.as_ptr(), envp.as_ptr()),
                None => libc::execvp(self.path.as_ptr(), self.argv.as_ptr()),
            };
        }
        super::errno()
    }
}

/// A user to become ([`switch_user`]), made before a fork so the child
/// does not allocate.
pub struct Creds {
    uid: Uid,
    gid: Gid,
    groups: Vec<Gid>,
}

impl Creds {
    /// User `uid`, group `gid`, supplementary `groups`.
    pub fn new(uid: u32, gid: u32, groups: &[u32]) -> Creds {
        Creds {
            uid: Uid::from_raw(uid),
            gid: Gid::from_raw(gid),
            groups: groups.iter().map(|&g| Gid::from_raw(g)).collect(),
        }
    }
}

/// `setgroups`, `setgid`, `setuid`: whether all three succeeded.
/// Async-signal-safe.
pub fn switch_user(c: &Creds) -> bool {
    unistd::setgroups(&c.groups).is_ok()
        && unistd::setgid(c.gid).is_ok()
        && unistd::setuid(c.uid).is_ok()
}

/// `waitpid(pid, flags)`: (pid, status); 0 for the pid with `WNOHANG`
/// when the child has not changed state. Not retried after EINTR.
///
/// Raw, as [`wait4`]: nix's `WaitStatus` holds the signal as its `Signal`,
/// which cannot represent real-time signals (a process killed or stopped
/// by one could not be reported).
pub fn waitpid(pid: i32, flags: i32) -> io::Result<(i32, i32)> {
    let mut status = 0;
    // SAFETY: `status` is a writable local.
    let r = unsafe { libc::waitpid(pid, &mut status, flags) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((r, status))
}

/// Waits for child `pid` to end, retrying after EINTR; its status, or
/// the error (ECHILD: reaped elsewhere).
pub fn reap(pid: i32) -> io::Result<i32> {
    loop {
        match waitpid(pid, 0) {
            Ok((_, st)) => return Ok(st),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Raw `wait4(pid, …, flags)`: (pid, status); `rusage` is filled when given.
///
/// Raw: nix has no wait4 (no rusage), and its `WaitStatus` cannot hold
/// real-time signals; `engine/status.rs` decodes the status word.
pub fn wait4(pid: i32, flags: i32, rusage: Option<&mut libc::rusage>) -> io::Result<(i32, i32)> {
    let mut status = 0;
    let ru = match rusage {
        Some(r) => r as *mut libc::rusage,
        None => std::ptr::null_mut(),
    };
    // SAFETY: `status` and `ru` (when non-null) point to live, writable memory.
    let r = unsafe { libc::wait4(pid, &mut status, flags, ru) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((r, status))
}

/// An all-zero `rusage`.
pub fn empty_rusage() -> libc::rusage {
    // SAFETY: rusage is plain integers; all-zero is valid.
    unsafe { std::mem::zeroed() }
}

/// `kill(pid, sig)`. Takes a raw signal number: real-time signals too
/// (raw, as nix cannot name them); 0 checks that `pid` exists.
pub fn kill(pid: i32, sig: i32) -> io::Result<()> {
    match (sig, signal::named(sig)) {
        (0, _) => Ok(nix::sys::signal::kill(Pid::from_raw(pid), None)?),
        (_, Some(s)) => Ok(nix::sys::signal::kill(Pid::from_raw(pid), s)?),
        (_, None) => signal_raw::kill(pid, sig),
    }
}

/// `tgkill(tgid, tid, sig)` (raw signal number; raw call, see
/// [`signal_raw`]).
pub fn tgkill(tgid: i32, tid: i32, sig: i32) -> io::Result<()> {
    signal_raw::tgkill(tgid, tid, sig)
}

/// Whether process `pid` exists (signal 0; EPERM means it does).
pub fn alive(pid: i32) -> bool {
    match kill(pid, 0) {
        Ok(()) => true,
        Err(e) => e.raw_os_error() == Some(libc::EPERM),
    }
}

/// Whether two tasks share one address space (`kcmp(KCMP_VM)`); `None`
/// when the kernel cannot tell (no `CONFIG_KCMP`). Raw: nix has no kcmp.
pub fn same_vm(a: i32, b: i32) -> Option<bool> {
    const KCMP_VM: libc::c_long = 1;
    // SAFETY: a plain syscall with integer arguments.
    let r = unsafe { libc::syscall(libc::SYS_kcmp, a, b, KCMP_VM, 0, 0) };
    (r >= 0).then_some(r == 0)
}

/// This process's pid.
pub fn pid() -> i32 {
    unistd::getpid().as_raw()
}

/// `prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)`: under Yama, let any
/// process trace this one (not only ancestors). Raw: nix's prctl module
/// has no PR_SET_PTRACER.
pub fn allow_any_tracer() {
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_PTRACER, libc::PR_SET_PTRACER_ANY, 0, 0, 0) };
}

/// `setpgid(0, 0)`: a new process group. Async-signal-safe.
pub fn new_process_group() {
    let _ = unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
}

/// `setsid()`: a new session. Async-signal-safe.
pub fn new_session() {
    let _ = unistd::setsid();
}

/// The resource limits rtrace sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `RLIMIT_CORE`: core file size.
    Core,
    /// `RLIMIT_CPU`: CPU seconds.
    Cpu,
    /// `RLIMIT_AS`: address space bytes.
    AddressSpace,
}

fn resource(l: Limit) -> Resource {
    match l {
        Limit::Core => Resource::RLIMIT_CORE,
        Limit::Cpu => Resource::RLIMIT_CPU,
        Limit::AddressSpace => Resource::RLIMIT_AS,
    }
}

/// Lowers resource limit `limit` to `soft`/`hard` (never raises a hard
/// limit already lower). Async-signal-safe.
pub fn lower_limit(limit: Limit, soft: u64, hard: u64) {
    let (_, max) = resource::getrlimit(resource(limit)).unwrap_or((0, 0));
    let cap = |v: u64| {
        if max == libc::RLIM_INFINITY {
            v
        } else {
            v.min(max)
        }
    };
    let _ = resource::setrlimit(resource(limit), cap(soft), cap(hard));
}

/// `setrlimit(limit, soft, hard)` as given.
pub fn set_limit(limit: Limit, soft: u64, hard: u64) {
    let _ = resource::setrlimit(resource(limit), soft, hard);
}

/// `prctl(PR_SET_NO_NEW_PRIVS, 1)`. Async-signal-safe.
pub fn no_new_privs() -> io::Result<()> {
    Ok(nix::sys::prctl::set_no_new_privs()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The held child learns whether it was let go or given up on; the
    /// exit code says which.
    #[test]
    fn held_child_sees_open_or_give_up() {
        for open in [true, false] {
            let held = fork_held(|gate| exit_now(if gate.wait() { 10 } else { 20 })).unwrap();
            let pid = held.pid;
            if open {
                held.opener.open();
            } else {
                drop(held.opener);
            }
            let st = reap(pid).unwrap();
            assert!(libc::WIFEXITED(st));
            assert_eq!(libc::WEXITSTATUS(st), if open { 10 } else { 20 });
        }
    }

    /// A failed exec returns its errno without allocating or leaving.
    #[test]
    fn exec_of_a_missing_file_fails_with_enoent() {
        let path = CString::new("/nonexistent/rtrace-sys-test").unwrap();
        let exec = Exec::new(path.clone(), vec![path], Some(Vec::new()));
        assert_eq!(exec.exec(), libc::ENOENT);
    }
}
