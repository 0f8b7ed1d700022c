//! Environment probes for `rtrace diff`: calls whose result only says what
//! the run's surroundings are (what the inherited descriptors 0–2 are, which
//! locale files exist), not what the program did. The same command with its
//! stdout a pipe in one run and a file or terminal in the other makes
//! different probes (`ioctl(1, TCGETS)` fails with ENOTTY off a terminal,
//! `fcntl(1, F_GETFL)` says `O_LARGEFILE` for a file, `lseek(1, 0, SEEK_CUR)`
//! fails with ESPIPE on a pipe); compared as behaviour they would be the
//! first divergence, before the real cause.
//!
//! [`PROBES`] is the table (one reason per entry). A descriptor counts as
//! *inherited* when the recording did not create it: 0, 1 or 2 that no call
//! of the recording (open, dup2, …) has reassigned ([`FdNames`]). Writes to
//! fds 1 and 2 are behaviour, not probes; they are compared as a stream
//! ([`output_fd`]).
//!
//! Scope: the entries come from real runs of `ls`, `ls -l`, `cat` and `grep`
//! with stdout a pipe, a file and a pty, and from glibc's isatty/ttyname;
//! a program that inspects its descriptors some other way is compared as
//! usual.

use super::align::{self, Op};
use super::normalize::{Class, FdNames, Norm};
use super::{Outcome, Side};
use serde_json::Value;
use std::collections::HashMap;

/// What makes a call an environment probe.
#[derive(Debug, Clone, Copy)]
pub enum On {
    /// The first argument is an inherited descriptor 0–2.
    StdFd,
    /// An inherited descriptor 0–2, an empty path and `AT_EMPTY_PATH`
    /// (`fstat` as glibc makes it: `newfstatat(1, "", …, AT_EMPTY_PATH)`).
    StdFdEmptyPath,
    /// An inherited descriptor 0–2 and a second argument among these.
    StdFdOp(&'static [&'static str]),
    /// An inherited descriptor 0–2 and a third argument among these.
    StdFdWhence(&'static [&'static str]),
    /// An inherited descriptor 0–2 and the call failed with this errno.
    StdFdErrno(&'static str),
    /// A path argument is one of these.
    PathIs(&'static [&'static str]),
    /// A path argument is a locale file ([`is_locale_path`]).
    LocalePath,
    /// A descriptor argument was opened on a locale file.
    LocaleFd,
}

/// One kind of environment probe.
#[derive(Debug)]
pub struct Probe {
    /// Short name shown in reports.
    pub name: &'static str,
    /// The system calls it covers.
    pub calls: &'static [&'static str],
    /// The condition on the arguments.
    pub on: On,
    /// Why its result describes the environment.
    pub reason: &'static str,
}

const STAT_CALLS: &[&str] = &["newfstatat", "fstatat64", "statx"];
const PATH_STAT_CALLS: &[&str] = &[
    "stat",
    "lstat",
    "newfstatat",
    "fstatat64",
    "statx",
    "access",
];
const OPEN_CALLS: &[&str] = &["open", "openat", "openat2"];

