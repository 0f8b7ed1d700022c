//! Raw `ptrace(2)` requests, each with the memory it reads or writes owned
//! by the wrapper.
//!
//! Raw libc, not nix: nix's `Signal` cannot hold real-time signals, so a
//! restart through it loses them (glibc uses signals 32 and 33 in every
//! threaded program), and nix has no `PTRACE_LISTEN`,
//! `PTRACE_GET_SYSCALL_INFO` or `PTRACE_GETSIGMASK`.

use std::io;

/// `PTRACE_GET_SYSCALL_INFO` (Linux 5.3).
const PTRACE_GET_SYSCALL_INFO: libc::c_uint = 0x420e;

/// The requests [`request`] issues: their `addr` and `data` are integers
/// (an offset, options, a signal, a word to write), never pointers. The
/// `PEEK*` requests go through glibc's wrapper, which passes its own
/// local as the kernel's `data` and returns the word.
const INTEGER_REQUESTS: [libc::c_uint; 13] = [
    libc::PTRACE_SEIZE,
    libc::PTRACE_INTERRUPT,
    libc::PTRACE_SETOPTIONS,
    libc::PTRACE_SYSCALL,
    libc::PTRACE_SINGLESTEP,
    libc::PTRACE_PEEKUSER,
    libc::PTRACE_POKEUSER,
    libc::PTRACE_CONT,
    libc::PTRACE_LISTEN,
    libc::PTRACE_DETACH,
    libc::PTRACE_PEEKDATA,
    libc::PTRACE_POKEDATA,
    libc::PTRACE_KILL,
];

