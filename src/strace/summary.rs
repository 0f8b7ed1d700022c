//! The `-c` / `-C` summary table, formatted exactly like strace's: the
//! columns chosen with `-U` (strace's default set otherwise), each as wide as
//! its header or its widest value, and the `-S` sort order.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

/// `-S` sort keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    /// Total time (default).
    Time,
    /// Calls.
    Calls,
    /// Errors.
    Errors,
    /// Name.
    Name,
    /// Average time.
    AvgTime,
    /// Minimum time.
    MinTime,
    /// Maximum time.
    MaxTime,
    /// Table order.
    Nothing,
}

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

impl Counter {
    /// Average time of a call, rounded to the nearest nanosecond.
    fn avg(&self) -> Duration {
        let n = self.calls.max(1) as u128;
        let ns = (self.total.as_nanos() + n / 2) / n;
        Duration::from_nanos(ns as u64)
    }
}

/// A column of the summary table (`-U`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// `% time`: share of the total time.
    TimePercent,
    /// `seconds`: total time.
    TimeTotal,
    /// `shortest`: the shortest call.
    TimeMin,
    /// `longest`: the longest call.
    TimeMax,
    /// `usecs/call`: average time.
    TimeAvg,
    /// `calls`.
    Calls,
    /// `errors`.
    Errors,
    /// `syscall`: the name.
    Name,
}

/// strace's default columns.
pub const DEFAULT_COLUMNS: [Column; 6] = [
    Column::TimePercent,
    Column::TimeTotal,
    Column::TimeAvg,
    Column::Calls,
    Column::Errors,
    Column::Name,
];

/// The names `-U` and `-S` accept for each column (`None`: no column, only
/// meaningful as a sort order).
const ALIASES: &[(&str, Option<Column>)] = &[
    ("time", Some(Column::TimePercent)),
    ("time_percent", Some(Column::TimePercent)),
    ("time-percent", Some(Column::TimePercent)),
    ("time_total", Some(Column::TimeTotal)),
    ("time-total", Some(Column::TimeTotal)),
    ("total_time", Some(Column::TimeTotal)),
    ("total-time", Some(Column::TimeTotal)),
    ("min_time", Some(Column::TimeMin)),
    ("min-time", Some(Column::TimeMin)),
    ("shortest", Some(Column::TimeMin)),
    ("time_min", Some(Column::TimeMin)),
    ("time-min", Some(Column::TimeMin)),
    ("longest", Some(Column::TimeMax)),
    ("max_time", Some(Column::TimeMax)),
    ("max-time", Some(Column::TimeMax)),
    ("time_max", Some(Column::TimeMax)),
    ("time-max", Some(Column::TimeMax)),
    ("avg_time", Some(Column::TimeAvg)),
    ("avg-time", Some(Column::TimeAvg)),
    ("time_avg", Some(Column::TimeAvg)),
    ("time-avg", Some(Column::TimeAvg)),
    ("calls", Some(Column::Calls)),
    ("count", Some(Column::Calls)),
    ("error", Some(Column::Errors)),
    ("errors", Some(Column::Errors)),
    ("name", Some(Column::Name)),
    ("syscall", Some(Column::Name)),
    ("syscall_name", Some(Column::Name)),
    ("syscall-name", Some(Column::Name)),
    ("none", None),
    ("nothing", None),
];

/// The `-S` order a name selects (strace sorts by the column it names).
pub fn sort_by_name(name: &str) -> Option<SortBy> {
    let (_, col) = ALIASES.iter().find(|a| a.0 == name)?;
    Some(match col {
        None => SortBy::Nothing,
        Some(Column::TimePercent | Column::TimeTotal) => SortBy::Time,
        Some(Column::TimeMin) => SortBy::MinTime,
        Some(Column::TimeMax) => SortBy::MaxTime,
        Some(Column::TimeAvg) => SortBy::AvgTime,
        Some(Column::Calls) => SortBy::Calls,
        Some(Column::Errors) => SortBy::Errors,
        Some(Column::Name) => SortBy::Name,
    })
}

/// Parses a `-U` list: comma-separated column names, each at most once; the
/// name column is added at the end when missing. The error is strace's
/// message.
pub fn parse_columns(spec: &str) -> Result<Vec<Column>, String> {
    let mut cols: Vec<Column> = Vec::new();
    let mut rest = spec;
    loop {
        let (item, more) = match rest.split_once(',') {
            Some((a, b)) => (a, Some(b)),
            None => (rest, None),
        };
        let found = ALIASES
            .iter()
            .find_map(|&(n, c)| c.filter(|_| n == item).map(|c| (n, c)));
        let Some((name, col)) = found else {
            return Err(format!("unknown column name: '{item}'"));
        };
        if cols.contains(&col) {
            return Err(format!(
                "call summary column has been provided more than once: '{name}' \
                 (-U option residual: '{rest}')"
            ));
        }
        cols.push(col);
        match more {
            Some(m) => rest = m,
            None => break,
        }
    }
    if !cols.contains(&Column::Name) {
        cols.push(Column::Name);
    }
    Ok(cols)
}

