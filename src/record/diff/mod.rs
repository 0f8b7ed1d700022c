//! `rtrace diff A B [--json] [--context N]`: compares two recordings of the
//! same command.
//!
//! Processes are matched by tree path ([`crate::tracefile::tree`]) and exec'd program;
//! threads by their rank in the process. Each thread pair's syscalls are
//! normalised ([`normalize`]) and aligned ([`align`]); the first meaningful
//! divergence (in A's file order) is shown with context from both sides,
//! then a summary. Exit status: 0 no meaningful difference, 1 different,
//! 2 trouble (as diff(1)).
//!
//! Environment probes ([`environment::PROBES`]: what the inherited fds 0–2
//! are, locale files) take no part in that alignment: each thread pair's
//! probes are aligned on their own afterwards and their differences listed
//! in a separate section, with both runs' values. They are not a
//! divergence: recordings that differ only there are "no meaningful
//! difference" (exit status 0), the report says that the environment
//! differs. Successful writes to the inherited fds 1 and 2 are compared as
//! one stream per process and fd (number of writes and bytes, reported, not
//! a difference), since stdio's buffering, and so the chunking, follows
//! what stdout is.
//!
//! Only system calls are compared: the library calls of `--libcalls`
//! recordings (`"type":"libcall"`) are read and ignored (their syscalls,
//! recorded with them, are compared as usual; `rtrace report` counts the
//! library calls). Probe hits (`"type":"probe"`, `--probe`) take no part in
//! the alignment either (a breakpoint stops no syscall, so the sequences
//! are those of a run without probes); the summary compares the number of
//! hits of each spec that both recordings list in their header
//! (`recorded.probes`), and a different count is a difference. Specs
//! recorded on one side only are named, not compared.

mod align;
mod environment;
pub(crate) mod normalize;
mod report;

use crate::record::cli::DiffArgs;
use crate::tracefile::tree::{ProcessTree, TreeBuilder};
use crate::tracefile::Rewindable;
use align::Op;
use normalize::{Class, FdNames, Norm};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

/// One loaded, normalised recording. Read as a stream in two passes
/// ([`Rewindable`]): what is held per event is its normalised form and,
/// for a syscall, its one-line text (what the report quotes), never the
/// event's JSON.
pub(crate) struct Side {
    pub(crate) name: String,
    /// The `header` object (`Value::Null` when the file has none).
    header: Value,
    /// The `footer` object, when the recording finished.
    footer: Option<Value>,
    /// Events read.
    events: usize,
    pub(crate) tree: ProcessTree,
    /// Per event: its normalised form, when it takes part in the comparison.
    norms: Vec<Option<Norm>>,
    /// Per event: its text ([`normalize::render`]) when it is a syscall.
    texts: Vec<Option<Box<str>>>,
    /// Probe hits per spec (`"type":"probe"` events).
    hits: HashMap<String, u64>,
    /// Per event: interned key.
    keys: Vec<u32>,
}

impl Side {
    fn load(path: &std::path::Path) -> Result<Side, String> {
        let err = |e: std::io::Error| format!("{}: {e}", path.display());
        let mut file = Rewindable::open(path).map_err(err)?;
        let mut b = TreeBuilder::new(true);
        file.each(|i, ev| b.note_spawn(i, &ev)).map_err(err)?;
        // Per process (builder numbering): its descriptors' names.
        let mut tables: Vec<Option<FdNames>> = Vec::new();
        let (mut norms, mut texts, mut hits) = (Vec::new(), Vec::new(), HashMap::new());
        let last = file
            .each(|i, ev| {
                let owner = b.add(i, &ev);
                if ev["type"] == "probe" {
                    let spec = ev["spec"].as_str().unwrap_or("?");
                    *hits.entry(spec.to_string()).or_default() += 1;
                }
                let syscall = ev["type"] == "syscall";
                texts.push(syscall.then(|| normalize::render(&ev).into_boxed_str()));
                let Some((p, _)) = owner.filter(|_| syscall && !normalize::is_noise(&ev)) else {
                    norms.push(None);
                    return;
                };
                if tables.len() <= p {
                    tables.resize(p + 1, None);
                }
                if tables[p].is_none() {
                    let inherited = b.parent(p).and_then(|pp| tables[pp].clone());
                    tables[p] = Some(inherited.unwrap_or_default());
                }
                norms.push(Some(normalize::normalize(&ev, tables[p].as_mut().unwrap())));
            })
            .map_err(err)?;
        if let Some(cut) = &last.cut {
            eprintln!("rtrace diff: warning: {}: {cut}", path.display());
        }
        Ok(Side {
            name: path.display().to_string(),
            header: last.header,
            footer: last.footer,
            events: last.events,
            tree: ProcessTree::from_builder(b, last.events),
            norms,
            texts,
            hits,
            keys: Vec::new(),
        })
    }

