//! Another process's memory: `process_vm_readv`/`process_vm_writev`.

/// Reads `buf.len()` bytes of process `tid` at `addr`: the bytes read
/// (short at an unmapped page), or the errno.
pub fn vm_read(tid: i32, addr: u64, buf: &mut [u8]) -> Result<usize, i32> {
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as usize as *mut libc::c_void,
        iov_len: buf.len(),
    };
    // SAFETY: `local` describes `buf`, which is valid and writable for its
    // length; `remote` is only interpreted by the kernel in the tracee.
    let n = unsafe { libc::process_vm_readv(tid, &local, 1, &remote, 1, 0) };
    if n < 0 {
        Err(super::errno())
    } else {
        Ok(n as usize)
    }
}

/// Writes `data` into process `tid` at `addr`: the bytes written, or the
/// errno (writable pages only; `/proc/PID/mem` writes the others).
pub fn vm_write(tid: i32, addr: u64, data: &[u8]) -> Result<usize, i32> {
    let local = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    let remote = libc::iovec {
        iov_base: addr as usize as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: `local` describes `data`, valid for reads of its length (the
    // kernel only reads it); the remote range is only interpreted by the
    // kernel in the tracee.
    let n = unsafe { libc::process_vm_writev(tid, &local, 1, &remote, 1, 0) };
    if n < 0 {
        Err(super::errno())
    } else {
        Ok(n as usize)
    }
}
