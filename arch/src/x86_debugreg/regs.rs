//! The DR7 control word, the DR6 status word, and where ptrace exposes the
//! debug registers in `struct user`.

use super::{Kind, Len, Slot};
use std::fmt;

/// The DR7 control word.
///
/// Only the local-enable bits (L0–L3) are used: Linux treats L and G alike
/// for user breakpoints and clears them on every context switch itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dr7(u64);

/// First bit of the R/W and LEN fields (R/W0 at 16, LEN0 at 18, 4 bits per slot).
const DR7_CONTROL_SHIFT: u32 = 16;
const DR7_CONTROL_SIZE: u32 = 4;
/// Two enable bits (L, G) per slot.
const DR7_ENABLE_SIZE: u32 = 2;

impl Dr7 {
    /// Every slot disabled.
    pub const DISABLED: Dr7 = Dr7(0);

    /// The raw word, for `PTRACE_POKEUSER`.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// A word as read back with `PTRACE_PEEKUSER`.
    pub const fn from_bits(bits: u64) -> Dr7 {
        Dr7(bits)
    }

    /// This word with `slot` enabled for `kind` accesses of `len` bytes.
    pub const fn with_slot(self, slot: Slot, kind: Kind, len: Len) -> Dr7 {
        let s = self.without_slot(slot).0;
        let ctl = (kind.rw_bits() | (len.len_bits() << 2))
            << (DR7_CONTROL_SHIFT + slot.0 as u32 * DR7_CONTROL_SIZE);
        let enable = 1u64 << (slot.0 as u32 * DR7_ENABLE_SIZE);
        Dr7(s | ctl | enable)
    }

    /// This word with `slot` disabled and its fields cleared.
    pub const fn without_slot(self, slot: Slot) -> Dr7 {
        let ctl = 0b1111u64 << (DR7_CONTROL_SHIFT + slot.0 as u32 * DR7_CONTROL_SIZE);
        let enable = 0b11u64 << (slot.0 as u32 * DR7_ENABLE_SIZE);
        Dr7(self.0 & !(ctl | enable))
    }

    /// Whether `slot` is enabled (locally or globally).
    pub const fn is_enabled(self, slot: Slot) -> bool {
        (self.0 >> (slot.0 as u32 * DR7_ENABLE_SIZE)) & 0b11 != 0
    }

    /// Whether any slot is enabled.
    pub const fn any_enabled(self) -> bool {
        self.0 & 0xff != 0
    }

    /// What an enabled slot watches (`None` if disabled or set to I/O).
    pub const fn slot(self, slot: Slot) -> Option<(Kind, Len)> {
        if !self.is_enabled(slot) {
            return None;
        }
        let ctl = self.0 >> (DR7_CONTROL_SHIFT + slot.0 as u32 * DR7_CONTROL_SIZE);
        match Kind::from_rw_bits(ctl) {
            Some(k) => Some((k, Len::from_len_bits(ctl >> 2))),
            None => None,
        }
    }
}

impl fmt::Display for Dr7 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// The DR6 status word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dr6(u64);

/// B0–B3: slot `i` met its condition.
const DR6_TRAP_BITS: u64 = 0b1111;
/// BS: single-step trap.
const DR6_STEP: u64 = 1 << 14;

impl Dr6 {
    /// The value to write to clear the status: no condition bits, reserved
    /// bits as the CPU reads them (SDM: `0xFFFF0FF0` after reset). Linux keeps
    /// a "virtual" DR6 for ptrace and flips these reserved bits on the way
    /// in and out (`DR6_RESERVED` in `ptrace_set_debugreg`), so this is the
    /// value that leaves it zero; older kernels store it as is, which has no
    /// condition bit set either.
    pub const CLEAR: Dr6 = Dr6(0xffff_0ff0);

    /// A word as read with `PTRACE_PEEKUSER`.
    pub const fn from_bits(bits: u64) -> Dr6 {
        Dr6(bits)
    }

    /// The raw word, for `PTRACE_POKEUSER`.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Whether `slot`'s condition was met.
    pub const fn hit(self, slot: Slot) -> bool {
        self.0 & (1 << slot.0) != 0
    }

    /// The slots whose condition was met, DR0 first.
    pub fn hits(self) -> impl Iterator<Item = Slot> {
        Slot::all().filter(move |&s| self.hit(s))
    }

    /// Whether any slot's condition was met.
    pub const fn any_hit(self) -> bool {
        self.0 & DR6_TRAP_BITS != 0
    }

    /// Whether the trap was a single step (BS).
    pub const fn single_step(self) -> bool {
        self.0 & DR6_STEP != 0
    }
}

