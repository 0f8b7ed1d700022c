//! The `ptrace(2)` and `wait4(2)` calls the engine uses, named by what they
//! do; the calls themselves (through nix, or raw where nix cannot make
//! them) are in `crate::sys::ptrace` and `crate::sys::process`.
//!
//! Raw signal numbers on purpose: nix's `Signal` cannot hold real-time
//! signals, so a wait or restart through it would lose them (glibc uses
//! signals 32 and 33 in every threaded program).

use crate::sys::ptrace::{self as sys, Resume};
use std::io;

/// A thread id.
pub type Tid = i32;

/// Ptrace option bits.
pub mod opts {
    /// Syscall stops are `SIGTRAP | 0x80`.
    pub const TRACESYSGOOD: libc::c_int = 1;
    /// Follow fork.
    pub const TRACEFORK: libc::c_int = 1 << 1;
    /// Follow vfork.
    pub const TRACEVFORK: libc::c_int = 1 << 2;
    /// Follow clone (threads and clone-created processes).
    pub const TRACECLONE: libc::c_int = 1 << 3;
    /// Stop at exec.
    pub const TRACEEXEC: libc::c_int = 1 << 4;
    /// Stop when the vfork child releases the parent.
    pub const TRACEVFORKDONE: libc::c_int = 1 << 5;
    /// Stop before exit.
    pub const TRACEEXIT: libc::c_int = 1 << 6;
    /// Stop on `SECCOMP_RET_TRACE`.
    pub const TRACESECCOMP: libc::c_int = 1 << 7;
    /// Kill tracees when the tracer exits.
    pub const EXITKILL: libc::c_int = 1 << 20;
}

/// `PTRACE_SEIZE` with `options`.
pub fn seize(tid: Tid, options: libc::c_int) -> io::Result<()> {
    sys::seize(tid, options)
}

/// `PTRACE_INTERRUPT`: stop a seized tracee (it reports `PTRACE_EVENT_STOP`).
pub fn interrupt(tid: Tid) -> io::Result<()> {
    sys::interrupt(tid)
}

/// `PTRACE_SETOPTIONS`.
pub fn set_options(tid: Tid, options: libc::c_int) -> io::Result<()> {
    sys::set_options(tid, options)
}

/// Restart with `PTRACE_SYSCALL`, delivering `sig` (0 for none).
pub fn syscall(tid: Tid, sig: i32) -> io::Result<()> {
    sys::resume(Resume::Syscall, tid, sig)
}

/// Execute one instruction (`PTRACE_SINGLESTEP`), delivering `sig`.
pub fn singlestep(tid: Tid, sig: i32) -> io::Result<()> {
    sys::resume(Resume::SingleStep, tid, sig)
}

/// `PTRACE_PEEKUSER`: a word of `struct user` (debug registers live there).
pub fn peek_user(tid: Tid, offset: usize) -> io::Result<u64> {
    sys::peek_user(tid, offset)
}

/// `PTRACE_POKEUSER`: writes a word of `struct user`.
pub fn poke_user(tid: Tid, offset: usize, value: u64) -> io::Result<()> {
    sys::poke_user(tid, offset, value)
}

/// Restart with `PTRACE_CONT`, delivering `sig` (0 for none).
pub fn cont(tid: Tid, sig: i32) -> io::Result<()> {
    sys::resume(Resume::Cont, tid, sig)
}

/// `PTRACE_LISTEN`: leave a group-stopped tracee stopped but let it report
/// SIGCONT and new events.
pub fn listen(tid: Tid) -> io::Result<()> {
    sys::listen(tid)
}

/// `PTRACE_DETACH`, delivering `sig`.
pub fn detach(tid: Tid, sig: i32) -> io::Result<()> {
    sys::resume(Resume::Detach, tid, sig)
}

/// `PTRACE_GETEVENTMSG`: new child's tid, former tid at exec, exit status.
pub fn event_msg(tid: Tid) -> io::Result<u64> {
    sys::event_msg(tid)
}

/// `PTRACE_GETSIGINFO` into a raw 128-byte `siginfo_t`.
pub fn siginfo(tid: Tid) -> io::Result<[u8; 128]> {
    sys::siginfo(tid)
}

/// The thread's general registers into `words`; returns the bytes filled.
///
/// On x86_64 this is `PTRACE_GETREGS`: the 64-bit `user_regs_struct` for
/// every task, where `NT_PRSTATUS` would give a 32-bit task the i386 layout
/// (the arch crate tells the personality apart by the code segment).
/// Elsewhere `PTRACE_GETREGSET(NT_PRSTATUS)`.
pub fn get_regs(tid: Tid, words: &mut [u64]) -> io::Result<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        sys::get_regs(tid, words)?;
        Ok(sys::USER_REGS_BYTES)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        sys::get_regset_words(tid, 1 /* NT_PRSTATUS */, words)
    }
}

