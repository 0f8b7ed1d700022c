//! What `rtrace diff` compares: each syscall record becomes a *key* (name
//! and arguments with run-specific values replaced) used for alignment, and
//! a normalised *result* compared between aligned calls (docs/record.md
//! describes `rtrace diff`). The rules:
//!
//! - addresses (`{"ptr":..}`, integers ≥ 2³², `0x…` in expressions) → `ADDR`;
//!   results of mmap/mremap/brk/shmat → `ADDR`;
//! - pids: pid arguments of kill/wait4/… (both of tgkill) and results of fork/getpid/… → `PID`,
//!   `/proc/<n>/` → `/proc/PID/`;
//! - fds: a descriptor created in the recording is named by what it was
//!   opened on (`fd<data/input.txt>`, `fd<socket>`), dup'd descriptors
//!   inherit the name; fd results of open-like calls → `FD`; descriptors
//!   not created in the recording (0, 1, 2, inherited) keep their number;
//! - temp paths: the first component under /tmp, /var/tmp, /dev/shm → `TMP`,
//!   digit runs in the rest → `N`;
//! - I/O data and byte counts (read/write/send/recv…, getrandom, getdents)
//!   are not compared, structures other than socket addresses are not;
//! - timestamps and durations are never part of a key;
//! - noise: futex, sched_yield, sleeps, clock reads, poll/select/epoll waits,
//!   rt_sigreturn, getrandom (glibc's vDSO getrandom enters the kernel
//!   only sometimes) and any call failing with EINTR/EAGAIN/ERESTART* are left
//!   out of the alignment altogether;
//! - environment probes (fstat/isatty/fcntl/lseek of the inherited fds 0–2,
//!   locale files: [`super::environment::PROBES`]) are classed
//!   [`Class::Env`] and successful writes to the inherited fds 1 and 2
//!   [`Class::Output`]: neither takes part in the call alignment.

use super::environment;
use rtrace_arch::tables::{syscall_info, Classes};
use serde_json::Value;
use std::collections::HashMap;

/// Calls whose number and timing depend on scheduling, not on the program's logic.
const NOISE: &[&str] = &[
    "futex",
    "sched_yield",
    "nanosleep",
    "clock_nanosleep",
    "clock_gettime",
    "clock_getres",
    "gettimeofday",
    "time",
    "restart_syscall",
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "rt_sigreturn",
    "rt_sigsuspend",
    "getrandom",
];
const NOISE_ERRNO: &[&str] = &[
    "EINTR",
    "EAGAIN",
    "EWOULDBLOCK",
    "ERESTARTSYS",
    "ERESTARTNOINTR",
    "ERESTARTNOHAND",
    "ERESTART_RESTARTBLOCK",
];
/// Calls moving data: contents and counts are not compared.
const DATA: &[&str] = &[
    "read",
    "write",
    "pread64",
    "pwrite64",
    "readv",
    "writev",
    "preadv",
    "preadv2",
    "pwritev",
    "pwritev2",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "getrandom",
    "getdents",
    "getdents64",
    "sendfile",
    "splice",
    "tee",
    "copy_file_range",
    "vmsplice",
];
/// Calls returning a new descriptor.
const FD_RESULT: &[&str] = &[
    "open",
    "openat",
    "openat2",
    "creat",
    "socket",
    "accept",
    "accept4",
    "dup",
    "dup2",
    "dup3",
    "eventfd",
    "eventfd2",
    "epoll_create",
    "epoll_create1",
    "memfd_create",
    "timerfd_create",
    "signalfd",
    "signalfd4",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
    "pidfd_open",
    "perf_event_open",
    "userfaultfd",
    "open_tree",
    "fsopen",
    "fsmount",
    "fspick",
    "memfd_secret",
];
/// Calls returning a pid.
const PID_RESULT: &[&str] = &[
    "clone",
    "clone3",
    "fork",
    "vfork",
    "getpid",
    "getppid",
    "gettid",
    "wait4",
    "getpgid",
    "getsid",
    "getpgrp",
    "setsid",
    "set_tid_address",
];
/// Calls whose first argument is a pid.
const PID_ARG0: &[&str] = &[
    "kill",
    "tkill",
    "tgkill",
    "wait4",
    "ptrace",
    "setpgid",
    "getpgid",
    "getsid",
    "prlimit64",
    "pidfd_open",
    "process_vm_readv",
    "process_vm_writev",
    "sched_setaffinity",
    "sched_getaffinity",
    "sched_setscheduler",
    "sched_getscheduler",
    "sched_setparam",
    "sched_getparam",
    "rt_sigqueueinfo",
    "kcmp",
    "pidfd_send_signal",
];
const ADDR_RESULT: &[&str] = &["mmap", "mmap2", "mremap", "brk", "shmat"];

