//! What the watch tool needs from symbol information, as a trait, so the
//! tool runs (with `*ADDR[:LEN]` and raw addresses) where symbols are
//! missing and tests can supply their own.

use super::value::ValueFormatter;
use crate::engine::ptrace::Tid;
use crate::probe::cond::{EvalError, Expr as CondExpr, RegValues};
use crate::probe::frames::BtEntry;
use crate::unwind::backtrace::Depth;
use std::fmt;
use std::path::{Path, PathBuf};

/// A symbol found in a file, before the process that maps it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSymbol {
    /// The file (as given; compared with `/proc/PID/maps` after
    /// canonicalisation).
    pub path: PathBuf,
    /// Its name.
    pub name: String,
    /// File virtual address.
    pub vaddr: u64,
    /// Size in bytes (0 if unknown).
    pub size: u64,
}

/// A code location: `func+0xoff (file:line)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// The address.
    pub addr: u64,
    /// The containing function.
    pub func: Option<String>,
    /// `addr` minus the function's start.
    pub off: Option<u64>,
    /// The innermost inlined function at `addr`, when not `func`.
    pub inlined: Option<String>,
    /// Source file.
    pub file: Option<String>,
    /// Source line.
    pub line: Option<u32>,
}

impl Place {
    /// The start of the containing function, when known.
    pub fn func_start(&self) -> Option<u64> {
        self.off.map(|o| self.addr - o)
    }
}

impl fmt::Display for Place {
    /// `func+0xoff (file:line)`, `inl [inlined in func+0xoff] (file:line)`,
    /// or the bare address.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.func, self.off) {
            (Some(func), Some(off)) => {
                if let Some(inl) = &self.inlined {
                    write!(f, "{inl} [inlined in {func}+{off:#x}]")?;
                } else {
                    write!(f, "{func}+{off:#x}")?;
                }
            }
            (Some(func), None) => f.write_str(func)?,
            _ => write!(f, "{:#x}", self.addr)?,
        }
        if let Some(file) = &self.file {
            let short = Path::new(file)
                .file_name()
                .map_or(file.as_str(), |n| n.to_str().unwrap_or(file));
            write!(f, " ({short}:{})", self.line.unwrap_or(0))?;
        }
        Ok(())
    }
}

/// A global variable, or a part of one, placed and typed by DWARF.
pub struct TypedGlobal {
    /// Runtime address.
    pub addr: u64,
    /// Size in bytes.
    pub size: u64,
    /// C type name (`int`, `enum color`).
    pub type_name: String,
    /// Decodes its bytes by that type.
    pub formatter: Box<dyn ValueFormatter>,
}

/// A local variable of a function a thread has just entered: where it
/// lives in this activation and how that activation ends.
pub struct LocalFrame {
    /// Runtime address of the variable in this activation.
    pub addr: u64,
    /// Size in bytes.
    pub size: u64,
    /// Decodes its bytes by its DWARF type.
    pub formatter: Box<dyn ValueFormatter>,
    /// The activation's canonical frame address: the caller's stack
    /// pointer once the function has returned.
    pub cfa: u64,
    /// The return address: where the caller resumes.
    pub ret: u64,
}

/// The activation a local's watch follows: the thread running it and its
/// canonical frame address, which names the frame among the thread's
/// frames at any hit (a write by a callee through a pointer included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchedFrame {
    /// The thread running the activation.
    pub tid: Tid,
    /// Its canonical frame address.
    pub cfa: u64,
}

/// Symbol lookups for the watch tool.
pub trait SymbolSource {
    /// A data object (`code == false`) or function (`code == true`) named
    /// `name` in the executable `exe`.
    fn find(&mut self, exe: &Path, name: &str, code: bool) -> Result<FileSymbol, String>;

    /// Whether `name` may be a global of a shared library `exe` loads at
    /// start-up, looked for once they are loaded: `exe` is a dynamically
    /// linked ELF program (it names a program interpreter) that defines no
    /// symbol `name` at all (no variable, function or thread-local).
    fn may_be_in_library(&mut self, exe: &Path, name: &str) -> bool;

    /// The global variable `name` of a library mapped in process `pid`
    /// (any mapped file but `exe`, in map order), once the dynamic linker
    /// has loaded them.
    fn find_loaded(&mut self, pid: Tid, exe: &Path, name: &str) -> Result<FileSymbol, String>;

    /// Where `sym` is in process `pid` (its file's load bias applied).
    /// Reads the process's module map afresh.
    fn runtime_addr(&mut self, pid: Tid, sym: &FileSymbol) -> Result<u64, String>;

    /// A global variable or a part of one (`counter`, `cfg.origin.y`,
    /// `table[3]`) of the executable `exe`, as mapped in process `pid`,
    /// from DWARF.
    fn dwarf_global(&mut self, pid: Tid, exe: &Path, expr: &str) -> Result<TypedGlobal, String>;

    /// The location of `addr` in process `pid` (module map as last read).
    fn place(&mut self, pid: Tid, addr: u64) -> Place;

