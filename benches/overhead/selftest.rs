//! `--selftest`: checks that each floor tracer (single, pinned, per-CPU)
//! traces every thread and child, counts every syscall stop, passes on
//! real-time and fatal signals, keeps group-stops and reports the traced
//! program's exit code, by running the workloads (which check themselves)
//! and a few shell one-liners under it.

use super::floor::FloorStats;
use super::per_cpu;
use super::run::{FloorRun, Launch, Outcome, Runner};
use super::{check, secs, workload_binary};
use std::ffi::OsString;
use std::process::ExitCode;

/// One self-test: a command under a floor tracer (or untraced) and what
/// must come out.
struct Case {
    what: String,
    launch: Launch,
    exit_code: i32,
    ok_line: Option<String>,
    /// Extra checks on what the floor tracer counted.
    stats: fn(&FloorStats) -> Result<(), String>,
    /// Threads the per-CPU floor must have moved between its tracers.
    handoffs: Option<u64>,
}

fn no_stats_check(_: &FloorStats) -> Result<(), String> {
    Ok(())
}

/// bench_threads 5000: 4 × 5000 + 4 × 2500 calls in the loops, of which
/// one in 1000 per thread (4 × 5 + 4 × 2 = 28) is a tgkill and the rest
/// getppid, plus the main thread's one getppid.
const THREADS_GETPPID: u64 = 4 * 5000 + 4 * 2500 - 28 + 1;