/// Where ptrace exposes the debug registers: the byte offset of
/// `u_debugreg[8]` in `struct user` and its word size. DR4 and DR5 are
/// aliases the kernel does not expose; DR6 and DR7 are words 6 and 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserArea {
    /// Byte offset of `u_debugreg[0]`.
    pub debugreg: usize,
    /// Size of one word of `struct user`.
    pub word: usize,
}

impl UserArea {
    /// x86_64 `struct user` (`sys/user.h`): 27 register words, `u_fpvalid`
    /// (padded), 512 bytes of `user_fpregs_struct`, then sizes, pointers and
    /// `u_comm[32]` put `u_debugreg` at 848.
    pub const X86_64: UserArea = UserArea {
        debugreg: 848,
        word: 8,
    };

    /// i386 `struct user` (for a 32-bit tracer; listed for completeness).
    pub const I386: UserArea = UserArea {
        debugreg: 252,
        word: 4,
    };

    /// Offset of the address register of `slot` (DR0–DR3).
    pub const fn addr(self, slot: Slot) -> usize {
        self.debugreg + slot.0 as usize * self.word
    }

    /// Offset of DR6.
    pub const fn dr6(self) -> usize {
        self.debugreg + 6 * self.word
    }

    /// Offset of DR7.
    pub const fn dr7(self) -> usize {
        self.debugreg + 7 * self.word
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x86_debugreg::SLOTS;

    fn s(i: usize) -> Slot {
        Slot::new(i).unwrap()
    }

    #[test]
    fn dr7_encodings_match_the_sdm() {
        // gdb's "watch" of a 4-byte int in DR0: L0, R/W0=01, LEN0=11.
        assert_eq!(
            Dr7::DISABLED.with_slot(s(0), Kind::Write, Len::Four).bits(),
            0x000d_0001
        );
        // rw, 8 bytes in DR1: L1 (bit 2), R/W1=11, LEN1=10 at bits 20..24.
        assert_eq!(
            Dr7::DISABLED
                .with_slot(s(1), Kind::ReadWrite, Len::Eight)
                .bits(),
            0x00b0_0004
        );
        // exec in DR3: L3 (bit 6), R/W3=00, LEN3=00.
        assert_eq!(
            Dr7::DISABLED.with_slot(s(3), Kind::Exec, Len::One).bits(),
            0x40
        );
        // 2-byte write in DR2: L2 (bit 4), fields 0b0101 at bits 24..28.
        assert_eq!(
            Dr7::DISABLED.with_slot(s(2), Kind::Write, Len::Two).bits(),
            0x0500_0010
        );
    }

    #[test]
    fn dr7_roundtrip_and_disable() {
        let mut w = Dr7::DISABLED;
        let plan = [
            (Kind::Write, Len::One),
            (Kind::ReadWrite, Len::Two),
            (Kind::Exec, Len::One),
            (Kind::Write, Len::Eight),
        ];
        for (i, &(k, l)) in plan.iter().enumerate() {
            w = w.with_slot(s(i), k, l);
        }
        for (i, &(k, l)) in plan.iter().enumerate() {
            assert_eq!(w.slot(s(i)), Some((k, l)));
        }
        // Re-programming a slot replaces its fields.
        let w2 = w.with_slot(s(1), Kind::Write, Len::Four);
        assert_eq!(w2.slot(s(1)), Some((Kind::Write, Len::Four)));
        assert_eq!(w2.slot(s(0)), Some((Kind::Write, Len::One)));
        let mut off = w;
        for i in 0..SLOTS {
            off = off.without_slot(s(i));
        }
        assert_eq!(off, Dr7::DISABLED);
        assert!(!off.any_enabled());
        // A globally enabled slot (as another debugger may leave it) reads as enabled.
        assert!(Dr7::from_bits(0b10).is_enabled(s(0)));
    }

    #[test]
    fn dr6_decoding() {
        // What Linux returns through PEEKUSER after slot 2 fired: reserved bits set.
        let d = Dr6::from_bits(0xffff_0ff4);
        assert!(d.hit(s(2)));
        assert!(!d.hit(s(0)));
        assert_eq!(d.hits().collect::<Vec<_>>(), vec![s(2)]);
        assert!(d.any_hit());
        assert!(!d.single_step());
        assert!(!Dr6::CLEAR.any_hit());
        assert!(!Dr6::CLEAR.single_step());
        assert!(Dr6::from_bits(0xffff_4ff0).single_step());
    }

    #[test]
    fn user_area_offsets() {
        let u = UserArea::X86_64;
        assert_eq!(u.addr(s(0)), 848);
        assert_eq!(u.addr(s(3)), 872);
        assert_eq!(u.dr6(), 896);
        assert_eq!(u.dr7(), 904);
        assert_eq!(UserArea::I386.dr7(), 252 + 28);
        assert_eq!(s(1).to_string(), "DR1");
    }
}
