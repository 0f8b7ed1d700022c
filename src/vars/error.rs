//! Why a variable has no value: the small, `Copy` error of reading one.

use crate::value::Value;

/// Why a variable has no value here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarError {
    /// No location covers the pc: gdb's `<optimized out>`.
    OptimizedOut,
    /// The location needs something this reader does not have.
    Unavailable(Unavailable),
    /// The variable's memory could not be read at this address.
    Unreadable(u64),
    /// The DWARF describing it is corrupt.
    Corrupt,
}

/// What an [`VarError::Unavailable`] location needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailable {
    /// `DW_OP_entry_value`: a register's value at function entry.
    EntryValue,
    /// A register that is not known in this frame (DWARF number).
    Register(u16),
    /// The frame's CFA (no CFI and no frame pointer).
    Cfa,
    /// A thread-local variable.
    Tls,
    /// `DW_OP_implicit_pointer`.
    ImplicitPointer,
    /// An operation or piece layout not supported.
    Unsupported,
}

impl std::fmt::Display for VarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VarError::OptimizedOut => f.write_str("<optimized out>"),
            VarError::Unavailable(Unavailable::EntryValue) => {
                f.write_str("<unavailable: entry value>")
            }
            VarError::Unavailable(Unavailable::Register(r)) => {
                write!(f, "<unavailable: register {r} not saved>")
            }
            // gdb's text for a pointer to an object the compiler kept out
            // of memory (an inlined method's `this`).
            VarError::Unavailable(Unavailable::ImplicitPointer) => {
                f.write_str("<synthetic pointer>")
            }
            VarError::Unavailable(_) => f.write_str("<unavailable>"),
            VarError::Unreadable(a) => write!(f, "<error: Cannot access memory at address {a:#x}>"),
            VarError::Corrupt => f.write_str("<corrupt DWARF>"),
        }
    }
}

impl VarError {
    /// The error as a value to print in place of the variable's.
    pub fn to_value(&self) -> Value {
        match self {
            VarError::Unreadable(a) => Value::Unreadable(*a),
            e => Value::sym_owned(e.to_string()),
        }
    }
}
