//! Call frame information as the unwinder evaluates it: `.eh_frame` with
//! its `.eh_frame_hdr` search table (or the index built without one) and
//! `.debug_frame`, CFA and register rules, DWARF expressions, signal-frame
//! CIEs, the frame-pointer fallback, over a stack made of fuzz bytes.
#![no_main]

#[path = "support.rs"]
mod support;

use libfuzzer_sys::fuzz_target;
use rtrace::symbols::Symbolizer;
use rtrace::unwind::cfi::{Context, ModuleCfi};
use rtrace::unwind::{InitialRegs, Unwinder, X86_64};

const STACK: u64 = 0x7ffd_0000_0000;

fuzz_target!(|data: &[u8]| {
    // The first 8 bytes pick the stack pointer's offset and the pc; the
    // rest is the ELF file, also used as the stack's contents.
    let Some((head, elf)) = support::split::<8>(data) else {
        return;
    };
    let sp_off = u64::from(u16::from_le_bytes([head[0], head[1]]) & 0xff8);
    let pc_off = u64::from(u32::from_le_bytes([head[2], head[3], head[4], head[5]]));
    let path = support::elf_file(elf);
    let map = support::map_of(&path);
    let bias = map
        .find(support::BASE)
        .and_then(|m| m.bias)
        .unwrap_or(support::BASE);
    let sym = Symbolizer::new();
    let module = sym.module_for_path(&path);

    let mut pcs: Vec<u64> = module
        .symbols()
        .symbols()
        .iter()
        .take(8)
        .map(|s| s.addr.wrapping_add(pc_off % s.size.max(1)))
        .collect();
    pcs.push(pc_off);

    let cfi = ModuleCfi::load(module.clone());
    let mut ctx = Context::new();
    for &v in &pcs {
        if let Some(found) = cfi.find(&mut ctx, v) {
            if let gimli::CfaRule::Expression(e) = found.row.cfa() {
                let _ = cfi.expression(found.source, e);
            }
        }
    }

    let mut unwinder = Unwinder::new();
    for &v in pcs.iter().take(4) {
        let mut regs = InitialRegs::empty(&X86_64);
        regs.pc = v.wrapping_add(bias);
        regs.set(X86_64.sp, Some(STACK + sp_off));
        regs.set(X86_64.fp, Some(STACK + sp_off + 16));
        let mut mem = support::FuzzMem {
            file: elf,
            stack_base: STACK,
            stack: elf.get(..8192).unwrap_or(elf),
        };
        let states = unwinder.unwind_states(&sym, &map, &regs, &mut mem, 32);
        for s in states.iter().take(4) {
            let _ = unwinder.cfa(&sym, &map, &s.regs, s.frame.is_return_address, &mut mem);
        }
    }
});
