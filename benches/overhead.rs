//! Tracer overhead benchmark: how much slower a workload runs under
//! `rstrace` than untraced, than under a bare ptrace loop, and than under
//! `strace`.
//!
//! # What is measured
//!
//! Each workload is a small C program from `testprogs/bench_*.c`, built here
//! with `gcc -O2` into `<target>/testprogs/`:
//!
//! * `bench_syscalls`: 200k cheap syscalls (getppid, 1-byte write to /dev/null);
//! * `bench_files`: 3000 files created, stat'ed, read, unlinked (~9000 openat),
//!   in `$TMPDIR`, which defaults to `/dev/shm` (tmpfs) here to keep disk
//!   noise out;
//! * `bench_threads`: 4 threads × 50k syscalls, 4 more started halfway, with
//!   real-time signals sent along the way;
//! * `bench_fork`: a job-control stop, then 500 short-lived children.
//!
//! Each runs under every tool below. Wall time is `Instant` around spawn +
//! wait; CPU time (user + system, tracer and tracee together) comes from
//! `getrusage`. Runs alternate round-robin (one run of every tool, then the
//! next round), so drift of the machine hits all tools alike; after one
//! warm-up round, `--rounds` rounds (default 5) are measured and the median
//! is reported. Nothing sleeps.
//!
//! | tool | command |
//! |---|---|
//! | untraced | the workload alone |
//! | floor | a bare `PTRACE_SYSCALL` loop in this harness (`overhead/floor.rs`) |
//! | floor pinned | the same loop on one tracer thread pinned to one CPU, the workload with it (`overhead/per_cpu.rs`) |
//! | floor per-CPU | the same loop on one tracer thread per CPU, new threads handed round-robin between them (`overhead/per_cpu.rs`) |
//! | strace, rstrace | `-f -o /dev/null` |
//! | strace -c, rstrace -c | `-c -f -o /dev/null` (the summary goes to `-o`) |
//! | filtered | `-f -o /dev/null -e trace=openat`, and strace with `--seccomp-bpf` |
//!
//! The ratios the project targets are printed per workload: rstrace/strace,
//! rstrace/floor, rstrace -c / strace -c, filtered rstrace / untraced. A
//! markdown summary (for README.md) is printed last and written to
//! `<target>/bench-overhead.md`.
//!
//! A tool that is missing or fails (wrong exit code, workload output missing,
//! killed by the `--timeout` watchdog) is reported as `skipped: ...` and left
//! out; the rest still run.
//!
//! # Running
//!
//! ```text
//! cargo bench --bench overhead                      # everything, 5 rounds
//! cargo bench --bench overhead -- --quick           # 3 rounds, 1/4 sizes
//! cargo bench --bench overhead -- --rounds 9 files  # only workloads matching "files"
//! cargo bench --bench overhead -- --tools untraced,floor,strace
//! cargo bench --bench overhead -- --selftest        # check the floor tracer
//! RSTRACE=/path/to/rstrace cargo bench --bench overhead
//! ```
//!
//! `rstrace` is `$RSTRACE` when set, else the `rstrace` Cargo builds for this
//! bench (`<target>/release/rstrace`). Run without `--bench` (as
//! `cargo test --benches` does), the binary only runs `--selftest`.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "overhead/floor.rs"]
mod floor;
#[path = "overhead/per_cpu.rs"]
mod per_cpu;
#[path = "overhead/run.rs"]
mod run;
#[path = "overhead/selftest.rs"]
mod selftest;

use run::{FloorRun, Launch, Outcome, Runner};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// One workload program and its size argument.
struct Workload {
    name: &'static str,
    /// Size argument (`argv[1]`) for a full run.
    size: u32,
    /// Size argument for `--quick`.
    quick_size: u32,
    about: &'static str,
}

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "bench_syscalls",
        size: 200_000,
        quick_size: 50_000,
        about: "cheap syscalls (getppid, write to /dev/null), one thread",
    },
    Workload {
        name: "bench_files",
        size: 3000,
        quick_size: 750,
        about: "files: openat/write/close/stat/openat/fstat/read/close/openat(ENOENT), unlink",
    },
    Workload {
        name: "bench_threads",
        size: 50_000,
        quick_size: 12_500,
        about: "syscalls per thread: 4 threads, 4 more started halfway, RT signals",
    },
    Workload {
        name: "bench_fork",
        size: 500,
        quick_size: 125,
        about: "children forked (every 4th vforked), 100 syscalls each",
    },
];

