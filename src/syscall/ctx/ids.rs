//! Pids and fds as decoders print them: `-y` paths through an
//! [`FdResolver`], `--decode-pids=comm`, and pid namespace translation.

use crate::syscall::ctx::*;

impl Ctx<'_> {
    /// The value of descriptor `fd`, with its path under `-y`.
    pub fn fd_value(&mut self, fd: i64) -> Value {
        let path = if self.opts.fd_paths && fd >= 0 {
            self.fds.fd_path(self.pid, fd)
        } else {
            None
        };
        Value::Fd { fd, path }
    }

    /// The value of process id `pid`, with its command name under `-Y`
    /// and its number in rstrace's PID namespace under
    /// `--pidns-translation`.
    pub fn pid_value(&mut self, pid: i64) -> Value {
        self.id_value(pid, PidKind::Tgid)
    }

    /// [`Ctx::pid_value`] for an id of any kind (thread, process group…).
    pub fn id_value(&mut self, pid: i64, kind: PidKind) -> Value {
        pid_value_of(self.fds, self.opts, self.pid, pid, kind)
    }

    /// `--pidns-translation` for the pids of `v`, built without the
    /// context (a siginfo's `si_pid`).
    pub fn translate_pids(&mut self, v: &mut Value) {
        translate_pids(self.fds, self.opts, self.pid, v);
    }

    /// Prints field `name` of structure `v` (a number read by a decoder
    /// that had no mutable context) as an id of `kind`: strace's
    /// `PRINT_FIELD_TGID` and friends.
    pub fn field_id(&mut self, v: &mut Value, name: &str, kind: PidKind) {
        if let Value::Struct(fields, _) = v {
            for f in fields.iter_mut().filter(|f| f.name == name) {
                let pid = match f.value {
                    Value::Int(pid) | Value::Pid { pid, .. } => pid,
                    // strace prints ids as C ints.
                    Value::UInt(u) => u as u32 as i32 as i64,
                    _ => continue,
                };
                f.value = self.id_value(pid, kind);
            }
        }
    }

    /// A process id argument (a C `int`).
    pub fn pid(&mut self, i: usize) {
        let v = self.pid_value(self.arg_int(i) as i64);
        self.push(v);
    }

    /// An id argument of `kind` (a C `int`): a thread id for `tkill`.
    pub fn id(&mut self, i: usize, kind: PidKind) {
        let v = self.id_value(self.arg_int(i) as i64, kind);
        self.push(v);
    }

    /// A `pid` argument that names a process when positive and a process
    /// group when below -1 (`kill`, `F_SETOWN`: strace's
    /// `printpid_tgid_pgid`).
    pub fn pid_or_pgid(&mut self, i: usize) {
        let pid = self.arg_int(i) as i64;
        let v = if pid < -1 && self.opts.pidns {
            match pid_value_of(self.fds, self.opts, self.pid, -pid, PidKind::Pgid) {
                Value::Commented(_, c) => Value::Commented(Box::new(Value::Int(pid)), c),
                _ => Value::Int(pid),
            }
        } else {
            self.pid_value(pid)
        };
        self.push(v);
    }

    /// File descriptor argument.
    pub fn fd(&mut self, i: usize) {
        let v = self.fd_value(self.arg_int(i) as i64);
        self.push(v);
    }

    /// A `dirfd` argument: `AT_FDCWD` or a descriptor.
    pub fn atfd(&mut self, i: usize) {
        let fd = self.arg_int(i);
        if fd == -100 {
            // Under -y strace shows the working directory: AT_FDCWD</cwd>.
            let path = if self.opts.fd_paths {
                self.fds.fd_path(self.pid, -100)
            } else {
                None
            };
            let v = match (self.opts.xlat_style, path) {
                (0, Some(path)) => Value::Fd {
                    fd: -100,
                    path: Some(path),
                },
                (0, None) => Value::sym("AT_FDCWD"),
                // -X raw: `-100`; -X verbose: `-100 /* AT_FDCWD */`; the
                // path (quoted as a descriptor's) follows either.
                (style, path) => {
                    let num = if style == 1 {
                        Value::Int(-100)
                    } else {
                        Value::Commented(Box::new(Value::Int(-100)), Cow::Borrowed("AT_FDCWD"))
                    };
                    match path {
                        Some(p) => {
                            let mut s = String::new();
                            let fd = Value::Fd {
                                fd: 0,
                                path: Some(p),
                            };
                            crate::value::text::render_value(&mut s, &fd, &Default::default());
                            let tail = s.strip_prefix('0').unwrap_or(&s).to_string();
                            Value::Joined(vec![num, Value::sym_owned(tail)], "")
                        }
                        None => num,
                    }
                }
            };
            self.push(v);
        } else {
            let v = self.fd_value(fd as i64);
            self.push(v);
        }
    }
}

/// Which id of a process a number is (strace's `enum pid_type`): it says
/// which `NS*` line of `/proc/PID/status` translates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PidKind {
    /// A thread id (`NSpid`).
    Tid,
    /// A process (thread group) id (`NStgid`).
    Tgid,
    /// A process group id (`NSpgid`).
    Pgid,
    /// A session id (`NSsid`).
    Sid,
}

/// Resolves a tracee file descriptor to what it refers to (for `-y`).
pub trait FdResolver {
    /// The path or description of `fd` in process `pid`.
    fn fd_path(&mut self, pid: i32, fd: i64) -> Option<Vec<u8>>;