/// How a syscall record takes part in the comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// Aligned with the other run's calls; a difference is a divergence.
    Behaviour,
    /// An environment probe ([`super::environment::PROBES`]): aligned
    /// separately, after the behaviour, by `key` (the call without its
    /// output arguments); `value` (arguments and result, normalised) is
    /// compared.
    Env {
        /// Index in `PROBES`.
        probe: usize,
        /// What the probe asks: `ioctl(1, TCGETS, …)`.
        key: String,
        /// What it got.
        value: String,
    },
    /// A successful write to the inherited fd 1 or 2 of `bytes` bytes:
    /// compared as a stream per process ([`super::environment::output_fd`]).
    Output {
        /// 1 or 2.
        fd: u8,
        /// Bytes written.
        bytes: u64,
    },
}

/// The normalised view of one syscall record.
#[derive(Debug, Clone)]
pub struct Norm {
    /// Alignment key: name and normalised arguments.
    pub key: String,
    /// Normalised result (`FD`, `-1 ENOENT`, `0`, `ADDR`, …).
    pub result: String,
    /// Paths a successful file-class call named (none for environment
    /// probes).
    pub files: Vec<String>,
    /// Behaviour, environment probe or output.
    pub class: Class,
}

/// Whether a syscall record is left out of the comparison (see module docs).
pub fn is_noise(ev: &Value) -> bool {
    let name = ev["syscall"].as_str().unwrap_or("");
    NOISE.contains(&name)
        || ev["errno"]
            .as_str()
            .is_some_and(|e| NOISE_ERRNO.contains(&e))
}

/// Replaces what changes between runs in a path or text.
pub fn norm_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    for root in ["/tmp/", "/var/tmp/", "/dev/shm/"] {
        if let Some(tail) = s.strip_prefix(root) {
            out.push_str(root);
            out.push_str("TMP");
            rest = tail.find('/').map_or("", |k| &tail[k..]);
            let mut digits = false;
            for c in rest.chars() {
                if c.is_ascii_digit() {
                    if !digits {
                        out.push('N');
                    }
                    digits = true;
                } else {
                    digits = false;
                    out.push(c);
                }
            }
            return out;
        }
    }
    // /proc/<pid>/ and 0x addresses anywhere.
    while let Some(k) = rest.find("/proc/").or_else(|| rest.find("0x")) {
        let (head, tail) = rest.split_at(k);
        out.push_str(head);
        if let Some(t) = tail.strip_prefix("/proc/") {
            let n = t.bytes().take_while(u8::is_ascii_digit).count();
            out.push_str(if n > 0 { "/proc/PID" } else { "/proc/" });
            rest = &t[n..];
        } else {
            let t = &tail[2..];
            let n = t.bytes().take_while(u8::is_ascii_hexdigit).count();
            out.push_str(if n > 0 { "0xADDR" } else { "0x" });
            rest = &t[n..];
        }
    }
    out.push_str(rest);
    out
}

fn is_addr(n: &serde_json::Number) -> bool {
    n.as_i64().is_none_or(|v| v.unsigned_abs() >= 1 << 32)
}

