//! The floor loop with one tracer thread per CPU: how fast a syscall tracer
//! could trace a threaded program if every stop stayed a same-CPU switch
//! while the program's threads kept running in parallel.
//!
//! A ptrace tracer is a thread. Tracer thread `i` pins itself to CPU `i`
//! and owns the tracee threads pinned there: it alone restarts them, and it
//! waits with `__WALL | __WNOTHREAD`, so the kernel reports to it only the
//! stops of its own tracees (and its own children). Tracer 0 forks and seizes
//! the workload, which inherits its CPU.
//!
//! # Moving a new thread to another tracer
//!
//! `PTRACE_O_TRACECLONE` attaches a new thread to its parent's tracer, and
//! no ptrace request hands a tracee over. So at the new thread's first stop
//! its tracer A, when round-robin picks another CPU, parks it:
//!
//! 1. maps, once per address space, a page holding an instruction that
//!    jumps to itself (an `mmap` injected through the new thread, which is
//!    stopped just after its `clone` returned, at the `clone` instruction);
//! 2. saves its registers and signal mask, blocks every signal (a handler
//!    must not run on the parked registers, and an unblockable one is fine:
//!    SIGKILL ends it, SIGSTOP is seen by the new tracer as a group-stop),
//!    points its pc at the page, sets its affinity to B's CPU, and detaches
//!    it: it now spins there, making no syscall while nobody traces it;
//! 3. queues (thread, registers, mask) for B and rings B's doorbell.
//!
//! B seizes it, interrupts it, and at its first stop puts the registers and
//! the mask back and restarts it with `PTRACE_SYSCALL`: the thread goes on
//! from its `clone` return as if nothing happened.
//!
//! The doorbell: B sleeps in `waitpid`, which nothing but a stop or an exit
//! of its own tracees or children ends, and a signal sent to B itself could
//! come just before it starts waiting and be lost. So each tracer forks a
//! child that only sleeps in `pause()` and seizes it; A rings B by sending
//! that child SIGUSR1, which the kernel queues as a signal-delivery stop for
//! B until B waits, so no ring is lost. B swallows the signal.
//!
//! The run ends when the workload's leader has been reaped and no tracee is
//! left (a parked thread still counts). What this floor does not do: give
//! the page back (the processes it traces end under it), follow a thread that
//! moves itself to another CPU, or cope with a seccomp filter (a parked thread
//! makes no syscall, so none would fail for want of a tracer).

use super::floor::{self, FloorIo, FloorStats, OPTIONS};
use rtrace::engine::ptrace::{self, Tid};
use rtrace::engine::tracee::{self, Tracee};
use rtrace::sys::sched::{self, CpuSet};
use rtrace_arch::native::{Regs, SPIN_INSN, SYSCALL_INSN};
use rtrace_arch::regs::RegisterFile;
use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::io;
use std::os::unix::fs::FileExt;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Barrier, Mutex};

/// What the per-CPU floor saw, summed over its tracer threads.
#[derive(Debug, Default, Clone, Copy)]
pub struct PerCpuStats {
    /// The same counts the single floor keeps.
    pub floor: FloorStats,
    /// Tracer threads (CPUs) used.
    pub tracers: usize,
    /// New threads moved to another tracer.
    pub handoffs: u64,
}

/// A parked thread on its way to another tracer.
struct Arrival {
    tid: Tid,
    regs: Vec<u64>,
    mask: u64,
}

/// State the tracer threads share.
struct Shared {
    cpus: Vec<usize>,
    inboxes: Vec<Mutex<Vec<Arrival>>>,
    doorbells: Vec<AtomicI32>,
    /// Round-robin position for the next new thread (the leader took 0).
    next: AtomicUsize,
    /// Tracees alive, parked ones included.
    live: AtomicI64,
    /// Exit code of the workload's leader once reaped (-1 before).
    leader_exit: AtomicI32,
    done: AtomicBool,
    /// The parking page of each address space, by process id.
    parks: Mutex<HashMap<Tid, u64>>,
    count: Option<u64>,
    handoffs: AtomicU64,
}

/// The CPUs this process may run on, lowest first; at most `limit`.
pub fn usable_cpus(limit: usize) -> io::Result<Vec<usize>> {
    let (set, _) = sched::get_affinity()?;
    let bits = set.bytes().len() * 8;
    Ok((0..bits).filter(|&c| set.has(c)).take(limit).collect())
}

