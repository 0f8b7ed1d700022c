//! A syscall's exit: tampering (`-e inject=`), decoding the result,
//! staging for `-e status=`/`-z`/`-Z`, and lines never completed.

use super::line::{display_name, exit_text, finish, push_fraction};
use super::*;

impl Strace {
    /// Entry side of an injection: the syscall skipped (or replaced), the
    /// signal queued for the resume, the entry delay.
    pub(super) fn tamper_entry(&mut self, tid: i32, f: &Fired) {
        if let Some(nr) = f.nr {
            let t = Tracee::new(tid);
            if let Ok(mut w) = t.regs() {
                Regs::set_syscall_nr(&mut w, nr);
                let _ = t.set_regs(&w);
            }
        }
        if let Some(sig) = f.action.signal {
            self.resume_sigs.insert(tid, sig);
        }
        if let Some(d) = f.action.delay_enter {
            // Held by the engine; other tracees run on meanwhile.
            self.holds.insert(tid, d);
        }
    }

    /// Exit side of an injection: the return value set; the exit delay.
    fn tamper_exit(tid: i32, f: &Fired, ret: &mut i64) {
        if let Some(r) = f.action.ret {
            let t = Tracee::new(tid);
            if let Ok(mut w) = t.regs() {
                Regs::set_return(&mut w, r);
                if t.set_regs(&w).is_ok() {
                    *ret = r;
                }
            }
        }
    }

