//! Where gdb's line for an address differs from addr2line's. Several
//! line-table rows can start at one address (GCC's location views: `{`,
//! the first statement, then a non-statement row back on `{`). addr2line
//! takes the last of them; gdb's `find_pc_line` takes the last too, but
//! when it is not a statement (`is_stmt` clear) it goes back to the last
//! statement row at that address. So a breakpoint at an -O2 `main` stops
//! at its first statement's line, not at the line of its `{`.
//!
//! The differing ranges are found in one pass over a module's line
//! programs, on first use.

use super::Reader;

/// `[start, end)` file addresses whose line is a statement row's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StmtLine {
    pub start: u64,
    pub end: u64,
    pub file: Option<String>,
    pub line: u32,
}

/// Line-table rows read per module at most.
const MAX_ROWS: usize = 20_000_000;

/// A row of a group at one address: `(is_stmt, file index, line)`.
type GroupRow = (bool, u64, u32);

/// The ranges of `dwarf` where gdb's line is not the last row's, sorted.
pub(crate) fn build(dwarf: &gimli::Dwarf<Reader>) -> Vec<StmtLine> {
    let mut out = Vec::new();
    let mut units = dwarf.units();
    let mut count = 0;
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let Some(program) = unit.line_program.clone() else {
            continue;
        };
        let mut rows = program.rows();
        let mut group: Vec<GroupRow> = Vec::new();
        let mut at = 0;
        while let Ok(Some((header, row))) = rows.next_row() {
            count += 1;
            if count > MAX_ROWS {
                break;
            }
            let a = row.address();
            if a != at || row.end_sequence() {
                if let Some((file, line)) = statement_instead(&group) {
                    out.push(StmtLine {
                        start: at,
                        end: a,
                        file: super::line_files::file_path(dwarf, &unit, header, file),
                        line,
                    });
                }
                group.clear();
                at = a;
            }
            if row.end_sequence() {
                continue;
            }
            let line = row.line().map_or(0, |l| l.get() as u32);
            group.push((row.is_stmt(), row.file_index(), line));
        }
    }
    out.sort_by_key(|s| s.start);
    out
}

/// The `(file index, line)` gdb takes for rows at one address when it is
/// not the last row's: the last is no statement and an earlier one is.
fn statement_instead(group: &[GroupRow]) -> Option<(u64, u32)> {
    let &(last_stmt, last_file, last_line) = group.last()?;
    if last_stmt {
        return None;
    }
    let &(_, file, line) = group.iter().rev().find(|r| r.0 && r.2 != 0)?;
    ((file, line) != (last_file, last_line)).then_some((file, line))
}

/// The entry of `table` covering `vaddr`.
pub(crate) fn lookup(table: &[StmtLine], vaddr: u64) -> Option<&StmtLine> {
    let i = table.partition_point(|s| s.start <= vaddr).checked_sub(1)?;
    let s = &table[i];
    (vaddr < s.end).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_statement_row_at_an_address_wins_over_a_later_non_statement() {
        // GCC -O2 main: `{` (46), first statement (47), view 2 back on 46.
        let g = [(true, 1, 46), (true, 1, 47), (false, 1, 46)];
        assert_eq!(statement_instead(&g), Some((1, 47)));
        // The last row a statement: addr2line's answer stands.
        assert_eq!(statement_instead(&[(false, 1, 46), (true, 1, 47)]), None);
        // No statement row at the address.
        assert_eq!(statement_instead(&[(false, 1, 46)]), None);
        // The same line either way.
        assert_eq!(statement_instead(&[(true, 1, 46), (false, 1, 46)]), None);
    }

    #[test]
    fn lookup_finds_the_covering_range() {
        let t = [
            StmtLine {
                start: 0x10,
                end: 0x14,
                file: None,
                line: 3,
            },
            StmtLine {
                start: 0x20,
                end: 0x28,
                file: None,
                line: 9,
            },
        ];
        assert_eq!(lookup(&t, 0x12).map(|s| s.line), Some(3));
        assert_eq!(lookup(&t, 0x14), None);
        assert_eq!(lookup(&t, 0x27).map(|s| s.line), Some(9));
        assert_eq!(lookup(&t, 0x8), None);
    }
}
