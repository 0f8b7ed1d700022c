//! One unwind step: from a frame's registers to its caller's, by CFI rules,
//! a signal context, or the frame-pointer chain.

use super::cfi::{Found, ModuleCfi};
use super::memcache::PageCache;
use super::regs::InitialRegs;
use gimli::{CfaRule, Register, RegisterRule};

/// What one step found.
pub enum Step {
    /// The caller's registers.
    Caller(Box<InitialRegs>),
    /// The CFI says there is no caller (return address undefined: `_start`,
    /// thread start routines).
    End,
    /// The rules could not be evaluated (unreadable memory, bad expression).
    Failed,
}

/// Applies CFI `found` (of module `cfi`) to the frame with registers `cur`.
pub fn apply_cfi(
    cur: &InitialRegs,
    found: &Found,
    cfi: &ModuleCfi,
    mem: &mut PageCache<'_>,
) -> Step {
    let arch = cur.arch;
    let ptr = arch.ptr;
    let Some(cfa) = cfa(cur, found, cfi, mem) else {
        return Step::Failed;
    };
    let mut next = InitialRegs::empty(arch);
    let count = arch.names.len().max(usize::from(arch.ra) + 1) as u16;
    for n in 0..count {
        let value = match found.row.register(Register(n)) {
            // Unspecified: callee-saved by convention, as gdb assumes.
            None | Some(RegisterRule::SameValue) => cur.get(n),
            Some(RegisterRule::Undefined | RegisterRule::Architectural) => None,
            Some(RegisterRule::Offset(o)) => match mem.read_word(cfa.wrapping_add(o as u64), ptr) {
                Some(v) => Some(v),
                None => return Step::Failed,
            },
            Some(RegisterRule::ValOffset(o)) => Some(cfa.wrapping_add(o as u64)),
            Some(RegisterRule::Register(r)) => cur.get(r.0),
            Some(RegisterRule::Expression(e)) => {
                let addr = cfi
                    .expression(found.source, &e)
                    .and_then(|e| evaluate(e, cur, mem, Some(cfa), cfi.address_size));
                match addr.and_then(|a| mem.read_word(a, ptr)) {
                    Some(v) => Some(v),
                    None => return Step::Failed,
                }
            }
            Some(RegisterRule::ValExpression(e)) => {
                match cfi
                    .expression(found.source, &e)
                    .and_then(|e| evaluate(e, cur, mem, Some(cfa), cfi.address_size))
                {
                    Some(v) => Some(v),
                    None => return Step::Failed,
                }
            }
            Some(RegisterRule::Constant(c)) => Some(c),
        };
        next.set(n, value);
    }
    // The CFA is the caller's stack pointer unless a rule says otherwise.
    if found.row.register(Register(arch.sp)).is_none() {
        next.set(arch.sp, Some(cfa));
    }
    match next.get(arch.ra) {
        Some(ra) => {
            next.pc = ra;
            Step::Caller(Box::new(next))
        }
        None => Step::End,
    }
}

/// The canonical frame address of the frame with registers `cur` under
/// CFI `found` (of module `cfi`): the caller's stack pointer before the call.
pub fn cfa(
    cur: &InitialRegs,
    found: &Found,
    cfi: &ModuleCfi,
    mem: &mut PageCache<'_>,
) -> Option<u64> {
    match found.row.cfa() {
        CfaRule::RegisterAndOffset { register, offset } => cur
            .get(register.0)
            .map(|base| base.wrapping_add(*offset as u64)),
        CfaRule::Expression(e) => cfi
            .expression(found.source, e)
            .and_then(|e| evaluate(e, cur, mem, None, cfi.address_size)),
    }
}

/// Frame-pointer chain: `[fp]` is the caller's fp and `[fp + ptr]` the
/// return address (x86_64 `push rbp; mov rbp, rsp`, aarch64 frame records).
/// Other registers are assumed unchanged.
pub fn frame_pointer(cur: &InitialRegs, mem: &mut PageCache<'_>) -> Step {
    let arch = cur.arch;
    let ptr = u64::from(arch.ptr);
    let (Some(fp), Some(sp)) = (cur.get(arch.fp), cur.sp()) else {
        return Step::Failed;
    };
    // A frame pointer that is not a plausible stack address above sp means
    // the register holds something else (code built without frame pointers).
    if fp < sp || fp % ptr != 0 || fp - sp > 1 << 24 {
        return Step::Failed;
    }
    let (Some(saved_fp), Some(ra)) = (
        mem.read_word(fp, arch.ptr),
        mem.read_word(fp + ptr, arch.ptr),
    ) else {
        return Step::Failed;
    };
    let mut next = cur.clone();
    next.set(arch.fp, Some(saved_fp));
    next.set(arch.sp, Some(fp + 2 * ptr));
    next.set(arch.ra, Some(ra));
    next.pc = ra;
    Step::Caller(Box::new(next))
}

/// Evaluates a CFI DWARF expression; `push` is the initial stack value (the
/// CFA, for register rules).
fn evaluate(
    expr: gimli::Expression<crate::symbols::Reader>,
    cur: &InitialRegs,
    mem: &mut PageCache<'_>,
    push: Option<u64>,
    address_size: u8,
) -> Option<u64> {
    let encoding = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 4,
        address_size,
    };
    let mut eval = expr.evaluation(encoding);
    eval.set_max_iterations(10_000);
    if let Some(v) = push {
        eval.set_initial_value(v);
    }
    let mut state = eval.evaluate().ok()?;
    loop {
        state = match state {
            gimli::EvaluationResult::Complete => break,
            gimli::EvaluationResult::RequiresMemory {
                address,
                size,
                space: None,
                ..
            } => {
                let v = mem.read_word(address, size)?;
                eval.resume_with_memory(gimli::Value::Generic(v)).ok()?
            }
            gimli::EvaluationResult::RequiresRegister { register, .. } => {
                let v = cur.get(register.0)?;
                eval.resume_with_register(gimli::Value::Generic(v)).ok()?
            }
            _ => return None,
        };
    }
    match eval.result().first()?.location {
        gimli::Location::Address { address } => Some(address),
        gimli::Location::Value { value } => value.to_u64(u64::MAX).ok(),
        _ => None,
    }
}
