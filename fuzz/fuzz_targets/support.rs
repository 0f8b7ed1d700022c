//! Shared by the ELF targets: the fuzz input as a file (a memfd, so nothing
//! is left behind when libFuzzer exits) and a process map that maps it.
#![allow(dead_code)]

use rtrace::engine::memory::Memory;
use rtrace::symbols::ModuleMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::{AsRawFd, FromRawFd};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Where the fuzzed file is "mapped" in the fake process.
pub const BASE: u64 = 0x5555_5555_4000;
/// Length of that mapping.
pub const SPAN: u64 = 0x100_0000;

fn memfd() -> &'static File {
    static FD: OnceLock<File> = OnceLock::new();
    FD.get_or_init(|| {
        // SAFETY: the name is a NUL-terminated literal; the returned fd is
        // owned by the `File` from here on.
        let fd = unsafe { libc::memfd_create(c"rtrace-fuzz".as_ptr(), 0) };
        assert!(fd >= 0, "memfd_create failed");
        // SAFETY: `fd` is a fresh descriptor nobody else owns.
        unsafe { File::from_raw_fd(fd) }
    })
}

/// Replaces the memfd's contents with `data`; returns a path that opens it.
pub fn elf_file(data: &[u8]) -> PathBuf {
    let f = memfd();
    f.set_len(0).expect("truncate memfd");
    f.write_all_at(data, 0).expect("write memfd");
    PathBuf::from(format!("/proc/self/fd/{}", f.as_raw_fd()))
}

/// A process map with the file at `path` mapped at [`BASE`], biases computed.
pub fn map_of(path: &std::path::Path) -> ModuleMap {
    let text = format!(
        "{:x}-{:x} r-xp 00000000 00:00 1 {}\n",
        BASE,
        BASE + SPAN,
        path.display()
    );
    let mut map = ModuleMap::parse(&text);
    map.compute_biases();
    map
}

/// A fake address space: the file's bytes at [`BASE`] and a stack.
pub struct FuzzMem<'a> {
    /// The ELF file's bytes.
    pub file: &'a [u8],
    /// Base address of `stack`.
    pub stack_base: u64,
    /// Stack bytes.
    pub stack: &'a [u8],
}

fn copy_from(region: &[u8], base: u64, addr: u64, buf: &mut [u8]) -> usize {
    let Some(off) = addr.checked_sub(base) else {
        return 0;
    };
    let Ok(off) = usize::try_from(off) else {
        return 0;
    };
    if off >= region.len() {
        return 0;
    }
    let n = buf.len().min(region.len() - off);
    buf[..n].copy_from_slice(&region[off..off + n]);
    n
}

impl Memory for FuzzMem<'_> {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        let n = copy_from(self.stack, self.stack_base, addr, buf);
        if n > 0 {
            return n;
        }
        copy_from(self.file, BASE, addr, buf)
    }
}

/// Splits `data` into a little header of `N` bytes and the rest.
pub fn split<const N: usize>(data: &[u8]) -> Option<([u8; N], &[u8])> {
    let head = data.get(..N)?.try_into().ok()?;
    Some((head, &data[N..]))
}