/// Which tracer a tool runs under.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tracer {
    None,
    Floor,
    /// The per-CPU floor with at most this many tracer threads.
    FloorPerCpu(usize),
    Strace,
    Rstrace,
}

/// One column of the results: a tracer with its flags.
struct Tool {
    key: &'static str,
    label: &'static str,
    tracer: Tracer,
    flags: &'static [&'static str],
}

const TRACE_ALL: &[&str] = &["-f", "-o", "/dev/null"];
const SUMMARY: &[&str] = &["-c", "-f", "-o", "/dev/null"];
const FILTERED: &[&str] = &["-f", "-o", "/dev/null", "-e", "trace=openat"];

/// Every tool, in the order each round runs them.
const TOOLS: &[Tool] = &[
    Tool {
        key: "untraced",
        label: "untraced",
        tracer: Tracer::None,
        flags: &[],
    },
    Tool {
        key: "floor",
        label: "floor (bare PTRACE_SYSCALL)",
        tracer: Tracer::Floor,
        flags: &[],
    },
    Tool {
        key: "floor-pinned",
        label: "floor, one tracer pinned",
        tracer: Tracer::FloorPerCpu(1),
        flags: &[],
    },
    Tool {
        key: "floor-per-cpu",
        label: "floor, tracer per CPU",
        tracer: Tracer::FloorPerCpu(usize::MAX),
        flags: &[],
    },
    Tool {
        key: "strace",
        label: "strace -f",
        tracer: Tracer::Strace,
        flags: TRACE_ALL,
    },
    Tool {
        key: "rstrace",
        label: "rstrace -f",
        tracer: Tracer::Rstrace,
        flags: TRACE_ALL,
    },
    Tool {
        key: "strace-c",
        label: "strace -c -f",
        tracer: Tracer::Strace,
        flags: SUMMARY,
    },
    Tool {
        key: "rstrace-c",
        label: "rstrace -c -f",
        tracer: Tracer::Rstrace,
        flags: SUMMARY,
    },
    Tool {
        key: "strace-filter",
        label: "strace -e trace=openat",
        tracer: Tracer::Strace,
        flags: FILTERED,
    },
    Tool {
        key: "strace-filter-bpf",
        label: "strace --seccomp-bpf -e trace=openat",
        tracer: Tracer::Strace,
        flags: &[
            "--seccomp-bpf",
            "-f",
            "-o",
            "/dev/null",
            "-e",
            "trace=openat",
        ],
    },
    Tool {
        key: "rstrace-filter",
        label: "rstrace -e trace=openat",
        tracer: Tracer::Rstrace,
        flags: FILTERED,
    },
];

/// A ratio of two tools' medians.
struct Ratio {
    label: &'static str,
    numerator: &'static str,
    denominator: &'static str,
}

/// The ratios the project targets first, then references for context.
const RATIOS: &[Ratio] = &[
    Ratio {
        label: "rstrace/strace",
        numerator: "rstrace",
        denominator: "strace",
    },
    Ratio {
        label: "rstrace/floor",
        numerator: "rstrace",
        denominator: "floor",
    },
    Ratio {
        label: "rstrace -c / strace -c",
        numerator: "rstrace-c",
        denominator: "strace-c",
    },
    Ratio {
        label: "filtered rstrace / untraced",
        numerator: "rstrace-filter",
        denominator: "untraced",
    },
    Ratio {
        label: "floor per-CPU / pinned",
        numerator: "floor-per-cpu",
        denominator: "floor-pinned",
    },
    Ratio {
        label: "floor per-CPU / strace",
        numerator: "floor-per-cpu",
        denominator: "strace",
    },
    Ratio {
        label: "strace/floor",
        numerator: "strace",
        denominator: "floor",
    },
    Ratio {
        label: "strace bpf-filtered / untraced",
        numerator: "strace-filter-bpf",
        denominator: "untraced",
    },
];

const USAGE: &str = "\
usage: overhead [--rounds N] [--quick] [--timeout SECS] [--tools KEY,...] [WORKLOAD...]
       overhead --selftest

  --rounds N      measured rounds after the warm-up (default 5; 3 with --quick)
  --quick         3 rounds and a quarter of each workload's size
  --timeout SECS  kill a run after SECS seconds and skip that tool (default 300)
  --tools LIST    only these tools: untraced, floor, floor-pinned, floor-per-cpu,
                  strace, rstrace, strace-c, rstrace-c, strace-filter,
                  strace-filter-bpf, rstrace-filter
  --selftest      check the floor tracer, then exit
  WORKLOAD        only workloads whose name contains one of these words
