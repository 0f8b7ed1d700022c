//! From specs to addresses in one process, through [`crate::symbols`]:
//! names and globs per module (with the load bias from the module map),
//! `file:line` through DWARF line tables, labels for output.

use crate::engine::memory::proc::ProcMem;
use crate::engine::ptrace::Tid;
use crate::probe::spec::Location;
use crate::symbols::{Mapping, Module, ModuleMap, Symbolizer};
use std::path::Path;
use std::sync::Arc;

/// The dynamic linker's hook, called after each change of the loaded-library
/// list (glibc's `_dl_debug_state`, the `r_brk` of `struct r_debug`).
pub const DL_HOOK: &str = "_dl_debug_state";

/// Resolves specs against the modules a process has mapped now.
pub struct Resolver {
    sym: Symbolizer,
}

/// One resolved address.
#[derive(Clone, Debug)]
pub struct Target {
    /// Runtime address.
    pub addr: u64,
    /// `func+0xoff (file:line)` for output.
    pub label: String,
    /// The symbol it was found by (the label for other specs).
    pub symbol: String,
    /// The file name of its module.
    pub module: String,
}

/// Whether a function found by `pattern` is selected: a glob selects
/// functions, not PLT stubs (`f@plt`, the jump through the GOT that a
/// call into another module, or into its own module's exported function,
/// goes through first), which would count a call through the PLT twice;
/// the user names a stub with `@plt` (`f@plt`, `'*@plt'`).
pub fn selects(pattern: &str, found: &str) -> bool {
    let glob = pattern.contains(['*', '?', '[']);
    !glob || pattern.contains("@plt") || !found.ends_with("@plt")
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The main program of a process, kept to explain a spec that matched
/// nothing.
#[derive(Clone)]
pub struct MainProgram {
    /// Its path.
    pub path: String,
    /// It has a static symbol table (`.symtab`, here or in a debug file).
    symtab: bool,
    /// Its file, read while the process was there (DWARF is read from
    /// memory only when needed).
    module: Arc<Module>,
}

impl MainProgram {
    /// Why `loc` may have matched nothing in this program: it lacks what
    /// would find it (a symbol table or DWARF for a name, DWARF for a
    /// line). Reads the DWARF if not done yet (from memory).
    pub fn why_not(&self, loc: &Location) -> Option<String> {
        match loc {
            Location::Func { lib, .. }
                if lib.as_deref().is_none_or(|l| lib_matches(l, &self.path))
                    && !self.symtab
                    && self.module.dwarf().is_none() =>
            {
                Some(format!("{} has no symbol table: stripped?", self.path))
            }
            Location::Line { .. } if self.module.dwarf().is_none() => Some(format!(
                "{} has no debug info: built without -g?",
                self.path
            )),
            _ => None,
        }
    }
}

/// Whether a library spec (`libc.so.6`, `libc`, `/usr/lib/…/libc.so.6`)
/// names the module at `path`.
fn lib_matches(lib: &str, path: &str) -> bool {
    if lib.contains('/') {
        return path == lib;
    }
    let f = file_name(path);
    f == lib
        || f.strip_prefix(lib)
            .is_some_and(|r| r.starts_with('.') || r.starts_with('-'))
}

impl Default for Resolver {
    fn default() -> Self {
        Self::new()
    }
}

impl Resolver {
    /// A resolver with an empty symbol cache.
    pub fn new() -> Resolver {
        Resolver {
            sym: Symbolizer::new(),
        }
    }

    /// The module map of process `pid` now.
    pub fn map(&self, pid: Tid) -> ModuleMap {
        let mut mem = ProcMem::new(pid);
        ModuleMap::from_pid(pid, &mut mem).unwrap_or_default()
    }

    /// File-backed executable modules: one mapping per path.
    fn modules(map: &ModuleMap) -> Vec<&Mapping> {
        let mut seen = std::collections::HashSet::new();
        map.mappings()
            .iter()
            .filter(|m| m.is_exec() && m.is_file() && m.bias.is_some())
            .filter(|m| seen.insert(m.path.clone()))
            .collect()
    }

    /// Executable ranges of the map (to drop sites of unloaded modules).
    pub fn exec_ranges(map: &ModuleMap) -> Vec<(u64, u64)> {
        map.mappings()
            .iter()
            .filter(|m| m.is_exec())
            .map(|m| (m.start, m.end))
            .collect()
    }

    /// `func+0xoff (file:line)` for `addr`, or the address.
    pub fn label(&self, map: &ModuleMap, addr: u64) -> String {
        let frames = self.sym.symbolize(map, addr);
        let Some(f) = frames.last() else {
            return format!("{addr:#x}");
        };
        let mut s = match (&f.function, f.offset_in_function) {
            (Some(n), Some(0)) => n.clone(),
            (Some(n), Some(o)) => format!("{n}+{o:#x}"),
            (Some(n), None) => n.clone(),
            (None, _) => format!("{addr:#x}"),
        };
        if let (Some(file), Some(line)) = (&frames[0].file, frames[0].line) {
            s.push_str(&format!(" ({}:{line})", file_name(file)));
        }
        s
    }

    /// The symbolizer (for backtraces).
    pub fn symbolizer(&self) -> &Symbolizer {
        &self.sym
    }

    /// Addresses of `loc` in the modules of `map`.
    pub fn resolve(&self, map: &ModuleMap, loc: &Location) -> Vec<Target> {
        let mut out = Vec::new();
        match loc {
            Location::Addr(a) => {
                if let Some(m) = map.find(*a).filter(|m| m.is_exec()) {
                    let label = self.label(map, *a);
                    out.push(Target {
                        addr: *a,
                        symbol: label.clone(),
                        label,
                        module: file_name(&m.path).to_string(),
                    });
                }
            }
            Location::Func { lib, name } => {
                for m in Self::modules(map) {
                    if lib.as_deref().is_some_and(|l| !lib_matches(l, &m.path)) {
                        continue;
                    }
                    let bias = m.bias.unwrap_or(0);
                    let path = map.open_path(m);
                    for (found, vaddr, _) in self.sym.lookup(Path::new(&path), name) {
                        let addr = vaddr.wrapping_add(bias);
                        if selects(name, &found) && map.find(addr).is_some_and(|x| x.is_exec()) {
                            out.push(Target {
                                addr,
                                label: self.label(map, addr),
                                symbol: found,
                                module: file_name(&m.path).to_string(),
                            });
                        }
                    }
                }
            }
            Location::Line { file, line } => {
                for m in Self::modules(map) {
                    let bias = m.bias.unwrap_or(0);
                    let path = map.open_path(m);
                    for vaddr in self.sym.lines_to_addresses(Path::new(&path), file, *line) {
                        let addr = vaddr.wrapping_add(bias);
                        if map.find(addr).is_some_and(|x| x.is_exec()) {
                            let label = self.label(map, addr);
                            out.push(Target {
                                addr,
                                symbol: label.clone(),
                                label,
                                module: file_name(&m.path).to_string(),
                            });
                        }
                    }
                }
            }
        }
        out.sort_by_key(|t| t.addr);
        out.dedup_by_key(|t| t.addr);
        out
    }

    /// The main program of process `pid` (mapped in `map`).
    pub fn main_program(&self, pid: Tid, map: &ModuleMap) -> Option<MainProgram> {
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
        self.main_program_at(&exe.to_string_lossy(), map)
    }

    /// The main program at `exe` (mapped in `map`).
    pub fn main_program_at(&self, exe: &str, map: &ModuleMap) -> Option<MainProgram> {
        let m = Self::modules(map).into_iter().find(|m| m.path == exe)?;
        // Read now: the file may be opened through `/proc/PID/root`.
        let module = self.sym.module(map, m)?;
        Some(MainProgram {
            path: m.path.clone(),
            symtab: module.has_symtab(),
            module,
        })
    }

    /// Whether a library spec (`libc.so.6`, `libc`, a path) names a module
    /// mapped in `map`.
    pub fn has_module(&self, map: &ModuleMap, lib: &str) -> bool {
        Self::modules(map).iter().any(|m| lib_matches(lib, &m.path))
    }

    /// The dynamic linker's hook in `map`, if a dynamic linker is mapped.
    /// Looked up in `interp` (the program interpreter's path as `map` names
    /// it) when known, else in every module. No label is made: that
    /// would read the dynamic linker's DWARF for nothing, and looking in
    /// every module would parse libc's whole symbol table (together about
    /// 4 MB of heap for a plain rltrace run).
    pub fn dl_hook(&self, map: &ModuleMap, interp: Option<&str>) -> Option<u64> {
        let modules = Self::modules(map);
        let pick = |only: Option<&str>| {
            modules
                .iter()
                .filter(|m| only.is_none_or(|p| p == m.path))
                .flat_map(|m| {
                    let path = map.open_path(m);
                    let bias = m.bias.unwrap_or(0);
                    self.sym
                        .lookup(Path::new(&path), DL_HOOK)
                        .into_iter()
                        .map(move |(_, vaddr, _)| vaddr.wrapping_add(bias))
                })
                .filter(|&a| map.find(a).is_some_and(|x| x.is_exec()))
                .min()
        };
        // The interpreter's `.dynsym` exports the hook (glibc's ld.so):
        // then its debug file's symbol table is not read either.
        let exported = || {
            let m = modules.iter().find(|m| interp == Some(m.path.as_str()))?;
            let module = self.sym.module_for_path(Path::new(&map.open_path(m)));
            let addr = module
                .dynamic_function(DL_HOOK)?
                .wrapping_add(m.bias.unwrap_or(0));
            map.find(addr).filter(|x| x.is_exec()).map(|_| addr)
        };
        exported()
            .or_else(|| interp.and_then(|i| pick(Some(i))))
            .or_else(|| pick(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names() {
        assert!(lib_matches(
            "libc.so.6",
            "/usr/lib/x86_64-linux-gnu/libc.so.6"
        ));
        assert!(lib_matches("libc", "/usr/lib/x86_64-linux-gnu/libc.so.6"));
        assert!(!lib_matches(
            "libc",
            "/usr/lib/x86_64-linux-gnu/libcrypt.so.1"
        ));
        assert!(lib_matches("/lib/a.so", "/lib/a.so"));
    }

    #[test]
    fn globs_leave_plt_stubs_out() {
        assert!(selects("sqlite3_*", "sqlite3_open"));
        assert!(!selects("sqlite3_*", "sqlite3_mutex_enter@plt"));
        assert!(!selects("lib?", "libf@plt"));
        // Named: a stub is what the user asked for.
        assert!(selects("sqlite3_open@plt", "sqlite3_open@plt"));
        assert!(selects("sqlite3_*@plt", "sqlite3_open@plt"));
        assert!(selects("*@plt", "malloc@plt"));
    }
}
