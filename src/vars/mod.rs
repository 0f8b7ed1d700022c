//! DWARF variables and types: what `rtrace break` prints as arguments and
//! locals, what `rtrace watch` resolves a global name to, and the values
//! conditions compare.
//!
//! Scope: for a pc, the enclosing function and the inlined subroutines that
//! contain it, with their parameters and the locals of the lexical blocks
//! that contain it ([`Vars::scope`]); globals by name, with struct member
//! and array element paths (`config.origin.x`, `table[3]`) to an address
//! and a size ([`Vars::global`]); locations from `DW_AT_location`
//! expressions and location lists (DWARF 4 `.debug_loc` and DWARF 5
//! `.debug_loclists`), `DW_AT_const_value`, `DW_OP_fbreg` over
//! `DW_AT_frame_base` (`DW_OP_call_frame_cfa` from the CFI), registers,
//! `DW_OP_addr`/`DW_OP_addrx` plus the load bias, pieces, implicit values;
//! values decoded by type into [`Value`] ([`Vars::read`],
//! [`format_value`]); C type names ([`Ty::name`]); function return types
//! ([`ScopeFrame::return_type`]); gdb's post-prologue breakpoint address
//! ([`Vars::after_prologue`]). Conditions over these values are
//! `probe::cond`'s (the one condition language).
//!
//! A breakpoint hit, end to end: [`Vars::innermost`] (registers + CFA) ->
//! [`Vars::scope`] at [`FrameRegs::lookup_pc`] -> [`Vars::read`] per
//! parameter -> `value::text` / `value::json` render the [`Value`]s.
//! Floating-point values are [`Value::Sym`] text (`3.5`), as `Value` has no
//! float; `<optimized out>` parts of a value likewise.
//!
//! The DWARF is the symbolizer's (one parse per module, shared); the
//! per-module state here (units, type nodes, scopes per pc, the globals
//! index) is built lazily and cached in [`Vars`], which clones share.
//!
//! Non-goals: C++ beyond plain structs (no `this` adjustment, no virtual
//! bases, no templates), thread-local variables, `DW_OP_entry_value`
//! without the frame's callers ([`Vars::read`]: reported as
//! [`Unavailable::EntryValue`]; [`Vars::read_param`] with the stack finds
//! it in the caller's call site, `entry.rs`), implicit pointers, vector registers wider than 64 bits, type
//! units (`DW_FORM_ref_sig8`), split DWARF. Corrupt DWARF never panics: it
//! gives fewer variables or [`VarError::Corrupt`].

mod callsite;
mod data;
mod decode;
mod entry;
mod error;
mod location;
mod module;
mod path;
mod place;
mod prologue;
mod qualify;
mod scope;
mod types;

pub use crate::vars::decode::DecodeOpts;
pub use crate::vars::entry::{EntryValue, ParamValue, StackFrame};
pub use crate::vars::error::{Unavailable, VarError};
pub use crate::vars::path::{parse_path, PathError, PathStep};
pub use crate::vars::types::{Ty, TypeKind};

use crate::engine::memory::Memory;
use crate::symbols::{function_base, Mapping, ModuleKey, ModuleMap, Symbolizer};
use crate::unwind::{FrameState, InitialRegs, Unwinder};
use crate::value::Value;
use crate::vars::location::{Env, Loc, Raw};
use crate::vars::module::{lock, ModVars};
use crate::vars::scope::VarData;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The registers of one frame, as variable locations need them.
#[derive(Debug, Clone)]
pub struct FrameRegs {
    /// Registers by DWARF number (x86_64: 0-16 general, 17-32 the low 64
    /// bits of xmm0-15 when the caller supplies them).
    pub regs: InitialRegs,
    /// The canonical frame address (`DW_OP_call_frame_cfa`).
    pub cfa: Option<u64>,
    /// Whether `regs.pc` is a return address (an outer frame): scopes and
    /// location lists are then looked up at `pc - 1`, the call.
    pub is_return_address: bool,
}