/// Per-process descriptor names.
#[derive(Debug, Clone, Default)]
pub struct FdNames(HashMap<i64, String>);

impl FdNames {
    fn name(&self, fd: i64) -> String {
        self.0.get(&fd).cloned().unwrap_or_else(|| fd.to_string())
    }

    /// Whether `fd` is 0, 1 or 2 as the command got it: no call of the
    /// recording has made it anew (open, dup2, …).
    pub fn inherited(&self, fd: i64) -> bool {
        (0..=2).contains(&fd) && !self.0.contains_key(&fd)
    }

    /// The (normalised) path `fd` was opened on in the recording.
    pub fn opened_on(&self, fd: i64) -> Option<&str> {
        self.0.get(&fd)?.strip_prefix("fd<")?.strip_suffix('>')
    }
}

struct KeyWriter<'a> {
    fds: &'a FdNames,
    data: bool,
    /// Environment-probe keys: pointers and structures (the call's output,
    /// filled in one run and not the other) both become `…`.
    loose: bool,
}

impl KeyWriter<'_> {
    fn arg(&self, v: &Value, out: &mut String) {
        match v {
            Value::Null => out.push_str("NULL"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) if is_addr(n) => out.push_str(if self.loose { "…" } else { "ADDR" }),
            Value::Number(n) => out.push_str(&n.to_string()),
            Value::String(_) if self.data => out.push('…'),
            Value::String(s) => {
                out.push('"');
                out.push_str(&norm_text(s));
                out.push('"');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.arg(x, out);
                }
                out.push(']');
            }
            Value::Object(m) => {
                if let Some(fd) = m.get("fd").and_then(Value::as_i64) {
                    out.push_str(&self.fds.name(fd));
                } else if m.contains_key("ptr") {
                    out.push_str(if self.loose { "…" } else { "ADDR" });
                } else if let Some(s) = m.get("sym").and_then(Value::as_str) {
                    out.push_str(&norm_text(s));
                } else if let Some(f) = m.get("flags").and_then(Value::as_array) {
                    let names: Vec<&str> = f.iter().filter_map(Value::as_str).collect();
                    out.push_str(&names.join("|"));
                    // Bits without a name (a file mode's 0644) are part of the value.
                    if let Some(r) = m.get("rest").and_then(Value::as_u64) {
                        let _ = std::fmt::Write::write_fmt(out, format_args!("|{r:#o}"));
                    }
                } else if let Some(e) = m.get("expr").and_then(Value::as_str) {
                    out.push_str(&norm_text(e));
                } else if m.contains_key("str") {
                    self.arg(&m["str"], out);
                } else if let (false, Some(t)) = (self.data, crate::value::json::bytes_text(v)) {
                    // Bytes that are not UTF-8: compared byte for byte.
                    out.push('"');
                    out.push_str(&norm_text(&t));
                    out.push('"');
                } else if self.data && m.contains_key(crate::value::json_shape::BYTES_HEX) {
                    out.push('…');
                } else if let Some(i) = m.get("in") {
                    self.arg(i, out);
                } else if let Some(v) = m.get("value") {
                    self.arg(v, out);
                } else if m.contains_key("sa_family") {
                    out.push('{');
                    for (k, x) in m {
                        out.push_str(k);
                        out.push('=');
                        self.arg(x, out);
                        out.push(',');
                    }
                    out.push('}');
                } else {
                    out.push_str(if self.loose { "…" } else { "{…}" });
                }
            }
        }
    }
}

