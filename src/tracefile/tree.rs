//! The process tree of a recording: which thread belongs to which process,
//! who spawned whom, what each process exec'd and how it ended.
//!
//! Built from the events alone (no header needed): `clone`, `clone3`,
//! `fork` and `vfork` records give a child's tid (their return value, in
//! the parent); `CLONE_THREAD` among a clone's flags makes the child a
//! thread of its parent's process, otherwise a new process. Successful
//! `execve`/`execveat` records give each process its program and argv;
//! `exit` events give each thread's (and, for the leader, the process's)
//! status.
//!
//! # Stable identity: the tree path
//!
//! Pids differ from run to run, so a process is named by its **path**:
//! the list of spawn ranks from a root down to it. A root is a process
//! whose creation was not recorded (the traced command itself, or an
//! attached process); roots are numbered `0, 1, …` in order of their first
//! event. A child's rank is its position among the *processes* its parent
//! process spawned (threads are not counted), in the order of the parent's
//! `fork`/`clone` records in the file. So `0` is the command, `0.2` is the
//! third process it spawned, `0.2.0` the first process that one spawned.
//! Threads are numbered the same way inside their process: thread `0` is
//! the leader, thread `k` the k-th thread the process created.
//!
//! The path is stable across runs of a deterministic program. When several
//! threads of one process spawn children concurrently, the order between
//! those children is the order the tracer saw, which may differ. The same
//! identity (path + syscall name + per-process index of that name, see
//! [`Process::syscall_ordinal`]) is what `--replay-faults` uses.
//!
//! Pid reuse inside one recording is handled: after a thread's `exit`
//! event, the next event of the same tid starts a new task.

use crate::tracefile::Recording;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::fmt;

/// A process's stable identity: spawn ranks from a root (see module docs).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct TreePath(pub Vec<u32>);

impl fmt::Display for TreePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u32::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

impl TreePath {
    /// Parses `0.2.1`.
    pub fn parse(s: &str) -> Option<TreePath> {
        s.split('.')
            .map(|p| p.parse().ok())
            .collect::<Option<Vec<u32>>>()
            .filter(|v| !v.is_empty())
            .map(TreePath)
    }
}

/// One successful `execve`/`execveat`.
#[derive(Debug, Clone)]
pub struct Exec {
    /// Index of the record in [`Recording::events`].
    pub event: usize,
    /// The program path as passed to the call.
    pub program: String,
    /// argv, as far as it was decoded.
    pub argv: Vec<String>,
}

/// One thread (task) of a process.
#[derive(Debug, Clone)]
pub struct Thread {
    /// Thread id as recorded.
    pub tid: i32,
    /// Rank inside the process: 0 for the leader, k for the k-th created.
    pub rank: u32,
    /// Indices into [`Recording::events`] of this thread's events.
    pub events: Vec<usize>,
    /// Its `exit` event's fate as text (`exited with 0`, `killed by
    /// SIGKILL`; see [`exit_text`]).
    pub exit: Option<String>,
    /// Index of its `exit` event, if recorded.
    pub exit_event: Option<usize>,
    /// Its `exit` event, if recorded.
    pub exit_record: Option<Value>,
    /// Event index of the clone record that created it (None for a leader
    /// whose creation is a process spawn, or unknown).
    spawn_event: Option<usize>,
}

impl Thread {
    fn new(tid: i32, rank: u32, spawn_event: Option<usize>) -> Thread {
        Thread {
            tid,
            rank,
            events: Vec::new(),
            exit: None,
            exit_event: None,
            exit_record: None,
            spawn_event,
        }
    }
}

/// One process (thread group).
#[derive(Debug, Clone)]
pub struct Process {
    /// Stable identity (see module docs).
    pub path: TreePath,
    /// The leader's tid as recorded (the pid of this run).
    pub pid: i32,
    /// Index of the parent process in [`ProcessTree::processes`].
    pub parent: Option<usize>,
    /// Index of the event (in the parent) that spawned it.
    pub spawn_event: Option<usize>,
    /// Child processes, in spawn order (indices into `processes`).
    pub children: Vec<usize>,
    /// Threads; `threads[0]` is the leader.
    pub threads: Vec<Thread>,
    /// Successful execs, in order.
    pub execs: Vec<Exec>,
    /// Indices into [`Recording::events`] of all its threads' events, in
    /// file order.
    pub events: Vec<usize>,
    /// Index of the first event (for root ordering).
    first_event: usize,
}

