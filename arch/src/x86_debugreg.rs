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

/// How one instruction touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// Its effective address, when the registers were known
    /// (RIP-relative and absolute operands always are).
    pub addr: Option<u64>,
    /// Bytes accessed (0 when the operand size is not fixed).
    pub size: u64,
    /// The instruction reads the location (possibly conditionally).
    pub read: bool,
    /// The instruction writes the location (possibly conditionally).
    pub write: bool,
}

impl MemAccess {
    /// Whether this access covers part of `[addr, addr + len)`; an access
    /// whose address or size is unknown counts as touching it.
    pub fn touches(&self, addr: u64, len: u64) -> bool {
        match self.addr {
            None => true,
            Some(a) if self.size == 0 => a >= addr && a < addr + len,
            Some(a) => a < addr + len && addr < a + self.size,
        }
    }
}

/// One decoded x86_64 instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Its address.
    pub addr: u64,
    /// Its length in bytes.
    pub len: u64,
    /// AT&T-syntax disassembly (`movl $0x2a,0x2ee4(%rip)`).
    pub text: String,
    /// Its memory operands (explicit and implicit, e.g. the stack slot of a push).
    pub mem: Vec<MemAccess>,
}

/// The value of a register (or, for a segment register, its base) from an
/// x86_64 `NT_PRSTATUS` register file (`struct user_regs_struct` words).
fn reg_value(words: &[u64], r: iced_x86::Register) -> Option<u64> {
    use iced_x86::Register as R;
    // Word indices in struct user_regs_struct (arch/x86/include/asm/user_64.h).
    let full = r.full_register();
    let idx = match full {
        R::R15 => 0,
        R::R14 => 1,
        R::R13 => 2,
        R::R12 => 3,
        R::RBP => 4,
        R::RBX => 5,
        R::R11 => 6,
        R::R10 => 7,
        R::R9 => 8,
        R::R8 => 9,
        R::RAX => 10,
        R::RCX => 11,
        R::RDX => 12,
        R::RSI => 13,
        R::RDI => 14,
        R::RIP => 16,
        R::RSP => 19,
        // 64-bit mode: these segments have base 0.
        R::ES | R::CS | R::SS | R::DS => return Some(0),
        R::FS => 21,
        R::GS => 22,
        _ => return None,
    };
    let v = *words.get(idx)?;
    Some(match r.size() {
        1 => v & 0xff,
        2 => v & 0xffff,
        4 => v & 0xffff_ffff,
        _ => v,
    })
}

/// Decodes the instruction at the start of `bytes` (at address `addr`);
/// memory operand addresses are computed from `regs` when given.
pub fn decode_one(bytes: &[u8], addr: u64, regs: Option<&[u64]>) -> Option<Insn> {
    use iced_x86::{
        Decoder, DecoderOptions, Formatter, GasFormatter, InstructionInfoFactory, OpAccess,
    };
    let mut dec = Decoder::with_ip(64, bytes, addr, DecoderOptions::NONE);
    let ins = dec.decode();
    if ins.is_invalid() {
        return None;
    }
    let mut text = String::new();
    let mut fmt = GasFormatter::new();
    // As objdump prints it.
    fmt.options_mut().set_uppercase_hex(false);
    fmt.options_mut().set_rip_relative_addresses(true);
    fmt.format(&ins, &mut text);
    let mut factory = InstructionInfoFactory::new();
    let info = factory.info(&ins);
    let mem = info
        .used_memory()
        .iter()
        .filter_map(|m| {
            let (read, write) = match m.access() {
                OpAccess::Read | OpAccess::CondRead => (true, false),
                OpAccess::Write | OpAccess::CondWrite => (false, true),
                OpAccess::ReadWrite | OpAccess::ReadCondWrite => (true, true),
                // lea and friends: an address, not an access.
                _ => return None,
            };
            let a = match regs {
                Some(w) => m.virtual_address(0, |r, _, _| reg_value(w, r)),
                None if m.base() == iced_x86::Register::None
                    && m.index() == iced_x86::Register::None =>
                {
                    m.virtual_address(0, |r, _, _| reg_value(&[], r))
                }
                None => None,
            };
            Some(MemAccess {
                addr: a,
                size: m.memory_size().size() as u64,
                read,
                write,
            })
        })
        .collect();
    Some(Insn {
        addr,
        len: ins.len() as u64,
        text,
        mem,
    })
}