/// Forks `argv` and traces it with one tracer thread per CPU in `cpus` (one
/// CPU: the single floor, pinned). `on_spawn` gets the workload's pid.
pub fn run(
    argv: &[CString],
    io: &FloorIo,
    cpus: Vec<usize>,
    count: Option<u64>,
    on_spawn: impl FnOnce(Tid),
) -> io::Result<(i32, PerCpuStats)> {
    let n = cpus.len().max(1);
    let shared = Shared {
        inboxes: (0..n).map(|_| Mutex::new(Vec::new())).collect(),
        doorbells: (0..n).map(|_| AtomicI32::new(0)).collect(),
        cpus,
        next: AtomicUsize::new(1),
        live: AtomicI64::new(0),
        leader_exit: AtomicI32::new(-1),
        done: AtomicBool::new(false),
        parks: Mutex::new(HashMap::new()),
        count,
        handoffs: AtomicU64::new(0),
    };
    let ready = Barrier::new(n);
    let (pid_tx, pid_rx) = mpsc::channel();
    let results: Vec<io::Result<FloorStats>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (shared, ready, pid_tx) = (&shared, &ready, pid_tx.clone());
                s.spawn(move || {
                    let start = (i == 0).then_some((argv, io, pid_tx));
                    let tracer = Tracer::new(i, shared);
                    if tracer.is_err() {
                        // No workload then: the others see `done` and stop.
                        shared.done.store(true, Ordering::SeqCst);
                    }
                    // Every doorbell exists before any thread can be handed
                    // off, and every tracer thread is set up or told to stop.
                    ready.wait();
                    tracer.and_then(|t| t.run(start))
                })
            })
            .collect();
        drop(pid_tx);
        if let Ok(pid) = pid_rx.recv() {
            on_spawn(pid);
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("tracer panicked")))
            })
            .collect()
    });
    let mut stats = PerCpuStats {
        tracers: n,
        handoffs: shared.handoffs.load(Ordering::SeqCst),
        ..Default::default()
    };
    for r in results {
        let s = r?;
        stats.floor.syscall_stops += s.syscall_stops;
        stats.floor.events += s.events;
        stats.floor.signals += s.signals;
        stats.floor.group_stops += s.group_stops;
        stats.floor.counted += s.counted;
    }
    match shared.leader_exit.load(Ordering::SeqCst) {
        -1 => Err(io::Error::other("traced program vanished")),
        code => Ok((code, stats)),
    }
}

/// One tracer thread.
struct Tracer<'s> {
    me: usize,
    shared: &'s Shared,
    doorbell: Tid,
    leader: Tid,
    /// Tracees this thread traces (a stop of any other is a new one's).
    known: HashSet<Tid>,
    /// Threads seized from another tracer, not yet stopped.
    arriving: HashMap<Tid, Arrival>,
    stats: FloorStats,
}

impl<'s> Tracer<'s> {
    /// Pins the calling thread to its CPU and starts its doorbell.
    fn new(me: usize, shared: &'s Shared) -> io::Result<Self> {
        let cpu = shared.cpus.get(me).copied().unwrap_or(0);
        sched::set_affinity(0, &CpuSet::single(cpu))?;
        let doorbell = spawn_doorbell()?;
        shared.doorbells[me].store(doorbell, Ordering::SeqCst);
        Ok(Tracer {
            me,
            shared,
            doorbell,
            leader: 0,
            known: HashSet::new(),
            arriving: HashMap::new(),
            stats: FloorStats::default(),
        })
    }

    fn run(
        mut self,
        start: Option<(&[CString], &FloorIo, mpsc::Sender<Tid>)>,
    ) -> io::Result<FloorStats> {
        if let Some((argv, io, pid_tx)) = start {
            let spawned = if self.shared.done.load(Ordering::SeqCst) {
                Err(io::Error::other("a tracer thread failed to start"))
            } else {
                floor::spawn(argv, io)
            };
            match spawned {
                Ok(t) => {
                    self.shared.live.store(1, Ordering::SeqCst);
                    self.leader = t.release();
                    self.known.insert(self.leader);
                    let _ = pid_tx.send(self.leader);
                }
                Err(e) => {
                    self.finish();
                    self.stop_doorbell();
                    return Err(e);
                }
            }
        }
        let result = self.wait_loop();
        self.stop_doorbell();
        result.map(|()| self.stats)
    }

