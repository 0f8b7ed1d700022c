//! `ptrace(2)` requests, each with the memory it reads or writes owned by
//! the wrapper.
//!
//! Through nix: `PTRACE_SEIZE`, `INTERRUPT`, `SETOPTIONS`, `PEEKDATA`,
//! `POKEDATA`, `PEEKUSER`, `POKEUSER`, `GETEVENTMSG`, `GETSIGINFO` and, on
//! x86_64, `GETREGS`/`SETREGS`. The requests nix cannot make are in
//! [`raw`](self::raw) below, each with the reason: restarts that deliver a
//! real-time signal, `PTRACE_LISTEN`, the signal mask, regsets of any
//! size, `PTRACE_GET_SYSCALL_INFO`.

use std::io;

use nix::sys::ptrace as np;
use nix::unistd::Pid;

fn pid(tid: i32) -> Pid {
    Pid::from_raw(tid)
}

fn addr(a: u64) -> np::AddressType {
    a as usize as np::AddressType
}

/// `PTRACE_SEIZE` with `options` (`PTRACE_O_*` bits, passed as given).
pub fn seize(tid: i32, options: i32) -> io::Result<()> {
    Ok(np::seize(pid(tid), np::Options::from_bits_retain(options))?)
}

/// `PTRACE_INTERRUPT`: stops a seized tracee (it reports
/// `PTRACE_EVENT_STOP`).
pub fn interrupt(tid: i32) -> io::Result<()> {
    Ok(np::interrupt(pid(tid))?)
}

/// `PTRACE_SETOPTIONS` (`PTRACE_O_*` bits, passed as given).
pub fn set_options(tid: i32, options: i32) -> io::Result<()> {
    Ok(np::setoptions(
        pid(tid),
        np::Options::from_bits_retain(options),
    )?)
}

/// `PTRACE_PEEKDATA`: a word of the tracee's memory, or the errno (a word
/// of all ones is data: nix clears errno first and tells them apart).
pub fn peek_data(tid: i32, at: u64) -> Result<u64, i32> {
    np::read(pid(tid), addr(at))
        .map(|v| v as u64)
        .map_err(|e| e as i32)
}

/// `PTRACE_POKEDATA`: writes a word of the tracee's memory, whatever the
/// page's protection (breakpoints are planted this way or through
/// `/proc/PID/mem`; `process_vm_writev` respects protection).
pub fn poke_data(tid: i32, at: u64, word: u64) -> io::Result<()> {
    Ok(np::write(pid(tid), addr(at), word as libc::c_long)?)
}

/// `PTRACE_PEEKUSER`: a word of `struct user` (debug registers live there).
pub fn peek_user(tid: i32, offset: usize) -> io::Result<u64> {
    Ok(np::read_user(pid(tid), offset as np::AddressType)? as u64)
}

/// `PTRACE_POKEUSER`: writes a word of `struct user`.
pub fn poke_user(tid: i32, offset: usize, value: u64) -> io::Result<()> {
    Ok(np::write_user(
        pid(tid),
        offset as np::AddressType,
        value as libc::c_long,
    )?)
}

/// `PTRACE_GETEVENTMSG`.
pub fn event_msg(tid: i32) -> io::Result<u64> {
    Ok(np::getevent(pid(tid))? as u64)
}

/// `PTRACE_GETSIGINFO` as the raw 128 bytes of a `siginfo_t` (the caller
/// decodes the fields of each signal's union member).
pub fn siginfo(tid: i32) -> io::Result<[u8; 128]> {
    let si = np::getsiginfo(pid(tid))?;
    // SAFETY: siginfo_t is 128 bytes of plain integers (no padding, no
    // pointers the caller could follow): any byte view of it is valid.
    Ok(unsafe { std::mem::transmute::<libc::siginfo_t, [u8; 128]>(si) })
}

/// Bytes of x86_64's `user_regs_struct` (`PTRACE_GETREGS`).
#[cfg(target_arch = "x86_64")]
pub const USER_REGS_BYTES: usize = 27 * 8;