    pub(super) fn on_exit(&mut self, tid: i32, mut ret: i64, stamp: &Stamp) {
        let now = Instant::now();
        let Some(mut p) = self.threads.get_mut(&tid).and_then(|t| t.pending.take()) else {
            return;
        };
        if let Some(f) = p.injected.as_mut() {
            poke_side(f, false, tid, p.arch, p.nr, p.entry.name, &p.args);
        }
        if let Some(f) = &p.injected {
            Self::tamper_exit(tid, f, &mut ret);
            if let Some(d) = f.action.delay_exit {
                self.holds.insert(tid, d);
            }
        }
        crate::syscall::fd_cache::on_exit(p.entry.name, &p.args, ret);
        if p.shown {
            if let Some(t) = self.threads.get_mut(&tid) {
                t.prev_syscall = p.entry.name;
            }
        }
        // An injected retval= is a success whatever its value.
        let forced_ok = p.injected.as_ref().is_some_and(|f| f.action.retval);
        let failed = is_error(ret) && !forced_ok;
        let status_ok = self.o.status.contains(if failed {
            status::FAILED
        } else {
            status::SUCCESSFUL
        });
        // --syscall-limit counts what strace 7.2 counts: calls that pass
        // the trace, path, fd and status filters, printed or (-c) counted.
        if p.shown && status_ok {
            if let Some(left) = self.limit_left.as_mut() {
                *left = left.saturating_sub(1);
            }
        }
        if !p.shown || !self.printing() {
            // Untraced calls still change the mappings -k caches.
            if let Some(st) = self.stack.as_mut() {
                st.after_syscall(tid, p.entry.name);
            }
        }
        // strace 7.2 counts only what passes -e status= (-z/-Z) in the
        // -c table too (6.1 counted every traced call).
        if self.counting() && p.shown && status_ok {
            let t = if self.o.wall_clock {
                now.duration_since(p.start)
            } else {
                match (stamp.stime, p.stime) {
                    (Some(b), Some(a)) => b.saturating_sub(a),
                    _ => now.duration_since(p.start),
                }
            };
            // -O: the tracing overhead per call comes off (not below 0).
            let t = t.saturating_sub(self.o.overhead.unwrap_or_default());
            let name = p.entry.name.unwrap_or("syscall");
            self.summary.record(name, p.nr, t, failed);
        }
        if !p.shown || !self.printing() {
            return;
        }
        if !status_ok {
            return;
        }
        let opts = self.opts_for(p.arch, p.nr);
        let mut mem = PageCache::new(tid);
        let mut ctx = Ctx::new(&mut mem, self.fds.as_mut(), &opts, tid, p.arch, p.args);
        ctx.ret = Some(ret);
        ctx.saved = p.saved;
        ctx.entry_args = std::mem::take(&mut p.entry_args);
        let mut r = syscall::decode_exit(p.entry, &mut ctx, p.step.clone());
        if forced_ok && matches!(r, Ret::Err { .. }) {
            r = Ret::UInt(ctx.arg_ulong_value(ret as u64));
        }
        let mut exit_args = std::mem::take(&mut ctx.exit_args);
        if self.o.decode_pids_comm {
            for a in exit_args.iter_mut().filter(|_| !self.o.decode_pids_ns) {
                a.fill_pid_comms(&mut |pid| ctx.fds.pid_comm(pid));
            }
            // PR_SET_NAME renames the thread: read its name again.
            if p.entry.name == Some("prctl") && p.args[0] == 15 {
                self.comms.remove(&tid);
            }
        }
        let entry_args = std::mem::take(&mut ctx.entry_args);
        if opts.raw {
            raw_zeros(&mut exit_args);
            if r == Ret::Hex(0) {
                r = Ret::Int(0);
            }
        }
        let dur = now.duration_since(p.start);
        if self.o.json {
            let mut line = String::new();
            json::syscall_line(
                &mut line,
                &json::SyscallRecord {
                    pid: tid,
                    time: p.wall,
                    name: p.entry.name,
                    nr: p.nr,
                    entry_args: &entry_args,
                    exit_args: &exit_args,
                    ret: Some(&r),
                    duration: Some(dur),
                    injected: p.injected.as_ref().is_some_and(|f| f.action.ret.is_some()),
                    delayed: p.injected.as_ref().is_some_and(Fired::delayed),
                },
            );
            if let Some(st) = self.stack.as_mut() {
                // `-k`: the frames go into the record ("stack").
                json::add_stack(&mut line, &st.frames(tid).unwrap_or_default());
                st.after_syscall(tid, p.entry.name);
            }
            self.write_line(tid, &line);
            return;
        }
        let ip = self.ip_of(tid);
        let name = p.entry.name;
        let (arch, args) = (p.arch, p.args);
        self.complete(tid, p, &exit_args, Some(&r), Some(dur), ip);
        if ret == 0 && matches!(name, Some("execve" | "execveat")) {
            // The new program may run in another personality.
            if let Some(a) = Tracee::new(tid)
                .regs()
                .ok()
                .and_then(|w| Regs::syscall_regs(&w).arch)
            {
                self.personality(tid, a);
            }
        }
        if !(self.o.dump_reads.is_empty() && self.o.dump_writes.is_empty()) {
            let call = dumpio::Call {
                name: name.unwrap_or(""),
                args,
                ret,
                word: arch.word_size(),
                pid: tid,
            };
            let mut text = String::new();
            dumpio::dump(
                &mut text,
                &mut mem,
                &call,
                &self.o.dump_reads,
                &self.o.dump_writes,
            );
            if !text.is_empty() {
                let s = self.sink.stream(tid);
                s.write_str(&text);
                s.line_done();
            }
        }
        if let Some(st) = self.stack.as_mut() {
            let mut text = String::new();
            st.render(tid, &mut text);
            st.after_syscall(tid, name);
            let s = self.sink.stream(tid);
            s.write_str(&text);
            s.line_done();
        }
    }

