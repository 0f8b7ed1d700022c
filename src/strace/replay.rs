//! `--replay-faults FILE[:trace=SET]`: re-runs a command injecting, at the
//! same points, the errors a recorded run saw.
//!
//! A point is (task, syscall name, index): the index counts the task's
//! calls of that name from 1, and the task is named without pids: a
//! process is its path in the process tree (the `k`-th root, then the
//! `k`-th process each ancestor created, counted per creating process in
//! creation order) and a thread is its rank in its process (0 the leader,
//! then in creation order). Counting per thread rather than per process
//! keeps the index independent of how threads interleave. In the
//! recording the tree is [`crate::tracefile::tree::ProcessTree`] (built from the `clone`/`clone3`/
//! `fork`/`vfork` events); live it comes from the tracer's new-task
//! events, or, for a child whose first stop comes before its creator's
//! event, from `/proc/TID/status`.
//!
//! Replayed: every recorded call of a syscall in SET (default `%file`, the
//! calls that take a file name) that failed with an errno, including
//! injected ones; kernel-internal restart codes (errno >= 512) never. The
//! call at the same point in the re-run is skipped and fails with that
//! errno (a call that would have failed anyway fails the same way). Calls
//! are counted whether or not `-e trace=` shows them, so the trace filter
//! does not move the points; an injection is marked ` (INJECTED)` when the
//! call is shown. At the end rstrace says how many points were reached.

use super::filter::SyscallSet;
use crate::engine::tracee::task_ids;
use crate::tracefile::tree::TreeBuilder;
use crate::tracefile::{EventPass, Pass, Recording, Rewindable};
use rtrace_arch::Arch;
use std::collections::HashMap;
use std::path::Path;

/// A task without pids: (process path, thread ordinal).
pub type TaskPath = (Vec<u32>, u32);

/// One recorded failure.
#[derive(Clone, Debug)]
struct Point {
    errno: u32,
    hit: bool,
}

/// The points to replay, read from a recording.
#[derive(Clone, Debug)]
pub struct Plan {
    /// task -> syscall name -> index -> failure.
    points: HashMap<TaskPath, HashMap<String, HashMap<u32, Point>>>,
    /// Per personality: numbers of the syscalls that have points.
    nrs: HashMap<Arch, Vec<bool>>,
    total: usize,
    /// Some point is in a process other than a root.
    pub in_children: bool,
    /// Diagnostics about the recording, printed before tracing starts.
    pub warnings: Vec<String>,
}

/// Per-process creation counters while building the tree.
#[derive(Default)]
struct Proc {
    path: Vec<u32>,
    children: u32,
    threads: u32,
}

/// The live process tree of tids, built in creation order (the recording's
/// is [`crate::tracefile::tree::ProcessTree`]; both name tasks the same way).
#[derive(Default)]
struct Tree {
    procs: Vec<Proc>,
    /// tid -> (process index, thread ordinal).
    tasks: HashMap<i32, (usize, u32)>,
    /// Leader tid -> process index.
    leaders: HashMap<i32, usize>,
    roots: u32,
}

impl Tree {
    fn new_proc(&mut self, path: Vec<u32>, leader: i32) -> usize {
        self.procs.push(Proc {
            path,
            children: 0,
            threads: 1,
        });
        let p = self.procs.len() - 1;
        self.tasks.insert(leader, (p, 0));
        self.leaders.insert(leader, p);
        p
    }

    fn root(&mut self, tid: i32) {
        let path = vec![self.roots];
        self.roots += 1;
        self.new_proc(path, tid);
    }

    /// `parent` (known) created `child`.
    fn created(&mut self, parent: i32, child: i32, thread: bool) {
        let Some(&(p, _)) = self.tasks.get(&parent) else {
            return;
        };
        if thread {
            let ord = self.procs[p].threads;
            self.procs[p].threads += 1;
            self.tasks.insert(child, (p, ord));
        } else {
            let mut path = self.procs[p].path.clone();
            path.push(self.procs[p].children);
            self.procs[p].children += 1;
            self.new_proc(path, child);
        }
    }
}

