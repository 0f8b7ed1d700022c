//! x86 debug registers (DR0–DR3, DR6, DR7) as typed values.
//!
//! Scope: the DR7 control word (per-slot enable, R/W and LEN fields), the DR6
//! status word (which slot fired, single step), the alignment rules the CPU
//! and Linux impose on a watched range, and where ptrace reaches the
//! registers (`u_debugreg` in `struct user`, through `PTRACE_PEEKUSER` /
//! `PTRACE_POKEUSER`). Pure data and arithmetic: this module compiles and is
//! tested on every host, x86 or not.
//!
//! Non-goals: talking to the kernel (the watchpoint tool does that through
//! the engine), and other CPUs' watchpoint models (aarch64 uses the
//! `NT_ARM_HW_WATCH` regset with byte-address-select masks, a different
//! shape).
//!
//! References: Intel SDM vol. 3, 18.2 "Debug registers"; Linux
//! `arch/x86/include/uapi/asm/debugreg.h`, `arch/x86/kernel/ptrace.c`.
//!
//! Submodules: [`regs`] holds the DR7/DR6 words and where ptrace reaches
//! them, [`insn`] the x86_64 instruction decoding that names the access a
//! data watchpoint trapped after; this file the slots, kinds, lengths and
//! range rules.

mod insn;
mod regs;

pub use insn::{decode_one, insn_ending_at, insns_ending_at_touching, Insn, MemAccess};
pub use regs::{Dr6, Dr7, UserArea};

use std::fmt;

/// Number of address slots (DR0–DR3).
pub const SLOTS: usize = 4;

/// One of the four address slots, DR0–DR3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot(u8);

impl Slot {
    /// Slot `i` (0..4).
    pub const fn new(i: usize) -> Option<Slot> {
        if i < SLOTS {
            Some(Slot(i as u8))
        } else {
            None
        }
    }

    /// All four slots, DR0 first.
    pub fn all() -> impl Iterator<Item = Slot> {
        (0..SLOTS as u8).map(Slot)
    }

    /// Its index (0..4).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DR{}", self.0)
    }
}

/// What access a slot traps on: the R/W field of DR7.
///
/// The fourth encoding (`10`, I/O port access) needs CR4.DE and Linux refuses
/// it, so it has no variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Instruction fetch (`00`): traps before the instruction executes.
    Exec,
    /// Data write (`01`): traps after the writing instruction.
    Write,
    /// Data read or write (`11`): traps after the accessing instruction.
    ReadWrite,
}

impl Kind {
    /// The two-bit R/W encoding.
    pub const fn rw_bits(self) -> u64 {
        match self {
            Kind::Exec => 0b00,
            Kind::Write => 0b01,
            Kind::ReadWrite => 0b11,
        }
    }

    /// The kind of an R/W encoding (`None` for I/O, `10`).
    pub const fn from_rw_bits(bits: u64) -> Option<Kind> {
        match bits & 0b11 {
            0b00 => Some(Kind::Exec),
            0b01 => Some(Kind::Write),
            0b11 => Some(Kind::ReadWrite),
            _ => None,
        }
    }

    /// Whether the trap is taken after the accessing instruction completed
    /// (data breakpoints are traps, instruction breakpoints are faults).
    pub const fn traps_after(self) -> bool {
        !matches!(self, Kind::Exec)
    }

    /// Short name: `exec`, `write`, `rw`.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Exec => "exec",
            Kind::Write => "write",
            Kind::ReadWrite => "rw",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How many bytes a slot covers: the LEN field of DR7.
///
/// The encodings are not in size order: `10` means 8 bytes (64-bit mode
/// only) and `11` means 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Len {
    /// 1 byte (`00`); the only length allowed for [`Kind::Exec`].
    One,
    /// 2 bytes (`01`).
    Two,
    /// 4 bytes (`11`).
    Four,
    /// 8 bytes (`10`).
    Eight,
}

impl Len {
    /// The two-bit LEN encoding.
    pub const fn len_bits(self) -> u64 {
        match self {
            Len::One => 0b00,
            Len::Two => 0b01,
            Len::Four => 0b11,
            Len::Eight => 0b10,
        }
    }

    /// The length of a LEN encoding.
    pub const fn from_len_bits(bits: u64) -> Len {
        match bits & 0b11 {
            0b00 => Len::One,
            0b01 => Len::Two,
            0b11 => Len::Four,
            _ => Len::Eight,
        }
    }

    /// The length for a byte count (1, 2, 4 or 8).
    pub const fn from_bytes(n: u64) -> Option<Len> {
        match n {
            1 => Some(Len::One),
            2 => Some(Len::Two),
            4 => Some(Len::Four),
            8 => Some(Len::Eight),
            _ => None,
        }
    }

    /// Bytes covered.
    pub const fn bytes(self) -> u64 {
        match self {
            Len::One => 1,
            Len::Two => 2,
            Len::Four => 4,
            Len::Eight => 8,
        }
    }
}

