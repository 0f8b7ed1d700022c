//! The kernel backend's consumer: ring-buffer records of the entry and
//! return uprobes decoded, merged in time order with the lifecycle events
//! the ptrace side sends, paired per thread with a shadow stack as the
//! ptrace backend pairs them, and written through the same formatter
//! ([`crate::ltrace::format`]) and writer ([`Out`]), or counted into the
//! same `-c` [`Summary`].
//!
//! Order: a record or lifecycle event is handled only once its time stamp
//! is at or below the watermark, the clock read *before* the buffers were
//! drained and the lifecycle messages taken; anything later waits for the
//! next pass. Each thread's records are written in its own order, so one
//! still uncommitted on one CPU cannot be overtaken by a later one of the
//! same thread read from another CPU; a lifecycle stop is stamped after the
//! thread stopped, so it comes after all of that thread's records.

use crate::kernel::format::{parse_format, read_uint, FieldKind};
use crate::kernel::ringbuf::RawReader;
use crate::kernel::session::mono_ns;
use crate::kernel::tracefs::Tracefs;
use crate::ltrace::format::{self, ArgSource, FormatOpts, RetVals};
use crate::ltrace::msg::{Life, Msg, Shown};
use crate::ltrace::output::{Out, Summary};
use crate::ltrace::proto::Proto;
use crate::ltrace::trace::signal_desc;
use crate::ltrace::uprobe::printf::{self, Printf};
use crate::probe::shadow::{self, MAX_SHADOW};
use std::collections::HashMap;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant, SystemTime};

/// One probed function as the consumer needs it.
pub struct FuncSpec {
    /// Symbol name.
    pub name: String,
    /// As printed (`caller->name` with `-e`).
    pub shown: String,
    /// As printed in `<... name resumed>`.
    pub bare: String,
    /// Its prototype.
    pub proto: Option<Proto>,
    /// Integer arguments fetched (registers, then stack slots).
    pub ints: usize,
    /// Which of them are strings (fetched as `ustring` too).
    pub strings: Vec<usize>,
    /// The return value is a string.
    pub ret_string: bool,
    /// `setjmp` and kin: no return probe, shown at entry returning 0.
    pub twice: bool,
    /// A printf-family function: its format and output buffer.
    pub printf: Option<Printf>,
}

/// Where a field is in a record.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Word(usize),
    Str(usize),
}

/// The layout of one probe event's records.
struct Layout {
    func: usize,
    ret: bool,
    sp: usize,
    ints: Vec<usize>,
    strs: Vec<(usize, usize)>,
    rv: Option<usize>,
    rs: Option<usize>,
}

/// Records decoded by type id.
pub struct Decoder {
    by_id: HashMap<u16, Layout>,
}

impl Decoder {
    /// An empty decoder.
    pub fn new() -> Decoder {
        Decoder {
            by_id: HashMap::new(),
        }
    }

    /// Learns event `dir` (`events/GROUP/NAME` under `top`): function
    /// `func`'s entry or return probe.
    pub fn load(
        &mut self,
        top: &Tracefs,
        dir: &str,
        func: usize,
        ret: bool,
        spec: &FuncSpec,
    ) -> Result<(), String> {
        let text = top.read(&format!("{dir}/format"))?;
        let f = parse_format("uprobe", &text)?;
        let find = |name: &str| -> Result<Slot, String> {
            let fd = f
                .fields
                .iter()
                .find(|x| x.name == name)
                .ok_or_else(|| format!("{dir}: no field {name}"))?;
            Ok(match fd.kind {
                FieldKind::DataLoc { .. } => Slot::Str(fd.offset),
                _ => Slot::Word(fd.offset),
            })
        };
        let word = |name: &str| -> Result<usize, String> {
            match find(name)? {
                Slot::Word(o) => Ok(o),
                Slot::Str(_) => Err(format!("{dir}: {name} is not a number")),
            }
        };
        let string = |name: &str| -> Result<usize, String> {
            match find(name)? {
                Slot::Str(o) => Ok(o),
                Slot::Word(_) => Err(format!("{dir}: {name} is not a string")),
            }
        };
        let mut l = Layout {
            func,
            ret,
            sp: word("sp")?,
            ints: Vec::new(),
            strs: Vec::new(),
            rv: None,
            rs: None,
        };
        if ret {
            l.rv = Some(word("rv")?);
            if spec.ret_string {
                l.rs = Some(string("rs")?);
            }
        } else {
            for i in 0..spec.ints {
                l.ints.push(word(&format!("a{i}"))?);
            }
            for &k in &spec.strings {
                l.strs.push((k, string(&format!("s{k}"))?));
            }
        }
        self.by_id.insert(f.id, l);
        Ok(())
    }

