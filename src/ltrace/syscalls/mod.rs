//! `-S`: system calls between the library calls, as ltrace 0.7.3 prints
//! them. Text lines follow ltrace: the name from its own table
//! ([`names`]), the arguments and return value from the `SYS_*`
//! prototypes of the loaded ltrace.conf files (`/etc/ltrace.conf`) through
//! the library-call formatter, and for calls without one ltrace's default
//! (four arguments, decimal within ±10000, else hex). `--json` keeps
//! rstrace's decoders and object shape (`crate::value::json`).

use super::format::{self, ArgSource, FormatOpts, RetVals};
use super::output::{Out, Summary};
use super::proto::Protos;
use crate::engine::memory::proc::ProcMem;
use crate::engine::memory::Memory;
use crate::engine::tracee::Tracee;
use crate::syscall::ctx::ProcFdResolver;
use crate::syscall::{self, Ctx, DecodeOpts, Entry, Step, SyscallTable, Value};
use crate::value::json;
use rtrace_arch::x86_64::PC;
use rtrace_arch::Arch;
use std::collections::HashMap;
use std::time::{Instant, SystemTime};

pub mod names;

/// A syscall's arguments for the formatter: the six syscall argument
/// registers in order (ltrace reads these for syscalls, not the function
/// ABI's), memory through the thread.
struct SysArgs {
    args: [u64; 6],
    mem: ProcMem,
}

impl ArgSource for SysArgs {
    fn int_arg(&mut self, i: usize) -> u64 {
        self.args.get(i).copied().unwrap_or(0)
    }

    fn float_arg(&mut self, _i: usize) -> f64 {
        // No syscall takes a floating-point argument.
        0.0
    }

    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        self.mem.read(addr, buf)
    }
}

/// What the JSON form decoded at entry (rstrace's decoders).
struct Decoded {
    entry: &'static Entry,
    entry_args: Vec<Value>,
    step: Step,
    saved: u64,
}

struct Pending {
    nr: u64,
    wall: SystemTime,
    arch: Arch,
    args: [u64; 6],
    call: Option<format::Call>,
    decoded: Option<Decoded>,
    id: u64,
    shown: String,
    at: Instant,
}

/// Decodes and prints system calls.
pub struct Syscalls {
    protos: Protos,
    fmt: FormatOpts,
    array_len: usize,
    ip: bool,
    json: bool,
    opts: DecodeOpts,
    fds: ProcFdResolver,
    pending: HashMap<i32, Pending>,
    next_id: u64,
}

/// The program counter of stopped thread `tid` (for `-i`).
fn pc_of(tid: i32) -> Option<u64> {
    Tracee::new(tid).regs().ok().map(|r| r[PC])
}

impl Syscalls {
    /// Text lines formatted with `protos` (their `SYS_*` entries), `fmt`
    /// and `-A` = `array_len`; `ip`: `-i` (the leader shows where the
    /// call was made); `json`: one object per call, in rstrace `--json`'s
    /// shape.
    pub fn new(protos: Protos, fmt: FormatOpts, array_len: usize, ip: bool, json: bool) -> Self {
        Syscalls {
            protos,
            fmt,
            array_len,
            ip,
            json,
            opts: DecodeOpts {
                string_limit: fmt.string_len,
                ..DecodeOpts::default()
            },
            fds: ProcFdResolver,
            pending: HashMap::new(),
            // Apart from library call ids (those count up from 1).
            next_id: 1 << 62,
        }
    }

    /// A syscall entry.
    #[allow(clippy::too_many_arguments)]
    pub fn entry(
        &mut self,
        tid: i32,
        arch: Arch,
        nr: u64,
        args: [u64; 6],
        out: &mut Out,
        count: bool,
    ) {
        let shown = names::ltrace_name(arch, nr);
        let id = self.next_id;
        self.next_id += 1;
        let (mut call, mut decoded) = (None, None);
        if self.json && !count {
            decoded = Some(self.decode_entry(tid, arch, nr, args));
        } else if !count {
            let mut src = SysArgs {
                args,
                mem: ProcMem::new(tid),
            };
            let c = format::on_entry_with(
                &shown,
                self.protos.get(&shown),
                &mut src,
                &self.fmt,
                self.array_len,
            );
            let ip = if self.ip { pc_of(tid) } else { None };
            let leader = out.leader(tid, ip, 0);
            out.entry(tid, id, leader, &shown, c.entry_text());
            call = Some(c);
        }
        self.pending.insert(
            tid,
            Pending {
                nr,
                wall: SystemTime::now(),
                arch,
                args,
                call,
                decoded,
                id,
                shown,
                at: Instant::now(),
            },
        );
    }

