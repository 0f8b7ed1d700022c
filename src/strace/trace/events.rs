//! Signals, group stops and exits of traced tasks, and the engine's
//! `Handler` interface for rstrace.

use super::line::push_signame;
use super::*;

impl Strace {
    fn on_signal(&mut self, tid: i32, sig: i32, info: &[u8; 128]) {
        if !self.printing() || !self.o.signals.contains(sig as u32) {
            return;
        }
        let mut line = String::new();
        if self.o.json {
            json::signal_line(
                &mut line,
                tid,
                sig,
                &crate::syscall::siginfo_value(Arch::native(), self.o.xlat_style, info),
            );
            self.write_line(tid, &line);
            return;
        }
        let ip = self.ip_of(tid);
        self.leader(&mut line, tid, ip);
        line.push_str("--- ");
        push_signame(&mut line, sig);
        line.push(' ');
        let mut v = crate::syscall::siginfo_value(Arch::native(), self.o.xlat_style, info);
        crate::syscall::ctx::translate_pids(self.fds.as_mut(), &self.decode, tid, &mut v);
        if self.o.decode_pids_comm && !self.o.decode_pids_ns {
            v.fill_pid_comms(&mut |pid| self.fds.pid_comm(pid));
        }
        text::render_value(&mut line, &v, &self.render);
        line.push_str(" ---\n");
        self.write_line(tid, &line);
        self.signal_stack(tid);
    }

    /// `-k`: the stack after a signal line, as strace prints it.
    fn signal_stack(&mut self, tid: i32) {
        if let Some(st) = self.stack.as_mut() {
            let mut text = String::new();
            st.render(tid, &mut text);
            let s = self.sink.stream(tid);
            s.write_str(&text);
            s.line_done();
        }
    }

    fn on_group_stop(&mut self, tid: i32, sig: i32) {
        if !self.printing() || self.o.json || !self.o.signals.contains(sig as u32) {
            return;
        }
        let mut line = String::new();
        let ip = self.ip_of(tid);
        self.leader(&mut line, tid, ip);
        line.push_str("--- stopped by ");
        push_signame(&mut line, sig);
        line.push_str(" ---\n");
        self.write_line(tid, &line);
        self.signal_stack(tid);
    }

    fn on_gone(&mut self, tid: i32, what: Gone) {
        crate::syscall::fd_cache::forget_task(tid);
        self.fds.task_gone(tid);
        self.finish_unreturned(tid);
        self.inject.forget(tid);
        self.resume_sigs.remove(&tid);
        // strace gates "+++ exited" by -e quiet=exit, "+++ killed" by -e signal=.
        let shown = match what {
            Gone::Exited(_) => !self.o.quiet_set.contains(quiet::EXIT),
            Gone::Killed(sig, _) => self.o.signals.contains(sig as u32),
        };
        if self.printing() && shown {
            let mut line = String::new();
            if self.o.json {
                json::exit_line(&mut line, tid, what.outcome());
            } else {
                self.leader(&mut line, tid, None);
                line.push_str("+++ ");
                line.push_str(&what.describe());
                line.push_str(" +++\n");
            }
            self.write_line(tid, &line);
        }
        self.threads.remove(&tid);
        self.known.remove(&tid);
        if self.sink.separate() {
            self.sink.close(tid);
        }
        self.nprocs = self.nprocs.saturating_sub(1);
    }
}

/// How a task went away.
enum Gone {
    Exited(i32),
    Killed(i32, bool),
}

impl Gone {
    fn outcome(&self) -> crate::engine::Outcome {
        match *self {
            Gone::Exited(c) => crate::engine::Outcome::Exited(c),
            Gone::Killed(s, core) => crate::engine::Outcome::Killed(s, core),
        }
    }

    fn describe(&self) -> String {
        match self {
            Gone::Exited(c) => format!("exited with {c}"),
            Gone::Killed(s, core) => {
                let mut t = String::from("killed by ");
                push_signame(&mut t, *s);
                if *core {
                    t.push_str(" (core dumped)");
                }
                t
            }
        }
    }
}