/// Runs the self-test cases; fails when any fails.
pub fn run(runner: &Runner) -> ExitCode {
    let getppid = rtrace_arch::Arch::native_personalities()[0]
        .syscall_nr("getppid")
        .map(u64::from);
    let cpus = per_cpu::usable_cpus(usize::MAX).map_or(1, |c| c.len().max(1)) as u64;
    let mut cases = vec![Case {
        what: "untraced bench_threads 5000".into(),
        launch: Launch::Plain(bin("bench_threads", &["5000"])),
        exit_code: 0,
        ok_line: ok("bench_threads"),
        stats: no_stats_check,
        handoffs: None,
    }];
    // (name, tracer threads, threads moved on bench_threads: the main
    // thread starts all 8 and sits on tracer 0; round-robin gives new
    // thread k (from 1) to tracer k mod CPUs).
    let kinds = [
        ("floor", None, None),
        ("floor pinned", Some(1), Some(0)),
        ("floor per-CPU", Some(usize::MAX), Some(8 - 8 / cpus)),
    ];
    for (name, tracers, handoffs) in kinds {
        let floor = |argv: Vec<OsString>, count: Option<u64>| {
            Launch::Floor(FloorRun {
                argv,
                tracers,
                count,
            })
        };
        cases.extend(floor_cases(name, floor, getppid, handoffs));
    }

    let (mut passed, mut failed) = (0, 0);
    for case in cases {
        let verdict = runner
            .run(&case.launch)
            .map_err(|e| format!("cannot run: {e}"))
            .and_then(|outcome| judge(runner, &case, outcome));
        match verdict {
            Ok(outcome) => {
                passed += 1;
                let mut seen = outcome.floor.map_or(String::new(), |s| {
                    format!(
                        ": {} syscall stops, {} events, {} signals, {} group-stops",
                        s.syscall_stops, s.events, s.signals, s.group_stops
                    )
                });
                if let Some((tracers, moved)) = outcome.per_cpu {
                    seen += &format!(", {tracers} tracers, {moved} handoffs");
                }
                println!("ok   {} ({}s){seen}", case.what, secs(outcome.wall));
            }
            Err(why) => {
                failed += 1;
                println!("FAIL {}: {why}", case.what);
            }
        }
    }
    println!("selftest: {passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The cases every floor kind must pass.
fn floor_cases(
    name: &str,
    floor: impl Fn(Vec<OsString>, Option<u64>) -> Launch,
    getppid: Option<u64>,
    handoffs: Option<u64>,
) -> Vec<Case> {
    let sh = |script: &str| -> Vec<OsString> { vec!["/bin/sh".into(), "-c".into(), script.into()] };
    vec![
        Case {
            what: format!("{name} bench_threads 5000"),
            launch: floor(bin("bench_threads", &["5000"]), getppid),
            exit_code: 0,
            ok_line: ok("bench_threads"),
            // Entry and exit of every loop call, 8 clones and 8 new-thread
            // stops, 28 signals, and exactly the getppid entries made.
            stats: |s| {
                expect("syscall stops", s.syscall_stops, 2 * 30_000)?;
                expect("events", s.events, 2 * 8)?;
                expect("signals", s.signals, 28)?;
                if s.counted != THREADS_GETPPID {
                    return Err(format!(
                        "getppid entries: saw {}, expected {THREADS_GETPPID}",
                        s.counted
                    ));
                }
                Ok(())
            },
            handoffs,
        },
        Case {
            what: format!("{name} bench_threads 5000 42 (exit code)"),
            launch: floor(bin("bench_threads", &["5000", "42"]), None),
            exit_code: 42,
            ok_line: ok("bench_threads"),
            stats: no_stats_check,
            handoffs,
        },
        Case {
            what: format!("{name} bench_fork 50 (group-stop, fork, vfork)"),
            launch: floor(bin("bench_fork", &["50"]), None),
            exit_code: 0,
            ok_line: ok("bench_fork"),
            stats: |s| {
                expect("group-stops", s.group_stops, 1)?;
                expect("events", s.events, 2 * 50)
            },
            handoffs: None,
        },
        Case {
            what: format!("{name} bench_syscalls 1000 3"),
            launch: floor(bin("bench_syscalls", &["1000", "3"]), None),
            exit_code: 3,
            ok_line: ok("bench_syscalls"),
            stats: |s| expect("syscall stops", s.syscall_stops, 2 * 1000),
            handoffs: None,
        },
        Case {
            what: format!("{name} bench_files 100"),
            launch: floor(bin("bench_files", &["100"]), None),
            exit_code: 0,
            ok_line: ok("bench_files"),
            stats: no_stats_check,
            handoffs: None,
        },
        Case {
            what: format!("{name} sh: killed by SIGKILL"),
            launch: floor(sh("kill -KILL $$"), None),
            exit_code: 128 + libc::SIGKILL,
            ok_line: None,
            stats: no_stats_check,
            handoffs: None,
        },
        Case {
            what: format!("{name} sh: fatal SIGUSR1 passed on"),
            launch: floor(sh("kill -USR1 $$"), None),
            exit_code: 128 + libc::SIGUSR1,
            ok_line: None,
            stats: |s| expect("signals", s.signals, 1),
            handoffs: None,
        },
        Case {
            what: format!("{name}: program that does not exist"),
            launch: floor(vec!["/nonexistent/rtrace-bench".into()], None),
            exit_code: 127,
            ok_line: None,
            stats: no_stats_check,
            handoffs: None,
        },
    ]
}

fn judge(runner: &Runner, case: &Case, outcome: Outcome) -> Result<Outcome, String> {
    match &case.ok_line {
        Some(line) => check(runner, &outcome, case.exit_code, line)?,
        None if outcome.exit_code != case.exit_code => {
            return Err(format!(
                "exit code {} (expected {})",
                outcome.exit_code, case.exit_code
            ))
        }
        None => {}
    }
    if let Some(stats) = &outcome.floor {
        (case.stats)(stats)?;
    }
    if let (Some(want), Some((_, moved))) = (case.handoffs, outcome.per_cpu) {
        if moved != want {
            return Err(format!("handoffs: {moved}, expected {want}"));
        }
    }
    Ok(outcome)
}

fn bin(name: &str, args: &[&str]) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec![workload_binary(name).into()];
    argv.extend(args.iter().map(OsString::from));
    argv
}

fn ok(name: &str) -> Option<String> {
    Some(format!("{name} ok"))
}

fn expect(what: &str, seen: u64, at_least: u64) -> Result<(), String> {
    if seen >= at_least {
        Ok(())
    } else {
        Err(format!("{what}: saw {seen}, expected at least {at_least}"))
    }
}