    /// Prints the end of a syscall line: on the open line when it is still
    /// ours, else as `<... name resumed>` on a new one.
    fn complete(
        &mut self,
        tid: i32,
        p: Pending,
        exit_args: &[Value],
        r: Option<&Ret>,
        dur: Option<Duration>,
        ip: Ip,
    ) {
        let stream_open = self.sink.stream(tid).open_line == Some(tid);
        let continuing = p.open && stream_open;
        let sep = p.step == Step::Exit && !p.entry_args_empty && !p.entry_complete;
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let skip;
        let resumed;
        match p.text {
            Some(t) if p.deferred || continuing => {
                skip = if continuing { t.len() } else { 0 };
                resumed = false;
                line.push_str(&t);
            }
            _ => {
                skip = 0;
                resumed = true;
                self.interrupt_open_line(tid);
                self.leader(&mut line, tid, ip);
                let _ = write!(line, "<... {} resumed>", display_name(p.entry, p.nr));
            }
        }
        // On the entry's own line the `, ` may be there already.
        let sep_due = resumed || !p.sep_written;
        if sep && sep_due && !exit_args.is_empty() && (!resumed || p.sep_at_exit) {
            line.push_str(", ");
        }
        if r.is_none() && p.step == Step::Exit {
            // Never returned, and the decoder had more to print at exit:
            // strace's print_event_exit says so (`read(0,  <unfinished
            // ...>) = ?`); a call decoded whole at entry just ends
            // (`exit_group(0) = ?`).
            if sep && sep_due && !resumed && !p.sep_at_exit {
                line.push_str(", ");
            }
            line.push_str(" <unfinished ...>");
        }
        exit_text(&mut line, exit_args, &self.render);
        match r {
            Some(r) => finish(&mut line, r, self.o.column, &self.render),
            None => finish(&mut line, &Ret::Unknown, self.o.column, &self.render),
        }
        if let Some(f) = &p.injected {
            line.push_str(f.marks());
        }
        if let (Some(width), Some(d)) = (self.o.syscall_times, dur) {
            let _ = write!(line, " <{}", d.as_secs());
            push_fraction(&mut line, d.subsec_nanos(), width);
            line.push('>');
        }
        line.push('\n');
        if !p.deferred && !continuing {
            self.interrupt_open_line(tid);
        }
        let s = self.sink.stream(tid);
        s.write_str(&line[skip..]);
        s.open_line = None;
        s.line_done();
        self.line = line;
    }

    /// A syscall that never returned (exit, exit_group, killed): `= ?`.
    pub(super) fn finish_unreturned(&mut self, tid: i32) {
        let Some(p) = self.threads.get_mut(&tid).and_then(|t| t.pending.take()) else {
            return;
        };
        if !p.shown || !self.printing() {
            return;
        }
        if self.o.json {
            let mut line = String::new();
            json::syscall_line(
                &mut line,
                &json::SyscallRecord {
                    pid: tid,
                    time: p.wall,
                    name: p.entry.name,
                    nr: p.nr,
                    entry_args: &p.entry_args,
                    exit_args: &[],
                    ret: None,
                    duration: None,
                    injected: false,
                    delayed: p.injected.as_ref().is_some_and(Fired::delayed),
                },
            );
            self.write_line(tid, &line);
            return;
        }
        if !self.o.status.contains(status::UNFINISHED) {
            return;
        }
        self.complete(tid, p, &[], None, None, None);
    }
}

/// The `poke_enter=` (`enter`) or `poke_exit=` side of a fired injection;
/// true when it had pokes to do.
pub(super) fn poke_side(
    f: &mut Fired,
    enter: bool,
    tid: i32,
    arch: Arch,
    nr: u64,
    name: Option<&str>,
    args: &[u64; 6],
) -> bool {
    if !f.action.pokes.iter().any(|k| k.enter == enter) {
        return false;
    }
    let target = crate::strace::inject::poke::Target {
        tid,
        name: name.unwrap_or("?"),
        nargs: arch.info(nr).map_or(6, |i| i.nargs as usize),
        args,
        word: arch.word_size(),
    };
    f.poked |= crate::strace::inject::poke::apply(&f.action.pokes, enter, &target);
    true
}

/// `-e raw=` prints numbers with C's `%#lx`, which writes zero as `0`.
pub(super) fn raw_zeros(args: &mut [Value]) {
    for a in args {
        if *a == Value::Hex(0) {
            *a = Value::UInt(0);
        }
    }
}
