//! Corrupt DWARF gives fewer answers, never a panic or a hang.

use super::support::{build, VARIANTS};
use rtrace::symbols::{ModuleMap, Symbolizer};
use rtrace::vars::{format_value, FrameRegs, Vars};
use std::path::Path;

/// Corrupt DWARF gives fewer answers, never a panic or a hang: random
/// bytes of the debug sections of the test program are overwritten, and
/// every lookup the tools make runs at every pc of `.text`.
#[test]
fn corrupt_dwarf_never_panics() {
    use object::{Object, ObjectSection};
    let dir = crate::common::target_dir()
        .join("tmp")
        .join("dwarf_vars_corrupt");
    std::fs::create_dir_all(&dir).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for &(variant, flags) in &VARIANTS[..4] {
        let original = std::fs::read(build(variant, flags)).unwrap();
        let file = object::File::parse(&*original).unwrap();
        let text = file.section_by_name(".text").unwrap();
        let (text_start, text_len) = (text.address(), text.size());
        let ranges: Vec<(usize, usize)> = file
            .sections()
            .filter(|s| s.name().is_ok_and(|n| n.starts_with(".debug_")))
            .filter_map(|s| s.file_range())
            .map(|(o, l)| (o as usize, l as usize))
            .filter(|r| r.1 > 0)
            .collect();
        let path = dir.join(format!("{variant}-original"));
        std::fs::write(&path, &original).unwrap();
        let read = exercise(&path, text_start, text_len);
        assert!(
            read > 50,
            "{variant}: only {read} values read from intact DWARF"
        );
        for round in 0..40 {
            let mut bytes = original.clone();
            let hits = 1 + (rand() % 24) as usize;
            for _ in 0..hits {
                let (off, len) = ranges[rand() as usize % ranges.len()];
                let at = off + rand() as usize % len;
                bytes[at] = match rand() % 4 {
                    0 => 0,
                    1 => 0xff,
                    _ => rand() as u8,
                };
            }
            let path = dir.join(format!("{variant}-{round}"));
            std::fs::write(&path, &bytes).unwrap();
            exercise(&path, text_start, text_len);
        }
    }
}

/// Every public lookup over a module mapped at 0x5555_5555_4000; returns
/// how many variables were read.
fn exercise(path: &Path, text_start: u64, text_len: u64) -> usize {
    let base = 0x5555_5555_4000u64;
    let mut map = ModuleMap::parse(&format!(
        "{base:x}-{:x} r-xp 00000000 00:00 0 {}\n",
        base + 0x10_0000,
        path.display()
    ));
    map.compute_biases();
    let vars = Vars::new(&Symbolizer::new());
    let mut mem = rtrace::engine::memory::FakeMemory::default();
    let stack = mem.put(&[0x41u8; 4096]) + 2048;
    let mut regs = rtrace::unwind::InitialRegs::empty(&rtrace::unwind::X86_64);
    for r in 0..17 {
        regs.set(r, Some(stack + u64::from(r) * 8));
    }
    let mut read = 0;
    for off in (0..text_len).step_by(3) {
        regs.pc = base + text_start + off;
        let frame = FrameRegs::new(regs.clone(), Some(stack + 64));
        let Some(scope) = vars.scope(&map, regs.pc) else {
            continue;
        };
        for f in &scope.frames {
            for v in f.params.iter().chain(&f.locals) {
                let _ = v.ty.name();
                read += usize::from(vars.read(v, &frame, &mut mem).is_ok());
                let _ = vars.lookup(&map, &frame, &mut mem, &v.name);
            }
        }
    }
    let frame = FrameRegs::new(regs, None);
    for g in [
        "config",
        "config.origin.y",
        "table[3]",
        "greeting",
        "callback",
        "GREEN",
    ] {
        if let Ok(var) = vars.global(&map, None, g) {
            let _ = format_value(&var.ty, &[0x5a; 64]);
            let _ = var.ty.name();
        }
        let _ = vars.lookup(&map, &frame, &mut mem, g);
        let _ = vars.lookup_scalar(&map, &frame, &mut mem, g);
    }
    read
}