/// The probes, first match wins.
pub const PROBES: &[Probe] = &[
    Probe {
        name: "fstat of an inherited descriptor",
        calls: &["fstat", "fstat64"],
        on: On::StdFd,
        reason: "says whether fd 0-2 is a pipe, a file or a terminal",
    },
    Probe {
        name: "fstat of an inherited descriptor",
        calls: STAT_CALLS,
        on: On::StdFdEmptyPath,
        reason: "says whether fd 0-2 is a pipe, a file or a terminal",
    },
    Probe {
        name: "descriptor flags of an inherited descriptor",
        calls: &["fcntl", "fcntl64"],
        on: On::StdFdOp(&["F_GETFL", "F_GETFD"]),
        reason: "the open flags of fd 0-2 differ between a file (O_LARGEFILE, O_APPEND), a pipe and a terminal",
    },
    Probe {
        name: "terminal query",
        calls: &["ioctl"],
        on: On::StdFdOp(&["TCGETS", "TCGETS2", "TIOCGWINSZ", "TIOCGPGRP"]),
        reason: "isatty() is ioctl(TCGETS); terminal queries fail with ENOTTY off a terminal and give the window size on one",
    },
    Probe {
        name: "seek position of an inherited descriptor",
        calls: &["lseek", "_llseek"],
        on: On::StdFdWhence(&["SEEK_CUR"]),
        reason: "asks where fd 0-2 is; fails with ESPIPE on a pipe or terminal",
    },
    Probe {
        name: "seek on an unseekable inherited descriptor",
        calls: &["lseek", "_llseek"],
        on: On::StdFdErrno("ESPIPE"),
        reason: "fd 0-2 is a pipe or terminal in this run",
    },
    Probe {
        name: "name of an inherited descriptor",
        calls: &["readlink", "readlinkat"],
        on: On::PathIs(&[
            "/proc/self/fd/0",
            "/proc/self/fd/1",
            "/proc/self/fd/2",
        ]),
        reason: "ttyname() reads the link of fd 0-2: a pty, a pipe or a file name",
    },
    Probe {
        name: "stat of /dev/null",
        calls: PATH_STAT_CALLS,
        on: On::PathIs(&["/dev/null"]),
        reason: "compared with a character-device stdout to tell whether output goes to /dev/null (grep does this on a terminal)",
    },
    Probe {
        name: "locale file",
        calls: OPEN_CALLS,
        on: On::LocalePath,
        reason: "which locale files exist depends on the installed locales and LANG/LC_*",
    },
    Probe {
        name: "locale file",
        calls: &[],
        on: On::LocaleFd,
        reason: "reads, maps or closes a descriptor opened on a locale file",
    },
];

/// Locale data: compiled locales, message catalogs, charset converters.
pub fn is_locale_path(p: &str) -> bool {
    [
        "/usr/lib/locale/",
        "/usr/share/locale/",
        "/usr/share/i18n/",
        "/usr/local/share/locale/",
    ]
    .iter()
    .any(|pre| p.starts_with(pre))
        || p.contains("/gconv/")
        || p.ends_with("/locale-archive")
        || p.ends_with("/locale.alias")
}

fn fd_of(v: &Value) -> Option<i64> {
    v["fd"].as_i64().or_else(|| v.as_i64())
}

fn sym(v: &Value) -> Option<&str> {
    v["sym"].as_str().or_else(|| v.as_str())
}

/// The index in [`PROBES`] of the probe `ev` is, if any; `fds` are the
/// process's descriptor names before the call.
pub fn classify(ev: &Value, fds: &FdNames) -> Option<usize> {
    let name = ev["syscall"].as_str()?;
    let args: &[Value] = ev["args"].as_array().map_or(&[], Vec::as_slice);
    let std_fd = || {
        args.first()
            .and_then(fd_of)
            .is_some_and(|fd| fds.inherited(fd))
    };
    let path_args = || args.iter().filter_map(crate::tracefile::tree::arg_str);
    PROBES.iter().position(|p| {
        if !p.calls.is_empty() && !p.calls.contains(&name) {
            return false;
        }
        match p.on {
            On::StdFd => std_fd(),
            On::StdFdEmptyPath => {
                std_fd()
                    && args
                        .get(1)
                        .and_then(crate::tracefile::tree::arg_str)
                        .as_deref()
                        == Some("")
                    && args.iter().skip(2).any(|a| {
                        a["flags"]
                            .as_array()
                            .is_some_and(|f| f.iter().any(|x| x.as_str() == Some("AT_EMPTY_PATH")))
                            || sym(a).is_some_and(|s| s.contains("AT_EMPTY_PATH"))
                    })
            }
            On::StdFdOp(ops) => {
                std_fd() && args.get(1).and_then(sym).is_some_and(|s| ops.contains(&s))
            }
            On::StdFdWhence(w) => {
                std_fd() && args.get(2).and_then(sym).is_some_and(|s| w.contains(&s))
            }
            On::StdFdErrno(e) => std_fd() && ev["errno"].as_str() == Some(e),
            On::PathIs(paths) => path_args().any(|s| paths.contains(&&*s)),
            On::LocalePath => path_args().any(|s| is_locale_path(&s)),
            On::LocaleFd => args
                .iter()
                .filter_map(|a| a["fd"].as_i64())
                .any(|fd| fds.opened_on(fd).is_some_and(is_locale_path)),
        }
    })
}

