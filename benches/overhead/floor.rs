//! The "floor" tracer: the least work any ptrace syscall tracer can do.
//!
//! It forks the workload, seizes it with the options a real `-f` tracer needs
//! (TRACESYSGOOD, TRACECLONE, TRACEFORK, TRACEVFORK, TRACEEXEC, plus EXITKILL
//! so nothing outlives the harness) and then runs one `waitpid(-1, __WALL)`
//! loop that restarts every stop with `PTRACE_SYSCALL`: two stops per system
//! call, nothing read, nothing printed. Whatever a real tracer costs above
//! this is its own overhead; `rstrace / floor` in the report is that ratio.
//!
//! Stops are decoded from the raw wait status, never through a signal enum,
//! because real-time signals (SIGRTMIN..SIGRTMAX) have no fixed names and
//! must be passed on untouched like any other signal.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::ptr;

/// Counts of what the floor tracer saw, so the self-test can check that it
/// really traced (and did not just run the program).
#[derive(Debug, Default, Clone, Copy)]
pub struct FloorStats {
    /// Syscall-entry and syscall-exit stops.
    pub syscall_stops: u64,
    /// `PTRACE_EVENT_*` stops (clone, fork, vfork, exec, new-tracee stops).
    pub events: u64,
    /// Signal-delivery stops; each signal was passed on to the tracee.
    pub signals: u64,
    /// Group-stops (job control), left stopped with `PTRACE_LISTEN`.
    pub group_stops: u64,
    /// Syscall-entry stops of the one syscall number the run was asked to
    /// count (self-test only: reading the number costs a ptrace call).
    pub counted: u64,
}

/// Where the traced program's standard streams go.
pub struct FloorIo<'a> {
    /// Standard input.
    pub stdin: &'a File,
    /// Standard output.
    pub stdout: &'a File,
    /// Standard error.
    pub stderr: &'a File,
}

/// A forked, seized workload, before it has been let go to `exec`.
pub struct Tracee {
    pid: libc::pid_t,
    /// Write end of the pipe the child waits on; closing it releases the child.
    release: libc::c_int,
}

impl Tracee {
    /// Pid of the workload; it leads its own process group.
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// Lets the seized child go on to `exec`: from its exec stop on, the
    /// thread that seized it sees its stops.
    pub fn release(self) -> libc::pid_t {
        // The child runs freely (it was seized, not stopped) until its exec
        // raises PTRACE_EVENT_EXEC; from that stop on, PTRACE_SYSCALL
        // restarts give a stop at every syscall entry and exit.
        // SAFETY: closing the write end of our own pipe releases the child.
        unsafe { libc::close(self.release) };
        self.pid
    }
}

/// Exit code of `argv[0]` (or 128 + signal number, as a shell reports it)
/// and what the tracer saw.
pub type FloorResult = io::Result<(i32, FloorStats)>;

pub const OPTIONS: libc::c_int = libc::PTRACE_O_TRACESYSGOOD
    | libc::PTRACE_O_TRACECLONE
    | libc::PTRACE_O_TRACEFORK
    | libc::PTRACE_O_TRACEVFORK
    | libc::PTRACE_O_TRACEEXEC
    | libc::PTRACE_O_EXITKILL;

/// Exit code of the child when `execv` fails (as a shell reports "not found").
const EXEC_FAILED: libc::c_int = 127;

/// Forks `argv` (the program path is `argv[0]`) in its own process group and
/// seizes it. The child waits on a pipe until [`trace`] releases it, so its
/// `execve` and everything after happens under the tracer.
pub fn spawn(argv: &[CString], io: &FloorIo) -> io::Result<Tracee> {
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(ptr::null());
    let (stdin, stdout, stderr) = (
        io.stdin.as_raw_fd(),
        io.stdout.as_raw_fd(),
        io.stderr.as_raw_fd(),
    );

    let mut pipe = [0; 2];
    // SAFETY: `pipe` is a valid array of two ints for the kernel to fill.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let [wait_end, release] = pipe;

    // SAFETY: the child below only makes async-signal-safe calls on memory
    // prepared before the fork, then execs or `_exit`s, so it is sound even
    // though the harness has other threads (the watchdog).
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let err = io::Error::last_os_error();
        // SAFETY: closing the two fds this function just created.
        unsafe {
            libc::close(wait_end);
            libc::close(release);
        }
        return Err(err);
    }
    if pid == 0 {
        // SAFETY: async-signal-safe calls only (see above); every pointer
        // comes from `argv_ptrs`, which is null-terminated and outlives exec.
        unsafe {
            libc::close(release);
            libc::setpgid(0, 0);
            libc::dup2(stdin, 0);
            libc::dup2(stdout, 1);
            libc::dup2(stderr, 2);
            // Block until the tracer has seized us: read() returns 0 (EOF)
            // once the parent closes its write end.
            let mut byte = 0u8;
            while libc::read(wait_end, ptr::addr_of_mut!(byte).cast(), 1) < 0
                && *libc::__errno_location() == libc::EINTR
            {}
            libc::execv(argv_ptrs[0], argv_ptrs.as_ptr());
            libc::_exit(EXEC_FAILED);
        }
    }

    // SAFETY: closing our copy of the child's end of the pipe.
    unsafe { libc::close(wait_end) };
    // SEIZE rather than TRACEME: with SEIZE the kernel reports group-stops as
    // PTRACE_EVENT_STOP, so they can be told apart from signal delivery
    // without a GETSIGINFO call, and kept with PTRACE_LISTEN.
    // SAFETY: PTRACE_SEIZE takes no address and the options as data.
    let seized = unsafe {
        libc::ptrace(
            libc::PTRACE_SEIZE,
            pid,
            ptr::null_mut::<libc::c_void>(),
            OPTIONS as libc::c_long,
        )
    };
    if seized != 0 {
        let err = io::Error::last_os_error();
        // SAFETY: killing and reaping the child we just forked.
        unsafe {
            libc::close(release);
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, ptr::null_mut(), 0);
        }
        return Err(err);
    }
    Ok(Tracee { pid, release })
}

