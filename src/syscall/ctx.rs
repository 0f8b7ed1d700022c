//! The decoding context: the printers every syscall decoder calls.
//!
//! A decoder is a plain function `fn(&mut Ctx) -> Step`. It is called at syscall
//! entry; if it returns [`Step::Exit`] it is called once more at exit (with
//! [`Ctx::exiting`] true) to decode what the kernel wrote back. Arguments
//! pushed at entry print before `<unfinished ...>`; those pushed at exit print
//! after `<... resumed>`, exactly as strace splits them.

use super::memory::Memory;
use super::value::{Field, Ret, StrVal, Value};
use rtrace_arch::{Arch, Xlat};
use std::borrow::Cow;

/// Options that change what decoders read (not how text is rendered).
#[derive(Clone, Debug)]
pub struct DecodeOpts {
    /// `-s N`: the longest string printed.
    pub string_limit: usize,
    /// `-v` / `-e verbose=`: print structures in full.
    pub verbose: bool,
    /// `-e raw=`: print arguments undecoded, in hex.
    pub raw: bool,
    /// `-y`: print paths of file descriptors.
    pub fd_paths: bool,
    /// `-X raw` (1), `-X abbrev` (0, default), `-X verbose` (2): how constants print.
    pub xlat_style: u8,
    /// `-Y`: print pids with their command names.
    pub pid_comm: bool,
    /// `--pidns-translation`: follow a pid of a tracee in another PID
    /// namespace with `/* N in strace's PID NS */`.
    pub pidns: bool,
    /// `-e verbose=`: false for a syscall left out, whose structures and
    /// arrays print as their addresses (strings and data buffers still
    /// print), as strace's `umoven_or_printaddr` does.
    pub deref: bool,
}

impl Default for DecodeOpts {
    fn default() -> Self {
        DecodeOpts {
            string_limit: 32,
            verbose: false,
            raw: false,
            fd_paths: false,
            xlat_style: 0,
            deref: true,
            pid_comm: false,
            pidns: false,
        }
    }
}

/// What a decoder wants next.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Call me again at syscall exit.
    Exit,
    /// All arguments are decoded; show the return value like this.
    Done(RetFmt),
}

/// How to show a successful return value.
#[derive(Clone, Debug, PartialEq)]
pub enum RetFmt {
    /// Signed decimal.
    Int,
    /// Hexadecimal (mmap, brk).
    Hex,
    /// Octal (umask).
    Oct,
    /// A new file descriptor (`-y` adds its path).
    Fd,
    /// A process id (`-Y` adds its command name).
    Pid,
    /// A thread, process group or session id (strace's `RVAL_TID`, …).
    Id(PidKind),
    /// `?`: the call does not return (exit).
    Unknown,
    /// A fully decoded return value.
    Value(Ret),
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

/// Everything a decoder can see and the printers it calls.
pub struct Ctx<'a> {
    /// Tracee memory.
    pub mem: &'a mut dyn Memory,
    /// `-y` resolver.
    pub fds: &'a mut dyn FdResolver,
    /// Options.
    pub opts: &'a DecodeOpts,
    /// Thread id of the tracee.
    pub pid: i32,
    /// The syscall ABI in use.
    pub arch: Arch,
    /// Raw argument registers.
    pub args: [u64; 6],
    /// The raw return value, at exit.
    pub ret: Option<i64>,
    /// Values decoded at entry.
    pub entry_args: Vec<Value>,
    /// Values decoded at exit.
    pub exit_args: Vec<Value>,
    /// Decoder scratch kept from entry to exit (e.g. an input length).
    pub saved: u64,
    /// The `, ` before the arguments decoded at exit is printed at exit
    /// (strace's clone: `flags=SIGCHLD <unfinished ...>` then `<... clone
    /// resumed>, child_tidptr=…`), not at entry as for most calls
    /// (`read(3,  <unfinished ...>`).
    pub sep_at_exit: bool,
    /// Every argument was printed at entry; the exit only formats the
    /// return value (fcntl's F_GETFD): a cut line is `fcntl(1, F_GETFD
    /// <unfinished ...>`, without the `, ` that announces more arguments.
    pub entry_complete: bool,
    /// The stack pointer at syscall entry (rt_sigreturn reads the frame there).
    pub sp: u64,
}

/// `-4095..-1` are errors in every Linux ABI.
pub fn is_error(ret: i64) -> bool {
    (-4095..0).contains(&ret)
}

