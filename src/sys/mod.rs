//! The one home of libc calls and `unsafe` outside `arch/`: safe wrappers,
//! one file per concern, each raw call with its `// SAFETY:` reason. The
//! process's own facts (the name it was run as, the C library's error
//! messages, the page size, the clock, uname) are here too.
//!
//! This is the lowest layer above `rtrace_arch`: it imports nothing from the
//! crate, so anything may use it.
//!
//! Every call nix wraps goes through nix: fork, pipe2, kill, sigaction,
//! sigprocmask, raise, credentials, resource limits, no-new-privs,
//! `process_vm_readv`/`writev`, `sched_setaffinity`, `sched_getcpu`,
//! uname, sysconf, clock_gettime, mount, errno, netlink sockets with
//! send/recv, and the ptrace requests
//! nix has (seize, interrupt, setoptions, peek/poke of data and user
//! area, event message, siginfo, x86_64's GETREGS/SETREGS). Raw libc stays
//! where nix cannot serve, each next to its call with the reason:
//!
//! - real-time signals (32..=64), which nix's `Signal` cannot represent
//!   and glibc uses in every threaded program: the wait status
//!   (`process.rs`: waitpid, wait4; decoded by `engine/status.rs`), the
//!   ptrace restarts that deliver a signal (`ptrace.rs`), and kill,
//!   sigaction, raise, signal-set bits and disposition queries of any
//!   number (`signal_raw.rs`, also `tgkill`, which nix lacks);
//! - requests nix lacks or gets wrong for rtrace: `PTRACE_LISTEN`,
//!   `GET/SETSIGMASK`, regsets of any size (nix drops the length),
//!   `PTRACE_GET_SYSCALL_INFO` (nix reads the struct as fully written),
//!   kcmp, `PR_SET_PTRACER`, the `sched_getaffinity` byte count,
//!   `_exit`, localtime, strerror (nix's messages are its own),
//!   `if_indextoname` (nix takes NULL for a name);
//! - `mmap`/`munmap` of whole files for the symbol readers go through nix
//!   (`mapped.rs`); what is raw there is the slice over the mapping and the
//!   `Send`/`Sync`/stable-address promises gimli needs;
//! - async-signal-safety: exec (nix builds its argv array at the call)
//!   and the signal handler's waker `clone` (`process.rs`);
//! - descriptors as bare numbers crossing fork (`fd.rs`: nix takes
//!   `AsFd`/`OwnedFd` there, and its fd-number `flock` is deprecated);
//! - what nix does not wrap: seccomp filter install (`seccomp.rs`),
//!   `perf_event_open` (`perf.rs`), regcomp (`regex.rs`), getxattr
//!   (`net.rs`), the namespace ioctl.
//!
//! Wrappers documented as async-signal-safe allocate nothing and take no
//! lock (nix's sigaction, sigprocmask, fork, pipe2 and setgroups are thin
//! wrappers): they are the ones a forked child may call before exec or
//! `_exit`, and the ones rtrace's signal handlers call.

pub mod fd;
pub mod mapped;
pub mod mem;
pub mod net;
pub mod perf;
pub mod process;
pub mod ptrace;
pub mod regex;
pub mod sched;
pub mod seccomp;
pub mod signal;
pub mod signal_raw;

/// The name this process was run as (argv[0]), as strace prints it in
/// its own messages (`strace: umovestr: ...`); "strace" when it has none.
pub fn prog() -> &'static str {
    static PROG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PROG.get_or_init(|| {
        std::env::args_os()
            .next()
            .map(|a| a.to_string_lossy().into_owned())
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| "strace".to_string())
    })
}

/// The C library's message for `errno` (`strerror`), as strace prints it.
pub fn strerror(errno: i32) -> String {
    let mut out = None;
    strerror_with(errno, |b| {
        out = Some(String::from_utf8_lossy(b).into_owned())
    });
    out.unwrap_or_else(|| format!("Unknown error {errno}"))
}

/// Calls `f` with the C library's message for `errno` (not called when
/// there is none). Allocates nothing: a forked child may use it, while it
/// is single-threaded (strerror's buffer for unknown numbers is shared).
/// Raw: nix's `Errno::desc` is nix's own table, not the C library's
/// messages strace prints.
pub fn strerror_with(errno: i32, f: impl FnOnce(&[u8])) {
    // SAFETY: strerror returns a pointer to a static or thread-local,
    // NUL-terminated message; it is used before any other libc call.
    let p = unsafe { libc::strerror(errno) };
    if p.is_null() {
        return;
    }
    // SAFETY: non-null, NUL-terminated (see above).
    f(unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes())
}

/// The calling thread's `errno` (0 when the last call set none).
/// Async-signal-safe.
pub fn errno() -> i32 {
    nix::errno::Errno::last_raw()
}

/// Sets the calling thread's `errno` (to 0 before a call whose result
/// cannot tell failure, as `PTRACE_PEEK*`).
pub fn set_errno(e: i32) {
    nix::errno::Errno::set_raw(e)
}

/// The page size of this machine (4096 when sysconf cannot tell).
pub fn page_size() -> usize {
    static SIZE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *SIZE.get_or_init(
        || match nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE) {
            Ok(Some(n)) if n > 0 => n as usize,
            _ => 4096,
        },
    )
}

/// `CLOCK_MONOTONIC` now, in ns.
pub fn mono_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC).unwrap_or(0) as u64
}

/// `clock_gettime(clock)` in ns; `None` when the clock is unknown.
pub fn clock_ns(clock: libc::clockid_t) -> Option<i128> {
    let ts = nix::time::clock_gettime(nix::time::ClockId::from_raw(clock)).ok()?;
    Some(i128::from(ts.tv_sec()) * 1_000_000_000 + i128::from(ts.tv_nsec()))
}

/// The local time zone's offset from UTC at `sec` (seconds east), as
/// `localtime` sees it. Raw: nix has no localtime.
pub fn utc_offset(sec: i64) -> Option<i64> {
    let t = libc::time_t::try_from(sec).ok()?;
    // SAFETY: tm is integers and a pointer; all-zero is a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: localtime_r reads `t` and writes only into `tm`, both locals.
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        return None;
    }
    Some(tm.tm_gmtoff)
}

/// Local time of day (hours, minutes, seconds) of `secs` since the epoch.
pub fn local_hms(secs: i64) -> (i64, i64, i64) {
    // SAFETY: tm is plain integers (and a pointer localtime_r sets); all-zero
    // is a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let t: libc::time_t = secs as libc::time_t;
    // SAFETY: localtime_r reads `t` and writes `tm`, both locals.
    unsafe { libc::localtime_r(&t, &mut tm) };
    (tm.tm_hour as i64, tm.tm_min as i64, tm.tm_sec as i64)
}

/// (nodename, release) from uname(2); empty on failure.
pub fn uname() -> (String, String) {
    match nix::sys::utsname::uname() {
        Ok(u) => (
            u.nodename().to_string_lossy().into_owned(),
            u.release().to_string_lossy().into_owned(),
        ),
        Err(_) => (String::new(), String::new()),
    }
}

/// The effective user id.
pub fn euid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// `mount(source, target, fstype, 0, NULL)`.
pub fn mount(
    source: &std::ffi::CStr,
    target: &std::ffi::CStr,
    fstype: &std::ffi::CStr,
) -> std::io::Result<()> {
    Ok(nix::mount::mount(
        Some(source),
        target,
        Some(fstype),
        nix::mount::MsFlags::empty(),
        None::<&std::ffi::CStr>,
    )?)
}