/// Normalises one syscall record of a process whose descriptor names are
/// `fds`, updating them (opens, dups, closes).
pub fn normalize(ev: &Value, fds: &mut FdNames) -> Norm {
    let name = ev["syscall"].as_str().unwrap_or("?");
    let args: &[Value] = ev["args"].as_array().map_or(&[], Vec::as_slice);
    let data = DATA.contains(&name);
    let key = call_key(
        name,
        args,
        &KeyWriter {
            fds,
            data,
            loose: false,
        },
    );
    let probe = environment::classify(ev, fds);
    let output = environment::output_fd(ev, fds);
    let ret = &ev["return"];
    let errno = ev["errno"].as_str();
    let ok = errno.is_none() && ret.as_i64().is_some_and(|r| r >= 0);
    let result = match (errno, ret) {
        (Some(e), _) => format!("-1 {e}"),
        (None, Value::Null) => "?".to_string(),
        _ if ok && FD_RESULT.contains(&name) => "FD".to_string(),
        _ if ok && PID_RESULT.contains(&name) && ret.as_i64() != Some(0) => "PID".to_string(),
        _ if ADDR_RESULT.contains(&name) => "ADDR".to_string(),
        _ if ok && data => "N".to_string(),
        (None, Value::Number(n)) if is_addr(n) => "ADDR".to_string(),
        (None, v) => v.to_string(),
    };
    let strings: Vec<String> = args
        .iter()
        .filter_map(crate::tracefile::tree::arg_str)
        .map(|s| norm_text(&s))
        .collect();
    let file_class = syscall_info(name).is_some_and(|i| i.classes.contains(Classes::FILE));
    let class = match (probe, output) {
        (Some(probe), _) => Class::Env {
            probe,
            key: call_key(
                name,
                args,
                &KeyWriter {
                    fds,
                    data,
                    loose: true,
                },
            ),
            value: env_value(args, &result),
        },
        (None, Some(fd)) => Class::Output {
            fd,
            bytes: ret.as_u64().unwrap_or(0),
        },
        (None, None) => Class::Behaviour,
    };
    let files = if ok && file_class && !data && probe.is_none() {
        strings.clone()
    } else {
        Vec::new()
    };
    // Descriptor bookkeeping.
    let fd_arg = |i: usize| {
        args.get(i)
            .and_then(|a| a["fd"].as_i64().or_else(|| a.as_i64()))
    };
    if ok {
        if let Some(r) = ret.as_i64() {
            match name {
                "dup" | "dup2" | "dup3" => {
                    let src = fd_arg(0)
                        .map(|f| fds.name(f))
                        .unwrap_or_else(|| "fd".into());
                    fds.0.insert(r, src);
                }
                _ if FD_RESULT.contains(&name) => {
                    let what = strings.first().cloned().unwrap_or_else(|| name.to_string());
                    fds.0.insert(r, format!("fd<{what}>"));
                }
                _ => {}
            }
        }
    }
    if name == "close" {
        if let Some(f) = fd_arg(0) {
            fds.0.remove(&f);
        }
    }
    // Held for every event of a run: no spare capacity.
    let (mut key, mut result, mut files) = (key, result, files);
    key.shrink_to_fit();
    result.shrink_to_fit();
    files.shrink_to_fit();
    Norm {
        key,
        result,
        files,
        class,
    }
}

/// `name(args…)` with the arguments normalised by `w`.
fn call_key(name: &str, args: &[Value], w: &KeyWriter) -> String {
    let mut key = String::with_capacity(64);
    key.push_str(name);
    key.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            key.push_str(", ");
        }
        let pid_arg = (i == 0 && PID_ARG0.contains(&name)) || (i == 1 && name == "tgkill");
        if pid_arg && a.as_i64().is_some_and(|p| p > 0) {
            key.push_str("PID");
        } else if w.data && !matches!(a, Value::Object(m) if m.contains_key("fd")) {
            key.push('…');
        } else {
            w.arg(a, &mut key);
        }
    }
    key.push(')');
    key
}

/// What an environment probe got: its arguments as decoded (structures
/// included: `{st_mode=S_IFIFO|0600, …}`), addresses normalised, and its
/// normalised result.
fn env_value(args: &[Value], result: &str) -> String {
    let shown: Vec<String> = args
        .iter()
        .map(|a| match a {
            Value::Number(n) if is_addr(n) => "ADDR".to_string(),
            Value::Object(m) if m.contains_key("ptr") => "ADDR".to_string(),
            a => norm_text(&show(a)),
        })
        .collect();
    format!("({}) = {result}", shown.join(", "))
}

