//! Condition values from a stopped thread's register words: `$rdi`,
//! `$argN` (by ABI position, or the arguments saved at entry for a return
//! probe) and `$retval`, shared by breakpoint hits and watchpoint hits.

use super::{EvalError, ValueProvider};
use rtrace_arch::x86_64::{reg_index, ARG_REGS, RET};

/// Register values for conditions.
pub struct RegValues<'a> {
    /// The register words.
    pub regs: &'a [u64],
    /// Arguments at entry (return probes); else the argument registers.
    pub args: Option<[u64; 6]>,
    /// At a return: the return value is meaningful.
    pub at_return: bool,
}

impl ValueProvider for RegValues<'_> {
    fn dollar(&mut self, name: &str) -> Result<i64, EvalError> {
        if let Some(n) = name
            .strip_prefix("arg")
            .and_then(|n| n.parse::<usize>().ok())
        {
            if (1..=6).contains(&n) {
                return Ok(match self.args {
                    Some(a) => a[n - 1],
                    None => self.regs[ARG_REGS[n - 1]],
                } as i64);
            }
        }
        if name == "retval" {
            return if self.at_return {
                Ok(self.regs[RET] as i64)
            } else {
                Err(EvalError::Unavailable(name.into()))
            };
        }
        reg_index(name)
            .and_then(|i| self.regs.get(i))
            .map(|v| *v as i64)
            .ok_or_else(|| EvalError::UnknownRegister(name.into()))
    }
}
