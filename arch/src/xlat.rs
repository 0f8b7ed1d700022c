//! Constant tables (`O_*`, `PROT_*`, signal names, …) generated from `xlat/*.in`.

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
