//! `--pidns-translation` (`--decode-pids=pidns`): the number rstrace sees
//! for a pid, thread, process group or session id that a tracee living in
//! another PID namespace passes or gets back, as strace's `pidns.c` finds
//! it.
//!
//! `/proc/PID/status` lists a task's ids in every namespace from the one
//! `/proc` was mounted in down to the task's own (`NSpid:`, `NStgid:`,
//! `NSpgid:`, `NSsid:`); `/proc/PID/ns/pid` is the task's namespace, and the
//! `NS_GET_PARENT` ioctl climbs from there up to rstrace's own namespace.
//! An id of a tracee's namespace is translated by finding a task whose
//! chain of namespaces holds the tracee's with that id at that level; the
//! answer is the same task's id at rstrace's level.
//!
//! Nothing is read unless a pid is printed with the option on. Results are
//! cached: a tracee's namespace per thread, a translation per (namespace,
//! id, kind), so a pid printed again costs no `/proc` read; an exited task's
//! entries are dropped (strace, which checks `/proc` each time, no longer
//! translates a reaped pid). An id nothing has is searched for each time it
//! is printed, as strace does. A tracee in rstrace's own namespace needs no
//! search at all.
//!
//! [`PidnsResolver`] wraps the `-y` resolver: it adds the translation and,
//! when `/proc` belongs to an outer namespace (rstrace started by
//! `unshare -pf`), reads `/proc` at the tracee's `/proc` pid.

use crate::syscall::ctx::{FdResolver, PidKind};
use std::collections::HashMap;
use std::fs::File;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;

/// strace's limit on the depth of nested PID namespaces.
const MAX_NS_DEPTH: usize = 32;

/// The `/proc/PID/status` line listing ids of `kind`.
fn status_key(kind: PidKind) -> &'static str {
    match kind {
        PidKind::Tid => "NSpid:",
        PidKind::Tgid => "NStgid:",
        PidKind::Pgid => "NSpgid:",
        PidKind::Sid => "NSsid:",
    }
}

/// The ids of `kind` in a `/proc/PID/status` text, from `/proc`'s
/// namespace down to the task's own; empty when the line is missing.
pub fn parse_ns_ids(status: &str, kind: PidKind) -> Vec<i32> {
    let key = status_key(kind);
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .map(|rest| {
            rest.split_ascii_whitespace()
                .map_while(|w| w.parse().ok())
                .take(MAX_NS_DEPTH)
                .collect()
        })
        .unwrap_or_default()
}

/// strace's `translate_id_proc_pid` over one task's data: `namespaces` is
/// the task's namespace chain (its own first, up to rstrace's), `ids` its
/// ids of one kind as `/proc` lists them. If the chain holds `from_ns` and
/// the task's id there is `from_id`, the task's id in rstrace's namespace.
pub fn pick(namespaces: &[u64], ids: &[i32], from_ns: u64, from_id: i32) -> Option<i32> {
    let n = namespaces.len();
    if n == 0 || ids.len() < n {
        return None;
    }
    let level = namespaces.iter().position(|&ns| ns == from_ns)?;
    if ids[ids.len() - 1 - level] != from_id {
        return None;
    }
    Some(ids[ids.len() - n])
}

/// The namespace inode of `/proc/<entry>/ns/pid` and of its ancestors up
/// to rstrace's own namespace (or `limit` of them); empty when unreadable.
fn ns_chain(entry: &str, limit: usize) -> Vec<u64> {
    let Ok(mut f) = File::open(format!("/proc/{entry}/ns/pid")) else {
        return Vec::new();
    };
    let mut chain = Vec::new();
    while chain.len() < limit {
        let Ok(meta) = f.metadata() else {
            break;
        };
        chain.push(meta.ino());
        if chain.len() >= limit {
            break;
        }
        let Ok(parent) = crate::sys::fd::ns_parent(f.as_fd()) else {
            // EPERM: the parent is outside rstrace's namespace: the end.
            break;
        };
        f = File::from(parent);
    }
    chain
}

