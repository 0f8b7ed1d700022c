//! ELF files as rtrace reads a traced program or library: headers,
//! sections (with decompression), `.symtab`/`.dynsym`, PLT stubs decoded
//! from `.plt`/`.plt.sec`/`.plt.got`, the load segments behind a mapping's
//! bias, rltrace's import analysis (PLT, GOT relocations, exports, soname)
//! and the kernel probe's symbol-to-file-offset lookup.
#![no_main]

#[path = "support.rs"]
mod support;

use libfuzzer_sys::fuzz_target;
use rtrace::symbols::{read_load_segments, Bytes, ElfImage, Module, ModuleKey, Symbolizer};

fuzz_target!(|data: &[u8]| {
    let bytes = Bytes::from(data.to_vec());
    if let Ok(image) = ElfImage::parse(bytes.clone()) {
        for s in &image.sections {
            let _ = image.section_reader(&s.name);
        }
        let _ = image.bias_for_mapping(support::BASE, 0, true, 4096);
    }
    let key = ModuleKey {
        path: "fuzz".into(),
        dev: 0,
        inode: 0,
    };
    let module = Module::from_bytes(key, bytes);
    let table = module.symbols();
    for s in table.symbols().iter().take(64) {
        let _ = table.lookup(s.addr);
        let _ = table.lookup(s.addr.wrapping_add(s.size));
        let _ = table.find(&s.name);
    }
    let _ = table.find("*");
    let _ = table.find("ma?n");

    let path = support::elf_file(data);
    let _ = read_load_segments(&path);
    let info = rtrace::probe::imports::analyze(&Symbolizer::new(), "fuzz", &path);
    for (name, _) in info.plt().iter().chain(info.got()).take(8) {
        let _ = rtrace::kernel::probe::file_offset(&path, name, 0);
    }
    for e in info.exports().iter().take(8) {
        let _ = rtrace::kernel::probe::file_offset(&path, &e.name, 1);
    }
    let _ = rtrace::kernel::probe::file_offset(&path, "main", u64::MAX);
});
