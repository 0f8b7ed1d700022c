//! Condition values over one unwound frame of a stopped thread: program
//! variables from DWARF, registers from the frame's register set.

use super::{EvalError, ValueProvider};
use crate::engine::memory::Memory;
use crate::symbols::ModuleMap;
use crate::vars::{FrameRegs, Vars};

/// Values for conditions over a stopped frame: a `PATH` is read through
/// [`Vars::lookup_scalar`], `$NAME` is a register of the frame by its
/// DWARF name (`$rdi`, `$rip`) or `$pc`, `$sp`, `$fp`. `$argN` and
/// `$retval` belong to a probe (entry or return), not a frame: they are
/// [`EvalError::Unavailable`] here.
pub struct FrameValues<'a> {
    /// The DWARF variables reader.
    pub vars: &'a Vars,
    /// The process's modules.
    pub map: &'a ModuleMap,
    /// The frame's registers and CFA.
    pub frame: &'a FrameRegs,
    /// The process's memory.
    pub mem: &'a mut dyn Memory,
}

impl ValueProvider for FrameValues<'_> {
    fn dollar(&mut self, name: &str) -> Result<i64, EvalError> {
        if name == "retval" || is_arg(name) {
            return Err(EvalError::Unavailable(name.to_string()));
        }
        let regs = &self.frame.regs;
        let arch = regs.arch;
        let n = match name {
            "pc" => return Ok(regs.pc as i64),
            "sp" => Some(arch.sp),
            "fp" => Some(arch.fp),
            _ => arch.names.iter().position(|r| *r == name).map(|n| n as u16),
        };
        let n = n.ok_or_else(|| EvalError::UnknownRegister(name.to_string()))?;
        if n == arch.ra && usize::from(n) < arch.names.len() {
            // The return-address column is the pc itself (x86_64 `rip`).
            return Ok(regs.pc as i64);
        }
        regs.get(n)
            .map(|v| v as i64)
            .ok_or_else(|| EvalError::Unavailable(name.to_string()))
    }

    fn variable(&mut self, name: &str) -> Result<i64, EvalError> {
        self.vars
            .lookup_scalar(self.map, self.frame, self.mem, name)
            .map_err(|e| EvalError::Variable {
                name: name.to_string(),
                why: e.to_string(),
            })
    }
}

/// `arg1` … `arg6`.
fn is_arg(name: &str) -> bool {
    name.strip_prefix("arg")
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| (1..=6).contains(&n))
}