impl<'a> Ctx<'a> {
    /// A context for one syscall of `pid` with raw arguments `args`,
    /// before anything is decoded.
    pub fn new(
        mem: &'a mut dyn Memory,
        fds: &'a mut dyn FdResolver,
        opts: &'a DecodeOpts,
        pid: i32,
        arch: Arch,
        args: [u64; 6],
    ) -> Ctx<'a> {
        Ctx {
            mem,
            fds,
            opts,
            pid,
            arch,
            args,
            ret: None,
            entry_args: Vec::new(),
            exit_args: Vec::new(),
            saved: 0,
            sep_at_exit: false,
            entry_complete: false,
            sp: 0,
        }
    }

    /// True at syscall exit.
    pub fn exiting(&self) -> bool {
        self.ret.is_some()
    }

    /// True at syscall entry.
    pub fn entering(&self) -> bool {
        self.ret.is_none()
    }

    /// True at exit when the call failed; false at entry.
    pub fn failed(&self) -> bool {
        self.ret.is_some_and(is_error)
    }

    /// The raw return value (0 at entry).
    pub fn retval(&self) -> i64 {
        self.ret.unwrap_or(0)
    }

    /// Raw argument `i`.
    pub fn arg(&self, i: usize) -> u64 {
        self.args[i]
    }

    /// Argument `i` as a C `int`.
    pub fn arg_int(&self, i: usize) -> i32 {
        self.args[i] as i32
    }

    /// Argument `i` as a C `long` of the tracee's word size.
    pub fn arg_long(&self, i: usize) -> i64 {
        if self.arch.word_size() == 4 {
            self.args[i] as i32 as i64
        } else {
            self.args[i] as i64
        }
    }

    /// Argument `i` as a C `unsigned long`.
    pub fn arg_ulong(&self, i: usize) -> u64 {
        if self.arch.word_size() == 4 {
            self.args[i] as u32 as u64
        } else {
            self.args[i]
        }
    }

    /// Appends a decoded value to the current phase's list.
    pub fn push(&mut self, v: Value) {
        if self.exiting() {
            self.exit_args.push(v);
        } else {
            self.entry_args.push(v);
        }
    }

    // ---- integer printers ----

    /// `int` argument in decimal.
    pub fn int(&mut self, i: usize) {
        let v = self.arg_int(i) as i64;
        self.push(Value::Int(v));
    }

    /// `unsigned int` argument in decimal.
    pub fn uint(&mut self, i: usize) {
        let v = self.args[i] as u32 as u64;
        self.push(Value::UInt(v));
    }

    /// `long` argument in decimal.
    pub fn long(&mut self, i: usize) {
        let v = self.arg_long(i);
        self.push(Value::Int(v));
    }

    /// `unsigned long` / `size_t` argument in decimal.
    pub fn ulong(&mut self, i: usize) {
        let v = self.arg_ulong(i);
        self.push(Value::UInt(v));
    }

    /// Argument in hex.
    pub fn hex(&mut self, i: usize) {
        let v = self.arg_ulong(i);
        self.push(Value::Hex(v));
    }

    /// `mode_t`-like argument in octal.
    pub fn oct(&mut self, i: usize) {
        let v = self.args[i] as u32 as u64;
        self.push(Value::Oct(v));
    }

    /// Pointer argument: `NULL` or hex.
    pub fn ptr(&mut self, i: usize) {
        let v = self.arg_ulong(i);
        self.push(Value::Ptr(v));
    }

    // ---- descriptors ----

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
                            crate::output::text::render_value(&mut s, &fd, &Default::default());
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

    // ---- constants ----

    /// The value of `v` looked up in an enum table, or `v` with a `/* X_??? */`
    /// comment naming the table's prefix as strace does.
    pub fn enum_value(&self, v: u64, table: &Xlat, unknown: &'static str) -> Value {
        match table.lookup(v) {
            Some(n) => self.styled(v, n),
            None => {
                let raw = if (v as i64) < 0 && (v as i64) > -4096 {
                    Value::Int(v as i64)
                } else {
                    Value::Hex(v)
                };
                // -X raw prints an unknown value bare, as a known one.
                if unknown.is_empty() || self.opts.xlat_style == 1 {
                    raw
                } else {
                    Value::Commented(Box::new(raw), Cow::Borrowed(unknown))
                }
            }
        }
    }

    fn styled(&self, v: u64, name: &'static str) -> Value {
        match self.opts.xlat_style {
            1 => Value::Hex(v),
            2 => Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(name)),
            _ => Value::sym(name),
        }
    }

    /// Enum argument.
    pub fn xenum(&mut self, i: usize, table: &Xlat, unknown: &'static str) {
        let v = self.enum_value(self.args[i] as u32 as u64, table, unknown);
        self.push(v);
    }

    /// The value of flag bits `v` split by a flags table (`0` when `v` is zero).
    pub fn flags_value(&self, v: u64, table: &Xlat) -> Value {
        if self.opts.xlat_style == 1 {
            return Value::Hex(v);
        }
        let (names, rest) = table.split_flags(v);
        // -X verbose comments only what has a name.
        let named = !names.is_empty();
        let f = Value::Flags {
            names,
            rest,
            octal_rest: false,
        };
        if self.opts.xlat_style == 2 && named {
            return Value::Commented(Box::new(Value::Hex(v)), Cow::Owned(render_flags(&f)));
        }
        if self.opts.xlat_style == 2 && v != 0 {
            return Value::Hex(v);
        }
        f
    }

    /// Flags argument (the low 32 bits).
    pub fn flags(&mut self, i: usize, table: &Xlat) {
        let v = self.flags_value(self.args[i] as u32 as u64, table);
        self.push(v);
    }

    /// Flags argument using all bits of a long.
    pub fn flags_long(&mut self, i: usize, table: &Xlat) {
        let v = self.flags_value(self.arg_ulong(i), table);
        self.push(v);
    }

    // ---- memory ----

    /// Reads exactly `len` bytes at `addr`, or `None`.
    pub fn read_bytes(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        if !self.opts.deref {
            return None;
        }
        self.read_data(addr, len)
    }

    /// Reads `len` bytes of data (a buffer printed as a string, which
    /// `-e verbose=` does not turn into an address), or `None`.
    pub fn read_data(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        if addr == 0 {
            return None;
        }
        let mut buf = vec![0u8; len];
        let n = self.mem.read(addr, &mut buf);
        (n == len).then_some(buf)
    }

    /// Reads a plain-old-data value of type `T` at `addr`.
    pub fn read_pod<T: Pod>(&mut self, addr: u64) -> Option<T> {
        let b = self.read_bytes(addr, std::mem::size_of::<T>())?;
        Some(T::from_bytes(&b))
    }

    /// Reads a tracee word (4 or 8 bytes by personality) at `addr`.
    pub fn read_word(&mut self, addr: u64) -> Option<u64> {
        if self.arch.word_size() == 4 {
            self.read_pod::<u32>(addr).map(|v| v as u64)
        } else {
            self.read_pod::<u64>(addr)
        }
    }

    /// Reads a NUL-terminated string of at most `limit` bytes. The result is
    /// truncated (and flagged) when no NUL occurs within the limit.
    pub fn read_cstr(&mut self, addr: u64, limit: usize) -> Option<StrVal> {
        let (mut bytes, nul) = self.umovestr(addr, limit + 1)?;
        bytes.truncate(limit);
        Some(StrVal {
            bytes,
            truncated: !nul,
            c_string: true,
        })
    }

    /// strace's `umovestr`: up to `len` bytes at `addr`, stopping at a NUL
    /// (not included; the flag says it was seen). `None` when the memory
    /// ends before the NUL and before `len` bytes.
    pub fn umovestr(&mut self, addr: u64, len: usize) -> Option<(Vec<u8>, bool)> {
        if addr == 0 {
            return None;
        }
        // One process_vm_readv per page: a C string usually ends in the first.
        let mut out = Vec::new();
        let mut a = addr;
        while out.len() < len {
            let page_left = 4096 - (a % 4096) as usize;
            let chunk = page_left.min(len - out.len());
            let mut buf = vec![0u8; chunk];
            let n = self.mem.read(a, &mut buf);
            if let Some(z) = buf[..n].iter().position(|&b| b == 0) {
                out.extend_from_slice(&buf[..z]);
                return Some((out, true));
            }
            if n < chunk {
                let got = out.len() + n;
                if got > 0 {
                    // strace's umovestr reports a string cut by unmapped memory.
                    eprintln!(
                        "{}: umovestr: short read ({got} < {len}) @{addr:#x}: Bad address",
                        crate::strace::prog()
                    );
                }
                return None;
            }
            out.extend_from_slice(&buf);
            a += n as u64;
        }
        Some((out, false))
    }

    /// strace's `printstr_ex` of a NUL-terminated string of at most `len`
    /// bytes (its NUL included): `-s` limits it, and a string that fills
    /// `len` bytes without a NUL prints with `...`.
    pub fn cstrn_value(&mut self, addr: u64, len: u64) -> Value {
        if addr == 0 {
            return Value::Ptr(0);
        }
        if len == 0 {
            return Value::Str(StrVal {
                c_string: true,
                ..Default::default()
            });
        }
        let limit = self.opts.string_limit;
        let fetch = (limit as u64 + 1).min(len) as usize;
        match self.umovestr(addr, fetch) {
            Some((mut bytes, nul)) => {
                bytes.truncate(limit);
                Value::Str(StrVal {
                    bytes,
                    truncated: !nul,
                    c_string: true,
                })
            }
            None => Value::Unreadable(addr),
        }
    }

    /// A path argument: printed in full up to PATH_MAX - 1 bytes, like
    /// strace's `printpath` (a longer one is cut with `...`).
    pub fn path(&mut self, i: usize) {
        let addr = self.arg_ulong(i);
        let v = self.path_value(addr);
        self.push(v);
    }

    /// The value of a path at `addr`.
    pub fn path_value(&mut self, addr: u64) -> Value {
        if addr == 0 {
            return Value::Ptr(0);
        }
        match self.read_cstr(addr, 4095) {
            Some(s) => Value::Str(s),
            None => Value::Unreadable(addr),
        }
    }

    /// A NUL-terminated string limited by `-s`.
    pub fn cstr_value(&mut self, addr: u64) -> Value {
        if addr == 0 {
            return Value::Ptr(0);
        }
        let limit = self.opts.string_limit;
        match self.read_cstr(addr, limit) {
            Some(s) => Value::Str(s),
            None => Value::Unreadable(addr),
        }
    }

    /// String argument (NUL-terminated, `-s` limited).
    pub fn cstr(&mut self, i: usize) {
        let addr = self.arg_ulong(i);
        let v = self.cstr_value(addr);
        self.push(v);
    }

    /// The value of a buffer of `len` bytes at `addr`, printed as a string
    /// limited by `-s` (like strace's `printstrn`).
    pub fn buf_value(&mut self, addr: u64, len: u64) -> Value {
        if addr == 0 {
            return Value::Ptr(0);
        }
        let limit = self.opts.string_limit as u64;
        // strace's printstrn reads one byte past the `-s` limit: a buffer
        // whose memory ends right after the limit prints as its address.
        let fetch = len.min(limit.saturating_add(1)) as usize;
        let mut buf = vec![0u8; fetch];
        if fetch > 0 && self.mem.read(addr, &mut buf) != fetch {
            return Value::Unreadable(addr);
        }
        buf.truncate(len.min(limit) as usize);
        Value::Str(StrVal {
            bytes: buf,
            truncated: len > limit,
            c_string: false,
        })
    }

    /// A buffer argument of `len` bytes.
    pub fn buf(&mut self, i: usize, len: u64) {
        let addr = self.arg_ulong(i);
        let v = self.buf_value(addr, len);
        self.push(v);
    }

    /// An output buffer: at exit, the `ret` bytes the kernel filled; the address
    /// when the call failed.
    pub fn outbuf(&mut self, i: usize) {
        let addr = self.arg_ulong(i);
        if self.failed() {
            self.push(Value::Ptr(addr));
        } else {
            let n = self.retval().max(0) as u64;
            let v = self.buf_value(addr, n);
            self.push(v);
        }
    }

    /// Pushes `v` unless the call failed at exit, in which case the pointer `addr`.
    pub fn out_or_addr(&mut self, addr: u64, v: impl FnOnce(&mut Self) -> Value) {
        if self.failed() || addr == 0 {
            self.push(Value::Ptr(addr));
        } else {
            let v = v(self);
            self.push(v);
        }
    }

    /// A signal number.
    pub fn signal_value(&self, sig: u64) -> Value {
        signal_value(sig)
    }

    /// A struct value from fields.
    pub fn fields(&self, f: Vec<Field>) -> Value {
        Value::Struct(f, false)
    }
}

