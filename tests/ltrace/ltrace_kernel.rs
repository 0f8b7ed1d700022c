//! rltrace's kernel backend (uprobes and uretprobes read from a tracefs
//! instance) against its ptrace backend: the same programs run with
//! `--backend ptrace` and `--backend kernel` print the same trace (plain,
//! `-T`, `-n`, `-t`/`-r`, `-s`, `-A`, `-C`, `-b`, signals, nested and
//! recursive calls, setjmp/longjmp, 4 threads) once times are normalised,
//! and count the same calls with `-c` (the kernel's with real, non-zero
//! times); `auto` takes the kernel where it fits and ptrace where it does
//! not, as `-D 1` shows; tracefs is left as it was, and a running rltrace
//! is a live owner for `rtrace kernel cleanup`.
//!
//! Runs are made with address randomisation off (`setarch -R`), so both
//! backends see the same addresses. Parallel-safe: each rltrace owns the
//! tracefs group and instance named after its own pid. Skips with a
//! printed reason when not root or when tracefs/uprobes are unavailable.

use crate::common;
use crate::ltrace_util;

use common::PrivateCopy;
use ltrace_util::{rltrace, temp, Run};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The tracefs root with uprobe events, or None (and why) to skip.
pub(crate) fn tracefs() -> Option<PathBuf> {
    let root = common::uprobe_tracefs()?;
    if !common::have("setarch") {
        eprintln!("skip: setarch (util-linux) is needed to turn off ASLR");
        return None;
    }
    Some(root)
}

/// The link variants of ltrace.rs that have PLT stubs (`-fno-plt`
/// has none: see `auto_takes_ptrace_where_the_kernel_cannot_show_it`).
const VARIANTS: &[(&str, &[&str])] = &[
    ("lazy", &["-fno-builtin"]),
    ("now", &["-fno-builtin", "-Wl,-z,now"]),
    (
        "ibt",
        &[
            "-fno-builtin",
            "-fcf-protection",
            "-Wl,-z,now",
            "-Wl,-z,ibtplt",
        ],
    ),
];

fn prog(name: &str) -> PathBuf {
    common::testprog_variant(name, "lazy", &["-fno-builtin"])
}

/// `setarch -R rltrace OPTS -o FILE PROG ARGS`, on a private copy of PROG.
pub(crate) fn run(opts: &[&str], prog: &Path, args: &[&str]) -> Run {
    let copy = PrivateCopy::new(prog);
    run_on(opts, copy.path(), args)
}

fn run_on(opts: &[&str], prog: &Path, args: &[&str]) -> Run {
    let mut setarch = Command::new("setarch");
    setarch.arg("-R").arg(rltrace());
    ltrace_util::run_cmd(setarch, opts, prog, args)
}

fn with(backend: &str, opts: &[&str]) -> Vec<String> {
    let mut v = vec!["--backend".to_string(), backend.to_string()];
    v.extend(opts.iter().map(|s| s.to_string()));
    v
}

/// Both backends on the same program: (kernel, ptrace).
pub(crate) fn both(opts: &[&str], prog: &Path, args: &[&str]) -> (Run, Run) {
    let k = with("kernel", opts);
    let p = with("ptrace", opts);
    let k: Vec<&str> = k.iter().map(|s| s.as_str()).collect();
    let p: Vec<&str> = p.iter().map(|s| s.as_str()).collect();
    let copy = PrivateCopy::new(prog);
    let kr = run_on(&k, copy.path(), args);
    let pr = run_on(&p, copy.path(), args);
    assert_eq!(kr.code, pr.code, "exit codes: {}\n{}", kr.stderr, pr.stderr);
    assert!(
        !kr.stderr.contains("rltrace:"),
        "kernel backend complained: {}",
        kr.stderr
    );
    (kr, pr)
}

