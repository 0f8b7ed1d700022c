//! The qualifying expressions of `-e`: syscall sets (`trace=`, `abbrev=`,
//! `verbose=`, `raw=`), the small numbered sets of `signal=`, `status=`,
//! `quiet=` and `decode-fds=`, and the `-P` rules saying which arguments of a
//! syscall name a path or a descriptor.
//!
//! Parsing follows strace 6.x token for token (`basic_filters.c`,
//! `filter_qualify.c`): leading `!`s toggle the set, `all`/`none` stand
//! alone, tokens are split on `,` with empty tokens skipped, a syscall token
//! is `[?]…NAME|NUMBER|%CLASS|/REGEX[@PERSONALITY]`, and error messages are
//! strace's. Regular expressions are POSIX extended ones compiled by the C
//! library, as strace does, so `-e trace=/…` selects the same calls and
//! reports the same `regcomp` errors.
//!
//! Non-goals: the x32 personality (accepted as a designator, selects nothing).

use rtrace_arch::tables::Classes;
use rtrace_arch::Arch;
use std::ffi::CString;

/// A malformed expression: the message strace prints, and whether strace
/// follows it with "Try '… -h' for more information.".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    /// The message, without the program name.
    pub msg: String,
    /// Followed by the usage hint.
    pub hint: bool,
}

fn die(msg: String) -> FilterError {
    FilterError { msg, hint: false }
}

/// A set of syscalls, resolved to a bitmap per personality at parse time so a
/// lookup per event is one index. Like strace's `number_set`, it is a bitmap
/// plus a `not` flag, so `!` inverts also the numbers no table names.
#[derive(Clone, Debug)]
pub struct SyscallSet {
    /// Per personality (index by [`arch_index`]), one flag per number.
    bits: [Vec<bool>; 3],
    /// Membership is inverted.
    not: bool,
}

/// Index of a personality in per-arch arrays.
pub fn arch_index(a: Arch) -> usize {
    match a {
        Arch::X86_64 => 0,
        Arch::I386 => 1,
        Arch::Aarch64 => 2,
    }
}

/// strace's class names (`lookup_class`): `%NAME`, and the legacy bare names.
/// `all` is a class too, of every named syscall.
const CLASS_NAMES: &[(&str, u32)] = &[
    ("%desc", Classes::DESC.0),
    ("%file", Classes::FILE.0),
    ("%memory", Classes::MEMORY.0),
    ("%process", Classes::PROCESS.0),
    ("%creds", Classes::CREDS.0),
    ("%signal", Classes::SIGNAL.0),
    ("%ipc", Classes::IPC.0),
    ("%net", Classes::NETWORK.0),
    ("%network", Classes::NETWORK.0),
    ("%stat", Classes::STAT.0),
    ("%lstat", Classes::LSTAT.0),
    ("%fstat", Classes::FSTAT.0),
    ("%%stat", Classes::STAT_LIKE.0),
    ("%statfs", Classes::STATFS.0),
    ("%fstatfs", Classes::FSTATFS.0),
    ("%%statfs", Classes::STATFS_LIKE.0),
    ("%pure", Classes::PURE.0),
    ("%clock", Classes::CLOCK.0),
    ("all", 0),
    ("desc", Classes::DESC.0),
    ("file", Classes::FILE.0),
    ("memory", Classes::MEMORY.0),
    ("process", Classes::PROCESS.0),
    ("signal", Classes::SIGNAL.0),
    ("ipc", Classes::IPC.0),
    ("network", Classes::NETWORK.0),
];

/// A personality designator after `@`, as strace on this host accepts it.
enum Designated {
    Arch(Arch),
    /// A personality rtrace has no table for (x32): valid, selects nothing.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Unsupported,
}

