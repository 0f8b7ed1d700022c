//! The wait loop: one `wait4(-1, __WALL)` loop over every tracee, turning raw
//! stops into [`Event`]s for a [`Handler`] and restarting each tracee the
//! right way.
//!
//! Rules this loop keeps (each one is a ptrace quirk):
//! - Statuses are decoded from the raw word ([`super::status`]) so real-time
//!   signals are never lost, and restarts pass the signal number through as is.
//! - Group-stops of seized tracees are reported as `PTRACE_EVENT_STOP` with a
//!   stop signal; the tracee is parked with `PTRACE_LISTEN` so it stays
//!   stopped until SIGCONT, as it would untraced.
//! - A new child may report its first stop before its parent reports the
//!   fork event; either order creates the task.
//! - At exec by a non-leader thread the kernel reports the exec on the
//!   leader's tid; the former tid (from `PTRACE_GETEVENTMSG`) vanishes.
//! - With a seccomp filter installed, tracees run under `PTRACE_CONT` and stop
//!   only at `PTRACE_EVENT_SECCOMP` for traced calls; the exit of such a call
//!   is caught by restarting that one stop with `PTRACE_SYSCALL`.
//! - ESRCH from a restart means the task died under us (SIGKILL): its exit
//!   status arrives through wait later; it is not an error.
//!
//! Submodules: [`stops`] decodes one wait status (syscall stops, ptrace
//! events); [`pinning`] keeps tasks on rtrace's CPU and hides it;
//! [`kept`] runs the tasks a tool let go that must stay traced;
//! [`unfollowed`] takes the pin off children rstrace does not follow;
//! [`detach`] lets tracees go; [`procfs`] reads the /proc facts the loop
//! needs.

mod detach;
mod kept;
mod pinning;
mod procfs;
mod stops;
mod unfollowed;

pub use procfs::{eperm_reason, list_threads};

use super::affinity::Pin;
use super::ptrace::{self, opts, Tid};
use super::{seccomp, signals, spawn};
use rtrace_arch::Arch;
use std::collections::HashMap;
use std::io;
use std::time::Duration;

/// What the engine reports.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A syscall was entered.
    SyscallEntry {
        /// Thread.
        tid: Tid,
        /// Personality.
        arch: Arch,
        /// Number.
        nr: u64,
        /// Arguments.
        args: [u64; 6],
        /// Stack pointer at entry.
        sp: u64,
    },
    /// A syscall returned.
    SyscallExit {
        /// Thread.
        tid: Tid,
        /// Raw return value.
        ret: i64,
    },
    /// A signal is about to be delivered.
    Signal {
        /// Thread.
        tid: Tid,
        /// Signal number.
        sig: i32,
        /// Raw `siginfo_t` (zeroed if it could not be read).
        info: &'a [u8; 128],
    },
    /// The thread entered a group-stop.
    GroupStop {
        /// Thread.
        tid: Tid,
        /// The stop signal.
        sig: i32,
    },
    /// A new task is traced.
    NewTask {
        /// Its creator.
        parent: Tid,
        /// The new task.
        child: Tid,
        /// The child is a thread of the parent's process.
        thread: bool,
    },
    /// A thread completed an exec; `old_tid` is the tid that called it.
    Exec {
        /// The thread (now the leader).
        tid: Tid,
        /// The tid that called execve.
        old_tid: Tid,
    },
    /// The task exited.
    Exited {
        /// Thread.
        tid: Tid,
        /// Exit code.
        code: i32,
    },
    /// The task was killed by a signal.
    Killed {
        /// Thread.
        tid: Tid,
        /// Signal.
        sig: i32,
        /// Core dumped.
        core: bool,
    },
    /// The task was detached (rtrace interrupted or done).
    Detached {
        /// Thread.
        tid: Tid,
    },
    /// A task was attached (`-p`).
    Attached {
        /// Thread.
        tid: Tid,
    },
    /// A thread inside a syscall is exiting (`PTRACE_EVENT_EXIT`): the
    /// call will not return.
    Exiting {
        /// Thread.
        tid: Tid,
    },
    /// A process rtrace does not trace stopped or ended: a child created
    /// with `CLONE_PTRACE` while children are not followed (it has been
    /// let go: `exited` false), or the end of a child of rtrace's own that
    /// it never traced (`exited` true), as strace reports them.
    Unknown {
        /// Process.
        tid: Tid,
        /// It ended (else it stopped and was detached).
        exited: bool,
    },
}

