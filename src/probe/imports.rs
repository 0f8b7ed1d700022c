//! What one ELF module offers rltrace: its soname, the PLT stubs it calls
//! library functions through, the functions it calls through its GOT with
//! no stub (`-fno-plt`), and the functions it exports (for `-x` and `-l`).
//!
//! Parsed once per file and shared by every process that maps it. PLT stub
//! addresses come from the symbolizer (`name@plt`, decoded from `.plt`,
//! `.plt.sec` and `.plt.got` by `crate::symbols`); GOT imports are the
//! `R_X86_64_GLOB_DAT` relocations of undefined function symbols not
//! already called through a stub.

use crate::symbols::{Module, Symbolizer};
use object::elf::{PT_INTERP, STT_FUNC, STT_GNU_IFUNC};
use object::read::elf::{ElfFile64, FileHeader, ProgramHeader, Sym};
use object::{
    Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationFlags, RelocationTarget,
};
use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// `R_X86_64_GLOB_DAT`.
const R_GLOB_DAT: u32 = 6;
/// `DT_SONAME`.
const DT_SONAME: u64 = 14;
/// `DT_NEEDED`.
const DT_NEEDED: u64 = 1;
/// `DT_FLAGS_1`.
const DT_FLAGS_1: u64 = 0x6fff_fffb;
/// `DF_1_PIE` in `DT_FLAGS_1`.
const DF_1_PIE: u64 = 0x0800_0000;

/// An exported function.
#[derive(Clone, Debug)]
pub struct Export {
    /// Its name.
    pub name: String,
    /// Its file virtual address.
    pub vaddr: u64,
    /// An indirect function (its address is a resolver, not the code).
    pub ifunc: bool,
}

/// The parts of one module rltrace uses. Exports and static symbols are
/// read on first use: only `-x` and `-l` need them, and a library's
/// (libc's thousands of names) would otherwise stay on the heap for the
/// whole run.
#[derive(Clone, Debug, Default)]
pub struct ModInfo {
    /// `DT_SONAME`, or the file name when there is none (executables).
    pub soname: String,
    /// PLT stubs and GOT-only calls ([`ModInfo::plt`], [`ModInfo::got`]).
    calls: OnceLock<Calls>,
    /// Defined dynamic function symbols ([`ModInfo::exports`]).
    exports: OnceLock<Vec<Export>>,
    /// Function symbols of the symbol tables ([`ModInfo::statics`]).
    statics: OnceLock<Vec<(String, u64)>>,
    /// The module, for what is read on first use.
    module: Option<Arc<Module>>,
    /// Statically linked: no program interpreter, no `DT_NEEDED`, and no
    /// dynamic section (so no `.dynsym`: what ltrace refuses) or a static
    /// PIE's (`DF_1_PIE`). Such a program calls no library through a PLT or
    /// GOT. (The dynamic linker run as a program has a dynamic section but
    /// no `DF_1_PIE`.)
    pub static_linked: bool,
}

/// The calls a module makes to other modules.
#[derive(Clone, Debug, Default)]
struct Calls {
    /// PLT stubs: (function name, file virtual address of the stub).
    plt: Vec<(String, u64)>,
    /// Calls through the GOT with no stub: (function name, file virtual
    /// address of the GOT slot).
    got: Vec<(String, u64)>,
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

impl ModInfo {
    /// PLT stubs: (function name, file virtual address of the stub). Read
    /// on first use, like [`ModInfo::got`]: a module whose calls no filter
    /// can select (libc's, under ltrace's default `@MAIN`) is never read.
    pub fn plt(&self) -> &[(String, u64)] {
        &self.calls().plt
    }

    /// Calls through the GOT with no stub: (function name, file virtual
    /// address of the GOT slot).
    pub fn got(&self) -> &[(String, u64)] {
        &self.calls().got
    }

    fn calls(&self) -> &Calls {
        self.calls
            .get_or_init(|| self.module.as_deref().map(calls_of).unwrap_or_default())
    }

    /// Defined dynamic function symbols (for `-x` and `-l`).
    pub fn exports(&self) -> &[Export] {
        self.exports.get_or_init(|| {
            let Some(image) = self.module.as_ref().and_then(|m| m.image()) else {
                return Vec::new();
            };
            match ElfFile64::<object::Endianness>::parse(image.data()) {
                Ok(elf) => exports_of(&elf),
                Err(_) => Vec::new(),
            }
        })
    }