fn designator(d: &str) -> Option<Designated> {
    #[cfg(target_arch = "x86_64")]
    {
        match d {
            "64" => Some(Designated::Arch(Arch::X86_64)),
            "32" => Some(Designated::Arch(Arch::I386)),
            "x32" => Some(Designated::Unsupported),
            _ => None,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        match d {
            "64" => Some(Designated::Arch(Arch::native())),
            _ => None,
        }
    }
}

impl SyscallSet {
    /// Every syscall, including numbers no table names.
    pub fn all() -> SyscallSet {
        let mut s = SyscallSet::none();
        s.not = true;
        s
    }

    /// No syscall.
    pub fn none() -> SyscallSet {
        SyscallSet {
            bits: Arch::ALL.map(|a| vec![false; a.table_len()]),
            not: false,
        }
    }

    /// Parses strace's syntax: `[!]…all|none|TOKEN[,TOKEN]…` where a token is
    /// `[?]…NAME|NUMBER|%CLASS|/REGEX`, optionally with `@64`/`@32`/`@x32`.
    pub fn parse(spec: &str) -> Result<SyscallSet, FilterError> {
        let mut s = SyscallSet::none();
        let mut rest = spec;
        while let Some(r) = rest.strip_prefix('!') {
            s.not = !s.not;
            rest = r;
        }
        if rest == "none" {
            return Ok(s);
        }
        if rest == "all" {
            s.not = !s.not;
            return Ok(s);
        }
        let mut done = false;
        for token in rest.split(',').filter(|t| !t.is_empty()) {
            done = s.add_token(token)?;
            if !done {
                return Err(die(format!("invalid system call '{token}'")));
            }
        }
        if !done {
            return Err(die(format!("invalid system call '{spec}'")));
        }
        Ok(s)
    }

    /// Adds one token; false when it names nothing (and is not `?`-optional).
    fn add_token(&mut self, token: &str) -> Result<bool, FilterError> {
        let mut t = token;
        let mut rc = false;
        while let Some(r) = t.strip_prefix('?') {
            t = r;
            rc = true;
        }
        if let Some(pos) = t.rfind('@') {
            let (body, d) = (&t[..pos], &t[pos + 1..]);
            match designator(d) {
                Some(Designated::Arch(a)) => rc |= self.add_pers(body, a)?,
                Some(Designated::Unsupported) => {}
                None => {
                    return Err(FilterError {
                        msg: format!(
                            "incorrect personality designator '{d}' in qualification '{t}'"
                        ),
                        hint: true,
                    })
                }
            }
        } else {
            for &a in Arch::native_personalities() {
                rc |= self.add_pers(t, a)?;
            }
        }
        Ok(rc)
    }

    /// Adds the calls of personality `a` that `t` names.
    fn add_pers(&mut self, t: &str, a: Arch) -> Result<bool, FilterError> {
        let bits = &mut self.bits[arch_index(a)];
        if t.starts_with(|c: char| c.is_ascii_digit()) {
            return Ok(match string_to_uint(t, i32::MAX as u64) {
                Some(n) if (n as usize) < bits.len() => {
                    bits[n as usize] = true;
                    true
                }
                _ => false,
            });
        }
        if let Some(pattern) = t.strip_prefix('/') {
            let re =
                PosixRegex::new(pattern).map_err(|m| die(format!("regcomp: {pattern}: {m}")))?;
            let mut found = false;
            for (nr, name) in a.syscalls() {
                if re.is_match(name) {
                    bits[nr as usize] = true;
                    found = true;
                }
            }
            return Ok(found);
        }
        if let Some(&(_, class)) = CLASS_NAMES.iter().find(|c| c.0 == t) {
            for (nr, _) in a.syscalls() {
                if a.info(nr as u64)
                    .is_some_and(|i| i.classes.0 & class == class)
                {
                    bits[nr as usize] = true;
                }
            }
            return Ok(true);
        }
        let mut found = false;
        for (nr, name) in a.syscalls() {
            if name == t {
                bits[nr as usize] = true;
                found = true;
            }
        }
        Ok(found)
    }

    /// Is syscall `nr` of `arch` in the set?
    pub fn contains(&self, arch: Arch, nr: u64) -> bool {
        let b = self.bits[arch_index(arch)]
            .get(nr as usize)
            .copied()
            .unwrap_or(false);
        b != self.not
    }

    /// Is the named syscall (native personality) in the set?
    pub fn matches_name(&self, name: &str) -> bool {
        Arch::native()
            .syscall_nr(name)
            .is_some_and(|nr| self.contains(Arch::native(), nr as u64))
    }

    /// Does the set hold every syscall of every personality?
    pub fn is_all(&self) -> bool {
        self.not && self.bits.iter().all(|v| v.iter().all(|b| !*b))
    }

    /// The numbers in the set for one personality (for the seccomp filter).
    pub fn numbers(&self, arch: Arch) -> Vec<u32> {
        (0..self.bits[arch_index(arch)].len() as u32)
            .filter(|&nr| self.contains(arch, nr as u64))
            .collect()
    }
}

/// strace's `string_to_uint_upto`: what `strtol(s, &end, 10)` accepts
/// (leading blanks, a sign, then digits, nothing after), from 0 to `max`.
pub fn string_to_uint(s: &str, max: u64) -> Option<u64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: u64 = digits.parse().ok()?;
    if neg && v != 0 {
        return None;
    }
    (v <= max).then_some(v)
}