    /// Frames of stopped thread `tid` as gdb's `bt` lists them (innermost
    /// first, within `depth`), each with its function's arguments where
    /// there is DWARF for it; `None` without an unwinder.
    fn backtrace(&mut self, pid: Tid, tid: Tid, depth: Depth) -> Option<Vec<BtEntry>>;

    /// Whether [`SymbolSource::backtrace`] can work at all.
    fn can_backtrace(&self) -> bool;

    /// Refuses a watch condition that names something process `pid` does
    /// not have: a variable that is not a global, or, for a local's watch
    /// (`frame`), neither a global nor a variable of the watched
    /// activation. Called once the watches are placed (a local's: at each
    /// activation, its thread stopped at the function's entry).
    fn check_condition(
        &mut self,
        pid: Tid,
        cond: &CondExpr,
        frame: Option<WatchedFrame>,
    ) -> Result<(), String>;

    /// Whether `cond` holds at a hit in process `pid`, the trapping thread
    /// stopped with register words `regs`
    /// ([`super::condition::ScopeValues`]); a local's watch reads its
    /// names in the watched activation `frame` first, as gdb evaluates the
    /// condition of `watch var if COND` in the frame the watch was set in.
    fn condition(
        &mut self,
        pid: Tid,
        regs: &[u64],
        cond: &CondExpr,
        frame: Option<WatchedFrame>,
    ) -> Result<bool, EvalError>;

    /// The local (or parameter) `var` of the function thread `tid` of
    /// process `pid` is stopped at the first instruction of, placed in
    /// this activation by DWARF (read in the scope past the prologue), with
    /// the activation's CFA and return address from the unwinder.
    fn local_frame(&mut self, pid: Tid, tid: Tid, var: &str) -> Result<LocalFrame, String>;
}

/// No symbol information: names cannot be resolved, places are addresses.
#[derive(Debug, Default)]
pub struct NoSymbols;

impl SymbolSource for NoSymbols {
    fn find(&mut self, _exe: &Path, name: &str, _code: bool) -> Result<FileSymbol, String> {
        Err(format!(
            "cannot look up '{name}': this build has no symbol support; use *ADDR[:LEN]"
        ))
    }

    fn may_be_in_library(&mut self, _exe: &Path, _name: &str) -> bool {
        false
    }

    fn find_loaded(&mut self, _pid: Tid, exe: &Path, name: &str) -> Result<FileSymbol, String> {
        self.find(exe, name, false)
    }

    fn runtime_addr(&mut self, _pid: Tid, sym: &FileSymbol) -> Result<u64, String> {
        Ok(sym.vaddr)
    }

    fn dwarf_global(&mut self, _pid: Tid, _exe: &Path, expr: &str) -> Result<TypedGlobal, String> {
        Err(format!(
            "cannot resolve {expr}: this build reads no DWARF; use *ADDR[:LEN]"
        ))
    }

    fn place(&mut self, _pid: Tid, addr: u64) -> Place {
        Place {
            addr,
            ..Place::default()
        }
    }

    fn backtrace(&mut self, _pid: Tid, _tid: Tid, _depth: Depth) -> Option<Vec<BtEntry>> {
        None
    }

    fn can_backtrace(&self) -> bool {
        false
    }

    fn check_condition(
        &mut self,
        _pid: Tid,
        cond: &CondExpr,
        _frame: Option<WatchedFrame>,
    ) -> Result<(), String> {
        match cond.names().iter().find(|n| matches!(n, CondExpr::Var(_))) {
            Some(CondExpr::Var(v)) => Err(format!(
                "cannot read '{v}': this build reads no DWARF; test registers only"
            )),
            _ => Ok(()),
        }
    }

    fn condition(
        &mut self,
        _pid: Tid,
        regs: &[u64],
        cond: &CondExpr,
        _frame: Option<WatchedFrame>,
    ) -> Result<bool, EvalError> {
        cond.holds(&mut RegValues {
            regs,
            args: None,
            at_return: false,
        })
    }

    fn local_frame(&mut self, _pid: Tid, _tid: Tid, var: &str) -> Result<LocalFrame, String> {
        Err(format!(
            "cannot place the local '{var}': this build reads no DWARF"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_render_like_gdb() {
        let p = Place {
            addr: 0x1010,
            func: Some("bump".into()),
            off: Some(0x10),
            inlined: None,
            file: Some("/src/testprogs/wp.c".into()),
            line: Some(12),
        };
        assert_eq!(p.to_string(), "bump+0x10 (wp.c:12)");
        assert_eq!(p.func_start(), Some(0x1000));
        let bare = Place {
            addr: 0x1010,
            ..Place::default()
        };
        assert_eq!(bare.to_string(), "0x1010");
        let inl = Place {
            inlined: Some("helper".into()),
            ..p
        };
        assert_eq!(inl.to_string(), "helper [inlined in bump+0x10] (wp.c:12)");
    }
}