fn check(r: libc::c_long) -> io::Result<libc::c_long> {
    if r == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// # Safety
/// `addr` and `data` must be integers for `req`, or point at memory the
/// caller owns, of the size the kernel reads or writes for `req`.
unsafe fn raw(req: libc::c_uint, tid: i32, addr: usize, data: usize) -> io::Result<libc::c_long> {
    super::set_errno(0);
    // SAFETY: the caller's contract above.
    check(unsafe { libc::ptrace(req, tid, addr, data) })
}

/// A request whose `addr` and `data` are plain integers (see
/// [`INTEGER_REQUESTS`]); any other request fails with EINVAL. errno is
/// cleared first; -1 is an error.
pub fn request(req: libc::c_uint, tid: i32, addr: usize, data: usize) -> io::Result<libc::c_long> {
    if !INTEGER_REQUESTS.contains(&req) {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: the kernel takes `addr` and `data` of these requests as
    // integers; glibc's PEEK wrapper supplies its own output word.
    unsafe { raw(req, tid, addr, data) }
}

/// `PTRACE_PEEKDATA`: a word of the tracee's memory, or the errno (a word
/// of all ones is data, not an error: errno tells).
pub fn peek_data(tid: i32, addr: u64) -> Result<u64, i32> {
    super::set_errno(0);
    // SAFETY: PEEKDATA takes integers; glibc's wrapper returns the word.
    let v = unsafe { libc::ptrace(libc::PTRACE_PEEKDATA, tid, addr as usize, 0usize) };
    match super::errno() {
        0 => Ok(v as u64),
        e => Err(e),
    }
}

/// `PTRACE_GETEVENTMSG`.
pub fn event_msg(tid: i32) -> io::Result<u64> {
    let mut v: libc::c_ulong = 0;
    // SAFETY: the kernel writes one unsigned long to `v`, ours.
    unsafe {
        raw(
            libc::PTRACE_GETEVENTMSG,
            tid,
            0,
            &mut v as *mut libc::c_ulong as usize,
        )?
    };
    Ok(v as u64)
}

/// `PTRACE_GETSIGINFO` into a raw 128-byte `siginfo_t`.
pub fn siginfo(tid: i32) -> io::Result<[u8; 128]> {
    let mut buf = [0u8; 128];
    // SAFETY: the kernel writes one 128-byte siginfo_t into `buf`, ours.
    unsafe { raw(libc::PTRACE_GETSIGINFO, tid, 0, buf.as_mut_ptr() as usize)? };
    Ok(buf)
}

/// Bytes of x86_64's `user_regs_struct` (`PTRACE_GETREGS`).
#[cfg(target_arch = "x86_64")]
pub const USER_REGS_BYTES: usize = 27 * 8;

/// `PTRACE_GETREGS` into `words` (at least [`USER_REGS_BYTES`], else
/// EINVAL).
#[cfg(target_arch = "x86_64")]
pub fn get_regs(tid: i32, words: &mut [u64]) -> io::Result<()> {
    if std::mem::size_of_val(words) < USER_REGS_BYTES {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: the kernel writes USER_REGS_BYTES, which `words` holds.
    unsafe { raw(libc::PTRACE_GETREGS, tid, 0, words.as_mut_ptr() as usize)? };
    Ok(())
}

/// `PTRACE_SETREGS` from `words` (at least [`USER_REGS_BYTES`], else
/// EINVAL).
#[cfg(target_arch = "x86_64")]
pub fn set_regs(tid: i32, words: &[u64]) -> io::Result<()> {
    if std::mem::size_of_val(words) < USER_REGS_BYTES {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: the kernel reads USER_REGS_BYTES, which `words` holds.
    unsafe { raw(libc::PTRACE_SETREGS, tid, 0, words.as_ptr() as usize)? };
    Ok(())
}

/// `PTRACE_GETREGSET(nt)` into `buf`: the bytes the kernel filled (at most
/// `buf`'s size).
pub fn get_regset(tid: i32, nt: usize, buf: &mut [u8]) -> io::Result<usize> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: `iov` describes `buf`, ours; the kernel writes at most
    // `iov_len` bytes there and updates `iov`.
    unsafe {
        raw(
            libc::PTRACE_GETREGSET,
            tid,
            nt,
            &mut iov as *mut libc::iovec as usize,
        )?
    };
    Ok(iov.iov_len)
}

/// [`get_regset`] into 64-bit words.
pub fn get_regset_words(tid: i32, nt: usize, words: &mut [u64]) -> io::Result<usize> {
    let mut iov = libc::iovec {
        iov_base: words.as_mut_ptr().cast(),
        iov_len: std::mem::size_of_val(words),
    };
    // SAFETY: `iov` describes `words`, ours; the kernel writes at most
    // `iov_len` bytes there and updates `iov`.
    unsafe {
        raw(
            libc::PTRACE_GETREGSET,
            tid,
            nt,
            &mut iov as *mut libc::iovec as usize,
        )?
    };
    Ok(iov.iov_len)
}

/// `PTRACE_SETREGSET(nt)` from `words`.
pub fn set_regset_words(tid: i32, nt: usize, words: &[u64]) -> io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: words.as_ptr() as *mut libc::c_void,
        iov_len: std::mem::size_of_val(words),
    };
    // SAFETY: `iov` describes `words`, ours; SETREGSET only reads it.
    unsafe {
        raw(
            libc::PTRACE_SETREGSET,
            tid,
            nt,
            &mut iov as *mut libc::iovec as usize,
        )?
    };
    Ok(())
}

/// `PTRACE_GETSIGMASK`: the thread's blocked-signal mask (kernel `sigset_t`).
pub fn get_sigmask(tid: i32) -> io::Result<u64> {
    let mut m: u64 = 0;
    // SAFETY: the kernel writes `addr` = 8 bytes into `m`, ours.
    unsafe { raw(libc::PTRACE_GETSIGMASK, tid, 8, &mut m as *mut u64 as usize)? };
    Ok(m)
}

/// `PTRACE_SETSIGMASK`: sets the thread's blocked-signal mask.
pub fn set_sigmask(tid: i32, mask: u64) -> io::Result<()> {
    // SAFETY: the kernel reads `addr` = 8 bytes from `mask`, ours.
    unsafe {
        raw(
            libc::PTRACE_SETSIGMASK,
            tid,
            8,
            &mask as *const u64 as usize,
        )?
    };
    Ok(())
}

/// `PTRACE_GET_SYSCALL_INFO`: the raw `struct ptrace_syscall_info` as
/// eleven words (the caller decodes it).
pub fn syscall_info(tid: i32) -> io::Result<[u64; 11]> {
    let mut raw_info = [0u64; 11];
    // SAFETY: the kernel writes at most `addr` bytes (the size of
    // `raw_info`) into `raw_info`, ours.
    unsafe {
        raw(
            PTRACE_GET_SYSCALL_INFO,
            tid,
            std::mem::size_of_val(&raw_info),
            raw_info.as_mut_ptr() as usize,
        )?
    };
    Ok(raw_info)
}
