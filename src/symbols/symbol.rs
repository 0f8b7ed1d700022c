//! A function symbol, as the symbol tables and the decoded PLT stubs give it.

/// A function symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// File virtual address.
    pub addr: u64,
    /// Size in bytes (0 when the symbol table does not say).
    pub size: u64,
    /// The name as stored (mangled), without symbol version.
    pub name: String,
    /// Whether the symbol is global or weak.
    pub global: bool,
}
