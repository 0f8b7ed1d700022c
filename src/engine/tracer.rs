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

use super::affinity::Pin;
use super::ptrace::{self, info_op, opts, Tid};
use super::status::{classify, event, Status};
use super::{seccomp, signals, spawn};
use rtrace_arch::regs::RegisterFile;
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
    /// Run a launched, unfiltered command on rtrace's CPU ([`super::affinity`]).
    pub pin_cpu: bool,
    /// Stop at syscalls at all (breakpoint tools turn this off and run
    /// tracees with `PTRACE_CONT`).
    pub syscalls: bool,
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
    /// Set its own affinity: never pinned again.
    own_affinity: bool,
    /// Resume with one single step (the handler asked).
    step: bool,
    /// Detach at the next stop (the handler asked).
    detach_pending: bool,
    /// Launched child before its first execve: its syscalls are rtrace's own.
    hidden: bool,
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
}

impl Task {
    fn new(seccomp: bool, attached: bool) -> Task {
        Task {
            in_syscall: false,
            cur_nr: 0,
            cur_arch: None,
            cur_args: [0; 6],
            pinned: false,
            own_affinity: false,
            step: false,
            detach_pending: false,
            hidden: false,
            seccomp,
            listening: false,
            attached,
            early: false,
            ready: false,
            event_stop: false,
            deferred_sig: 0,
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
        // With pinning, the affinity calls must stop so their results can be
        // kept invisible (affinity.rs); the handler does not show them unless
        // they are traced.
        let pin_single = cfg.pin_cpu && cfg.seccomp_sets.is_some();
        let filter = cfg.seccomp_sets.as_ref().map(|sets| {
            let mut sets = sets.clone();
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
        }
    }

    /// Launches `cmd` under trace.
    pub fn launch(&mut self, cmd: &spawn::Command) -> io::Result<Tid> {
        signals::install(self.cfg.interruptible);
        // Pin before the fork so the child starts on our CPU (see affinity.rs).
        if self.cfg.pin_cpu {
            self.pin = Pin::pin_self();
            self.pinned_now = self.pin.is_some();
        }
        let pid = spawn::spawn(cmd, self.options | opts::EXITKILL, self.filter.as_deref());
        let pid = match pid {
            Ok(p) => p,
            Err(e) => {
                if let Some(p) = self.pin.take() {
                    let _ = p.restore(0);
                }
                return Err(e);
            }
        };

        let mut t = Task::new(false, false);
        t.hidden = true;
        t.pinned = self.pin.is_some();
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
                    self.tasks.insert(tid, Task::new(false, true));
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
        let t = &*t;
        let r = if t.detach_pending {
            // A task rtrace pinned gets its own CPU mask back before it goes.
            if t.pinned {
                if let Some(pin) = &self.pin {
                    let _ = pin.restore(tid);
                }
            }
            h.detaching(tid);
            let r = ptrace::detach(tid, sig);
            self.tasks.remove(&tid);
            h.event(Event::Detached { tid }, &Stamp::default());
            r
        } else if t.step {
            ptrace::singlestep(tid, sig)
        } else if (t.seccomp || !self.cfg.syscalls) && !t.in_syscall {
            ptrace::cont(tid, sig)
        } else {
            ptrace::syscall(tid, sig)
        };
        // ESRCH: killed meanwhile; its death is reported by wait.
        let _ = r;
    }

    /// Runs until every tracee is gone or rtrace is interrupted.
    pub fn run(&mut self, h: &mut dyn Handler) -> io::Result<()> {
        let mut ru: libc::rusage = unsafe_zeroed_rusage();
        while !self.tasks.is_empty() {
            if let Some(sig) = signals::take_pending() {
                self.interrupted = Some(sig);
                return Ok(());
            }
            // A status a synchronous tracee operation collected first
            // (tracee.rs) comes before anything new.
            let res = match super::tracee::take_requeued() {
                Some(x) => Ok(x),
                None => ptrace::wait_any(if self.cfg.rusage { Some(&mut ru) } else { None }),
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

    fn handle(&mut self, tid: Tid, status: i32, h: &mut dyn Handler, stamp: &Stamp) {
        let st = classify(status);
        if !self.tasks.contains_key(&tid) {
            match st {
                // A wake-up child of our signal handler, or an unknown child.
                Status::Exited(_) | Status::Killed { .. } => return,
                _ => {
                    // A new child stopping before its creator's fork event.
                    // It belongs to an attached process when its creator
                    // does: wait4 may report a busy thread's stops long
                    // before the creator's event, and until then a child
                    // taken for a launched one would be killed by
                    // `kill_launched_and_detach`.
                    let attached = creator_of(tid)
                        .is_some_and(|c| self.tasks.get(&c).is_some_and(|t| t.attached));
                    let mut t = Task::new(self.filter.is_some(), attached);
                    t.early = true;
                    self.tasks.insert(tid, t);
                }
            }
        }
        if let Some(t) = self.tasks.get_mut(&tid) {
            // A single step asked for at the previous stop is over.
            t.step = false;
        }
        let first = match self.tasks.get_mut(&tid) {
            Some(t) if !t.ready && !matches!(st, Status::Exited(_) | Status::Killed { .. }) => {
                t.ready = true;
                true
            }
            _ => false,
        };
        if first {
            h.task_ready(tid);
        }
        match st {
            Status::Exited(code) => {
                self.tasks.remove(&tid);
                if Some(tid) == self.main_pid {
                    self.outcome = Outcome::Exited(code);
                }
                h.event(Event::Exited { tid, code }, stamp);
                self.rebalance_pin();
            }
            Status::Killed { sig, core } => {
                self.tasks.remove(&tid);
                if Some(tid) == self.main_pid {
                    self.outcome = Outcome::Killed(sig, core);
                }
                h.event(Event::Killed { tid, sig, core }, stamp);
                self.rebalance_pin();
            }
            Status::Syscall => self.on_syscall(tid, h, stamp),
            Status::Event(ev) => self.on_event(tid, ev, h, stamp),
            Status::GroupStop(sig) => {
                h.event(Event::GroupStop { tid, sig }, stamp);
                if let Some(t) = self.tasks.get_mut(&tid) {
                    t.listening = true;
                }
                let _ = ptrace::listen(tid);
            }
            Status::Interrupt => {
                if let Some(t) = self.tasks.get_mut(&tid) {
                    t.listening = false;
                }
                // task_ready may have asked to let tasks go.
                self.take_detach_requests(h);
                self.restart(tid, 0, h);
            }
            Status::Signal(sig) => {
                let hidden = self.tasks.get(&tid).is_some_and(|t| t.hidden);
                let mut deliver = sig;
                if !hidden {
                    let info = ptrace::siginfo(tid).unwrap_or([0; 128]);
                    h.event(
                        Event::Signal {
                            tid,
                            sig,
                            info: &info,
                        },
                        stamp,
                    );
                    match h.signal_stop(tid, sig, &info) {
                        Resume::Deliver => {}
                        Resume::Suppress => deliver = 0,
                        Resume::Step => {
                            deliver = 0;
                            if let Some(t) = self.tasks.get_mut(&tid) {
                                t.step = true;
                            }
                        }
                    }
                    self.take_detach_requests(h);
                }
                self.restart(tid, deliver, h);
            }
            Status::Other => {}
        }
    }

    /// Marks the tasks the handler wants to let go: a stopped one is detached
    /// when it is restarted, a running one is interrupted first.
    fn take_detach_requests(&mut self, h: &mut dyn Handler) {
        for tid in h.detach_requests() {
            if let Some(t) = self.tasks.get_mut(&tid) {
                if !t.detach_pending {
                    t.detach_pending = true;
                    let _ = ptrace::interrupt(tid);
                }
            }
        }
    }

    fn syscall_view(&mut self, tid: Tid) -> Option<ptrace::SyscallInfo> {
        if self.cfg.syscall_info {
            return ptrace::get_syscall_info(tid).ok();
        }
        // The register path: the tracer tracks entry/exit itself.
        let n = ptrace::get_regs(tid, &mut self.regs).ok()?;
        let words = &self.regs[..n / 8];
        let r = rtrace_arch::native::Regs::syscall_regs(words);
        let t = self.tasks.get(&tid)?;
        let op = if t.in_syscall {
            info_op::EXIT
        } else {
            info_op::ENTRY
        };
        Some(ptrace::SyscallInfo {
            op,
            arch: r.arch.unwrap_or(Arch::native()).audit_arch(),
            pc: r.pc,
            sp: r.sp,
            nr: r.nr,
            args: r.args,
            rval: r.ret,
            is_error: crate::syscall::ctx::is_error(r.ret),
        })
    }

    fn on_syscall(&mut self, tid: Tid, h: &mut dyn Handler, stamp: &Stamp) {
        let Some(info) = self.syscall_view(tid) else {
            self.restart(tid, 0, h);
            return;
        };
        let Some(t) = self.tasks.get_mut(&tid) else {
            return;
        };
        match info.op {
            info_op::ENTRY => {
                t.in_syscall = true;
                let arch = arch_of(info.arch);
                t.cur_nr = info.nr;
                t.cur_arch = Some(arch);
                t.cur_args = info.args;
                if t.hidden
                    && arch
                        .syscall_name(info.nr)
                        .is_some_and(|n| n.starts_with("execve"))
                {
                    t.hidden = false;
                }
                if !t.hidden {
                    h.event(
                        Event::SyscallEntry {
                            tid,
                            arch,
                            nr: info.nr,
                            args: info.args,
                            sp: info.sp,
                        },
                        stamp,
                    );
                }
            }
            info_op::EXIT => {
                t.in_syscall = false;
                if t.pinned {
                    self.affinity_exit(tid, info.rval);
                }
                let Some(t) = self.tasks.get(&tid) else {
                    return;
                };
                if !t.hidden {
                    h.event(
                        Event::SyscallExit {
                            tid,
                            ret: info.rval,
                        },
                        stamp,
                    );
                }
            }
            _ => {}
        }
        self.take_detach_requests(h);
        self.restart(tid, 0, h);
    }

    /// In seccomp mode, pins while exactly one task is traced and unpins as
    /// soon as there are more (affinity.rs).
    fn rebalance_pin(&mut self) {
        if !self.pin_single {
            return;
        }
        let Some(pin) = self.pin.as_mut() else { return };
        let single = self.tasks.len() == 1;
        if single && !self.pinned_now {
            if pin.repin_self().is_err() {
                return;
            }
            for (tid, t) in self.tasks.iter_mut() {
                if !t.own_affinity && !t.attached && pin.pin_thread(*tid).is_ok() {
                    t.pinned = true;
                }
            }
            self.pinned_now = true;
        } else if !single && self.pinned_now {
            for (tid, t) in self.tasks.iter_mut() {
                if t.pinned {
                    let _ = pin.restore(*tid);
                    t.pinned = false;
                }
            }
            let _ = pin.restore(0);
            self.pinned_now = false;
        }
    }

    /// Keeps CPU pinning invisible at the exit of an affinity call (see
    /// affinity.rs): the command sees its original mask, and a command that
    /// sets its own affinity keeps it.
    fn affinity_exit(&mut self, tid: Tid, ret: i64) {
        let (Some(pin), Some(t)) = (self.pin.as_ref(), self.tasks.get(&tid)) else {
            return;
        };
        let Some(arch) = t.cur_arch else { return };
        let name = arch.syscall_name(t.cur_nr).unwrap_or("");
        let args = t.cur_args;
        let target = if args[0] as u32 == 0 {
            tid
        } else {
            args[0] as Tid
        };
        match name {
            "sched_getaffinity" if ret > 0 && self.tasks.get(&target).is_some_and(|t| t.pinned) => {
                let bytes = pin.visible_mask(ret as usize).to_vec();
                let _ = super::affinity::poke_bytes(tid, args[2], &bytes);
            }
            "sched_setaffinity" if ret == 0 => {
                if let Some(t) = self.tasks.get_mut(&target) {
                    t.pinned = false;
                    t.own_affinity = true;
                }
            }
            _ => {}
        }
    }

    fn on_event(&mut self, tid: Tid, ev: i32, h: &mut dyn Handler, stamp: &Stamp) {
        match ev {
            event::FORK | event::VFORK | event::CLONE => {
                if let Ok(child) = ptrace::event_msg(tid) {
                    let child = child as Tid;
                    let parent_seccomp = self.tasks.get(&tid).is_some_and(|t| t.seccomp);
                    let parent_pinned = self.tasks.get(&tid).is_some_and(|t| t.pinned);
                    let attached = self.tasks.get(&tid).is_some_and(|t| t.attached);
                    match self.tasks.get_mut(&child) {
                        Some(t) => {
                            // Its first stop came first; it is already running.
                            t.early = false;
                            t.seccomp = parent_seccomp;
                            t.attached = attached;
                            t.pinned = parent_pinned;
                        }
                        None => {
                            let mut t = Task::new(parent_seccomp, attached);
                            t.pinned = parent_pinned;
                            self.tasks.insert(child, t);
                        }
                    }
                    self.rebalance_pin();
                    let thread = ev == event::CLONE && is_thread_of(child, tid);
                    h.event(
                        Event::NewTask {
                            parent: tid,
                            child,
                            thread,
                        },
                        stamp,
                    );
                }
            }
            event::EXEC => {
                let old = ptrace::event_msg(tid).map(|v| v as Tid).unwrap_or(tid);
                if old != tid {
                    // The execing thread took over the leader's tid.
                    if let Some(mut t) = self.tasks.remove(&old) {
                        t.in_syscall = true;
                        self.tasks.insert(tid, t);
                    }
                    if Some(old) == self.main_pid {
                        self.main_pid = Some(tid);
                    }
                }
                if let Some(t) = self.tasks.get_mut(&tid) {
                    t.hidden = false;
                    if self.filter.is_some() && !t.attached {
                        t.seccomp = true;
                    }
                }
                self.rebalance_pin();
                h.event(Event::Exec { tid, old_tid: old }, stamp);
            }
            event::SECCOMP => {
                // Entry of a traced syscall in seccomp mode.
                let in_sys = self.tasks.get(&tid).is_some_and(|t| t.in_syscall);
                if !in_sys {
                    if let Ok(info) = ptrace::get_syscall_info(tid) {
                        let t = self.tasks.get_mut(&tid).expect("checked");
                        t.in_syscall = true;
                        t.cur_nr = info.nr;
                        t.cur_arch = Some(arch_of(info.arch));
                        t.cur_args = info.args;
                        if !t.hidden {
                            h.event(
                                Event::SyscallEntry {
                                    tid,
                                    arch: arch_of(info.arch),
                                    nr: info.nr,
                                    args: info.args,
                                    sp: info.sp,
                                },
                                stamp,
                            );
                        }
                    }
                }
                // Resumed with PTRACE_SYSCALL (in_syscall) to catch the exit.
                if let Some(t) = self.tasks.get_mut(&tid) {
                    t.event_stop = true;
                }
            }
            _ => {}
        }
        self.take_detach_requests(h);
        self.restart(tid, 0, h);
    }

    /// Detaches from every tracee (attached ones run on). Tasks are
    /// interrupted first: ptrace can only detach a stopped tracee. A signal
    /// that was about to be delivered is passed on with the detach.
    pub fn detach_all(&mut self, h: &mut dyn Handler) {
        let tids: Vec<Tid> = self.tasks.keys().copied().collect();
        if let Some(pin) = &self.pin {
            for (tid, t) in &self.tasks {
                if t.pinned {
                    let _ = pin.restore(*tid);
                }
            }
            let _ = pin.restore(0);
        }
        for &tid in &tids {
            let _ = ptrace::interrupt(tid);
        }
        // Stop every task before letting any go: a handler undoing its
        // changes to an address space (breakpoint bytes, an injected page)
        // must know no thread of it runs meanwhile.
        let mut stopped: Vec<(Tid, i32)> = Vec::new();
        while stopped.len() < self.tasks.len() {
            let res = match super::tracee::take_requeued() {
                Some(x) => Ok(x),
                None => ptrace::wait_any(None),
            };
            let (tid, status) = match res {
                Ok(x) => x,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(_) => break,
            };
            if !self.tasks.contains_key(&tid) || stopped.iter().any(|s| s.0 == tid) {
                continue;
            }
            match classify(status) {
                Status::Exited(code) => {
                    self.tasks.remove(&tid);
                    h.event(Event::Exited { tid, code }, &Stamp::default());
                }
                Status::Killed { sig, core } => {
                    self.tasks.remove(&tid);
                    h.event(Event::Killed { tid, sig, core }, &Stamp::default());
                }
                Status::Signal(sig) => {
                    // A trap rtrace caused (a watchpoint hit racing with the
                    // interrupt) must not reach the program: SIGTRAP would
                    // kill it.
                    let info = ptrace::siginfo(tid).unwrap_or([0; 128]);
                    let sig = match h.signal_stop(tid, sig, &info) {
                        Resume::Deliver => sig,
                        Resume::Suppress | Resume::Step => 0,
                    };
                    stopped.push((tid, sig));
                }
                _ => stopped.push((tid, 0)),
            }
        }
        for (tid, mut sig) in stopped {
            if !self.tasks.contains_key(&tid) {
                continue;
            }
            // The interrupt's stop can come before a SIGTRAP that a hit
            // queued (the kernel reports the stop before dequeuing
            // signals): detached now, the thread would die of it. Let the
            // thread take it, here, where the handler can tell whose it is.
            if sig == 0 && sigtrap_pending(tid) && ptrace::cont(tid, 0).is_ok() {
                match ptrace::wait_tid(tid).map(classify) {
                    Ok(Status::Signal(s)) => {
                        let info = ptrace::siginfo(tid).unwrap_or([0; 128]);
                        sig = match h.signal_stop(tid, s, &info) {
                            Resume::Deliver => s,
                            Resume::Suppress | Resume::Step => 0,
                        };
                    }
                    Ok(Status::Exited(code)) => {
                        self.tasks.remove(&tid);
                        h.event(Event::Exited { tid, code }, &Stamp::default());
                        continue;
                    }
                    Ok(Status::Killed { sig, core }) => {
                        self.tasks.remove(&tid);
                        h.event(Event::Killed { tid, sig, core }, &Stamp::default());
                        continue;
                    }
                    _ => {}
                }
            }
            h.detaching(tid);
            let _ = ptrace::detach(tid, sig);
            self.tasks.remove(&tid);
            h.event(Event::Detached { tid }, &Stamp::default());
        }
    }

    /// Kills every launched tracee with `sig` (after SIGCONT, so a stopped one
    /// gets it), then detaches from the attached ones.
    pub fn kill_launched_and_detach(&mut self, sig: i32, h: &mut dyn Handler) {
        let launched: Vec<Tid> = self
            .tasks
            .iter()
            .filter(|(_, t)| !t.attached)
            .map(|(k, _)| *k)
            .collect();
        for tid in launched {
            let _ = ptrace::kill(tid, libc::SIGCONT);
            let _ = ptrace::kill(tid, sig);
        }
        self.detach_all(h);
    }

    /// True when some tracee was attached with `-p`.
    pub fn has_attached(&self) -> bool {
        self.tasks.values().any(|t| t.attached)
    }
}

/// Whether a SIGTRAP is queued for thread `tid` (`SigPnd` in its
/// /proc status; read only while detaching, never per event).
fn sigtrap_pending(tid: Tid) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{tid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigPnd:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (libc::SIGTRAP - 1)) != 0)
}

fn unsafe_zeroed_rusage() -> libc::rusage {
    // SAFETY: rusage is plain integers; all-zero is valid.
    unsafe { std::mem::zeroed() }
}

/// The thread ids of process `pid` (from /proc, at attach time only).
pub fn list_threads(pid: Tid) -> Vec<Tid> {
    let mut v: Vec<Tid> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    v.sort_unstable();
    v
}

/// The task that created `tid` as far as /proc tells: its thread-group
/// leader for a thread, else its parent process (early-stop path only).
fn creator_of(tid: Tid) -> Option<Tid> {
    let s = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    let field = |k: &str| -> Option<Tid> {
        s.lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim().parse().ok())
    };
    let tgid = field("Tgid:")?;
    if tgid != tid {
        return Some(tgid);
    }
    field("PPid:")
}

fn is_thread_of(child: Tid, parent: Tid) -> bool {
    // Only called at clone events; reads the child's Tgid once.
    let tgid = |t: Tid| -> Option<Tid> {
        let s = std::fs::read_to_string(format!("/proc/{t}/status")).ok()?;
        s.lines()
            .find_map(|l| l.strip_prefix("Tgid:"))
            .and_then(|v| v.trim().parse().ok())
    };
    match (tgid(child), tgid(parent)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Why the kernel may have refused to let us attach to `pid` with EPERM:
/// names the tracer when /proc shows one ("already traced by process N
/// (comm)"), else the usual restrictions.
pub fn eperm_reason(pid: Tid) -> String {
    let tracer = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("TracerPid:"))
                .and_then(|v| v.trim().parse::<Tid>().ok())
        })
        .filter(|&t| t != 0);
    match tracer {
        Some(t) => {
            let comm = std::fs::read_to_string(format!("/proc/{t}/comm")).unwrap_or_default();
            format!(
                "process {pid} is already traced by process {t} ({}); a process has one tracer at a time",
                comm.trim()
            )
        }
        None => "ptrace is restricted (see /proc/sys/kernel/yama/ptrace_scope; run as root or \
                 with CAP_SYS_PTRACE), or the process is not yours"
            .to_string(),
    }
}