/// Counters by syscall, in first-seen order within table order.
#[derive(Debug, Default)]
pub struct Summary {
    by_name: HashMap<&'static str, (u64, Counter)>,
}

/// Seconds as a float, as strace's `ts_float` makes them.
fn secs(d: Duration) -> f64 {
    d.as_secs() as f64 + f64::from(d.subsec_nanos()) / 1e9
}

/// What the table's cells are made of: the totals row and the column widths.
struct Totals {
    time: Duration,
    min: Duration,
    max: Duration,
    calls: u64,
    errors: u64,
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

    /// The table as strace prints it with its default columns.
    pub fn render(&self, sort: SortBy) -> String {
        self.render_columns(sort, &DEFAULT_COLUMNS)
    }

    /// The table with `columns` (as `-U` gives them), sorted by `sort`.
    pub fn render_columns(&self, sort: SortBy, columns: &[Column]) -> String {
        let mut rows: Vec<(&str, u64, &Counter)> =
            self.by_name.iter().map(|(n, (o, c))| (*n, *o, c)).collect();
        // Table order first; the sorts below are stable, as strace's is.
        rows.sort_by_key(|r| r.1);
        use std::cmp::Reverse as rev;
        match sort {
            SortBy::Time => rows.sort_by_key(|r| rev(r.2.total)),
            SortBy::Calls => rows.sort_by_key(|r| rev(r.2.calls)),
            SortBy::Errors => rows.sort_by_key(|r| rev(r.2.errors)),
            SortBy::Name => rows.sort_by(|a, b| a.0.cmp(b.0)),
            SortBy::AvgTime => rows.sort_by_key(|r| rev(r.2.avg())),
            SortBy::MinTime => rows.sort_by_key(|r| rev(r.2.min.unwrap_or_default())),
            SortBy::MaxTime => rows.sort_by_key(|r| rev(r.2.max)),
            SortBy::Nothing => {}
        }
        let t = Totals {
            time: rows.iter().map(|r| r.2.total).sum(),
            min: rows
                .iter()
                .filter_map(|r| r.2.min)
                .min()
                .unwrap_or(Duration::MAX),
            max: rows.iter().map(|r| r.2.max).max().unwrap_or_default(),
            calls: rows.iter().map(|r| r.2.calls).sum(),
            errors: rows.iter().map(|r| r.2.errors).sum(),
        };
        let min_max = rows
            .iter()
            .filter_map(|r| r.2.min)
            .max()
            .unwrap_or_default();
        let avg_max = rows.iter().map(|r| r.2.avg()).max().unwrap_or_default();
        let name_max = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let total_secs = secs(t.time);
        let width = |c: Column| -> usize {
            let (header, value) = match c {
                Column::TimePercent => (6, 6),
                Column::TimeTotal => (11, format!("{total_secs:.6}").len()),
                Column::TimeMin => (8, format!("{}.000000", min_max.as_secs()).len()),
                Column::TimeMax => (7, format!("{}.000000", t.max.as_secs()).len()),
                Column::TimeAvg => (11, ((secs(avg_max) * 1e6) as u64).to_string().len()),
                Column::Calls => (9, t.calls.to_string().len()),
                Column::Errors => (9, t.errors.to_string().len()),
                Column::Name => (16, name_max + 1),
            };
            header.max(value)
        };
        let last = columns.len().saturating_sub(1);
        let mut s = String::new();
        for (i, &c) in columns.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            let w = width(c);
            let h = header(c);
            match c {
                Column::Name if i == last => s.push_str(h),
                Column::Name => {
                    let _ = write!(s, "{h:<w$}");
                }
                _ => {
                    let _ = write!(s, "{h:>w$}");
                }
            }
        }
        s.push('\n');
        let divider = |s: &mut String| {
            for (i, &c) in columns.iter().enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                s.extend(std::iter::repeat_n('-', width(c)));
            }
            s.push('\n');
        };
        divider(&mut s);
        for (name, _, c) in &rows {
            let mut pct = 100.0 * secs(c.total);
            if pct != 0.0 {
                pct /= total_secs;
            }
            let avg_us = (secs(c.avg()) * 1e6) as u64;
            let cells = Cells {
                pct,
                total: c.total,
                min: c.min.unwrap_or_default(),
                max: c.max,
                avg_us,
                calls: c.calls,
                errors: c.errors,
                name,
            };
            cells.write(&mut s, columns, &width);
        }
        divider(&mut s);
        let avg_us = (total_secs / t.calls as f64 * 1e6) as u64;
        Cells {
            pct: 100.0,
            total: t.time,
            min: t.min,
            max: t.max,
            avg_us,
            calls: t.calls,
            errors: t.errors,
            name: "total",
        }
        .write(&mut s, columns, &width);
        s
    }
}