/// Why a range cannot be watched by one slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeError {
    /// The length is not 1, 2, 4 or 8.
    BadLength(u64),
    /// The address is not a multiple of the length (the CPU ignores the low
    /// address bits, so a misaligned slot would watch other bytes).
    Misaligned {
        /// The address asked for.
        addr: u64,
        /// The length asked for.
        len: u64,
    },
    /// Execute slots cover exactly one byte (the instruction's first).
    ExecLength(u64),
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RangeError::BadLength(n) => {
                write!(f, "length {n} is not supported (use 1, 2, 4 or 8)")
            }
            RangeError::Misaligned { addr, len } => write!(
                f,
                "address {addr:#x} is not aligned to its length {len} \
                 (a {len}-byte watchpoint needs an address that is a multiple of {len}; \
                 the nearest aligned one is {:#x})",
                addr & !(len - 1)
            ),
            RangeError::ExecLength(n) => write!(
                f,
                "an execute watchpoint covers one instruction address (length 1), not {n} bytes"
            ),
        }
    }
}

impl std::error::Error for RangeError {}

/// Checks that `len` bytes at `addr` fit one slot of kind `kind`.
pub fn check_range(addr: u64, len: u64, kind: Kind) -> Result<Len, RangeError> {
    if kind == Kind::Exec {
        return if len == 1 {
            Ok(Len::One)
        } else {
            Err(RangeError::ExecLength(len))
        };
    }
    let l = Len::from_bytes(len).ok_or(RangeError::BadLength(len))?;
    if !addr.is_multiple_of(len) {
        return Err(RangeError::Misaligned { addr, len });
    }
    Ok(l)
}

/// The aligned pieces of 1, 2, 4 or 8 bytes, in address order, that
/// cover exactly the `len` bytes at `addr` (each fits one data slot): at
/// each address the widest length it is aligned to that does not run
/// past the end, as gdb splits a wide watch over several registers.
pub fn pieces(addr: u64, len: u64) -> Vec<(u64, Len)> {
    let mut out = Vec::new();
    let (mut at, end) = (addr, addr.saturating_add(len));
    while at < end {
        let l = [Len::Eight, Len::Four, Len::Two, Len::One]
            .into_iter()
            .find(|l| at.is_multiple_of(l.bytes()) && at + l.bytes() <= end)
            .expect("a one-byte piece always fits");
        out.push((at, l));
        at += l.bytes();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_ranges_split_into_aligned_pieces() {
        let lens = |a, l| -> Vec<(u64, u64)> {
            pieces(a, l)
                .into_iter()
                .map(|(a, l)| (a, l.bytes()))
                .collect()
        };
        assert_eq!(
            lens(0x1000, 32),
            vec![(0x1000, 8), (0x1008, 8), (0x1010, 8), (0x1018, 8)]
        );
        assert_eq!(lens(0x1004, 12), vec![(0x1004, 4), (0x1008, 8)]);
        assert_eq!(lens(0x1003, 7), vec![(0x1003, 1), (0x1004, 4), (0x1008, 2)]);
        assert_eq!(lens(0x1000, 3), vec![(0x1000, 2), (0x1002, 1)]);
        assert_eq!(lens(0x1000, 8), vec![(0x1000, 8)]);
        assert!(pieces(0x1000, 0).is_empty());
    }

    #[test]
    fn len_and_kind_encodings_roundtrip() {
        for l in [Len::One, Len::Two, Len::Four, Len::Eight] {
            assert_eq!(Len::from_len_bits(l.len_bits()), l);
            assert_eq!(Len::from_bytes(l.bytes()), Some(l));
        }
        for k in [Kind::Exec, Kind::Write, Kind::ReadWrite] {
            assert_eq!(Kind::from_rw_bits(k.rw_bits()), Some(k));
        }
        assert_eq!(Kind::from_rw_bits(0b10), None);
        assert_eq!(Len::from_bytes(3), None);
    }

    #[test]
    fn ranges() {
        assert_eq!(check_range(0x1000, 8, Kind::Write), Ok(Len::Eight));
        assert_eq!(check_range(0x1004, 4, Kind::ReadWrite), Ok(Len::Four));
        assert_eq!(
            check_range(0x1002, 4, Kind::Write),
            Err(RangeError::Misaligned {
                addr: 0x1002,
                len: 4
            })
        );
        assert_eq!(
            check_range(0x1000, 3, Kind::Write),
            Err(RangeError::BadLength(3))
        );
        assert_eq!(check_range(0x1003, 1, Kind::Exec), Ok(Len::One));
        assert_eq!(
            check_range(0x1000, 4, Kind::Exec),
            Err(RangeError::ExecLength(4))
        );
        let msg = RangeError::Misaligned {
            addr: 0x1002,
            len: 4,
        }
        .to_string();
        assert!(msg.contains("0x1002") && msg.contains("0x1000"), "{msg}");
    }
}