    /// Function symbols of the static and dynamic symbol tables, PLT stubs
    /// left out (for `-x` in the main program): (name, file virtual
    /// address).
    pub fn statics(&self) -> &[(String, u64)] {
        self.statics.get_or_init(|| {
            let Some(m) = &self.module else {
                return Vec::new();
            };
            m.symbols()
                .symbols()
                .iter()
                .filter(|s| !s.name.contains('@'))
                .map(|s| (s.name.clone(), s.addr))
                .collect()
        })
    }
}

/// Reads module `open` (displayed as `path`): its name and whether it is
/// statically linked now, the rest on first use.
pub fn analyze(sym: &Symbolizer, path: &str, open: &Path) -> ModInfo {
    let module = sym.module_for_path(open);
    let mut info = ModInfo {
        soname: file_name(path).to_string(),
        module: Some(module.clone()),
        ..ModInfo::default()
    };
    let Some(image) = module.image() else {
        return info;
    };
    let data: &[u8] = image.data();
    let Ok(elf) = ElfFile64::<object::Endianness>::parse(data) else {
        return info;
    };
    let dynamic = dynamic_info(&elf);
    if let Some(so) = dynamic.soname {
        info.soname = so;
    }
    let interp = elf
        .elf_program_headers()
        .iter()
        .any(|ph| ph.p_type(elf.endian()) == PT_INTERP);
    info.static_linked =
        !interp && dynamic.needed == 0 && (!dynamic.present || dynamic.flags_1 & DF_1_PIE != 0);
    info
}

/// The PLT stubs and GOT-only calls of `module`.
fn calls_of(module: &Module) -> Calls {
    let mut calls = Calls::default();
    let mut stubbed = HashSet::new();
    for s in module.plt_stubs() {
        if let Some(n) = s.name.strip_suffix("@plt") {
            stubbed.insert(n.to_string());
            calls.plt.push((n.to_string(), s.addr));
        }
    }
    let Some(image) = module.image() else {
        return calls;
    };
    let data: &[u8] = image.data();
    let Ok(elf) = ElfFile64::<object::Endianness>::parse(data) else {
        return calls;
    };
    if let Some(dynsyms) = elf.dynamic_symbol_table() {
        // Weak references (`__cxa_finalize`, `__gmon_start__`) and
        // `__libc_start_main` belong to the C runtime's start-up and
        // shut-down code, not to the program; ltrace does not show them.
        let runtime: HashSet<&str> = dynsyms
            .symbols()
            .filter(|s| s.is_undefined() && (s.is_weak() || s.name() == Ok("__libc_start_main")))
            .filter_map(|s| s.name().ok())
            .collect();
        calls.plt.retain(|(n, _)| !runtime.contains(n.as_str()));
        if let Some(relocs) = elf.dynamic_relocations() {
            for (slot, r) in relocs {
                let RelocationFlags::Elf { r_type } = r.flags() else {
                    continue;
                };
                let RelocationTarget::Symbol(i) = r.target() else {
                    continue;
                };
                if r_type.0 != R_GLOB_DAT {
                    continue;
                }
                let Ok(s) = dynsyms.symbol_by_index(i) else {
                    continue;
                };
                let st_type = s.elf_symbol().st_type();
                if !s.is_undefined() || st_type != STT_FUNC {
                    continue;
                }
                if let Ok(name) = s.name() {
                    if !name.is_empty() && !stubbed.contains(name) && !runtime.contains(name) {
                        calls.got.push((name.to_string(), slot));
                    }
                }
            }
        }
    }
    calls.got.sort();
    calls.got.dedup();
    calls
}

/// The defined dynamic function symbols of `elf`.
fn exports_of(elf: &ElfFile64<object::Endianness>) -> Vec<Export> {
    let endian = elf.endian();
    let Some(dynsyms) = elf.dynamic_symbol_table() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in dynsyms.symbols() {
        let st_type = s.elf_symbol().st_type();
        if s.is_undefined() || !(st_type == STT_FUNC || st_type == STT_GNU_IFUNC) {
            continue;
        }
        let Ok(name) = s.name() else { continue };
        if name.is_empty() || !s.is_global() && !s.is_weak() {
            continue;
        }
        out.push(Export {
            name: name.to_string(),
            vaddr: s.elf_symbol().st_value(endian),
            ifunc: st_type == STT_GNU_IFUNC,
        });
    }
    out
}

/// What rltrace reads from the dynamic section.
#[derive(Default)]
struct Dynamic {
    /// `DT_SONAME`.
    soname: Option<String>,
    /// How many `DT_NEEDED` entries.
    needed: usize,
    /// `DT_FLAGS_1`.
    flags_1: u64,
    /// There is a dynamic section.
    present: bool,
}

/// The dynamic section's entries rltrace uses (none without one).
fn dynamic_info(elf: &ElfFile64<object::Endianness>) -> Dynamic {
    let mut d = Dynamic::default();
    let Some(dynamic) = elf.section_by_name(".dynamic").and_then(|s| s.data().ok()) else {
        return d;
    };
    d.present = true;
    let dynstr = elf
        .section_by_name(".dynstr")
        .and_then(|s| s.data().ok())
        .unwrap_or_default();
    let big = !elf.elf_header().is_little_endian();
    let word = |b: &[u8]| {
        let a: [u8; 8] = b.try_into().unwrap_or_default();
        if big {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        }
    };
    for e in dynamic.chunks_exact(16) {
        let (tag, val) = (word(&e[..8]), word(&e[8..]));
        if tag == 0 {
            break;
        }
        match tag {
            DT_SONAME => {
                let s = dynstr.get(val as usize..).unwrap_or_default();
                if let Some(end) = s.iter().position(|&c| c == 0) {
                    d.soname = Some(String::from_utf8_lossy(&s[..end]).into_owned());
                }
            }
            DT_NEEDED => d.needed += 1,
            DT_FLAGS_1 => d.flags_1 = val,
            _ => {}
        }
    }
    d
}