env: RSTRACE=PATH  the rstrace binary to measure";

struct Options {
    rounds: usize,
    quick: bool,
    selftest: bool,
    timeout: Duration,
    tools: Option<Vec<String>>,
    workloads: Vec<String>,
}

impl Options {
    fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut rounds = None;
        let mut options = Options {
            rounds: 5,
            quick: false,
            // Cargo passes --bench to `cargo bench` runs only; a bench run as
            // a test (`cargo test --benches`) gets the quick self-test.
            selftest: true,
            timeout: Duration::from_secs(300),
            tools: None,
            workloads: Vec::new(),
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match arg.as_str() {
                "--bench" => options.selftest = false,
                "--selftest" => {
                    options.selftest = true;
                    return Ok(options);
                }
                "--quick" => options.quick = true,
                "--rounds" => {
                    let n = value("--rounds")?;
                    rounds = Some(n.parse().map_err(|_| format!("bad --rounds {n}"))?);
                }
                "--timeout" => {
                    let n = value("--timeout")?;
                    let secs = n.parse().map_err(|_| format!("bad --timeout {n}"))?;
                    options.timeout = Duration::from_secs(secs);
                }
                "--tools" => {
                    let list = value("--tools")?;
                    let keys: Vec<String> = list.split(',').map(str::to_string).collect();
                    if let Some(bad) = keys.iter().find(|k| !TOOLS.iter().any(|t| t.key == *k)) {
                        return Err(format!("unknown tool {bad}"));
                    }
                    options.tools = Some(keys);
                }
                "-h" | "--help" => return Err(String::new()),
                other if other.starts_with('-') => return Err(format!("unknown option {other}")),
                word => options.workloads.push(word.to_string()),
            }
        }
        options.rounds = rounds.unwrap_or(if options.quick { 3 } else { 5 }).max(1);
        Ok(options)
    }

    fn wants_workload(&self, name: &str) -> bool {
        self.workloads.is_empty() || self.workloads.iter().any(|w| name.contains(w.as_str()))
    }

    fn wants_tool(&self, key: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|keys| keys.iter().any(|k| k == key))
    }
}

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("overhead: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    // Keep bench_files on tmpfs when the user did not choose: on a disk file
    // system, writeback and journal work make the untraced time swing by
    // several times from run to run and swamp the tracer's cost.
    if std::env::var_os("TMPDIR").is_none() && Path::new("/dev/shm").is_dir() {
        // Set before any thread exists (the runner starts the watchdog).
        std::env::set_var("TMPDIR", "/dev/shm");
    }
    let runner = match Runner::new(
        &common::target_dir().join("bench-overhead"),
        options.timeout,
    ) {
        Ok(runner) => runner,
        Err(e) => {
            eprintln!("overhead: cannot set up the run directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    if options.selftest {
        return selftest::run(&runner);
    }
    benchmark(&options, &runner)
}

/// The workload binary, built once (and again only when its source changes).
fn workload_binary(name: &str) -> PathBuf {
    common::testprog_variant(name, "O2", &["-O2"])
}

/// The binaries of the tracers, or why a tracer cannot be measured.
struct Tracers {
    strace: Result<PathBuf, String>,
    rstrace: Result<PathBuf, String>,
}

impl Tracers {
    fn find() -> Self {
        let strace = if common::have("strace") {
            Ok(PathBuf::from("strace"))
        } else {
            Err("strace is not installed".to_string())
        };
        let (rstrace, origin) = match std::env::var_os("RSTRACE") {
            Some(path) => (PathBuf::from(path), "$RSTRACE"),
            None => (common::rstrace(), "default; set RSTRACE to choose"),
        };
        let rstrace = if common::have(&rstrace.to_string_lossy()) {
            Ok(rstrace)
        } else {
            Err(format!("{} not found ({origin})", rstrace.display()))
        };
        Self { strace, rstrace }
    }

    fn binary(&self, tracer: Tracer) -> Result<Option<&Path>, &str> {
        match tracer {
            Tracer::None | Tracer::Floor | Tracer::FloorPerCpu(_) => Ok(None),
            Tracer::Strace => self.strace.as_deref().map(Some).map_err(String::as_str),
            Tracer::Rstrace => self.rstrace.as_deref().map(Some).map_err(String::as_str),
        }
    }
}

/// How to run `tool` on a workload with arguments `argv` (program first).
fn launch(tool: &Tool, tracer: Option<&Path>, argv: &[OsString]) -> Launch {
    match (tool.tracer, tracer) {
        (Tracer::Floor, _) => FloorRun::single(argv.to_vec()),
        (Tracer::FloorPerCpu(n), _) => Launch::Floor(FloorRun {
            argv: argv.to_vec(),
            tracers: Some(n),
            count: None,
        }),
        (_, Some(tracer)) => {
            let mut line: Vec<OsString> = vec![tracer.into()];
            line.extend(tool.flags.iter().map(OsString::from));
            line.extend_from_slice(argv);
            Launch::Plain(line)
        }
        (_, None) => Launch::Plain(argv.to_vec()),
    }
}

/// Checks that a run really ran the workload to completion: the expected
/// exit code, and its "ok" line on stdout (an `rstrace` that exits 0
/// without running anything must not look infinitely fast).
fn check(
    runner: &Runner,
    outcome: &Outcome,
    expect_exit: i32,
    ok_line: &str,
) -> Result<(), String> {
    let problem = if outcome.timed_out {
        format!("killed by the watchdog after {} s", secs(outcome.wall))
    } else if outcome.exit_code != expect_exit {
        format!("exit code {} (expected {expect_exit})", outcome.exit_code)
    } else if !runner.stdout().lines().any(|l| l.starts_with(ok_line)) {
        format!(
            "exit code {expect_exit} but the workload did not finish (no \"{ok_line}\" on stdout)"
        )
    } else {
        return Ok(());
    };
    let stderr = runner.stderr_excerpt();
    Err(if stderr.is_empty() {
        problem
    } else {
        format!("{problem}; stderr: {stderr}")
    })
}

/// Samples of one tool on one workload.
struct Column<'t> {
    tool: &'t Tool,
    tracer: Option<PathBuf>,
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
    skipped: Option<String>,
}

impl Column<'_> {
    fn median(&self) -> Option<Duration> {
        median(&self.wall)
    }
}

