//! The `-P` rules: which arguments of a syscall name a path or a descriptor
//! (strace's `pathtrace_match_set`), and the set of paths `-P` selects.

use rtrace_arch::tables::Classes;
use rtrace_arch::Arch;
/// Which arguments of a syscall `-P` compares with the traced paths
/// (strace's `pathtrace_match_set`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathRule {
    /// Descriptors at `fds`, path strings at `paths` (argument indices).
    Args {
        /// Arguments holding a file descriptor.
        fds: &'static [usize],
        /// Arguments pointing to a path string.
        paths: &'static [usize],
    },
    /// i386 `mmap`: the descriptor is the fifth of six words at `arg0`.
    OldMmap,
    /// `select`-style fd sets at args 1..=3 (`nfds` at 0); `indirect`: the
    /// five arguments are in memory at `arg0` (i386 `select`).
    Select {
        /// i386 old select.
        indirect: bool,
    },
    /// `poll`-style `struct pollfd` array at arg0, count at arg1.
    Poll,
    /// `fsconfig`: path/fd depending on the command.
    Fsconfig,
}

const NO_ARGS: PathRule = PathRule::Args {
    fds: &[],
    paths: &[],
};

/// The `-P` rule of syscall `name` of personality `arch`.
pub fn path_rule(arch: Arch, name: &str, classes: Classes) -> PathRule {
    use PathRule::Args;
    let relevant = Classes::FILE.0 | Classes::DESC.0 | Classes::NETWORK.0;
    if classes.0 & relevant == 0 {
        return NO_ARGS;
    }
    match name {
        "dup2" | "dup3" | "kexec_file_load" | "sendfile" | "sendfile64" | "tee" => Args {
            fds: &[0, 1],
            paths: &[],
        },
        "execveat" | "faccessat" | "faccessat2" | "fchmodat" | "fchmodat2" | "fchownat"
        | "fspick" | "fstatat64" | "futimesat" | "getxattrat" | "inotify_add_watch" | "mkdirat"
        | "mknodat" | "mount_setattr" | "name_to_handle_at" | "newfstatat" | "open_tree"
        | "openat" | "openat2" | "readlinkat" | "setxattrat" | "statx" | "unlinkat"
        | "utimensat" | "utimensat_time64" => Args {
            fds: &[0],
            paths: &[1],
        },
        "link" | "mount" | "pivot_root" => Args {
            fds: &[],
            paths: &[0, 1],
        },
        "quotactl" | "symlink" => Args {
            fds: &[],
            paths: &[1],
        },
        "linkat" | "move_mount" | "renameat2" | "renameat" => Args {
            fds: &[0, 2],
            paths: &[1, 3],
        },
        "mmap" if arch == Arch::I386 => PathRule::OldMmap,
        "mmap" | "mmap2" => Args {
            fds: &[4],
            paths: &[],
        },
        "symlinkat" => Args {
            fds: &[1],
            paths: &[2],
        },
        "copy_file_range" | "splice" => Args {
            fds: &[0, 2],
            paths: &[],
        },
        "epoll_ctl" => Args {
            fds: &[2],
            paths: &[],
        },
        // The 64-bit mask takes one argument on 64-bit personalities, two on i386.
        "fanotify_mark" if arch == Arch::I386 => Args {
            fds: &[4],
            paths: &[5],
        },
        "fanotify_mark" => Args {
            fds: &[3],
            paths: &[4],
        },
        "select" if arch == Arch::I386 => PathRule::Select { indirect: true },
        "select" | "_newselect" | "pselect6" | "pselect6_time64" => {
            PathRule::Select { indirect: false }
        }
        "poll" | "ppoll" | "ppoll_time64" => PathRule::Poll,
        "fsconfig" => PathRule::Fsconfig,
        "bpf"
        | "epoll_create"
        | "epoll_create1"
        | "eventfd2"
        | "eventfd"
        | "fanotify_init"
        | "fsopen"
        | "inotify_init"
        | "inotify_init1"
        | "io_uring_setup"
        | "landlock_create_ruleset"
        | "memfd_create"
        | "memfd_secret"
        | "mq_open"
        | "perf_event_open"
        | "pidfd_open"
        | "pipe"
        | "pipe2"
        | "socket"
        | "socketpair"
        | "timerfd_create"
        | "userfaultfd" => NO_ARGS,
        _ if classes.0 & Classes::FILE.0 != 0 => Args {
            fds: &[],
            paths: &[0],
        },
        _ => Args {
            fds: &[0],
            paths: &[],
        },
    }
}

/// The `-P` set: each path as given and, when it differs, as `realpath`
/// resolves it now (strace's `pathtrace_select_set`), with strace's notice
/// for each path resolved (when `announce`), to print as a warning.
pub fn select_paths(given: &[String], announce: bool) -> (Vec<Vec<u8>>, Vec<String>) {
    use std::os::unix::ffi::OsStrExt;
    let mut set: Vec<Vec<u8>> = Vec::new();
    let mut notes = Vec::new();
    let store = |p: Vec<u8>, set: &mut Vec<Vec<u8>>| {
        if !set.contains(&p) {
            set.push(p);
        }
    };
    for p in given {
        store(p.as_bytes().to_vec(), &mut set);
        let Ok(real) = std::fs::canonicalize(p) else {
            continue;
        };
        let real = real.as_os_str().as_bytes().to_vec();
        if real == p.as_bytes() {
            continue;
        }
        if announce {
            let mut msg = String::from("Requested path ");
            crate::value::text::quote_bytes(&mut msg, p.as_bytes(), 0);
            msg.push_str(" resolved into ");
            crate::value::text::quote_bytes(&mut msg, &real, 0);
            notes.push(msg);
        }
        store(real, &mut set);
    }
    (set, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_rules() {
        let c = |n: &str| {
            Arch::X86_64
                .info(Arch::X86_64.syscall_nr(n).unwrap() as u64)
                .unwrap()
                .classes
        };
        assert_eq!(
            path_rule(Arch::X86_64, "symlink", c("symlink")),
            PathRule::Args {
                fds: &[],
                paths: &[1]
            }
        );
        assert_eq!(
            path_rule(Arch::X86_64, "read", c("read")),
            PathRule::Args {
                fds: &[0],
                paths: &[]
            }
        );
        assert_eq!(path_rule(Arch::X86_64, "getpid", c("getpid")), NO_ARGS);
    }
}
