//! `-e trace=…` syscall sets and the simpler name sets of `-e signal=`,
//! `-e status=` and `-e quiet=`.

use rtrace_arch::tables::{syscall_info, Classes};
use rtrace_arch::Arch;

/// A set of syscalls, resolved to a bitmap per personality at parse time so a
/// lookup per event is one index.
#[derive(Clone, Debug)]
pub struct SyscallSet {
    /// Per personality (index by [`arch_index`]), one flag per number.
    bits: [Vec<bool>; 3],
    /// Numbers beyond the tables (unknown syscalls) are in the set.
    unknown_in: bool,
}

/// Index of a personality in per-arch arrays.
pub fn arch_index(a: Arch) -> usize {
    match a {
        Arch::X86_64 => 0,
        Arch::I386 => 1,
        Arch::Aarch64 => 2,
    }
}

const CLASS_NAMES: &[(&str, u32)] = &[
    ("%desc", Classes::DESC.0),
    ("%file", Classes::FILE.0),
    ("%ipc", Classes::IPC.0),
    ("%net", Classes::NETWORK.0),
    ("%network", Classes::NETWORK.0),
    ("%process", Classes::PROCESS.0),
    ("%signal", Classes::SIGNAL.0),
    ("%memory", Classes::MEMORY.0),
    ("%stat", Classes::STAT.0),
    ("%lstat", Classes::LSTAT.0),
    ("%fstat", Classes::FSTAT.0),
    ("%%stat", Classes::STAT_LIKE.0),
    ("%statfs", Classes::STATFS.0),
    ("%fstatfs", Classes::FSTATFS.0),
    ("%%statfs", Classes::STATFS_LIKE.0),
    ("%pure", Classes::PURE.0),
    ("%creds", Classes::CREDS.0),
    ("%clock", Classes::CLOCK.0),
    // Pre-% spellings strace still accepts.
    ("desc", Classes::DESC.0),
    ("file", Classes::FILE.0),
    ("ipc", Classes::IPC.0),
    ("network", Classes::NETWORK.0),
    ("process", Classes::PROCESS.0),
    ("signal", Classes::SIGNAL.0),
    ("memory", Classes::MEMORY.0),
];

impl SyscallSet {
    /// Every syscall.
    pub fn all() -> SyscallSet {
        let mut s = SyscallSet::none();
        for a in Arch::ALL {
            s.bits[arch_index(a)].iter_mut().for_each(|b| *b = true);
        }
        s.unknown_in = true;
        s
    }

    /// No syscall.
    pub fn none() -> SyscallSet {
        SyscallSet {
            bits: Arch::ALL.map(|a| vec![false; a.table_len()]),
            unknown_in: false,
        }
    }

    /// Parses strace's syntax: `[!]elem[,elem]…` where elem is `[?]NAME`,
    /// `%CLASS`, `/REGEX`, `all` or `none`, each optionally `@64`/`@32`.
    pub fn parse(spec: &str) -> Result<SyscallSet, String> {
        let (negate, body) = match spec.strip_prefix('!') {
            Some(r) => (true, r),
            None => (false, spec),
        };
        let mut s = SyscallSet::none();
        for raw in body.split(',') {
            if raw.is_empty() {
                if body.is_empty() {
                    break;
                }
                return Err(format!("invalid system call '{spec}'"));
            }
            let (optional, elem) = match raw.strip_prefix('?') {
                Some(r) => (true, r),
                None => (false, raw),
            };
            let (elem, only) = match elem.rsplit_once('@') {
                Some((e, "64")) => (e, Some(Arch::native())),
                Some((e, "32")) if Arch::native() == Arch::X86_64 => (e, Some(Arch::I386)),
                Some((e, "x32")) => (e, Some(Arch::X86_64)),
                _ => (elem, None),
            };
            let arches: Vec<Arch> = match only {
                Some(a) => vec![a],
                None => Arch::ALL.to_vec(),
            };
            let mut found = false;
            if elem == "all" {
                for &a in &arches {
                    s.bits[arch_index(a)].iter_mut().for_each(|b| *b = true);
                }
                s.unknown_in |= only.is_none();
                found = true;
            } else if elem == "none" {
                found = true;
            } else if let Some(re) = elem.strip_prefix('/') {
                let re = regex_lite::Regex::new(re).map_err(|e| format!("{re}: {e}"))?;
                for &a in &arches {
                    for (nr, name) in a.syscalls() {
                        if re.is_match(name) {
                            s.bits[arch_index(a)][nr as usize] = true;
                            found = true;
                        }
                    }
                }
                // An unmatched regex is not an error in strace.
                found = true;
            } else if let Some(&(_, mask)) = CLASS_NAMES.iter().find(|c| c.0 == elem) {
                for &a in &arches {
                    for (nr, name) in a.syscalls() {
                        if syscall_info(name).is_some_and(|i| i.classes.0 & mask != 0) {
                            s.bits[arch_index(a)][nr as usize] = true;
                        }
                    }
                }
                found = true;
            } else {
                for &a in &arches {
                    if let Some(nr) = a.syscall_nr(elem) {
                        s.bits[arch_index(a)][nr as usize] = true;
                        found = true;
                    }
                }
            }
            if !found && !optional {
                return Err(format!("invalid system call '{raw}'"));
            }
        }
        if negate {
            for v in s.bits.iter_mut() {
                v.iter_mut().for_each(|b| *b = !*b);
            }
            s.unknown_in = !s.unknown_in;
        }
        Ok(s)
    }

