//! [`SymbolSource`] over [`crate::symbols`] and [`crate::unwind`]: global
//! variables from the ELF symbol tables, functions and `func+off
//! (file:line)` from the shared [`Symbolizer`], load biases from the
//! process's [`ModuleMap`], backtraces from the DWARF [`Unwinder`].

use super::resolve::{FileSymbol, Place, SymbolSource};
use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use crate::symbols::{ModuleMap, Symbolizer};
use crate::unwind::{self, Unwinder};
use object::{Object, ObjectSymbol, SymbolKind};
use rtrace_arch::Arch;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The symbol source of this build.
pub fn source() -> Box<dyn SymbolSource> {
    Box::new(ElfSymbols {
        sym: Symbolizer::new(),
        maps: HashMap::new(),
        unwinder: Unwinder::new(),
    })
}

struct ElfSymbols {
    sym: Symbolizer,
    /// Module map per process, read when a watch is placed and re-read when
    /// an address falls outside every known mapping (dlopen).
    maps: HashMap<Tid, ModuleMap>,
    unwinder: Unwinder,
}

/// Deepest backtrace printed per hit.
const MAX_FRAMES: usize = 64;

/// A data object named `name` (raw name, as C spells it) in an ELF image:
/// `(file vaddr, size, is_tls)`.
fn data_object(data: &[u8], name: &str) -> Option<(u64, u64, bool)> {
    let file = object::File::parse(data).ok()?;
    file.symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.is_definition())
        .filter(|s| matches!(s.kind(), SymbolKind::Data | SymbolKind::Tls))
        .find(|s| s.name().ok() == Some(name))
        .map(|s| (s.address(), s.size(), s.kind() == SymbolKind::Tls))
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The module map of `pid` from `maps`, read first if missing or `refresh`.
fn map_of(maps: &mut HashMap<Tid, ModuleMap>, pid: Tid, refresh: bool) -> Option<&ModuleMap> {
    if refresh || !maps.contains_key(&pid) {
        let mut mem = Tracee::new(pid);
        let m = ModuleMap::from_pid(pid, &mut mem).ok()?;
        maps.insert(pid, m);
    }
    maps.get(&pid)
}

impl SymbolSource for ElfSymbols {
    fn find(&mut self, exe: &Path, name: &str, code: bool) -> Result<FileSymbol, String> {
        let exe = canonical(exe);
        let found = |vaddr, size| FileSymbol {
            path: exe.clone(),
            name: name.to_string(),
            vaddr,
            size,
        };
        let funcs = self.sym.lookup(&exe, name);
        if code {
            return match funcs.iter().find(|f| f.0 == name).or(funcs.first()) {
                Some(&(_, vaddr, size)) => Ok(found(vaddr, size)),
                None => Err(format!(
                    "no function '{name}' in the symbol table of {}",
                    exe.display()
                )),
            };
        }
        let module = self.sym.module_for_path(&exe);
        let images = module.image().into_iter().chain(module.debug_image());
        for img in images {
            if let Some((vaddr, size, tls)) = data_object(img.data(), name) {
                if tls {
                    return Err(format!(
                        "'{name}' is thread-local (one copy per thread): watch one thread's \
                         copy with *ADDR:LEN"
                    ));
                }
                return Ok(found(vaddr, size));
            }
        }
        if !funcs.is_empty() {
            return Err(format!(
                "'{name}' is a function, not a variable: use --exec to trap when it runs"
            ));
        }
        Err(format!(
            "no global variable '{name}' in the symbol table of {} \
             (local and stack variables need DWARF, which rtrace does not read yet; \
             use *ADDR:LEN)",
            exe.display()
        ))
    }

    fn runtime_addr(&mut self, pid: Tid, sym: &FileSymbol) -> Result<u64, String> {
        let want = canonical(&sym.path);
        let map = map_of(&mut self.maps, pid, true)
            .ok_or_else(|| format!("cannot read the memory map of process {pid}"))?;
        let bias = map
            .mappings()
            .iter()
            .filter(|m| m.is_file() && canonical(Path::new(&m.path)) == want)
            .find_map(|m| m.bias);
        match bias {
            Some(b) => Ok(sym.vaddr.wrapping_add(b)),
            None => Err(format!(
                "{} is not mapped in process {pid}, so '{}' has no address there",
                sym.path.display(),
                sym.name
            )),
        }
    }

    fn place(&mut self, pid: Tid, addr: u64) -> Place {
        let known = map_of(&mut self.maps, pid, false).is_some_and(|m| m.find(addr).is_some());
        let Some(map) = map_of(&mut self.maps, pid, !known) else {
            return Place {
                addr,
                ..Place::default()
            };
        };
        let frames = self.sym.symbolize(map, addr);
        let (Some(inner), Some(outer)) = (frames.first(), frames.last()) else {
            return Place {
                addr,
                ..Place::default()
            };
        };
        Place {
            addr,
            func: outer.function.clone(),
            off: outer.offset_in_function,
            inlined: if frames.len() > 1 {
                inner.function.clone()
            } else {
                None
            },
            file: inner.file.clone(),
            line: inner.line,
        }
    }

    fn backtrace(&mut self, pid: Tid, tid: Tid) -> Option<Vec<String>> {
        let mut t = Tracee::new(tid);
        let words = t.regs().ok()?;
        let regs = match Arch::native() {
            Arch::Aarch64 => unwind::from_prstatus_aarch64(&words),
            _ => unwind::from_prstatus_x86_64(&words),
        };
        // The map read at exec lacks the libraries mapped since: re-read it
        // once when a frame falls outside every known mapping.
        let mut refresh = false;
        loop {
            let map = map_of(&mut self.maps, pid, refresh)?;
            let frames = self
                .unwinder
                .unwind_frames(&self.sym, map, &regs, &mut t, MAX_FRAMES);
            if !refresh && frames.iter().any(|f| map.find(f.pc).is_none()) {
                refresh = true;
                continue;
            }
            return Some(
                unwind::symbolize_frames(&self.sym, map, &frames)
                    .iter()
                    .map(|f| f.to_string())
                    .collect(),
            );
        }
    }

    fn can_backtrace(&self) -> bool {
        true
    }
}