    fn decode(&self, ts: u64, rec: &[u8]) -> Option<Rec> {
        let ty = read_uint(rec, 0, 2)? as u16;
        let tid = read_uint(rec, 4, 4)? as u32 as i32;
        let l = self.by_id.get(&ty)?;
        let w = |o: usize| read_uint(rec, o, 8).unwrap_or(0);
        let s = |o: usize| -> Option<Vec<u8>> {
            let loc = read_uint(rec, o, 4)?;
            let (off, len) = ((loc & 0xffff) as usize, (loc >> 16) as usize);
            // Length 0: the kernel could not read the string (a fault).
            if len == 0 {
                return None;
            }
            let b = rec.get(off..off.checked_add(len)?)?;
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            Some(b[..end].to_vec())
        };
        let kind = if l.ret {
            Kind::Return {
                rv: l.rv.map_or(0, w),
                rs: l.rs.and_then(s),
            }
        } else {
            Kind::Entry {
                ints: l.ints.iter().map(|&o| w(o)).collect(),
                strs: l.strs.iter().map(|&(k, o)| (k, s(o))).collect(),
            }
        };
        Some(Rec {
            ts,
            tid,
            func: l.func,
            sp: w(l.sp),
            kind,
        })
    }
}

enum Kind {
    Entry {
        ints: Vec<u64>,
        strs: Vec<(usize, Option<Vec<u8>>)>,
    },
    Return {
        rv: u64,
        rs: Option<Vec<u8>>,
    },
}

/// One probe hit.
struct Rec {
    ts: u64,
    tid: i32,
    func: usize,
    sp: u64,
    kind: Kind,
}

enum Item {
    Rec(Rec),
    Life(i32, Life),
    Call(i32, u64, Shown),
    Back(i32, u64, String, String),
}

/// Arguments as the kernel fetched them; memory is only the fetched strings.
struct Fetched<'a> {
    ints: &'a [u64],
    strs: Vec<(u64, &'a [u8])>,
}

impl ArgSource for Fetched<'_> {
    fn int_arg(&mut self, i: usize) -> u64 {
        self.ints.get(i).copied().unwrap_or(0)
    }

    fn float_arg(&mut self, _i: usize) -> f64 {
        0.0
    }

    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        let Some(&(_, s)) = self.strs.iter().find(|(a, _)| *a == addr) else {
            return 0;
        };
        // The string and its terminating NUL.
        let n = buf.len().min(s.len() + 1);
        for (i, b) in buf[..n].iter_mut().enumerate() {
            *b = s.get(i).copied().unwrap_or(0);
        }
        n
    }
}

struct Pending {
    slot: u64,
    ts: u64,
    id: u64,
    depth: usize,
    how: How,
}

/// What a pending call's return is shown with.
enum How {
    /// Counted only (`-c`): function `func`.
    Count(usize),
    /// Function `func` probed by the kernel, its entry formatted here,
    /// with the memory its return shows (a printf-family function's
    /// output buffer and strings).
    Kernel(usize, format::Call, Vec<(u64, Vec<u8>)>),
    /// Formatted by the ptrace side.
    Ptrace(Shown),
}

/// What a return brings.
enum Back {
    Kernel { rv: u64, rs: Option<Vec<u8>> },
    Ptrace { full: String, ret: String },
}

/// Options of the consumer.
pub struct StreamOpts {
    /// `-c`.
    pub count: bool,
    /// `-b`.
    pub no_signals: bool,
    /// `-s`, `-C`.
    pub fmt: FormatOpts,
    /// `-A`.
    pub array_len: usize,
}

