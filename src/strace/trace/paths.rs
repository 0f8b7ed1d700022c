//! `-P` and `--trace-fds`: whether a call touches a selected path or fd.

use super::*;

impl Strace {
    /// Does this call access a `-P` path (strace's `pathtrace_match_set`)?
    pub(super) fn touches_paths(
        &self,
        tid: i32,
        arch: Arch,
        entry: &Entry,
        args: &[u64; 6],
        mem: &mut PageCache,
    ) -> bool {
        let Some(name) = entry.name else { return false };
        let word = |a: u64| {
            if arch.word_size() == 4 {
                a as u32 as u64
            } else {
                a
            }
        };
        match filter::path_rule(arch, name, entry.classes) {
            PathRule::Args { fds, paths } => {
                fds.iter().any(|&i| self.fd_matches(tid, args[i] as i32))
                    || paths
                        .iter()
                        .any(|&i| self.upath_matches(mem, word(args[i])))
            }
            PathRule::OldMmap => {
                let mut buf = [0u8; 24];
                mem.read(word(args[0]), &mut buf) == buf.len()
                    && self.fd_matches(
                        tid,
                        i32::from_le_bytes([buf[16], buf[17], buf[18], buf[19]]),
                    )
            }
            PathRule::Select { indirect } => {
                let words: [u64; 4] = if indirect {
                    let mut buf = [0u8; 16];
                    if mem.read(word(args[0]), &mut buf) != buf.len() {
                        return false;
                    }
                    let w = |i: usize| {
                        u32::from_le_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]) as u64
                    };
                    [w(0), w(4), w(8), w(12)]
                } else {
                    [args[0], word(args[1]), word(args[2]), word(args[3])]
                };
                self.select_matches(tid, mem, arch, &words)
            }
            PathRule::Poll => {
                let nfds = (args[1] as u32).min(1024 * 1024) as u64;
                (0..nfds).any(|k| {
                    let mut fd = [0u8; 4];
                    mem.read(word(args[0]) + 8 * k, &mut fd) == 4
                        && self.fd_matches(tid, i32::from_le_bytes(fd))
                })
            }
            PathRule::Fsconfig => match args[1] as u32 {
                3 | 4 => {
                    self.fd_matches(tid, args[4] as i32) || self.upath_matches(mem, word(args[3]))
                }
                5 => self.fd_matches(tid, args[4] as i32),
                _ => false,
            },
        }
    }

    /// Any descriptor in the `select` sets at `w[1..=3]` (`nfds` at `w[0]`).
    fn select_matches(&self, tid: i32, mem: &mut PageCache, arch: Arch, w: &[u64; 4]) -> bool {
        let nfds = w[0] as i32;
        if nfds <= 0 {
            return false;
        }
        let nfds = nfds.min(1024 * 1024) as usize;
        let ws = arch.word_size();
        let size = (nfds.div_ceil(8) + ws - 1) & !(ws - 1);
        let mut set = vec![0u8; size];
        for &addr in &w[1..] {
            if addr == 0 || mem.read(addr, &mut set) != size {
                continue;
            }
            for fd in 0..nfds {
                if set[fd / 8] & (1 << (fd % 8)) != 0 && self.fd_matches(tid, fd as i32) {
                    return true;
                }
            }
        }
        false
    }

    /// Is descriptor `fd` of `tid` in the `--trace-fds` set, or does it
    /// refer to a traced path (strace's `fdmatch`)?
    fn fd_matches(&self, tid: i32, fd: i32) -> bool {
        if self
            .o
            .trace_fds
            .as_ref()
            .is_some_and(|s| s.contains(fd as i64))
        {
            return true;
        }
        !self.paths.is_empty()
            && fd >= 0
            && fd_path(tid, fd).is_some_and(|p| self.paths.contains(&p))
    }

    /// Is the NUL-terminated string at `addr` (at most `PATH_MAX` bytes) a traced path?
    fn upath_matches(&self, mem: &mut PageCache, addr: u64) -> bool {
        read_path(mem, addr).is_some_and(|p| self.paths.contains(&p))
    }
}

/// What `/proc/TID/fd/FD` points to, without the ` (deleted)` the kernel
/// appends to unlinked files (unless a file of that name is the same file),
/// as strace's `getfdpath` reports it.
fn fd_path(tid: i32, fd: i32) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    let link = format!("/proc/{tid}/fd/{fd}");
    let target = std::fs::read_link(&link).ok()?;
    let mut b = target.as_os_str().as_bytes().to_vec();
    const DELETED: &[u8] = b" (deleted)";
    if b.len() > DELETED.len() && b.ends_with(DELETED) {
        if let Ok(st_link) = std::fs::metadata(&link) {
            let same = std::fs::symlink_metadata(&target)
                .is_ok_and(|s| s.ino() == st_link.ino() && s.dev() == st_link.dev());
            if !same {
                b.truncate(b.len() - DELETED.len());
            }
        }
    }
    Some(b)
}

/// A NUL-terminated path of at most `PATH_MAX` bytes from tracee memory.
fn read_path(mem: &mut PageCache, addr: u64) -> Option<Vec<u8>> {
    const PATH_MAX: usize = 4096;
    if addr == 0 {
        return None;
    }
    let mut out = Vec::new();
    let mut chunk = [0u8; 256];
    while out.len() <= PATH_MAX {
        let n = mem.read(addr + out.len() as u64, &mut chunk);
        if n == 0 {
            return None;
        }
        if let Some(z) = chunk[..n].iter().position(|&c| c == 0) {
            out.extend_from_slice(&chunk[..z]);
            return (out.len() <= PATH_MAX).then_some(out);
        }
        out.extend_from_slice(&chunk[..n]);
    }
    None
}
