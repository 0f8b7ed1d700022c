//! Where gdb 13's `break FUNC` goes, so that rtrace's function breakpoints
//! stop at the same instruction (and therefore the same line and the same
//! argument values). gdb decides in this order:
//!
//! 1. a line-table row of the function flagged `prologue_end` (LLVM and
//!    rustc emit it, GCC does not): there;
//! 2. a compilation unit whose producer is GCC 4.5 or later and in which
//!    some variable or parameter has a location list is "locations valid":
//!    its locations describe every instruction, so the function's entry;
//! 3. otherwise the architecture's prologue analyser (on x86-64, past
//!    `push %rbp; mov %rsp,%rbp`, else the entry: see
//!    `rtrace_arch::prologue`) and, when that lands inside a line-table
//!    row, the start of the next row if it is still in the function.
//!
//! So at -O0 with a frame pointer a breakpoint goes to the second row
//! (where the arguments are in their frame slots), at -O0 without one to
//! the entry, and in an optimised unit with location lists to the entry.
//! Non-goals: gdb's line-table prologue search for clang units without
//! `prologue_end` (clang emits it), and modules without DWARF (their
//! functions keep the entry).

use crate::symbols::ModuleMap;
use crate::vars::module::ModVars;
use crate::vars::Vars;
use gimli::AttributeValue;
use rtrace_arch::prologue::FrameSetup;

impl Vars {
    /// Where gdb's `break FUNC` stops in the function entered at `entry`
    /// (a runtime address): its `prologue_end` row, else the entry in a
    /// unit whose locations gdb trusts there (optimized GCC code), else
    /// past the frame setup, rounded up to the next line-table row (this
    /// module's rules). `entry` when there is no DWARF for it.
    pub fn after_prologue(&self, map: &ModuleMap, entry: u64) -> u64 {
        let Some(mapping) = map.find(entry) else {
            return entry;
        };
        let Some((m, bias)) = self.module(map, mapping) else {
            return entry;
        };
        let vaddr = entry.wrapping_sub(bias);
        let setup = || {
            let image = self.symbols.module(map, mapping);
            let image = image.as_ref().and_then(|md| md.image());
            let arch = image.and_then(|i| rtrace_arch::Arch::for_elf_machine(i.machine));
            let code = image.and_then(|i| i.code(vaddr, 16));
            match (arch, code) {
                (Some(a), Some(c)) => rtrace_arch::prologue::frame_setup(a, c),
                _ => FrameSetup::At(0),
            }
        };
        break_site(&m, vaddr, setup).wrapping_add(bias)
    }

    /// Whether `pc` (a runtime address) is where a function, not an
    /// inlined call, is entered. gdb moves a `break FILE:LINE` that lands
    /// there past the prologue, as `break FUNC` (its `skip_prologue_sal`).
    pub fn is_function_entry(&self, map: &ModuleMap, pc: u64) -> bool {
        let Some((m, bias)) = map.find(pc).and_then(|mp| self.module(map, mp)) else {
            return false;
        };
        let vaddr = pc.wrapping_sub(bias);
        let data = m.scope_cached(vaddr, || crate::vars::scope::build(&m, vaddr));
        data.frames
            .last()
            .is_some_and(|f| !f.inlined && f.entry == Some(vaddr))
    }
}

/// Line-table rows read per lookup at most.
const MAX_ROWS: usize = 1_000_000;
/// DIEs read per unit when looking for a location list.
const MAX_DIES: usize = 4_000_000;

/// gdb's breakpoint address for the function entered at file address
/// `vaddr`; `setup` runs the architecture's prologue analyser on the
/// function's code when gdb would.
pub(crate) fn break_site(m: &ModVars, vaddr: u64, setup: impl FnOnce() -> FrameSetup) -> u64 {
    let Some(unit) = m
        .units
        .iter()
        .position(|u| u.ranges.iter().any(|&(b, e)| b <= vaddr && vaddr < e))
    else {
        return vaddr;
    };
    let rows = sequence_rows(m, unit, vaddr);
    let function = |a: u64| {
        let s = m.scope_cached(a, || crate::vars::scope::build(m, a));
        s.frames.last().map(|f| f.function.clone())
    };
    let own = function(vaddr);
    let in_function = |a: u64| own.is_some() && function(a) == own;
    if let Some(&(a, _)) = rows.iter().find(|&&(a, flagged)| flagged && a >= vaddr) {
        if in_function(a) {
            return a;
        }
    }
    if locations_valid(m, unit) {
        return vaddr;
    }
    let pc = match setup() {
        FrameSetup::At(n) => vaddr.wrapping_add(n as u64),
        FrameSetup::FirstRowEnd => {
            return next_row(&rows, vaddr)
                .filter(|&n| in_function(n))
                .unwrap_or(vaddr)
        }
    };
    // At the start of a row already (the entry of a frameless function).
    if rows.iter().any(|&(a, _)| a == pc) {
        return pc;
    }
    match next_row(&rows, pc) {
        Some(n) if in_function(n) => n,
        _ => pc,
    }
}

