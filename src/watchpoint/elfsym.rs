//! [`SymbolSource`] over [`crate::symbols`] and [`crate::unwind`]: global
//! variables from the ELF symbol tables, functions and `func+off
//! (file:line)` from the shared [`Symbolizer`], load biases from the
//! process's [`ModuleMap`], backtraces from the DWARF [`Unwinder`].

use super::condition::ScopeValues;
use super::resolve::{FileSymbol, LocalFrame, Place, SymbolSource, TypedGlobal, WatchedFrame};
use super::value::{ValueFormatter, WatchValue};
use crate::engine::ptrace::Tid;
use crate::engine::tracee::Tracee;
use crate::probe::cond::{EvalError, Expr as CondExpr};
use crate::probe::frames::{BtEntry, Stack};
use crate::symbols::{ModuleMap, Symbolizer};
use crate::unwind::backtrace::Depth;
use crate::unwind::{self, Unwinder};
use crate::value::Value;
use crate::value::{json::value_json, text};
use crate::vars::{self, Ty, Vars};
use object::{Object, ObjectSymbol, SymbolKind};
use rtrace_arch::Arch;
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The symbol source of this build.
pub fn source() -> Box<dyn SymbolSource> {
    let sym = Symbolizer::new();
    Box::new(ElfSymbols {
        vars: Vars::new(&sym),
        sym,
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
    /// DWARF variables and types (shares the symbolizer's parsed modules).
    vars: Vars,
}

/// Decodes watched bytes by a DWARF type: integers keep the
/// `N (0xH)` / `{"dec", "hex"}` form of [`super::value::IntFormatter`]
/// (signed where the type is), enums, floats, pointers and aggregates
/// print as `rtrace break` prints them.
struct DwarfFormatter {
    ty: Ty,
    name: String,
}

impl ValueFormatter for DwarfFormatter {
    fn decode(&self, bytes: Option<&[u8]>) -> WatchValue {
        let Some(b) = bytes else {
            return WatchValue::Unreadable;
        };
        let mut raw = [0u8; 8];
        let n = b.len().min(8);
        raw[..n].copy_from_slice(&b[..n]);
        let hex = format!("{:#x}", u64::from_le_bytes(raw));
        let v = vars::format_value(&self.ty, b);
        match v {
            Value::Int(i) => WatchValue::Typed {
                text: format!("{i} ({hex})"),
                json: json!({ "dec": i, "hex": hex, "type": self.name }),
            },
            Value::UInt(u) => WatchValue::Typed {
                text: format!("{u} ({hex})"),
                json: json!({ "dec": u, "hex": hex, "type": self.name }),
            },
            other => {
                let mut t = String::new();
                text::render_value(&mut t, &other, &text::RenderOpts::default());
                WatchValue::Typed {
                    json: json!({ "text": t, "value": value_json(&other), "type": self.name }),
                    text: t,
                }
            }
        }
    }
}

/// A data object named `name` in an ELF image: `(file vaddr, size,
/// is_tls)`. The name is the symbol's as C spells it, or its demangled
/// one: a C++ `ns::counter` or `ns::S::total`, a Rust `krate::COUNT`, as
/// gdb names them.
fn data_object(data: &[u8], name: &str) -> Option<(u64, u64, bool)> {
    let file = object::File::parse(data).ok()?;
    file.symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.is_definition())
        .filter(|s| matches!(s.kind(), SymbolKind::Data | SymbolKind::Tls))
        .find(|s| {
            s.name().is_ok_and(|raw| {
                raw == name || raw.starts_with("_") && crate::symbols::demangle(raw) == name
            })
        })
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

impl ElfSymbols {
    /// The data object `name` defined in the ELF file `file` (canonical
    /// path): found, refused (thread-local), or `None`.
    fn data_in(&mut self, file: &Path, name: &str) -> Option<Result<FileSymbol, String>> {
        let module = self.sym.module_for_path(file);
        let images = module.image().into_iter().chain(module.debug_image());
        for img in images {
            if let Some((vaddr, size, tls)) = data_object(img.data(), name) {
                if tls {
                    return Some(Err(format!(
                        "'{name}' is thread-local (one copy per thread): watch one thread's \
                         copy with *ADDR:LEN"
                    )));
                }
                return Some(Ok(FileSymbol {
                    path: file.to_path_buf(),
                    name: name.to_string(),
                    vaddr,
                    size,
                }));
            }
        }
        None
    }
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
        if let Some(found) = self.data_in(&exe, name) {
            return found;
        }
        if !funcs.is_empty() {
            return Err(format!(
                "'{name}' is a function, not a variable: use --exec to trap when it runs"
            ));
        }
        Err(format!(
            "no global variable '{name}' in the symbol table of {} \
             (only globals and statics have one address for the whole run; \
             watch anything else with *ADDR:LEN)",
            exe.display()
        ))
    }

    fn may_be_in_library(&mut self, exe: &Path, name: &str) -> bool {
        let exe = canonical(exe);
        let module = self.sym.module_for_path(&exe);
        let dynamic = module.image().is_some_and(|img| {
            object::File::parse(&img.data()[..])
                .is_ok_and(|f| f.section_by_name(".interp").is_some())
        });
        dynamic && self.sym.lookup(&exe, name).is_empty() && self.data_in(&exe, name).is_none()
    }

    fn find_loaded(&mut self, pid: Tid, exe: &Path, name: &str) -> Result<FileSymbol, String> {
        let exe = canonical(exe);
        let map = map_of(&mut self.maps, pid, true)
            .ok_or_else(|| format!("cannot read the memory map of process {pid}"))?;
        let mut files: Vec<PathBuf> = Vec::new();
        for m in map.mappings().iter().filter(|m| m.is_file()) {
            let p = canonical(Path::new(&m.path));
            if p != exe && !files.contains(&p) {
                files.push(p);
            }
        }
        for f in &files {
            if let Some(found) = self.data_in(f, name) {
                return found;
            }
        }
        Err(format!(
            "no global variable '{name}' in the symbol table of {} or of the {} libraries \
             it loaded at start-up (only globals and statics have one address for the whole \
             run; watch anything else with *ADDR:LEN)",
            exe.display(),
            files.len()
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

    fn dwarf_global(&mut self, pid: Tid, exe: &Path, expr: &str) -> Result<TypedGlobal, String> {
        let exe = canonical(exe);
        let module = exe.to_string_lossy().into_owned();
        let map = map_of(&mut self.maps, pid, false)
            .ok_or_else(|| format!("cannot read the memory map of process {pid}"))?;
        let g = self
            .vars
            .global(map, Some(&module), expr)
            .map_err(|e| format!("{expr}: {e}"))?;
        let type_name = g.ty.name();
        Ok(TypedGlobal {
            addr: g.addr,
            size: g.size,
            type_name: type_name.clone(),
            formatter: Box::new(DwarfFormatter {
                ty: g.ty,
                name: type_name,
            }),
        })
    }

    fn place(&mut self, pid: Tid, addr: u64) -> Place {
        let known = map_of(&mut self.maps, pid, false).is_some_and(|m| m.find(addr).is_some());
        let Some(map) = map_of(&mut self.maps, pid, !known) else {
            return Place {
                addr,
                ..Place::default()
            };
        };
        // Code only: the symbol tables hold functions, and a data address
        // past the last one would be named after it.
        let code = map.find(addr).is_some_and(|m| m.is_exec());
        let frames = if code {
            self.sym.symbolize(map, addr)
        } else {
            Vec::new()
        };
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

    fn backtrace(&mut self, pid: Tid, tid: Tid, depth: Depth) -> Option<Vec<BtEntry>> {
        let mut t = Tracee::new(tid);
        let words = t.regs().ok()?;
        // A watchpoint traps after the access: the registers are the
        // frame's as they are (no trap instruction to step back over).
        let regs = match Arch::native() {
            Arch::Aarch64 => unwind::from_prstatus_aarch64(&words),
            _ => unwind::from_prstatus_x86_64(&words),
        };
        // The map read at exec lacks the libraries mapped since: re-read it
        // once when a frame falls outside every known mapping.
        let mut refresh = false;
        loop {
            let map = map_of(&mut self.maps, pid, refresh)?;
            let stack = Stack {
                sym: &self.sym,
                vars: &self.vars,
                map,
            };
            let (frames, unmapped) = stack.backtrace(&mut self.unwinder, &regs, &mut t, depth);
            if !refresh && unmapped {
                refresh = true;
                continue;
            }
            return Some(frames);
        }
    }

    fn can_backtrace(&self) -> bool {
        true
    }

    fn check_condition(
        &mut self,
        pid: Tid,
        cond: &CondExpr,
        frame: Option<WatchedFrame>,
    ) -> Result<(), String> {
        let frame = match frame {
            Some(f) => {
                let words = Tracee::new(f.tid)
                    .regs()
                    .map_err(|e| format!("cannot read the registers of thread {}: {e}", f.tid))?;
                Some(self.frame_regs(pid, &words, f)?)
            }
            None => None,
        };
        let map = map_of(&mut self.maps, pid, false)
            .ok_or_else(|| format!("cannot read the memory map of process {pid}"))?;
        ScopeValues {
            regs: &[],
            vars: &self.vars,
            map,
            mem: &mut Tracee::new(pid),
            arch: native_regs(),
            frame,
        }
        .check(cond)
    }

    fn condition(
        &mut self,
        pid: Tid,
        regs: &[u64],
        cond: &CondExpr,
        frame: Option<WatchedFrame>,
    ) -> Result<bool, EvalError> {
        let frame = match frame {
            Some(f) => Some(
                self.frame_regs(pid, regs, f)
                    .map_err(EvalError::Unavailable)?,
            ),
            None => None,
        };
        let map = map_of(&mut self.maps, pid, false)
            .ok_or_else(|| EvalError::Unavailable("the memory map".into()))?;
        cond.holds(&mut ScopeValues {
            regs,
            vars: &self.vars,
            map,
            mem: &mut Tracee::new(pid),
            arch: native_regs(),
            frame,
        })
    }

    fn local_frame(&mut self, pid: Tid, tid: Tid, var: &str) -> Result<LocalFrame, String> {
        let mut t = Tracee::new(tid);
        let words = t
            .regs()
            .map_err(|e| format!("cannot read the registers of thread {tid}: {e}"))?;
        let regs = match Arch::native() {
            Arch::Aarch64 => unwind::from_prstatus_aarch64(&words),
            _ => unwind::from_prstatus_x86_64(&words),
        };
        let map = map_of(&mut self.maps, pid, false)
            .ok_or_else(|| format!("cannot read the memory map of process {pid}"))?;
        let entry = regs.pc;
        let states = self
            .unwinder
            .unwind_states(&self.sym, map, &regs, &mut t, 2);
        let (Some(inner), Some(caller)) = (states.first(), states.get(1)) else {
            return Err(format!(
                "cannot unwind from {entry:#x} to the caller: no way to tell when the frame ends"
            ));
        };
        let cfa = inner
            .cfa
            .ok_or_else(|| format!("no CFA at {entry:#x}: no way to place '{var}'"))?;
        let ret = caller.frame.pc;
        // Locals are in scope past the prologue; their frame-base
        // locations (DW_OP_fbreg over the CFA) are the same at the entry.
        let scope_pc = self.vars.after_prologue(map, entry);
        let frame = vars::FrameRegs::from_state(inner);
        let g = self
            .vars
            .frame_var(map, scope_pc, &frame, &mut t, var)
            .map_err(|e| match e {
                vars::PathError::NotInMemory => format!(
                    "'{var}' is not in memory in this function (a register or a constant): \
                     a debug register cannot watch it"
                ),
                e => format!("'{var}': {e}"),
            })?;
        if g.size == 0 {
            return Err(format!("'{var}': its type has no size"));
        }
        let name = g.ty.name();
        Ok(LocalFrame {
            addr: g.addr,
            size: g.size,
            formatter: Box::new(DwarfFormatter { ty: g.ty, name }),
            cfa,
            ret,
        })
    }
}

impl ElfSymbols {
    /// The registers of the watched activation `f` of thread `f.tid`,
    /// stopped with register words `words`: the frame, among the thread's
    /// unwound frames, whose CFA is the activation's.
    fn frame_regs(
        &mut self,
        pid: Tid,
        words: &[u64],
        f: WatchedFrame,
    ) -> Result<vars::FrameRegs, String> {
        // Deep enough for a callee writing through a pointer; a frame
        // further down is not found and the condition is not evaluated.
        const DEPTH: usize = 256;
        let regs = match Arch::native() {
            Arch::Aarch64 => unwind::from_prstatus_aarch64(words),
            _ => unwind::from_prstatus_x86_64(words),
        };
        let map = map_of(&mut self.maps, pid, false)
            .ok_or_else(|| format!("cannot read the memory map of process {pid}"))?;
        let mut t = Tracee::new(f.tid);
        self.unwinder
            .unwind_states(&self.sym, map, &regs, &mut t, DEPTH)
            .iter()
            .find(|s| s.cfa == Some(f.cfa))
            .map(vars::FrameRegs::from_state)
            .ok_or_else(|| format!("the watched frame (CFA {:#x}) is not on the stack", f.cfa))
    }
}

/// The DWARF register model of the CPU rtrace runs on.
fn native_regs() -> &'static unwind::ArchRegs {
    match Arch::native() {
        Arch::Aarch64 => &unwind::AARCH64,
        _ => &unwind::X86_64,
    }
}