impl Process {
    /// The leader's exit status string, if its `exit` event was recorded.
    pub fn exit_status(&self) -> Option<&str> {
        self.threads.first().and_then(|t| t.exit.as_deref())
    }

    /// The exit code from `exited with N` (None when killed or unknown).
    pub fn exit_code(&self) -> Option<i32> {
        self.exit_status()?
            .strip_prefix("exited with ")?
            .trim()
            .parse()
            .ok()
    }

    /// The program it last exec'd (None: never exec'd in the recording).
    pub fn program(&self) -> Option<&str> {
        self.execs.last().map(|e| e.program.as_str())
    }

    /// For each event of the process: `Some(k)` when it is the k-th (from 0)
    /// syscall record named `name` in this process, across all its threads,
    /// in file order. The fault-injection replay uses (path, name, k).
    pub fn syscall_ordinal(&self, rec: &Recording, event: usize) -> Option<usize> {
        let name = rec.events.get(event)?.get("syscall")?.as_str()?;
        let mut k = 0;
        for &i in &self.events {
            if i == event {
                return Some(k);
            }
            if rec.events[i]["type"] == "syscall" && rec.events[i]["syscall"] == name {
                k += 1;
            }
        }
        None
    }
}

/// The whole tree.
#[derive(Debug, Clone, Default)]
pub struct ProcessTree {
    /// Every process, roots first then depth-first in path order.
    pub processes: Vec<Process>,
    /// For each event: (process index, thread index) when it has a `pid`.
    pub owner: Vec<Option<(usize, usize)>>,
}

/// One spawn seen in a parent's record.
struct Spawn {
    event: usize,
    parent_tid: i32,
    thread: bool,
}

fn is_spawn(name: &str) -> bool {
    matches!(name, "clone" | "clone3" | "fork" | "vfork")
}

/// True if any string inside `v` mentions CLONE_THREAD (flags are decoded
/// as `{"flags":[..]}` for clone3 and `{"expr":"flags=…"}` for clone).
fn mentions_clone_thread(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("CLONE_THREAD"),
        Value::Array(a) => a.iter().any(mentions_clone_thread),
        Value::Object(m) => m.values().any(mentions_clone_thread),
        _ => false,
    }
}

/// An `exit` event's fate as text (`exited with N`, `killed by SIGX`,
/// `killed by SIGX (core dumped)`): from its `exit_code` or `signal` and
/// `core_dumped` fields, or from the `status` text of files written before
/// the exit object had fields.
pub fn exit_text(ev: &Value) -> Option<String> {
    if let Some(c) = ev["exit_code"].as_i64() {
        return Some(format!("exited with {c}"));
    }
    if let Some(s) = ev["signal"].as_str() {
        let core = if ev["core_dumped"] == true {
            " (core dumped)"
        } else {
            ""
        };
        return Some(format!("killed by {s}{core}"));
    }
    ev["status"].as_str().map(str::to_string)
}

/// Plain text of a decoded string argument (`"x"` or `{"str":"x",...}`);
/// bytes that are not UTF-8 (`{"bytes_hex":…}`) come back with `\xNN`
/// escapes, so different bytes never read alike.
pub fn arg_str(v: &Value) -> Option<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    match v {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Object(m) => match m.get("str") {
            Some(inner) => arg_str(inner),
            None => crate::value::json::bytes_text(v).map(Cow::Owned),
        },
        _ => None,
    }
}

fn exec_of(ev: &Value, event: usize) -> Option<Exec> {
    let name = ev["syscall"].as_str()?;
    let (p, a) = match name {
        "execve" => (0, 1),
        "execveat" => (1, 2),
        _ => return None,
    };
    if ev["return"].as_i64() != Some(0) {
        return None;
    }
    let args = ev["args"].as_array()?;
    let program = args
        .get(p)
        .and_then(arg_str)
        .map_or_else(|| "?".to_string(), |s| s.into_owned());
    let argv = args
        .get(a)
        .and_then(Value::as_array)
        .map(|v| {
            v.iter()
                .filter_map(arg_str)
                .map(|s| s.into_owned())
                .collect()
        })
        .unwrap_or_default();
    Some(Exec {
        event,
        program,
        argv,
    })
}