/// Times made `T`: `-T`'s `<0.000012>`, and the `-t`/`-tt`/`-ttt`/`-r`
/// stamp that starts a line (after a `PID ` prefix).
fn untimed(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        let mut l = line.to_string();
        if let Some(p) = l.rfind(" <") {
            let tail = &l[p + 2..];
            if tail.ends_with('>') && tail[..tail.len() - 1].parse::<f64>().is_ok() {
                l.truncate(p);
                l.push_str(" <T>");
            }
        }
        let (pid, rest) = match l.split_once(' ') {
            Some((p, r)) if p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty() => {
                (format!("{p} "), r.to_string())
            }
            _ => (String::new(), l.clone()),
        };
        let rest = rest.trim_start();
        let stamp = rest.split(' ').next().unwrap_or("");
        let is_time = !stamp.is_empty()
            && stamp
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ':')
            && stamp.contains(['.', ':']);
        if is_time && rest.len() > stamp.len() {
            // Keep the width of what follows (the alignment column).
            l = format!("{pid}T{}", &rest[stamp.len()..]);
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Asserts the two traces are the same once times are normalised.
pub(crate) fn same(what: &str, k: &Run, p: &Run) {
    let (a, b) = (untimed(&k.trace), untimed(&p.trace));
    assert!(!a.is_empty(), "{what}: empty trace: {}", k.stderr);
    if a != b {
        let diff: Vec<String> = a
            .lines()
            .zip(b.lines())
            .filter(|(x, y)| x != y)
            .take(5)
            .map(|(x, y)| format!("kernel: {x}\nptrace: {y}"))
            .collect();
        panic!(
            "{what}: traces differ ({} vs {} lines)\n{}\n--- kernel:\n{}",
            a.lines().count(),
            b.lines().count(),
            diff.join("\n"),
            k.trace
        );
    }
}

#[test]
fn plain_output_is_identical_in_every_build() {
    let Some(_) = tracefs() else { return };
    for (v, flags) in VARIANTS {
        let p = common::testprog_variant("lt_calls", v, flags);
        let (k, pt) = both(&[], &p, &[]);
        assert_eq!(k.code, Some(3), "{v}: {}", k.stderr);
        assert!(k.trace.contains("strlen(\"hello world\")"), "{}", k.trace);
        same(v, &k, &pt);
    }
    for name in ["lt_longjmp", "lt_diff", "ltk_nested"] {
        let p = prog(name);
        let (k, pt) = both(&[], &p, &[]);
        same(name, &k, &pt);
    }
    // lt_bench: labs by uprobes, its final printf (a format with no
    // float) by its uprobe too.
    let (k, pt) = both(&[], &prog("lt_bench"), &["300"]);
    assert_eq!(k.trace.matches("\nlabs(").count(), 300, "{}", k.trace);
    assert!(
        k.trace.contains("printf(\"sum %ld\\n\", 44850) "),
        "{}",
        k.trace
    );
    same("lt_bench", &k, &pt);
}

#[test]
fn functions_the_kernel_cannot_show_get_ptrace_breakpoints() {
    let Some(_) = tracefs() else { return };
    // printf with no floating-point format in the program: a uprobe
    // (tests/ltrace/ltrace_kprintf.rs has the rest).
    let (b, r) = backend(&[], &prog("lt_bench"), &["10"]);
    assert!(
        b.starts_with("rltrace: backend kernel: uprobes on 3 PLT stub(s)")
            && !b.contains("ptrace breakpoints"),
        "{b}"
    );
    assert!(
        r.trace.contains("printf(\"sum %ld\\n\", 45) "),
        "{}",
        r.trace
    );
    // Nesting across the two kinds: qsort given a prototype the kernel
    // cannot fetch (an array shown from memory) is caught by ptrace, the
    // labs calls its comparator makes by uprobes, and the inner qsort by
    // ptrace again; -n indents them by the same depth as ptrace does.
    let conf = temp("qsort.conf");
    std::fs::write(
        &conf,
        "void qsort(array(long,arg2)*, ulong, ulong, addr);\n",
    )
    .unwrap();
    let conf = conf.to_str().unwrap();
    let nested = prog("ltk_nested");
    for opts in [&["-F", conf, "-n", "2"][..], &["-F", conf, "-T"]] {
        let (k, pt) = both(opts, &nested, &[]);
        same(&format!("{opts:?}"), &k, &pt);
    }
    let (k, _) = both(&["-F", conf, "-n", "2"], &nested, &[]);
    assert!(
        k.trace.contains("qsort([ -5, 3, -1, 4... ], 5, 8, ")
            && k.trace.contains("\n  qsort([ 7, -6 ], 2, 8, ")
            && k.trace.contains("\n    labs(7) "),
        "{}",
        k.trace
    );
    let (b, _) = backend(&["-F", conf], &nested, &[]);
    assert!(b.contains("ptrace breakpoints on 1 (qsort's"), "{b}");
    let _ = std::fs::remove_file(conf);
    // A bad line in a -F file is reported by this backend too (and the
    // rest of the file used), as the ptrace backend reports it.
    let bad = temp("bad.conf");
    std::fs::write(&bad, "int labs(nosuchtype);\nlong labs(long);\n").unwrap();
    let r = run(
        &["--backend", "kernel", "-F", bad.to_str().unwrap()],
        &prog("lt_bench"),
        &["3"],
    );
    let _ = std::fs::remove_file(&bad);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    // In the trace output, as ltrace reports it.
    assert!(r.trace.contains(":1: error: unknown type"), "{}", r.trace);
    assert!(r.trace.contains("\nlabs(-2) "), "{}", r.trace);
}

#[test]
fn options_give_identical_output() {
    let Some(_) = tracefs() else { return };
    let nested = prog("ltk_nested");
    let calls = prog("lt_calls");
    for opts in [
        &["-T"][..],
        &["-n", "2"],
        &["-n", "3", "-T"],
        &["-t"],
        &["-tt", "-T"],
        &["-ttt"],
        &["-r"],
        &["-s", "5"],
        &["-s", "0"],
        &["-A", "1"],
        &["-a", "20"],
        &["-C"],
        &["-b"],
        &["-e", "strlen+strchr"],
        &["-e", "@MAIN-labs"],
    ] {
        for p in [&nested, &calls] {
            let (k, pt) = both(opts, p, &[]);
            same(&format!("{opts:?} {}", p.display()), &k, &pt);
        }
    }
    // -n: nested calls are indented.
    let (k, _) = both(&["-n", "2"], &nested, &[]);
    assert!(k.trace.contains("\n    labs(7) "), "{}", k.trace);
    // -T: real durations, not all zero.
    let (k, _) = both(&["-T"], &nested, &[]);
    assert!(
        k.trace
            .lines()
            .any(|l| l.ends_with('>') && !l.ends_with("<0.000000>")),
        "{}",
        k.trace
    );
    // The signal line and the call its handler made.
    assert!(
        k.trace.contains("--- SIGUSR1 (User defined signal 1) ---"),
        "{}",
        k.trace
    );
}

/// Each thread's lines (entries joined with their `resumed` part), by
/// thread, in thread order of first appearance; tids replaced.
fn per_thread(trace: &str) -> Vec<Vec<String>> {
    let mut order: Vec<String> = Vec::new();
    let mut lines: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut open: BTreeMap<String, String> = BTreeMap::new();
    // Lines before the first thread have no pid prefix: they are the main
    // thread's, which ends the trace.
    let main = trace
        .lines()
        .last()
        .and_then(|l| l.split_once(' '))
        .map_or("0", |(t, _)| t);
    for l in trace.lines() {
        let (tid, rest) = match l.split_once(' ') {
            Some((t, r)) if t.chars().all(|c| c.is_ascii_digit()) => (t, r),
            _ => (main, l),
        };
        let rest = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        if !order.iter().any(|t| t == tid) {
            order.push(tid.to_string());
        }
        let v = lines.entry(tid.to_string()).or_default();
        if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            open.insert(tid.to_string(), head.to_string());
        } else if let Some(tail) = rest.strip_prefix("<... ") {
            let head = open.remove(tid).expect("resumed without entry");
            let tail = tail.split_once(" resumed> ").expect("resumed").1;
            v.push(format!("{head}{tail}"));
        } else {
            v.push(rest);
        }
    }
    assert!(open.is_empty(), "unfinished calls left: {open:?}");
    // pthread_barrier_wait returns PTHREAD_BARRIER_SERIAL_THREAD (-1) to
    // one of the threads, whichever the scheduler makes last: not part of
    // what is compared.
    for v in lines.values_mut() {
        for l in v.iter_mut() {
            if l.starts_with("pthread_barrier_wait(") && l.ends_with(" = -1") {
                l.truncate(l.len() - 2);
                l.push('0');
            }
        }
    }
    let mut v: Vec<Vec<String>> = order.iter().map(|t| lines[t].clone()).collect();
    v.sort();
    v
}

