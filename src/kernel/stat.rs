//! `rtrace stat [-e EVENTS] [-r N] [-p PID | -- CMD]`: perf_event counters
//! printed like `perf stat` (software events, hardware events where a PMU
//! exists and `<not supported>` where not, tracepoint counts), `-r N` with
//! mean ± relative standard error, as perf prints it.

use super::cli::StatArgs;
use super::perf::{is_unsupported, named_event, Counter, EventId, DEFAULT_EVENTS, TYPE_TRACEPOINT};
use super::session::{self, pending_signal, Child};
use super::tracefs::Tracefs;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Resolves event names: generic names and `sys:event` tracepoints.
pub fn resolve(names: &[String]) -> Result<Vec<EventId>, String> {
    let mut top: Option<Tracefs> = None;
    let mut out = Vec::new();
    for n in names
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        if let Some(ev) = named_event(n) {
            out.push(ev);
            continue;
        }
        let (sys, ev) = n
            .split_once([':', '/'])
            .ok_or_else(|| format!("unknown event '{n}' (see `rtrace kernel list events`)"))?;
        if top.is_none() {
            top = Some(Tracefs::open()?);
        }
        let t = top.as_ref().expect("set above");
        let id = t
            .read(&format!("events/{sys}/{ev}/id"))
            .map_err(|_| format!("no tracepoint '{n}'"))?;
        out.push(EventId {
            name: format!("{sys}:{ev}"),
            type_: TYPE_TRACEPOINT,
            config: id.trim().parse().map_err(|_| format!("bad id for {n}"))?,
        });
    }
    Ok(out)
}

/// One run's results: per event, `None` when not supported, else the count.
pub struct Run {
    /// Counts in event order.
    pub counts: Vec<Option<u64>>,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// The command's exit code (or 0 for -p).
    pub code: i32,
}

fn open_all(events: &[EventId], pids: &[i32], on_exec: bool) -> Result<Vec<Vec<Counter>>, String> {
    let mut all = Vec::new();
    for ev in events {
        let mut per = Vec::new();
        for &pid in pids {
            match Counter::open(ev, pid, true, on_exec) {
                Ok(c) => per.push(c),
                Err(e) if is_unsupported(&e) => {
                    per.clear();
                    break;
                }
                // A thread that exited between listing and opening.
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) && !on_exec => {}
                Err(e) => return Err(format!("perf_event_open({}): {e}", ev.name)),
            }
        }
        all.push(per);
    }
    Ok(all)
}

fn collect(counters: &[Vec<Counter>]) -> Vec<Option<u64>> {
    counters
        .iter()
        .map(|per| {
            if per.is_empty() {
                return None;
            }
            Some(per.iter().filter_map(|c| c.read().ok()).map(|r| r.0).sum())
        })
        .collect()
}

fn run_cmd(events: &[EventId], cmd: &[OsString]) -> Result<Run, String> {
    let mut child = Child::spawn(cmd)?;
    // Counting starts at exec (enable_on_exec), so rtrace's own fork
    // aftermath is not counted, as with perf stat.
    let counters = open_all(events, &[child.pid], true)?;
    let start = Instant::now();
    child.release()?;
    let code = loop {
        if let Some(c) = child.try_wait() {
            break c;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let elapsed = start.elapsed();
    Ok(Run {
        counts: collect(&counters),
        elapsed,
        code,
    })
}

fn run_pids(events: &[EventId], pids: &[i32]) -> Result<Run, String> {
    let mut tids = Vec::new();
    for &p in pids {
        let dir =
            std::fs::read_dir(format!("/proc/{p}/task")).map_err(|e| format!("pid {p}: {e}"))?;
        tids.extend(
            dir.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok()),
        );
    }
    let counters = open_all(events, &tids, false)?;
    let start = Instant::now();
    while pending_signal().is_none()
        && pids
            .iter()
            .any(|p| std::path::Path::new(&format!("/proc/{p}")).exists())
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    for c in counters.iter().flatten() {
        c.disable();
    }
    Ok(Run {
        counts: collect(&counters),
        elapsed: start.elapsed(),
        code: 0,
    })
}

/// Mean and the relative standard error of the mean in percent (perf's `+-`).
pub fn mean_rel_stderr(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 || mean == 0.0 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, 100.0 * (var / n).sqrt() / mean)
}

fn rate(v: f64, task_clock_ns: Option<f64>) -> String {
    let Some(t) = task_clock_ns.filter(|t| *t > 0.0) else {
        return String::new();
    };
    let per_sec = v / (t / 1e9);
    let (x, unit) = if per_sec >= 1e9 {
        (per_sec / 1e9, "G/sec")
    } else if per_sec >= 1e6 {
        (per_sec / 1e6, "M/sec")
    } else if per_sec >= 1e3 {
        (per_sec / 1e3, "K/sec")
    } else {
        (per_sec, "/sec")
    };
    format!("# {x:>8.3} {unit}")
}