fn median(samples: &[Duration]) -> Option<Duration> {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
    }
}

/// The results of one workload.
struct WorkloadResult<'t> {
    title: String,
    columns: Vec<Column<'t>>,
}

impl WorkloadResult<'_> {
    fn median_of(&self, key: &str) -> Option<Duration> {
        self.columns.iter().find(|c| c.tool.key == key)?.median()
    }

    fn ratio(&self, ratio: &Ratio) -> Option<f64> {
        let num = self.median_of(ratio.numerator)?.as_secs_f64();
        let den = self.median_of(ratio.denominator)?.as_secs_f64();
        (den > 0.0).then(|| num / den)
    }
}

fn benchmark(options: &Options, runner: &Runner) -> ExitCode {
    let tracers = Tracers::find();
    let tools: Vec<&Tool> = TOOLS.iter().filter(|t| options.wants_tool(t.key)).collect();
    for (tracer, name) in [(Tracer::Strace, "strace"), (Tracer::Rstrace, "rstrace")] {
        if let Err(why) = tracers.binary(tracer) {
            if tools.iter().any(|t| t.tracer == tracer) {
                println!("skipped: {name}: {why}");
            }
        }
    }

    let mut results = Vec::new();
    for workload in WORKLOADS.iter().filter(|w| options.wants_workload(w.name)) {
        let size = if options.quick {
            workload.quick_size
        } else {
            workload.size
        };
        let argv: Vec<OsString> = vec![
            workload_binary(workload.name).into(),
            size.to_string().into(),
        ];
        let ok_line = format!("{} ok", workload.name);
        let mut columns: Vec<Column> = tools
            .iter()
            .map(|&tool| {
                let tracer = tracers.binary(tool.tracer);
                Column {
                    tool,
                    tracer: tracer.ok().flatten().map(Path::to_path_buf),
                    wall: Vec::new(),
                    cpu: Vec::new(),
                    skipped: tracer.err().map(str::to_string),
                }
            })
            .collect();

        // Round 0 warms caches up and weeds out tools that fail.
        for round in 0..=options.rounds {
            eprint!(
                "\r{}: {}   ",
                workload.name,
                if round == 0 {
                    "warm-up".to_string()
                } else {
                    format!("round {round}/{}", options.rounds)
                }
            );
            for column in columns.iter_mut().filter(|c| c.skipped.is_none()) {
                let launch = launch(column.tool, column.tracer.as_deref(), &argv);
                let outcome = runner
                    .run(&launch)
                    .map_err(|e| format!("cannot run: {e}"))
                    .and_then(|o| check(runner, &o, 0, &ok_line).map(|()| o));
                match outcome {
                    Ok(outcome) if round > 0 => {
                        column.wall.push(outcome.wall);
                        column.cpu.push(outcome.cpu);
                    }
                    Ok(_) => {}
                    Err(why) => {
                        eprintln!();
                        println!("skipped: {} on {}: {why}", column.tool.label, workload.name);
                        column.skipped = Some(why);
                    }
                }
            }
        }
        eprintln!();
        let result = WorkloadResult {
            title: format!("{} {size}: {}", workload.name, workload.about),
            columns,
        };
        print_result(&result, options.rounds);
        results.push(result);
    }

    if results.is_empty() {
        eprintln!("overhead: no workload matches {:?}", options.workloads);
        return ExitCode::from(2);
    }
    let markdown = markdown(&results, &tools, options.rounds, &tracers);
    println!("\n{markdown}");
    let path = common::target_dir().join("bench-overhead.md");
    match std::fs::write(&path, &markdown) {
        Ok(()) => println!("wrote {}", path.display()),
        Err(e) => eprintln!("overhead: cannot write {}: {e}", path.display()),
    }
    ExitCode::SUCCESS
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 0.1 {
        format!("{s:.4}")
    } else {
        format!("{s:.3}")
    }
}