/// Builds a [`ProcessTree`] from events seen one at a time, in two passes
/// over the recording (a child's events come before its parent's `clone`
/// record, whose return value names it): [`TreeBuilder::note_spawn`] for
/// every event, then [`TreeBuilder::add`] for every event again, then
/// [`TreeBuilder::finish`]. Without `keep_events` it holds no per-event
/// state, so a recording can be read as a stream (`rtrace report`).
pub struct TreeBuilder {
    keep_events: bool,
    procs: Vec<Process>,
    /// Live task of each tid: (process, thread).
    live: HashMap<i32, (usize, usize)>,
    /// Spawns not yet matched to their child, per child tid.
    pending: HashMap<i32, VecDeque<Spawn>>,
}

impl TreeBuilder {
    /// A builder; `keep_events`: fill the event index lists of processes
    /// and threads.
    pub fn new(keep_events: bool) -> TreeBuilder {
        TreeBuilder {
            keep_events,
            procs: Vec::new(),
            live: HashMap::new(),
            pending: HashMap::new(),
        }
    }

    /// First pass: notes event `i` if it spawned a task.
    pub fn note_spawn(&mut self, i: usize, ev: &Value) {
        let (Some(name), Some(child), Some(parent)) = (
            ev["syscall"].as_str(),
            ev["return"].as_i64(),
            ev["pid"].as_i64(),
        ) else {
            return;
        };
        if is_spawn(name) && child > 0 {
            let thread = name.starts_with("clone") && mentions_clone_thread(&ev["args"]);
            self.pending
                .entry(child as i32)
                .or_default()
                .push_back(Spawn {
                    event: i,
                    parent_tid: parent as i32,
                    thread,
                });
        }
    }

    /// Second pass: the task of event `i` as (process, thread) in the
    /// builder's own numbering ([`TreeBuilder::finish`] maps processes to
    /// the tree's); `None` for an event without a `pid`.
    pub fn add(&mut self, i: usize, ev: &Value) -> Option<(usize, usize)> {
        let tid = ev["pid"].as_i64()? as i32;
        let (p, t) = self.task(tid, i);
        if self.keep_events {
            self.procs[p].events.push(i);
            self.procs[p].threads[t].events.push(i);
        }
        if let Some(x) = exec_of(ev, i) {
            self.procs[p].execs.push(x);
        }
        if ev["type"] == "exit" {
            let th = &mut self.procs[p].threads[t];
            th.exit = exit_text(ev);
            th.exit_event = Some(i);
            th.exit_record = Some(ev.clone());
            self.live.remove(&tid);
        }
        Some((p, t))
    }

    /// The parent process of process `p` (builder numbering).
    pub fn parent(&self, p: usize) -> Option<usize> {
        self.procs.get(p)?.parent
    }

    /// Processes created so far.
    pub fn len(&self) -> usize {
        self.procs.len()
    }

    /// Whether no process was created yet.
    pub fn is_empty(&self) -> bool {
        self.procs.is_empty()
    }

    /// The live task of `tid`, creating it (and, recursively, its parent)
    /// when first seen at event `at`.
    fn task(&mut self, tid: i32, at: usize) -> (usize, usize) {
        if let Some(&t) = self.live.get(&tid) {
            return t;
        }
        let spawn = self.pending.get_mut(&tid).and_then(VecDeque::pop_front);
        let t = match spawn {
            Some(s) if s.parent_tid != tid => {
                let (pp, _) = self.task(s.parent_tid, at);
                if s.thread {
                    let rank = self.procs[pp].threads.len() as u32;
                    self.procs[pp]
                        .threads
                        .push(Thread::new(tid, rank, Some(s.event)));
                    (pp, self.procs[pp].threads.len() - 1)
                } else {
                    let i = self.new_process(tid, at, Some(pp), Some(s.event));
                    // Inherit the parent's exec image until the child execs.
                    (i, 0)
                }
            }
            _ => (self.new_process(tid, at, None, None), 0),
        };
        self.live.insert(tid, t);
        t
    }

    fn new_process(
        &mut self,
        tid: i32,
        at: usize,
        parent: Option<usize>,
        spawn: Option<usize>,
    ) -> usize {
        self.procs.push(Process {
            path: TreePath::default(),
            pid: tid,
            parent,
            spawn_event: spawn,
            children: Vec::new(),
            threads: vec![Thread::new(tid, 0, None)],
            execs: Vec::new(),
            events: Vec::new(),
            first_event: at,
        });
        let i = self.procs.len() - 1;
        if let Some(p) = parent {
            self.procs[p].children.push(i);
        }
        i
    }