/// Renders the perf-stat-like report of `runs`.
pub fn render(events: &[EventId], runs: &[Run], what: &str) -> String {
    let mut s = String::new();
    let n = runs.len();
    let _ = write!(s, "\n Performance counter stats for '{what}'");
    if n > 1 {
        let _ = write!(s, " ({n} runs)");
    }
    s.push_str(":\n\n");
    let secs: Vec<f64> = runs.iter().map(|r| r.elapsed.as_secs_f64()).collect();
    let (wall, wall_err) = mean_rel_stderr(&secs);
    let means: Vec<Option<(f64, f64)>> = (0..events.len())
        .map(|i| {
            let xs: Option<Vec<f64>> = runs.iter().map(|r| r.counts[i].map(|v| v as f64)).collect();
            xs.map(|xs| mean_rel_stderr(&xs))
        })
        .collect();
    let task_clock = events
        .iter()
        .position(|e| e.type_ == super::perf::TYPE_SOFTWARE && e.config == 1)
        .and_then(|i| means[i].map(|m| m.0));
    for (ev, m) in events.iter().zip(&means) {
        let line = match m {
            None => format!("{:>18}      {}", "<not supported>", ev.name),
            Some((mean, err)) => {
                let is_clock = ev.type_ == super::perf::TYPE_SOFTWARE && ev.config <= 1;
                let mut l = if is_clock {
                    let cpus = if wall > 0.0 { mean / 1e9 / wall } else { 0.0 };
                    format!(
                        "{:>18.2} msec {:<32} # {cpus:>8.3} CPUs utilized",
                        mean / 1e6,
                        ev.name
                    )
                } else {
                    format!(
                        "{:>18.0}      {:<32} {}",
                        mean,
                        ev.name,
                        rate(*mean, task_clock)
                    )
                };
                if n > 1 {
                    let _ = write!(l, "  ( +-{err:>6.2}% )");
                }
                l.trim_end().to_string()
            }
        };
        s.push_str(&line);
        s.push('\n');
    }
    if n > 1 {
        let _ = writeln!(
            s,
            "\n{wall:>18.6} +- {:.6} seconds time elapsed  ( +-{wall_err:>6.2}% )\n",
            wall * wall_err / 100.0
        );
    } else {
        let _ = writeln!(s, "\n{wall:>18.9} seconds time elapsed\n");
    }
    s
}

/// `rtrace stat ARGS` (clap has checked the command line).
pub fn main(a: StatArgs) -> Result<i32, String> {
    let names: Vec<String> = if a.events.is_empty() {
        DEFAULT_EVENTS.iter().map(|s| s.to_string()).collect()
    } else {
        a.events
    };
    let events = resolve(&names)?;
    let repeat = a.repeat as usize;
    let pids = a.pids;
    session::install_signals();
    let mut runs = Vec::new();
    let what;
    if pids.is_empty() {
        what = a
            .cmd
            .iter()
            .map(|s| s.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        for _ in 0..repeat {
            runs.push(run_cmd(&events, &a.cmd)?);
            if pending_signal().is_some() {
                break;
            }
        }
    } else {
        what = format!(
            "process id '{}'",
            pids.iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        runs.push(run_pids(&events, &pids)?);
    }
    eprint!("{}", render(&events, &runs, &what));
    let code = runs.last().map_or(0, |r| r.code);
    Ok(pending_signal().map_or(code, crate::engine::signals::interrupted_status))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_of_mean() {
        let (m, e) = mean_rel_stderr(&[10.0, 12.0, 14.0]);
        assert_eq!(m, 12.0);
        // sd = 2, stderr = 2/sqrt(3) = 1.1547, relative 9.62%.
        assert!((e - 9.6225).abs() < 1e-3, "{e}");
        assert_eq!(mean_rel_stderr(&[5.0]), (5.0, 0.0));
    }

    #[test]
    fn report_shape() {
        let events = resolve(&["task-clock,page-faults,cycles".into()]).unwrap();
        let run = |c| Run {
            counts: vec![Some(2_000_000), Some(c), None],
            elapsed: Duration::from_millis(4),
            code: 0,
        };
        let s = render(&events, &[run(100), run(120)], "prog");
        assert!(
            s.contains("Performance counter stats for 'prog' (2 runs):"),
            "{s}"
        );
        assert!(s.contains("2.00 msec task-clock"), "{s}");
        assert!(s.contains("0.500 CPUs utilized"), "{s}");
        assert!(s.contains("110      page-faults"), "{s}");
        assert!(s.contains("( +-  9.09% )"), "{s}");
        assert!(s.contains("<not supported>      cycles"), "{s}");
        assert!(s.contains("seconds time elapsed"), "{s}");
    }
}
