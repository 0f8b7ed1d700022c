//! The /proc facts the tracer reads outside the hot path: a process's
//! threads, a task's creator, thread-group membership, and why an attach
//! was refused.

use crate::engine::ptrace::Tid;
use crate::engine::tracee::{task_ids, tgid_of};

/// The thread ids of process `pid` (from /proc, at attach time only).
pub fn list_threads(pid: Tid) -> Vec<Tid> {
    let mut v: Vec<Tid> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    v.sort_unstable();
    v
}

/// The task that created `tid` as far as /proc tells: its thread-group
/// leader for a thread, else its parent process (early-stop path only).
pub(super) fn creator_of(tid: Tid) -> Option<Tid> {
    let ids = task_ids(tid)?;
    Some(if ids.tgid != tid { ids.tgid } else { ids.ppid })
}

pub(super) fn is_thread_of(child: Tid, parent: Tid) -> bool {
    // Only called at clone events; reads the child's Tgid once.
    match (tgid_of(child), tgid_of(parent)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Why the kernel may have refused to let us attach to `pid` with EPERM:
/// names the tracer when /proc shows one ("already traced by process N
/// (comm)"), else the usual restrictions.
pub fn eperm_reason(pid: Tid) -> String {
    let tracer = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("TracerPid:"))
                .and_then(|v| v.trim().parse::<Tid>().ok())
        })
        .filter(|&t| t != 0);
    match tracer {
        Some(t) => {
            let comm = std::fs::read_to_string(format!("/proc/{t}/comm")).unwrap_or_default();
            format!(
                "process {pid} is already traced by process {t} ({}); a process has one tracer at a time",
                comm.trim()
            )
        }
        None => "ptrace is restricted (see /proc/sys/kernel/yama/ptrace_scope; run as root or \
                 with CAP_SYS_PTRACE), or the process is not yours"
            .to_string(),
    }
}
