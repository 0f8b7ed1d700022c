//! How rstrace writes a line: the leader (pid, timestamps, -n, -i), an
//! unfinished line cut by another thread's, messages, and the text of a
//! call's entry, exit and result columns.

use super::*;

impl Strace {
    /// The leader: pid prefix, timestamps, `-n` number, `-i` address.
    pub(super) fn leader(&mut self, out: &mut String, tid: i32, ip: Ip) {
        let separate = self.sink.separate();
        // --always-show-pid: the `PID ` prefix on every line, -ff files
        // and a single tracee included (strace's print_pid_pfx).
        if !separate || self.o.always_show_pid {
            let comm = if self.o.decode_pids_comm {
                let fds = &mut self.fds;
                self.comms
                    .entry(tid)
                    .or_insert_with(|| fds.pid_comm(tid as i64))
                    .as_deref()
                    .map(String::from_utf8_lossy)
            } else {
                None
            };
            if self.o.always_show_pid
                || (self.sink.to_file
                    && (self.o.follow || self.o.pids.len() > 1 || self.pid_prefix))
            {
                match comm {
                    // strace pads the bare number only.
                    Some(c) => {
                        let _ = write!(out, "{tid}<{c}> ");
                    }
                    None => {
                        let _ = write!(out, "{tid:<5} ");
                    }
                }
            } else if !self.sink.to_file && self.nprocs > 1 {
                match comm {
                    Some(c) => {
                        let _ = write!(out, "[pid {tid:5}<{c}>] ");
                    }
                    None => {
                        let _ = write!(out, "[pid {tid:5}] ");
                    }
                }
            }
        }
        let st = self.o.stamps;
        if st.format != TimeFormat::None {
            let t = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            match st.format {
                TimeFormat::Unix => {
                    let _ = write!(out, "{}", t.as_secs());
                }
                _ => {
                    let (h, m, s) = local_hms(t.as_secs() as i64);
                    let _ = write!(out, "{h:02}:{m:02}:{s:02}");
                }
            }
            push_fraction(out, t.subsec_nanos(), st.width);
            out.push(' ');
        }
        if let Some(width) = self.o.relative {
            let now = Instant::now();
            let d = self
                .last_stamp
                .map_or(Duration::ZERO, |l| now.duration_since(l));
            self.last_stamp = Some(now);
            let absolute = st.format != TimeFormat::None;
            let _ = write!(out, "{}{:6}", if absolute { "(+" } else { "" }, d.as_secs());
            push_fraction(out, d.subsec_nanos(), width);
            out.push_str(if absolute { ") " } else { " " });
        }
        let th = self.threads.get(&tid);
        if self.o.syscall_number {
            match th.and_then(|t| t.last_nr) {
                Some(nr) => {
                    let _ = write!(out, "[{nr:4}] ");
                }
                None => out.push_str("[????] "),
            }
        }
        if self.o.instruction_pointer {
            let narrow = th.and_then(|t| t.arch).is_some_and(|a| a.word_size() == 4);
            match (ip, narrow) {
                (Some(pc), false) => {
                    let _ = write!(out, "[{pc:016x}] ");
                }
                (Some(pc), true) => {
                    let _ = write!(out, "[{pc:08x}] ");
                }
                (None, false) => out.push_str("[????????????????] "),
                (None, true) => out.push_str("[????????] "),
            }
        }
    }

    /// Ends any open line of another thread with ` <unfinished ...>`.
    pub(super) fn interrupt_open_line(&mut self, tid: i32) {
        let stream = self.sink.stream(tid);
        if let Some(owner) = stream.open_line {
            let sep = self
                .threads
                .get(&owner)
                .and_then(|t| t.pending.as_ref())
                .is_some_and(|p| {
                    p.step == Step::Exit
                        && !p.entry_args_empty
                        && !p.sep_at_exit
                        && !p.entry_complete
                        && !p.sep_written
                });
            let stream = self.sink.stream(owner);
            if sep {
                stream.write_str(", ");
            }
            stream.write_str(" <unfinished ...>\n");
            stream.open_line = None;
            stream.line_done();
            if let Some(p) = self
                .threads
                .get_mut(&owner)
                .and_then(|t| t.pending.as_mut())
            {
                p.open = false;
                p.unfinished = true;
            }
        }
    }

    pub(super) fn write_line(&mut self, tid: i32, text: &str) {
        self.interrupt_open_line(tid);
        let s = self.sink.stream(tid);
        s.write_str(text);
        s.line_done();
    }

    /// Writes a whole line (ending in a newline) of another handler sharing
    /// the session into `tid`'s stream, in order with the syscall lines
    /// (`rtrace record --probe`: probe hits).
    pub fn write_foreign_line(&mut self, tid: i32, text: &str) {
        self.write_line(tid, text);
    }

    /// A diagnostic on stderr ("Process N attached"): what is already
    /// printed goes out first, so it lands where strace's does.
    pub(super) fn message(&mut self, msg: &str) {
        self.sink.flush();
        eprintln!("{}: {msg}", crate::strace::prog());
    }
}

pub(super) fn push_signame(out: &mut String, sig: i32) {
    match signal_name(sig as u64) {
        Some(n) => out.push_str(&n),
        None => {
            let _ = write!(out, "{sig}");
        }
    }
}

/// `.` and the first `width` digits of `nanos` (nothing for width 0).
pub(super) fn push_fraction(out: &mut String, nanos: u32, width: u8) {
    if width == 0 {
        return;
    }
    let v = nanos / 10u32.pow(9 - width as u32);
    let _ = write!(out, ".{v:0w$}", w = width as usize);
}

/// The name strace prints for a syscall (`syscall_0x1c7` when unknown).
pub(super) fn display_name(e: &Entry, nr: u64) -> String {
    match e.name {
        Some(n) => n.to_string(),
        None => format!("syscall_{nr:#x}"),
    }
}

/// `name(entry args`.
pub(super) fn entry_text(out: &mut String, e: &Entry, nr: u64, args: &[Value], r: &RenderOpts) {
    match e.name {
        Some(n) => out.push_str(n),
        None => {
            let _ = write!(out, "syscall_{nr:#x}");
        }
    }
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        text::render_value(out, a, r);
    }
}

pub(super) fn exit_text(out: &mut String, args: &[Value], r: &RenderOpts) {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        text::render_value(out, a, r);
    }
}

/// `)`, alignment to the result column, `= RET`.
pub(super) fn finish(out: &mut String, ret: &Ret, column: usize, r: &RenderOpts) {
    out.push(')');
    pad(out, column);
    text::render_ret(out, ret, r);
}

fn pad(out: &mut String, column: usize) {
    let line_start = out.rfind('\n').map_or(0, |p| p + 1);
    let col = out[line_start..].chars().count();
    if col < column {
        for _ in col..column {
            out.push(' ');
        }
    } else {
        out.push(' ');
    }
}

/// Local time of day for `-t`.
fn local_hms(secs: i64) -> (i64, i64, i64) {
    crate::sys::local_hms(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions() {
        let f = |n, w| {
            let mut s = String::new();
            push_fraction(&mut s, n, w);
            s
        };
        assert_eq!(f(123_456_789, 0), "");
        assert_eq!(f(123_456_789, 3), ".123");
        assert_eq!(f(1_456_789, 6), ".001456");
        assert_eq!(f(123_456_789, 9), ".123456789");
    }
}
