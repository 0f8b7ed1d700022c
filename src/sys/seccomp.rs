//! Installing a seccomp-bpf filter. Raw `seccomp(2)` syscall: nix has no
//! seccomp.

/// One classic-BPF instruction (`struct sock_filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Insn {
    /// Opcode.
    pub code: u16,
    /// Jump offset if true.
    pub jt: u8,
    /// Jump offset if false.
    pub jf: u8,
    /// Constant.
    pub k: u32,
}

/// Installs `prog` in the calling process, after setting no-new-privs
/// (needed when not privileged). Called in a forked child just before
/// exec: async-signal-safe.
pub fn install(prog: &[Insn]) -> std::io::Result<()> {
    #[repr(C)]
    struct SockFprog {
        len: u16,
        filter: *const Insn,
    }
    let fprog = SockFprog {
        len: prog.len() as u16,
        filter: prog.as_ptr(),
    };
    super::process::no_new_privs()?;
    // SAFETY: `fprog` points at `prog`, alive and unchanged for the call,
    // and counts no more instructions than it holds; the kernel copies the
    // program.
    let r = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            1, /* SECCOMP_SET_MODE_FILTER */
            0,
            &fprog as *const SockFprog,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