/// strace-style text of a syscall record with its real values:
/// `openat(AT_FDCWD, "x", O_RDONLY) = -1 ENOENT (No such file or directory)`.
pub fn render(ev: &Value) -> String {
    let name = ev["syscall"].as_str().unwrap_or("?");
    let args: Vec<String> = ev["args"]
        .as_array()
        .map_or(Vec::new(), |a| a.iter().map(show).collect());
    let ret = match (ev["errno"].as_str(), &ev["return"]) {
        (Some(e), r) => {
            let msg = rtrace_arch::tables::errno_value(e)
                .map(|n| std::io::Error::from_raw_os_error(n as i32).to_string())
                .map(|m| m.split(" (os error").next().unwrap_or("").to_string())
                .unwrap_or_default();
            format!("{} {e} ({msg})", r.as_i64().unwrap_or(-1))
        }
        (None, Value::Null) => "?".to_string(),
        // A decoded result (`0x1 (flags O_WRONLY)`) is shown as rstrace prints it.
        (None, Value::String(s)) => s.clone(),
        (None, v) => show(v),
    };
    format!("{name}({}) = {ret}", args.join(", "))
}

/// Bytes that are not UTF-8, quoted with `\xNN` for every byte outside
/// printable ASCII.
fn quote_bytes(b: &[u8]) -> String {
    let mut q = String::from("\"");
    for &c in b.iter().take(64) {
        match c {
            b'"' => q.push_str("\\\""),
            b'\\' => q.push_str("\\\\"),
            0x20..=0x7e => q.push(c as char),
            _ => q.push_str(&format!("\\x{c:02x}")),
        }
    }
    q.push('"');
    if b.len() > 64 {
        q.push_str("...");
    }
    q
}

fn quote(s: &str) -> String {
    let mut q = String::from("\"");
    for c in s.chars().take(64) {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                q.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => q.push(c),
        }
    }
    q.push('"');
    if s.chars().count() > 64 {
        q.push_str("...");
    }
    q
}

