//! Hand-assembled aarch64 words (encodings from the Arm ARM, little-endian)
//! and what capstone-based analysis must make of them.

use super::*;
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

const IP: u64 = 0x40_1234;

fn an(word: u32) -> Analysis {
    analyze(IP, &word.to_le_bytes()).unwrap_or_else(|e| panic!("{word:#010x}: {e}"))
}

fn emu(word: u32) -> Emu {
    match an(word).plan {
        Plan::Emulate(e) => e,
        Plan::OutOfLine => panic!("{word:#010x} runs out of line"),
    }
}

fn run(word: u32, w: &mut [u64; 34], m: &mut Fake) {
    emulate(&emu(word), IP, w, m).unwrap();
}

fn x(n: usize) -> Gpr {
    Gpr {
        index: Some(n),
        wide: true,
    }
}

fn wreg(n: usize) -> Gpr {
    Gpr {
        index: Some(n),
        wide: false,
    }
}

#[test]
fn direct_branches_and_their_targets() {
    // b .+0x10
    let a = an(0x1400_0004);
    assert_eq!((a.len, a.summary.flow), (4, Flow::Jump(IP + 0x10)));
    assert_eq!(a.text, format!("b\t{:#x}", IP + 0x10));
    // bl .+0x100
    assert_eq!(an(0x9400_0040).summary.flow, Flow::Call(IP + 0x100));
    assert_eq!(emu(0x9400_0040), Emu::Bl(IP + 0x100));
    // b.ne .+8 (cond 1 = ne)
    assert_eq!(an(0x5400_0041).summary.flow, Flow::CondJump(IP + 8));
    assert_eq!(
        emu(0x5400_0041),
        Emu::BCond(Arm64CC::ARM64_CC_NE as u8, IP + 8)
    );
    // cbz x0, .+0x20; cbnz w1, .-4
    let cbz = Emu::Cbz {
        reg: x(0),
        nonzero: false,
        target: IP + 0x20,
    };
    assert_eq!(emu(0xb400_0100), cbz);
    let cbnz = Emu::Cbz {
        reg: wreg(1),
        nonzero: true,
        target: IP - 4,
    };
    assert_eq!(emu(0x35ff_ffe1), cbnz);
    // tbz w2, #3, .+0xc; tbnz x3, #33, .+8
    let tbz = Emu::Tbz {
        reg: wreg(2),
        bit: 3,
        nonzero: false,
        target: IP + 0xc,
    };
    assert_eq!(emu(0x3618_0062), tbz);
    let tbnz = Emu::Tbz {
        reg: x(3),
        bit: 33,
        nonzero: true,
        target: IP + 8,
    };
    assert_eq!(emu(0xb708_0043), tbnz);
    assert_eq!(an(0xb708_0043).summary.flow, Flow::CondJump(IP + 8));
}

#[test]
fn register_branches() {
    assert_eq!(an(0xd65f_03c0).summary.flow, Flow::Ret);
    assert_eq!(emu(0xd65f_03c0), Emu::Ret(x(30)));
    assert_eq!(an(0xd61f_0200).summary.flow, Flow::IndirectJump);
    assert_eq!(emu(0xd61f_0200), Emu::Br(x(16)));
    assert_eq!(an(0xd63f_0100).summary.flow, Flow::IndirectCall);
    assert_eq!(emu(0xd63f_0100), Emu::Blr(x(8)));
    // retaa: pointer authentication, refused.
    assert!(matches!(
        analyze(IP, &0xd65f_0bffu32.to_le_bytes()),
        Err(InsnError::Refused(_))
    ));
}