/// Calls that write a buffer to their first argument.
const WRITES: &[&str] = &["write", "writev"];

/// When `ev` is a successful write to the inherited fd 1 or 2: that fd.
/// Such writes are compared as a stream per process, not call by call:
/// stdio buffers fully when stdout is a pipe or file and by line on a
/// terminal, so one run makes one big write where the other makes several,
/// at other points of the call sequence. Their contents are not compared
/// (a recording keeps only the first `-s` bytes of each write), their byte
/// totals are reported.
pub fn output_fd(ev: &Value, fds: &FdNames) -> Option<u8> {
    let name = ev["syscall"].as_str()?;
    if !WRITES.contains(&name) || ev["errno"].is_string() || ev["return"].as_i64()? < 0 {
        return None;
    }
    let fd = ev["args"].get(0).and_then(fd_of)?;
    (matches!(fd, 1 | 2) && fds.inherited(fd)).then_some(fd as u8)
}

impl Side {
    /// The environment probes of thread `t` of process `p`.
    pub(super) fn env_seq(&self, p: usize, t: usize) -> Vec<usize> {
        self.events_where(p, t, |c| matches!(c, Class::Env { .. }))
    }

    /// Writes to the inherited fd 1 and 2 of process `p`: (count, bytes)
    /// per fd.
    pub(super) fn output(&self, p: usize) -> [(u64, u64); 2] {
        let mut out = [(0, 0); 2];
        for th in &self.tree.processes[p].threads {
            for &e in &th.events {
                if let Some(Norm {
                    class: Class::Output { fd, bytes },
                    ..
                }) = &self.norms[e]
                {
                    let slot = &mut out[usize::from(*fd == 2)];
                    slot.0 += 1;
                    slot.1 += bytes;
                }
            }
        }
        out
    }

    pub(super) fn env_parts(&self, e: usize) -> (usize, &str, &str) {
        match &self.norms[e] {
            Some(Norm {
                class: Class::Env { probe, key, value },
                ..
            }) => (*probe, key, value),
            _ => unreachable!("event {e} is not an environment probe"),
        }
    }
}

/// One environment probe that differs: made in both runs with different
/// values, or in one run only.
#[derive(Debug, Clone)]
pub(crate) struct EnvDiff {
    /// The process in A (its pair in B has the same tree path).
    pub(crate) proc_a: usize,
    pub(crate) thread: usize,
    /// Index in [`PROBES`].
    pub(crate) probe: usize,
    /// The probe's event in A and in B (`None`: not made in that run).
    pub(crate) a: Option<usize>,
    pub(crate) b: Option<usize>,
}

impl EnvDiff {
    pub(crate) fn probe(&self) -> &'static Probe {
        &PROBES[self.probe]
    }
}

/// Writes to an inherited fd 1 or 2 of a process pair that differ in
/// number or size: (process label, fd, A's (writes, bytes), B's).
pub(crate) type OutputDiff = (String, u8, (u64, u64), (u64, u64));