impl Handler for Strace {
    fn event(&mut self, ev: Event<'_>, stamp: &Stamp) {
        match ev {
            Event::SyscallEntry {
                tid,
                arch,
                nr,
                args,
                sp,
            } => {
                self.see(tid);
                self.on_entry(tid, arch, nr, args, sp, stamp)
            }
            Event::SyscallExit { tid, ret } => {
                self.see(tid);
                self.on_exit(tid, ret, stamp)
            }
            Event::Signal { tid, sig, info } => {
                self.see(tid);
                self.on_signal(tid, sig, info)
            }
            Event::GroupStop { tid, sig } => {
                self.see(tid);
                self.on_group_stop(tid, sig)
            }
            Event::NewTask {
                parent,
                child,
                thread,
            } => {
                self.inject.new_task(parent, child, thread);
                self.children.insert(child);
                let (arch, pers) = self
                    .threads
                    .get(&parent)
                    .map_or((None, None), |t| (t.arch, t.pers));
                let th = self.threads.entry(child).or_default();
                th.arch = th.arch.or(arch);
                th.pers = th.pers.or(pers);
            }
            Event::Exec { tid, old_tid } => {
                crate::syscall::fd_cache::forget_all();
                self.comms.remove(&tid);
                self.comms.remove(&old_tid);
                if let Some(st) = self.stack.as_mut() {
                    st.forget(tid);
                    st.forget(old_tid);
                }
                self.see(old_tid);
                if old_tid != tid {
                    // A non-leader thread exec'd and took the leader's tid:
                    // its execve line, if still open, ends with the new pid
                    // (strace's `<pid changed to N ...>`); the leader's own
                    // call never returns, and strace says so before the
                    // execve resumes under the leader's pid.
                    if !self.o.json && self.printing() {
                        let s = self.sink.stream(old_tid);
                        if s.open_line == Some(old_tid) {
                            s.write_str(&format!(" <pid changed to {tid} ...>\n"));
                            s.open_line = None;
                        }
                    }
                    self.finish_unreturned(tid);
                    if self.printing()
                        && !self.o.json
                        && !self.o.quiet_set.contains(quiet::THREAD_EXECVE)
                    {
                        let mut line = String::new();
                        let ip = self.ip_of(tid);
                        self.leader(&mut line, tid, ip);
                        let _ = writeln!(line, "+++ superseded by execve in pid {old_tid} +++");
                        self.write_line(tid, &line);
                    }
                    if let Some(t) = self.threads.remove(&old_tid) {
                        self.threads.insert(tid, t);
                    }
                    self.known.remove(&old_tid);
                    self.known.insert(tid);
                    self.nprocs = self.nprocs.saturating_sub(1);
                }
                if self.o.detach_on_execve {
                    self.detach_on_exec(tid, old_tid);
                }
            }
            Event::Exited { tid, code } => {
                self.see(tid);
                self.on_gone(tid, Gone::Exited(code))
            }
            Event::Killed { tid, sig, core } => {
                self.see(tid);
                self.on_gone(tid, Gone::Killed(sig, core))
            }
            Event::Attached { tid } => {
                self.nprocs += 1;
                self.children.insert(tid);
                self.known.insert(tid);
                if !self.o.quiet_set.contains(quiet::ATTACH) {
                    self.message(&format!("Process {tid} attached"));
                }
            }
            Event::Exiting { tid } => {
                self.see(tid);
                self.finish_unreturned(tid);
            }
            Event::Unknown { tid, exited } => {
                if exited && !self.o.quiet_set.contains(quiet::EXIT) {
                    self.message(&format!("Exit of unknown pid {tid} ignored"));
                } else if !exited && !self.o.quiet_set.contains(quiet::ATTACH) {
                    self.message(&format!("Detached unknown pid {tid}"));
                }
            }
            Event::Detached { tid } => {
                // End an open line of this thread the way strace does; a
                // line kept for `-e status=` shows with `status=detached`.
                let pending = self.threads.get_mut(&tid).and_then(|t| t.pending.take());
                let sep = pending.as_ref().is_some_and(|p| {
                    p.step == Step::Exit
                        && !p.entry_args_empty
                        && !p.sep_at_exit
                        && !p.entry_complete
                        && !p.sep_written
                });
                let end = if sep {
                    ",  <detached ...>\n"
                } else {
                    " <detached ...>\n"
                };
                let kept = pending
                    .filter(|p| p.deferred && self.o.status.contains(status::DETACHED))
                    .and_then(|p| p.text);
                if let Some(text) = kept {
                    self.interrupt_open_line(tid);
                    let s = self.sink.stream(tid);
                    s.write_str(&text);
                    s.write_str(end);
                    s.line_done();
                }
                let s = self.sink.stream(tid);
                if s.open_line == Some(tid) {
                    s.write_str(end);
                    s.open_line = None;
                }
                self.threads.remove(&tid);
                if !self.o.quiet_set.contains(quiet::ATTACH)
                    && (self.detaching_all || self.attached.contains(&tid))
                {
                    self.message(&format!("Process {tid} detached"));
                }
                if self.known.remove(&tid) {
                    self.nprocs = self.nprocs.saturating_sub(1);
                }
            }
        }
    }

    fn detach_requests(&mut self) -> Vec<i32> {
        std::mem::take(&mut self.detach_queue)
    }

    fn done(&mut self) -> bool {
        self.limit_reached()
    }

    fn idle(&mut self) {
        // -I1: a fatal signal kills rstrace at once, as it kills strace;
        // what was printed must be in the output by then.
        if self.o.interruptible == Some(1) {
            self.sink.flush();
        }
    }

    fn hold(&mut self, tid: i32) -> Option<Duration> {
        if self.holds.is_empty() {
            return None;
        }
        self.holds.remove(&tid)
    }

    fn resume_signal(&mut self, tid: i32) -> i32 {
        if self.resume_sigs.is_empty() {
            return 0;
        }
        self.resume_sigs.remove(&tid).unwrap_or(0)
    }
}