    /// The one-line text of event `e` (a syscall).
    pub(crate) fn text(&self, e: usize) -> &str {
        self.texts.get(e).and_then(|t| t.as_deref()).unwrap_or("?")
    }

    /// Gives every key a number shared with the other side.
    fn intern(&mut self, table: &mut HashMap<String, u32>) {
        self.keys = self
            .norms
            .iter()
            .map(|n| match n {
                Some(n) => {
                    let next = table.len() as u32;
                    *table.entry(n.key.clone()).or_insert(next)
                }
                None => u32::MAX,
            })
            .collect();
    }

    fn syscall_name(&self, e: usize) -> &str {
        let t = self.text(e);
        t.split_once('(').map_or(t, |(name, _)| name)
    }

    fn program(&self, p: usize) -> String {
        let root = &self.tree.processes[p];
        let argv0 = || {
            // rltrace's engine (`--libcalls`) records no exec of the command.
            (root.parent.is_none() && root.execs.is_empty())
                .then(|| self.header["command"][0].as_str())
                .flatten()
        };
        self.tree
            .program(p)
            .or_else(argv0)
            .unwrap_or("?")
            .to_string()
    }

    fn label(&self, p: usize) -> String {
        format!("{} {}", self.tree.processes[p].path, self.program(p))
    }

    /// The syscall events of thread `t` of process `p` whose class
    /// satisfies `keep`.
    pub(super) fn events_where(
        &self,
        p: usize,
        t: usize,
        keep: impl Fn(&Class) -> bool,
    ) -> Vec<usize> {
        self.tree.processes[p]
            .threads
            .get(t)
            .map_or(Vec::new(), |th| {
                th.events
                    .iter()
                    .copied()
                    .filter(|&e| self.norms[e].as_ref().is_some_and(|n| keep(&n.class)))
                    .collect()
            })
    }

    /// The behavioural syscall events of thread `t` of process `p`.
    fn seq(&self, p: usize, t: usize) -> Vec<usize> {
        self.events_where(p, t, |c| *c == Class::Behaviour)
    }
}

/// What kind of divergence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Aligned calls with different results.
    Result,
    /// Calls only in A.
    OnlyA,
    /// Calls only in B.
    OnlyB,
    /// Calls only in A in place of calls only in B.
    Changed,
}

impl Kind {
    pub(crate) fn text(self) -> &'static str {
        match self {
            Kind::Result => "different result",
            Kind::OnlyA => "only in A",
            Kind::OnlyB => "only in B",
            Kind::Changed => "different calls",
        }
    }
}

/// The first divergence of one thread pair.
#[derive(Debug, Clone)]
pub(crate) struct Divergence {
    /// Sort key: A's event index at (or just before) the divergence, then
    /// B's, then the process path.
    anchor: (usize, usize, String),
    pub(crate) kind: Kind,
    pub(crate) proc_a: usize,
    pub(crate) proc_b: usize,
    pub(crate) thread: usize,
    /// Event indices: context before, then the divergent lines.
    pub(crate) ctx_a: Vec<usize>,
    pub(crate) ctx_b: Vec<usize>,
    pub(crate) at_a: Vec<usize>,
    pub(crate) at_b: Vec<usize>,
}