    fn decode_entry(&mut self, tid: i32, arch: Arch, nr: u64, args: [u64; 6]) -> Decoded {
        let entry = SyscallTable::get(arch).entry(nr);
        let mut mem = ProcMem::new(tid);
        let mut ctx = Ctx::new(&mut mem, &mut self.fds, &self.opts, tid, arch, args);
        let step = syscall::decode_entry(entry, &mut ctx);
        Decoded {
            entry,
            entry_args: std::mem::take(&mut ctx.entry_args),
            step,
            saved: ctx.saved,
        }
    }

    /// A syscall exit.
    pub fn exit(&mut self, tid: i32, ret: i64, out: &mut Out, summary: &mut Summary, count: bool) {
        let Some(mut p) = self.pending.remove(&tid) else {
            return;
        };
        let dur = p.at.elapsed();
        if count {
            // Counted at the return, as ltrace: a call that does not
            // return (`exit_group`) is not in the table.
            summary.call(&p.shown);
            summary.time(&p.shown, dur);
            return;
        }
        if let Some(d) = p.decoded.take() {
            self.json_exit(tid, &p, d, ret, dur, out);
            return;
        }
        let Some(call) = &p.call else {
            return;
        };
        let mut src = SysArgs {
            args: p.args,
            mem: ProcMem::new(tid),
        };
        let rv = RetVals {
            int: ret as u64,
            ..RetVals::default()
        };
        let (full, rtext) = call.finish(rv, &mut src, &self.fmt);
        let ip = if self.ip { pc_of(tid) } else { None };
        out.ret(
            tid,
            p.id,
            |o| o.leader(tid, ip, 0),
            (&p.shown, &p.shown),
            &full,
            call.entry_text(),
            &rtext,
            Some(dur),
        );
    }

    fn json_exit(
        &mut self,
        tid: i32,
        p: &Pending,
        d: Decoded,
        ret: i64,
        dur: std::time::Duration,
        out: &mut Out,
    ) {
        let mut mem = ProcMem::new(tid);
        let mut ctx = Ctx::new(&mut mem, &mut self.fds, &self.opts, tid, p.arch, p.args);
        ctx.ret = Some(ret);
        ctx.saved = d.saved;
        ctx.entry_args = d.entry_args;
        let r = syscall::decode_exit(d.entry, &mut ctx, d.step);
        let rec = json::SyscallRecord {
            pid: tid,
            time: p.wall,
            name: d.entry.name,
            nr: p.nr,
            entry_args: &ctx.entry_args,
            exit_args: &ctx.exit_args,
            ret: Some(&r),
            duration: Some(dur),
            injected: false,
            delayed: false,
        };
        let mut line = String::new();
        json::syscall_line(&mut line, &rec);
        out.raw(&line);
    }

    /// Thread `tid` is gone: with `--json`, its syscall in progress (one
    /// that never returns, such as `exit_group`) is written with a null
    /// return (the text form is `Out::no_return`'s).
    pub fn gone(&mut self, tid: i32, out: &mut Out) {
        let Some(p) = self.pending.remove(&tid) else {
            return;
        };
        let Some(d) = p.decoded else {
            return;
        };
        let rec = json::SyscallRecord {
            pid: tid,
            time: p.wall,
            name: d.entry.name,
            nr: p.nr,
            entry_args: &d.entry_args,
            exit_args: &[],
            ret: None,
            duration: None,
            injected: false,
            delayed: false,
        };
        let mut line = String::new();
        json::syscall_line(&mut line, &rec);
        out.raw(&line);
    }
}