#[test]
fn four_threads_identical_per_thread() {
    let Some(_) = tracefs() else { return };
    let p = prog("lt_threads");
    // pthread_create's result is an out-parameter: a ptrace breakpoint.
    let (k, pt) = both(&[], &p, &[]);
    assert_eq!(k.code, Some(0), "{}", k.stderr);
    let (a, b) = (per_thread(&k.trace), per_thread(&pt.trace));
    assert_eq!(
        a.len(),
        5,
        "main + 4 threads: {}",
        &k.trace[..2000.min(k.trace.len())]
    );
    let workers = a
        .iter()
        .filter(|t| t.iter().filter(|l| l.starts_with("abs(")).count() == 10_000)
        .count();
    assert_eq!(workers, 4, "4 threads of 10000 abs calls");
    assert_eq!(
        a.iter()
            .flatten()
            .filter(|l| l.starts_with("pthread_create("))
            .count(),
        4,
        "main's 4 pthread_create calls: {a:?}"
    );
    assert_eq!(a, b, "per-thread traces differ");
    // -c: same counts.
    let (k, pt) = both(&["-c"], &p, &[]);
    assert_eq!(table(&k.trace).0, table(&pt.trace).0);
    assert_eq!(table(&k.trace).0["abs"], 40_000);
}