/// `root`, `root.2`, `root.2.0 thread 1`.
pub fn describe(t: &TaskPath) -> String {
    let mut s = String::from("process ");
    for (i, k) in t.0.iter().enumerate() {
        if i > 0 {
            s.push('.');
        }
        s.push_str(&k.to_string());
    }
    if t.1 > 0 {
        s.push_str(&format!(" thread {}", t.1));
    }
    s
}

impl Plan {
    /// Reads `FILE[:trace=SET]`, as a stream in two passes
    /// ([`Rewindable`]): what is kept is the failures, not the events.
    pub fn load(spec: &str) -> Result<Plan, String> {
        let (file, set) = match spec.rsplit_once(":trace=") {
            Some((f, s)) => (f, s),
            None => (spec, "%file"),
        };
        let set = SyscallSet::parse(set).map_err(|e| e.msg)?;
        let err = |e: std::io::Error| format!("'{file}': {e}");
        let mut rec = Rewindable::open(Path::new(file)).map_err(err)?;
        let mut last = Pass::default();
        let mut pass = rec.pass(&mut last);
        Plan::build(&set, &mut *pass).map_err(err)
    }

    /// The failures of `rec` whose syscalls are in `set`.
    pub fn from_recording(rec: &Recording, set: &SyscallSet) -> Plan {
        Plan::build(set, &mut *rec.pass()).expect("events in memory")
    }

    /// The failures whose syscalls are in `set`, of the recording whose
    /// events `pass` hands out in order (called twice: the process tree
    /// needs every spawn first).
    fn build(set: &SyscallSet, pass: &mut EventPass) -> std::io::Result<Plan> {
        let mut tree = TreeBuilder::new(false);
        pass(&mut |i, ev| tree.note_spawn(i, ev))?;
        // (builder process, builder thread, name) -> calls so far.
        let mut counts: HashMap<(usize, usize, String), u32> = HashMap::new();
        // (builder process, builder thread, name, index, errno).
        let mut failed: Vec<(usize, usize, String, u32, u32)> = Vec::new();
        let (mut ok, mut calls) = (0usize, 0usize);
        pass(&mut |i, e| {
            let owner = tree.add(i, e);
            let (Some(name), Some((p, t))) = (
                e["syscall"].as_str().filter(|_| e["type"] == "syscall"),
                owner,
            ) else {
                return;
            };
            calls += 1;
            let n = counts.entry((p, t, name.to_string())).or_insert(0);
            *n += 1;
            let errno = e["errno"]
                .as_str()
                .and_then(rtrace_arch::tables::errno_value)
                .filter(|_| e["return"] == -1);
            let Some(errno) = errno else {
                ok += 1;
                return;
            };
            let in_set = Arch::native_personalities().iter().any(|&a| {
                a.syscall_nr(name)
                    .is_some_and(|nr| set.contains(a, nr as u64))
            });
            if errno < 512 && in_set {
                failed.push((p, t, name.to_string(), *n, errno));
            }
        })?;
        let ranks = tree.thread_ranks();
        let (tree, index) = tree.finish();
        let mut plan = Plan {
            points: HashMap::new(),
            nrs: HashMap::new(),
            total: 0,
            in_children: false,
            warnings: Vec::new(),
        };
        for (p, t, name, idx, errno) in failed {
            let task = (tree.processes[index[p]].path.0.clone(), ranks[p][t]);
            plan.in_children |= task.0.len() > 1;
            plan.points
                .entry(task)
                .or_default()
                .entry(name)
                .or_default()
                .insert(idx, Point { errno, hit: false });
            plan.total += 1;
        }
        if ok == 0 && calls > 0 {
            plan.warnings.push(
                "--replay-faults: the recording has no successful syscall; if it was filtered \
                 (-z/-Z/-e status=/-P) the call indexes are wrong"
                    .into(),
            );
        }
        let names: std::collections::HashSet<&str> = plan
            .points
            .values()
            .flat_map(|m| m.keys().map(String::as_str))
            .collect();
        for &a in Arch::native_personalities() {
            let mut t = vec![false; a.table_len()];
            for n in &names {
                if let Some(nr) = a.syscall_nr(n) {
                    t[nr as usize] = true;
                }
            }
            plan.nrs.insert(a, t);
        }
        Ok(plan)
    }