/// The consumer's state.
pub struct Stream {
    o: StreamOpts,
    funcs: Vec<FuncSpec>,
    dec: Decoder,
    /// Trace lines.
    pub out: Out,
    summary: Summary,
    shadows: HashMap<i32, Vec<Pending>>,
    next_call: u64,
    held: Vec<(u64, u64, Item)>,
    seq: u64,
    /// A mono time stamp and the same moment as `Instant` and `SystemTime`.
    base: (u64, Instant, SystemTime),
    /// Returns that matched no pending call (should be none).
    pub orphans: u64,
    /// printf-family calls whose format needed more than was fetched.
    pub inexact: u64,
}

impl Stream {
    /// A consumer writing to `out`.
    pub fn new(o: StreamOpts, funcs: Vec<FuncSpec>, dec: Decoder, out: Out) -> Stream {
        let base = (mono_ns(), Instant::now(), SystemTime::now());
        Stream {
            o,
            funcs,
            dec,
            out,
            summary: Summary::default(),
            shadows: HashMap::new(),
            next_call: 1,
            held: Vec::new(),
            seq: 0,
            base,
            orphans: 0,
            inexact: 0,
        }
    }

    fn moment(&self, ts: u64) -> (Instant, SystemTime) {
        let (m0, i0, s0) = self.base;
        if ts >= m0 {
            let d = Duration::from_nanos(ts - m0);
            (i0 + d, s0 + d)
        } else {
            let d = Duration::from_nanos(m0 - ts);
            (i0.checked_sub(d).unwrap_or(i0), s0 - d)
        }
    }

    fn hold(&mut self, ts: u64, item: Item) {
        self.seq += 1;
        self.held.push((ts, self.seq, item));
    }

