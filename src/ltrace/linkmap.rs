//! The dynamic linker's list of loaded objects, for `-w` frame names.
//!
//! ltrace names a frame's module as the dynamic linker named the object
//! (`l_name` of its `struct link_map`: the path as it was searched, such
//! as `DIR/sub/../libx.so` or a symlink), not as `/proc/PID/maps` names
//! the file (the resolved path). The list is reached through the main
//! program's `DT_DEBUG` entry, which the linker points at its
//! `struct r_debug`; it is read when the module map is (once per library
//! load), never per call. Layouts are LP64 (x86-64, the only
//! architecture of the ptrace backend's calls).

use crate::engine::memory::proc::ProcMem;
use crate::engine::memory::Memory;
use crate::symbols::ModuleMap;
use object::elf::{DT_DEBUG, DT_NULL, PT_DYNAMIC, PT_PHDR};
use std::collections::HashMap;

/// `sizeof(Elf64_Phdr)`, `sizeof(Elf64_Dyn)`.
const PHDR_SIZE: u64 = 56;
const DYN_SIZE: u64 = 16;
/// Offsets in `struct r_debug` (`r_map`) and `struct link_map`.
const R_MAP: u64 = 8;
const L_NAME: u64 = 8;
const L_LD: u64 = 16;
const L_NEXT: u64 = 24;
/// Bounds against a corrupt list.
const MAX_OBJECTS: usize = 4096;
const MAX_DYN: u64 = 512;
const MAX_NAME: usize = 4096;

fn word(mem: &mut ProcMem, addr: u64) -> Option<u64> {
    let mut b = [0u8; 8];
    (mem.read(addr, &mut b) == 8).then(|| u64::from_le_bytes(b))
}

fn c_string(mem: &mut ProcMem, addr: u64) -> Option<String> {
    let mut buf = vec![0u8; MAX_NAME];
    let n = mem.read(addr, &mut buf);
    let end = buf[..n].iter().position(|&c| c == 0)?;
    Some(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// The address of the linker's `struct r_debug`: the value of the main
/// program's `DT_DEBUG`, found from its program headers (`AT_PHDR`,
/// `AT_PHNUM`). None before the linker has set it.
fn r_debug(mem: &mut ProcMem, phdr: u64, phnum: u64) -> Option<u64> {
    let (mut bias, mut dynamic) = (None, None);
    for i in 0..phnum.min(256) {
        let at = phdr + i * PHDR_SIZE;
        let mut h = [0u8; PHDR_SIZE as usize];
        if mem.read(at, &mut h) != h.len() {
            return None;
        }
        let p_type = u32::from_le_bytes(h[0..4].try_into().ok()?);
        let p_vaddr = u64::from_le_bytes(h[16..24].try_into().ok()?);
        if p_type == PT_PHDR.0 {
            bias = Some(phdr.wrapping_sub(p_vaddr));
        } else if p_type == PT_DYNAMIC.0 {
            dynamic = Some(p_vaddr);
        }
    }
    let dynamic = dynamic?.wrapping_add(bias?);
    for i in 0..MAX_DYN {
        let tag = word(mem, dynamic + i * DYN_SIZE)?;
        if tag as i64 == DT_NULL.0 {
            return None;
        }
        if tag as i64 == DT_DEBUG.0 {
            return word(mem, dynamic + i * DYN_SIZE + 8).filter(|&v| v != 0);
        }
    }
    None
}

/// Each loaded object's `l_name` by the path `map` gives the file that
/// holds its dynamic section (`l_ld`); objects without a name (the main
/// program) are left out. Empty when the list cannot be read.
pub fn names_by_path(pid: i32, phdr: u64, phnum: u64, map: &ModuleMap) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut mem = ProcMem::new(pid);
    let Some(rd) = r_debug(&mut mem, phdr, phnum) else {
        return out;
    };
    let mut lm = word(&mut mem, rd + R_MAP).unwrap_or(0);
    for _ in 0..MAX_OBJECTS {
        if lm == 0 {
            break;
        }
        let name = word(&mut mem, lm + L_NAME).and_then(|a| c_string(&mut mem, a));
        let ld = word(&mut mem, lm + L_LD);
        if let (Some(name), Some(ld)) = (name, ld) {
            if let Some(m) = map.find(ld).filter(|_| !name.is_empty()) {
                out.entry(m.path.clone()).or_insert(name);
            }
        }
        lm = word(&mut mem, lm + L_NEXT).unwrap_or(0);
    }
    out
}
