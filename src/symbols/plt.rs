//! PLT stub names (`malloc@plt`).
//!
//! Neither the symbol tables nor the object crate give PLT stub addresses, so
//! the stubs in `.plt`, `.plt.sec` and `.plt.got` are decoded: each jumps
//! through one GOT slot, and the dynamic relocation of that slot
//! (`JUMP_SLOT` in `.rela.plt`, `GLOB_DAT` for `.plt.got`) names the
//! function. Instruction forms are per architecture; only the indirect jump
//! matters, so a short pattern decoder per architecture is enough.

use super::elf::ElfImage;
use super::symbol::Symbol;
use object::{Object, ObjectSymbol, ObjectSymbolTable, RelocationFlags, RelocationTarget};
use std::collections::HashMap;

const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;

/// Per-architecture facts about PLT stubs.
struct PltArch {
    machine: u16,
    /// Relocation types of GOT slots that PLT stubs jump through.
    slot_relocs: &'static [u32],
    /// Step between possible stub starts.
    step: usize,
    /// Decodes a stub at `code` (at file address `addr`): the GOT slot it
    /// jumps through.
    decode: fn(code: &[u8], addr: u64) -> Option<u64>,
}

static ARCHES: &[PltArch] = &[
    PltArch {
        machine: EM_X86_64,
        // R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT
        slot_relocs: &[6, 7],
        step: 8,
        decode: decode_x86_64,
    },
    PltArch {
        machine: EM_AARCH64,
        // R_AARCH64_GLOB_DAT, R_AARCH64_JUMP_SLOT
        slot_relocs: &[1025, 1026],
        step: 4,
        decode: decode_aarch64,
    },
];

/// The synthesized `name@plt` symbols of `image` (empty for architectures
/// without a decoder).
pub fn plt_symbols(image: &ElfImage) -> Vec<Symbol> {
    let Some(arch) = ARCHES.iter().find(|a| a.machine == image.machine) else {
        return Vec::new();
    };
    let slots = got_slot_names(image, arch.slot_relocs);
    if slots.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for name in [".plt", ".plt.sec", ".plt.got"] {
        let Some(info) = image.section(name) else {
            continue;
        };
        let Ok(Some(reader)) = image.section_reader(name) else {
            continue;
        };
        let code: &[u8] = &reader;
        let entsize = match info.entsize {
            8 | 16 | 24 | 32 => info.entsize,
            _ => 16,
        };
        let mut pos = 0;
        while pos < code.len() {
            let addr = info.addr + pos as u64;
            match (arch.decode)(&code[pos..], addr).and_then(|slot| slots.get(&slot)) {
                Some(target) => {
                    out.push(Symbol {
                        addr,
                        size: entsize.min((code.len() - pos) as u64),
                        name: format!("{target}@plt"),
                        global: false,
                    });
                    pos += entsize as usize;
                }
                None => pos += arch.step,
            }
        }
    }
    out
}

/// GOT slot address -> name of the function the slot's relocation binds.
fn got_slot_names(image: &ElfImage, kinds: &[u32]) -> HashMap<u64, String> {
    let mut map = HashMap::new();
    let Ok(file) = object::File::parse(&**image.data()) else {
        return map;
    };
    let (Some(relocs), Some(dynsyms)) = (file.dynamic_relocations(), file.dynamic_symbol_table())
    else {
        return map;
    };
    for (slot, reloc) in relocs {
        let RelocationFlags::Elf { r_type } = reloc.flags() else {
            continue;
        };
        if !kinds.contains(&r_type.0) {
            continue;
        }
        let RelocationTarget::Symbol(index) = reloc.target() else {
            continue;
        };
        let Ok(sym) = dynsyms.symbol_by_index(index) else {
            continue;
        };
        if let Ok(name) = sym.name() {
            if !name.is_empty() {
                map.insert(slot, name.to_string());
            }
        }
    }
    map
}

/// x86_64: `[endbr64] [bnd] jmp *disp32(%rip)`.
fn decode_x86_64(code: &[u8], addr: u64) -> Option<u64> {
    let mut i = 0;
    if code.starts_with(&[0xf3, 0x0f, 0x1e, 0xfa]) {
        i += 4;
    }
    if code.get(i) == Some(&0xf2) {
        i += 1;
    }
    if code.get(i..i + 2)? != [0xff, 0x25] {
        return None;
    }
    let disp = i32::from_le_bytes(code.get(i + 2..i + 6)?.try_into().ok()?);
    let next = addr + i as u64 + 6;
    Some(next.wrapping_add(disp as i64 as u64))
}

/// aarch64: `[bti c] adrp x16, page; ldr x17, [x16, #off]; ...; br x17`.
fn decode_aarch64(code: &[u8], addr: u64) -> Option<u64> {
    let word = |i: usize| -> Option<u32> {
        Some(u32::from_le_bytes(
            code.get(i * 4..i * 4 + 4)?.try_into().ok()?,
        ))
    };
    let mut i = 0;
    if word(0)? == 0xd503_245f {
        i = 1;
    }
    let adrp = word(i)?;
    // adrp x16
    if adrp & 0x9f00_001f != 0x9000_0010 {
        return None;
    }
    let ldr = word(i + 1)?;
    // ldr x17, [x16, #imm12*8]
    if ldr & 0xffc0_03ff != 0xf940_0211 {
        return None;
    }
    let immlo = u64::from((adrp >> 29) & 3);
    let immhi = u64::from((adrp >> 5) & 0x7ffff);
    let imm = ((immhi << 2 | immlo) << 43) as i64 >> 31; // sign-extend 21 bits, << 12
    let pc = addr + 4 * i as u64;
    let page = (pc & !0xfff).wrapping_add(imm as u64);
    let off = u64::from((ldr >> 10) & 0xfff) * 8;
    Some(page + off)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_64_stub_forms() {
        // jmp *0x2fe2(%rip) at 0x1030: slot = 0x1036 + 0x2fe2
        assert_eq!(
            decode_x86_64(&[0xff, 0x25, 0xe2, 0x2f, 0, 0, 0x68, 0], 0x1030),
            Some(0x4018)
        );
        // endbr64; bnd jmp *0x2fa5(%rip)
        let sec = [0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xa5, 0x2f, 0, 0];
        assert_eq!(decode_x86_64(&sec, 0x1060), Some(0x1060 + 11 + 0x2fa5));
        // PLT0 (push) and truncated input are not stubs.
        assert_eq!(decode_x86_64(&[0xff, 0x35, 1, 2, 3, 4], 0), None);
        assert_eq!(decode_x86_64(&[0xff, 0x25, 1], 0), None);
        assert_eq!(decode_x86_64(&[], 0), None);
    }

    #[test]
    fn aarch64_stub() {
        // adrp x16, 0x11000 (from 0x400); ldr x17, [x16, #0x18]; add; br x17
        let adrp: u32 = 0x9000_0010 | (0x11 << 5); // immhi=0x11 -> 0x11 pages
        let ldr: u32 = 0xf940_0211 | (3 << 10);
        let mut code = Vec::new();
        code.extend_from_slice(&adrp.to_le_bytes());
        code.extend_from_slice(&ldr.to_le_bytes());
        assert_eq!(decode_aarch64(&code, 0x400), Some(0x44000 + 0x18));
        assert_eq!(decode_aarch64(&code[..6], 0x400), None);
    }
}