/// The header of a column.
fn header(c: Column) -> &'static str {
    match c {
        Column::TimePercent => "% time",
        Column::TimeTotal => "seconds",
        Column::TimeMin => "shortest",
        Column::TimeMax => "longest",
        Column::TimeAvg => "usecs/call",
        Column::Calls => "calls",
        Column::Errors => "errors",
        Column::Name => "syscall",
    }
}

/// The values of one row of the table.
struct Cells<'a> {
    pct: f64,
    total: Duration,
    min: Duration,
    max: Duration,
    avg_us: u64,
    calls: u64,
    errors: u64,
    name: &'a str,
}

impl Cells<'_> {
    fn write(&self, s: &mut String, columns: &[Column], width: &dyn Fn(Column) -> usize) {
        let last = columns.len().saturating_sub(1);
        for (i, &c) in columns.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            let w = width(c);
            let _ = match c {
                Column::TimePercent => write!(s, "{:>w$.2}", self.pct),
                Column::TimeTotal => write!(s, "{:>w$.6}", secs(self.total)),
                Column::TimeMin => write!(s, "{:>w$.6}", secs(self.min)),
                Column::TimeMax => write!(s, "{:>w$.6}", secs(self.max)),
                Column::TimeAvg => write!(s, "{:>w$}", self.avg_us),
                Column::Calls => write!(s, "{:>w$}", self.calls),
                // strace prints no digit for zero errors.
                Column::Errors if self.errors == 0 => write!(s, "{:>w$}", ""),
                Column::Errors => write!(s, "{:>w$}", self.errors),
                Column::Name if i == last => write!(s, "{}", self.name),
                Column::Name => write!(s, "{:<w$}", self.name),
            };
        }
        s.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Summary {
        let mut s = Summary::default();
        s.record("close", 3, Duration::from_micros(50), false);
        s.record("close", 3, Duration::from_micros(10), false);
        s.record("access", 21, Duration::from_micros(0), true);
        s.record("read", 0, Duration::from_micros(0), false);
        s
    }

    #[test]
    fn strace_layout() {
        let t = sample().render(SortBy::Time);
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

    #[test]
    fn chosen_columns() {
        let cols = parse_columns("calls,longest,shortest").unwrap();
        let t = sample().render_columns(SortBy::MaxTime, &cols);
        let want = concat!(
            "    calls  longest shortest syscall\n",
            "--------- -------- -------- ----------------\n",
            "        2 0.000050 0.000010 close\n",
            "        1 0.000000 0.000000 read\n",
            "        1 0.000000 0.000000 access\n",
            "--------- -------- -------- ----------------\n",
            "        4 0.000050 0.000000 total\n",
        );
        assert_eq!(t, want);
        // The name column last is not padded; elsewhere it is.
        let cols = parse_columns("name,errors").unwrap();
        let t = sample().render_columns(SortBy::Name, &cols);
        // "syscall" padded to 16, then "errors" right-aligned in 9.
        assert!(t.starts_with(&format!("syscall{:13}errors\n", "")), "{t}");
        assert!(t.contains(&format!("\naccess{:19}1\n", "")), "{t}");
    }

    #[test]
    fn widths_grow_with_values() {
        let mut s = Summary::default();
        s.record(
            "a_rather_long_syscall_name",
            1,
            Duration::from_secs(123_456),
            false,
        );
        let t = s.render(SortBy::Time);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "% time       seconds   usecs/call     calls    errors syscall"
        );
        assert_eq!(
            lines[1],
            "------ ------------- ------------ --------- --------- ---------------------------"
        );
        assert_eq!(
            lines[2],
            "100.00 123456.000000 123456000000         1           a_rather_long_syscall_name"
        );
    }

    #[test]
    fn column_names_like_strace() {
        assert_eq!(parse_columns("time,name").unwrap().len(), 2);
        assert_eq!(
            parse_columns("calls").unwrap(),
            vec![Column::Calls, Column::Name]
        );
        assert_eq!(
            parse_columns("non").unwrap_err(),
            "unknown column name: 'non'"
        );
        assert_eq!(
            parse_columns("time,,name").unwrap_err(),
            "unknown column name: ''"
        );
        assert_eq!(
            parse_columns("none").unwrap_err(),
            "unknown column name: 'none'"
        );
        assert_eq!(
            parse_columns("time,time_percent,time_total").unwrap_err(),
            "call summary column has been provided more than once: 'time_percent' \
             (-U option residual: 'time_percent,time_total')"
        );
        assert_eq!(sort_by_name("time-percent"), Some(SortBy::Time));
        assert_eq!(sort_by_name("longest"), Some(SortBy::MaxTime));
        assert_eq!(sort_by_name("nothing"), Some(SortBy::Nothing));
        assert_eq!(sort_by_name("syscall_names"), None);
    }
}