/// How a tracee stopped for a signal resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// Deliver the signal (the untraced behaviour).
    Deliver,
    /// Swallow it (a breakpoint trap rtrace caused).
    Suppress,
    /// Swallow it and execute one instruction (`PTRACE_SINGLESTEP`).
    Step,
}

/// A consumer of engine events.
pub trait Handler {
    /// Called for every event, in order.
    fn event(&mut self, ev: Event<'_>, when: &Stamp);

    /// Decides how a signal-delivery stop resumes; called after the
    /// [`Event::Signal`] of that stop, while the tracee is still stopped (so
    /// its registers and memory may be changed through
    /// [`super::tracee::Tracee`]).
    fn signal_stop(&mut self, _tid: Tid, _sig: i32, _info: &[u8; 128]) -> Resume {
        Resume::Deliver
    }

    /// Tasks the handler wants to stop tracing (e.g. `-b execve`, an
    /// unfollowed child); polled after every event.
    fn detach_requests(&mut self) -> Vec<Tid> {
        Vec::new()
    }

    /// Called once per task at its first ptrace-stop, while it is stopped
    /// and before it runs on: a new child (fork or thread) before its first
    /// instruction, an attached thread at its attach interrupt. Per-thread
    /// state that is not inherited (debug registers) is set up here. For a
    /// new child this may come before its creator's [`Event::NewTask`].
    fn task_ready(&mut self, _tid: Tid) {}

    /// Called while `tid` is stopped, just before rtrace detaches from it
    /// (and it runs on untraced): the last chance to undo per-thread changes.
    fn detaching(&mut self, _tid: Tid) {}

    /// A signal to deliver as `tid` is resumed from a stop that delivers
    /// none (fault injection's `signal=`): taken with the resume of a
    /// syscall stop, the kernel sends it with `si_code` `SI_KERNEL`. Asked
    /// at a seccomp entry stop (where a resume signal would be dropped),
    /// it goes with the resume of the syscall's exit stop. 0: none.
    fn resume_signal(&mut self, _tid: Tid) -> i32 {
        0
    }

    /// How long `tid` stays stopped before it is resumed (fault
    /// injection's `delay_enter=`/`delay_exit=`); asked as it is about to
    /// resume. Other tracees run on meanwhile ([`super::delay`]).
    fn hold(&mut self, _tid: Tid) -> Option<Duration> {
        None
    }

    /// Polled before each wait: true ends [`Tracer::run`] with the tracees
    /// still attached (stopped or running), for the tool to detach them
    /// (rstrace's `--syscall-limit`).
    fn done(&mut self) -> bool {
        false
    }

    /// Called before the loop blocks waiting for the next stop (a tool
    /// that may be killed meanwhile writes out what it holds).
    fn idle(&mut self) {}
}

/// Extra facts about the moment of an event.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stamp {
    /// The tracee's system CPU time at this stop (only with `rusage`).
    pub stime: Option<Duration>,
}

/// Engine configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Follow fork/vfork/clone.
    pub follow_forks: bool,
    /// Syscall numbers to trace per personality; `None` traces all calls
    /// (no seccomp filter). Used only for launched commands.
    pub seccomp_sets: Option<Vec<(Arch, Vec<u32>)>>,
    /// Use `PTRACE_GET_SYSCALL_INFO` (else registers).
    pub syscall_info: bool,
    /// Collect rusage at every stop (for `-c` system time).
    pub rusage: bool,
    /// How fatal signals to rtrace are handled.
    pub interruptible: signals::Interruptible,
    /// Run a launched command on rtrace's CPU ([`super::affinity`]): with
    /// a seccomp filter only while it is a single task, else every task.
    /// Without syscall stops, a filter that stops only the affinity calls
    /// is installed to keep the pinning invisible.
    pub pin_cpu: bool,
    /// Run the threads of attached processes (`-p`) on rtrace's CPU too,
    /// giving each its own mask back at detach.
    pub pin_attached: bool,
    /// Stop at syscalls at all (breakpoint tools turn this off and run
    /// tracees with `PTRACE_CONT`).
    pub syscalls: bool,
    /// `PTRACE_O_EXITKILL` for a command launched with `-D` too (a
    /// command launched as rtrace's child always has it): tracees die
    /// with rtrace (rstrace's `--kill-on-exit`).
    pub exit_kill: bool,
}

