//! rltrace benchmark: the cost of one traced library call under
//! `rltrace -o /dev/null` and `rltrace -c`, against ltrace 0.7.3 with the
//! same options.
//!
//! The workload is `testprogs/lt_bench.c` (a lazily bound PIE calling
//! `labs()` through its PLT N times). Each tool runs it at two sizes; the
//! per-call cost is `(t(N2) - t(N1)) / (N2 - N1)`, so start-up cancels out.
//! Runs alternate round-robin over the tools (one run of each, then the
//! next round), after one warm-up round; the median over `--rounds` rounds
//! (default 5) is reported, and the median of the per-round ratios to
//! ltrace (each round's tools ran under the same load). Target: rltrace ≤
//! 0.3× ltrace per call. Both backends are measured: `auto` (the kernel
//! backend where it reproduces the ptrace output, see
//! `src/ltrace/uprobe/mod.rs`) and `--backend ptrace`, the latter also with
//! `--no-cpu-pin` (the program and rltrace on whatever CPUs the scheduler
//! picks: what the ptrace backend did before it pinned, see
//! `src/engine/affinity.rs`), and `rltrace -f` (ptrace).
//! `--ptrace-only` runs only the ptrace rows against `ltrace -o /dev/null`.
//! Each row also gives the median peak resident set size of a run (the
//! larger of the tool's and the traced program's, as `wait4` reports it).
//! A markdown table (for README.md) is printed and written to
//! `<target>/bench-ltrace.md`.
//!
//! `--workload mix` runs `testprogs/lt_bench_mix.c` instead: a loop of
//! `snprintf` (a printf-family call, which the kernel backend shows from
//! its uprobe), `atoi`, `malloc` and `free`; its cost is per loop of 4
//! calls. `--workload mix-float` is the same program holding a `%f`
//! format too, which keeps `snprintf` on a ptrace breakpoint.
//!
//! ```text
//! cargo bench --bench ltrace                 # 5 rounds
//! cargo bench --bench ltrace -- --quick      # 3 rounds, smaller sizes
//! cargo bench --bench ltrace -- --workload mix
//! ```
//!
//! Run without `--bench` (as `cargo test --benches` does), it only checks
//! that `rltrace -c` counts the workload's calls exactly.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

fn rltrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rltrace"))
}

struct Tool {
    name: &'static str,
    prog: PathBuf,
    opts: &'static [&'static str],
}