impl FrameRegs {
    /// The innermost frame of a stopped thread.
    pub fn new(regs: InitialRegs, cfa: Option<u64>) -> FrameRegs {
        FrameRegs {
            regs,
            cfa,
            is_return_address: false,
        }
    }

    /// A frame from [`Unwinder::unwind_states`].
    pub fn from_state(s: &FrameState) -> FrameRegs {
        FrameRegs {
            regs: s.regs.clone(),
            cfa: s.cfa,
            is_return_address: s.frame.is_return_address,
        }
    }

    /// The address scopes and locations are looked up at.
    pub fn lookup_pc(&self) -> u64 {
        self.regs.pc.wrapping_sub(u64::from(self.is_return_address))
    }
}

/// Whether a variable is a parameter, a local or a global.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// A formal parameter.
    Param,
    /// A local variable (of the function or a block containing the pc).
    Local,
}

/// A variable in scope at a pc.
#[derive(Clone)]
pub struct VarDesc {
    /// Its name.
    pub name: String,
    /// Parameter or local.
    pub kind: VarKind,
    /// Its type.
    pub ty: Ty,
    data: Arc<VarData>,
    bias: u64,
    /// Where its out-of-line function is entered (file address), for a
    /// parameter of one: its value at entry is looked up there.
    entry_pc: Option<u64>,
}

impl std::fmt::Debug for VarDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VarDesc")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("ty", &self.ty)
            .finish_non_exhaustive()
    }
}

/// A function or inlined subroutine containing a pc.
#[derive(Debug, Clone)]
pub struct ScopeFrame {
    /// The function's name as gdb prints it: qualified by its namespaces
    /// and classes (`ns::Shape::area`, `bk_rust::geo::calc::area`).
    pub function: Option<String>,
    /// Whether it was inlined into the next frame.
    pub inlined: bool,
    /// Whether DWARF names it the program's main function
    /// (`DW_AT_main_subprogram`, as rustc flags `krate::main`).
    pub main_subprogram: bool,
    /// Its return type (`None`: `void`): decode a return value with
    /// [`format_value`].
    pub return_type: Option<Ty>,
    /// Its formal parameters, in declaration order.
    pub params: Vec<VarDesc>,
    /// Its locals visible at the pc: innermost block first.
    pub locals: Vec<VarDesc>,
}

/// What is in scope at a pc: innermost (inlined) function first.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// The frames; the last is the out-of-line function.
    pub frames: Vec<ScopeFrame>,
}

/// A global variable, or a part of one, in a running process.
#[derive(Debug, Clone)]
pub struct GlobalVar {
    /// The module (path) that defines it.
    pub module: String,
    /// Runtime address.
    pub addr: u64,
    /// Size in bytes.
    pub size: u64,
    /// Its type.
    pub ty: Ty,
}

/// DWARF variables of every module a [`Symbolizer`] knows. Cheap to clone:
/// clones share the per-module caches.
#[derive(Clone)]
pub struct Vars {
    symbols: Symbolizer,
    modules: Arc<Mutex<HashMap<ModuleKey, Option<Arc<ModVars>>>>>,
}

impl std::fmt::Debug for Vars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vars").finish_non_exhaustive()
    }
}

