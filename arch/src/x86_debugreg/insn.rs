//! x86_64 instruction decoding for watchpoint reports: the instruction that
//! ended at a trap's pc and the memory each instruction touches.

use super::Kind;

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
    use iced_x86::{Decoder, DecoderOptions, InstructionInfoFactory, OpAccess};
    let mut dec = Decoder::with_ip(64, bytes, addr, DecoderOptions::NONE);
    let ins = dec.decode();
    if ins.is_invalid() {
        return None;
    }
    // As gdb's x/i prints it.
    let text = crate::insn_x86_summary::GdbFormatter::default().format(&ins);
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
        assert_eq!(ins.text, "movl   $0x2a,0x2ee4(%rip)");
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
}
