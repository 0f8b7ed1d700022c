//! Unit tests of insn_x86.rs: analysis, emulation, relocation.

use super::*;
use crate::x86_64::{reg_index, RET};
use std::collections::HashMap;

#[derive(Default)]
struct Fake(HashMap<u64, u64>);

impl Memory for Fake {
    fn read_u64(&mut self, a: u64) -> Option<u64> {
        self.0.get(&a).copied()
    }
    fn write_u64(&mut self, a: u64, v: u64) -> bool {
        self.0.insert(a, v);
        true
    }
}

fn r(n: &str) -> usize {
    reg_index(n).unwrap()
}

fn run(bytes: &[u8], w: &mut [u64; 27], mem: &mut Fake) -> Analysis {
    let a = analyze(0x1000, bytes).unwrap();
    let Plan::Emulate(e) = a.plan else {
        panic!("not emulated: {}", a.text())
    };
    emulate(&e, 0x1000, a.len, w, mem).unwrap();
    a
}

#[test]
fn prologue_forms_are_emulated() {
    let mut w = [0u64; 27];
    let mut m = Fake::default();
    w[SP] = 0x7000;
    w[r("rbp")] = 0xbbbb;
    // endbr64
    let a = run(&[0xf3, 0x0f, 0x1e, 0xfa], &mut w, &mut m);
    assert_eq!((a.len, w[PC]), (4, 0x1004));
    // push %rbp
    run(&[0x55], &mut w, &mut m);
    assert_eq!((w[SP], m.0[&0x6ff8], w[PC]), (0x6ff8, 0xbbbb, 0x1001));
    // mov %rsp,%rbp
    run(&[0x48, 0x89, 0xe5], &mut w, &mut m);
    assert_eq!((w[r("rbp")], w[PC]), (0x6ff8, 0x1003));
    // sub $0x20,%rsp
    run(&[0x48, 0x83, 0xec, 0x20], &mut w, &mut m);
    assert_eq!(w[SP], 0x6fd8);
    // push %r12 and push %rsp
    w[r("r12")] = 12;
    run(&[0x41, 0x54], &mut w, &mut m);
    assert_eq!(m.0[&0x6fd0], 12);
    run(&[0x54], &mut w, &mut m);
    assert_eq!(m.0[&0x6fc8], 0x6fd0);
    // nopl 0x0(%rax,%rax,1); 66 nop
    let a = run(&[0x0f, 0x1f, 0x44, 0x00, 0x00], &mut w, &mut m);
    assert_eq!(a.len, 5);
    run(&[0x66, 0x90], &mut w, &mut m);
    assert_eq!(w[PC], 0x1002);
    // mov $0x27,%eax
    w[RET] = u64::MAX;
    run(&[0xb8, 0x27, 0, 0, 0], &mut w, &mut m);
    assert_eq!(w[RET], 0x27);
}

#[test]
fn sub_and_add_set_flags_like_the_cpu() {
    let mut w = [0u64; 27];
    let mut m = Fake::default();
    w[SP] = 0x10;
    run(&[0x48, 0x83, 0xec, 0x10], &mut w, &mut m); // sub $0x10,%rsp
    assert_eq!(w[SP], 0);
    assert_eq!(w[FLAGS] & 0x8d5, 0x44); // ZF PF
    run(&[0x48, 0x83, 0xec, 0x01], &mut w, &mut m); // 0 - 1
    assert_eq!(w[SP], u64::MAX);
    assert_eq!(w[FLAGS] & 0x8d5, 0x95); // CF PF AF SF
    w[SP] = 0x7fff_ffff_ffff_ffff;
    run(&[0x48, 0x83, 0xc4, 0x01], &mut w, &mut m); // add $1
    assert_eq!(w[FLAGS] & 0x800, 0x800); // OF
}

