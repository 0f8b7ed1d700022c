//! Argument and return values of a stopped thread, for the formatter
//! ([`super::format::ArgSource`]): integer arguments from the ABI's
//! argument registers and then the stack, floating arguments from the
//! vector registers (read on first use only), memory through
//! `process_vm_readv`. Register names stay in `rtrace_arch`.

use super::format::{ArgSource, RetVals};
use crate::engine::memory::proc::ProcMem;
use crate::engine::memory::Memory;
use crate::engine::ptrace::Tid;
use rtrace_arch::x86_64::{self as x, ARG_REGS, RET, RET2, SP};

/// Reads the floating-point register set (`PTRACE_GETREGSET`,
/// `NT_PRFPREG`) of the stopped thread `tid`.
fn fpregs(tid: Tid) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; x::FPREGS_BYTES];
    crate::sys::ptrace::get_regset(tid, x::NT_PRFPREG as usize, &mut buf).ok()?;
    Some(buf)
}

/// The arguments of a call, seen at the function's first instruction (the
/// return address at the stack pointer, stack arguments above it).
pub struct Args<'a> {
    tid: Tid,
    regs: &'a [u64],
    mem: ProcMem,
    fp: Option<Option<Vec<u8>>>,
}

impl<'a> Args<'a> {
    /// The arguments of thread `tid` stopped with registers `regs`.
    pub fn new(tid: Tid, regs: &'a [u64]) -> Args<'a> {
        Args {
            tid,
            regs,
            mem: ProcMem::new(tid),
            fp: None,
        }
    }

    fn fp(&mut self) -> Option<&[u8]> {
        if self.fp.is_none() {
            self.fp = Some(fpregs(self.tid));
        }
        self.fp.as_ref().and_then(|f| f.as_deref())
    }

    fn stack_word(&mut self, i: usize) -> u64 {
        // Past the return address.
        let addr = self.regs[SP].wrapping_add(8 + 8 * i as u64);
        let mut b = [0u8; 8];
        if self.mem.read(addr, &mut b) == 8 {
            u64::from_le_bytes(b)
        } else {
            0
        }
    }

    /// Return values now (at the return trampoline); the vector registers
    /// are read only when `float` (the return type uses them), the second
    /// return registers only when `pair` (a struct returned in two).
    pub fn ret_vals(&mut self, float: bool, pair: bool) -> RetVals {
        let mut xmm = |i| match float {
            true => self.fp().and_then(|f| x::xmm_f64(f, i)).unwrap_or(0.0),
            false => 0.0,
        };
        let (f0, f1) = (xmm(0), if pair { xmm(1) } else { 0.0 });
        RetVals {
            int: self.regs[RET],
            float: f0,
            second: if pair {
                (self.regs[RET2], f1)
            } else {
                (0, 0.0)
            },
        }
    }
}

impl ArgSource for Args<'_> {
    fn int_arg(&mut self, i: usize) -> u64 {
        match ARG_REGS.get(i) {
            Some(&r) => self.regs[r],
            None => self.stack_word(i - ARG_REGS.len()),
        }
    }

    fn float_arg(&mut self, i: usize) -> f64 {
        if i < x::FP_ARG_REGS {
            return self.fp().and_then(|f| x::xmm_f64(f, i)).unwrap_or(0.0);
        }
        // Floating arguments beyond the registers share the stack with the
        // integer ones; their slot is not known without the whole
        // signature, so this reads the slot after the last register.
        f64::from_bits(self.stack_word(i - x::FP_ARG_REGS))
    }

    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        self.mem.read(addr, buf)
    }
}
