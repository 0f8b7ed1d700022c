//! Where gdb's prologue analyser says a function's frame is set up, for
//! placing `break FUNC` where gdb 13 places it when it does not trust the
//! compilation unit's variable locations at the entry (see
//! `rtrace::vars::prologue`).
//!
//! Scope: pure functions over a function's first bytes. Non-goals: the
//! rest of gdb's analysers (i386 register saves and PIC setup, x86 stack
//! realignment through `%r10`/`%ecx`, aarch64 instruction scanning).

use crate::Arch;

/// What the analyser found at a function's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameSetup {
    /// The frame is set up `n` bytes past the entry (0: a frameless
    /// function, used at its entry).
    At(usize),
    /// The architecture's analyser takes the end of the function's first
    /// line-table row instead of reading instructions.
    FirstRowEnd,
}

/// `endbr64`.
const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];
/// `endbr32`.
const ENDBR32: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfb];
/// `push %rbp` / `push %ebp`.
const PUSH_FP: u8 = 0x55;
/// The two encodings of `mov %rsp,%rbp`.
const MOV_SP_FP_64: [[u8; 3]; 2] = [[0x48, 0x89, 0xe5], [0x48, 0x8b, 0xec]];
/// The two encodings of `mov %esp,%ebp`.
const MOV_SP_FP_32: [[u8; 2]; 2] = [[0x89, 0xe5], [0x8b, 0xec]];

/// The frame setup of a function whose code starts with `code`: on x86,
/// past an optional `endbr`, `push` of the frame pointer followed by `mov`
/// of the stack pointer into it, the only sequence gdb's amd64 analyser
/// calls a frame (a `push` alone, or none, leaves the entry). On i386
/// gdb's analyser goes further (register saves, `sub $n,%esp`); rtrace
/// stops after the same `mov`, which lies in the same line-table row at
/// -O0, where the caller takes the next row.
pub fn frame_setup(arch: Arch, code: &[u8]) -> FrameSetup {
    match arch {
        Arch::X86_64 | Arch::I386 => FrameSetup::At(x86_frame_setup(arch, code)),
        Arch::Aarch64 => FrameSetup::FirstRowEnd,
    }
}

fn x86_frame_setup(arch: Arch, code: &[u8]) -> usize {
    let endbr = if arch == Arch::X86_64 {
        ENDBR64
    } else {
        ENDBR32
    };
    let start = if code.starts_with(&endbr) { 4 } else { 0 };
    let rest = &code[start..];
    if rest.first() != Some(&PUSH_FP) {
        return 0;
    }
    let after = &rest[1..];
    if arch == Arch::X86_64 && MOV_SP_FP_64.iter().any(|m| after.starts_with(m)) {
        return start + 1 + 3;
    }
    if MOV_SP_FP_32.iter().any(|m| after.starts_with(m)) {
        return start + 1 + 2;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_64_frame_setup_as_gdb_reads_it() {
        let at = |code: &[u8]| frame_setup(Arch::X86_64, code);
        // push %rbp; mov %rsp,%rbp; sub $0x10,%rsp
        assert_eq!(
            at(&[0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec]),
            FrameSetup::At(4)
        );
        assert_eq!(at(&[0x55, 0x48, 0x8b, 0xec]), FrameSetup::At(4));
        // endbr64 first
        assert_eq!(
            at(&[0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5]),
            FrameSetup::At(8)
        );
        // movl %esp,%ebp
        assert_eq!(at(&[0x55, 0x89, 0xe5]), FrameSetup::At(3));
        // push %rbp alone (a callee-saved register at -O2): frameless
        assert_eq!(at(&[0x55, 0x53, 0x48, 0x83, 0xec, 0x08]), FrameSetup::At(0));
        // mov 0x2ea6(%rip),%eax: frameless
        assert_eq!(at(&[0x8b, 0x05, 0xa6, 0x2e, 0, 0]), FrameSetup::At(0));
        assert_eq!(at(&[]), FrameSetup::At(0));
        assert_eq!(at(&[0x55]), FrameSetup::At(0));
    }

    #[test]
    fn i386_and_aarch64() {
        assert_eq!(
            frame_setup(Arch::I386, &[0x55, 0x89, 0xe5]),
            FrameSetup::At(3)
        );
        // 64-bit REX form is not i386 code
        assert_eq!(
            frame_setup(Arch::I386, &[0x55, 0x48, 0x89, 0xe5]),
            FrameSetup::At(0)
        );
        assert_eq!(frame_setup(Arch::Aarch64, &[0; 8]), FrameSetup::FirstRowEnd);
    }
}