/// The instruction that ends exactly at `pc`, found by decoding forward from
/// `start` over `code` (the bytes from `start` up to at least `pc`).
///
/// A data watchpoint traps after the accessing instruction completed, so
/// the trapping pc is the address of the *next* instruction; decoding from
/// the function start is exact for compiled code (no data in `.text`) when
/// the access was not a control transfer. `None` when `pc` is not an
/// instruction boundary of that decoding (a `call` pushing into the watched
/// range traps at the callee; a `rep` string instruction traps between
/// iterations with pc still on itself).
pub fn insn_ending_at(code: &[u8], start: u64, pc: u64, regs: Option<&[u64]>) -> Option<Insn> {
    let mut at = start;
    while at < pc {
        let off = (at - start) as usize;
        let rest = code.get(off..)?;
        let ins = decode_one(rest, at, None)?;
        let next = at + ins.len;
        if next == pc {
            return decode_one(rest, at, regs);
        }
        at = next;
    }
    None
}

/// Without a known function start: every instruction that ends exactly at
/// `pc` (decoded from each of the up to 15 bytes `before` it, x86's maximum
/// instruction length) and accesses memory overlapping `[addr, addr + len)`
/// with the kind `kind` traps on, its operand addresses computed from `regs`
/// (the registers at the trap: exact unless the instruction changed its own
/// base or index register). One result means the instruction is known; more
/// mean it is ambiguous.
pub fn insns_ending_at_touching(
    before: &[u8],
    pc: u64,
    regs: &[u64],
    addr: u64,
    len: u64,
    kind: Kind,
) -> Vec<Insn> {
    let n = before.len() as u64;
    let mut out = Vec::new();
    for back in 1..=n.min(15) {
        let off = (n - back) as usize;
        let Some(ins) = decode_one(&before[off..], pc - back, Some(regs)) else {
            continue;
        };
        if ins.len != back {
            continue;
        }
        let hit = ins.mem.iter().any(|m| {
            m.addr.is_some()
                && m.touches(addr, len)
                && match kind {
                    Kind::Write => m.write,
                    _ => true,
                }
        });
        if hit {
            out.push(ins);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn finds_the_instruction_before_the_trap() {
        // 0x1000: push %rbp (1); mov %rsp,%rbp (3);
        // movl $0x2a,0x2ee4(%rip) (10); pop %rbp (1); ret (1)
        let code = [
            0x55, 0x48, 0x89, 0xe5, 0xc7, 0x05, 0xe4, 0x2e, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00,
            0x5d, 0xc3,
        ];
        let ins = insn_ending_at(&code, 0x1000, 0x100e, None).unwrap();
        assert_eq!((ins.addr, ins.len), (0x1004, 10));
        assert_eq!(ins.text, "movl $0x2a,0x2ee4(%rip)");
        // RIP-relative: next ip 0x100e + 0x2ee4.
        assert_eq!(
            ins.mem,
            vec![MemAccess {
                addr: Some(0x3ef2),
                size: 4,
                read: false,
                write: true
            }]
        );
        assert!(ins.mem[0].touches(0x3ef0, 4) && !ins.mem[0].touches(0x3ef6, 2));
        // Not an instruction boundary.
        assert_eq!(insn_ending_at(&code, 0x1000, 0x1006, None), None);
        // Backward, without the function start: only the store touches it.
        let regs = vec![0u64; 27];
        let found = insns_ending_at_touching(&code[..14], 0x100e, &regs, 0x3ef0, 4, Kind::Write);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].addr, 0x1004);
        // Register-based operand: mov %eax,(%rbx) = 89 03, rbx at word 5.
        let mut regs = vec![0u64; 27];
        regs[5] = 0x5000;
        let ins = decode_one(&[0x89, 0x03], 0x2000, Some(&regs)).unwrap();
        assert_eq!(ins.mem[0].addr, Some(0x5000));
        assert!(ins.mem[0].write && !ins.mem[0].read);
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