#[test]
fn pc_relative_data() {
    // adr x0, .+0x10
    let a = an(0x1000_0080);
    assert_eq!(
        (a.summary.pc_rel, a.summary.flow),
        (Some(IP + 0x10), Flow::Next)
    );
    assert_eq!(
        a.plan,
        Plan::Emulate(Emu::Adr {
            reg: x(0),
            value: IP + 0x10
        })
    );
    // adrp x1, page+2
    let adrp = Emu::Adr {
        reg: x(1),
        value: (IP & !0xfff) + 0x2000,
    };
    assert_eq!(emu(0xd000_0001), adrp);
    // ldr x2, .+0x40; ldr w3, .+8; ldrsw x4, .+4
    let l = Emu::LdrLit {
        reg: x(2),
        addr: IP + 0x40,
        size: 8,
        signed: false,
    };
    assert_eq!(emu(0x5800_0202), l);
    let l = Emu::LdrLit {
        reg: wreg(3),
        addr: IP + 8,
        size: 4,
        signed: false,
    };
    assert_eq!(emu(0x1800_0043), l);
    let l = Emu::LdrLit {
        reg: x(4),
        addr: IP + 4,
        size: 4,
        signed: true,
    };
    assert_eq!(emu(0x9800_0024), l);
    // prfm pldl1keep, .+8: a hint.
    assert_eq!(an(0xd800_0040).summary.pc_rel, Some(IP + 8));
    assert_eq!(emu(0xd800_0040), Emu::Nop);
    // ldr q0, .+8: a vector register, refused.
    assert!(matches!(
        analyze(IP, &0x9c00_0040u32.to_le_bytes()),
        Err(InsnError::Refused(_))
    ));
}

#[test]
fn everything_else_runs_out_of_line() {
    // ldr w0, [x1]; add x0, x1, #1; stp x29, x30, [sp, #-16]!; svc #0
    for word in [0xb940_0020u32, 0x9100_0420, 0xa9bf_7bfd, 0xd400_0001] {
        let a = an(word);
        assert_eq!(
            (a.plan, a.summary.pc_rel),
            (Plan::OutOfLine, None),
            "{}",
            a.text
        );
        assert_eq!(
            a.summary.flow,
            if word == 0xd400_0001 {
                Flow::Other
            } else {
                Flow::Next
            }
        );
    }
    assert_eq!(an(0xb940_0020).text, "ldr\tw0, [x1]");
    // brk #0 is refused; a short buffer does not decode.
    assert!(analyze(IP, &0xd420_0000u32.to_le_bytes()).is_err());
    assert_eq!(analyze(IP, &[0x20, 0]).err(), Some(InsnError::Invalid));
}

#[test]
fn emulation_moves_pc_and_registers() {
    let mut w = [0u64; 34];
    let mut m = Fake::default();
    run(0x9400_0040, &mut w, &mut m); // bl
    assert_eq!((w[PC], w[LR]), (IP + 0x100, IP + 4));
    run(0x5400_0041, &mut w, &mut m); // b.ne, Z clear: taken
    assert_eq!(w[PC], IP + 8);
    w[PSTATE] = 1 << 30;
    run(0x5400_0041, &mut w, &mut m); // Z set: not taken
    assert_eq!(w[PC], IP + 4);
    w[1] = 0xffff_ffff_0000_0000; // cbnz w1 sees zero in the low half
    run(0x35ff_ffe1, &mut w, &mut m);
    assert_eq!(w[PC], IP + 4);
    w[3] = 1 << 33; // tbnz x3, #33: taken
    run(0xb708_0043, &mut w, &mut m);
    assert_eq!(w[PC], IP + 8);
    w[8] = 0x5000; // blr x8
    run(0xd63f_0100, &mut w, &mut m);
    assert_eq!((w[PC], w[LR]), (0x5000, IP + 4));
    run(0xd65f_03c0, &mut w, &mut m); // ret
    assert_eq!(w[PC], IP + 4);
    m.0.insert(IP + 4, 0x8000_0000_ffff_fffe);
    run(0x9800_0024, &mut w, &mut m); // ldrsw x4
    assert_eq!(w[4], (-2i64) as u64);
    // ldr w3 with nothing mapped: a fault, and nothing changed.
    let before = w;
    assert_eq!(
        emulate(&emu(0x1800_0043), IP, &mut w, &mut m),
        Err(EmuFault(IP + 8))
    );
    assert_eq!(w, before);
}
