//! Is rstrace's syscall table complete for the running kernel? Every number
//! the table has no name for, up to 64 past its end, must be one the kernel
//! answers with ENOSYS. The calls (all arguments zero) are made in a forked
//! child, so a syscall that does something drastic when called out of
//! context (uretprobe raises SIGILL) cannot harm the test; the child reports
//! each number before trying it.

use rtrace_arch::Arch;
use std::io::Read;
use std::os::fd::FromRawFd;

/// The numbers of `arch` the kernel implements that the table does not name.
fn unnamed_but_implemented(arch: Arch) -> Vec<u64> {
    let unnamed: Vec<u64> = (0..arch.table_len() as u64 + 64)
        .filter(|&nr| arch.syscall_name(nr).is_none())
        .collect();
    let mut fds = [0i32; 2];
    // SAFETY: plain pipe2(2). Close-on-exec: a command another test starts
    // meanwhile must not keep the write end open (the fork below keeps it).
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: the child only calls async-signal-safe functions (syscall,
    // write, _exit) before it exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        for &nr in &unnamed {
            // SAFETY: raw syscall with zero arguments in a throwaway child.
            let r = unsafe { libc::syscall(nr as libc::c_long, 0, 0, 0, 0, 0, 0) };
            let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
            let implemented = u8::from(!(r == -1 && errno == libc::ENOSYS));
            let rec = [nr.to_le_bytes().as_slice(), &[implemented]].concat();
            // SAFETY: writing a local buffer to our pipe.
            unsafe { libc::write(fds[1], rec.as_ptr().cast(), rec.len()) };
        }
        // SAFETY: leave the child without running destructors.
        unsafe { libc::_exit(0) };
    }
    // SAFETY: closing our copy of the write end; the read end becomes a File.
    unsafe { libc::close(fds[1]) };
    let mut data = Vec::new();
    unsafe { std::fs::File::from_raw_fd(fds[0]) }
        .read_to_end(&mut data)
        .expect("read");
    let mut status = 0;
    // SAFETY: reaping our child.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let mut found: Vec<u64> = data
        .chunks(9)
        .filter(|r| r.len() == 9 && r[8] == 1)
        .map(|r| u64::from_le_bytes(r[..8].try_into().unwrap()))
        .collect();
    // A number the child did not report back killed it: implemented.
    if let Some(&next) = unnamed.get(data.len() / 9) {
        found.push(next);
    }
    found
}

#[test]
fn table_names_every_syscall_of_this_kernel() {
    let arch = Arch::native();
    let missing = unnamed_but_implemented(arch);
    assert!(
        missing.is_empty(),
        "the running kernel implements {arch:?} syscalls the table does not name: {missing:?}"
    );
}
