//! Where a function's parameters become readable: without optimization the
//! compiler describes them by fixed frame slots that the prologue fills, so
//! at the entry address they hold garbage; gdb therefore breaks at the
//! function's second line-table row. With location lists (optimized code)
//! the entry address is described exactly and gdb breaks there.

use crate::vars::module::ModVars;
use crate::vars::scope::ScopeData;

/// Line-table rows read per lookup at most.
const MAX_ROWS: usize = 1_000_000;

/// Whether the out-of-line function of `scope` has parameters or locals
/// described only by single expressions (no location lists): the layout of
/// unoptimized code, valid only after the prologue.
pub(crate) fn needs_prologue_skip(scope: &ScopeData) -> bool {
    let Some(f) = scope.frames.last() else {
        return false;
    };
    let mut vars = f.params.iter().chain(&f.locals).peekable();
    vars.peek().is_some() && vars.all(|v| !matches!(v.loc, crate::vars::location::Loc::List(_)))
}

/// The end of the line-table row that contains file address `vaddr` (the
/// first row address after it in its sequence), in the unit covering it.
pub(crate) fn next_row(m: &ModVars, vaddr: u64) -> Option<u64> {
    let unit = m
        .units
        .iter()
        .find(|u| u.ranges.iter().any(|&(b, e)| b <= vaddr && vaddr < e))?;
    let program = unit.unit.line_program.clone()?;
    let mut rows = program.rows();
    let mut covered = false;
    let mut count = 0;
    while let Ok(Some((_, row))) = rows.next_row() {
        count += 1;
        if count > MAX_ROWS {
            return None;
        }
        let a = row.address();
        if covered && a > vaddr {
            return (!row.end_sequence()).then_some(a);
        }
        if row.end_sequence() {
            covered = false;
        } else if a <= vaddr {
            covered = true;
        }
    }
    None
}
