//! `-S`: system calls between the library calls, as ltrace prints them
//! (`SYS_write(1, "hi\n", 3) = 3`), with arguments and results decoded by
//! rstrace's decoders (`crate::syscall`), so they read like strace's.

use super::output::{Out, Summary};
use crate::engine::memory::proc::ProcMem;
use crate::syscall::ctx::ProcFdResolver;
use crate::syscall::{self, Ctx, DecodeOpts, Entry, Ret, Step, SyscallTable, Value};
use crate::value::json;
use crate::value::text::{self, RenderOpts};
use rtrace_arch::Arch;
use std::collections::HashMap;
use std::time::{Instant, SystemTime};

struct Pending {
    nr: u64,
    wall: SystemTime,
    arch: Arch,
    entry: &'static Entry,
    args: [u64; 6],
    entry_args: Vec<Value>,
    step: Step,
    saved: u64,
    id: u64,
    shown: String,
    entry_text: String,
    at: Instant,
}

/// Decodes and prints system calls.
pub struct Syscalls {
    opts: DecodeOpts,
    render: RenderOpts,
    fds: ProcFdResolver,
    pending: HashMap<i32, Pending>,
    next_id: u64,
    json: bool,
}

impl Syscalls {
    /// Strings up to `string_len` bytes; `json`: one object per call, in
    /// rstrace `--json`'s shape (`crate::value::json`).
    pub fn new(string_len: usize, json: bool) -> Syscalls {
        Syscalls {
            opts: DecodeOpts {
                string_limit: string_len,
                ..DecodeOpts::default()
            },
            render: RenderOpts { xflag: 0 },
            fds: ProcFdResolver,
            pending: HashMap::new(),
            // Apart from library call ids (those count up from 1).
            next_id: 1 << 62,
            json,
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
        summary: &mut Summary,
        count: bool,
    ) {
        let entry = SyscallTable::get(arch).entry(nr);
        let shown = match entry.name {
            Some(n) => format!("SYS_{n}"),
            None => format!("SYS_{nr}"),
        };
        if count {
            summary.call(&shown);
        }
        let mut mem = ProcMem::new(tid);
        let mut ctx = Ctx::new(&mut mem, &mut self.fds, &self.opts, tid, arch, args);
        let step = if count {
            Step::Exit
        } else {
            syscall::decode_entry(entry, &mut ctx)
        };
        let entry_args = std::mem::take(&mut ctx.entry_args);
        let saved = ctx.saved;
        let mut entry_text = String::new();
        for (i, a) in entry_args.iter().enumerate() {
            if i > 0 {
                entry_text.push_str(", ");
            }
            text::render_value(&mut entry_text, a, &self.render);
        }
        let id = self.next_id;
        self.next_id += 1;
        if !count && !self.json {
            let leader = out.leader(tid, None, 0);
            out.entry(tid, id, leader, &shown, &entry_text);
        }
        self.pending.insert(
            tid,
            Pending {
                nr,
                wall: SystemTime::now(),
                arch,
                entry,
                args,
                entry_args,
                step,
                saved,
                id,
                shown,
                entry_text,
                at: Instant::now(),
            },
        );
    }

    /// A syscall exit.
    pub fn exit(&mut self, tid: i32, ret: i64, out: &mut Out, summary: &mut Summary, count: bool) {
        let Some(p) = self.pending.remove(&tid) else {
            return;
        };
        let dur = p.at.elapsed();
        if count {
            summary.time(&p.shown, dur);
            return;
        }
        let mut mem = ProcMem::new(tid);
        let mut ctx = Ctx::new(&mut mem, &mut self.fds, &self.opts, tid, p.arch, p.args);
        ctx.ret = Some(ret);
        ctx.saved = p.saved;
        ctx.entry_args = p.entry_args;
        let r = syscall::decode_exit(p.entry, &mut ctx, p.step);
        if self.json {
            let rec = json::SyscallRecord {
                pid: tid,
                time: p.wall,
                name: p.entry.name,
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
            return;
        }
        let mut full = p.entry_text.clone();
        for a in &ctx.exit_args {
            if !full.is_empty() {
                full.push_str(", ");
            }
            text::render_value(&mut full, a, &self.render);
        }
        let mut rtext = String::new();
        text::render_ret(&mut rtext, &r, &self.render);
        let rtext = rtext.strip_prefix("= ").unwrap_or(&rtext).to_string();
        let rtext = if r == Ret::Unknown {
            "?".to_string()
        } else {
            rtext
        };
        out.ret(
            tid,
            p.id,
            |o| o.leader(tid, None, 0),
            (&p.shown, &p.shown),
            &full,
            &p.entry_text,
            &rtext,
            Some(dur),
        );
    }

    /// Thread `tid` is gone: with `--json`, its syscall in progress (one
    /// that never returns, such as `exit_group`) is written with a null
    /// return (the text form is `Out::no_return`'s).
    pub fn gone(&mut self, tid: i32, out: &mut Out) {
        let Some(p) = self.pending.remove(&tid) else {
            return;
        };
        if !self.json {
            return;
        }
        let rec = json::SyscallRecord {
            pid: tid,
            time: p.wall,
            name: p.entry.name,
            nr: p.nr,
            entry_args: &p.entry_args,
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
