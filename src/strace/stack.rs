//! `-k`: a stack trace after each printed syscall, in strace's format:
//! ` > /usr/lib/x86_64-linux-gnu/libc.so.6(__write+0x10) [0xf8350]`.
//!
//! The module map of a process is read once and kept until a syscall that
//! changes mappings (mmap, munmap, mprotect, mremap, brk, exec, shmat/shmdt)
//! returns, as strace's cache does; symbols and CFI are parsed once per file
//! and shared by every process.

use crate::engine::tracee::Tracee;
use crate::symbols::{ModuleMap, StraceStyle, Symbolizer};
use crate::unwind::{from_prstatus_x86_64, symbolize_frames, Unwinder};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Frames printed at most (strace's libdw backend stops at 256).
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
}

impl StackTracer {
    /// The stack of the stopped thread `tid`, one ` > …` line per frame.
    pub fn render(&mut self, tid: i32, out: &mut String) {
        let mut t = Tracee::new(tid);
        let Ok(words) = t.regs() else {
            out.push_str(" > unexpected_backtracing_error [0x0]\n");
            return;
        };
        let map = match self.maps.entry(tid) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                match ModuleMap::from_pid(tid, &mut t) {
                    Ok(m) => v.insert(m),
                    Err(_) => {
                        out.push_str(" > unexpected_backtracing_error [0x0]\n");
                        return;
                    }
                }
            }
        };
        let regs = from_prstatus_x86_64(&words);
        let frames = self
            .unwinder
            .unwind_frames(&self.symbols, map, &regs, &mut t, MAX_FRAMES);
        for f in &frames {
            // One line per real frame, like strace: the function that
            // contains the pc (the outermost of any inlined frames).
            let sym = symbolize_frames(&self.symbols, map, std::slice::from_ref(f));
            match sym.last() {
                Some(fr) => {
                    let _ = writeln!(out, " > {}", StraceStyle(fr));
                }
                None => {
                    let _ = writeln!(out, " > ?? [{:#x}]", f.pc);
                }
            }
        }
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