impl Vars {
    /// Variables over the modules (and the DWARF already parsed) of `symbols`.
    pub fn new(symbols: &Symbolizer) -> Vars {
        Vars {
            symbols: symbols.clone(),
            modules: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// The DWARF view of the module behind `mapping`, and its load bias.
    fn module(&self, map: &ModuleMap, mapping: &Mapping) -> Option<(Arc<ModVars>, u64)> {
        let bias = mapping.bias?;
        let module = self.symbols.module(map, mapping)?;
        if let Some(found) = lock(&self.modules).get(module.key()) {
            return Some((found.clone()?, bias));
        }
        let made = module
            .dwarf()
            .map(|d| Arc::new(ModVars::new(d.gimli().clone())));
        lock(&self.modules).insert(module.key().clone(), made.clone());
        Some((made?, bias))
    }

    /// The registers of the innermost frame of a thread stopped with
    /// registers `regs`, with its CFA from the CFI.
    pub fn innermost(
        &self,
        unwinder: &mut Unwinder,
        map: &ModuleMap,
        regs: InitialRegs,
        mem: &mut dyn Memory,
    ) -> FrameRegs {
        let cfa = unwinder.cfa(&self.symbols, map, &regs, false, mem);
        FrameRegs::new(regs, cfa)
    }

    /// What is in scope at `pc` (for an outer frame pass
    /// [`FrameRegs::lookup_pc`]); `None` without DWARF for it.
    pub fn scope(&self, map: &ModuleMap, pc: u64) -> Option<Scope> {
        let (m, bias) = self.module(map, map.find(pc)?)?;
        let vaddr = pc.wrapping_sub(bias);
        let data = m.scope_cached(vaddr, || crate::vars::scope::build(&m, vaddr));
        if data.frames.is_empty() {
            return None;
        }
        let desc = |v: &Arc<VarData>, kind, entry_pc| VarDesc {
            name: v.name.clone(),
            kind,
            ty: Ty {
                m: m.clone(),
                r: v.ty,
            },
            data: v.clone(),
            bias,
            entry_pc,
        };
        let frames = data
            .frames
            .iter()
            .map(|f| ScopeFrame {
                function: f.qualified.clone().or_else(|| f.function.clone()),
                inlined: f.inlined,
                main_subprogram: f.main_subprogram,
                return_type: f.ret.map(|r| Ty {
                    m: m.clone(),
                    r: Some(r),
                }),
                params: f
                    .params
                    .iter()
                    .map(|v| desc(v, VarKind::Param, f.entry.filter(|_| !f.inlined)))
                    .collect(),
                locals: f
                    .locals
                    .iter()
                    .map(|v| desc(v, VarKind::Local, None))
                    .collect(),
            })
            .collect();
        Some(Scope { frames })
    }

    /// Parameters of the innermost function at `pc`.
    pub fn params(&self, map: &ModuleMap, pc: u64) -> Vec<VarDesc> {
        self.scope(map, pc)
            .and_then(|s| s.frames.into_iter().next())
            .map(|f| f.params)
            .unwrap_or_default()
    }

    /// Locals visible in the innermost function at `pc`.
    pub fn locals(&self, map: &ModuleMap, pc: u64) -> Vec<VarDesc> {
        self.scope(map, pc)
            .and_then(|s| s.frames.into_iter().next())
            .map(|f| f.locals)
            .unwrap_or_default()
    }

    /// The value of `var` in `frame`, decoded by its type (`char *` read as
    /// a string of at most 32 bytes, one level of struct fields).
    pub fn read(
        &self,
        var: &VarDesc,
        frame: &FrameRegs,
        mem: &mut dyn Memory,
    ) -> Result<Value, VarError> {
        self.read_with(var, frame, mem, DecodeOpts::default())
    }

    /// [`Vars::read`] with explicit limits.
    pub fn read_with(
        &self,
        var: &VarDesc,
        frame: &FrameRegs,
        mem: &mut dyn Memory,
        opts: DecodeOpts,
    ) -> Result<Value, VarError> {
        let raw = read_raw(var, frame, mem, None)?;
        Ok(
            crate::vars::decode::Decoder::new(&var.ty.m, Some(mem), opts).value(
                var.ty.r,
                &raw.bytes,
                raw.known.as_deref(),
                0,
            ),
        )
    }

    /// A global variable or a part of one (`counter`, `config.origin.x`,
    /// `table[3]`), in the module mapped from `module` (a path, or a path
    /// suffix such as `libfoo.so`) or, with `None`, in any module (the
    /// executable first).
    pub fn global(
        &self,
        map: &ModuleMap,
        module: Option<&str>,
        expr: &str,
    ) -> Result<GlobalVar, PathError> {
        let (name, steps) = parse_path(expr)?;
        let mut seen = std::collections::HashSet::new();
        for mapping in map.mappings() {
            if !mapping.is_file() || !seen.insert(mapping.path.as_str()) {
                continue;
            }
            if let Some(want) = module {
                if mapping.path != want && !mapping.path.ends_with(&format!("/{want}")) {
                    continue;
                }
            }
            let Some((m, bias)) = self.module(map, mapping) else {
                continue;
            };
            if let Some(found) = crate::vars::place::global(&m, bias, &name, &steps)? {
                let (addr, size, r) = found;
                return Ok(GlobalVar {
                    module: mapping.path.clone(),
                    addr,
                    size,
                    ty: Ty { m, r },
                });
            }
        }
        Err(PathError::NotFound(name))
    }

    /// The value of `expr` (a parameter or local of the innermost function
    /// at the frame's pc, else a global, with `.field`, `->field` and
    /// `[N]` steps), decoded by type.
    pub fn lookup(
        &self,
        map: &ModuleMap,
        frame: &FrameRegs,
        mem: &mut dyn Memory,
        expr: &str,
    ) -> Result<Value, PathError> {
        self.lookup_with(map, frame, mem, expr, DecodeOpts::default())
    }

    /// [`Vars::lookup`] with explicit limits.
    pub fn lookup_with(
        &self,
        map: &ModuleMap,
        frame: &FrameRegs,
        mem: &mut dyn Memory,
        expr: &str,
        opts: DecodeOpts,
    ) -> Result<Value, PathError> {
        let (m, place) = self.place(map, frame, mem, expr)?;
        let raw = place.bytes(&m, mem)?;
        Ok(place.decode(&m, &raw, mem, opts))
    }

    /// [`Vars::lookup`] with the value's C type name (`int`, `struct
    /// point *`), as `--print` shows it.
    pub fn lookup_typed(
        &self,
        map: &ModuleMap,
        frame: &FrameRegs,
        mem: &mut dyn Memory,
        expr: &str,
    ) -> Result<(Value, String), PathError> {
        let (m, place) = self.place(map, frame, mem, expr)?;
        let raw = place.bytes(&m, mem)?;
        let value = place.decode(&m, &raw, mem, DecodeOpts::default());
        let ty = Ty {
            m: m.clone(),
            r: place.ty(),
        };
        Ok((value, ty.name()))
    }

    /// The integer value of `expr` (a scalar variable or member, or an
    /// enumerator name), for conditions.
    pub fn lookup_scalar(
        &self,
        map: &ModuleMap,
        frame: &FrameRegs,
        mem: &mut dyn Memory,
        expr: &str,
    ) -> Result<i64, PathError> {
        match self.place(map, frame, mem, expr) {
            Ok((m, place)) => {
                let raw = place.bytes(&m, mem)?;
                place.scalar(&m, &raw).ok_or(PathError::NotScalar)
            }
            Err(PathError::NotFound(name)) => self
                .enumerator(map, frame.lookup_pc(), &name)
                .ok_or(PathError::NotFound(name)),
            Err(e) => Err(e),
        }
    }

    /// Resolves `expr` to a place: scope first, then globals.
    fn place(
        &self,
        map: &ModuleMap,
        frame: &FrameRegs,
        mem: &mut dyn Memory,
        expr: &str,
    ) -> Result<(Arc<ModVars>, crate::vars::place::Place), PathError> {
        let (name, steps) = parse_path(expr)?;
        let scope = self.scope(map, frame.lookup_pc());
        let local = scope.as_ref().and_then(|s| s.frames.first()).and_then(|f| {
            f.locals
                .iter()
                .chain(f.params.iter())
                .find(|v| v.name == name)
        });
        if let Some(var) = local {
            let raw = read_raw(var, frame, mem, None).map_err(PathError::Var)?;
            let start = crate::vars::place::Place::from_raw(var.ty.r, raw);
            return Ok((var.ty.m.clone(), start.walk(&var.ty.m, &steps, Some(mem))?));
        }
        let g = self.global(map, None, &name)?;
        let start = crate::vars::place::Place::at(g.ty.r, g.addr);
        Ok((g.ty.m.clone(), start.walk(&g.ty.m, &steps, Some(mem))?))
    }

    /// Where the local or parameter `name` of the function at `scope_pc`
    /// lives in memory in `frame` (a watchpoint on a local: its address and
    /// size, and its type), as [`GlobalVar`]. [`PathError::NotInMemory`]
    /// when its location there is a register or a constant.
    pub fn frame_var(
        &self,
        map: &ModuleMap,
        scope_pc: u64,
        frame: &FrameRegs,
        mem: &mut dyn Memory,
        name: &str,
    ) -> Result<GlobalVar, PathError> {
        let scope = self.scope(map, scope_pc);
        let var = scope
            .as_ref()
            .and_then(|s| s.frames.first())
            .and_then(|f| {
                f.locals
                    .iter()
                    .chain(f.params.iter())
                    .find(|v| v.name == name)
            })
            .ok_or_else(|| PathError::NotFound(name.to_string()))?;
        let raw = read_raw(var, frame, mem, None).map_err(PathError::Var)?;
        let addr = raw.addr.ok_or(PathError::NotInMemory)?;
        let module = map
            .find(scope_pc)
            .map(|m| m.path.clone())
            .unwrap_or_default();
        Ok(GlobalVar {
            module,
            addr,
            size: var.ty.size().unwrap_or(0),
            ty: var.ty.clone(),
        })
    }

    /// The frames gdb synthesizes for tail calls between a frame whose pc
    /// is in the function `callee` and its caller, which resumes at the
    /// return address `ret` (runtime addresses): when the caller's call
    /// site at `ret` (`DW_TAG_call_site`) names another function, which
    /// itself ends in a tail call (`DW_AT_call_tail_call`) to `callee`,
    /// that function had a frame the jump replaced. Returns its pc as gdb
    /// shows it (the address after the jump), or nothing. One level of
    /// tail calls, and only when exactly one site of the named function
    /// tail-calls `callee` (gdb gives up on ambiguous chains too).
    pub fn tail_call_frames(&self, map: &ModuleMap, callee: &str, ret: u64) -> Vec<u64> {
        // Call sites name functions as DWARF does (`ns::f`); a symbol's
        // demangled name has its parameters (`ns::f(int)`).
        let callee = function_base(callee);
        let Some(mapping) = map.find(ret) else {
            return Vec::new();
        };
        let Some((m, bias)) = self.module(map, mapping) else {
            return Vec::new();
        };
        let vret = ret.wrapping_sub(bias);
        let sites = crate::vars::callsite::sites_of_function_at(&m, vret.wrapping_sub(1));
        let Some(named) = sites
            .iter()
            .find(|s| s.ret == vret && !s.tail)
            .and_then(|s| s.callee.clone())
        else {
            return Vec::new();
        };
        if named == callee {
            return Vec::new();
        }
        let path = std::path::Path::new(&mapping.path);
        let Some(&(_, start, _)) = self
            .symbols
            .lookup(path, &named)
            .iter()
            .find(|f| function_base(&f.0) == named)
        else {
            return Vec::new();
        };
        let tails: Vec<u64> = crate::vars::callsite::sites_of_function_at(&m, start)
            .into_iter()
            .filter(|s| s.tail && s.callee.as_deref() == Some(callee))
            .map(|s| s.ret.wrapping_add(bias))
            .collect();
        if tails.len() == 1 {
            tails
        } else {
            Vec::new()
        }
    }

    /// Whether a condition read at `pc` can find the variable `name` (the
    /// first step of a path): a parameter or local in scope there, a global
    /// or an enumerator of a mapped module, the places
    /// [`Vars::lookup_scalar`] looks in. For checking a spec before it runs.
    pub fn knows(&self, map: &ModuleMap, pc: u64, name: &str) -> bool {
        let scope = self.scope(map, pc);
        let in_scope = scope
            .as_ref()
            .and_then(|s| s.frames.first())
            .is_some_and(|f| {
                f.locals
                    .iter()
                    .chain(f.params.iter())
                    .any(|v| v.name == name)
            });
        in_scope || self.global(map, None, name).is_ok() || self.enumerator(map, pc, name).is_some()
    }

    /// An enumerator's value, from the module at `pc` or any module.
    fn enumerator(&self, map: &ModuleMap, pc: u64, name: &str) -> Option<i64> {
        let first = map.find(pc).into_iter();
        first.chain(map.mappings().iter()).find_map(|mapping| {
            let (m, _) = self.module(map, mapping)?;
            m.named(name).iter().find_map(|n| match n {
                crate::vars::module::Named::Enumerator(v) => Some(*v),
                crate::vars::module::Named::Var(_) => None,
            })
        })
    }
}

/// The bytes of `var` in `frame`: one memory read per location piece.
fn read_raw(
    var: &VarDesc,
    frame: &FrameRegs,
    mem: &mut dyn Memory,
    callers: Option<&dyn location::EntryValues>,
) -> Result<Raw, VarError> {
    let m = &var.ty.m;
    let size = var
        .ty
        .size()
        .unwrap_or(0)
        .min(crate::vars::location::MAX_VALUE);
    match &var.data.loc {
        Loc::None => Err(VarError::OptimizedOut),
        Loc::Const(b) => {
            let mut bytes = b.clone();
            bytes.resize(size as usize, 0);
            Ok(Raw {
                bytes,
                known: None,
                addr: None,
            })
        }
        loc => {
            let env = Env {
                m,
                unit: var.data.die.unit,
                frame,
                bias: var.bias,
                frame_base: var.data.frame_base.as_deref(),
                callers,
            };
            let expr = loc.at(env.vaddr()).ok_or(VarError::OptimizedOut)?;
            let pieces = env.evaluate(expr, mem, 0)?;
            env.materialize(&pieces, size, mem)
        }
    }
}

/// Decodes `bytes` as type `ty` without reading memory (pointers print as
/// addresses): old and new values of a watched variable.
pub fn format_value(ty: &Ty, bytes: &[u8]) -> Value {
    format_value_with(ty, bytes, None, DecodeOpts::default())
}

/// Decodes `bytes` as type `ty`, following `char *` through `mem` if given.
pub fn format_value_with(
    ty: &Ty,
    bytes: &[u8],
    mem: Option<&mut dyn Memory>,
    opts: DecodeOpts,
) -> Value {
    crate::vars::decode::Decoder::new(&ty.m, mem, opts).value(ty.r, bytes, None, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shareable_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Vars>();
        send_sync::<VarDesc>();
        send_sync::<Ty>();
        send_sync::<Scope>();
        send_sync::<GlobalVar>();
    }

    #[test]
    fn errors_print_like_gdb() {
        assert_eq!(VarError::OptimizedOut.to_string(), "<optimized out>");
        assert_eq!(
            VarError::Unreadable(0x10).to_value(),
            Value::Unreadable(0x10)
        );
        assert_eq!(
            VarError::Unavailable(Unavailable::EntryValue).to_value(),
            Value::sym("<unavailable: entry value>")
        );
    }

    #[test]
    fn no_dwarf_no_answers() {
        let vars = Vars::new(&Symbolizer::new());
        let map = ModuleMap::default();
        assert!(vars.scope(&map, 0x1000).is_none());
        assert!(vars.params(&map, 0x1000).is_empty());
        assert_eq!(vars.after_prologue(&map, 0x1000), 0x1000);
        assert_eq!(
            vars.global(&map, None, "x").unwrap_err(),
            PathError::NotFound("x".into())
        );
        assert_eq!(
            vars.global(&map, None, "x..y").unwrap_err(),
            PathError::Syntax(2)
        );
    }
}
