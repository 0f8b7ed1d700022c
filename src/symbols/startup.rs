//! What a dynamically linked program loads before its first instruction:
//! its interpreter (`PT_INTERP`) and the libraries that interpreter maps at
//! start-up, for checking probe specs before the program runs.

use std::path::{Path, PathBuf};

/// The program interpreter named by `PT_INTERP`, if any.
pub fn interpreter(data: &[u8]) -> Option<PathBuf> {
    use object::read::elf::{ElfFile64, FileHeader, ProgramHeader};
    let elf = ElfFile64::<object::Endianness>::parse(data).ok()?;
    let endian = elf.endian();
    let phdrs = elf.elf_header().program_headers(endian, data).ok()?;
    phdrs.iter().find_map(|ph| {
        let bytes = ph.interpreter(endian, data).ok()??;
        let s = std::str::from_utf8(bytes).ok()?;
        Some(PathBuf::from(s.trim_end_matches('\0')))
    })
}

/// The libraries the program loads at start-up, as its dynamic linker
/// finds them (`ld.so --list`, which runs none of the program's code).
pub fn startup_libraries(interp: &Path, exe: &Path) -> Result<Vec<PathBuf>, String> {
    let out = std::process::Command::new(interp)
        .arg("--list")
        .arg(exe)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("running {} --list: {e}", interp.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} --list {} failed: {}",
            interp.display(),
            exe.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut libs = Vec::new();
    for line in text.lines() {
        // `name => /path (0x…)`, or `/path (0x…)` for a library the
        // program names by its path (and for the dynamic linker).
        let rest = match line.split_once(" => ") {
            Some((_, rest)) => rest,
            None => line.trim_start(),
        };
        let path = rest.rsplit_once(" (").map_or(rest, |(p, _)| p).trim();
        if path.starts_with('/') {
            let p = PathBuf::from(path);
            libs.push(std::fs::canonicalize(&p).unwrap_or(p));
        }
    }
    Ok(libs)
}