/// A POSIX extended regular expression (`regcomp(REG_EXTENDED|REG_NOSUB)`),
/// the engine strace matches syscall names with; its semantics and error
/// texts (`Unmatched ( or \(`) are the C library's.
struct PosixRegex {
    re: Box<libc::regex_t>,
}

impl PosixRegex {
    fn new(pattern: &str) -> Result<PosixRegex, String> {
        let c = CString::new(pattern).map_err(|_| "Invalid regular expression".to_string())?;
        // SAFETY: regex_t is plain data that regcomp initialises; all-zero
        // is a valid starting value.
        let mut re: Box<libc::regex_t> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: `re` points to writable storage for a regex_t and `c` is a
        // NUL-terminated pattern that outlives the call.
        let rc =
            unsafe { libc::regcomp(&mut *re, c.as_ptr(), libc::REG_EXTENDED | libc::REG_NOSUB) };
        if rc != 0 {
            let mut buf = [0u8; 512];
            // SAFETY: `buf` is writable for its length; regerror NUL-terminates
            // within it. `re` is the (failed) compilation regerror may consult.
            unsafe { libc::regerror(rc, &*re, buf.as_mut_ptr().cast(), buf.len()) };
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            return Err(String::from_utf8_lossy(&buf[..end]).into_owned());
        }
        Ok(PosixRegex { re })
    }

    fn is_match(&self, s: &str) -> bool {
        let Ok(c) = CString::new(s) else { return false };
        // SAFETY: `re` was compiled by regcomp; no match offsets are requested
        // (nmatch 0, NULL pmatch), as REG_NOSUB allows.
        unsafe { libc::regexec(&*self.re, c.as_ptr(), 0, std::ptr::null_mut(), 0) == 0 }
    }
}

impl Drop for PosixRegex {
    fn drop(&mut self) {
        // SAFETY: `re` holds a successful compilation, freed exactly once.
        unsafe { libc::regfree(&mut *self.re) };
    }
}

/// A set of small numbers (signals 0..=255, statuses, quiet messages, fd
/// decoding kinds): a bitmap and a `not` flag, like strace's `number_set`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameSet {
    bits: [u128; 2],
    not: bool,
}

impl NameSet {
    /// The empty set.
    pub fn none() -> NameSet {
        NameSet {
            bits: [0; 2],
            not: false,
        }
    }

    /// Every number.
    pub fn all() -> NameSet {
        NameSet {
            bits: [0; 2],
            not: true,
        }
    }

    /// The set of exactly these numbers.
    pub fn of(ns: &[u32]) -> NameSet {
        let mut s = NameSet::none();
        for &n in ns {
            s.add(n);
        }
        s
    }

    fn add(&mut self, n: u32) {
        if n < 256 {
            self.bits[(n / 128) as usize] |= 1u128 << (n % 128);
        }
    }

    /// Parses strace's `qualify_tokens` syntax: `[!]…all|none|NAME[,NAME]…`,
    /// `lookup` resolving one name; errors read `invalid WHAT 'TOKEN'`.
    pub fn parse(
        spec: &str,
        what: &str,
        lookup: impl Fn(&str) -> Option<u32>,
    ) -> Result<NameSet, FilterError> {
        let mut s = NameSet::none();
        let mut rest = spec;
        while let Some(r) = rest.strip_prefix('!') {
            s.not = !s.not;
            rest = r;
        }
        if rest == "none" {
            return Ok(s);
        }
        if rest == "all" {
            s.not = !s.not;
            return Ok(s);
        }
        let mut any = false;
        for token in rest.split(',').filter(|t| !t.is_empty()) {
            let n = lookup(token).ok_or_else(|| die(format!("invalid {what} '{token}'")))?;
            s.add(n);
            any = true;
        }
        if !any {
            return Err(die(format!("invalid {what} '{spec}'")));
        }
        Ok(s)
    }