/// `-c`: function -> calls, and the total seconds.
fn table(text: &str) -> (BTreeMap<String, u64>, f64) {
    let mut rows = BTreeMap::new();
    let mut total = -1.0;
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() == 5 && f[0].parse::<f64>().is_ok() && f[1].parse::<f64>().is_ok() {
            rows.insert(f[4].to_string(), f[3].parse().expect("calls"));
        }
        if f.len() == 4 && f[3] == "total" {
            total = f[1].parse().expect("seconds");
        }
    }
    (rows, total)
}

#[test]
fn count_with_times_equals_ptrace() {
    let Some(_) = tracefs() else { return };
    for (v, flags) in VARIANTS {
        let p = common::testprog_variant("lt_calls", v, flags);
        let (k, pt) = both(&["-c"], &p, &[]);
        let ((kr, kt), (pr, _)) = (table(&k.trace), table(&pt.trace));
        assert!(!kr.is_empty(), "{v}: {}", k.trace);
        assert_eq!(kr, pr, "{v}:\n{}\n{}", k.trace, pt.trace);
        assert!(kt > 0.0, "{v}: no time measured: {}", k.trace);
        assert!(k
            .trace
            .starts_with("% time     seconds  usecs/call     calls      function\n"));
    }
    let b = prog("lt_bench");
    let (k, pt) = both(&["-c"], &b, &["20000"]);
    let ((kr, kt), (pr, _)) = (table(&k.trace), table(&pt.trace));
    assert_eq!(kr, pr);
    assert_eq!(kr["labs"], 20_000);
    assert!(kt > 0.0, "{}", k.trace);
    // Every row has a time (sorted by it, as the ptrace table).
    let labs = k.trace.lines().find(|l| l.ends_with(" labs")).unwrap();
    let f: Vec<&str> = labs.split_whitespace().collect();
    assert!(f[1].parse::<f64>().unwrap() > 0.0, "{labs}");
    // setjmp (no return probe) and longjmp'd calls (no return): counted.
    let (k, pt) = both(&["-c"], &prog("lt_longjmp"), &[]);
    assert_eq!(table(&k.trace).0, table(&pt.trace).0);
    assert_eq!(table(&k.trace).0["qsort"], 2, "{}", k.trace);
}

/// The backend `-D 1` says ran, and its reason for ptrace.
pub(crate) fn backend(opts: &[&str], prog: &Path, args: &[&str]) -> (String, Run) {
    let mut o = vec!["-D", "1"];
    o.extend_from_slice(opts);
    let r = run(&o, prog, args);
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("rltrace: backend "))
        .unwrap_or_else(|| panic!("no backend line: {}", r.stderr))
        .to_string();
    (line, r)
}

#[test]
fn auto_takes_the_kernel_where_it_fits() {
    let Some(_) = tracefs() else { return };
    let calls = prog("lt_calls");
    for opts in [&[][..], &["-c"], &["-T", "-n", "2"], &["-e", "strlen"]] {
        let (b, r) = backend(opts, &calls, &[]);
        assert!(b.starts_with("rltrace: backend kernel"), "{opts:?}: {b}");
        assert_eq!(r.code, Some(3));
    }
    let (b, r) = backend(&["-c"], &prog("lt_bench"), &["1000"]);
    assert!(b.starts_with("rltrace: backend kernel"), "{b}");
    assert_eq!(table(&r.trace).0["labs"], 1000);
}

