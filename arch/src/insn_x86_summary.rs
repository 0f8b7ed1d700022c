//! x86 instructions as [`Summary`]s (iced-x86): where control goes, the
//! RIP-relative address an operand names, and the AT&T text gdb prints
//! (`x/i`: the mnemonic padded to seven columns, lowercase hex).

use crate::insn::{Flow, Summary};
use iced_x86::{
    CodeSize, Decoder, DecoderOptions, FlowControl, Formatter, GasFormatter, Instruction, Mnemonic,
    OpKind, Register,
};

/// AT&T text as gdb's disassembler (the GNU opcodes library) prints it,
/// from iced-x86's GAS formatter with gdb's habits: lowercase hex, the
/// mnemonic padded to seven columns, encoded zero displacements shown
/// (`0x0(%rax,%rax,1)`), a scale with every index register, redundant
/// segment prefixes kept (`cs nopw`), `imul $imm,%reg,%reg` with three
/// operands, and no `q` suffix on indirect `call`/`jmp`.
pub struct GdbFormatter {
    gas: GasFormatter,
    /// The same without pseudo-ops (iced's two-operand `imul`).
    plain: GasFormatter,
}

impl Default for GdbFormatter {
    fn default() -> Self {
        let make = |pseudo: bool| {
            let mut f = GasFormatter::new();
            let o = f.options_mut();
            o.set_uppercase_hex(false);
            o.set_first_operand_char_index(7);
            o.set_small_hex_numbers_in_decimal(false);
            o.set_rip_relative_addresses(true);
            o.set_branch_leading_zeros(false);
            o.set_show_zero_displacements(true);
            o.set_always_show_scale(true);
            o.set_show_useless_prefixes(true);
            o.set_use_pseudo_ops(pseudo);
            f
        };
        GdbFormatter {
            gas: make(true),
            plain: make(false),
        }
    }
}

impl GdbFormatter {
    /// The text of `i`.
    pub fn format(&mut self, i: &Instruction) -> String {
        let mut t = String::new();
        if i.mnemonic() == Mnemonic::Imul {
            self.plain.format(i, &mut t);
        } else {
            self.gas.format(i, &mut t);
        }
        // `always_show_scale` writes `(%rbp,)` where there is no index.
        let mut t = t.replace(",)", ")");
        if matches!(
            i.flow_control(),
            FlowControl::IndirectBranch | FlowControl::IndirectCall
        ) && i.op0_kind() == OpKind::Memory
        {
            // Same width: the operand column stays.
            for (q, plain) in [("callq ", "call  "), ("jmpq ", "jmp  ")] {
                if t.starts_with(q) {
                    t.replace_range(..q.len(), plain);
                }
            }
        }
        // In 64-bit code the es/cs/ss/ds overrides do nothing; gdb prints
        // them as a prefix word (`cs nopw 0x0(%rax,%rax,1)`), not `%cs:`.
        let seg = match i.segment_prefix() {
            Register::ES => "es",
            Register::CS => "cs",
            Register::SS => "ss",
            Register::DS => "ds",
            _ => "",
        };
        let operand_seg = format!("%{seg}:");
        if !seg.is_empty() && i.code_size() == CodeSize::Code64 && t.contains(&operand_seg) {
            let t2 = t.replacen(&operand_seg, "", 1);
            let (m, ops) = t2.split_once(' ').unwrap_or((&t2, ""));
            t = format!("{:<6} {}", format!("{seg} {m}"), ops.trim_start());
        }
        t
    }
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
pub fn summary(i: &Instruction, fmt: &mut GdbFormatter) -> Summary {
    let text = fmt.format(i);
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
    let mut fmt = GdbFormatter::default();
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
        // What gdb prints for these, from its runs on the test programs.
        let cs_nopw = [0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0];
        assert_eq!(one(&cs_nopw).text, "cs nopw 0x0(%rax,%rax,1)");
        assert_eq!(one(&[0x0f, 0x1f, 0x40, 0x00]).text, "nopl   0x0(%rax)");
        let lea = [0x48, 0x8d, 0x14, 0xc5, 0, 0, 0, 0];
        assert_eq!(one(&lea).text, "lea    0x0(,%rax,8),%rdx");
        assert_eq!(
            one(&[0x48, 0x8d, 0x14, 0x00]).text,
            "lea    (%rax,%rax,1),%rdx"
        );
        assert_eq!(one(&[0x8b, 0x45, 0xf4]).text, "mov    -0xc(%rbp),%eax");
        let imul = [0x48, 0x69, 0xc0, 0x56, 0x55, 0x55, 0x55];
        assert_eq!(one(&imul).text, "imul   $0x55555556,%rax,%rax");
        let call = [0xff, 0x15, 0xa7, 0x2e, 0, 0];
        assert_eq!(one(&call).text, "call   *0x2ea7(%rip)");
        assert_eq!(one(&[0xff, 0x25, 0, 0, 0, 0]).text, "jmp    *0x0(%rip)");
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
