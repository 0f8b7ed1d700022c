//! DWARF through the symbol layer, as `rstrace -k`, `rtrace break` and
//! `rtrace watch` use it on a traced program: line tables and inline
//! chains (addr2line), `file:line` to addresses, and the variables layer
//! (scopes, parameters and locals, their locations and types, values read
//! from a fake memory, globals with member/element paths, the post-prologue
//! address).
#![no_main]

#[path = "support.rs"]
mod support;

use libfuzzer_sys::fuzz_target;
use rtrace::symbols::Symbolizer;
use rtrace::unwind::{InitialRegs, X86_64};
use rtrace::vars::{FrameRegs, Vars};

const STACK: u64 = 0x7ffd_0000_0000;

fuzz_target!(|data: &[u8]| {
    let path = support::elf_file(data);
    let map = support::map_of(&path);
    let bias = map.find(support::BASE).and_then(|m| m.bias).unwrap_or(0);
    let sym = Symbolizer::new();
    let module = sym.module_for_path(&path);

    // Addresses to look at: function starts and a byte past them.
    let mut vaddrs: Vec<u64> = module
        .symbols()
        .symbols()
        .iter()
        .take(16)
        .flat_map(|s| {
            [
                s.addr,
                s.addr.wrapping_add(1),
                s.addr.wrapping_add(s.size / 2),
            ]
        })
        .collect();
    if vaddrs.is_empty() {
        vaddrs.extend([0x1000, 0x1139]);
    }

    let mut files = Vec::new();
    if let Some(d) = module.dwarf() {
        for &v in &vaddrs {
            if let Ok(frames) = d.frames(v) {
                files.extend(frames.into_iter().filter_map(|f| Some((f.file?, f.line?))));
            }
        }
        files.truncate(8);
        for (file, line) in &files {
            let _ = d.lines_to_addresses(file, *line);
            let _ = d.lines_to_addresses(file, line.wrapping_add(1));
        }
        let _ = d.lines_to_addresses("x.c", 1);
    }

    let vars = Vars::new(&sym);
    let mut names = Vec::new();
    for &v in vaddrs.iter().take(12) {
        let pc = v.wrapping_add(bias);
        let _ = sym.symbolize(&map, pc);
        let _ = sym.symbolize_return_address(&map, pc);
        let _ = vars.after_prologue(&map, pc);
        let mut regs = InitialRegs::empty(&X86_64);
        regs.pc = pc;
        for n in 0..17 {
            regs.set(n, Some(STACK + 64 * u64::from(n)));
        }
        let frame = FrameRegs::new(regs, Some(STACK + 0x100));
        let mut mem = support::FuzzMem {
            file: data,
            stack_base: STACK,
            stack: data.get(..4096).unwrap_or(data),
        };
        let Some(scope) = vars.scope(&map, pc) else {
            continue;
        };
        for f in &scope.frames {
            if let Some(t) = &f.return_type {
                let _ = (t.name(), t.size(), t.kind());
            }
            for var in f.params.iter().chain(&f.locals).take(16) {
                let _ = (var.ty.name(), var.ty.size());
                let _ = vars.read(var, &frame, &mut mem);
                let _ = vars.lookup_scalar(&map, &frame, &mut mem, &var.name);
                names.push(var.name.clone());
            }
        }
        for n in names.iter().take(4) {
            let _ = vars.lookup(&map, &frame, &mut mem, &format!("{n}[1]"));
            let _ = vars.lookup(&map, &frame, &mut mem, &format!("{n}->a.b"));
        }
    }
    for n in names
        .iter()
        .take(4)
        .map(String::as_str)
        .chain(["counter", "g.x[2]"])
    {
        let _ = vars.global(&map, None, n);
    }
});
