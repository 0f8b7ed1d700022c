//! `-k`: a stack trace after each printed syscall, in strace's format:
//! ` > /usr/lib/x86_64-linux-gnu/libc.so.6(__write+0x10) [0xf8350]`.
//!
//! The module map of a process is read once and kept until a syscall that
//! changes mappings (mmap, munmap, mprotect, mremap, brk, exec, shmat/shmdt)
//! returns, as strace's cache does; symbols and CFI are parsed once per file
//! and shared by every process.

use crate::engine::tracee::Tracee;
use crate::symbols::{Frame, ModuleMap, StraceStyle, Symbolizer};
use crate::unwind::{from_prstatus_x86_64, symbolize_frames, Unwinder};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Frames printed at most by default (strace's default
/// `--stack-trace-frame-limit`).
const MAX_FRAMES: usize = 256;

/// Syscalls after which the mappings of the process may have changed.
const INVALIDATES: &[&str] = &[
    "mmap",
    "mmap2",
    "munmap",
    "mprotect",
    "mremap",
    "brk",
    "execve",
    "execveat",
    "shmat",
    "shmdt",
    "remap_file_pages",
    "pkey_mprotect",
];

/// Per-run state of `-k`.
#[derive(Default)]
pub struct StackTracer {
    symbols: Symbolizer,
    unwinder: Unwinder,
    maps: HashMap<i32, ModuleMap>,
    /// `--stack-trace-frame-limit` (`None`: [`MAX_FRAMES`]).
    frame_limit: Option<usize>,
}

impl StackTracer {
    /// A tracer printing at most `limit` frames per stack.
    pub fn with_frame_limit(limit: Option<usize>) -> StackTracer {
        StackTracer {
            frame_limit: limit,
            ..StackTracer::default()
        }
    }

    /// The stack of the stopped thread `tid`, one ` > …` line per frame.
    pub fn render(&mut self, tid: i32, out: &mut String) {
        let Some((frames, more)) = self.frames_limited(tid) else {
            out.push_str(" > unexpected_backtracing_error [0x0]\n");
            return;
        };
        for fr in &frames {
            if fr.module.is_empty() {
                let _ = writeln!(out, " > ?? [{:#x}]", fr.pc);
            } else {
                let _ = writeln!(out, " > {}", StraceStyle(fr));
            }
        }
        // strace's words when the stack goes on past the frame limit.
        if more {
            out.push_str(" > too many stack frames\n");
        }
    }

    /// The symbolized stack of the stopped thread `tid`, innermost first:
    /// one frame per real frame, like strace (the function that contains
    /// the pc, the outermost of any inlined frames). `None` when the
    /// registers or the memory map cannot be read. `--json -k` puts these
    /// in the syscall record.
    pub fn frames(&mut self, tid: i32) -> Option<Vec<Frame>> {
        self.frames_limited(tid).map(|(f, _)| f)
    }

    /// [`Self::frames`], at most the frame limit of them, and whether the
    /// stack went on beyond it.
    fn frames_limited(&mut self, tid: i32) -> Option<(Vec<Frame>, bool)> {
        let limit = self.frame_limit.unwrap_or(MAX_FRAMES);
        let mut t = Tracee::new(tid);
        let words = t.regs().ok()?;
        let map = match self.maps.entry(tid) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(ModuleMap::from_pid(tid, &mut t).ok()?)
            }
        };
        let regs = from_prstatus_x86_64(&words);
        let raw = self
            .unwinder
            .unwind_frames(&self.symbols, map, &regs, &mut t, limit + 1);
        let more = raw.len() > limit;
        let mut out = Vec::with_capacity(raw.len());
        for f in raw.iter().take(limit) {
            let sym = symbolize_frames(&self.symbols, map, std::slice::from_ref(f));
            out.push(sym.last().cloned().unwrap_or(Frame {
                pc: f.pc,
                ..Frame::default()
            }));
        }
        Some((out, more))
    }

    /// Forgets the module map of `tid` after `syscall` if it may have
    /// changed the mappings, and always at exec and exit.
    pub fn after_syscall(&mut self, tid: i32, syscall: Option<&str>) {
        if syscall.is_some_and(|s| INVALIDATES.contains(&s)) {
            self.forget(tid);
        }
    }

    /// Drops the cached map of `tid`.
    pub fn forget(&mut self, tid: i32) {
        self.maps.remove(&tid);
    }
}
