//! Symbols and source lines of a running process.
//!
//! Scope: the module map of a process ([`ModuleMap`], from `/proc/PID/maps`,
//! with load biases and the vDSO), ELF symbols from `.symtab` and `.dynsym`,
//! PLT stub names (`malloc@plt`), demangling (Rust and C++), DWARF lines and
//! inlined frames (through addr2line), separate debug files found by
//! build-id and `.gnu_debuglink`, and the reverse lookups a breakpoint needs
//! (symbol name or glob to addresses, `file:line` to addresses).
//!
//! Everything is parsed lazily, once per file, and cached in a
//! [`Symbolizer`] that can be shared by every traced process (files are keyed
//! by path and inode).
//!
//! DWARF variables, types and location lists are in [`vars`].
//!
//! Non-goals: split DWARF (`.dwo`), dwz supplementary files
//! (`.gnu_debugaltlink`), debuginfod. Bad or truncated files never panic: they
//! give fewer details and a [`Warning`].

mod debuglink;
mod demangle;
mod dwarf;
mod elf;
mod frame;
mod line_files;
mod maps;
mod module;
mod plt;
pub mod startup;
mod stmt_lines;
mod symbol;
mod symbolizer;
mod symtab;

pub use debuglink::{crc32, DEFAULT_DEBUG_DIRS};
pub use demangle::{demangle, function_base};
pub use dwarf::{DwarfFrame, DwarfInfo};
pub use elf::{bias_for_mapping, read_load_segments, ElfImage, LoadSegment, SectionInfo};
pub use frame::{Frame, StraceStyle};
pub use maps::{entry_point, Mapping, ModuleMap};
pub use module::{Module, ModuleKey};
pub use symbolizer::{ModuleWarning, Symbolizer};
pub use symtab::{glob_match, Symbol, SymbolTable};

pub use crate::sys::mapped::Bytes;

/// The gimli reader every DWARF and CFI parser in rtrace uses: a window on a
/// whole file's bytes (mapped from the file), shared by reference count.
pub type Reader = gimli::EndianReader<gimli::RunTimeEndian, Bytes>;

/// Something that went wrong while reading a module's symbols or debug
/// information. Symbolization goes on with fewer details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Warning {
    /// The file could not be opened or read.
    Unreadable,
    /// The file is not a valid ELF file (or not one this build understands).
    BadElf,
    /// The symbol table could not be parsed completely.
    BadSymbols,
    /// A debug file named by `.gnu_debuglink` was found but its CRC differs.
    DebuglinkCrcMismatch,
    /// A debug file found by build-id carries another build-id.
    BuildIdMismatch,
    /// The DWARF debug information is corrupt; lines and inlined frames are
    /// missing where it is.
    BadDwarf,
    /// A compressed section could not be decompressed.
    BadCompression,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Warning::Unreadable => "file unreadable",
            Warning::BadElf => "not a valid ELF file",
            Warning::BadSymbols => "corrupt symbol table",
            Warning::DebuglinkCrcMismatch => "debuglink file has a different CRC",
            Warning::BuildIdMismatch => "debug file has a different build-id",
            Warning::BadDwarf => "corrupt DWARF debug information",
            Warning::BadCompression => "section could not be decompressed",
        })
    }
}