    /// For each process of the builder's numbering, the rank in the
    /// finished tree of each of its threads in the builder's numbering
    /// (what [`TreeBuilder::add`] returned): [`TreeBuilder::finish`] orders
    /// threads by their spawn record, the leader first.
    pub fn thread_ranks(&self) -> Vec<Vec<u32>> {
        self.procs
            .iter()
            .map(|p| {
                let mut order: Vec<usize> = (1..p.threads.len()).collect();
                order.sort_by_key(|&t| p.threads[t].spawn_event);
                let mut ranks = vec![0; p.threads.len()];
                for (r, &t) in order.iter().enumerate() {
                    ranks[t] = r as u32 + 1;
                }
                ranks
            })
            .collect()
    }

    /// The tree (its `owner` empty) and, for each process of the builder's
    /// numbering, its index in the tree.
    pub fn finish(self) -> (ProcessTree, Vec<usize>) {
        let mut procs = self.procs;
        // Order children by their spawn record, threads likewise.
        for i in 0..procs.len() {
            let mut kids = std::mem::take(&mut procs[i].children);
            kids.sort_by_key(|&c| procs[c].spawn_event);
            procs[i].children = kids;
            let leader = procs[i].threads.remove(0);
            procs[i].threads.sort_by_key(|t| t.spawn_event);
            procs[i].threads.insert(0, leader);
            for (r, t) in procs[i].threads.iter_mut().enumerate() {
                t.rank = r as u32;
            }
        }
        // Assign paths depth-first; renumber so processes are in path order.
        let mut roots: Vec<usize> = (0..procs.len())
            .filter(|&i| procs[i].parent.is_none())
            .collect();
        roots.sort_by_key(|&r| procs[r].first_event);
        let mut order = Vec::with_capacity(procs.len());
        let mut stack: Vec<(usize, TreePath)> = roots
            .iter()
            .enumerate()
            .rev()
            .map(|(k, &r)| (r, TreePath(vec![k as u32])))
            .collect();
        while let Some((i, path)) = stack.pop() {
            for (k, &c) in procs[i].children.iter().enumerate().rev() {
                let mut p = path.0.clone();
                p.push(k as u32);
                stack.push((c, TreePath(p)));
            }
            procs[i].path = path;
            order.push(i);
        }
        let mut new_index = vec![0; procs.len()];
        for (n, &old) in order.iter().enumerate() {
            new_index[old] = n;
        }
        let mut slots: Vec<Option<Process>> = procs.into_iter().map(Some).collect();
        let mut processes: Vec<Process> = order.iter().map(|&o| slots[o].take().unwrap()).collect();
        for p in &mut processes {
            p.parent = p.parent.map(|x| new_index[x]);
            for c in &mut p.children {
                *c = new_index[*c];
            }
        }
        let tree = ProcessTree {
            processes,
            owner: Vec::new(),
        };
        (tree, new_index)
    }
}

impl ProcessTree {
    /// Builds the tree of `rec` (see the module docs for the rules).
    pub fn build(rec: &Recording) -> ProcessTree {
        let mut b = TreeBuilder::new(true);
        for (i, ev) in rec.events.iter().enumerate() {
            b.note_spawn(i, ev);
        }
        for (i, ev) in rec.events.iter().enumerate() {
            b.add(i, ev);
        }
        ProcessTree::from_builder(b, rec.events.len())
    }

    /// The tree of a builder made with `keep_events` that saw `events`
    /// events, with every event's owner.
    pub fn from_builder(b: TreeBuilder, events: usize) -> ProcessTree {
        let (mut tree, _) = b.finish();
        // Owners from the threads' event lists (thread indices changed
        // when threads were sorted).
        tree.owner = vec![None; events];
        for (pi, p) in tree.processes.iter().enumerate() {
            for (ti, t) in p.threads.iter().enumerate() {
                for &e in &t.events {
                    tree.owner[e] = Some((pi, ti));
                }
            }
        }
        tree
    }

    /// The process with tree path `path`.
    pub fn find(&self, path: &TreePath) -> Option<&Process> {
        self.processes.iter().find(|p| &p.path == path)
    }

