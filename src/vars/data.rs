//! The data the per-module caches hold, defined below everything that
//! builds them: DIE references, parsed type nodes, variable locations and
//! the scope at a pc. The module reader ([`super::module`]) owns the caches;
//! [`super::types`], [`super::scope`] and [`super::location`] fill them.

use crate::symbols::Reader;
use gimli::Expression;
use std::sync::{Arc, Mutex};

/// A DIE of a module: unit index and offset within the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DieRef {
    pub(crate) unit: usize,
    pub(crate) offset: usize,
}

/// Locks a mutex, recovering from poisoning (the data are caches).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A variable's location description, resolved to file addresses.
#[derive(Debug, Clone)]
pub(crate) enum Loc {
    /// No location: optimized out everywhere.
    None,
    /// One expression, valid at every pc of the scope.
    Expr(Expression<Reader>),
    /// `[begin, end)` file address ranges with their expressions.
    List(Vec<(u64, u64, Expression<Reader>)>),
    /// `DW_AT_const_value`: the value's bytes (little-endian for numbers).
    Const(Vec<u8>),
}

/// What a type DIE is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
    /// A base type with its `DW_ATE_*` encoding.
    Base(gimli::DwAte),
    /// An enumeration.
    Enum,
    /// A pointer.
    Pointer,
    /// A C++ reference (`&` or `&&`).
    Reference,
    /// A structure or class.
    Struct,
    /// A union.
    Union,
    /// An array (`dims` in the node).
    Array,
    /// A typedef.
    Typedef,
    /// `const`, `volatile`, `restrict` or `_Atomic` (`name` in the node).
    Qualifier,
    /// A function type.
    Function,
    /// `void`, or a type this reader does not know.
    Void,
}

/// A struct or union member.
#[derive(Debug, Clone)]
pub(crate) struct Member {
    pub name: Option<String>,
    pub ty: Option<DieRef>,
    /// Byte offset in the enclosing object.
    pub offset: u64,
    /// Bit field: `(bit offset from the object's start, bit size)`, bit 0
    /// being the least significant bit of the first byte.
    pub bits: Option<(u64, u64)>,
}

/// One type DIE, parsed without following its references.
#[derive(Debug, Clone)]
pub(crate) struct TypeNode {
    pub kind: TypeKind,
    pub name: Option<String>,
    pub size: Option<u64>,
    /// Pointee, element, typedef/qualifier target, return or underlying type.
    pub target: Option<DieRef>,
    pub members: Vec<Member>,
    pub enumerators: Vec<(String, i64)>,
    /// Array dimensions (`None`: unknown count, e.g. `int a[]`).
    pub dims: Vec<Option<u64>>,
    /// Function parameter types (`None`: `...`).
    pub params: Vec<Option<DieRef>>,
}

impl TypeNode {
    pub(crate) fn void() -> TypeNode {
        TypeNode {
            kind: TypeKind::Void,
            name: None,
            size: None,
            target: None,
            members: Vec::new(),
            enumerators: Vec::new(),
            dims: Vec::new(),
            params: Vec::new(),
        }
    }
}

/// A parameter or local variable, module-relative.
#[derive(Debug)]
pub(crate) struct VarData {
    pub name: String,
    pub die: DieRef,
    pub ty: Option<DieRef>,
    pub loc: Loc,
    /// The enclosing function's `DW_AT_frame_base`.
    pub frame_base: Option<Arc<Loc>>,
}

/// A function or inlined subroutine containing the pc.
#[derive(Debug)]
pub(crate) struct FrameData {
    /// Its `DW_AT_name` (what call sites name it by).
    pub function: Option<String>,
    /// Its name qualified by its namespaces and classes, as gdb prints it.
    pub qualified: Option<String>,
    /// The function's return type (`None`: `void`).
    pub ret: Option<DieRef>,
    pub inlined: bool,
    /// `DW_AT_main_subprogram`: the program's main function.
    pub main_subprogram: bool,
    /// Where the function is entered (file address; `DW_AT_entry_pc`,
    /// else `DW_AT_low_pc`, else its first range).
    pub entry: Option<u64>,
    /// The function's `DW_AT_frame_base`.
    pub frame_base: Option<Arc<Loc>>,
    pub params: Vec<Arc<VarData>>,
    pub locals: Vec<Arc<VarData>>,
}

/// Everything in scope at one pc, innermost frame first.
#[derive(Debug, Default)]
pub(crate) struct ScopeData {
    pub frames: Vec<FrameData>,
}

/// One namespace, class, structure, union or module of a unit (see
/// [`super::qualify`]).
#[derive(Debug)]
pub(crate) struct ScopeSpan {
    /// Offset of its DIE in the unit.
    pub begin: usize,
    /// Offset just past its subtree.
    pub end: usize,
    /// Its name as a qualifier (`(anonymous namespace)`); `None` for an
    /// unnamed class, which adds nothing.
    pub name: Option<String>,
    /// The span enclosing it.
    pub parent: Option<usize>,
}
