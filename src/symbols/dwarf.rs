//! DWARF lines and inlined frames of one module, through addr2line, and
//! the reverse `file:line -> addresses` lookup from the line programs.

use super::demangle::demangle;
use super::elf::ElfImage;
use super::line_files::file_path;
use super::{Bytes, Reader, Warning};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One frame of the inline chain at an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DwarfFrame {
    /// Demangled function name.
    pub function: Option<String>,
    /// Source file (full path as the line table gives it).
    pub file: Option<String>,
    /// Source line.
    pub line: Option<u32>,
}

/// The DWARF of one module (from the file itself or its debug file).
pub struct DwarfInfo {
    dwarf: Arc<gimli::Dwarf<Reader>>,
    // addr2line's lazily filled caches are not `Sync`: one lookup at a time.
    ctx: Mutex<addr2line::Context<Reader>>,
    /// Where gdb's line is an earlier statement row's (built on first use).
    stmt_lines: OnceLock<Vec<super::stmt_lines::StmtLine>>,
}

impl std::fmt::Debug for DwarfInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DwarfInfo").finish_non_exhaustive()
    }
}

impl DwarfInfo {
    /// Loads the DWARF sections of `image`; `Ok(None)` when it has none. A
    /// section that cannot be decompressed is left out (reported in
    /// `warnings`).
    pub fn load(
        image: &ElfImage,
        warnings: &mut Vec<Warning>,
    ) -> Result<Option<DwarfInfo>, Warning> {
        if image.section(".debug_info").is_none() && image.section(".zdebug_info").is_none() {
            return Ok(None);
        }
        let empty = Reader::new(Bytes::from(Vec::new()), image.endian());
        let mut bad = false;
        let dwarf = gimli::Dwarf::load(|id| -> Result<Reader, gimli::Error> {
            Ok(match image.section_reader(id.name()) {
                Ok(Some(r)) => r,
                Ok(None) => empty.clone(),
                Err(_) => {
                    bad = true;
                    empty.clone()
                }
            })
        })
        .map_err(|_| Warning::BadDwarf)?;
        // Unit headers are cheap to walk (each gives the next one's
        // offset); garbage in .debug_info shows here, and is reported
        // rather than silently giving no lines.
        let mut units = dwarf.units();
        loop {
            match units.next() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(_) => {
                    warnings.push(Warning::BadDwarf);
                    break;
                }
            }
        }
        let dwarf = Arc::new(dwarf);
        let ctx =
            addr2line::Context::from_arc_dwarf(dwarf.clone()).map_err(|_| Warning::BadDwarf)?;
        if bad {
            warnings.push(Warning::BadCompression);
        }
        Ok(Some(DwarfInfo {
            dwarf,
            ctx: Mutex::new(ctx),
            stmt_lines: OnceLock::new(),
        }))
    }

    /// The parsed DWARF sections (shared with the variables and types
    /// reader, the `vars` module).
    pub fn gimli(&self) -> &Arc<gimli::Dwarf<Reader>> {
        &self.dwarf
    }

    /// The inline chain at file address `vaddr`, innermost first; the last
    /// entry is the containing function. Each entry's file and line are the
    /// location within that function (for outer entries: the call site).
    pub fn frames(&self, vaddr: u64) -> Result<Vec<DwarfFrame>, Warning> {
        let ctx = self.ctx.lock().unwrap_or_else(|p| p.into_inner());
        let mut iter = ctx
            .find_frames(vaddr)
            .skip_all_loads()
            .map_err(|_| Warning::BadDwarf)?;
        let mut out = Vec::new();
        while let Some(frame) = iter.next().map_err(|_| Warning::BadDwarf)? {
            let function = frame
                .function
                .as_ref()
                .and_then(|f| f.raw_name().ok())
                .map(|n| demangle(n.as_ref()).into_owned());
            let (file, line) = match &frame.location {
                Some(loc) => (loc.file.map(str::to_string), loc.line),
                None => (None, None),
            };
            out.push(DwarfFrame {
                function,
                file,
                line,
            });
            if out.len() > 256 {
                break;
            }
        }
        // The innermost entry's line comes from the line table: where
        // several rows start at its row's address, gdb's choice.
        if let Some(first) = out.first_mut().filter(|f| f.line.is_some()) {
            let table = self
                .stmt_lines
                .get_or_init(|| super::stmt_lines::build(&self.dwarf));
            if let Some(s) = super::stmt_lines::lookup(table, vaddr) {
                first.line = Some(s.line);
                if s.file.is_some() {
                    first.file = s.file.clone();
                }
            }
        }
        Ok(out)
    }

    /// File addresses of `line` in source files whose path is `file` or ends
    /// with `/file`: `is_stmt` rows, one (the lowest) per function or inlined
    /// instance. When no row has that line, the nearest following line with
    /// code is used, as gdb does.
    pub fn lines_to_addresses(&self, file: &str, line: u32) -> Result<Vec<u64>, Warning> {
        // (line, address) rows of matching files, per unit.
        let mut rows: Vec<(usize, u32, u64)> = Vec::new();
        let mut units = self.dwarf.units();
        let mut unit_index = 0;
        while let Some(header) = units.next().map_err(|_| Warning::BadDwarf)? {
            unit_index += 1;
            let Ok(unit) = self.dwarf.unit(header) else {
                continue;
            };
            let Some(program) = unit.line_program.clone() else {
                continue;
            };
            let mut names: HashMap<u64, bool> = HashMap::new();
            let mut state = program.rows();
            while let Ok(Some((header, row))) = state.next_row() {
                if !row.is_stmt() || row.end_sequence() {
                    continue;
                }
                let Some(l) = row.line().map(|l| l.get() as u32) else {
                    continue;
                };
                if l < line {
                    continue;
                }
                let index = row.file_index();
                let matches = *names.entry(index).or_insert_with(|| {
                    file_path(&self.dwarf, &unit, header, index)
                        .is_some_and(|p| p == file || p.ends_with(&format!("/{file}")))
                });
                if matches {
                    rows.push((unit_index, l, row.address()));
                }
            }
        }
        let Some(best) = rows.iter().map(|r| r.1).min() else {
            return Ok(Vec::new());
        };
        let ctx = self.ctx.lock().unwrap_or_else(|p| p.into_inner());
        // Lowest address per (unit, innermost function or inline instance).
        let mut per_instance: HashMap<(usize, Option<usize>, String), u64> = HashMap::new();
        for &(unit, _, addr) in rows.iter().filter(|r| r.1 == best) {
            let (die, name) = match ctx.find_frames(addr).skip_all_loads() {
                Ok(mut it) => match it.next() {
                    Ok(Some(f)) => (
                        f.dw_die_offset.map(|o| o.0),
                        f.function
                            .and_then(|n| n.raw_name().ok().map(|s| s.into_owned()))
                            .unwrap_or_default(),
                    ),
                    _ => (None, String::new()),
                },
                Err(_) => (None, String::new()),
            };
            per_instance
                .entry((unit, die, name))
                .and_modify(|a| *a = (*a).min(addr))
                .or_insert(addr);
        }
        let mut out: Vec<u64> = per_instance.into_values().collect();
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}