/// Every task `/proc` lists: each process's threads, then the process.
fn proc_tasks() -> Vec<String> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.parse::<u32>().map_or(true, |p| p == 0) {
            continue;
        }
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{name}/task")) {
            for t in tasks.flatten() {
                let tn = t.file_name().to_string_lossy().into_owned();
                if tn != name && tn.parse::<u32>().is_ok() {
                    out.push(tn);
                }
            }
        }
        out.push(name);
    }
    out
}

/// The translation state and its caches.
#[derive(Debug, Default)]
pub struct PidTranslator {
    /// rstrace's own namespace (inode), once read.
    our_ns: Option<Option<u64>>,
    /// `/proc` belongs to rstrace's namespace (pids need no mapping).
    proc_ours: Option<bool>,
    /// A tracee thread's namespace.
    tracee_ns: HashMap<i32, Option<u64>>,
    /// A pid of rstrace's namespace → its `/proc` entry.
    proc_pids: HashMap<i32, Option<i32>>,
    /// (namespace, id, kind) → the id in rstrace's namespace.
    results: HashMap<(u64, i32, PidKind), i32>,
}

impl PidTranslator {
    fn our_ns(&mut self) -> Option<u64> {
        *self
            .our_ns
            .get_or_insert_with(|| ns_chain("self", 1).first().copied())
    }

    fn proc_ours(&mut self) -> bool {
        *self.proc_ours.get_or_insert_with(|| {
            std::fs::read_to_string("/proc/self/status")
                .map(|s| parse_ns_ids(&s, PidKind::Tid).len() <= 1)
                .unwrap_or(true)
        })
    }

    /// Searches `/proc` for a task whose id of `kind` is `from_id` in
    /// namespace `from_ns`: its `/proc` entry and its id in rstrace's
    /// namespace.
    fn search(&mut self, from_ns: u64, from_id: i32, kind: PidKind) -> Option<(i32, i32)> {
        for entry in proc_tasks() {
            let Ok(status) = std::fs::read_to_string(format!("/proc/{entry}/status")) else {
                continue;
            };
            let ids = parse_ns_ids(&status, kind);
            // Cheap test first: the namespaces need an ioctl per level.
            if !ids.contains(&from_id) {
                continue;
            }
            let chain = ns_chain(&entry, MAX_NS_DEPTH);
            if let Some(ours) = pick(&chain, &ids, from_ns, from_id) {
                return entry.parse().ok().map(|e| (e, ours));
            }
        }
        None
    }

    /// The `/proc` entry of `pid`, a pid of rstrace's namespace.
    pub fn proc_pid(&mut self, pid: i32) -> Option<i32> {
        if pid <= 0 || self.proc_ours() {
            return Some(pid);
        }
        if let Some(&p) = self.proc_pids.get(&pid) {
            return p;
        }
        let ours = self.our_ns()?;
        let found = self.search(ours, pid, PidKind::Tid).map(|(entry, _)| entry);
        self.proc_pids.insert(pid, found);
        found
    }

    fn tracee_ns(&mut self, tid: i32) -> Option<u64> {
        if let Some(&ns) = self.tracee_ns.get(&tid) {
            return ns;
        }
        let ns = self
            .proc_pid(tid)
            .and_then(|p| ns_chain(&p.to_string(), 1).first().copied());
        self.tracee_ns.insert(tid, ns);
        ns
    }

    /// Id `id` of `kind` as tracee `tracee` sees it, in rstrace's PID
    /// namespace; `None` when no task has it.
    pub fn translate(&mut self, tracee: i32, id: i64, kind: PidKind) -> Option<i64> {
        let id = i32::try_from(id).ok().filter(|&i| i > 0)?;
        let from_ns = self.tracee_ns(tracee)?;
        if Some(from_ns) == self.our_ns() {
            return Some(id as i64);
        }
        let key = (from_ns, id, kind);
        if let Some(&r) = self.results.get(&key) {
            return Some(r as i64);
        }
        // Only what is found is kept: an id that names nothing yet (a
        // group about to be made) is looked for again next time.
        let (_, ours) = self.search(from_ns, id, kind)?;
        self.results.insert(key, ours);
        Some(ours as i64)
    }

    /// Task `tid` (rstrace's number) is gone: its translations (which a
    /// later task may reuse the number of) and its namespace are dropped,
    /// so that it is no longer translated, as strace finds it no more.
    pub fn forget(&mut self, tid: i32) {
        self.tracee_ns.remove(&tid);
        self.proc_pids.remove(&tid);
        self.results.retain(|_, ours| *ours != tid);
    }
}

