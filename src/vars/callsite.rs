//! DWARF call sites (`DW_TAG_call_site`, DWARF 4's `DW_TAG_GNU_call_site`):
//! where a function calls which function, and whether as a tail call
//! (`DW_AT_call_tail_call`, `DW_AT_GNU_tail_call`). gdb synthesizes the
//! frames of tail calls from them: a function that ended in a jump to
//! another has no frame of its own, but its caller's call site names it.
//! Their parameters (`DW_TAG_call_site_parameter`) say what the caller put
//! in a register for the call, as an expression over the caller's frame:
//! what `DW_OP_entry_value` asks for.

use crate::symbols::Reader;
use crate::vars::module::{DieRef, ModVars};
use gimli::{AttributeValue, Expression, Operation};

/// `DW_AT_GNU_tail_call` (gimli names only the DWARF 5 attribute).
const DW_AT_GNU_TAIL_CALL: gimli::DwAt = gimli::DwAt(0x2115);
/// `DW_AT_GNU_call_site_value`, DWARF 4's `DW_AT_call_value`.
const DW_AT_GNU_CALL_SITE_VALUE: gimli::DwAt = gimli::DwAt(0x2111);
/// DIEs visited per function before giving up (corrupt trees).
const MAX_VISITS: usize = 200_000;

/// One call site of a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallSite {
    /// File address after the call (or jump) instruction.
    pub ret: u64,
    /// A tail call: a jump, the caller's frame is gone.
    pub tail: bool,
    /// The called function's qualified name (`ns::f`), when the site
    /// names it.
    pub callee: Option<String>,
    /// The unit the site is in (its parameters' expressions are evaluated
    /// with that unit's encoding).
    pub unit: usize,
    /// Register parameters: the DWARF register the callee receives it in
    /// and the expression of its value in the caller's frame.
    pub params: Vec<(u16, Expression<Reader>)>,
}

/// The call sites of the out-of-line function whose code contains file
/// address `vaddr` (in any nested block or inlined call).
pub(crate) fn sites_of_function_at(m: &ModVars, vaddr: u64) -> Vec<CallSite> {
    for (unit, u) in m.units.iter().enumerate() {
        if !u.ranges.iter().any(|&(b, e)| b <= vaddr && vaddr < e) {
            continue;
        }
        let mut entries = u.unit.entries();
        // The subprogram containing vaddr, at any depth (namespaces).
        let mut inside: Option<isize> = None;
        let mut out: Vec<CallSite> = Vec::new();
        // The depth of the last site pushed: its parameters are one below.
        let mut site_depth: Option<isize> = None;
        let mut visits = 0;
        while let Ok(Some(die)) = entries.next_dfs() {
            let depth = die.depth();
            visits += 1;
            if visits > MAX_VISITS {
                break;
            }
            if let Some(d) = inside {
                if depth <= d {
                    return out;
                }
                let tag = die.tag();
                if tag == gimli::DW_TAG_call_site || tag == gimli::DW_TAG_GNU_call_site {
                    site_depth = None;
                    if let Some(s) = site(m, unit, die) {
                        out.push(s);
                        site_depth = Some(depth);
                    }
                } else if (tag == gimli::DW_TAG_call_site_parameter
                    || tag == gimli::DW_TAG_GNU_call_site_parameter)
                    && site_depth == Some(depth - 1)
                {
                    if let (Some(p), Some(s)) = (param(m, unit, die), out.last_mut()) {
                        s.params.push(p);
                    }
                }
                continue;
            }
            if die.tag() == gimli::DW_TAG_subprogram && m.contains(unit, die, vaddr) {
                inside = Some(depth);
            }
        }
        if inside.is_some() {
            return out;
        }
    }
    Vec::new()
}

fn site(
    m: &ModVars,
    unit: usize,
    die: &gimli::DebuggingInformationEntry<crate::symbols::Reader>,
) -> Option<CallSite> {
    let u = &m.units.get(unit)?.unit;
    let pc_attr = die
        .attr_value(gimli::DW_AT_call_return_pc)
        .or_else(|| die.attr_value(gimli::DW_AT_low_pc))?;
    let ret = m.dwarf.attr_address(u, pc_attr).ok()??;
    let flag = |at| matches!(die.attr_value(at), Some(gimli::AttributeValue::Flag(true)));
    let tail = flag(gimli::DW_AT_call_tail_call) || flag(DW_AT_GNU_TAIL_CALL);
    let origin: Option<DieRef> = m
        .attr_ref(unit, die, gimli::DW_AT_call_origin)
        .or_else(|| m.attr_ref(unit, die, gimli::DW_AT_abstract_origin));
    Some(CallSite {
        ret,
        tail,
        callee: origin.and_then(|r| crate::vars::qualify::qualified_name(m, r)),
        unit,
        params: Vec::new(),
    })
}

/// A register parameter of a call site: `DW_AT_location` one
/// `DW_OP_regN`, and its `DW_AT_call_value`. Parameters passed on the
/// stack (a `DW_OP_bregN` location) are left out.
fn param(
    m: &ModVars,
    unit: usize,
    die: &gimli::DebuggingInformationEntry<Reader>,
) -> Option<(u16, Expression<Reader>)> {
    let encoding = m.units.get(unit)?.unit.encoding();
    let loc = match die.attr_value(gimli::DW_AT_location)? {
        AttributeValue::Exprloc(e) => e,
        AttributeValue::Block(b) => Expression(b),
        _ => return None,
    };
    let reg = single_register(&loc, encoding)?;
    let value = match die
        .attr_value(gimli::DW_AT_call_value)
        .or_else(|| die.attr_value(DW_AT_GNU_CALL_SITE_VALUE))?
    {
        AttributeValue::Exprloc(e) => e,
        AttributeValue::Block(b) => Expression(b),
        _ => return None,
    };
    Some((reg, value))
}

/// The register of an expression that is exactly one `DW_OP_regN` or
/// `DW_OP_regx N`.
pub(crate) fn single_register(e: &Expression<Reader>, encoding: gimli::Encoding) -> Option<u16> {
    let mut ops = e.clone().operations(encoding);
    let reg = match ops.next().ok()?? {
        Operation::Register { register } => register.0,
        _ => return None,
    };
    ops.next().ok()?.is_none().then_some(reg)
}
