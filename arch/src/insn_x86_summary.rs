//! x86 instructions as [`Summary`]s (iced-x86): where control goes, the
//! RIP-relative address an operand names, and the AT&T text gdb prints
//! (`x/i`: the mnemonic padded to seven columns, lowercase hex).

use crate::insn::{Flow, Summary};
use iced_x86::{
    Decoder, DecoderOptions, FlowControl, Formatter, GasFormatter, Instruction, OpKind,
};

/// A GAS formatter set up as gdb's disassembler prints.
pub fn gdb_formatter() -> GasFormatter {
    let mut f = GasFormatter::new();
    let o = f.options_mut();
    o.set_uppercase_hex(false);
    o.set_first_operand_char_index(7);
    o.set_small_hex_numbers_in_decimal(false);
    o.set_rip_relative_addresses(true);
    o.set_branch_leading_zeros(false);
    f
}

/// Where control goes after `i`.
pub fn flow(i: &Instruction) -> Flow {
    let near = matches!(
        i.op0_kind(),
        OpKind::NearBranch16 | OpKind::NearBranch32 | OpKind::NearBranch64
    );
    match i.flow_control() {
        FlowControl::Next => Flow::Next,
        FlowControl::UnconditionalBranch if near => Flow::Jump(i.near_branch_target()),
        FlowControl::ConditionalBranch if near => Flow::CondJump(i.near_branch_target()),
        FlowControl::Call if near => Flow::Call(i.near_branch_target()),
        FlowControl::IndirectBranch => Flow::IndirectJump,
        FlowControl::IndirectCall => Flow::IndirectCall,
        FlowControl::Return => Flow::Ret,
        _ => Flow::Other,
    }
}

/// The summary of a decoded instruction.
pub fn summary(i: &Instruction, fmt: &mut GasFormatter) -> Summary {
    let mut text = String::new();
    fmt.format(i, &mut text);
    Summary {
        addr: i.ip(),
        len: i.len(),
        flow: flow(i),
        pc_rel: i
            .is_ip_rel_memory_operand()
            .then(|| i.ip_rel_memory_address()),
        text,
    }
}

/// Decodes up to `max` instructions of `bitness`-bit code.
pub fn summaries(bitness: u32, addr: u64, bytes: &[u8], max: usize) -> Vec<Summary> {
    let mut d = Decoder::with_ip(bitness, bytes, addr, DecoderOptions::NONE);
    let mut fmt = gdb_formatter();
    let mut out = Vec::new();
    while out.len() < max && d.can_decode() {
        let i = d.decode();
        if i.is_invalid() {
            break;
        }
        out.push(summary(&i, &mut fmt));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(bytes: &[u8]) -> Summary {
        summaries(64, 0x401000, bytes, 1).pop().unwrap()
    }

    #[test]
    fn text_is_gdbs() {
        assert_eq!(one(&[0x55]).text, "push   %rbp");
        assert_eq!(one(&[0x48, 0x89, 0xe5]).text, "mov    %rsp,%rbp");
        assert_eq!(one(&[0xb8, 0, 0, 0, 0]).text, "mov    $0x0,%eax");
        assert_eq!(one(&[0xf3, 0x0f, 0x1e, 0xfa]).text, "endbr64");
        assert_eq!(one(&[0x48, 0x83, 0xec, 0x1a]).text, "sub    $0x1a,%rsp");
    }

    #[test]
    fn flows_and_targets() {
        assert_eq!(one(&[0xe8, 0x10, 0, 0, 0]).flow, Flow::Call(0x401015));
        assert_eq!(one(&[0xeb, 0xfe]).flow, Flow::Jump(0x401000));
        assert_eq!(one(&[0x74, 0x02]).flow, Flow::CondJump(0x401004));
        assert_eq!(one(&[0xe2, 0x00]).flow, Flow::CondJump(0x401002)); // loop
        assert_eq!(one(&[0xff, 0xd0]).flow, Flow::IndirectCall);
        assert_eq!(one(&[0xff, 0xe0]).flow, Flow::IndirectJump);
        assert_eq!(one(&[0xc3]).flow, Flow::Ret);
        assert_eq!(one(&[0xcc]).flow, Flow::Other);
        assert_eq!(one(&[0x0f, 0x05]).flow, Flow::Other);
        // lea 0x100(%rip),%rax names 0x401107.
        let lea = one(&[0x48, 0x8d, 0x05, 0x00, 0x01, 0x00, 0x00]);
        assert_eq!((lea.pc_rel, lea.flow), (Some(0x401107), Flow::Next));
    }
}