    /// Runs until [`Msg::Done`] (or the ptrace side is gone): drains
    /// `reader` every few milliseconds and handles what is ready.
    pub fn run(&mut self, reader: &mut RawReader, rx: &Receiver<Msg>) -> Result<(), String> {
        let mut done = false;
        while !done {
            let mark = mono_ns();
            loop {
                match rx.try_recv() {
                    Ok(Msg::Life { tid, ts, what }) => self.hold(ts, Item::Life(tid, what)),
                    Ok(Msg::Call { tid, ts, sp, call }) => self.hold(ts, Item::Call(tid, sp, call)),
                    Ok(Msg::Back {
                        tid,
                        ts,
                        sp,
                        full,
                        ret,
                    }) => self.hold(ts, Item::Back(tid, sp, full, ret)),
                    Ok(Msg::Done) => done = true,
                    Err(std::sync::mpsc::TryRecvError::Empty) => break,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        // The ptrace side is gone without saying so.
                        done = true;
                        break;
                    }
                }
            }
            let mut recs = Vec::new();
            reader.drain(|_, ts, rec| {
                if let Some(r) = self.dec.decode(ts, rec) {
                    recs.push(r);
                }
            })?;
            for r in recs {
                self.hold(r.ts, Item::Rec(r));
            }
            self.process(if done { u64::MAX } else { mark });
            if !done {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Ok(())
    }

    fn process(&mut self, mark: u64) {
        if self.held.is_empty() {
            return;
        }
        self.held.sort_by_key(|h| (h.0, h.1));
        let n = self.held.partition_point(|h| h.0 <= mark);
        let ready: Vec<(u64, u64, Item)> = self.held.drain(..n).collect();
        for (ts, _, item) in ready {
            let at = self.moment(ts);
            self.out.set_time(Some(at));
            match item {
                Item::Rec(r) => self.record(r),
                Item::Life(tid, what) => self.life(tid, what),
                Item::Call(tid, sp, call) => self.given_entry(ts, tid, sp, call),
                Item::Back(tid, sp, full, ret) => self.ret(ts, tid, sp, Back::Ptrace { full, ret }),
            }
        }
        self.out.set_time(None);
    }

    fn record(&mut self, r: Rec) {
        let Rec {
            ts,
            tid,
            func,
            sp,
            kind,
        } = r;
        match kind {
            Kind::Entry { ints, strs } => self.entry(ts, tid, func, sp, &ints, &strs),
            Kind::Return { rv, rs } => self.ret(ts, tid, sp, Back::Kernel { rv, rs }),
        }
    }

    fn entry(
        &mut self,
        ts: u64,
        tid: i32,
        func: usize,
        sp: u64,
        ints: &[u64],
        strs: &[(usize, Option<Vec<u8>>)],
    ) {
        let f = &self.funcs[func];
        let depth = self.shadows.get(&tid).map_or(0, |s| s.len());
        let mut src = Fetched {
            ints,
            strs: strs
                .iter()
                .filter_map(|(k, s)| Some((ints.get(*k).copied()?, s.as_deref()?)))
                .collect(),
        };
        if f.twice {
            // Shown whole at entry, returning 0 (as its direct return).
            if self.o.count {
                self.summary.call(&f.bare);
                self.summary.time(&f.bare, Duration::ZERO);
                return;
            }
            let c = format::on_entry_with(
                &f.name,
                f.proto.as_ref(),
                &mut src,
                &self.o.fmt,
                self.o.array_len,
            );
            let rv = RetVals {
                int: 0,
                float: 0.0,
                second: (0, 0.0),
            };
            let (full, rtext) = c.finish(rv, &mut src, &self.o.fmt);
            let id = self.next_call;
            self.next_call += 1;
            let leader = self.out.leader(tid, None, depth);
            self.out.entry(tid, id, leader, &f.shown, c.entry_text());
            self.out.ret(
                tid,
                id,
                |o| o.leader(tid, None, depth),
                (&f.shown, &f.bare),
                &full,
                c.entry_text(),
                &rtext,
                Some(Duration::ZERO),
            );
            return;
        }
        if self.o.count {
            self.summary.call(&f.bare);
        }
        let id = self.next_call;
        self.next_call += 1;
        let how = if self.o.count {
            How::Count(func)
        } else {
            let mem = match &f.printf {
                Some(pf) => {
                    let (exact, mem) = printf_call(pf, &f.strings, ints, strs);
                    self.inexact += u64::from(!exact);
                    mem
                }
                None => Vec::new(),
            };
            let f = &self.funcs[func];
            let c = format::on_entry_with(
                &f.name,
                f.proto.as_ref(),
                &mut src,
                &self.o.fmt,
                self.o.array_len,
            );
            let leader = self.out.leader(tid, None, depth);
            self.out.entry(tid, id, leader, &f.shown, c.entry_text());
            How::Kernel(func, c, mem)
        };
        self.push(tid, sp, ts, id, depth, how);
    }

    /// A call caught and formatted by the ptrace side.
    fn given_entry(&mut self, ts: u64, tid: i32, sp: u64, call: Shown) {
        let depth = self.shadows.get(&tid).map_or(0, |s| s.len());
        let id = self.next_call;
        self.next_call += 1;
        let leader = self.out.leader(tid, None, depth);
        self.out.entry(tid, id, leader, &call.shown, &call.text);
        self.push(tid, sp, ts, id, depth, How::Ptrace(call));
    }

    fn push(&mut self, tid: i32, sp: u64, ts: u64, id: u64, depth: usize, how: How) {
        if depth >= MAX_SHADOW {
            return;
        }
        let e = Pending {
            slot: sp,
            ts,
            id,
            depth,
            how,
        };
        shadow::push(self.shadows.entry(tid).or_default(), e, |s| s.slot);
    }

    fn ret(&mut self, ts: u64, tid: i32, sp: u64, back: Back) {
        let Some(shadow) = self.shadows.get_mut(&tid) else {
            self.orphans += 1;
            return;
        };
        let Some(e) = shadow::pop_returned(shadow, sp, |s| s.slot) else {
            self.orphans += 1;
            return;
        };
        let dur = Duration::from_nanos(ts.saturating_sub(e.ts));
        let depth = e.depth;
        let leader = |o: &mut Out| o.leader(tid, None, depth);
        match (e.how, back) {
            (How::Count(func), _) => self.summary.time(&self.funcs[func].bare, dur),
            (How::Kernel(func, fcall, mem), Back::Kernel { rv, rs }) => {
                let mut src = Fetched {
                    ints: &[],
                    strs: rs.as_deref().map(|s| (rv, s)).into_iter().collect(),
                };
                src.strs.extend(mem.iter().map(|(a, s)| (*a, s.as_slice())));
                let rvals = RetVals {
                    int: rv,
                    float: 0.0,
                    second: (0, 0.0),
                };
                let (full, rtext) = fcall.finish(rvals, &mut src, &self.o.fmt);
                let f = &self.funcs[func];
                let names = (f.shown.as_str(), f.bare.as_str());
                let entry = fcall.entry_text();
                self.out
                    .ret(tid, e.id, leader, names, &full, entry, &rtext, Some(dur));
            }
            (How::Ptrace(c), Back::Ptrace { full, ret }) => {
                let names = (c.shown.as_str(), c.bare.as_str());
                self.out
                    .ret(tid, e.id, leader, names, &full, &c.text, &ret, Some(dur));
            }
            // A return of the other kind than the call on top: that call
            // was left without returning; it stays unfinished.
            _ => self.orphans += 1,
        }
    }

    fn life(&mut self, tid: i32, what: Life) {
        let signame = |sig: i32| {
            crate::syscall::ctx::signal_name(sig as u64)
                .map(|s| s.into_owned())
                .unwrap_or_else(|| format!("SIG{sig}"))
        };
        match what {
            Life::Thread => self.out.set_pid_prefix(),
            Life::Exec { old } => {
                self.out.no_return(old);
                self.shadows.remove(&old);
                self.shadows.remove(&tid);
            }
            Life::Exited { code } => {
                self.gone(tid, format!("+++ exited (status {code}) +++"));
            }
            Life::Killed { sig } => {
                self.gone(tid, format!("+++ killed by {} +++", signame(sig)));
            }
            Life::Detached => {
                self.out.no_return(tid);
                self.shadows.remove(&tid);
            }
            Life::Signal { sig } => {
                if self.o.no_signals || self.o.count {
                    return;
                }
                let lead = self.out.leader(tid, None, 0);
                self.out.line(
                    &lead,
                    &format!("--- {} ({}) ---", signame(sig), signal_desc(sig)),
                );
            }
        }
    }

    fn gone(&mut self, tid: i32, text: String) {
        self.out.no_return(tid);
        self.shadows.remove(&tid);
        if !self.o.count {
            let lead = self.out.leader(tid, None, 0);
            self.out.line(&lead, &text);
        }
    }

    /// Writes the `-c` table (and flushes).
    pub fn finish(&mut self) {
        if self.o.count {
            let t = self.summary.render();
            self.out.raw(&t);
        }
        self.out.flush();
    }
}

/// Whether a printf-family call is shown exactly, and the memory its
/// return shows: its output buffer (made from the format) before the
/// strings fetched at entry.
fn printf_call(
    pf: &Printf,
    strings: &[usize],
    ints: &[u64],
    strs: &[(usize, Option<Vec<u8>>)],
) -> (bool, Vec<(u64, Vec<u8>)>) {
    let at = |k: usize| strs.iter().find(|x| x.0 == k).and_then(|x| x.1.as_deref());
    let fmt = at(pf.fmt);
    let by_addr = |addr: u64| -> Option<Vec<u8>> {
        strs.iter()
            .find(|(k, s)| s.is_some() && ints.get(*k) == Some(&addr))
            .and_then(|(_, s)| s.clone())
    };
    let (exact, buf) = printf::exact(pf, fmt, ints, strings, &by_addr);
    let mut mem = Vec::new();
    if pf.out.is_none() {
        return (exact, mem);
    }
    match (buf, ints.first()) {
        (Some(b), Some(&a)) => mem.push((a, b)),
        _ => return (false, mem),
    }
    for (k, s) in strs {
        if let (Some(s), Some(&a)) = (s, ints.get(*k)) {
            mem.push((a, s.clone()));
        }
    }
    (exact, mem)
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}