/// The `-y` resolver with `--pidns-translation` added.
pub struct PidnsResolver {
    inner: Box<dyn FdResolver>,
    pids: PidTranslator,
}

impl PidnsResolver {
    /// Wraps `inner`, the `-y`/`-yy` resolver.
    pub fn new(inner: Box<dyn FdResolver>) -> PidnsResolver {
        PidnsResolver {
            inner,
            pids: PidTranslator::default(),
        }
    }
}

impl FdResolver for PidnsResolver {
    fn fd_path(&mut self, pid: i32, fd: i64) -> Option<Vec<u8>> {
        let p = self.pids.proc_pid(pid)?;
        self.inner.fd_path(p, fd)
    }

    fn pid_comm(&mut self, pid: i64) -> Option<Vec<u8>> {
        let p = self.pids.proc_pid(i32::try_from(pid).ok()?)?;
        self.inner.pid_comm(p as i64)
    }

    fn translate_pid(&mut self, tracee: i32, pid: i64, kind: PidKind) -> Option<i64> {
        self.pids.translate(tracee, pid, kind)
    }

    fn task_gone(&mut self, tid: i32) {
        self.pids.forget(tid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATUS: &str = "Name:\tsleep\nTgid:\t812\nNgid:\t0\nPid:\t813\nPPid:\t1\n\
        NStgid:\t812\t7\t2\nNSpid:\t813\t8\t3\nNSpgid:\t800\t0\t0\nNSsid:\t790\t1\t1\n";

    #[test]
    fn parses_each_kind() {
        assert_eq!(parse_ns_ids(STATUS, PidKind::Tid), vec![813, 8, 3]);
        assert_eq!(parse_ns_ids(STATUS, PidKind::Tgid), vec![812, 7, 2]);
        assert_eq!(parse_ns_ids(STATUS, PidKind::Pgid), vec![800, 0, 0]);
        assert_eq!(parse_ns_ids(STATUS, PidKind::Sid), vec![790, 1, 1]);
        // A kernel without the lines, or a single namespace.
        assert!(parse_ns_ids("Name:\tx\nPid:\t5\n", PidKind::Tid).is_empty());
        assert_eq!(parse_ns_ids("NSpid:\t5\n", PidKind::Tid), vec![5]);
    }

    #[test]
    fn picks_the_level_of_the_namespace() {
        let ids = parse_ns_ids(STATUS, PidKind::Tid);
        // /proc is rstrace's: the chain is the task's own ns (30), its
        // parent (20) and rstrace's (10).
        let chain = [30, 20, 10];
        assert_eq!(pick(&chain, &ids, 30, 3), Some(813));
        assert_eq!(pick(&chain, &ids, 20, 8), Some(813));
        assert_eq!(pick(&chain, &ids, 10, 813), Some(813));
        // Another id at that level, or a namespace not in the chain.
        assert_eq!(pick(&chain, &ids, 30, 8), None);
        assert_eq!(pick(&chain, &ids, 99, 3), None);
        // rstrace in the middle namespace, /proc from the outer one: its
        // chain stops at 20, and its id is the second.
        assert_eq!(pick(&[30, 20], &ids, 30, 3), Some(8));
        // More namespaces than ids: inconsistent data.
        assert_eq!(pick(&[4, 3, 2, 1], &ids, 4, 3), None);
        assert_eq!(pick(&[], &ids, 4, 3), None);
    }

    /// A resolver whose tracees live in a namespace where pid 2 (and the
    /// group and session 2) is rstrace's 1234, and pid 5 is rstrace's 5.
    struct Nested;

    impl FdResolver for Nested {
        fn fd_path(&mut self, _: i32, _: i64) -> Option<Vec<u8>> {
            None
        }
        fn pid_comm(&mut self, pid: i64) -> Option<Vec<u8>> {
            (pid == 1234).then(|| b"child".to_vec())
        }
        fn translate_pid(&mut self, _: i32, pid: i64, _: PidKind) -> Option<i64> {
            match pid {
                2 => Some(1234),
                5 => Some(5),
                _ => None,
            }
        }
    }

    fn text(v: &crate::syscall::Value) -> String {
        let mut s = String::new();
        crate::value::text::render_value(&mut s, v, &Default::default());
        s
    }

    #[test]
    fn printed_ids_get_their_comment() {
        use crate::syscall::ctx::pid_value_of;
        use crate::syscall::DecodeOpts;
        let on = DecodeOpts {
            pidns: true,
            ..DecodeOpts::default()
        };
        let comm = DecodeOpts {
            pid_comm: true,
            ..on.clone()
        };
        let mut r = Nested;
        let v = |r: &mut Nested, o: &DecodeOpts, pid, kind| text(&pid_value_of(r, o, 9, pid, kind));
        assert_eq!(
            v(&mut r, &on, 2, PidKind::Tgid),
            "2 /* 1234 in strace's PID NS */"
        );
        // The same number, or none found: nothing to add.
        assert_eq!(v(&mut r, &on, 5, PidKind::Tid), "5");
        assert_eq!(v(&mut r, &on, 7, PidKind::Tid), "7");
        // Off: not even asked.
        assert_eq!(v(&mut r, &DecodeOpts::default(), 2, PidKind::Tgid), "2");
        // -Y names the task at rstrace's number; groups have no name.
        assert_eq!(
            v(&mut r, &comm, 2, PidKind::Tid),
            "2<child> /* 1234 in strace's PID NS */"
        );
        assert_eq!(
            v(&mut r, &comm, 2, PidKind::Pgid),
            "2 /* 1234 in strace's PID NS */"
        );
    }

    #[test]
    fn returned_ids_and_siginfo_get_their_comment() {
        use crate::engine::memory::FakeMemory;
        use crate::syscall::ctx::{translate_pids, RetFmt};
        use crate::syscall::{make_ret, Ctx, DecodeOpts};
        let on = DecodeOpts {
            pidns: true,
            ..DecodeOpts::default()
        };
        let mut r = Nested;
        let mut m = FakeMemory::default();
        let ret = |r: &mut Nested, m: &mut FakeMemory, fmt: RetFmt, val: i64| {
            let mut c = Ctx::new(
                m,
                r,
                &on,
                9,
                rtrace_arch::Arch::X86_64,
                [(-2i64) as u64, 0, 0, 0, 0, 0],
            );
            c.ret = Some(val);
            let mut s = String::new();
            let rv = make_ret(&mut c, fmt);
            crate::value::text::render_ret(&mut s, &rv, &Default::default());
            // kill's first argument: a process group below -1.
            c.ret = None;
            c.pid_or_pgid(0);
            (s, text(&c.entry_args[0]))
        };
        let (s, arg) = ret(&mut r, &mut m, RetFmt::Id(PidKind::Sid), 2);
        assert_eq!(s, "= 2 /* 1234 in strace's PID NS */");
        assert_eq!(arg, "-2 /* 1234 in strace's PID NS */");
        assert_eq!(ret(&mut r, &mut m, RetFmt::Pid, 5).0, "= 5");
        assert_eq!(
            ret(&mut r, &mut m, RetFmt::Pid, -3).0,
            "= -1 ESRCH (No such process)"
        );
        // A SIGCHLD from pid 2 of the tracee's namespace.
        let mut info = [0u8; 128];
        info[0] = 17;
        info[8] = 1;
        info[16] = 2;
        let mut v = crate::syscall::siginfo_value(rtrace_arch::Arch::X86_64, 0, &info);
        translate_pids(&mut r, &on, 9, &mut v);
        assert!(
            text(&v).contains("si_pid=2 /* 1234 in strace's PID NS */, si_uid=0"),
            "{}",
            text(&v)
        );
    }

    #[test]
    fn own_namespace_is_trivial() {
        let mut t = PidTranslator::default();
        let me = std::process::id() as i32;
        // rstrace's own pid, seen from its own namespace, is itself; an
        // id that is not a pid is not translated.
        assert_eq!(t.translate(me, me as i64, PidKind::Tgid), Some(me as i64));
        assert_eq!(t.translate(me, 0, PidKind::Tgid), None);
        assert_eq!(t.translate(me, -5, PidKind::Pgid), None);
    }
}
