//! Recording overhead: `rtrace record` against `rstrace -f -o /dev/null`
//! and `strace -f -o /dev/null` on the same workloads, and the size of a
//! trace file per million syscalls.
//!
//! Workloads: `bench_syscalls` (200k cheap syscalls, one process),
//! `bench_fork` (500 short-lived children) and a shell loop that forks and
//! execs `/bin/true` 300 times. Each round runs every tool once, in turn
//! (so machine drift hits all alike); after a warm-up round, `--rounds N`
//! rounds (default 5) are measured and the median wall time is reported.
//! The recording goes to `<target>/bench-record.rtrace` (a real file: that
//! is what users pay for), which is read back for the size figures.
//!
//! ```text
//! cargo bench --bench record [-- --rounds 9] [-- --quick]
//! ```
//!
//! Target (issue 7): record ≤ 1.1 × rstrace.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin(name: &str) -> PathBuf {
    common::target_dir().join("release").join(name)
}

struct Workload {
    name: &'static str,
    argv: Vec<String>,
}

fn time(cmd: &mut Command) -> Option<Duration> {
    let t = Instant::now();
    let st = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    st.success().then(|| t.elapsed())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        // `cargo test --benches` runs this without --bench: nothing to do.
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let rounds: usize = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(if quick { 3 } else { 5 });
    let scale = if quick { 4 } else { 1 };
    let sys = common::testprog("bench_syscalls");
    let fork = common::testprog("bench_fork");
    let workloads = [
        Workload {
            name: "syscalls",
            argv: vec![sys.display().to_string(), (200_000 / scale).to_string()],
        },
        Workload {
            name: "fork",
            argv: vec![fork.display().to_string(), (500 / scale).to_string()],
        },
        Workload {
            name: "sh-exec",
            argv: vec![
                "/bin/sh".into(),
                "-c".into(),
                format!(
                    "i=0; while [ $i -lt {} ]; do /bin/true; i=$((i+1)); done",
                    300 / scale
                ),
            ],
        },
    ];
    let rtrace = bin("rtrace");
    let rstrace = bin("rstrace");
    let have_strace = common::have("strace");
    let out = common::target_dir().join("bench-record.rtrace");
    println!("rtrace record overhead, {rounds} rounds (median wall time)\n");
    println!("| workload | strace -f | rstrace -f | rtrace record | record/rstrace | record/strace | trace MB per 1M syscalls |");
    println!("|---|---|---|---|---|---|---|");
    for w in &workloads {
        let mut t: [Vec<Duration>; 3] = Default::default();
        for round in 0..=rounds {
            let mut rs = Command::new(&rstrace);
            rs.args(["-f", "-o", "/dev/null"]).args(&w.argv);
            let mut rec = Command::new(&rtrace);
            rec.args(["record", "-o"]).arg(&out).arg("--").args(&w.argv);
            let mut st = Command::new("strace");
            st.args(["-f", "-o", "/dev/null"]).args(&w.argv);
            let runs = [
                if have_strace { time(&mut st) } else { None },
                time(&mut rs),
                time(&mut rec),
            ];
            if round == 0 {
                continue; // warm-up
            }
            for (k, r) in runs.into_iter().enumerate() {
                if let Some(d) = r {
                    t[k].push(d);
                }
            }
        }
        let m: Vec<Option<Duration>> = t
            .iter()
            .map(|v| (!v.is_empty()).then(|| median(v.clone())))
            .collect();
        let show =
            |d: Option<Duration>| d.map_or("n/a".into(), |d| format!("{:.3}s", d.as_secs_f64()));
        let ratio = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
            (Some(a), Some(b)) => format!("{:.2}", a.as_secs_f64() / b.as_secs_f64()),
            _ => "n/a".into(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            w.name,
            show(m[0]),
            show(m[1]),
            show(m[2]),
            ratio(m[2], m[1]),
            ratio(m[2], m[0]),
            size_per_million(&out)
        );
    }
}

/// Megabytes of trace file per million recorded syscalls.
fn size_per_million(file: &Path) -> String {
    let Ok(rec) = rtrace::tracefile::Recording::read(file) else {
        return "n/a".into();
    };
    let n = rec.events.iter().filter(|e| e["type"] == "syscall").count();
    let bytes = std::fs::metadata(file).map_or(0, |m| m.len());
    if n == 0 {
        return "n/a".into();
    }
    format!("{:.0}", bytes as f64 / n as f64)
}