/// Writes the registers [`get_regs`] read (`PTRACE_SETREGS` on x86_64,
/// `PTRACE_SETREGSET(NT_PRSTATUS)` elsewhere).
pub fn set_regs(tid: Tid, words: &[u64]) -> io::Result<()> {
    #[cfg(target_arch = "x86_64")]
    {
        sys::set_regs(tid, words)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        sys::set_regset_words(tid, 1 /* NT_PRSTATUS */, words)
    }
}

/// What `PTRACE_GET_SYSCALL_INFO` reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyscallInfo {
    /// `PTRACE_SYSCALL_INFO_*`: 0 none, 1 entry, 2 exit, 3 seccomp.
    pub op: u8,
    /// `AUDIT_ARCH_*` of the syscall.
    pub arch: u32,
    /// Program counter.
    pub pc: u64,
    /// Stack pointer.
    pub sp: u64,
    /// Syscall number (entry, seccomp).
    pub nr: u64,
    /// Arguments (entry, seccomp).
    pub args: [u64; 6],
    /// Return value (exit).
    pub rval: i64,
    /// The return value is an error (exit).
    pub is_error: bool,
}

/// Operation codes of [`SyscallInfo::op`].
pub mod info_op {
    /// Not a syscall stop.
    pub const NONE: u8 = 0;
    /// Syscall-entry stop.
    pub const ENTRY: u8 = 1;
    /// Syscall-exit stop.
    pub const EXIT: u8 = 2;
    /// `PTRACE_EVENT_SECCOMP` stop.
    pub const SECCOMP: u8 = 3;
}

/// `PTRACE_GET_SYSCALL_INFO`.
pub fn get_syscall_info(tid: Tid) -> io::Result<SyscallInfo> {
    // struct ptrace_syscall_info: u8 op, u8 pad[3], u32 arch, u64 ip, u64 sp,
    // then a union: entry {u64 nr, u64 args[6]}, exit {s64 rval, u8 is_error},
    // seccomp {u64 nr, u64 args[6], u32 ret_data}.
    let raw = sys::syscall_info(tid)?;
    let op = (raw[0] & 0xff) as u8;
    let mut info = SyscallInfo {
        op,
        arch: (raw[0] >> 32) as u32,
        pc: raw[1],
        sp: raw[2],
        ..Default::default()
    };
    match op {
        info_op::ENTRY | info_op::SECCOMP => {
            info.nr = raw[3];
            info.args.copy_from_slice(&raw[4..10]);
        }
        info_op::EXIT => {
            info.rval = raw[3] as i64;
            info.is_error = raw[4] & 0xff != 0;
        }
        _ => {}
    }
    Ok(info)
}

/// Raw `wait4(-1, …, __WALL)`. Returns `(tid, status)`; `rusage` is filled
/// when given (for `-c` system-time accounting).
pub fn wait_any(rusage: Option<&mut libc::rusage>) -> io::Result<(Tid, i32)> {
    crate::sys::process::wait4(-1, libc::__WALL, rusage)
}

/// `tgkill(tgid, tid, sig)`.
pub fn tgkill(tgid: Tid, tid: Tid, sig: i32) -> io::Result<()> {
    crate::sys::process::tgkill(tgid, tid, sig)
}

/// `kill(pid, sig)`.
pub fn kill(pid: Tid, sig: i32) -> io::Result<()> {
    crate::sys::process::kill(pid, sig)
}

/// `PTRACE_GETSIGMASK`: the thread's blocked-signal mask (kernel `sigset_t`).
pub fn get_sigmask(tid: Tid) -> io::Result<u64> {
    sys::get_sigmask(tid)
}

/// `PTRACE_SETSIGMASK`: sets the thread's blocked-signal mask.
pub fn set_sigmask(tid: Tid, mask: u64) -> io::Result<()> {
    sys::set_sigmask(tid, mask)
}

/// Raw `wait4(tid, …, __WALL)` for one thread.
pub fn wait_tid(tid: Tid) -> io::Result<i32> {
    loop {
        match crate::sys::process::wait4(tid, libc::__WALL, None) {
            Ok((_, status)) => return Ok(status),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
            Err(e) => return Err(e),
        }
    }
}

/// Whether two tasks share one address space (`kcmp(KCMP_VM)`); `None`
/// when the kernel cannot tell (no `CONFIG_KCMP`).
pub fn same_vm(a: Tid, b: Tid) -> Option<bool> {
    crate::sys::process::same_vm(a, b)
}
