//! Constant tables (`O_*`, `PROT_*`, signal names, …) generated from `xlat/*.in`.
//!
//! Each `xlat/foo.in` becomes `pub static FOO: Xlat`, with the values of the target
//! architecture and the entries in the order strace prints them (for flags, a
//! combined name such as `O_SYNC` comes before the bits it contains). Values are
//! the kernel UAPI ones; `tests/xlat_headers.rs` cross-checks them against the
//! system headers.
//!
//! Non-goals: formatting. Decoders turn values into names with [`Xlat::lookup`] and
//! [`Xlat::split_flags`]; how unknown values are shown is the renderer's business.

/// How a table's values combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XlatKind {
    /// Exactly one value applies (`SEEK_SET`, `AT_FDCWD`).
    Enum,
    /// Values are bits OR-ed together (`O_CREAT|O_EXCL`).
    Flags,
}

/// A table of named constants.
#[derive(Debug)]
pub struct Xlat {
    /// The table's file name (`open_flags`).
    pub name: &'static str,
    /// Enum or flags.
    pub kind: XlatKind,
    /// `(value, name)` in file order; for flags, multi-bit masks come first where
    /// the file lists them first.
    pub entries: &'static [(u64, &'static str)],
}

impl Xlat {
    /// The name of an exact value.
    pub fn lookup(&self, v: u64) -> Option<&'static str> {
        self.entries.iter().find(|e| e.0 == v).map(|e| e.1)
    }

    /// The value of a name.
    pub fn value(&self, name: &str) -> Option<u64> {
        self.entries.iter().find(|e| e.1 == name).map(|e| e.0)
    }

    /// Splits `v` into the names of the set bits this table knows, in table order,
    /// and the bits left over.
    pub fn split_flags(&self, v: u64) -> (Vec<&'static str>, u64) {
        let mut rest = v;
        let mut names = Vec::new();
        for &(bits, name) in self.entries {
            if bits != 0 && rest & bits == bits {
                names.push(name);
                rest &= !bits;
            }
        }
        (names, rest)
    }
}

include!(concat!(env!("OUT_DIR"), "/xlat_tables.rs"));

/// The table generated from `xlat/<name>.in` (`"open_flags"`).
pub fn by_name(name: &str) -> Option<&'static Xlat> {
    ALL.binary_search_by(|x| x.name.cmp(name))
        .ok()
        .map(|i| ALL[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_is_sorted_and_complete() {
        assert!(ALL.windows(2).all(|w| w[0].name < w[1].name));
        assert_eq!(by_name("open_flags").unwrap().name, "open_flags");
        assert!(by_name("no_such_table").is_none());
        assert!(ALL.len() > 80);
        assert!(ALL.iter().all(|x| !x.entries.is_empty()));
    }

    /// A flags entry listed after another whose bits it contains could never be
    /// printed: the earlier entry would take the bits first.
    #[test]
    fn flag_supersets_come_first() {
        for x in ALL.iter().filter(|x| x.kind == XlatKind::Flags) {
            for (i, &(a, an)) in x.entries.iter().enumerate() {
                for &(b, bn) in &x.entries[i + 1..] {
                    assert!(
                        a == 0 || b & a != a || a == b,
                        "{}: {bn} ({b:#x}) contains {an} ({a:#x}) but is listed after it",
                        x.name
                    );
                }
            }
        }
    }

    /// An enum value with two names would always print the first. Only the ioctl
    /// table has aliases on purpose: strace prints them all ("BTRFS_IOC_CLONE or
    /// FICLONE").
    #[test]
    fn enum_values_are_unique() {
        const ALIASES_ALLOWED: &[&str] = &["ioctl_requests"];
        for x in ALL
            .iter()
            .filter(|x| x.kind == XlatKind::Enum && !ALIASES_ALLOWED.contains(&x.name))
        {
            for (i, &(a, an)) in x.entries.iter().enumerate() {
                if let Some(&(_, bn)) = x.entries[i + 1..].iter().find(|e| e.0 == a) {
                    panic!("{}: {an} and {bn} are both {a:#x}", x.name);
                }
            }
        }
    }

    #[test]
    fn strace_style_decoding() {
        let (names, rest) = OPEN_FLAGS.split_flags(OPEN_FLAGS.value("O_SYNC").unwrap());
        assert_eq!((names, rest), (vec!["O_SYNC"], 0));
        let dsync = OPEN_FLAGS.value("O_DSYNC").unwrap();
        assert_eq!(OPEN_FLAGS.split_flags(dsync).0, vec!["O_DSYNC"]);
        let tmpfile = OPEN_FLAGS.value("O_TMPFILE").unwrap();
        assert_eq!(OPEN_FLAGS.split_flags(tmpfile).0, vec!["O_TMPFILE"]);
        let creat_excl = OPEN_FLAGS.value("O_CREAT").unwrap() | OPEN_FLAGS.value("O_EXCL").unwrap();
        assert_eq!(
            OPEN_FLAGS.split_flags(creat_excl | 1 << 40),
            (vec!["O_CREAT", "O_EXCL"], 1 << 40)
        );
        assert_eq!(OPEN_ACCESS.lookup(2), Some("O_RDWR"));
        assert_eq!(ACCESS_MODES.lookup(0), Some("F_OK"));
        assert_eq!(ACCESS_MODES.split_flags(7).0, vec!["R_OK", "W_OK", "X_OK"]);
        assert_eq!(STATX_MASKS.split_flags(0xfff).0, vec!["STATX_ALL"]);
        assert_eq!(SIGNAL_CODES.lookup(-6i64 as u64), Some("SI_TKILL"));
        assert_eq!(
            WAIT4_OPTIONS.split_flags(0x4000_0001).0,
            vec!["WNOHANG", "__WALL"]
        );
        assert_eq!(
            SOCKET_TYPE_FLAGS.split_flags(0o2004000).0,
            vec!["SOCK_CLOEXEC", "SOCK_NONBLOCK"]
        );
        assert_eq!(
            MSYNC_FLAGS.split_flags(7).0,
            vec!["MS_SYNC", "MS_ASYNC", "MS_INVALIDATE"]
        );
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn x86_64_values() {
        assert_eq!(OPEN_FLAGS.value("O_DIRECTORY"), Some(0o200000));
        assert_eq!(OPEN_FLAGS.value("O_LARGEFILE"), Some(0o100000));
        assert_eq!(MMAP_FLAGS.value("MAP_32BIT"), Some(0x40));
        assert_eq!(PTRACE_REQUESTS.lookup(0x1e), Some("PTRACE_ARCH_PRCTL"));
        assert_eq!(MMAP_PROT.value("PROT_BTI"), None);
    }

    #[test]
    #[cfg(target_arch = "aarch64")]
    fn aarch64_values() {
        assert_eq!(OPEN_FLAGS.value("O_DIRECTORY"), Some(0o40000));
        assert_eq!(OPEN_FLAGS.value("O_NOFOLLOW"), Some(0o100000));
        assert_eq!(OPEN_FLAGS.value("O_DIRECT"), Some(0o200000));
        assert_eq!(OPEN_FLAGS.value("O_LARGEFILE"), Some(0o400000));
        assert_eq!(OPEN_FLAGS.value("O_TMPFILE"), Some(0o20040000));
        assert_eq!(MMAP_FLAGS.value("MAP_32BIT"), None);
        assert_eq!(PTRACE_REQUESTS.lookup(0x1e), Some("PTRACE_SETHBPREGS"));
    }
}