    /// The program of process `i`: its last exec, else its nearest
    /// ancestor's (a forked child runs its parent's image).
    pub fn program(&self, i: usize) -> Option<&str> {
        let mut cur = Some(i);
        while let Some(c) = cur {
            if let Some(p) = self.processes[c].program() {
                return Some(p);
            }
            cur = self.processes[c].parent;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(lines: &[&str]) -> Recording {
        Recording::parse(lines.join("\n").as_bytes()).unwrap()
    }

    #[test]
    fn processes_threads_execs_exits() {
        // The child's events come before the parent's vfork record (the
        // tracer prints a call when it returns), as in real recordings.
        let r = rec(&[
            r#"{"type":"syscall","pid":100,"syscall":"execve","args":["/bin/sh",["sh","-c","x"]],"return":0}"#,
            r#"{"type":"syscall","pid":101,"syscall":"execve","args":["/bin/ls",["ls"]],"return":0}"#,
            r#"{"type":"exit","pid":101,"exit_code":2}"#,
            r#"{"type":"syscall","pid":100,"syscall":"vfork","args":[],"return":101}"#,
            r#"{"type":"syscall","pid":100,"syscall":"clone3","args":[{"in":{"flags":{"flags":["CLONE_VM","CLONE_THREAD"]}}},88],"return":102}"#,
            r#"{"type":"syscall","pid":102,"syscall":"getpid","args":[],"return":100}"#,
            r#"{"type":"syscall","pid":102,"syscall":"clone","args":[{"expr":"flags=CLONE_CHILD_SETTID|SIGCHLD"}],"return":103}"#,
            r#"{"type":"exit","pid":103,"signal":"SIGKILL","core_dumped":false}"#,
            r#"{"type":"exit","pid":102,"status":"exited with 0"}"#,
            r#"{"type":"exit","pid":100,"status":"exited with 0"}"#,
        ]);
        let t = ProcessTree::build(&r);
        assert_eq!(t.processes.len(), 3);
        let root = &t.processes[0];
        assert_eq!(root.path.to_string(), "0");
        assert_eq!(root.pid, 100);
        assert_eq!(
            root.threads.iter().map(|t| t.tid).collect::<Vec<_>>(),
            vec![100, 102]
        );
        assert_eq!(root.program(), Some("/bin/sh"));
        assert_eq!(root.exit_code(), Some(0));
        let ls = t.find(&TreePath::parse("0.0").unwrap()).unwrap();
        assert_eq!(
            (ls.pid, ls.program(), ls.exit_code()),
            (101, Some("/bin/ls"), Some(2))
        );
        assert_eq!(ls.execs[0].argv, vec!["ls"]);
        let k = t.find(&TreePath::parse("0.1").unwrap()).unwrap();
        assert_eq!(k.pid, 103);
        assert_eq!(k.exit_status(), Some("killed by SIGKILL"));
        assert_eq!(k.exit_code(), None);
        assert_eq!(
            t.program(2),
            Some("/bin/sh"),
            "forked child runs its parent's image"
        );
        assert_eq!(t.owner[5], Some((0, 1)));
        assert_eq!(root.events, vec![0, 3, 4, 5, 6, 8, 9]);
    }

    #[test]
    fn pid_reuse_and_roots_and_ordinals() {
        let r = rec(&[
            r#"{"type":"syscall","pid":5,"syscall":"fork","args":[],"return":7}"#,
            r#"{"type":"exit","pid":7,"status":"exited with 1"}"#,
            r#"{"type":"syscall","pid":5,"syscall":"fork","args":[],"return":7}"#,
            r#"{"type":"syscall","pid":7,"syscall":"openat","args":[],"return":3}"#,
            r#"{"type":"syscall","pid":7,"syscall":"openat","args":[],"return":3}"#,
            r#"{"type":"syscall","pid":9,"syscall":"getpid","args":[],"return":9}"#,
        ]);
        let t = ProcessTree::build(&r);
        let paths: Vec<String> = t.processes.iter().map(|p| p.path.to_string()).collect();
        assert_eq!(paths, vec!["0", "0.0", "0.1", "1"]);
        let second = &t.processes[2];
        assert_eq!(second.pid, 7);
        assert_eq!(second.events, vec![3, 4]);
        assert_eq!(second.syscall_ordinal(&r, 4), Some(1));
        assert_eq!(t.processes[1].exit_code(), Some(1));
        assert_eq!(TreePath::parse("x"), None);
    }
}
