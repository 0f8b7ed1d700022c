//! Details of anonymous-inode descriptors for `--decode-fds`, read from
//! `/proc/PID/fdinfo/N` as strace 7.2 reads them: the process of a pidfd
//! (`pid:1234`), an eventfd's counter, id and mode
//! (`{eventfd-count=0x5, eventfd-id=1, eventfd-semaphore=1}`) and a
//! signalfd's mask (`signalfd:[USR1 RT_4]`). `None` when the fdinfo or
//! its line is missing (the descriptor was closed, an older kernel).

use crate::syscall::signal::sigset_text;

/// The fdinfo text of descriptor `fd` of `pid`.
fn fdinfo(pid: i32, fd: i64) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).ok()
}

/// The trimmed value of the `key` line of `info`.
fn field<'a>(info: &'a str, key: &str) -> Option<&'a str> {
    info.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .map(str::trim)
}

/// The process a pidfd refers to: the `Pid:` line of its fdinfo (`None`
/// when it has exited, `-1`, or the line is missing).
pub(super) fn pidfd_pid(pid: i32, fd: i64) -> Option<i64> {
    let n: i64 = field(&fdinfo(pid, fd)?, "Pid")?.parse().ok()?;
    (n > 0).then_some(n)
}

/// `{eventfd-count=0x5, eventfd-id=1, eventfd-semaphore=1}`: the counter
/// (hex in the fdinfo, `%#x` here), the eventfd's id and whether it counts
/// as a semaphore.
pub(super) fn eventfd(pid: i32, fd: i64) -> Option<String> {
    let info = fdinfo(pid, fd)?;
    let count = u64::from_str_radix(field(&info, "eventfd-count")?, 16).ok()?;
    let id: u64 = field(&info, "eventfd-id")?.parse().ok()?;
    let sem: u64 = field(&info, "eventfd-semaphore")?.parse().ok()?;
    let count = if count == 0 {
        "0".to_string()
    } else {
        format!("{count:#x}")
    };
    Some(format!(
        "{{eventfd-count={count}, eventfd-id={id}, eventfd-semaphore={sem}}}"
    ))
}

/// `signalfd:[USR1 RT_4]`: the fdinfo's `sigmask` (hex) as a signal set
/// in the `-X` style `style`.
pub(super) fn signalfd(pid: i32, fd: i64, style: u8) -> Option<String> {
    let info = fdinfo(pid, fd)?;
    let mask = u64::from_str_radix(field(&info, "sigmask")?, 16).ok()?;
    Some(format!(
        "signalfd:{}",
        sigset_text(style, &mask.to_le_bytes())
    ))
}
