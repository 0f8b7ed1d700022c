//! The `-c` / `-C` summary table, formatted exactly like strace's.

use super::cli::SortBy;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

/// Counters of one syscall.
#[derive(Clone, Debug, Default)]
pub struct Counter {
    /// Calls.
    pub calls: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Total time.
    pub total: Duration,
    /// Shortest call.
    pub min: Option<Duration>,
    /// Longest call.
    pub max: Duration,
}

/// Counters by syscall, in first-seen order within table order.
#[derive(Debug, Default)]
pub struct Summary {
    by_name: HashMap<&'static str, (u64, Counter)>,
}

impl Summary {
    /// Records one finished call. `order` is the syscall number (ties sort by it).
    pub fn record(&mut self, name: &'static str, order: u64, time: Duration, failed: bool) {
        let e = self
            .by_name
            .entry(name)
            .or_insert_with(|| (order, Counter::default()));
        let c = &mut e.1;
        c.calls += 1;
        if failed {
            c.errors += 1;
        }
        c.total += time;
        c.min = Some(c.min.map_or(time, |m| m.min(time)));
        c.max = c.max.max(time);
    }

    /// Is anything recorded?
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The table as strace prints it.
    pub fn render(&self, sort: SortBy) -> String {
        let mut rows: Vec<(&str, u64, &Counter)> =
            self.by_name.iter().map(|(n, (o, c))| (*n, *o, c)).collect();
        rows.sort_by_key(|r| r.1);
        let avg = |c: &Counter| c.total.as_nanos() / c.calls.max(1) as u128;
        match sort {
            SortBy::Time => rows.sort_by_key(|r| std::cmp::Reverse(r.2.total)),
            SortBy::Calls => rows.sort_by_key(|r| std::cmp::Reverse(r.2.calls)),
            SortBy::Errors => rows.sort_by_key(|r| std::cmp::Reverse(r.2.errors)),
            SortBy::Name => rows.sort_by(|a, b| a.0.cmp(b.0)),
            SortBy::AvgTime => rows.sort_by_key(|r| std::cmp::Reverse(avg(r.2))),
            SortBy::MinTime => rows.sort_by_key(|r| std::cmp::Reverse(r.2.min)),
            SortBy::MaxTime => rows.sort_by_key(|r| std::cmp::Reverse(r.2.max)),
            SortBy::Nothing => {}
        }
        let total: Duration = rows.iter().map(|r| r.2.total).sum();
        let calls: u64 = rows.iter().map(|r| r.2.calls).sum();
        let errors: u64 = rows.iter().map(|r| r.2.errors).sum();
        let mut s = String::new();
        let dash = "------ ----------- ----------- --------- --------- ----------------\n";
        s.push_str("% time     seconds  usecs/call     calls    errors syscall\n");
        s.push_str(dash);
        let tot_ns = total.as_nanos() as f64;
        for (name, _, c) in &rows {
            let pct = if tot_ns > 0.0 {
                100.0 * c.total.as_nanos() as f64 / tot_ns
            } else {
                0.0
            };
            row(&mut s, pct, c.total, c.calls, c.errors, name);
        }
        s.push_str(dash);
        row(&mut s, 100.0, total, calls, errors, "total");
        s
    }
}

fn row(s: &mut String, pct: f64, t: Duration, calls: u64, errors: u64, name: &str) {
    let usecs = (t.as_micros() as u64).checked_div(calls).unwrap_or(0);
    let err = if errors == 0 {
        String::new()
    } else {
        errors.to_string()
    };
    let secs = format!("{}.{:06}", t.as_secs(), t.subsec_micros());
    let _ = writeln!(
        s,
        "{pct:6.2} {secs:>11} {usecs:11} {calls:9} {err:>9} {name}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strace_layout() {
        let mut s = Summary::default();
        s.record("close", 3, Duration::from_micros(50), false);
        s.record("close", 3, Duration::from_micros(10), false);
        s.record("access", 21, Duration::from_micros(0), true);
        s.record("read", 0, Duration::from_micros(0), false);
        let t = s.render(SortBy::Time);
        let want = "\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
100.00    0.000060          30         2           close
  0.00    0.000000           0         1           read
  0.00    0.000000           0         1         1 access
------ ----------- ----------- --------- --------- ----------------
100.00    0.000060          15         4         1 total
";
        assert_eq!(t, want);
    }
}