    fn wait_loop(&mut self) -> io::Result<()> {
        while !self.shared.done.load(Ordering::SeqCst) {
            let mut status: libc::c_int = 0;
            // __WNOTHREAD: only this thread's tracees and children; the
            // other tracer threads reap theirs.
            // SAFETY: `status` is a valid out-pointer.
            let tid = unsafe { libc::waitpid(-1, &mut status, libc::__WALL | libc::__WNOTHREAD) };
            if tid < 0 {
                let err = io::Error::last_os_error();
                if err.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(err);
            }
            if tid == self.doorbell {
                if !libc::WIFSTOPPED(status) {
                    return Err(io::Error::other("doorbell died"));
                }
                floor::restart(libc::PTRACE_CONT, tid, 0);
                self.take_arrivals();
                continue;
            }
            if libc::WIFEXITED(status) || libc::WIFSIGNALED(status) {
                self.arriving.remove(&tid);
                self.known.remove(&tid);
                if tid == self.leader {
                    let code = if libc::WIFEXITED(status) {
                        libc::WEXITSTATUS(status)
                    } else {
                        128 + libc::WTERMSIG(status)
                    };
                    self.shared.leader_exit.store(code, Ordering::SeqCst);
                }
                self.gone(1);
                continue;
            }
            if libc::WIFSTOPPED(status) {
                self.stopped(tid, status);
            }
        }
        Ok(())
    }

    fn stopped(&mut self, tid: Tid, status: libc::c_int) {
        let sig = libc::WSTOPSIG(status);
        let event = (status >> 16) & 0xff;
        let arrived = self.arriving.remove(&tid);
        if let Some(a) = &arrived {
            // Its first stop here: the interrupt, or a group-stop that
            // caught it parked. Either way it gets its own state back now.
            let _ = ptrace::set_regs(tid, &a.regs);
            let _ = ptrace::set_sigmask(tid, a.mask);
        }
        let inject = if event == libc::PTRACE_EVENT_STOP {
            if matches!(
                sig,
                libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU
            ) {
                self.stats.group_stops += 1;
                floor::restart(libc::PTRACE_LISTEN, tid, 0);
                return;
            }
            if self.known.insert(tid) {
                // A new tracee's first stop.
                self.stats.events += 1;
                self.shared.live.fetch_add(1, Ordering::SeqCst);
                let n = self.shared.cpus.len();
                let to = self.shared.next.fetch_add(1, Ordering::SeqCst) % n;
                if to != self.me {
                    match self.hand_off(tid, to) {
                        Ok(()) => {
                            self.known.remove(&tid);
                            return;
                        }
                        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {
                            // It died (its status was taken by the injection).
                            self.known.remove(&tid);
                            self.gone(1);
                            return;
                        }
                        // Keep it here.
                        Err(_) => {}
                    }
                }
            }
            0
        } else if event != 0 {
            self.stats.events += 1;
            if event == libc::PTRACE_EVENT_EXEC {
                self.exec(tid);
            }
            0
        } else if sig == libc::SIGTRAP | 0x80 {
            floor::count_syscall(&mut self.stats, tid, self.shared.count);
            0
        } else {
            self.stats.signals += 1;
            sig
        };
        floor::restart(libc::PTRACE_SYSCALL, tid, inject);
    }

    /// An exec: the old address space (and its page) is gone, and when a
    /// thread other than the leader exec'ed, the leader's tid now names it.
    fn exec(&mut self, tid: Tid) {
        self.lock_parks().remove(&tid);
        let former = ptrace::event_msg(tid).map_or(tid, |f| f as Tid);
        if former != tid {
            self.known.remove(&former);
            self.gone(1);
        }
    }