fn print_result(result: &WorkloadResult, rounds: usize) {
    println!("\n{} (median of {rounds} rounds)", result.title);
    println!(
        "  {:<38} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "tool", "median s", "min s", "max s", "cpu s", "x untraced"
    );
    let untraced = result.median_of("untraced");
    for column in &result.columns {
        let (Some(med), Some(min), Some(max), Some(cpu)) = (
            column.median(),
            column.wall.iter().min(),
            column.wall.iter().max(),
            median(&column.cpu),
        ) else {
            let why = column.skipped.as_deref().unwrap_or("no samples");
            println!("  {:<38} skipped: {why}", column.tool.label);
            continue;
        };
        let slowdown = untraced
            .filter(|u| !u.is_zero())
            .map(|u| format!("{:.2}", med.as_secs_f64() / u.as_secs_f64()))
            .unwrap_or_else(|| "-".into());
        println!(
            "  {:<38} {:>9} {:>9} {:>9} {:>9} {:>10}",
            column.tool.label,
            secs(med),
            secs(*min),
            secs(*max),
            secs(cpu),
            slowdown
        );
    }
    for ratio in RATIOS {
        let value = result
            .ratio(ratio)
            .map_or("-".into(), |r| format!("{r:.2}"));
        println!("  {:<38} {value:>9}", ratio.label);
    }
}

/// A README-ready summary: medians, then ratios.
fn markdown(
    results: &[WorkloadResult],
    tools: &[&Tool],
    rounds: usize,
    tracers: &Tracers,
) -> String {
    let mut md = String::new();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let strace_version = tracers
        .strace
        .as_ref()
        .ok()
        .and_then(|s| std::process::Command::new(s).arg("-V").output().ok())
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "strace not installed".into());

    let _ = writeln!(md, "### Tracer overhead (`cargo bench --bench overhead`)\n");
    let _ = writeln!(
        md,
        "Median wall time in seconds over {rounds} interleaved rounds; {cpu}, {cpus} CPUs, Linux {}; {strace_version}.\n",
        kernel.trim()
    );
    let _ = write!(md, "| workload |");
    for tool in tools {
        let _ = write!(md, " {} |", tool.label);
    }
    let _ = write!(md, "\n|---|");
    for _ in tools {
        let _ = write!(md, "---:|");
    }
    md.push('\n');
    for result in results {
        let _ = write!(
            md,
            "| {} |",
            result.title.split(':').next().unwrap_or_default()
        );
        for column in &result.columns {
            let cell = column.median().map_or_else(|| "skipped".into(), secs);
            let _ = write!(md, " {cell} |");
        }
        md.push('\n');
    }

    let _ = write!(md, "\n| workload |");
    for ratio in RATIOS {
        let _ = write!(md, " {} |", ratio.label);
    }
    let _ = write!(md, "\n|---|");
    for _ in RATIOS {
        let _ = write!(md, "---:|");
    }
    md.push('\n');
    for result in results {
        let _ = write!(
            md,
            "| {} |",
            result.title.split(':').next().unwrap_or_default()
        );
        for ratio in RATIOS {
            let cell = result
                .ratio(ratio)
                .map_or("-".into(), |r| format!("{r:.2}"));
            let _ = write!(md, " {cell} |");
        }
        md.push('\n');
    }
    md
}
