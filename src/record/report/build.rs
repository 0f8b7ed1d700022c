//! Building a report from a recording read as a stream: two passes over
//! the events ([`Report::note`], then [`Report::add`]), holding only what
//! the report shows (tables per syscall, file and peer, the process tree
//! without per-event lists, the `top` slowest calls), so memory does not
//! grow with the number of events.

use super::*;
use crate::tracefile::tree::TreeBuilder;

/// One of the slowest calls: its duration (ns), event index and event.
pub(super) type Slow = (u64, usize, Value);

impl Report {
    /// An empty report of the recording with `header`, keeping the `top`
    /// slowest calls.
    pub(super) fn new(header: Value, top: usize) -> Report {
        let probes = header["recorded"]["probes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(ProbeUse::new)
            .collect();
        Report {
            header,
            footer: None,
            events: 0,
            top,
            builder: TreeBuilder::new(false),
            tree: ProcessTree::default(),
            names: Interner::default(),
            total: Table::default(),
            per_process: Vec::new(),
            slowest: Vec::new(),
            slow_floor: 0,
            failures: BTreeMap::new(),
            files: BTreeMap::new(),
            peers: BTreeMap::new(),
            libcalls: BTreeMap::new(),
            probes,
            fds: Vec::new(),
        }
    }

    /// First pass over the events: event `i`.
    pub(super) fn note(&mut self, i: usize, ev: &Value) {
        self.builder.note_spawn(i, ev);
    }

    /// Second pass over the events: event `i`.
    pub(super) fn add(&mut self, i: usize, ev: &Value) {
        self.events += 1;
        let owner = self.builder.add(i, ev).map(|o| o.0);
        let n = self.builder.len();
        if self.per_process.len() < n {
            self.per_process.resize_with(n, Table::default);
            self.fds.resize(n, None);
        }
        if ev["type"] == "libcall" {
            let func = ev["func"].as_str().unwrap_or("?").to_string();
            let lib = ev["lib"].as_str().unwrap_or("").to_string();
            let u = self.libcalls.entry((func, lib)).or_default();
            u.calls += 1;
            u.unreturned += ev["return"].is_null() as u64;
            u.total += Duration::from_nanos(crate::tracefile::dur_ns(ev).unwrap_or(0));
        }
        if ev["type"] == "probe" {
            self.add_probe(owner, ev);
        }
        if ev["type"] != "syscall" {
            return;
        }
        self.total.add(&mut self.names, ev);
        if let Some(p) = owner {
            self.per_process[p].add(&mut self.names, ev);
        }
        let name = ev["syscall"].as_str().unwrap_or("");
        if let Some(d) = crate::tracefile::dur_ns(ev) {
            self.add_slow(d, i, ev);
        }
        let errno = ev["errno"].as_str();
        if let Some(e) = errno {
            let key = (
                name.to_string(),
                e.to_string(),
                path_of(ev).unwrap_or_default(),
            );
            *self.failures.entry(key).or_default() += 1;
        }
        // Descriptor tables per process: fd -> path, from successful
        // opens; a child starts with a copy of its parent's.
        if let Some(p) = owner.filter(|&p| self.fds[p].is_none()) {
            let inherited = self
                .builder
                .parent(p)
                .and_then(|q| self.fds[q].clone())
                .unwrap_or_default();
            self.fds[p] = Some(inherited);
        }
        let table = owner;
        if OPENS.contains(&name) && errno.is_none() {
            if let (Some(path), Some(fd)) = (path_of(ev), ev["return"].as_i64()) {
                let flags = open_flags(ev);
                let w = name == "creat"
                    || flags
                        .iter()
                        .any(|f| matches!(f.as_str(), "O_WRONLY" | "O_RDWR"));
                let u = self.files.entry(path.clone()).or_default();
                u.opens += 1;
                u.write_opens += w as u64;
                if let Some(t) = table.and_then(|p| self.fds[p].as_mut()) {
                    t.insert(fd, path);
                }
            }
        } else if name == "close" {
            let fd = ev["args"][0]["fd"].as_i64();
            if let (Some(t), Some(fd)) = (table.and_then(|p| self.fds[p].as_mut()), fd) {
                t.remove(&fd);
            }
        } else if WRITES.contains(&name) && errno.is_none() {
            let a = &ev["args"][0];
            let path = a["path"].as_str().map(str::to_string).or_else(|| {
                let fd = a["fd"].as_i64()?;
                table.and_then(|p| self.fds[p].as_ref()?.get(&fd).cloned())
            });
            if let Some(path) = path {
                let u = self.files.entry(path).or_default();
                u.writes += 1;
                u.bytes_written += ev["return"].as_u64().unwrap_or(0);
            }
        }
        if PEER_CALLS.contains(&name) {
            if let Some(p) = ev["args"].as_array().and_then(|a| a.iter().find_map(peer)) {
                let e = self.peers.entry((p, name.to_string())).or_default();
                e.0 += 1;
                e.1 += errno.is_some() as u64;
            }
        }
    }

    /// Keeps event `i` if it is among the `top` slowest so far: candidates
    /// collect up to twice `top`, then the slower half is kept.
    fn add_slow(&mut self, d: u64, i: usize, ev: &Value) {
        if self.top == 0 || d < self.slow_floor {
            return;
        }
        self.slowest.push((d, i, ev.clone()));
        if self.slowest.len() >= 2 * self.top + 16 {
            self.trim_slowest();
            self.slow_floor = self.slowest.last().map_or(0, |s| s.0);
        }
    }

    fn trim_slowest(&mut self) {
        self.slowest
            .sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.slowest.truncate(self.top);
    }

    fn add_probe(&mut self, owner: Option<usize>, ev: &Value) {
        let spec = ev["spec"].as_str().unwrap_or("?");
        let k = match self.probes.iter().position(|p| p.spec == spec) {
            Some(k) => k,
            None => {
                self.probes.push(ProbeUse::new(spec));
                self.probes.len() - 1
            }
        };
        let p = &mut self.probes[k];
        p.hits += 1;
        if let Some(ns) = ev["dur_ns"].as_u64().or_else(|| ev["duration_ns"].as_u64()) {
            p.in_call += Duration::from_nanos(ns);
            p.returns += 1;
        }
        if let Some(proc_) = owner {
            *p.per_process.entry(proc_).or_default() += 1;
        }
    }

    /// After the second pass: the process tree, and the tables per process
    /// in its order.
    pub(super) fn finish(&mut self, footer: Option<Value>) {
        self.footer = footer;
        self.trim_slowest();
        self.fds = Vec::new();
        let builder = std::mem::replace(&mut self.builder, TreeBuilder::new(false));
        let (tree, new_index) = builder.finish();
        let mut per_process: Vec<Table> = (0..tree.processes.len())
            .map(|_| Table::default())
            .collect();
        for (old, t) in std::mem::take(&mut self.per_process)
            .into_iter()
            .enumerate()
        {
            per_process[new_index[old]] = t;
        }
        self.per_process = per_process;
        for p in &mut self.probes {
            p.per_process = std::mem::take(&mut p.per_process)
                .into_iter()
                .map(|(k, n)| (new_index[k], n))
                .collect();
        }
        self.tree = tree;
    }
}