    /// Is syscall `nr` of `arch` in the set?
    pub fn contains(&self, arch: Arch, nr: u64) -> bool {
        self.bits[arch_index(arch)]
            .get(nr as usize)
            .copied()
            .unwrap_or(self.unknown_in)
    }

    /// Is the named syscall (native personality) in the set?
    pub fn matches_name(&self, name: &str) -> bool {
        Arch::native()
            .syscall_nr(name)
            .is_some_and(|nr| self.contains(Arch::native(), nr as u64))
    }

    /// Does the set hold every known syscall of every personality?
    pub fn is_all(&self) -> bool {
        self.unknown_in && self.bits.iter().all(|v| v.iter().all(|b| *b))
    }

    /// The numbers in the set for one personality (for the seccomp filter).
    pub fn numbers(&self, arch: Arch) -> Vec<u32> {
        self.bits[arch_index(arch)]
            .iter()
            .enumerate()
            .filter(|(_, b)| **b)
            .map(|(i, _)| i as u32)
            .collect()
    }
}

/// A set of small numbered names (signals, statuses, quiet messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameSet {
    /// Everything.
    All,
    /// Only these bits.
    Some(u128),
}

impl NameSet {
    /// The empty set.
    pub fn none() -> NameSet {
        NameSet::Some(0)
    }

    /// Parses `[!]all|none|NAME[,NAME]…` with `lookup` resolving one name.
    pub fn parse(spec: &str, lookup: impl Fn(&str) -> Option<u32>) -> Result<NameSet, ()> {
        let (neg, body) = match spec.strip_prefix('!') {
            Some(r) => (true, r),
            None => (false, spec),
        };
        let mut bits: u128 = 0;
        let mut all = false;
        for e in body.split(',') {
            match e {
                "all" => all = true,
                "none" | "" => {}
                _ => bits |= 1u128 << lookup(e).filter(|n| *n < 128).ok_or(())?,
            }
        }
        Ok(match (all, neg) {
            (true, false) => NameSet::All,
            (true, true) => NameSet::Some(0),
            (false, false) => NameSet::Some(bits),
            (false, true) => NameSet::Some(!bits),
        })
    }

    /// Is `n` in the set?
    pub fn contains(&self, n: u32) -> bool {
        match self {
            NameSet::All => true,
            NameSet::Some(b) => n < 128 && b & (1u128 << n) != 0,
        }
    }
}

/// A signal by name (`SIGINT`, `INT`, case-insensitive) or number.
pub fn signal_number(s: &str) -> Option<u32> {
    if let Ok(n) = s.parse::<u32>() {
        return (1..=64).contains(&n).then_some(n);
    }
    let up = s.to_ascii_uppercase();
    let name = if up.starts_with("SIG") {
        up
    } else {
        format!("SIG{up}")
    };
    if let Some(v) = rtrace_arch::xlat::SIGNALS.value(&name) {
        return Some(v as u32);
    }
    if name == "SIGRTMIN" {
        return Some(32);
    }
    name.strip_prefix("SIGRT_")
        .and_then(|n| n.parse::<u32>().ok())
        .map(|n| n + 32)
        .filter(|n| *n <= 64)
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
        let s = SyscallSet::parse("%file").unwrap();
        assert!(s.matches_name("openat") && s.matches_name("execve"));
        assert!(!s.matches_name("read"));
        let s = SyscallSet::parse("/^open").unwrap();
        assert!(s.matches_name("openat") && s.matches_name("open"));
        assert!(!s.matches_name("close"));
        assert!(SyscallSet::parse("bogus").is_err());
        assert!(SyscallSet::parse("?bogus,read").unwrap().matches_name("read"));
        assert!(SyscallSet::parse("all").unwrap().is_all());
        assert!(!SyscallSet::parse("none").unwrap().matches_name("read"));
    }

    #[test]
    fn signal_sets() {
        let s = NameSet::parse("SIGINT,term", signal_number).unwrap();
        assert!(s.contains(2) && s.contains(15) && !s.contains(17));
        let s = NameSet::parse("!SIGCHLD", signal_number).unwrap();
        assert!(!s.contains(17) && s.contains(2));
        assert!(NameSet::parse("FOO", signal_number).is_err());
        assert_eq!(signal_number("SIGRT_2"), Some(34));
    }
}