    /// Is `n` in the set?
    pub fn contains(&self, n: u32) -> bool {
        let b = n < 256 && self.bits[(n / 128) as usize] & (1u128 << (n % 128)) != 0;
        b != self.not
    }

    /// Does the set hold every number below `count` (strace's `is_complete_set`)?
    pub fn is_complete(&self, count: u32) -> bool {
        (0..count).all(|n| self.contains(n))
    }

    /// Is the set empty (of the numbers below `count`)?
    pub fn is_empty_below(&self, count: u32) -> bool {
        (0..count).all(|n| !self.contains(n))
    }
}

/// `-e status=` numbers (strace's `STATUS_*`).
pub mod status {
    /// Returned without error.
    pub const SUCCESSFUL: u32 = 0;
    /// Returned an error.
    pub const FAILED: u32 = 1;
    /// Never returned (`= ?`).
    pub const UNFINISHED: u32 = 2;
    /// The return value could not be fetched.
    pub const UNAVAILABLE: u32 = 3;
    /// The tracee was detached mid-call.
    pub const DETACHED: u32 = 4;
    /// How many statuses there are.
    pub const COUNT: u32 = 5;
}

/// A `-e status=` name.
pub fn status_number(s: &str) -> Option<u32> {
    match s {
        "successful" => Some(status::SUCCESSFUL),
        "failed" => Some(status::FAILED),
        "unfinished" => Some(status::UNFINISHED),
        "unavailable" => Some(status::UNAVAILABLE),
        "detached" => Some(status::DETACHED),
        _ => None,
    }
}

/// `-e quiet=` numbers (strace's `QUIET_*`).
pub mod quiet {
    /// "Process N attached/detached".
    pub const ATTACH: u32 = 0;
    /// `+++ exited with N +++`.
    pub const EXIT: u32 = 1;
    /// "Requested path … resolved into …" (`-P`).
    pub const PATH_RESOLVE: u32 = 2;
    /// Personality change notices.
    pub const PERSONALITY: u32 = 3;
    /// `+++ superseded by execve in pid N +++`.
    pub const THREAD_EXECVE: u32 = 4;
}

/// A `-e quiet=` name.
pub fn quiet_number(s: &str) -> Option<u32> {
    match s {
        "attach" => Some(quiet::ATTACH),
        "exit" | "exits" => Some(quiet::EXIT),
        "path-resolution" => Some(quiet::PATH_RESOLVE),
        "personality" => Some(quiet::PERSONALITY),
        "superseded" | "thread-execve" => Some(quiet::THREAD_EXECVE),
        _ => None,
    }
}

/// `-e decode-fds=` numbers.
pub mod decode_fd {
    /// Paths (`-y`).
    pub const PATH: u32 = 0;
    /// Socket details.
    pub const SOCKET: u32 = 1;
    /// Device numbers.
    pub const DEV: u32 = 2;
    /// pidfd targets.
    pub const PIDFD: u32 = 3;
}

/// A `-e decode-fds=` name.
pub fn decode_fd_number(s: &str) -> Option<u32> {
    match s {
        "path" => Some(decode_fd::PATH),
        "socket" => Some(decode_fd::SOCKET),
        "dev" => Some(decode_fd::DEV),
        "pidfd" => Some(decode_fd::PIDFD),
        _ => None,
    }
}

/// A `-e decode-pids=` name.
pub fn decode_pid_number(s: &str) -> Option<u32> {
    match s {
        "pidns" => Some(0),
        "comm" => Some(1),
        _ => None,
    }
}

/// strace's name of signal `n` (1..=64): `SIGHUP`…`SIGSYS`, `SIGRTMIN`,
/// `SIGRT_1`…`SIGRT_32`.
fn signame(n: u32) -> Option<String> {
    if n == 0 {
        return None;
    }
    crate::syscall::ctx::signal_name(n as u64).map(|c| c.into_owned())
}

