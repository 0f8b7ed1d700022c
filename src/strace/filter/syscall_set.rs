//! Syscall sets (`trace=`, `abbrev=`, `verbose=`, `raw=`): names, numbers,
//! `%CLASS`es, POSIX regular expressions and `@PERSONALITY` designators,
//! resolved to a bitmap per personality.

use super::posix_regex::match_names;
use super::{die, string_to_uint, FilterError};
use rtrace_arch::tables::Classes;
use rtrace_arch::Arch;
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
                Some(Designated::Arch(a)) => rc |= self.add_pers(body, &[a])?,
                Some(Designated::Unsupported) => {
                    // x32 shares the 64-bit names: one of them is valid
                    // there too, and selects nothing rtrace traces.
                    let kept = self.bits.clone();
                    rc |= self.add_pers(body, &[Arch::native()])?;
                    self.bits = kept;
                }
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
            rc |= self.add_pers(t, Arch::native_personalities())?;
        }
        Ok(rc)
    }

    /// Adds the calls of personalities `archs` that `t` names.
    fn add_pers(&mut self, t: &str, archs: &[Arch]) -> Result<bool, FilterError> {
        if let Some(pattern) = t.strip_prefix('/') {
            return self.add_regex(pattern, archs);
        }
        let mut rc = false;
        for &a in archs {
            rc |= self.add_one(t, a);
        }
        Ok(rc)
    }

    /// Adds the calls of `archs` whose names `pattern` matches: one bounded
    /// compilation (a child process) for all of them.
    fn add_regex(&mut self, pattern: &str, archs: &[Arch]) -> Result<bool, FilterError> {
        let calls: Vec<(Arch, u32, &str)> = archs
            .iter()
            .flat_map(|&a| a.syscalls().map(move |(nr, name)| (a, nr, name)))
            .collect();
        let names: Vec<&str> = calls.iter().map(|c| c.2).collect();
        let hits =
            match_names(pattern, &names).map_err(|m| die(format!("regcomp: {pattern}: {m}")))?;
        let mut found = false;
        for (&(a, nr, _), hit) in calls.iter().zip(hits) {
            if hit {
                self.bits[arch_index(a)][nr as usize] = true;
                found = true;
            }
        }
        Ok(found)
    }

    /// Adds the calls of personality `a` that `t` (not a regex) names.
    fn add_one(&mut self, t: &str, a: Arch) -> bool {
        let bits = &mut self.bits[arch_index(a)];
        if t.starts_with(|c: char| c.is_ascii_digit()) {
            // strace's `scno_pers_is_valid`: a number the table leaves
            // unnamed (a hole) is no system call either.
            return match string_to_uint(t, i32::MAX as u64) {
                Some(n) if (n as usize) < bits.len() && a.syscall_name(n).is_some() => {
                    bits[n as usize] = true;
                    true
                }
                _ => false,
            };
        }
        if let Some(&(_, class)) = CLASS_NAMES.iter().find(|c| c.0 == t) {
            for (nr, _) in a.syscalls() {
                if a.info(nr as u64)
                    .is_some_and(|i| i.classes.0 & class == class)
                {
                    bits[nr as usize] = true;
                }
            }
            return true;
        }
        let mut found = false;
        for (nr, name) in a.syscalls() {
            if name == t {
                bits[nr as usize] = true;
                found = true;
            }
        }
        found
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

#[cfg(test)]
mod tests {
    use super::*;

    /// glibc's regcomp takes 3 GB and 15 s on this one: refused, with the
    /// pattern named, after at most 256 MiB or 2 s of CPU in a child.
    #[test]
    fn exponential_regex_is_refused_as_too_complex() {
        let e = SyscallSet::parse("read,/(o++++++++++++++++b)++++++@64").unwrap_err();
        assert_eq!(
            e.msg,
            "regcomp: (o++++++++++++++++b)++++++: too complex \
             (over 256 MiB or 2 s of CPU to compile and match)"
        );
        assert!(!e.hint);
        // The same shape, small, still selects what it matches.
        let s = SyscallSet::parse("/^(o+pen)+at$").unwrap();
        assert!(s.matches_name("openat") && !s.matches_name("open"));
    }

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
        // A number with no syscall in any personality (a hole of the
        // tables) names nothing.
        let hole = (0..Arch::native().table_len() as u64).find(|&n| {
            Arch::native_personalities()
                .iter()
                .all(|a| a.syscall_name(n).is_none())
        });
        assert!(hole.is_some());
        if let Some(n) = hole {
            assert!(SyscallSet::parse(&n.to_string()).is_err());
        }
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
}