#[derive(Debug)]
struct Task {
    /// Syscall entered, exit not seen yet.
    in_syscall: bool,
    /// The syscall in progress (number, personality, third argument).
    cur_nr: u64,
    cur_arch: Option<Arch>,
    cur_args: [u64; 6],
    /// Runs on rtrace's CPU by rtrace's choice (see affinity.rs).
    pinned: bool,
    /// The mask an attached task had before rtrace pinned it (a launched
    /// one had rtrace's, [`Pin::original`]).
    orig: Option<crate::sys::sched::CpuSet>,
    /// Let go by the handler but still traced by the engine (it carries
    /// the affinity filter, see kept.rs): no events, run until it ends.
    kept: bool,
    /// Set its own affinity: never pinned again.
    own_affinity: bool,
    /// Resume with one single step (the handler asked).
    step: bool,
    /// Detach at the next stop (the handler asked).
    detach_pending: bool,
    /// Launched child before its first execve: its syscalls are rtrace's own.
    hidden: bool,
    /// Its first exec is in progress: hidden again if it fails.
    check_exec: bool,
    /// Runs under PTRACE_CONT; stops only at seccomp events.
    seccomp: bool,
    /// Parked in a group-stop with PTRACE_LISTEN.
    listening: bool,
    /// Part of a process we attached to (detach, never kill).
    attached: bool,
    /// A stop arrived before its creator's fork event.
    early: bool,
    /// Its first ptrace-stop was seen ([`Handler::task_ready`] was called).
    ready: bool,
    /// Stopped at a ptrace event (a resume signal would be dropped).
    event_stop: bool,
    /// A [`Handler::resume_signal`] kept for the next resume.
    deferred_sig: i32,
    /// Kept stopped until then ([`Handler::hold`]), then resumed with
    /// this signal.
    held: Option<(std::time::Instant, i32)>,
}

impl Task {
    fn new(seccomp: bool, attached: bool) -> Task {
        Task {
            in_syscall: false,
            cur_nr: 0,
            cur_arch: None,
            cur_args: [0; 6],
            pinned: false,
            orig: None,
            kept: false,
            own_affinity: false,
            step: false,
            detach_pending: false,
            hidden: false,
            check_exec: false,
            seccomp,
            listening: false,
            attached,
            early: false,
            ready: false,
            event_stop: false,
            deferred_sig: 0,
            held: None,
        }
    }
}

/// How the traced command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Exited with a code.
    Exited(i32),
    /// Killed by a signal.
    Killed(i32, bool),
    /// Nothing was launched (attach mode), or it could not be determined.
    None,
}

/// The tracer: owns every tracee and the wait loop.
pub struct Tracer {
    cfg: Config,
    tasks: HashMap<Tid, Task>,
    main_pid: Option<Tid>,
    outcome: Outcome,
    options: libc::c_int,
    filter: Option<Vec<seccomp::Insn>>,
    /// Set when rtrace was told to stop (fatal signal).
    pub interrupted: Option<i32>,
    regs: Vec<u64>,
    /// Number of wait statuses handled (every ptrace stop and exit).
    pub stops: u64,
    pin: Option<Pin>,
    /// Pinning holds only while one task is traced (seccomp mode).
    pin_single: bool,
    /// Tasks are currently pinned.
    pinned_now: bool,
    /// The filter only stops the affinity calls for pinning (a tool
    /// without syscall stops): tasks carrying it are kept, not let go.
    keep_let_go: bool,
    /// Tasks kept stopped by [`Handler::hold`].
    held: usize,
    /// Unfollowed children still to be let go ([`unfollowed`]).
    kids: unfollowed::Unfollowed,
}

/// Personality of a `PTRACE_GET_SYSCALL_INFO` arch token.
fn arch_of(token: u32) -> Arch {
    Arch::from_audit_arch(token).unwrap_or(Arch::native())
}

