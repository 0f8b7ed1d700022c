//! The trace file's first and last lines: the `header` (command, cwd,
//! environment digest, host, kernel, start time) and the `footer` (exit
//! status, elapsed time, event counts), schema in [`crate::tracefile`] and
//! docs/record.md ("Trace file").

use crate::engine::Outcome;
use crate::strace::Ended;
use crate::value::json::push_str;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::time::{Instant, SystemTime};

/// Nanoseconds since the Unix epoch, now.
fn unix_now() -> u64 {
    crate::value::json::unix_ns(SystemTime::now())
}

/// FNV-1a (64 bit) of the sorted environment the command gets (`-E`
/// applied): `VAR=VALUE\0` per variable. Values never reach the file.
fn env_digest(changes: &[(OsString, Option<OsString>)]) -> (String, usize) {
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    for (k, v) in changes {
        match v {
            Some(v) => env.insert(k.clone(), v.clone()),
            None => env.remove(k),
        };
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, v) in &env {
        for b in k
            .as_bytes()
            .iter()
            .chain(b"=")
            .chain(v.as_bytes())
            .chain(b"\0")
        {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    (format!("fnv1a64:{h:016x}"), env.len())
}

/// (nodename, release) from uname(2).
fn uname() -> (String, String) {
    crate::sys::uname()
}

fn push_os_list(out: &mut String, items: &[OsString]) {
    out.push('[');
    for (i, a) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str(out, &a.to_string_lossy());
    }
    out.push(']');
}

/// What the header says about the command: argv, `-E` changes, and the
/// processes attached to with `-p` (none when it was launched).
pub(super) struct Cmd<'a> {
    pub(super) command: &'a [OsString],
    pub(super) env: &'a [(OsString, Option<OsString>)],
    pub(super) attached: &'a [i32],
}

/// The argv of a running process (`/proc/PID/cmdline`; empty when gone).
fn cmdline_of(pid: i32) -> Vec<OsString> {
    use std::os::unix::ffi::OsStringExt;
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_default()
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| OsString::from_vec(a.to_vec()))
        .collect()
}

/// The record command line, split into ours and rstrace's.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Args {
    pub(super) output: Option<OsString>,
    pub(super) stack: bool,
    pub(super) zstd: bool,
    /// `--libcalls`: `pass` holds rltrace options.
    pub(super) libcalls: bool,
    /// `--probe` specs, as given.
    pub(super) probes: Vec<String>,
    /// rstrace options passed through, in order.
    pub(super) pass: Vec<OsString>,
    pub(super) command: Vec<OsString>,
}

pub(super) fn header(a: &Args, o: Cmd) -> String {
    let (host, kernel) = uname();
    let (digest, nvars) = env_digest(o.env);
    // An attached process: its own command line and directory.
    let first = o.attached.first().copied();
    let cwd = match first {
        Some(p) => std::fs::read_link(format!("/proc/{p}/cwd")),
        None => std::env::current_dir(),
    }
    .map(|p| p.to_string_lossy().into_owned())
    .unwrap_or_default();
    let command = first.map(cmdline_of);
    let command = command.as_deref().unwrap_or(o.command);
    let mut h = format!(
        "{{\"type\":\"header\",\"stream\":\"record\",\"version\":{},\"tool\":\"rtrace\",\"rtrace_version\":\"{}\",\"command\":",
        crate::tracefile::VERSION,
        env!("CARGO_PKG_VERSION")
    );
    push_os_list(&mut h, command);
    if !o.attached.is_empty() {
        let pids: Vec<String> = o.attached.iter().map(|p| p.to_string()).collect();
        let _ = write!(h, ",\"attached\":[{}]", pids.join(","));
    }
    h.push_str(",\"cwd\":");
    push_str(&mut h, &cwd);
    h.push_str(",\"env_digest\":");
    push_str(&mut h, &digest);
    let _ = write!(h, ",\"env_vars\":{nvars},\"hostname\":");
    push_str(&mut h, &host);
    h.push_str(",\"kernel\":");
    push_str(&mut h, &kernel);
    let _ = write!(
        h,
        ",\"arch\":\"{}\",\"start_ns\":{},\"recorded\":{{\"syscalls\":true,\"libcalls\":{},\"stack\":{},\"probes\":",
        std::env::consts::ARCH,
        unix_now(),
        a.libcalls,
        a.stack,
    );
    push_os_list(
        &mut h,
        &a.probes.iter().map(OsString::from).collect::<Vec<_>>(),
    );
    let _ = write!(
        h,
        "}},\"compression\":{},\"options\":",
        if a.zstd { "\"zstd\"" } else { "null" }
    );
    push_os_list(&mut h, &a.pass);
    h.push_str("}\n");
    h
}

fn signame(sig: i32) -> String {
    crate::syscall::ctx::signal_name(sig as u64)
        .map(|c| c.into_owned())
        .unwrap_or_else(|| sig.to_string())
}

/// The footer and the exit status to pass on.
pub(super) fn footer(
    end: Ended,
    started: Instant,
    counts: &BTreeMap<String, u64>,
) -> (String, i32) {
    let mut f = String::from("{\"type\":\"footer\"");
    let null = "null".to_string();
    let quoted = |s: String| {
        let mut q = String::new();
        push_str(&mut q, &s);
        q
    };
    let (code, signal, core, interrupted, status) = match end {
        Ended::Done(Outcome::Exited(c)) => (c.to_string(), null.clone(), false, null.clone(), c),
        Ended::Done(Outcome::Killed(s, core)) => (
            null.clone(),
            quoted(signame(s)),
            core,
            null.clone(),
            128 + s,
        ),
        Ended::Done(Outcome::None) => (null.clone(), null.clone(), false, null.clone(), 0),
        Ended::Interrupted(s) => (
            null.clone(),
            null.clone(),
            false,
            quoted(signame(s)),
            crate::engine::signals::interrupted_status(s),
        ),
        Ended::Failed(c) => (null.clone(), null.clone(), false, null.clone(), c),
    };
    let _ = write!(
        f,
        ",\"exit_code\":{code},\"signal\":{signal},\"core_dumped\":{core},\"interrupted\":{interrupted}"
    );
    if let Ended::Failed(_) = end {
        f.push_str(",\"error\":\"the command could not be traced (see rtrace's messages)\"");
    }
    let el = started.elapsed();
    let _ = write!(
        f,
        ",\"elapsed_ns\":{},\"end_ns\":{},\"events\":{{",
        el.as_nanos() as u64,
        unix_now()
    );
    let mut total = 0;
    for (i, (k, n)) in counts.iter().enumerate() {
        if i > 0 {
            f.push(',');
        }
        push_str(&mut f, k);
        let _ = write!(f, ":{n}");
        total += n;
    }
    let _ = writeln!(f, "}},\"events_total\":{total}}}");
    (f, status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_digest_hides_values_but_tracks_them() {
        let (a, n) = env_digest(&[]);
        let (b, m) = env_digest(&[("RTRACE_TEST_X".into(), Some("1".into()))]);
        let (c, _) = env_digest(&[("RTRACE_TEST_X".into(), Some("2".into()))]);
        assert!(a.starts_with("fnv1a64:") && a.len() == 24);
        assert_ne!(a, b);
        assert_ne!(b, c);
        assert_eq!(m, n + 1);
    }
}
