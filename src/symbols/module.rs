//! One module (an ELF file or the vDSO) with its lazily parsed parts: the
//! file, its separate debug file, symbols and DWARF. Shared through `Arc`
//! by every process that maps the file.

use super::debuglink::find_debug_file;
use super::dwarf::DwarfInfo;
use super::elf::ElfImage;
use super::plt;
use super::symtab::{Symbol, SymbolTable};
use super::{Bytes, Warning};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// What identifies a module across processes: the file's path, device and
/// inode (a replaced file at the same path is another module). The vDSO is
/// keyed by a hash of its bytes in `inode`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModuleKey {
    /// Path as `/proc/PID/maps` shows it.
    pub path: String,
    /// Device number.
    pub dev: u64,
    /// Inode number.
    pub inode: u64,
}

/// A module and its lazily parsed debug information.
pub struct Module {
    key: ModuleKey,
    open_path: PathBuf,
    bytes: Option<Bytes>,
    debug_dirs: Arc<Vec<PathBuf>>,
    image: OnceLock<Option<Arc<ElfImage>>>,
    debug: OnceLock<Option<Arc<ElfImage>>>,
    symbols: OnceLock<SymbolTable>,
    dwarf: OnceLock<Option<DwarfInfo>>,
    warnings: Mutex<Vec<Warning>>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl Module {
    /// A module read from `open_path` on first use.
    pub fn new(key: ModuleKey, open_path: PathBuf, debug_dirs: Arc<Vec<PathBuf>>) -> Module {
        Module::make(key, open_path, None, debug_dirs)
    }

    /// A module whose bytes are already in memory (the vDSO).
    pub fn from_bytes(key: ModuleKey, bytes: Bytes) -> Module {
        Module::make(key, PathBuf::new(), Some(bytes), Arc::new(Vec::new()))
    }

    fn make(
        key: ModuleKey,
        open_path: PathBuf,
        bytes: Option<Bytes>,
        debug_dirs: Arc<Vec<PathBuf>>,
    ) -> Module {
        Module {
            key,
            open_path,
            bytes,
            debug_dirs,
            image: OnceLock::new(),
            debug: OnceLock::new(),
            symbols: OnceLock::new(),
            dwarf: OnceLock::new(),
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// The module's identity.
    pub fn key(&self) -> &ModuleKey {
        &self.key
    }

    /// The path the module is displayed under.
    pub fn path(&self) -> &str {
        &self.key.path
    }

    fn warn(&self, w: Warning) {
        let mut list = self.warnings.lock().unwrap_or_else(|p| p.into_inner());
        if !list.contains(&w) {
            list.push(w);
        }
    }

    /// Everything that went wrong reading this module so far.
    pub fn warnings(&self) -> Vec<Warning> {
        self.warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The parsed file, or `None` if it is unreadable or not ELF.
    pub fn image(&self) -> Option<&Arc<ElfImage>> {
        self.image
            .get_or_init(|| {
                let parsed = match &self.bytes {
                    Some(b) => ElfImage::parse(b.clone()),
                    None => ElfImage::open(&self.open_path),
                };
                parsed.map(Arc::new).map_err(|w| self.warn(w)).ok()
            })
            .as_ref()
    }

    /// The separate debug file, if one is found.
    pub fn debug_image(&self) -> Option<&Arc<ElfImage>> {
        self.debug
            .get_or_init(|| {
                let image = self.image()?;
                if self.bytes.is_some() {
                    return None;
                }
                let mut warnings = Vec::new();
                let found = find_debug_file(
                    Path::new(&self.open_path),
                    image,
                    &self.debug_dirs,
                    &mut warnings,
                );
                for w in warnings {
                    self.warn(w);
                }
                found.map(|(_, img)| Arc::new(img))
            })
            .as_ref()
    }

    /// Function symbols of the file and its debug file, with PLT stubs.
    pub fn symbols(&self) -> &SymbolTable {
        self.symbols.get_or_init(|| {
            let Some(image) = self.image() else {
                return SymbolTable::default();
            };
            let (table, w) = SymbolTable::build(image, self.debug_image().map(|d| &**d));
            if let Some(w) = w {
                self.warn(w);
            }
            table
        })
    }

    /// The module's PLT stubs (`name@plt`, by address), as
    /// [`Module::symbols`] has them, without reading the symbol tables: a
    /// library's (libc's several thousand names) is not needed to find the
    /// calls it makes.
    pub fn plt_stubs(&self) -> Vec<Symbol> {
        let Some(image) = self.image() else {
            return Vec::new();
        };
        SymbolTable::from_symbols(plt::plt_symbols(image)).into_symbols()
    }

    /// The file address of the function `name` defined in the module's
    /// dynamic symbol table (`.dynsym`), found without reading the full
    /// symbol tables, which for a stripped library means its separate
    /// debug file.
    pub fn dynamic_function(&self, name: &str) -> Option<u64> {
        use object::{Object, ObjectSymbol, SymbolKind};
        let image = self.image()?;
        let file = object::File::parse(&**image.data()).ok()?;
        let found = file
            .dynamic_symbols()
            .find(|s| s.is_definition() && s.kind() == SymbolKind::Text && s.name() == Ok(name))?;
        Some(found.address())
    }

    /// The module's DWARF (from the debug file when it has some), if any.
    pub fn dwarf(&self) -> Option<&DwarfInfo> {
        self.dwarf
            .get_or_init(|| {
                let sources = self.debug_image().into_iter().chain(self.image());
                let mut warnings = Vec::new();
                let mut found = None;
                for img in sources {
                    match DwarfInfo::load(img, &mut warnings) {
                        Ok(Some(d)) => {
                            found = Some(d);
                            break;
                        }
                        Ok(None) => {}
                        Err(w) => warnings.push(w),
                    }
                }
                for w in warnings {
                    self.warn(w);
                }
                found
            })
            .as_ref()
    }

    /// Whether the file or its separate debug file has a static symbol
    /// table (`.symtab`). Without one (a stripped file) only the dynamic
    /// symbols and PLT stubs can be found by name.
    pub fn has_symtab(&self) -> bool {
        let symtab = |img: &ElfImage| img.section(".symtab").is_some();
        self.image().is_some_and(|i| symtab(i)) || self.debug_image().is_some_and(|i| symtab(i))
    }

    /// Records a warning met while using this module's DWARF.
    pub(crate) fn note(&self, w: Warning) {
        self.warn(w);
    }
}