impl Tracer {
    /// A tracer with this configuration.
    pub fn new(cfg: Config) -> Tracer {
        let mut options = opts::TRACESYSGOOD | opts::TRACEEXEC | opts::TRACESECCOMP;
        if cfg.follow_forks {
            options |= opts::TRACEFORK | opts::TRACEVFORK | opts::TRACECLONE;
        }
        if cfg.syscalls {
            // One stop as each thread exits, so a call that never returns
            // (exit, or one cut by exit_group or a fatal signal) ends there,
            // where strace ends it.
            options |= opts::TRACEEXIT;
        }
        // With pinning, the affinity calls must stop so their results can be
        // kept invisible (affinity.rs); the handler does not show them unless
        // they are traced.
        let pin_single = cfg.pin_cpu && cfg.seccomp_sets.is_some();
        // A tool without syscall stops gets them from a filter that stops
        // nothing else: two calls a program makes a handful of times, where
        // PTRACE_SYSCALL would stop twice at every call. (rstrace stops at
        // every call anyway when it has no filter of its own.)
        let keep_let_go = cfg.pin_cpu && !cfg.syscalls && cfg.seccomp_sets.is_none();
        let sets = cfg.seccomp_sets.clone().or_else(|| {
            keep_let_go.then(|| {
                Arch::native_personalities()
                    .iter()
                    .map(|&a| (a, Vec::new()))
                    .collect()
            })
        });
        let filter = sets.map(|mut sets| {
            if cfg.pin_cpu {
                for (arch, nrs) in sets.iter_mut() {
                    for n in ["sched_getaffinity", "sched_setaffinity"] {
                        nrs.extend(arch.syscall_nr(n));
                    }
                }
            }
            seccomp::build(&sets)
        });
        Tracer {
            cfg,
            tasks: HashMap::new(),
            main_pid: None,
            outcome: Outcome::None,
            options,
            filter,
            interrupted: None,
            regs: vec![0; 64],
            stops: 0,
            pin: None,
            pin_single,
            pinned_now: false,
            keep_let_go,
            held: 0,
            kids: unfollowed::Unfollowed::default(),
        }
    }

    /// Launches `cmd` under trace.
    pub fn launch(&mut self, cmd: &spawn::Command) -> io::Result<Tid> {
        signals::install(self.cfg.interruptible);
        // Pin before the fork so the child starts on our CPU (see affinity.rs).
        let fresh = self.cfg.pin_cpu && self.pin.is_none();
        if fresh {
            self.pin = Pin::pin_self();
            self.pinned_now = self.pin.is_some();
        }
        // A pinned command's unfollowed children are seen, to be unpinned
        // and let go (unfollowed.rs).
        let mut options = self.options | opts::EXITKILL;
        if self.pin.is_some() && !self.cfg.follow_forks {
            options |= opts::TRACEFORK | opts::TRACEVFORK | opts::TRACECLONE;
            self.kids.watching = true;
        }
        let pid = spawn::spawn(cmd, options, self.filter.as_deref());
        let pid = match pid {
            Ok(p) => p,
            Err(e) => {
                if fresh {
                    if let Some(p) = self.pin.take() {
                        let _ = p.restore(0);
                    }
                }
                return Err(e);
            }
        };

        let mut t = Task::new(false, false);
        t.hidden = true;
        t.pinned = self.cfg.pin_cpu && self.pin.is_some();
        self.tasks.insert(pid, t);
        self.main_pid = Some(pid);
        Ok(pid)
    }

    /// Launches `cmd` with strace's `-D` (see [`spawn::spawn_daemonized`]):
    /// this process becomes the command, and only the tracer (a new
    /// grandchild) returns. No CPU pinning, and the command outlives the
    /// tracer.
    pub fn launch_daemonized(&mut self, cmd: &spawn::Command, level: u8) -> io::Result<Tid> {
        signals::install(self.cfg.interruptible);
        let options = if self.cfg.exit_kill {
            self.options | opts::EXITKILL
        } else {
            self.options
        };
        let pid = spawn::spawn_daemonized(cmd, options, self.filter.as_deref(), level)?;
        // Like an attached process, it is let go, never killed, when
        // rtrace is interrupted (strace forgets it as its child).
        let mut t = Task::new(false, true);
        t.hidden = true;
        self.tasks.insert(pid, t);
        self.main_pid = Some(pid);
        Ok(pid)
    }