/// One run's wall time and peak RSS in KiB.
// The child is reaped by the raw wait4 below, which clippy does not see.
#[allow(clippy::zombie_processes)]
fn time_run(t: &Tool, work: &Path, n: u64) -> (Duration, i64) {
    let start = Instant::now();
    let child = Command::new(&t.prog)
        .args(t.opts)
        .arg(work)
        .arg(n.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run tool");
    // std's Child::wait does not return the rusage; nix's wait functions do
    // not either: wait4 itself, for ru_maxrss.
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals.
    let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    let d = start.elapsed();
    assert!(
        r > 0 && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{} failed",
        t.name
    );
    (d, ru.ru_maxrss)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn selftest(work: &Path) -> ExitCode {
    let out = Command::new(rltrace())
        .args(["-c"])
        .arg(work)
        .arg("12345")
        .output()
        .expect("rltrace");
    let err = String::from_utf8_lossy(&out.stderr);
    let ok = err.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() == 5 && f[3] == "12345" && f[4] == "labs"
    });
    if ok {
        println!("selftest: rltrace -c counted 12345 labs calls");
        ExitCode::SUCCESS
    } else {
        eprintln!("selftest failed:\n{err}");
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let work = common::testprog_variant("lt_bench", "lazy", &["-fno-builtin"]);
    if !args.iter().any(|a| a == "--bench") {
        return selftest(&work);
    }
    let workload = args
        .iter()
        .position(|a| a == "--workload")
        .and_then(|i| args.get(i + 1))
        .map_or("labs", |w| w.as_str());
    let mix = workload != "labs";
    let work = match workload {
        "mix" => common::testprog_variant("lt_bench_mix", "lazy", &["-fno-builtin"]),
        "mix-float" => {
            common::testprog_variant("lt_bench_mix", "float", &["-fno-builtin", "-DFLOAT_FORMAT"])
        }
        _ => work,
    };
    let quick = args.iter().any(|a| a == "--quick");
    let rounds: usize = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 3 } else { 5 });
    let (n1, n2) = if quick {
        (2_000, 12_000)
    } else {
        (5_000, 45_000)
    };
    // rltrace rows, each with the ltrace row it is compared with (0: the
    // plain trace, 1: -c). `auto` takes the kernel backend for both.
    let rows: Vec<(Tool, usize)> = vec![
        (
            Tool {
                name: "rltrace -o /dev/null (auto: kernel)",
                prog: rltrace(),
                opts: &["-o", "/dev/null"],
            },
            0,
        ),
        (
            Tool {
                name: "rltrace --backend ptrace -o /dev/null",
                prog: rltrace(),
                opts: &["--backend", "ptrace", "-o", "/dev/null"],
            },
            0,
        ),
        (
            Tool {
                name: "rltrace -c (auto: kernel)",
                prog: rltrace(),
                opts: &["-c", "-o", "/dev/null"],
            },
            1,
        ),
        (
            Tool {
                name: "rltrace --backend ptrace --no-cpu-pin -o /dev/null",
                prog: rltrace(),
                opts: &["--backend", "ptrace", "--no-cpu-pin", "-o", "/dev/null"],
            },
            0,
        ),
        (
            Tool {
                name: "rltrace --backend ptrace -c",
                prog: rltrace(),
                opts: &["--backend", "ptrace", "-c", "-o", "/dev/null"],
            },
            1,
        ),
        (
            Tool {
                name: "rltrace -f -o /dev/null (ptrace)",
                prog: rltrace(),
                opts: &["-f", "-o", "/dev/null"],
            },
            0,
        ),
    ];
    // --ptrace-only: the ptrace rows and the plain ltrace row, no more.
    let ptrace_only = args.iter().any(|a| a == "--ptrace-only");
    let rows: Vec<(Tool, usize)> = rows
        .into_iter()
        .filter(|r| !ptrace_only || (r.1 == 0 && r.0.opts.contains(&"ptrace")))
        .collect();
    let n_rl = rows.len();
    let base: Vec<Option<usize>> = rows.iter().map(|r| Some(n_rl + r.1)).collect();
    let mut tools: Vec<Tool> = rows.into_iter().map(|r| r.0).collect();
    if common::have("ltrace") {
        tools.push(Tool {
            name: "ltrace -o /dev/null",
            prog: "ltrace".into(),
            opts: &["-o", "/dev/null"],
        });
        if !ptrace_only {
            tools.push(Tool {
                name: "ltrace -c",
                prog: "ltrace".into(),
                opts: &["-c", "-o", "/dev/null"],
            });
        }
    } else {
        eprintln!("ltrace not installed: rltrace only");
    }
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at start: {}", load().trim());
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); tools.len()];
    let mut rss: Vec<Vec<f64>> = vec![Vec::new(); tools.len()];
    for round in 0..=rounds {
        for (i, t) in tools.iter().enumerate() {
            let (a, _) = time_run(t, &work, n1);
            let (b, kib) = time_run(t, &work, n2);
            let us = (b.as_secs_f64() - a.as_secs_f64()) * 1e6 / (n2 - n1) as f64;
            if round > 0 {
                per[i].push(us);
                rss[i].push(kib as f64 / 1024.0);
            }
        }
    }
    // Per round, the ratio to ltrace measured in the same round (the
    // machine's load changes between rounds): its median is reported too.
    let ratios: Vec<Option<f64>> = (0..tools.len())
        .map(|i| {
            let b = base
                .get(i)
                .copied()
                .flatten()
                .filter(|&b| b < tools.len())?;
            Some(median(
                per[i].iter().zip(&per[b]).map(|(x, y)| x / y).collect(),
            ))
        })
        .collect();
    let med: Vec<f64> = per.iter().cloned().map(median).collect();
    let mut table = String::from(
        "| tool | µs per call (median) | vs ltrace (ratio of medians) | vs ltrace (median of per-round ratios) | peak RSS (MB, median) |\n|---|---|---|---|---|\n",
    );
    for (i, t) in tools.iter().enumerate() {
        let b = base.get(i).copied().flatten().filter(|&b| b < tools.len());
        let (r1, r2) = match (b, ratios[i]) {
            (Some(b), Some(r)) => (format!("{:.2}×", med[i] / med[b]), format!("{r:.2}×")),
            _ => ("—".into(), "—".into()),
        };
        let mb = median(rss[i].clone());
        table.push_str(&format!(
            "| `{}` | {:.2} | {r1} | {r2} | {mb:.1} |\n",
            t.name, med[i]
        ));
    }
    println!("load average at end: {}", load().trim());
    let what = match mix {
        true => "snprintf+atoi+malloc+free loops (per call: per loop of 4 calls)",
        false => "labs() through the PLT",
    };
    println!("rltrace benchmark: {what}, {n1} vs {n2} loops, {rounds} rounds\n");
    println!("{table}");
    let _ = std::fs::write(common::target_dir().join("bench-ltrace.md"), &table);
    ExitCode::SUCCESS
}
