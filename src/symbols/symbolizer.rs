//! The shared module cache and the lookups built on it: address to frames,
//! name or glob to addresses, `file:line` to addresses.

use super::demangle::demangle;
use super::frame::Frame;
use super::maps::{Mapping, ModuleMap, VDSO};
use super::module::{Module, ModuleKey};
use super::Warning;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A warning about one module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleWarning {
    /// The module's path.
    pub module: String,
    /// What went wrong.
    pub warning: Warning,
}

/// Resolves addresses to functions and source lines. Cheap to clone: clones
/// share one cache of parsed modules (keyed by path, device and inode), so
/// one `Symbolizer` serves every traced process.
#[derive(Clone)]
pub struct Symbolizer {
    modules: Arc<Mutex<HashMap<ModuleKey, Arc<Module>>>>,
    debug_dirs: Arc<Vec<PathBuf>>,
}

impl Default for Symbolizer {
    fn default() -> Self {
        Symbolizer::new()
    }
}

impl std::fmt::Debug for Symbolizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Symbolizer")
            .field("debug_dirs", &self.debug_dirs)
            .finish_non_exhaustive()
    }
}

impl Symbolizer {
    /// A symbolizer that looks for debug files under `/usr/lib/debug`.
    pub fn new() -> Symbolizer {
        Symbolizer::with_debug_dirs(
            super::DEFAULT_DEBUG_DIRS
                .iter()
                .map(PathBuf::from)
                .collect(),
        )
    }

    /// A symbolizer with its own list of global debug directories.
    pub fn with_debug_dirs(dirs: Vec<PathBuf>) -> Symbolizer {
        Symbolizer {
            modules: Arc::new(Mutex::new(HashMap::new())),
            debug_dirs: Arc::new(dirs),
        }
    }

    fn cached(&self, key: ModuleKey, make: impl FnOnce() -> Module) -> Arc<Module> {
        let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        modules
            .entry(key)
            .or_insert_with(|| Arc::new(make()))
            .clone()
    }

    /// The module behind `mapping` (a file or the vDSO), from the cache.
    pub fn module(&self, map: &ModuleMap, mapping: &Mapping) -> Option<Arc<Module>> {
        if mapping.is_vdso() {
            let bytes = map.vdso_image()?.clone();
            let key = ModuleKey {
                path: VDSO.to_string(),
                dev: 0,
                inode: fnv1a(&bytes),
            };
            return Some(self.cached(key, || {
                Module::from_bytes(
                    ModuleKey {
                        path: VDSO.into(),
                        dev: 0,
                        inode: 0,
                    },
                    bytes,
                )
            }));
        }
        if !mapping.is_file() {
            return None;
        }
        let key = ModuleKey {
            path: mapping.path.clone(),
            dev: mapping.dev,
            inode: mapping.inode,
        };
        let open = map.open_path(mapping);
        let dirs = self.debug_dirs.clone();
        Some(self.cached(key.clone(), || Module::new(key, open, dirs)))
    }

    /// The module for a file on disk (for breakpoints set before a process maps it).
    pub fn module_for_path(&self, path: &Path) -> Arc<Module> {
        use std::os::unix::fs::MetadataExt;
        let (dev, inode) = match std::fs::metadata(path) {
            Ok(m) => {
                let d = m.dev();
                let major = ((d >> 8) & 0xfff) | ((d >> 32) & !0xfff);
                let minor = (d & 0xff) | ((d >> 12) & !0xff);
                ((major << 32) | minor, m.ino())
            }
            Err(_) => (0, 0),
        };
        let key = ModuleKey {
            path: path.to_string_lossy().into_owned(),
            dev,
            inode,
        };
        let dirs = self.debug_dirs.clone();
        self.cached(key.clone(), || Module::new(key, path.to_path_buf(), dirs))
    }

    /// Frames for the instruction at `pc` (the current pc of a thread, or a
    /// pc interrupted by a signal): innermost inlined function first, then
    /// the containing function. Unknown parts are `None`; never empty.
    pub fn symbolize(&self, map: &ModuleMap, pc: u64) -> Vec<Frame> {
        self.symbolize_at(map, pc, 0)
    }