    /// Attaches to every thread of process `pid` (`-p`).
    pub fn attach(&mut self, pid: Tid, h: &mut dyn Handler) -> io::Result<()> {
        signals::install(self.cfg.interruptible);
        let mut tids = list_threads(pid);
        if tids.is_empty() {
            tids.push(pid);
        }
        let mut any = false;
        let mut first_err = None;
        for tid in tids {
            if self.tasks.contains_key(&tid) {
                continue;
            }
            match ptrace::seize(tid, self.options).and_then(|_| ptrace::interrupt(tid)) {
                Ok(()) => {
                    let mut t = Task::new(false, true);
                    self.pin_attached(tid, &mut t);
                    self.tasks.insert(tid, t);
                    h.event(Event::Attached { tid }, &Stamp::default());
                    any = true;
                }
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        match (any, first_err) {
            (false, Some(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// Number of live tracees.
    pub fn live(&self) -> usize {
        self.tasks.len()
    }

    /// How the launched command ended.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    fn restart(&mut self, tid: Tid, mut sig: i32, h: &mut dyn Handler) {
        let Some(t) = self.tasks.get_mut(&tid) else {
            return;
        };
        if !t.detach_pending {
            if let Some(d) = h.hold(tid) {
                t.held = Some((std::time::Instant::now() + d, sig));
                self.held += 1;
                super::delay::wake_after(d);
                return;
            }
        }
        if sig == 0 && !t.detach_pending {
            if t.deferred_sig != 0 && !t.event_stop {
                sig = std::mem::take(&mut t.deferred_sig);
            } else {
                match h.resume_signal(tid) {
                    0 => {}
                    s if t.event_stop => t.deferred_sig = s,
                    s => sig = s,
                }
            }
        }
        t.event_stop = false;
        let (detach, step) = (t.detach_pending, t.step);
        let keep = detach && t.seccomp && self.keep_let_go;
        let cont = (t.seccomp || !self.cfg.syscalls) && !t.in_syscall;
        let r = if keep {
            // It carries the affinity filter: let go for the handler only.
            self.keep(tid, sig, h)
        } else if detach {
            // A task rtrace pinned gets its own CPU mask back before it goes.
            self.unpin(tid);
            h.detaching(tid);
            let r = ptrace::detach(tid, sig);
            self.tasks.remove(&tid);
            h.event(Event::Detached { tid }, &Stamp::default());
            r
        } else if step {
            ptrace::singlestep(tid, sig)
        } else if cont {
            ptrace::cont(tid, sig)
        } else {
            ptrace::syscall(tid, sig)
        };
        // ESRCH: killed meanwhile; its death is reported by wait.
        let _ = r;
    }

    /// Runs until every tracee is gone, rtrace is interrupted or the
    /// handler is [`Handler::done`].
    pub fn run(&mut self, h: &mut dyn Handler) -> io::Result<()> {
        // Output files are written out every 100 ms from here on, whatever
        // the tracees do (see output/paced.rs for why not from this loop).
        crate::output::paced::start();
        let mut ru: libc::rusage = crate::sys::process::empty_rusage();
        while !self.tasks.is_empty() || !self.kids.awaiting.is_empty() {
            if let Some(sig) = signals::take_pending() {
                self.interrupted = Some(sig);
                return Ok(());
            }
            if h.done() {
                return Ok(());
            }
            if self.held > 0 {
                self.release_held(h);
            }
            // A status a synchronous tracee operation collected first
            // (tracee.rs) comes before anything new.
            let res = match super::tracee::take_requeued() {
                Some(x) => Ok(x),
                None => {
                    h.idle();
                    ptrace::wait_any(if self.cfg.rusage { Some(&mut ru) } else { None })
                }
            };
            let (tid, status) = match res {
                Ok(x) => x,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::ECHILD) => break,
                Err(e) => return Err(e),
            };
            self.stops += 1;
            let stamp = Stamp {
                stime: self.cfg.rusage.then(|| {
                    Duration::from_secs(ru.ru_stime.tv_sec as u64)
                        + Duration::from_micros(ru.ru_stime.tv_usec as u64)
                }),
            };
            self.handle(tid, status, h, &stamp);
        }
        Ok(())
    }
}

impl Tracer {
    /// Resumes the held tasks whose time has come.
    fn release_held(&mut self, h: &mut dyn Handler) {
        let now = std::time::Instant::now();
        let due: Vec<(Tid, i32)> = self
            .tasks
            .iter_mut()
            .filter_map(|(&tid, t)| match t.held {
                Some((at, sig)) if at <= now => {
                    t.held = None;
                    Some((tid, sig))
                }
                _ => None,
            })
            .collect();
        for (tid, sig) in due {
            self.held -= 1;
            self.restart(tid, sig, h);
        }
    }

    /// Takes `tid` off the held list (it is being detached or is gone);
    /// the signal it was to be resumed with.
    fn unhold(&mut self, tid: Tid) -> Option<i32> {
        let t = self.tasks.get_mut(&tid)?;
        let (_, sig) = t.held.take()?;
        self.held -= 1;
        Some(sig)
    }
}