    /// The command name of process `pid` (for `-Y`): `/proc/PID/comm`,
    /// read when a pid is printed, as strace does; `None` once the process
    /// is gone.
    fn pid_comm(&mut self, pid: i64) -> Option<Vec<u8>> {
        if pid <= 0 {
            return None;
        }
        let mut c = std::fs::read(format!("/proc/{pid}/comm")).ok()?;
        if c.last() == Some(&b'\n') {
            c.pop();
        }
        Some(c)
    }

    /// `--pidns-translation`: id `pid` of `kind`, as tracee `tracee` sees
    /// it, in rstrace's own PID namespace; `None` when it cannot be told.
    fn translate_pid(&mut self, _tracee: i32, _pid: i64, _kind: PidKind) -> Option<i64> {
        None
    }

    /// Task `tid` (rstrace's number) exited: forget what was learnt of it.
    fn task_gone(&mut self, _tid: i32) {}
}

/// The value of id `pid` of `kind`, as tracee `tracee` sees it: with its
/// command name under `-Y` (threads and processes only, as strace) and,
/// under `--pidns-translation`, `/* N in strace's PID NS */` when rstrace
/// sees it as another number.
pub fn pid_value_of(
    fds: &mut dyn FdResolver,
    opts: &DecodeOpts,
    tracee: i32,
    pid: i64,
    kind: PidKind,
) -> Value {
    let outer = if opts.pidns {
        fds.translate_pid(tracee, pid, kind)
    } else {
        None
    };
    // A group or session id is a plain number: no command name, now or
    // later (`Value::fill_pid_comms`).
    let v = if matches!(kind, PidKind::Tid | PidKind::Tgid) {
        let comm = if opts.pid_comm {
            fds.pid_comm(outer.unwrap_or(pid))
        } else {
            None
        };
        Value::Pid { pid, comm }
    } else {
        Value::Int(pid)
    };
    match outer {
        Some(o) if o != pid => {
            Value::Commented(Box::new(v), Cow::Owned(format!("{o} in strace's PID NS")))
        }
        _ => v,
    }
}

/// `--pidns-translation` for the pids of a value built without a context
/// (siginfo's `si_pid`, process ids): each bare pid gets its comment, and
/// under `-Y` the command name at rstrace's number for it (none when it
/// cannot be translated, as strace).
pub fn translate_pids(fds: &mut dyn FdResolver, opts: &DecodeOpts, tracee: i32, v: &mut Value) {
    if !opts.pidns {
        return;
    }
    match v {
        Value::Pid { pid, comm } => {
            let outer = fds.translate_pid(tracee, *pid, PidKind::Tgid);
            if let (true, None, Some(o)) = (opts.pid_comm, &comm, outer) {
                *comm = fds.pid_comm(o);
            }
            if let Some(o) = outer {
                if o != *pid {
                    let bare = Value::Pid {
                        pid: *pid,
                        comm: comm.take(),
                    };
                    *v = Value::Commented(
                        Box::new(bare),
                        Cow::Owned(format!("{o} in strace's PID NS")),
                    );
                }
            }
        }
        Value::Struct(fields, _) => {
            for f in fields {
                translate_pids(fds, opts, tracee, &mut f.value);
            }
        }
        Value::Array(vs, _) | Value::Call(_, vs) | Value::Joined(vs, _) => {
            for x in vs {
                translate_pids(fds, opts, tracee, x);
            }
        }
        Value::Changed(a, b) => {
            translate_pids(fds, opts, tracee, a);
            translate_pids(fds, opts, tracee, b);
        }
        // A pid with a comment has been through `pid_value_of` already.
        Value::Commented(inner, _) if !matches!(**inner, Value::Pid { .. }) => {
            translate_pids(fds, opts, tracee, inner)
        }
        _ => {}
    }
}

/// Reads `/proc/PID/fd/N`; used only under `-y`.
#[derive(Debug, Default)]
pub struct ProcFdResolver;

impl FdResolver for ProcFdResolver {
    fn fd_path(&mut self, pid: i32, fd: i64) -> Option<Vec<u8>> {
        use std::os::unix::ffi::OsStringExt;
        let link = match fd {
            -100 => format!("/proc/{pid}/cwd"),
            f if f < 0 => return None,
            f => format!("/proc/{pid}/fd/{f}"),
        };
        let target = std::fs::read_link(&link).ok()?;
        Some(mark_real_deleted(&link, target.into_os_string().into_vec()))
    }
}

/// The kernel appends ` (deleted)` to the link of an unlinked file; a file
/// whose real name ends so is the file the link points to (strace's
/// `getfdpath` checks inode and device). Such a path gets a trailing NUL,
/// which tells the renderer to keep the suffix inside `<...>`.
pub fn mark_real_deleted(link: &str, mut target: Vec<u8>) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    const DELETED: &[u8] = b" (deleted)";
    if target.len() > DELETED.len() && target.ends_with(DELETED) {
        let name = std::ffi::OsStr::from_bytes(&target);
        let same = match (std::fs::metadata(link), std::fs::symlink_metadata(name)) {
            (Ok(l), Ok(p)) => l.ino() == p.ino() && l.dev() == p.dev(),
            _ => false,
        };
        if same {
            target.push(0);
        }
    }
    target
}