/// The value of a signal number: `SIGINT`, `SIGRTMIN+3`, or the number.
pub fn signal_value(sig: u64) -> Value {
    match signal_name(sig) {
        Some(n) => Value::Sym(n),
        None => Value::UInt(sig),
    }
}

/// The name of a signal as strace prints it (`SIGRT_3` is printed `SIGRT_3` by
/// strace for 35; strace uses `SIGRTMIN` for 32 and `SIGRT_n` above).
pub fn signal_name(sig: u64) -> Option<Cow<'static, str>> {
    if let Some(n) = rtrace_arch::xlat::SIGNALS.lookup(sig) {
        return Some(Cow::Borrowed(n));
    }
    match sig {
        32 => Some(Cow::Borrowed("SIGRTMIN")),
        33..=64 => Some(Cow::Owned(format!("SIGRT_{}", sig - 32))),
        _ => None,
    }
}

/// Flags rendered as text (`O_RDONLY|O_CLOEXEC`), for comments.
pub fn render_flags(v: &Value) -> String {
    let mut s = String::new();
    crate::output::text::render_value(&mut s, v, &Default::default());
    s
}

/// Plain-old-data types that can be read from tracee bytes.
pub trait Pod: Sized + Copy {
    /// Builds the value from exactly `size_of::<Self>()` bytes.
    fn from_bytes(b: &[u8]) -> Self;
}