/// Aligns the environment probes of one thread pair on their keys and
/// records those that differ.
pub(crate) fn differences(a: &Side, b: &Side, (i, j, t): (usize, usize, usize), out: &mut Outcome) {
    let (ea, eb) = (a.env_seq(i, t), b.env_seq(j, t));
    if ea.is_empty() && eb.is_empty() {
        return;
    }
    let mut table: HashMap<&str, u32> = HashMap::new();
    let mut intern = |k| {
        let next = table.len() as u32;
        *table.entry(k).or_insert(next)
    };
    let ka: Vec<u32> = ea.iter().map(|&e| intern(a.env_parts(e).1)).collect();
    let kb: Vec<u32> = eb.iter().map(|&e| intern(b.env_parts(e).1)).collect();
    for op in align::align(&ka, &kb, align::MAX_D) {
        let (x, y) = match op {
            Op::Same(x, y) if a.env_parts(ea[x]).2 == b.env_parts(eb[y]).2 => continue,
            Op::Same(x, y) => (Some(ea[x]), Some(eb[y])),
            Op::OnlyA(x) => (Some(ea[x]), None),
            Op::OnlyB(y) => (None, Some(eb[y])),
        };
        let probe = x.map_or_else(|| b.env_parts(y.unwrap()).0, |e| a.env_parts(e).0);
        out.env.push(EnvDiff {
            proc_a: i,
            thread: t,
            probe,
            a: x,
            b: y,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn probe(ev: Value) -> Option<&'static str> {
        classify(&ev, &FdNames::default()).map(|i| PROBES[i].name)
    }

    #[test]
    fn descriptor_probes_and_not_behaviour() {
        let fstat = json!({"syscall":"newfstatat","args":[{"fd":1},"",{"st_mode":{"sym":"S_IFIFO|0600"}},{"flags":["AT_EMPTY_PATH"]}],"return":0});
        assert_eq!(probe(fstat), Some("fstat of an inherited descriptor"));
        let fstat3 = json!({"syscall":"newfstatat","args":[{"fd":3},"",{},{"flags":["AT_EMPTY_PATH"]}],"return":0});
        assert_eq!(probe(fstat3), None);
        let tcgets = json!({"syscall":"ioctl","args":[{"fd":1},{"sym":"TCGETS"},{"ptr":"0x7ffd"}],"return":-1,"errno":"ENOTTY"});
        assert_eq!(probe(tcgets), Some("terminal query"));
        let getfl = json!({"syscall":"fcntl","args":[{"fd":1},{"sym":"F_GETFL"}],"return":"0x1 (flags O_WRONLY)"});
        assert!(probe(getfl).is_some());
        let setfl = json!({"syscall":"fcntl","args":[{"fd":1},{"sym":"F_SETFL"},{"flags":["O_NONBLOCK"]}],"return":0});
        assert_eq!(probe(setfl), None, "setting flags is behaviour");
        let seek = json!({"syscall":"lseek","args":[{"fd":0},100,{"sym":"SEEK_SET"}],"return":100});
        assert_eq!(probe(seek), None, "a successful absolute seek is behaviour");
        let write = json!({"syscall":"write","args":[{"fd":1},"x\n",2],"return":2});
        assert_eq!(probe(write.clone()), None, "a write is behaviour");
        assert_eq!(output_fd(&write, &FdNames::default()), Some(1));
        let locale = json!({"syscall":"openat","args":[{"sym":"AT_FDCWD"},"/usr/lib/locale/C.utf8/LC_CTYPE",{"flags":["O_RDONLY"]}],"return":3});
        assert_eq!(probe(locale), Some("locale file"));
        let config = json!({"syscall":"openat","args":[{"sym":"AT_FDCWD"},"config.h",{"flags":["O_RDONLY"]}],"return":-1,"errno":"ENOENT"});
        assert_eq!(probe(config), None);
    }

    #[test]
    fn reassigned_descriptors_are_not_inherited() {
        let mut fds = FdNames::default();
        let dup2 = json!({"syscall":"dup2","args":[{"fd":4},{"fd":1}],"return":1});
        super::super::normalize::normalize(&dup2, &mut fds);
        let tcgets = json!({"syscall":"ioctl","args":[{"fd":1},{"sym":"TCGETS"},{"ptr":"0x7ffd"}],"return":-1,"errno":"ENOTTY"});
        assert_eq!(classify(&tcgets, &fds), None);
        let write = json!({"syscall":"write","args":[{"fd":1},"x\n",2],"return":2});
        assert_eq!(output_fd(&write, &fds), None);
        // A locale descriptor's later calls are probes too.
        let open = json!({"syscall":"openat","args":[{"sym":"AT_FDCWD"},"/usr/lib/locale/locale-archive",{"flags":["O_RDONLY"]}],"return":5});
        super::super::normalize::normalize(&open, &mut fds);
        let mmap = json!({"syscall":"mmap","args":[null,4096,{"flags":["PROT_READ"]},{"sym":"MAP_PRIVATE"},{"fd":5},0],"return":1});
        assert_eq!(
            classify(&mmap, &fds).map(|i| PROBES[i].name),
            Some("locale file")
        );
    }
}