    /// Frames for a return address: the call instruction before it (`pc - 1`)
    /// is looked up, so the line and the inline chain are the call's, while
    /// `pc` and the offsets stay those of the return address, as gdb shows.
    pub fn symbolize_return_address(&self, map: &ModuleMap, pc: u64) -> Vec<Frame> {
        self.symbolize_at(map, pc, 1)
    }

    /// The symbol-table entry a return address `pc` belongs to (the call
    /// before it is looked up): its name as stored (mangled) and `pc`'s
    /// offset from its start. No DWARF, no inlining: what a symbol-table
    /// unwinder (libunwind's `unw_get_proc_name`, ltrace's `-w`) names.
    pub fn symbol_of_return_address(&self, map: &ModuleMap, pc: u64) -> Option<(String, u64)> {
        let mapping = map.find(pc)?;
        let module = self.module(map, mapping)?;
        let vaddr = mapping.file_vaddr(pc)?;
        let sym = module.symbols().lookup(vaddr.wrapping_sub(1))?;
        Some((sym.name.clone(), vaddr - sym.addr))
    }

    fn symbolize_at(&self, map: &ModuleMap, pc: u64, adjust: u64) -> Vec<Frame> {
        let mut base = Frame {
            pc,
            ..Frame::default()
        };
        let Some(mapping) = map.find(pc) else {
            return vec![base];
        };
        base.module = mapping.path.clone();
        let (Some(module), Some(vaddr)) = (self.module(map, mapping), mapping.file_vaddr(pc))
        else {
            return vec![base];
        };
        base.module_offset = Some(vaddr);
        let probe = vaddr.wrapping_sub(adjust);
        let sym = module.symbols().lookup(probe);
        let sym_name = sym.map(|s| demangle(&s.name).into_owned());
        base.offset_in_function = sym.map(|s| vaddr - s.addr);
        let inline_chain = match module.dwarf().map(|d| d.frames(probe)) {
            Some(Ok(frames)) => frames,
            Some(Err(w)) => {
                module.note(w);
                Vec::new()
            }
            None => Vec::new(),
        };
        if inline_chain.is_empty() {
            base.function = sym_name;
            return vec![base];
        }
        let last = inline_chain.len() - 1;
        inline_chain
            .into_iter()
            .enumerate()
            .map(|(i, df)| {
                let outer = i == last;
                Frame {
                    function: df
                        .function
                        .or_else(|| if outer { sym_name.clone() } else { None }),
                    offset_in_function: if outer { base.offset_in_function } else { None },
                    file: df.file,
                    line: df.line,
                    inlined: !outer,
                    ..base.clone()
                }
            })
            .collect()
    }

    /// Functions in the file at `path` whose name (raw or demangled) is
    /// `name_or_glob` or matches it as a glob: `(demangled name, file
    /// virtual address, size)`, one per address.
    pub fn lookup(&self, path: &Path, name_or_glob: &str) -> Vec<(String, u64, u64)> {
        let module = self.module_for_path(path);
        let mut seen = std::collections::HashSet::new();
        module
            .symbols()
            .find(name_or_glob)
            .into_iter()
            .filter(|s| seen.insert(s.addr))
            .map(|s| (demangle(&s.name).into_owned(), s.addr, s.size))
            .collect()
    }

    /// File virtual addresses of `file:line` in the module at `path`
    /// (`is_stmt` rows, the first address per function or inlined instance;
    /// see [`DwarfInfo::lines_to_addresses`](super::DwarfInfo::lines_to_addresses)).
    /// Empty without DWARF.
    pub fn lines_to_addresses(&self, path: &Path, file: &str, line: u32) -> Vec<u64> {
        let module = self.module_for_path(path);
        let Some(dwarf) = module.dwarf() else {
            return Vec::new();
        };
        dwarf.lines_to_addresses(file, line).unwrap_or_else(|w| {
            module.note(w);
            Vec::new()
        })
    }

    /// Warnings recorded so far, per module.
    pub fn warnings(&self) -> Vec<ModuleWarning> {
        let modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<ModuleWarning> = modules
            .values()
            .flat_map(|m| {
                m.warnings().into_iter().map(|warning| ModuleWarning {
                    module: m.path().to_string(),
                    warning,
                })
            })
            .collect();
        out.sort_by(|a, b| a.module.cmp(&b.module));
        out
    }
}

/// FNV-1a, to key vDSO images by content.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
