//! The trace file's first and last lines: the `header` (command, cwd,
//! environment digest, host, kernel, start time) and the `footer` (exit
//! status, elapsed time, event counts), schema in [`crate::tracefile`] and
//! docs/record.md ("Trace file"). Both are the typed objects of
//! [`crate::tracefile::event`], the ones the readers deserialize.

use crate::engine::Outcome;
use crate::strace::Ended;
use crate::tracefile::event::{Footer, Header, Recorded};
use std::collections::BTreeMap;
use std::ffi::OsString;
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

fn strings(items: &[OsString]) -> Vec<String> {
    items
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
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
    let h = Header {
        stream: Some("record".into()),
        version: crate::tracefile::VERSION,
        tool: Some("rtrace".into()),
        rtrace_version: Some(env!("CARGO_PKG_VERSION").into()),
        command: strings(command),
        attached: (!o.attached.is_empty()).then(|| o.attached.to_vec()),
        cwd,
        env_digest: Some(digest),
        env_vars: Some(nvars as u64),
        hostname: Some(host),
        kernel: Some(kernel),
        arch: Some(std::env::consts::ARCH.into()),
        start_ns: Some(unix_now()),
        recorded: Recorded {
            syscalls: true,
            libcalls: a.libcalls,
            stack: a.stack,
            probes: a.probes.clone(),
        },
        compression: a.zstd.then(|| "zstd".into()),
        options: strings(&a.pass),
    };
    line(&h)
}

/// One object as a line of the trace file.
fn line<T: serde::Serialize>(v: &T) -> String {
    let mut s = String::new();
    crate::value::serialize::write_json(&mut s, v);
    s.push('\n');
    s
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
    let mut f = Footer::default();
    let status = match end {
        Ended::Done(Outcome::Exited(c)) => {
            f.exit_code = Some(c);
            c
        }
        Ended::Done(Outcome::Killed(s, core)) => {
            (f.signal, f.core_dumped) = (Some(signame(s)), core);
            128 + s
        }
        Ended::Done(Outcome::None) => 0,
        Ended::Interrupted(s) => {
            f.interrupted = Some(signame(s));
            crate::engine::signals::interrupted_status(s)
        }
        Ended::Failed(c) => {
            f.error = Some("the command could not be traced (see rtrace's messages)".into());
            c
        }
    };
    f.elapsed_ns = Some(started.elapsed().as_nanos() as u64);
    f.end_ns = Some(unix_now());
    f.events = counts.clone();
    f.events_total = counts.values().sum();
    (line(&f), status)
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
