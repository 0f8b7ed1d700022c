//! Another process's memory: `process_vm_readv`/`process_vm_writev`,
//! through nix.

use std::io::{IoSlice, IoSliceMut};

use nix::sys::uio::{process_vm_readv, process_vm_writev, RemoteIoVec};
use nix::unistd::Pid;

/// Reads `buf.len()` bytes of process `tid` at `addr`: the bytes read
/// (short at an unmapped page), or the errno.
pub fn vm_read(tid: i32, addr: u64, buf: &mut [u8]) -> Result<usize, i32> {
    let remote = RemoteIoVec {
        base: addr as usize,
        len: buf.len(),
    };
    process_vm_readv(Pid::from_raw(tid), &mut [IoSliceMut::new(buf)], &[remote])
        .map_err(|e| e as i32)
}

/// Writes `data` into process `tid` at `addr`: the bytes written, or the
/// errno (writable pages only: `process_vm_writev` respects the page
/// protection; `/proc/PID/mem` or `PTRACE_POKEDATA` writes the others).
pub fn vm_write(tid: i32, addr: u64, data: &[u8]) -> Result<usize, i32> {
    let remote = RemoteIoVec {
        base: addr as usize,
        len: data.len(),
    };
    process_vm_writev(Pid::from_raw(tid), &[IoSlice::new(data)], &[remote]).map_err(|e| e as i32)
}