/// A signal as `-e signal=` takes it (strace's `sigstr_to_uint`): a number
/// 0..=255, or a name with or without `SIG`, in any case.
pub fn signal_number(s: &str) -> Option<u32> {
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        return string_to_uint(s, 255).map(|n| n as u32);
    }
    let bare = match s.get(..3) {
        Some(p) if p.eq_ignore_ascii_case("SIG") => &s[3..],
        _ => s,
    };
    (1..=255).find(|&i| {
        signame(i)
            .and_then(|n| n.strip_prefix("SIG").map(|x| x.eq_ignore_ascii_case(bare)))
            .unwrap_or(false)
    })
}

/// Which arguments of a syscall `-P` compares with the traced paths
/// (strace's `pathtrace_match_set`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathRule {
    /// Descriptors at `fds`, path strings at `paths` (argument indices).
    Args {
        /// Arguments holding a file descriptor.
        fds: &'static [usize],
        /// Arguments pointing to a path string.
        paths: &'static [usize],
    },
    /// i386 `mmap`: the descriptor is the fifth of six words at `arg0`.
    OldMmap,
    /// `select`-style fd sets at args 1..=3 (`nfds` at 0); `indirect`: the
    /// five arguments are in memory at `arg0` (i386 `select`).
    Select {
        /// i386 old select.
        indirect: bool,
    },
    /// `poll`-style `struct pollfd` array at arg0, count at arg1.
    Poll,
    /// `fsconfig`: path/fd depending on the command.
    Fsconfig,
}

const NO_ARGS: PathRule = PathRule::Args {
    fds: &[],
    paths: &[],
};

