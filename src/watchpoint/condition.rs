//! The values a watch condition (`rtrace watch 'x if x > 5'`) reads at a
//! hit: `$` names are the trapping thread's registers (as at a
//! breakpoint, [`RegValues`]); variables are read in the scope of the
//! watched expression, as gdb evaluates `watch x if COND`:
//! - a global's watch reads in the global scope: a local of the function
//!   that made the access does not hide a global of the same name;
//! - a local's watch (`func:var if COND`) reads in the watched activation
//!   of `func` (its locals and parameters, then globals), whichever
//!   function made the access.

use crate::engine::memory::Memory;
use crate::probe::cond::{EvalError, Expr as CondExpr, RegValues, ValueProvider};
use crate::symbols::ModuleMap;
use crate::unwind::{ArchRegs, InitialRegs};
use crate::vars::{parse_path, FrameRegs, PathError, Vars};

/// Condition values at one watchpoint hit.
pub struct ScopeValues<'a> {
    /// The trapping thread's register words.
    pub regs: &'a [u64],
    /// The DWARF variables reader.
    pub vars: &'a Vars,
    /// The process's modules.
    pub map: &'a ModuleMap,
    /// The process's memory.
    pub mem: &'a mut dyn Memory,
    /// The register model of the process's architecture.
    pub arch: &'static ArchRegs,
    /// The frame names are read in: a local's watched activation, or
    /// `None`, the global scope.
    pub frame: Option<FrameRegs>,
}

impl ScopeValues<'_> {
    fn lookup(&mut self, path: &str) -> Result<i64, PathError> {
        // With no function around it, lookups find globals and
        // enumerators only.
        let frame = self
            .frame
            .clone()
            .unwrap_or_else(|| FrameRegs::new(InitialRegs::empty(self.arch), None));
        self.vars.lookup_scalar(self.map, &frame, self.mem, path)
    }

    /// Refuses a condition naming a variable that is not a global, an
    /// enumerator of a mapped module or (a local's watch) a variable of
    /// the watched frame; checked before the first hit.
    pub fn check(&mut self, cond: &CondExpr) -> Result<(), String> {
        for leaf in cond.names() {
            let CondExpr::Var(path) = leaf else { continue };
            let Ok((name, _)) = parse_path(path) else {
                continue;
            };
            // The variable alone: a struct is "not a scalar" but exists,
            // and a path through a pointer may only be readable later.
            if let Err(PathError::NotFound(n)) = self.lookup(&name) {
                return Err(if self.frame.is_some() {
                    format!(
                        "no variable of the watched function, global variable or enumerator \
                         '{n}' (a local's watch condition reads those and registers)"
                    )
                } else {
                    format!(
                        "no global variable or enumerator '{n}' (a watch condition reads \
                         globals and registers)"
                    )
                });
            }
        }
        Ok(())
    }
}

impl ValueProvider for ScopeValues<'_> {
    fn dollar(&mut self, name: &str) -> Result<i64, EvalError> {
        RegValues {
            regs: self.regs,
            args: None,
            at_return: false,
        }
        .dollar(name)
    }

    fn variable(&mut self, name: &str) -> Result<i64, EvalError> {
        self.lookup(name).map_err(|e| EvalError::Variable {
            name: name.to_string(),
            why: e.to_string(),
        })
    }
}
