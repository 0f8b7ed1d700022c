//! The names ltrace 0.7.3 gives system calls (`SYS_openat`, `SYS_334`).
//!
//! ltrace names x86-64 calls from a table made from the kernel headers of
//! its day: it ends at `process_vm_writev`, so later calls print as their
//! number, and four entries carry the older names below. Both facts were
//! read from ltrace's own output (`ltrace -S` on `syscall(N)` for each
//! case); the numbers themselves come from rtrace's table, never typed
//! here. Other personalities use the kernel's names (no oracle there).

use crate::syscall::SyscallTable;
use rtrace_arch::Arch;
use std::sync::OnceLock;

/// The last call in ltrace 0.7.3's x86-64 table.
const X86_64_LAST: &str = "process_vm_writev";

/// Kernel name -> ltrace 0.7.3's name, where they differ (x86-64).
const X86_64_RENAMED: &[(&str, &str)] = &[
    ("pread64", "pread"),
    ("pwrite64", "pwrite"),
    ("epoll_ctl_old", "epoll_ctl"),
    ("epoll_wait_old", "epoll_wait"),
];

fn x86_64_last() -> u64 {
    static LAST: OnceLock<u64> = OnceLock::new();
    *LAST.get_or_init(|| {
        SyscallTable::get(Arch::X86_64)
            .iter()
            .find(|(_, e)| e.name == Some(X86_64_LAST))
            .map_or(u64::MAX, |(nr, _)| nr)
    })
}

/// `SYS_NAME` as ltrace prints syscall `nr` of personality `arch`.
pub fn ltrace_name(arch: Arch, nr: u64) -> String {
    let name = SyscallTable::get(arch).entry(nr).name;
    match (arch, name) {
        (Arch::X86_64, _) if nr > x86_64_last() => format!("SYS_{nr}"),
        (Arch::X86_64, Some(n)) => {
            let n = X86_64_RENAMED
                .iter()
                .find(|(k, _)| *k == n)
                .map_or(n, |(_, old)| old);
            format!("SYS_{n}")
        }
        (_, Some(n)) => format!("SYS_{n}"),
        (_, None) => format!("SYS_{nr}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nr(name: &str) -> u64 {
        SyscallTable::get(Arch::X86_64)
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
        assert_eq!(ltrace_name(x, nr(X86_64_LAST)), "SYS_process_vm_writev");
        let rseq = nr("rseq");
        assert_eq!(ltrace_name(x, rseq), format!("SYS_{rseq}"));
        assert_eq!(ltrace_name(x, 99999), "SYS_99999");
    }
}