/// x86_64's `user_regs_struct` as the 27 words of its kernel layout.
#[cfg(target_arch = "x86_64")]
fn regs_words(r: &libc::user_regs_struct) -> [u64; 27] {
    [
        r.r15, r.r14, r.r13, r.r12, r.rbp, r.rbx, r.r11, r.r10, r.r9, r.r8, r.rax, r.rcx, r.rdx,
        r.rsi, r.rdi, r.orig_rax, r.rip, r.cs, r.eflags, r.rsp, r.ss, r.fs_base, r.gs_base, r.ds,
        r.es, r.fs, r.gs,
    ]
}

/// The inverse of [`regs_words`].
#[cfg(target_arch = "x86_64")]
fn words_regs(w: &[u64]) -> libc::user_regs_struct {
    libc::user_regs_struct {
        r15: w[0],
        r14: w[1],
        r13: w[2],
        r12: w[3],
        rbp: w[4],
        rbx: w[5],
        r11: w[6],
        r10: w[7],
        r9: w[8],
        r8: w[9],
        rax: w[10],
        rcx: w[11],
        rdx: w[12],
        rsi: w[13],
        rdi: w[14],
        orig_rax: w[15],
        rip: w[16],
        cs: w[17],
        eflags: w[18],
        rsp: w[19],
        ss: w[20],
        fs_base: w[21],
        gs_base: w[22],
        ds: w[23],
        es: w[24],
        fs: w[25],
        gs: w[26],
    }
}