#[test]
fn auto_takes_ptrace_where_the_kernel_cannot_show_it() {
    let Some(_) = tracefs() else { return };
    let calls = prog("lt_calls");
    let noplt = common::testprog_variant("lt_calls", "noplt", &["-fno-builtin", "-fno-plt"]);
    let cases: &[(&[&str], &Path, &str)] = &[
        (&["-S"], &calls, "-S"),
        (&["-i"], &calls, "-i"),
        (&["-w", "2"], &calls, "-w"),
        (&["-x", "main"], &calls, "-x"),
        (&["-f"], &calls, "-f"),
        (&["--json"], &calls, "--json"),
        (&["-s", "5000"], &calls, "-s"),
        (&[], &noplt, "no PLT stub"),
    ];
    for (opts, p, why) in cases {
        let (b, r) = backend(opts, p, &["10"]);
        assert!(
            b.starts_with("rltrace: backend ptrace") && b.contains(why),
            "{opts:?} {}: {b}",
            p.display()
        );
        // --backend kernel refuses with the same reason.
        let mut o = vec!["--backend", "kernel"];
        o.extend_from_slice(opts);
        let k = run(&o, p, &["10"]);
        assert_eq!(k.code, Some(1), "{opts:?}: {}", k.stderr);
        assert!(
            k.stderr.contains(why) && k.stderr.contains("use --backend ptrace"),
            "{opts:?}: {}",
            k.stderr
        );
        let _ = r;
    }
    // A program that can exec another one: ptrace under auto only.
    let env = Path::new("/usr/bin/env");
    if env.exists() {
        let (b, r) = backend(&["-c"], env, &["true"]);
        assert!(b.contains("backend ptrace") && b.contains("exec"), "{b}");
        assert_eq!(r.code, Some(0));
    }
    // -fno-plt under auto is exact (ptrace).
    let r = run(&[], &noplt, &[]);
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(r.trace.contains("strlen(\"hello world\")"), "{}", r.trace);
}

/// Dynamic events and instances of rtrace process `pid`.
fn owned(root: &Path, pid: u32) -> (Vec<String>, bool) {
    let group = format!("rtrace_{pid}/");
    let ev = std::fs::read_to_string(root.join("dynamic_events"))
        .or_else(|_| std::fs::read_to_string(root.join("uprobe_events")))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(&group))
        .map(str::to_string)
        .collect();
    let inst = root.join(format!("instances/rtrace-{pid}")).exists();
    (ev, inst)
}

#[test]
fn tracefs_is_clean_after_runs_and_sigint_and_cleanup_spares_a_live_rltrace() {
    let Some(root) = tracefs() else { return };
    let p = common::testprog_variant(
        "ltk_calls",
        "now",
        &["-fno-builtin", "-fPIE", "-pie", "-Wl,-z,now"],
    );
    // Normal runs (count and plain output).
    for opts in [&["-c"][..], &["-e", "labs@MAIN"]] {
        let child = Command::new(rltrace())
            .args(opts)
            .arg("-o")
            .arg(temp("clean.txt"))
            .arg(&p)
            .arg("100")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(owned(&root, pid), (vec![], false), "{opts:?}: left behind");
    }
    // A running rltrace (kernel backend) keeps its group through
    // `rtrace kernel cleanup`, and removes it itself on SIGINT.
    let (child, _out) =
        ltrace_util::start_until_ready(&["-D", "1", "-e", "labs@MAIN"], &p, &["1000", "2", "wait"]);
    let pid = child.id();
    let (ev, inst) = owned(&root, pid);
    assert!(
        !ev.is_empty() && inst,
        "no rtrace_{pid} state while running"
    );
    let c = {
        let _one_cleanup = common::tracefs_cleanup_lock();
        Command::new(env!("CARGO_BIN_EXE_rtrace"))
            .args(["kernel", "cleanup"])
            .output()
            .unwrap()
    };
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert_eq!(
        owned(&root, pid),
        (ev, inst),
        "cleanup removed a live rltrace's state"
    );
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(128 + libc::SIGINT), "{err}");
    assert!(err.contains("rltrace: backend kernel"), "{err}");
    assert_eq!(err.matches("->labs(").count(), 3000, "{err}");
    assert_eq!(
        owned(&root, pid),
        (vec![], false),
        "left behind after SIGINT"
    );
}

#[test]
fn lost_events_are_reported_with_their_count() {
    let Some(_) = tracefs() else { return };
    let copy = PrivateCopy::new(&prog("lt_bench"));
    let file = temp("lost.txt");
    // A ring buffer of a few pages per CPU cannot hold 5 ms of calls.
    let out = Command::new(rltrace())
        .env("RLTRACE_BUFFER_KB", "4")
        .args(["-c", "--backend", "kernel", "-o"])
        .arg(&file)
        .arg(copy.path())
        .arg("200000")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("kernel event(s) lost"))
        .unwrap_or_else(|| panic!("no lost-events warning: {err}"));
    let n: u64 = line
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .expect("a count");
    assert!(n > 0, "{line}");
}