/// Lets the seized child exec and traces it and all its threads and
/// descendants until none is left. With `count`, entries to that syscall
/// number are counted into [`FloorStats::counted`].
pub fn trace(tracee: Tracee, count: Option<u64>) -> FloorResult {
    let leader = tracee.release();

    let mut stats = FloorStats::default();
    let mut exit_code = None;
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: `status` is a valid out-pointer.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::__WALL) };
        if pid < 0 {
            let err = io::Error::last_os_error();
            match err.raw_os_error() {
                Some(libc::EINTR) => continue,
                // No tracee and no child left: the run is over.
                Some(libc::ECHILD) => break,
                _ => return Err(err),
            }
        }
        if libc::WIFEXITED(status) || libc::WIFSIGNALED(status) {
            if pid == leader {
                exit_code = Some(if libc::WIFEXITED(status) {
                    libc::WEXITSTATUS(status)
                } else {
                    128 + libc::WTERMSIG(status)
                });
            }
            continue;
        }
        if !libc::WIFSTOPPED(status) {
            continue;
        }
        let sig = libc::WSTOPSIG(status);
        let event = (status >> 16) & 0xff;
        let inject = if event == libc::PTRACE_EVENT_STOP {
            if matches!(
                sig,
                libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU
            ) {
                // Group-stop. Restarting would silently resume a program
                // that job control stopped; PTRACE_LISTEN keeps it stopped
                // and still reports SIGCONT or a later event.
                stats.group_stops += 1;
                restart(libc::PTRACE_LISTEN, pid, 0);
                continue;
            }
            // A new tracee's first stop under SEIZE (or an interrupt).
            stats.events += 1;
            0
        } else if event != 0 {
            stats.events += 1;
            0
        } else if sig == libc::SIGTRAP | 0x80 {
            // TRACESYSGOOD marks syscall stops with bit 7.
            count_syscall(&mut stats, pid, count);
            0
        } else {
            // Signal-delivery stop: pass the signal on, whatever its number.
            stats.signals += 1;
            sig
        };
        restart(libc::PTRACE_SYSCALL, pid, inject);
    }
    let code = exit_code.ok_or_else(|| io::Error::other("traced program vanished"))?;
    Ok((code, stats))
}

/// Counts a syscall stop, and with `count` an entry to that syscall.
pub fn count_syscall(stats: &mut FloorStats, tid: libc::pid_t, count: Option<u64>) {
    stats.syscall_stops += 1;
    if let Some(nr) = count {
        let info = rtrace::engine::ptrace::get_syscall_info(tid);
        if info.is_ok_and(|i| i.op == rtrace::engine::ptrace::info_op::ENTRY && i.nr == nr) {
            stats.counted += 1;
        }
    }
}

/// Restarts a stopped tracee. ESRCH is expected and ignored: a thread can be
/// killed while stopped (another thread called `exit_group` or `execve`), and
/// its exit is then reported by `waitpid` like any other.
pub fn restart(request: RequestType, pid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: restart requests take no address and a signal number as data.
    unsafe {
        libc::ptrace(
            request,
            pid,
            ptr::null_mut::<libc::c_void>(),
            sig as libc::c_long,
        );
    }
}

/// glibc and musl disagree on the type of the ptrace request argument.
#[cfg(target_env = "gnu")]
pub type RequestType = libc::c_uint;
#[cfg(not(target_env = "gnu"))]
pub type RequestType = libc::c_int;