/// `PTRACE_GETREGS` into `words` (at least [`USER_REGS_BYTES`], else
/// EINVAL).
#[cfg(target_arch = "x86_64")]
pub fn get_regs(tid: i32, words: &mut [u64]) -> io::Result<()> {
    if std::mem::size_of_val(words) < USER_REGS_BYTES {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let r = np::getregs(pid(tid))?;
    words[..27].copy_from_slice(&regs_words(&r));
    Ok(())
}

/// `PTRACE_SETREGS` from `words` (at least [`USER_REGS_BYTES`], else
/// EINVAL).
#[cfg(target_arch = "x86_64")]
pub fn set_regs(tid: i32, words: &[u64]) -> io::Result<()> {
    if std::mem::size_of_val(words) < USER_REGS_BYTES {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    Ok(np::setregs(pid(tid), words_regs(words))?)
}

pub use raw::{
    get_regset, get_regset_words, get_sigmask, listen, resume, set_regset_words, set_sigmask,
    syscall_info, Resume,
};

/// The requests nix cannot make, raw.
mod raw {
    use std::io;

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
    unsafe fn ptrace(
        req: libc::c_uint,
        tid: i32,
        addr: usize,
        data: usize,
    ) -> io::Result<libc::c_long> {
        super::super::set_errno(0);
        // SAFETY: the caller's contract above.
        check(unsafe { libc::ptrace(req, tid, addr, data) })
    }

    /// The restarts: each delivers a raw signal number.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Resume {
        /// `PTRACE_CONT`.
        Cont,
        /// `PTRACE_SYSCALL`.
        Syscall,
        /// `PTRACE_SINGLESTEP`.
        SingleStep,
        /// `PTRACE_DETACH`.
        Detach,
    }

    /// Restarts (or detaches from) `tid`, delivering signal `sig` (0 for
    /// none).
    ///
    /// Raw, not nix's `cont`/`syscall`/`step`/`detach`: they take nix's
    /// `Signal`, which cannot hold real-time signals (32..=64; glibc uses 32
    /// and 33 in every threaded program), and a stop's signal must be
    /// delivered whatever its number. One path for every signal, so the
    /// real-time case runs as often as the common one.
    pub fn resume(how: Resume, tid: i32, sig: i32) -> io::Result<()> {
        let req = match how {
            Resume::Cont => libc::PTRACE_CONT,
            Resume::Syscall => libc::PTRACE_SYSCALL,
            Resume::SingleStep => libc::PTRACE_SINGLESTEP,
            Resume::Detach => libc::PTRACE_DETACH,
        };
        // SAFETY: these requests take `data` as a signal number, an integer.
        unsafe { ptrace(req, tid, 0, sig as u32 as usize) }.map(drop)
    }

    /// `PTRACE_LISTEN`: leaves a group-stopped tracee stopped but lets it
    /// report SIGCONT and new events. Raw: nix has no listen request.
    pub fn listen(tid: i32) -> io::Result<()> {
        // SAFETY: LISTEN takes no addr or data.
        unsafe { ptrace(libc::PTRACE_LISTEN, tid, 0, 0) }.map(drop)
    }

    /// `PTRACE_GETREGSET(nt)` into `buf`: the bytes the kernel filled (at
    /// most `buf`'s size).
    ///
    /// Raw: nix's `getregset` knows only `NT_PRSTATUS` and `NT_PRFPREG` as
    /// fixed-size structs and drops the length the kernel reports, which
    /// tells a 32-bit task's register layout from a 64-bit one and sizes
    /// the extended regsets (XSTATE, aarch64's debug registers).
    pub fn get_regset(tid: i32, nt: usize, buf: &mut [u8]) -> io::Result<usize> {
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        // SAFETY: `iov` describes `buf`, ours; the kernel writes at most
        // `iov_len` bytes there and updates `iov`.
        unsafe {
            ptrace(
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
            ptrace(
                libc::PTRACE_GETREGSET,
                tid,
                nt,
                &mut iov as *mut libc::iovec as usize,
            )?
        };
        Ok(iov.iov_len)
    }

    /// `PTRACE_SETREGSET(nt)` from `words` (raw, as [`get_regset`]).
    pub fn set_regset_words(tid: i32, nt: usize, words: &[u64]) -> io::Result<()> {
        let mut iov = libc::iovec {
            iov_base: words.as_ptr() as *mut libc::c_void,
            iov_len: std::mem::size_of_val(words),
        };
        // SAFETY: `iov` describes `words`, ours; SETREGSET only reads it.
        unsafe {
            ptrace(
                libc::PTRACE_SETREGSET,
                tid,
                nt,
                &mut iov as *mut libc::iovec as usize,
            )?
        };
        Ok(())
    }

    /// `PTRACE_GETSIGMASK`: the thread's blocked-signal mask (kernel
    /// `sigset_t`, real-time signals included). Raw: nix has no sigmask
    /// requests.
    pub fn get_sigmask(tid: i32) -> io::Result<u64> {
        let mut m: u64 = 0;
        // SAFETY: the kernel writes `addr` = 8 bytes into `m`, ours.
        unsafe { ptrace(libc::PTRACE_GETSIGMASK, tid, 8, &mut m as *mut u64 as usize)? };
        Ok(m)
    }

    /// `PTRACE_SETSIGMASK`: sets the thread's blocked-signal mask (raw, as
    /// [`get_sigmask`]).
    pub fn set_sigmask(tid: i32, mask: u64) -> io::Result<()> {
        // SAFETY: the kernel reads `addr` = 8 bytes from `mask`, ours.
        unsafe {
            ptrace(
                libc::PTRACE_SETSIGMASK,
                tid,
                8,
                &mask as *const u64 as usize,
            )?
        };
        Ok(())
    }

    /// `PTRACE_GET_SYSCALL_INFO` (Linux 5.3): the raw `struct
    /// ptrace_syscall_info` as eleven words, zero past what the kernel
    /// wrote (the caller decodes it).
    ///
    /// Raw: nix's `syscall_info` reads the struct as fully written, but the
    /// kernel writes only the part for the stop (24 bytes when it is no
    /// syscall stop, 40 at an exit, 80 at an entry): the rest would be
    /// uninitialised memory. Here it starts zeroed.
    pub fn syscall_info(tid: i32) -> io::Result<[u64; 11]> {
        const PTRACE_GET_SYSCALL_INFO: libc::c_uint = 0x420e;
        let mut raw_info = [0u64; 11];
        // SAFETY: the kernel writes at most `addr` bytes (the size of
        // `raw_info`) into `raw_info`, ours.
        unsafe {
            ptrace(
                PTRACE_GET_SYSCALL_INFO,
                tid,
                std::mem::size_of_val(&raw_info),
                raw_info.as_mut_ptr() as usize,
            )?
        };
        Ok(raw_info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::process;

    static WORD: u64 = 0x1122_3344_5566_7788;

    /// Seizes a held child, stops it, reads and writes through the nix
    /// requests, then restarts it with a real-time signal through the raw
    /// path: the child dies of that very signal.
    #[test]
    fn nix_requests_and_a_real_time_restart() {
        let held = process::fork_held(|gate| {
            gate.wait();
            // Bounded: a failing test must not leave it behind.
            std::thread::sleep(std::time::Duration::from_secs(20));
            process::exit_now(0)
        })
        .unwrap();
        let tid = held.pid;
        seize(tid, libc::PTRACE_O_TRACESYSGOOD).unwrap();
        interrupt(tid).unwrap();
        let (_, st) = process::wait4(tid, libc::__WALL, None).unwrap();
        assert!(libc::WIFSTOPPED(st), "status {st:#x}");
        assert_eq!(st >> 16, libc::PTRACE_EVENT_STOP);
        assert_eq!(
            i32::from_ne_bytes(siginfo(tid).unwrap()[..4].try_into().unwrap()),
            libc::SIGTRAP
        );
        event_msg(tid).unwrap();
        set_options(tid, libc::PTRACE_O_TRACESYSGOOD | libc::PTRACE_O_TRACEEXIT).unwrap();

        // PEEKDATA sees the child's copy; POKEDATA writes it although the
        // page is read-only (a static in .rodata), as breakpoints need.
        let at = &WORD as *const u64 as u64;
        assert_eq!(peek_data(tid, at), Ok(WORD));
        poke_data(tid, at, !WORD).unwrap();
        assert_eq!(peek_data(tid, at), Ok(!WORD));
        assert_eq!(peek_data(tid, 8), Err(libc::EIO));

        #[cfg(target_arch = "x86_64")]
        {
            let mut words = [0u64; 27];
            get_regs(tid, &mut words).unwrap();
            assert_ne!(words[16], 0, "rip");
            set_regs(tid, &words).unwrap();
            let mut again = [0u64; 27];
            get_regs(tid, &mut again).unwrap();
            assert_eq!(words, again);
            let mut raw = [0u64; 27];
            let n = get_regset_words(tid, 1 /* NT_PRSTATUS */, &mut raw).unwrap();
            assert_eq!(n, USER_REGS_BYTES);
            assert_eq!(raw, words);
            assert!(peek_user(tid, 16 * 8).unwrap() == words[16]);
        }

        // A real-time signal sent through the raw kill path stops the
        // child in signal-delivery-stop; the raw restart delivers it.
        let rt = libc::SIGRTMIN() + 2;
        resume(Resume::Cont, tid, 0).unwrap();
        held.opener.open();
        process::kill(tid, rt).unwrap();
        let (_, st) = process::wait4(tid, libc::__WALL, None).unwrap();
        assert!(
            libc::WIFSTOPPED(st) && libc::WSTOPSIG(st) == rt,
            "status {st:#x}"
        );
        resume(Resume::Cont, tid, rt).unwrap();
        let st = loop {
            let (_, st) = process::wait4(tid, libc::__WALL, None).unwrap();
            if libc::WIFSIGNALED(st) {
                break st;
            }
            // PTRACE_EVENT_EXIT stop on the way out.
            resume(Resume::Cont, tid, 0).unwrap();
        };
        assert_eq!(libc::WTERMSIG(st), rt);
    }
}