/// Everything `rtrace diff` reports.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) first: Option<Divergence>,
    pub(crate) only_a: BTreeMap<String, usize>,
    pub(crate) only_b: BTreeMap<String, usize>,
    pub(crate) results: BTreeMap<String, usize>,
    pub(crate) files_a: BTreeSet<String>,
    pub(crate) files_b: BTreeSet<String>,
    pub(crate) procs_a: Vec<String>,
    pub(crate) procs_b: Vec<String>,
    /// (process, A status, B status).
    pub(crate) exits: Vec<(String, String, String)>,
    pub(crate) exit_code: Option<(String, String)>,
    /// Probe specs recorded on both sides whose hit counts differ: (spec,
    /// A's hits, B's hits), in A's header order.
    pub(crate) probes: Vec<(String, u64, u64)>,
    /// Probe specs recorded on one side only, with the side (`A`/`B`).
    pub(crate) probes_one_side: Vec<(String, &'static str)>,
    /// Whether either recording has probes.
    pub(crate) any_probes: bool,
    /// Environment probes that differ, in process order, then A's order.
    pub(crate) env: Vec<environment::EnvDiff>,
    /// Output streams (fd 1 and 2) written in different chunks or sizes
    /// (reported, not a difference).
    pub(crate) output: Vec<environment::OutputDiff>,
}

impl Outcome {
    pub(crate) fn different(&self) -> bool {
        self.first.is_some()
            || !self.procs_a.is_empty()
            || !self.procs_b.is_empty()
            || !self.exits.is_empty()
            || self.exit_code.is_some()
            || !self.files_a.is_empty()
            || !self.files_b.is_empty()
            || !self.probes.is_empty()
    }

    /// Whether the runs' environment probes differ (not a meaningful
    /// difference).
    pub(crate) fn env_differs(&self) -> bool {
        !self.env.is_empty()
    }
}