    /// Parks `tid` (stopped at its first stop) and queues it for tracer `to`.
    fn hand_off(&mut self, tid: Tid, to: usize) -> io::Result<()> {
        let park = self.parking_page(tid)?;
        let regs = Tracee::new(tid).regs()?;
        let mask = ptrace::get_sigmask(tid)?;
        let mut parked = regs.clone();
        Regs::set_pc(&mut parked, park);
        ptrace::set_sigmask(tid, !0)?;
        let undo = |e: io::Error| {
            let _ = ptrace::set_regs(tid, &regs);
            let _ = ptrace::set_sigmask(tid, mask);
            e
        };
        ptrace::set_regs(tid, &parked).map_err(undo)?;
        sched::set_affinity(tid, &CpuSet::single(self.shared.cpus[to])).map_err(undo)?;
        ptrace::detach(tid, 0).map_err(undo)?;
        // Detached: from here on only `to` may touch it.
        self.shared.inboxes[to]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arrival { tid, regs, mask });
        ring(self.shared.doorbells[to].load(Ordering::SeqCst));
        self.shared.handoffs.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// The parking page of `tid`'s process, mapped through `tid` (stopped
    /// just after its `clone` returned) on first need.
    fn parking_page(&self, tid: Tid) -> io::Result<u64> {
        let pid = tracee::tgid_of(tid).ok_or(io::Error::from_raw_os_error(libc::ESRCH))?;
        let mut parks = self.lock_parks();
        if let Some(&page) = parks.get(&pid) {
            return Ok(page);
        }
        let t = Tracee::new(tid);
        let mem = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(format!("/proc/{tid}/mem"))?;
        // The instruction just before the new thread's pc is the `clone`
        // system call it returns from: reuse it to make the `mmap`.
        let insn = Regs::pc(&t.regs()?) - SYSCALL_INSN.len() as u64;
        let mut bytes = vec![0u8; SYSCALL_INSN.len()];
        mem.read_exact_at(&mut bytes, insn)?;
        if bytes != SYSCALL_INSN {
            return Err(io::Error::other("no syscall instruction before the pc"));
        }
        let arch = rtrace_arch::Arch::native_personalities()[0];
        let mmap = arch.syscall_nr("mmap").ok_or(io::ErrorKind::Unsupported)? as u64;
        let (prot, flags) = (
            libc::PROT_READ | libc::PROT_EXEC,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
        );
        let args = [0, 4096, prot as u64, flags as u64, u64::MAX, 0];
        let page = t.inject_syscall(insn, mmap, args)?;
        if (-4095..0).contains(&page) {
            return Err(io::Error::from_raw_os_error(-page as i32));
        }
        // /proc/PID/mem writes the read-only page (FOLL_FORCE).
        mem.write_all_at(SPIN_INSN, page as u64)?;
        parks.insert(pid, page as u64);
        Ok(page as u64)
    }

    /// Seizes the threads other tracers parked for this one.
    fn take_arrivals(&mut self) {
        let queued = std::mem::take(
            &mut *self.shared.inboxes[self.me]
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
        for a in queued {
            let seized = ptrace::seize(a.tid, OPTIONS).and_then(|()| ptrace::interrupt(a.tid));
            match seized {
                Ok(()) => {
                    self.known.insert(a.tid);
                    self.arriving.insert(a.tid, a);
                }
                // Killed while parked: nobody traced it, so no exit report.
                Err(_) => self.gone(1),
            }
        }
    }

    fn lock_parks(&self) -> std::sync::MutexGuard<'s, HashMap<Tid, u64>> {
        self.shared.parks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `n` tracees are gone; the run ends with the last one once the leader
    /// has been reaped.
    fn gone(&self, n: i64) {
        let left = self.shared.live.fetch_sub(n, Ordering::SeqCst) - n;
        if left <= 0 && self.shared.leader_exit.load(Ordering::SeqCst) != -1 {
            self.finish();
        }
    }

    /// Tells every tracer thread to stop waiting.
    fn finish(&self) {
        self.shared.done.store(true, Ordering::SeqCst);
        for d in &self.shared.doorbells {
            ring(d.load(Ordering::SeqCst));
        }
    }

    fn stop_doorbell(&self) {
        // SAFETY: killing and reaping our own child.
        unsafe {
            libc::kill(self.doorbell, libc::SIGKILL);
            libc::waitpid(self.doorbell, ptr::null_mut(), libc::__WALL);
        }
    }
}

fn ring(doorbell: Tid) {
    if doorbell > 0 {
        let _ = ptrace::kill(doorbell, libc::SIGUSR1);
    }
}

/// Forks a child that sleeps forever and seizes it: a wait event for this
/// tracer thread whenever another thread signals it.
fn spawn_doorbell() -> io::Result<Tid> {
    // SAFETY: the child only calls pause(), which is async-signal-safe, so
    // forking from a threaded process is sound.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        loop {
            // SAFETY: pause() takes nothing.
            unsafe { libc::pause() };
        }
    }
    if let Err(e) = ptrace::seize(pid, libc::PTRACE_O_EXITKILL) {
        // SAFETY: killing and reaping the child we just forked.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, ptr::null_mut(), 0);
        }
        return Err(e);
    }
    Ok(pid)
}
