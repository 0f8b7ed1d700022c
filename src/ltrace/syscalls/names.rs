//! The names ltrace 0.7.3 gives system calls (`SYS_openat`, `SYS_334`).
//!
//! ltrace names calls from tables made from the kernel headers of its day.
//! Both its x86-64 and its i386 table end at `process_vm_writev`, so later
//! calls print as their number. On x86-64 four entries carry the older
//! names below; on i386 `madvise` is `madvise1` and two runs of calls
//! (the POSIX timers and clocks, and the message queues after `mq_open`)
//! have no name. These facts were read from ltrace's own output (`ltrace
//! -S` on testprogs/lt_sysnames.c, which makes every number from 0 to 470
//! once, 64-bit and `-m32`); the numbers themselves come from rtrace's
//! tables, never typed here. Other personalities use the kernel's names
//! (no oracle there).

use crate::syscall::SyscallTable;
use rtrace_arch::Arch;
use std::sync::OnceLock;

/// The last call in ltrace 0.7.3's x86-64 and i386 tables.
const LAST_NAMED: &str = "process_vm_writev";

/// Kernel name -> ltrace 0.7.3's name, where they differ (x86-64).
const X86_64_RENAMED: &[(&str, &str)] = &[
    ("pread64", "pread"),
    ("pwrite64", "pwrite"),
    ("epoll_ctl_old", "epoll_ctl"),
    ("epoll_wait_old", "epoll_wait"),
];

/// Kernel name -> ltrace 0.7.3's name, where they differ (i386).
const I386_RENAMED: &[(&str, &str)] = &[("madvise", "madvise1")];

/// i386 calls ltrace 0.7.3's table leaves without a name (printed as
/// their number).
const I386_UNNAMED: &[&str] = &[
    "timer_settime",
    "timer_gettime",
    "timer_getoverrun",
    "timer_delete",
    "clock_settime",
    "clock_gettime",
    "clock_getres",
    "clock_nanosleep",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
];

/// The number of `process_vm_writev`, the last call of both of ltrace's
/// tables, in personality `arch`.
fn last_of(arch: Arch) -> u64 {
    static LAST: OnceLock<[u64; 2]> = OnceLock::new();
    let last = LAST.get_or_init(|| {
        [Arch::X86_64, Arch::I386].map(|a| {
            SyscallTable::get(a)
                .iter()
                .find(|(_, e)| e.name == Some(LAST_NAMED))
                .map_or(u64::MAX, |(nr, _)| nr)
        })
    });
    last[usize::from(arch == Arch::I386)]
}

fn renamed<'a>(table: &[(&str, &'a str)], name: &'a str) -> &'a str {
    table
        .iter()
        .find(|(k, _)| *k == name)
        .map_or(name, |(_, old)| old)
}

/// `SYS_NAME` as ltrace prints syscall `nr` of personality `arch`.
pub fn ltrace_name(arch: Arch, nr: u64) -> String {
    let name = SyscallTable::get(arch).entry(nr).name;
    let ltrace_table = matches!(arch, Arch::X86_64 | Arch::I386);
    match (arch, name) {
        _ if ltrace_table && nr > last_of(arch) => format!("SYS_{nr}"),
        (Arch::X86_64, Some(n)) => format!("SYS_{}", renamed(X86_64_RENAMED, n)),
        (Arch::I386, Some(n)) if I386_UNNAMED.contains(&n) => format!("SYS_{nr}"),
        (Arch::I386, Some(n)) => format!("SYS_{}", renamed(I386_RENAMED, n)),
        (_, Some(n)) => format!("SYS_{n}"),
        (_, None) => format!("SYS_{nr}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nr(name: &str) -> u64 {
        nr_of(Arch::X86_64, name)
    }

    fn nr_of(arch: Arch, name: &str) -> u64 {
        SyscallTable::get(arch)
            .iter()
            .find(|(_, e)| e.name == Some(name))
            .map(|(n, _)| n)
            .unwrap()
    }

    #[test]
    fn names_as_ltrace_0_7_3() {
        let x = Arch::X86_64;
        assert_eq!(ltrace_name(x, nr("openat")), "SYS_openat");
        assert_eq!(ltrace_name(x, nr("pread64")), "SYS_pread");
        assert_eq!(ltrace_name(x, nr("epoll_wait_old")), "SYS_epoll_wait");
        assert_eq!(ltrace_name(x, nr("epoll_wait")), "SYS_epoll_wait");
        assert_eq!(ltrace_name(x, nr(LAST_NAMED)), "SYS_process_vm_writev");
        let rseq = nr("rseq");
        assert_eq!(ltrace_name(x, rseq), format!("SYS_{rseq}"));
        assert_eq!(ltrace_name(x, 99999), "SYS_99999");
    }

    #[test]
    fn i386_names_as_ltrace_0_7_3() {
        let i = Arch::I386;
        let n = |name| nr_of(i, name);
        assert_eq!(ltrace_name(i, n("mmap2")), "SYS_mmap2");
        assert_eq!(ltrace_name(i, n("madvise")), "SYS_madvise1");
        let t = n("timer_settime");
        assert_eq!(ltrace_name(i, t), format!("SYS_{t}"));
        assert_eq!(ltrace_name(i, n("mq_open")), "SYS_mq_open");
        let last = n(LAST_NAMED);
        assert_eq!(ltrace_name(i, last), "SYS_process_vm_writev");
        assert_eq!(ltrace_name(i, last + 1), format!("SYS_{}", last + 1));
    }
}