/// The probe specs a recording's header lists, and the hits per spec.
fn probe_hits(s: &Side) -> (Vec<String>, HashMap<String, u64>) {
    let specs: Vec<String> = s.header["recorded"]["probes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    (specs, s.hits.clone())
}

/// Fills the probe part of `out` (see the module docs).
fn compare_probes(a: &Side, b: &Side, out: &mut Outcome) {
    let (sa, ha) = probe_hits(a);
    let (sb, hb) = probe_hits(b);
    out.any_probes = !(sa.is_empty() && sb.is_empty() && ha.is_empty() && hb.is_empty());
    for spec in &sa {
        if !sb.contains(spec) {
            out.probes_one_side.push((spec.clone(), "A"));
            continue;
        }
        let (x, y) = (
            ha.get(spec).copied().unwrap_or(0),
            hb.get(spec).copied().unwrap_or(0),
        );
        if x != y {
            out.probes.push((spec.clone(), x, y));
        }
    }
    for spec in sb.iter().filter(|s| !sa.contains(s)) {
        out.probes_one_side.push((spec.clone(), "B"));
    }
}

/// Pairs processes: same path and program; then, among the children of a
/// matched pair, same program in spawn order; then same path regardless
/// of program (aligned anyway, the exec shows as the divergence).
#[allow(clippy::needless_range_loop)]
fn match_processes(a: &Side, b: &Side) -> Vec<(Option<usize>, Option<usize>)> {
    let (na, nb) = (a.tree.processes.len(), b.tree.processes.len());
    let mut ma: Vec<Option<usize>> = vec![None; na];
    let mut mb: Vec<Option<usize>> = vec![None; nb];
    let by_path: HashMap<_, usize> = b
        .tree
        .processes
        .iter()
        .enumerate()
        .map(|(i, p)| (p.path.clone(), i))
        .collect();
    for i in 0..na {
        if let Some(&j) = by_path.get(&a.tree.processes[i].path) {
            if a.program(i) == b.program(j) && mb[j].is_none() {
                ma[i] = Some(j);
                mb[j] = Some(i);
            }
        }
    }
    for i in 0..na {
        if ma[i].is_some() {
            continue;
        }
        let pb = a.tree.processes[i].parent.and_then(|pa| ma[pa]);
        let cand = (0..nb).find(|&j| {
            mb[j].is_none()
                && b.tree.processes[j].parent == pb
                && pb.is_some()
                && a.program(i) == b.program(j)
        });
        if let Some(j) = cand {
            ma[i] = Some(j);
            mb[j] = Some(i);
        }
    }
    for i in 0..na {
        if let (None, Some(&j)) = (ma[i], by_path.get(&a.tree.processes[i].path)) {
            if mb[j].is_none() {
                ma[i] = Some(j);
                mb[j] = Some(i);
            }
        }
    }
    let mut pairs: Vec<(Option<usize>, Option<usize>)> =
        (0..na).map(|i| (Some(i), ma[i])).collect();
    pairs.extend(
        (0..nb)
            .filter(|&j| mb[j].is_none())
            .map(|j| (None, Some(j))),
    );
    pairs
}

/// Compares two loaded recordings.
pub(crate) fn compare(a: &Side, b: &Side, context: usize) -> Outcome {
    let mut out = Outcome::default();
    let mut firsts: Vec<Divergence> = Vec::new();
    for (pa, pb) in match_processes(a, b) {
        let (i, j) = match (pa, pb) {
            (Some(i), Some(j)) => (i, j),
            (Some(i), None) => {
                out.procs_a.push(a.label(i));
                continue;
            }
            (None, Some(j)) => {
                out.procs_b.push(b.label(j));
                continue;
            }
            (None, None) => continue,
        };
        let threads = a.tree.processes[i]
            .threads
            .len()
            .max(b.tree.processes[j].threads.len());
        for t in 0..threads {
            let (sa, sb) = (a.seq(i, t), b.seq(j, t));
            let ka: Vec<u32> = sa.iter().map(|&e| a.keys[e]).collect();
            let kb: Vec<u32> = sb.iter().map(|&e| b.keys[e]).collect();
            let ops = align::align(&ka, &kb, align::MAX_D);
            if let Some(d) = thread_divergence(a, b, (i, j, t), &sa, &sb, &ops, context, &mut out) {
                firsts.push(d);
            }
            environment::differences(a, b, (i, j, t), &mut out);
        }
        let (oa, ob) = (a.output(i), b.output(j));
        for (k, fd) in [(0, 1), (1, 2)] {
            if oa[k] != ob[k] {
                out.output.push((a.label(i), fd, oa[k], ob[k]));
            }
        }
        let (ea, eb) = (
            a.tree.processes[i].exit_status(),
            b.tree.processes[j].exit_status(),
        );
        if ea != eb {
            let (ea, eb) = (
                ea.unwrap_or("(not recorded)"),
                eb.unwrap_or("(not recorded)"),
            );
            out.exits.push((a.label(i), ea.to_string(), eb.to_string()));
        }
    }
    for (side, files) in [(a, &mut out.files_a), (b, &mut out.files_b)] {
        for n in side.norms.iter().flatten() {
            files.extend(n.files.iter().cloned());
        }
    }
    let common: BTreeSet<String> = out.files_a.intersection(&out.files_b).cloned().collect();
    out.files_a.retain(|f| !common.contains(f));
    out.files_b.retain(|f| !common.contains(f));
    let code = |s: &Side| s.footer.as_ref().map(|f| f["exit_code"].to_string());
    if let (Some(x), Some(y)) = (code(a), code(b)) {
        if x != y {
            out.exit_code = Some((x, y));
        }
    }
    compare_probes(a, b, &mut out);
    firsts.sort_by(|x, y| x.anchor.cmp(&y.anchor));
    out.first = firsts.into_iter().next();
    out
}

/// Counts one thread pair's differences into `out`; returns its first one.
#[allow(clippy::too_many_arguments)]
fn thread_divergence(
    a: &Side,
    b: &Side,
    (i, j, t): (usize, usize, usize),
    sa: &[usize],
    sb: &[usize],
    ops: &[Op],
    context: usize,
    out: &mut Outcome,
) -> Option<Divergence> {
    let mut first: Option<usize> = None;
    for (k, op) in ops.iter().enumerate() {
        let divergent = match *op {
            Op::Same(x, y) => {
                let (na, nb) = (
                    a.norms[sa[x]].as_ref().unwrap(),
                    b.norms[sb[y]].as_ref().unwrap(),
                );
                let d = na.result != nb.result;
                if d {
                    *out.results
                        .entry(a.syscall_name(sa[x]).to_string())
                        .or_default() += 1;
                }
                d
            }
            Op::OnlyA(x) => {
                *out.only_a
                    .entry(a.syscall_name(sa[x]).to_string())
                    .or_default() += 1;
                true
            }
            Op::OnlyB(y) => {
                *out.only_b
                    .entry(b.syscall_name(sb[y]).to_string())
                    .or_default() += 1;
                true
            }
        };
        if divergent && first.is_none() {
            first = Some(k);
        }
    }
    let k = first?;
    let ctx: Vec<(usize, usize)> = ops[..k]
        .iter()
        .rev()
        .take(context)
        .filter_map(|op| {
            if let Op::Same(x, y) = *op {
                Some((sa[x], sb[y]))
            } else {
                None
            }
        })
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let (mut at_a, mut at_b) = (Vec::new(), Vec::new());
    let kind = if let Op::Same(x, y) = ops[k] {
        at_a.push(sa[x]);
        at_b.push(sb[y]);
        Kind::Result
    } else {
        for op in ops[k..].iter().take_while(|op| !matches!(op, Op::Same(..))) {
            match *op {
                Op::OnlyA(x) if at_a.len() < 3 => at_a.push(sa[x]),
                Op::OnlyB(y) if at_b.len() < 3 => at_b.push(sb[y]),
                _ => {}
            }
        }
        match (at_a.is_empty(), at_b.is_empty()) {
            (false, true) => Kind::OnlyA,
            (true, false) => Kind::OnlyB,
            _ => Kind::Changed,
        }
    };
    let before =
        |side_first: Option<usize>, ctx_last: Option<usize>| side_first.or(ctx_last).unwrap_or(0);
    let anchor = (
        before(at_a.first().copied(), ctx.last().map(|c| c.0)),
        before(at_b.first().copied(), ctx.last().map(|c| c.1)),
        a.tree.processes[i].path.to_string(),
    );
    Some(Divergence {
        anchor,
        kind,
        proc_a: i,
        proc_b: j,
        thread: t,
        ctx_a: ctx.iter().map(|c| c.0).collect(),
        ctx_b: ctx.iter().map(|c| c.1).collect(),
        at_a,
        at_b,
    })
}

/// Runs `rtrace diff`, parsed by clap; returns the exit code.
pub fn main(args: DiffArgs) -> i32 {
    let files: [PathBuf; 2] = [args.a, args.b];
    let (json, context) = (args.json, args.context);
    // Load both sides in parallel; keys are interned afterwards.
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| Side::load(&files[0]));
        let hb = s.spawn(|| Side::load(&files[1]));
        (join(ha), join(hb))
    });
    let (mut a, mut b) = match (ra, rb) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("rtrace diff: {e}");
            return 2;
        }
    };
    let mut intern = HashMap::new();
    a.intern(&mut intern);
    b.intern(&mut intern);
    if a.events == 0 && b.events == 0 {
        eprintln!("rtrace diff: warning: both recordings have no events");
    }
    let outcome = compare(&a, &b, context);
    let text = if json {
        report::json(&a, &b, &outcome).to_string() + "\n"
    } else {
        report::text(&a, &b, &outcome)
    };
    if super::print_stdout(&text).is_err() {
        return 2;
    }
    let code = i32::from(outcome.different());
    // Freeing a million small JSON values takes longer than the exit does.
    std::mem::forget((a, b, outcome));
    code
}

fn join(h: std::thread::ScopedJoinHandle<'_, Result<Side, String>>) -> Result<Side, String> {
    h.join()
        .unwrap_or_else(|_| Err("internal error while loading".to_string()))
}