#[test]
fn branches_are_emulated() {
    let mut w = [0u64; 27];
    let mut m = Fake::default();
    w[SP] = 0x7000;
    // call +0x10
    run(&[0xe8, 0x10, 0, 0, 0], &mut w, &mut m);
    assert_eq!((w[PC], w[SP], m.0[&0x6ff8]), (0x1015, 0x6ff8, 0x1005));
    // ret
    run(&[0xc3], &mut w, &mut m);
    assert_eq!((w[PC], w[SP]), (0x1005, 0x7000));
    // je -2 with ZF clear, then set
    run(&[0x74, 0xfe], &mut w, &mut m);
    assert_eq!(w[PC], 0x1002);
    w[FLAGS] = 1 << 6;
    run(&[0x74, 0xfe], &mut w, &mut m);
    assert_eq!(w[PC], 0x1000);
    // jmp *0x10(%rip) reads the pointer at 0x1016
    m.0.insert(0x1016, 0xabc);
    run(&[0xff, 0x25, 0x10, 0, 0, 0], &mut w, &mut m);
    assert_eq!(w[PC], 0xabc);
    // call *%rax
    w[RET] = 0x5000;
    run(&[0xff, 0xd0], &mut w, &mut m);
    assert_eq!((w[PC], m.0[&0x6ff8]), (0x5000, 0x1002));
}

#[test]
fn others_run_out_of_line_relocated() {
    // lea 0x100(%rip),%rax at 0x1000 moved to a slot 0x10000 further.
    let a = analyze(0x1000, &[0x48, 0x8d, 0x05, 0x00, 0x01, 0x00, 0x00]).unwrap();
    assert_eq!(a.plan, Plan::OutOfLine);
    let code = a.relocate(0x11000).unwrap();
    let mut d = Decoder::with_ip(64, &code, 0x11000, DecoderOptions::NONE);
    let i = d.decode();
    assert_eq!(i.ip_rel_memory_address(), 0x1107);
    let j = d.decode();
    assert_eq!(j.near_branch64(), 0x1007);
    // mov %rdi,(%rsi): no relocation needed, still out of line.
    let a = analyze(0x1000, &[0x48, 0x89, 0x3e]).unwrap();
    assert_eq!(a.plan, Plan::OutOfLine);
}

/// The decoded instructions of a slot's code at `slot`: (length, text,
/// branch target).
fn slot_insns(code: &[u8], slot: u64) -> Vec<(usize, String, u64)> {
    let mut d = Decoder::with_ip(64, code, slot, DecoderOptions::NONE);
    let mut out = Vec::new();
    while d.can_decode() {
        let i = d.decode();
        let mut t = String::new();
        GasFormatter::new().format(&i, &mut t);
        out.push((i.len(), t, i.near_branch_target()));
    }
    out
}

#[test]
fn position_independent_instructions_are_copied_with_a_jump_back() {
    // xor %ebp,%ebp (`_start`), mov %rdi,(%rsi), a VEX vmovdqu
    // (%rsi),%ymm0, lock cmpxchg %ecx,(%rdx): their own bytes, then
    // `jmp rel32` back, decoding as the block encoder's code does.
    let forms: [&[u8]; 4] = [
        &[0x31, 0xed],
        &[0x48, 0x89, 0x3e],
        &[0xc5, 0xfe, 0x6f, 0x06],
        &[0xf0, 0x0f, 0xb1, 0x0a],
    ];
    for bytes in forms {
        let at = 0x10_0000_0000u64;
        // A slot after the code and one before it.
        for slot in [at + 0x7000_0000, at - 0x4000_0000] {
            let a = analyze(at, bytes).unwrap();
            assert_eq!(a.plan, Plan::OutOfLine);
            let code = a.relocate(slot).unwrap();
            assert_eq!(&code[..bytes.len()], bytes);
            assert_eq!(code.len(), bytes.len() + 5);
            let back = at + bytes.len() as u64;
            let got = slot_insns(&code, slot);
            let by_encoder = slot_insns(&a.relocate_encoded(slot).unwrap(), slot);
            assert_eq!(got[0].1, by_encoder[0].1);
            assert_eq!((got[1].1.starts_with("jmp"), got[1].2), (true, back));
            assert_eq!(by_encoder[1].2, back);
        }
    }
    // Out of a rel32 jump's reach: refused, not truncated.
    let a = analyze(0x1000, &[0x31, 0xed]).unwrap();
    assert!(a.relocate(0x1_0000_1000).is_err());
}

#[test]
fn traps_are_refused() {
    assert!(analyze(0, &[0xcc]).is_err());
    assert_eq!(analyze(0, &[0x0f, 0xff]).err(), Some(InsnError::Invalid));
}