/// Text of one decoded value (the inverse of rstrace's JSON form).
pub fn show(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::String(s) => quote(s),
        Value::Array(a) => format!("[{}]", a.iter().map(show).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            if let Some(b) = m
                .contains_key(crate::value::json_shape::BYTES_HEX)
                .then(|| crate::value::json::bytes_of(v))
                .flatten()
            {
                return quote_bytes(&b);
            }
            if let Some(fd) = m.get("fd") {
                return match m.get("path").and_then(Value::as_str) {
                    Some(p) => format!("{fd}<{p}>"),
                    None => fd.to_string(),
                };
            }
            for k in ["ptr", "sym", "expr"] {
                if let Some(s) = m.get(k).and_then(Value::as_str) {
                    return s.to_string();
                }
            }
            if let Some(f) = m.get("flags").and_then(Value::as_array) {
                let mut names: Vec<String> = f
                    .iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect();
                if let Some(r) = m.get("rest") {
                    names.push(show(r));
                }
                return names.join("|");
            }
            if let Some(s) = m.get("str") {
                return format!("{}...", show(s));
            }
            if let (Some(i), Some(o)) = (m.get("in"), m.get("out")) {
                return format!("{} => {}", show(i), show(o));
            }
            if let Some(v) = m.get("value") {
                return match m.get("comment").and_then(Value::as_str) {
                    Some(c) => format!("{} /* {c} */", show(v)),
                    None => show(v),
                };
            }
            let mut parts: Vec<String> = m
                .iter()
                .filter(|(k, _)| k.as_str() != "...")
                .map(|(k, x)| format!("{k}={}", show(x)))
                .collect();
            if m.contains_key("...") {
                parts.push("...".into());
            }
            format!("{{{}}}", parts.join(", "))
        }
        v => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn run_specific_values_are_normalised() {
        assert_eq!(
            norm_text("/tmp/diff_1234/data/x.42.txt"),
            "/tmp/TMP/data/x.N.txt"
        );
        assert_eq!(norm_text("/tmp/tmp.Xa9kQz"), "/tmp/TMP");
        assert_eq!(norm_text("/proc/4321/status"), "/proc/PID/status");
        assert_eq!(
            norm_text("child_tidptr=0x7fa842bb8a10"),
            "child_tidptr=0xADDR"
        );
        let mut fds = FdNames::default();
        let open = json!({"syscall":"openat","args":[{"sym":"AT_FDCWD"},"data/in.txt",{"flags":["O_RDONLY"]}],"return":5});
        let n = normalize(&open, &mut fds);
        assert_eq!(n.key, "openat(AT_FDCWD, \"data/in.txt\", O_RDONLY)");
        assert_eq!(
            (n.result.as_str(), n.files.clone()),
            ("FD", vec!["data/in.txt".to_string()])
        );
        let read = json!({"syscall":"read","args":[{"fd":5},{"str":"abc","truncated":true},832],"return":3});
        let n = normalize(&read, &mut fds);
        assert_eq!(
            (n.key.as_str(), n.result.as_str()),
            ("read(fd<data/in.txt>, …, …)", "N")
        );
        normalize(
            &json!({"syscall":"close","args":[{"fd":5}],"return":0}),
            &mut fds,
        );
        assert_eq!(normalize(&read, &mut fds).key, "read(5, …, …)");
        let mmap = json!({"syscall":"mmap","args":[null,8192,{"ptr":"0x7f00"},140035635470336u64],"return":140035635470336u64});
        let n = normalize(&mmap, &mut fds);
        assert_eq!(
            (n.key.as_str(), n.result.as_str()),
            ("mmap(NULL, 8192, ADDR, ADDR)", "ADDR")
        );
        let kill = json!({"syscall":"kill","args":[777,{"sym":"SIGTERM"}],"return":0});
        assert_eq!(normalize(&kill, &mut fds).key, "kill(PID, SIGTERM)");
        let tgkill = json!({"syscall":"tgkill","args":[777,778,{"sym":"SIGUSR1"}],"return":0});
        assert_eq!(
            normalize(&tgkill, &mut fds).key,
            "tgkill(PID, PID, SIGUSR1)"
        );
        let fail = json!({"syscall":"openat","args":[{"sym":"AT_FDCWD"},"x",{"flags":["O_RDONLY"]}],"return":-1,"errno":"ENOENT"});
        let n = normalize(&fail, &mut fds);
        assert_eq!((n.result.as_str(), n.files.len()), ("-1 ENOENT", 0));
        assert!(is_noise(&json!({"syscall":"futex"})));
        assert!(is_noise(&json!({"syscall":"read","errno":"EAGAIN"})));
        assert!(!is_noise(&fail));
    }

    #[test]
    fn render_looks_like_strace() {
        let fail = json!({"syscall":"openat","args":[{"sym":"AT_FDCWD"},"data/input.txt",{"flags":["O_RDONLY"]}],"return":-1,"errno":"ENOENT"});
        assert_eq!(
            render(&fail),
            "openat(AT_FDCWD, \"data/input.txt\", O_RDONLY) = -1 ENOENT (No such file or directory)"
        );
        let ex = json!({"syscall":"exit_group","args":[0],"return":null});
        assert_eq!(render(&ex), "exit_group(0) = ?");
        let getfl = json!({"syscall":"fcntl","args":[{"fd":1},{"sym":"F_GETFL"}],"return":"0x8001 (flags O_WRONLY|O_LARGEFILE)"});
        assert_eq!(
            render(&getfl),
            "fcntl(1, F_GETFL) = 0x8001 (flags O_WRONLY|O_LARGEFILE)"
        );
    }
}
