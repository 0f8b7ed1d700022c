//! The full path of a file a DWARF line program names: its directory and
//! the unit's compilation directory joined as gdb joins them. Shared by
//! the symbolizer's line lookups (dwarf.rs) and the statement rows
//! (stmt_lines.rs).

use super::Reader;
use gimli::Reader as _;

/// Full path of file `index` of a line program.
pub(super) fn file_path(
    dwarf: &gimli::Dwarf<Reader>,
    unit: &gimli::Unit<Reader>,
    header: &gimli::LineProgramHeader<Reader>,
    index: u64,
) -> Option<String> {
    let entry = header.file(index)?;
    let name = dwarf.attr_string(unit, entry.path_name()).ok()?;
    let name = name.to_string_lossy().ok()?.into_owned();
    if name.starts_with('/') {
        return Some(name);
    }
    let mut path = String::new();
    if let Some(comp_dir) = &unit.comp_dir {
        path.push_str(&comp_dir.to_string_lossy().ok()?);
    }
    if let Some(dir) = entry.directory(header) {
        let dir = dwarf.attr_string(unit, dir).ok()?;
        let dir = dir.to_string_lossy().ok()?;
        if dir.starts_with('/') {
            path = dir.into_owned();
        } else if !dir.is_empty() {
            push_component(&mut path, &dir);
        }
    }
    push_component(&mut path, &name);
    Some(path)
}

fn push_component(path: &mut String, part: &str) {
    if !path.is_empty() && !path.ends_with('/') {
        path.push('/');
    }
    path.push_str(part);
}
