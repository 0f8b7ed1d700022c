//! i386: the 32-bit personality. Its registers arrive through the x86_64
//! register file (see [`crate::x86_64`]); this module holds what is i386-only.

/// The breakpoint instruction (INT3).
pub const TRAP_BYTES: &[u8] = &[0xcc];