    /// How many points there are.
    pub fn len(&self) -> usize {
        self.total
    }

    /// No points.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The syscalls of `arch` that have points (they must stop).
    pub fn numbers(&self, arch: Arch) -> Vec<u32> {
        self.nrs.get(&arch).map_or(Vec::new(), |t| {
            (0..t.len() as u32).filter(|&i| t[i as usize]).collect()
        })
    }
}

/// The live side: identities of the traced tasks and their call counts.
#[derive(Debug)]
pub struct Replay {
    plan: Plan,
    tree: LiveTree,
    /// (tid, personality, nr) -> calls so far.
    counts: HashMap<(i32, Arch, u64), u32>,
    hits: usize,
}

/// [`Tree`] behind a `Debug` wrapper.
#[derive(Default)]
struct LiveTree(Tree);

impl std::fmt::Debug for LiveTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LiveTree({} tasks)", self.0.tasks.len())
    }
}

impl Replay {
    /// The live state for `plan`.
    pub fn new(plan: Plan) -> Replay {
        Replay {
            plan,
            tree: LiveTree::default(),
            counts: HashMap::new(),
            hits: 0,
        }
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Gives `tid` its identity if it has none: a child whose first stop
    /// came before its creator's event is placed from `/proc`; an unknown
    /// task with no known parent is a new root.
    fn know(&mut self, tid: i32) {
        if self.tree.0.tasks.contains_key(&tid) {
            return;
        }
        let (creator, thread) = match task_ids(tid) {
            Some(i) if i.tgid != tid => (i.tgid, true),
            Some(i) => (i.ppid, false),
            None => (0, false),
        };
        // A creator we trace but have not placed yet (its events are
        // still to come) is placed first.
        let me = std::process::id() as i32;
        if creator > 0 && task_ids(creator).is_some_and(|c| c.tracer == me) {
            self.know(creator);
        }
        let t = &mut self.tree.0;
        if creator > 0 && t.leaders.contains_key(&creator) {
            t.created(creator, tid, thread);
        } else {
            t.root(tid);
        }
    }

    /// `parent` created `child` (the tracer's new-task event).
    pub fn new_task(&mut self, parent: i32, child: i32, thread: bool) {
        if self.tree.0.tasks.contains_key(&child) {
            return;
        }
        self.know(parent);
        self.tree.0.created(parent, child, thread);
    }

    /// A syscall entry of `tid`: the errno to inject, if this is a point.
    pub fn on_entry(&mut self, tid: i32, arch: Arch, nr: u64, name: Option<&str>) -> Option<u32> {
        if !self
            .plan
            .nrs
            .get(&arch)
            .and_then(|t| t.get(nr as usize))
            .copied()
            .unwrap_or(false)
        {
            return None;
        }
        self.know(tid);
        let n = self.counts.entry((tid, arch, nr)).or_insert(0);
        *n += 1;
        let idx = *n;
        let &(p, th) = self.tree.0.tasks.get(&tid)?;
        let path = (self.tree.0.procs[p].path.clone(), th);
        let point = self
            .plan
            .points
            .get_mut(&path)?
            .get_mut(name?)?
            .get_mut(&idx)?;
        if !point.hit {
            point.hit = true;
            self.hits += 1;
        }
        Some(point.errno)
    }

    /// Forgets a task that is gone (its tid may be reused).
    pub fn forget(&mut self, tid: i32) {
        let t = &mut self.tree.0;
        if t.tasks.remove(&tid).is_some() {
            t.leaders.remove(&tid);
            self.counts.retain(|k, _| k.0 != tid);
        }
    }

    /// What to tell the user at the end: how many points were reached, and
    /// the first ones that were not.
    pub fn report(&self) -> Vec<String> {
        let mut out = vec![format!(
            "--replay-faults: injected {} of {} recorded errors",
            self.hits, self.plan.total
        )];
        let mut missed: Vec<String> = Vec::new();
        for (task, names) in &self.plan.points {
            for (name, idx) in names {
                for (i, p) in idx {
                    if !p.hit {
                        missed.push(format!(
                            "{} {name} call #{i} ({})",
                            describe(task),
                            rtrace_arch::tables::errno_name(p.errno as u64).unwrap_or("E???")
                        ));
                    }
                }
            }
        }
        missed.sort();
        let more = missed.len().saturating_sub(5);
        for m in missed.into_iter().take(5) {
            out.push(format!("--replay-faults: not reached: {m}"));
        }
        if more > 0 {
            out.push(format!("--replay-faults: ... and {more} more not reached"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(lines: &str, set: &str) -> Plan {
        let rec = Recording::parse(lines.as_bytes()).unwrap();
        Plan::from_recording(&rec, &SyscallSet::parse(set).unwrap())
    }

    const REC: &str = r#"{"type":"header","version":1}
{"type":"syscall","pid":10,"syscall":"execve","args":[],"return":0}
{"type":"syscall","pid":10,"syscall":"openat","args":[],"return":3}
{"type":"syscall","pid":11,"syscall":"openat","args":[],"return":-1,"errno":"ENOENT"}
{"type":"syscall","pid":10,"syscall":"clone","args":[{"flags":["CLONE_CHILD_SETTID"]}],"return":11}
{"type":"syscall","pid":10,"syscall":"clone3","args":[{"in":{"flags":{"flags":["CLONE_VM","CLONE_THREAD"]}}}],"return":12}
{"type":"syscall","pid":12,"syscall":"stat","args":[],"return":-1,"errno":"EACCES"}
{"type":"syscall","pid":10,"syscall":"openat","args":[],"return":-1,"errno":"EIO","injected":true}
{"type":"syscall","pid":10,"syscall":"read","args":[],"return":-1,"errno":"EAGAIN"}
{"type":"syscall","pid":10,"syscall":"openat","args":[],"return":-1,"errno":"ERESTARTSYS"}
{"type":"footer","exit_code":1}
"#;

    #[test]
    fn points_from_a_recording() {
        let p = plan(REC, "%file");
        // openat of the child (before its clone line), stat of the thread,
        // the injected openat; not read (not %file), not ERESTARTSYS.
        assert_eq!(p.len(), 3);
        assert!(p.in_children);
        let get = |t: TaskPath, n: &str, i: u32| p.points.get(&t)?.get(n)?.get(&i).map(|x| x.errno);
        assert_eq!(get((vec![0, 0], 0), "openat", 1), Some(2));
        assert_eq!(get((vec![0], 1), "stat", 1), Some(13));
        assert_eq!(get((vec![0], 0), "openat", 2), Some(5));
        let all = plan(REC, "all");
        assert_eq!(all.len(), 4);
        assert!(p.warnings.is_empty());
        let only_read = plan(REC, "read");
        assert_eq!(only_read.len(), 1);
        assert!(!only_read.in_children);
        let a = Arch::native();
        assert_eq!(only_read.numbers(a), vec![a.syscall_nr("read").unwrap()]);
    }

    #[test]
    fn live_identities_follow_creation_order() {
        let mut r = Replay::new(plan(REC, "%file"));
        let a = Arch::native();
        let openat = a.syscall_nr("openat").unwrap() as u64;
        let stat = a.syscall_nr("stat").map(u64::from);
        // pids differ from the recording's.
        r.tree.0.root(500);
        assert_eq!(r.on_entry(500, a, openat, Some("openat")), None);
        r.new_task(500, 777, false);
        r.new_task(500, 778, true);
        assert_eq!(r.on_entry(777, a, openat, Some("openat")), Some(2));
        assert_eq!(r.on_entry(777, a, openat, Some("openat")), None);
        if let Some(stat) = stat {
            assert_eq!(r.on_entry(778, a, stat, Some("stat")), Some(13));
        }
        assert_eq!(r.on_entry(500, a, openat, Some("openat")), Some(5));
        let rep = r.report();
        assert!(rep[0].contains(" of 3 recorded"), "{rep:?}");
    }
}