/// The `-P` rule of syscall `name` of personality `arch`.
pub fn path_rule(arch: Arch, name: &str, classes: Classes) -> PathRule {
    use PathRule::Args;
    let relevant = Classes::FILE.0 | Classes::DESC.0 | Classes::NETWORK.0;
    if classes.0 & relevant == 0 {
        return NO_ARGS;
    }
    match name {
        "dup2" | "dup3" | "kexec_file_load" | "sendfile" | "sendfile64" | "tee" => Args {
            fds: &[0, 1],
            paths: &[],
        },
        "execveat" | "faccessat" | "faccessat2" | "fchmodat" | "fchmodat2" | "fchownat"
        | "fspick" | "fstatat64" | "futimesat" | "getxattrat" | "inotify_add_watch" | "mkdirat"
        | "mknodat" | "mount_setattr" | "name_to_handle_at" | "newfstatat" | "open_tree"
        | "openat" | "openat2" | "readlinkat" | "setxattrat" | "statx" | "unlinkat"
        | "utimensat" | "utimensat_time64" => Args {
            fds: &[0],
            paths: &[1],
        },
        "link" | "mount" | "pivot_root" => Args {
            fds: &[],
            paths: &[0, 1],
        },
        "quotactl" | "symlink" => Args {
            fds: &[],
            paths: &[1],
        },
        "linkat" | "move_mount" | "renameat2" | "renameat" => Args {
            fds: &[0, 2],
            paths: &[1, 3],
        },
        "mmap" if arch == Arch::I386 => PathRule::OldMmap,
        "mmap" | "mmap2" => Args {
            fds: &[4],
            paths: &[],
        },
        "symlinkat" => Args {
            fds: &[1],
            paths: &[2],
        },
        "copy_file_range" | "splice" => Args {
            fds: &[0, 2],
            paths: &[],
        },
        "epoll_ctl" => Args {
            fds: &[2],
            paths: &[],
        },
        // The 64-bit mask takes one argument on 64-bit personalities, two on i386.
        "fanotify_mark" if arch == Arch::I386 => Args {
            fds: &[4],
            paths: &[5],
        },
        "fanotify_mark" => Args {
            fds: &[3],
            paths: &[4],
        },
        "select" if arch == Arch::I386 => PathRule::Select { indirect: true },
        "select" | "_newselect" | "pselect6" | "pselect6_time64" => {
            PathRule::Select { indirect: false }
        }
        "poll" | "ppoll" | "ppoll_time64" => PathRule::Poll,
        "fsconfig" => PathRule::Fsconfig,
        "bpf"
        | "epoll_create"
        | "epoll_create1"
        | "eventfd2"
        | "eventfd"
        | "fanotify_init"
        | "fsopen"
        | "inotify_init"
        | "inotify_init1"
        | "io_uring_setup"
        | "landlock_create_ruleset"
        | "memfd_create"
        | "memfd_secret"
        | "mq_open"
        | "perf_event_open"
        | "pidfd_open"
        | "pipe"
        | "pipe2"
        | "socket"
        | "socketpair"
        | "timerfd_create"
        | "userfaultfd" => NO_ARGS,
        _ if classes.0 & Classes::FILE.0 != 0 => Args {
            fds: &[],
            paths: &[0],
        },
        _ => Args {
            fds: &[0],
            paths: &[],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_classes_negation() {
        let s = SyscallSet::parse("openat,close").unwrap();
        assert!(s.matches_name("openat") && s.matches_name("close"));
        assert!(!s.matches_name("read"));
        let s = SyscallSet::parse("!openat").unwrap();
        assert!(!s.matches_name("openat") && s.matches_name("read"));
        let s = SyscallSet::parse("!!openat").unwrap();
        assert!(s.matches_name("openat") && !s.matches_name("read"));
        let s = SyscallSet::parse("%file").unwrap();
        assert!(s.matches_name("openat") && s.matches_name("execve"));
        assert!(!s.matches_name("read"));
        let s = SyscallSet::parse("/^open").unwrap();
        assert!(s.matches_name("openat") && s.matches_name("open"));
        assert!(!s.matches_name("close"));
        assert!(SyscallSet::parse("bogus").is_err());
        assert!(SyscallSet::parse("?bogus,read")
            .unwrap()
            .matches_name("read"));
        assert!(SyscallSet::parse("all").unwrap().is_all());
        assert!(!SyscallSet::parse("none").unwrap().matches_name("read"));
        assert!(SyscallSet::parse("!none").unwrap().is_all());
        assert!(SyscallSet::parse("read,").unwrap().matches_name("read"));
        assert!(SyscallSet::parse("0").unwrap().matches_name("read"));
        assert!(SyscallSet::parse("read@64").unwrap().matches_name("read"));
    }

    #[test]
    fn errors_like_strace() {
        let e = |s: &str| SyscallSet::parse(s).unwrap_err().msg;
        assert_eq!(e(""), "invalid system call ''");
        assert_eq!(e("!"), "invalid system call '!'");
        assert_eq!(e(","), "invalid system call ','");
        assert_eq!(e("read,foo"), "invalid system call 'foo'");
        assert_eq!(e("/zzzz"), "invalid system call '/zzzz'");
        assert_eq!(e("/["), "regcomp: [: Invalid regular expression");
        assert_eq!(e("/("), "regcomp: (: Unmatched ( or \\(");
        let p = SyscallSet::parse("read@foo").unwrap_err();
        assert!(p.hint);
        assert_eq!(
            p.msg,
            "incorrect personality designator 'foo' in qualification 'read@foo'"
        );
    }

    #[test]
    fn signal_sets() {
        let p = |s| NameSet::parse(s, "signal", signal_number);
        let s = p("SIGINT,term").unwrap();
        assert!(s.contains(2) && s.contains(15) && !s.contains(17));
        let s = p("!SIGCHLD").unwrap();
        assert!(!s.contains(17) && s.contains(2));
        assert_eq!(p("FOO").unwrap_err().msg, "invalid signal 'FOO'");
        assert_eq!(p("").unwrap_err().msg, "invalid signal ''");
        assert_eq!(signal_number("SIGRT_2"), Some(34));
        assert_eq!(signal_number("rtmin"), Some(32));
        assert_eq!(signal_number("RT_0"), None);
        assert_eq!(signal_number("255"), Some(255));
        assert_eq!(signal_number("256"), None);
        assert_eq!(signal_number("1x"), None);
    }

    #[test]
    fn path_rules() {
        let c = |n: &str| {
            Arch::X86_64
                .info(Arch::X86_64.syscall_nr(n).unwrap() as u64)
                .unwrap()
                .classes
        };
        assert_eq!(
            path_rule(Arch::X86_64, "symlink", c("symlink")),
            PathRule::Args {
                fds: &[],
                paths: &[1]
            }
        );
        assert_eq!(
            path_rule(Arch::X86_64, "read", c("read")),
            PathRule::Args {
                fds: &[0],
                paths: &[]
            }
        );
        assert_eq!(path_rule(Arch::X86_64, "getpid", c("getpid")), NO_ARGS);
    }
}
