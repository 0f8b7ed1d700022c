//! A seccomp-bpf filter that makes only traced syscalls stop.
//!
//! The program loads `seccomp_data.arch`, picks the section for that
//! personality, and within it tests the syscall number against the traced
//! numbers as sorted ranges: three instructions per range with only short
//! forward jumps, so any set fits the 8-bit jump offsets. Unknown
//! architectures (and x32 calls) are always traced, so nothing is missed.

use rtrace_arch::Arch;

const BPF_LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const BPF_JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const BPF_JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const BPF_JGT_K: u16 = 0x25; // BPF_JMP | BPF_JGT | BPF_K
const BPF_JSET_K: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const BPF_JA: u16 = 0x05; // BPF_JMP | BPF_JA
const BPF_RET_K: u16 = 0x06; // BPF_RET | BPF_K

/// `SECCOMP_RET_TRACE`: stop for the tracer.
pub const RET_TRACE: u32 = 0x7ff0_0000;
/// `SECCOMP_RET_ALLOW`.
pub const RET_ALLOW: u32 = 0x7fff_0000;

const X32_SYSCALL_BIT: u32 = 0x4000_0000;

pub use crate::sys::seccomp::{install, Insn};

fn insn(code: u16, jt: u8, jf: u8, k: u32) -> Insn {
    Insn { code, jt, jf, k }
}

/// Sorted inclusive ranges covering `nrs`.
fn ranges(nrs: &[u32]) -> Vec<(u32, u32)> {
    let mut v = nrs.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for n in v {
        match out.last_mut() {
            Some(r) if r.1 + 1 == n => r.1 = n,
            _ => out.push((n, n)),
        }
    }
    out
}

fn section(arch: Arch, nrs: &[u32]) -> Vec<Insn> {
    let mut p = vec![insn(BPF_LD_W_ABS, 0, 0, 0)]; // seccomp_data.nr
    if arch == Arch::X86_64 {
        // x32 calls share the arch token; trace them all rather than guess.
        p.push(insn(BPF_JSET_K, 0, 1, X32_SYSCALL_BIT));
        p.push(insn(BPF_RET_K, 0, 0, RET_TRACE));
    }
    for (lo, hi) in ranges(nrs) {
        p.push(insn(BPF_JGE_K, 0, 2, lo)); // below: next range
        p.push(insn(BPF_JGT_K, 1, 0, hi)); // above: next range
        p.push(insn(BPF_RET_K, 0, 0, RET_TRACE));
    }
    // Numbers past the table are calls rtrace cannot name: strace traces
    // those whatever the filter, so they must stop.
    p.push(insn(BPF_JGE_K, 0, 1, arch.table_len() as u32));
    p.push(insn(BPF_RET_K, 0, 0, RET_TRACE));
    p.push(insn(BPF_RET_K, 0, 0, RET_ALLOW));
    p
}

/// Builds the filter: for each personality, the syscall numbers to trace.
pub fn build(sets: &[(Arch, Vec<u32>)]) -> Vec<Insn> {
    let sections: Vec<(Arch, Vec<Insn>)> = sets.iter().map(|(a, n)| (*a, section(*a, n))).collect();
    let mut p = vec![insn(BPF_LD_W_ABS, 0, 0, 4)]; // seccomp_data.arch
                                                   // Dispatch: one JEQ per arch, each followed by a long jump to its section.
    let n = sections.len();
    let mut offset_to_section = 0u32;
    // Layout: [jeq a0; ja s0] [jeq a1; ja s1] ... [ret TRACE] s0 s1 ...
    for (i, (arch, _)) in sections.iter().enumerate() {
        p.push(insn(BPF_JEQ_K, 0, 1, arch.audit_arch()));
        // From the JA (at index 2i+2 relative), jump over the remaining
        // dispatch pairs, the RET, and the sections before this one.
        let remaining_pairs = (n - i - 1) as u32 * 2;
        p.push(insn(BPF_JA, 0, 0, remaining_pairs + 1 + offset_to_section));
        offset_to_section += sections[i].1.len() as u32;
    }
    p.push(insn(BPF_RET_K, 0, 0, RET_TRACE));
    for (_, s) in sections {
        p.extend(s);
    }
    p
}

/// Runs a filter program over `(arch, nr)` the way the kernel would: for tests.
pub fn simulate(p: &[Insn], arch: u32, nr: u32) -> u32 {
    let mut acc = 0u32;
    let mut pc = 0usize;
    loop {
        let i = p[pc];
        pc += 1;
        match i.code {
            BPF_LD_W_ABS => acc = if i.k == 4 { arch } else { nr },
            BPF_RET_K => return i.k,
            BPF_JA => pc += i.k as usize,
            BPF_JEQ_K | BPF_JGE_K | BPF_JGT_K | BPF_JSET_K => {
                let t = match i.code {
                    BPF_JEQ_K => acc == i.k,
                    BPF_JGE_K => acc >= i.k,
                    BPF_JGT_K => acc > i.k,
                    _ => acc & i.k != 0,
                };
                pc += if t { i.jt } else { i.jf } as usize;
            }
            c => panic!("unknown opcode {c:#x}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_exactly_the_set() {
        let set64 = vec![0, 1, 2, 257, 3, 59];
        let set32 = vec![5, 295];
        let p = build(&[(Arch::X86_64, set64.clone()), (Arch::I386, set32.clone())]);
        for nr in 0..500 {
            let want = if set64.contains(&nr) || nr as usize >= Arch::X86_64.table_len() {
                RET_TRACE
            } else {
                RET_ALLOW
            };
            assert_eq!(
                simulate(&p, Arch::X86_64.audit_arch(), nr),
                want,
                "x86_64 {nr}"
            );
            let want = if set32.contains(&nr) || nr as usize >= Arch::I386.table_len() {
                RET_TRACE
            } else {
                RET_ALLOW
            };
            assert_eq!(simulate(&p, Arch::I386.audit_arch(), nr), want, "i386 {nr}");
        }
        assert_eq!(simulate(&p, 0x1234, 1), RET_TRACE);
        assert_eq!(
            simulate(&p, Arch::X86_64.audit_arch(), X32_SYSCALL_BIT | 1),
            RET_TRACE
        );
    }

    #[test]
    fn large_sets_fit_jumps() {
        let all: Vec<u32> = (0..450).step_by(2).collect();
        let p = build(&[(Arch::X86_64, all.clone()), (Arch::I386, all.clone())]);
        for nr in 0..460 {
            let want = if all.contains(&nr) || nr as usize >= Arch::I386.table_len() {
                RET_TRACE
            } else {
                RET_ALLOW
            };
            assert_eq!(simulate(&p, Arch::I386.audit_arch(), nr), want);
        }
    }
}