/// `(address, prologue_end)` of the rows of the line-table sequence of
/// unit `unit` that covers `vaddr`, in order, its end marker excluded.
fn sequence_rows(m: &ModVars, unit: usize, vaddr: u64) -> Vec<(u64, bool)> {
    let Some(program) = m.units[unit].unit.line_program.clone() else {
        return Vec::new();
    };
    let mut rows = program.rows();
    let mut seq: Vec<(u64, bool)> = Vec::new();
    let mut count = 0;
    while let Ok(Some((_, row))) = rows.next_row() {
        count += 1;
        if count > MAX_ROWS {
            break;
        }
        let a = row.address();
        if !row.end_sequence() {
            seq.push((a, row.prologue_end()));
            continue;
        }
        if seq.first().is_some_and(|&(b, _)| b <= vaddr) && vaddr < a {
            return seq;
        }
        seq.clear();
    }
    Vec::new()
}

/// The first row address after `vaddr` (the end of the row holding it).
fn next_row(rows: &[(u64, bool)], vaddr: u64) -> Option<u64> {
    rows.iter().map(|&(a, _)| a).find(|&a| a > vaddr)
}

/// gdb's "locations valid" for unit `unit` (computed once per unit).
pub(crate) fn locations_valid(m: &ModVars, unit: usize) -> bool {
    let u = &m.units[unit];
    *u.locations_valid.get_or_init(|| {
        let producer = u
            .unit
            .entries()
            .next_dfs()
            .ok()
            .flatten()
            .and_then(|root| root.attr_value(gimli::DW_AT_producer))
            .and_then(|v| m.string(unit, v));
        producer.as_deref().and_then(gcc_version) >= Some((4, 5)) && has_location_list(m, unit)
    })
}

/// Whether a variable or parameter of unit `unit` has a location list.
fn has_location_list(m: &ModVars, unit: usize) -> bool {
    let mut entries = m.units[unit].unit.entries();
    let mut n = 0;
    while let Ok(Some(die)) = entries.next_dfs() {
        n += 1;
        if n > MAX_DIES {
            return false;
        }
        if !matches!(
            die.tag(),
            gimli::DW_TAG_variable | gimli::DW_TAG_formal_parameter
        ) {
            continue;
        }
        if matches!(
            die.attr_value(gimli::DW_AT_location),
            Some(AttributeValue::LocationListsRef(_) | AttributeValue::DebugLocListsIndex(_))
        ) {
            return true;
        }
    }
    false
}

/// The version of a GCC `DW_AT_producer` ("GNU C17 12.2.0 -O2 ...",
/// "GNU C++14 5.0.0 ...": "GNU ", a language word, then major.minor), as
/// gdb reads it; `None` for other producers.
pub(crate) fn gcc_version(producer: &str) -> Option<(u32, u32)> {
    let rest = producer.strip_prefix("GNU ")?;
    let (_, version) = rest.split_once(char::is_whitespace)?;
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcc_versions_as_gdb_reads_them() {
        assert_eq!(
            gcc_version("GNU C17 12.2.0 -mtune=generic -O2 -g"),
            Some((12, 2))
        );
        assert_eq!(
            gcc_version("GNU C++14 5.0.0 20150123 (experimental)"),
            Some((5, 0))
        );
        assert_eq!(gcc_version("GNU C 4.4.7"), Some((4, 4)));
        assert!(gcc_version("GNU C 4.4.7") < Some((4, 5)));
        assert!(gcc_version("GNU C 4.5.1") >= Some((4, 5)));
        assert_eq!(gcc_version("GNU AS 2.40"), Some((2, 40)));
        assert_eq!(gcc_version("clang LLVM (rustc version 1.95.0)"), None);
        assert_eq!(gcc_version("Debian clang version 14.0.6"), None);
        assert_eq!(gcc_version("GNU"), None);
    }

    #[test]
    fn next_row_is_the_end_of_the_row_holding_an_address() {
        let rows = [(0x10, false), (0x14, false), (0x14, true), (0x20, false)];
        assert_eq!(next_row(&rows, 0x10), Some(0x14));
        assert_eq!(next_row(&rows, 0x16), Some(0x20));
        assert_eq!(next_row(&rows, 0x20), None);
    }
}