macro_rules! pod_int {
    ($($t:ty),*) => {$(
        impl Pod for $t {
            fn from_bytes(b: &[u8]) -> Self {
                <$t>::from_ne_bytes(b.try_into().expect("size checked by caller"))
            }
        }
    )*};
}
pod_int!(u8, u16, u32, u64, i8, i16, i32, i64);

impl<const N: usize> Pod for [u64; N] {
    fn from_bytes(b: &[u8]) -> Self {
        let mut out = [0u64; N];
        for (i, c) in b.chunks_exact(8).enumerate() {
            out[i] = u64::from_ne_bytes(c.try_into().expect("8 bytes"));
        }
        out
    }
}

impl<const N: usize> Pod for [u32; N] {
    fn from_bytes(b: &[u8]) -> Self {
        let mut out = [0u32; N];
        for (i, c) in b.chunks_exact(4).enumerate() {
            out[i] = u32::from_ne_bytes(c.try_into().expect("4 bytes"));
        }
        out
    }
}

impl<const N: usize> Pod for [i64; N] {
    fn from_bytes(b: &[u8]) -> Self {
        let mut out = [0i64; N];
        for (i, c) in b.chunks_exact(8).enumerate() {
            out[i] = i64::from_ne_bytes(c.try_into().expect("8 bytes"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syscall::memory::FakeMemory;
    use crate::syscall::testutil::FixedFds;

    /// strace's umovestr/umoven rules: a string or buffer whose memory ends
    /// before its NUL (or before the `-s` limit + 1 bytes) prints as its
    /// address; a path is cut at PATH_MAX - 1 bytes.
    #[test]
    fn strings_that_run_into_unmapped_memory() {
        let opts = DecodeOpts {
            string_limit: 4,
            ..Default::default()
        };
        let mut m = FakeMemory::default();
        let short = m.put(b"ab\0");
        let mut fds = FixedFds(Vec::new());
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, Arch::X86_64, [0; 6]);
        assert!(matches!(c.cstr_value(short), Value::Str(s) if s.bytes == b"ab" && !s.truncated));
        let mut m = FakeMemory::default();
        // "abcdefgh" with no NUL before the end of the mapping.
        let at = m.put(b"abcdefgh");
        let end = at + 8;
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, Arch::X86_64, [0; 6]);
        // -s 4: 5 bytes read, no NUL: "abcd"...
        assert!(matches!(c.cstr_value(at), Value::Str(s) if s.bytes == b"abcd" && s.truncated));
        // 3 bytes left before the end, no NUL among them: the address.
        assert_eq!(c.cstr_value(end - 3), Value::Unreadable(end - 3));
        // A buffer of 5 bytes (> -s 4) needs 5 readable bytes.
        assert_eq!(c.buf_value(end - 4, 5), Value::Unreadable(end - 4));
        assert!(
            matches!(c.buf_value(end - 5, 5), Value::Str(s) if s.bytes.len() == 4 && s.truncated)
        );
        // printstr_ex with a maximum of 3 bytes: 3 bytes without NUL.
        assert!(matches!(c.cstrn_value(at, 3), Value::Str(s) if s.bytes == b"abc" && s.truncated));
        let mut m = FakeMemory::default();
        let mut long = vec![b'/'; 4096];
        long.push(0);
        let p = m.put(&long);
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, Arch::X86_64, [0; 6]);
        assert!(matches!(c.path_value(p), Value::Str(s) if s.bytes.len() == 4095 && s.truncated));
        assert!(
            matches!(c.path_value(p + 1), Value::Str(s) if s.bytes.len() == 4095 && !s.truncated)
        );
    }
}
