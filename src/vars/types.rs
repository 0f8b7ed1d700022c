//! DWARF types: each type DIE parsed once into a shallow [`TypeNode`] (its
//! references to other types stay [`DieRef`]s, so recursive types cost
//! nothing), the public [`Ty`] handle, and C type names
//! (`struct point *`, `int (*)(const char *)`, `int [4]`).

pub use crate::vars::data::TypeKind;
pub(crate) use crate::vars::data::{Member, TypeNode};
use crate::vars::module::{lock, DieRef, ModVars};
use gimli::AttributeValue;
use std::sync::Arc;

/// Typedef and qualifier chains longer than this are treated as corrupt.
const MAX_CHAIN: usize = 32;
/// Nesting depth a type name is spelled to (deeper parts print as `...`).
const MAX_NAME_DEPTH: usize = 12;
/// Parts of a type name spelled at most (parameter lists multiply).
const MAX_NAME_PARTS: usize = 1000;
/// Most members, enumerators or parameters read from one type DIE.
const MAX_CHILDREN: usize = 10_000;

/// The parsed node of type `r` (`None`: `void`), from the module's cache.
pub(crate) fn node(m: &ModVars, r: Option<DieRef>) -> Arc<TypeNode> {
    let Some(r) = r else {
        return Arc::new(TypeNode::void());
    };
    if let Some(n) = lock(&m.types).get(&r) {
        return n.clone();
    }
    let n = Arc::new(parse(m, r).unwrap_or_else(TypeNode::void));
    lock(&m.types).insert(r, n.clone());
    n
}

fn parse(m: &ModVars, r: DieRef) -> Option<TypeNode> {
    let die = m.entry(r)?;
    let mut n = TypeNode::void();
    n.kind = match die.tag() {
        gimli::DW_TAG_base_type => {
            let enc = match die.attr_value(gimli::DW_AT_encoding) {
                Some(AttributeValue::Encoding(e)) => e,
                _ => gimli::DwAte(0),
            };
            TypeKind::Base(enc)
        }
        gimli::DW_TAG_enumeration_type => TypeKind::Enum,
        gimli::DW_TAG_pointer_type | gimli::DW_TAG_ptr_to_member_type => TypeKind::Pointer,
        gimli::DW_TAG_reference_type | gimli::DW_TAG_rvalue_reference_type => TypeKind::Reference,
        gimli::DW_TAG_structure_type | gimli::DW_TAG_class_type => TypeKind::Struct,
        gimli::DW_TAG_union_type => TypeKind::Union,
        gimli::DW_TAG_array_type => TypeKind::Array,
        gimli::DW_TAG_typedef => TypeKind::Typedef,
        gimli::DW_TAG_const_type => qualifier(&mut n, "const"),
        gimli::DW_TAG_volatile_type => qualifier(&mut n, "volatile"),
        gimli::DW_TAG_restrict_type => qualifier(&mut n, "restrict"),
        gimli::DW_TAG_atomic_type => qualifier(&mut n, "_Atomic"),
        gimli::DW_TAG_subroutine_type => TypeKind::Function,
        _ => TypeKind::Void,
    };
    if n.name.is_none() {
        n.name = die
            .attr_value(gimli::DW_AT_name)
            .and_then(|v| m.string(r.unit, v));
    }
    n.size = die
        .attr(gimli::DW_AT_byte_size)
        .and_then(|a| a.udata_value());
    n.target = m.attr_ref(r.unit, &die, gimli::DW_AT_type);
    if n.kind == TypeKind::Pointer && n.size.is_none() {
        n.size = m.unit(r).map(|u| u64::from(u.encoding().address_size));
    }
    if die.has_children() {
        children(m, r, &mut n);
    }
    if n.kind == TypeKind::Array && n.size.is_none() {
        let elem = size_of(m, n.target);
        n.size = n
            .dims
            .iter()
            .try_fold(elem?, |acc, d| acc.checked_mul((*d)?));
    }
    Some(n)
}

fn qualifier(n: &mut TypeNode, name: &str) -> TypeKind {
    n.name = Some(name.to_string());
    TypeKind::Qualifier
}

/// Members, enumerators, subranges or parameters of a type DIE.
fn children(m: &ModVars, r: DieRef, n: &mut TypeNode) {
    let Some(unit) = m.unit(r) else { return };
    let Ok(mut tree) = unit.entries_tree(Some(gimli::UnitOffset(r.offset))) else {
        return;
    };
    let Ok(root) = tree.root() else { return };
    let mut kids = root.children();
    let mut count = 0;
    while let Ok(Some(child)) = kids.next() {
        count += 1;
        if count > MAX_CHILDREN {
            break;
        }
        let die = child.entry();
        match die.tag() {
            gimli::DW_TAG_member if die.attr(gimli::DW_AT_declaration).is_none() => {
                let name = die
                    .attr_value(gimli::DW_AT_name)
                    .and_then(|v| m.string(r.unit, v));
                let ty = m.attr_ref(r.unit, die, gimli::DW_AT_type);
                let offset = die
                    .attr_value(gimli::DW_AT_data_member_location)
                    .and_then(member_offset)
                    .unwrap_or(0);
                let bit_size = die
                    .attr(gimli::DW_AT_bit_size)
                    .and_then(|a| a.udata_value());
                let bits = bit_size.and_then(|size| {
                    if let Some(b) = die
                        .attr(gimli::DW_AT_data_bit_offset)
                        .and_then(|a| a.udata_value())
                    {
                        return Some((b, size));
                    }
                    // DWARF 2/3: offset of the field's most significant bit
                    // within a storage unit of DW_AT_byte_size bytes
                    // (little-endian targets).
                    let old = die.attr(gimli::DW_AT_bit_offset)?.udata_value()?;
                    let storage = die
                        .attr(gimli::DW_AT_byte_size)
                        .and_then(|a| a.udata_value())
                        .or_else(|| size_of(m, ty))?;
                    let lsb = storage
                        .checked_mul(8)?
                        .checked_sub(old)?
                        .checked_sub(size)?;
                    Some((offset.checked_mul(8)?.checked_add(lsb)?, size))
                });
                n.members.push(Member {
                    name,
                    ty,
                    offset,
                    bits,
                });
            }
            gimli::DW_TAG_inheritance => {
                let ty = m.attr_ref(r.unit, die, gimli::DW_AT_type);
                let offset = die
                    .attr_value(gimli::DW_AT_data_member_location)
                    .and_then(member_offset)
                    .unwrap_or(0);
                n.members.push(Member {
                    name: None,
                    ty,
                    offset,
                    bits: None,
                });
            }
            gimli::DW_TAG_enumerator => {
                let name = die
                    .attr_value(gimli::DW_AT_name)
                    .and_then(|v| m.string(r.unit, v));
                let value = die.attr(gimli::DW_AT_const_value).and_then(|a| {
                    a.sdata_value()
                        .or_else(|| a.udata_value().map(|u| u as i64))
                });
                if let (Some(name), Some(value)) = (name, value) {
                    n.enumerators.push((name, value));
                }
            }
            gimli::DW_TAG_subrange_type => {
                let count = die.attr(gimli::DW_AT_count).and_then(|a| a.udata_value());
                let upper = die.attr(gimli::DW_AT_upper_bound).and_then(|a| {
                    a.sdata_value()
                        .or_else(|| a.udata_value().map(|u| u as i64))
                });
                let lower = die
                    .attr(gimli::DW_AT_lower_bound)
                    .and_then(|a| a.sdata_value())
                    .unwrap_or(0);
                let dim = count.or_else(|| {
                    let n = upper?.checked_sub(lower)?.checked_add(1)?;
                    u64::try_from(n).ok()
                });
                n.dims.push(dim);
            }
            gimli::DW_TAG_formal_parameter => {
                n.params.push(m.attr_ref(r.unit, die, gimli::DW_AT_type));
            }
            gimli::DW_TAG_unspecified_parameters => n.params.push(None),
            _ => {}
        }
    }
}

/// `DW_AT_data_member_location`: a constant, or (DWARF 2) an expression
/// `DW_OP_plus_uconst N`.
fn member_offset(v: AttributeValue<crate::symbols::Reader>) -> Option<u64> {
    if let Some(u) = v.udata_value() {
        return Some(u);
    }
    let expr = match v {
        AttributeValue::Exprloc(e) => e,
        AttributeValue::Block(b) => gimli::Expression(b),
        _ => return None,
    };
    let mut ops = expr.operations(gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 2,
        address_size: 8,
    });
    match ops.next().ok()?? {
        gimli::Operation::PlusConstant { value } => Some(value),
        gimli::Operation::UnsignedConstant { value } => Some(value),
        _ => None,
    }
}

/// Follows typedefs and qualifiers to the underlying type.
pub(crate) fn strip(m: &ModVars, mut r: Option<DieRef>) -> (Option<DieRef>, Arc<TypeNode>) {
    for _ in 0..MAX_CHAIN {
        let n = node(m, r);
        if !matches!(n.kind, TypeKind::Typedef | TypeKind::Qualifier) {
            return (r, n);
        }
        r = n.target;
    }
    (None, Arc::new(TypeNode::void()))
}

/// Size in bytes of type `r`, through typedefs and qualifiers.
pub(crate) fn size_of(m: &ModVars, r: Option<DieRef>) -> Option<u64> {
    let mut r = r;
    for _ in 0..MAX_CHAIN {
        let n = node(m, r);
        if n.size.is_some() {
            return n.size;
        }
        if !matches!(n.kind, TypeKind::Typedef | TypeKind::Qualifier) {
            return None;
        }
        r = n.target;
    }
    None
}

/// The C spelling of type `r`, as gdb's `ptype`/`whatis` print it.
pub(crate) fn type_name(m: &ModVars, r: Option<DieRef>) -> String {
    let mut budget = MAX_NAME_PARTS;
    let s = declarator(m, r, String::new(), 0, &mut budget);
    s.trim_end().to_string()
}

/// Spells type `r` around `inner` (the declarator built so far); `budget`
/// bounds the work over all parameter lists.
fn declarator(
    m: &ModVars,
    r: Option<DieRef>,
    inner: String,
    depth: usize,
    budget: &mut usize,
) -> String {
    if depth > MAX_NAME_DEPTH || *budget == 0 {
        return join("...", &inner);
    }
    *budget -= 1;
    let n = node(m, r);
    let named = |prefix: &str| {
        let base = match &n.name {
            Some(name) if prefix.is_empty() => name.clone(),
            Some(name) => format!("{prefix} {name}"),
            None if prefix.is_empty() => "void".to_string(),
            None => format!("{prefix} {{...}}"),
        };
        join(&base, &inner)
    };
    match n.kind {
        TypeKind::Base(_) => {
            let name = n.name.as_deref().unwrap_or("void");
            join(c_base_name(name), &inner)
        }
        TypeKind::Typedef | TypeKind::Void => named(""),
        TypeKind::Enum => named("enum"),
        TypeKind::Struct => named("struct"),
        TypeKind::Union => named("union"),
        TypeKind::Pointer | TypeKind::Reference => {
            let sym = if n.kind == TypeKind::Pointer {
                "*"
            } else {
                "&"
            };
            let target = node(m, n.target);
            let inner = format!("{sym}{inner}");
            let inner = if matches!(target.kind, TypeKind::Array | TypeKind::Function) {
                format!("({inner})")
            } else {
                inner
            };
            declarator(m, n.target, inner, depth + 1, budget)
        }
        TypeKind::Qualifier => {
            let q = n.name.as_deref().unwrap_or("const");
            let target = node(m, n.target);
            if matches!(target.kind, TypeKind::Pointer | TypeKind::Reference) {
                // `char *const p`: the qualifier binds to the pointer.
                declarator(m, n.target, format!(" {q}{inner}"), depth + 1, budget)
            } else {
                format!("{q} {}", declarator(m, n.target, inner, depth + 1, budget))
            }
        }
        TypeKind::Array => {
            let dims: String = n
                .dims
                .iter()
                .map(|d| d.map_or("[]".to_string(), |d| format!("[{d}]")))
                .collect();
            let dims = if n.dims.is_empty() { "[]".into() } else { dims };
            declarator(m, n.target, format!("{inner}{dims}"), depth + 1, budget)
        }
        TypeKind::Function => {
            let params: Vec<String> = n
                .params
                .iter()
                .map(|p| match p {
                    Some(p) => declarator(m, Some(*p), String::new(), depth + 1, budget),
                    None => "...".to_string(),
                })
                .collect();
            let params = if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            };
            declarator(m, n.target, format!("{inner}({params})"), depth + 1, budget)
        }
    }
}

/// GCC's spellings of C integer types in gdb's shorter form
/// (`long int` is `long`, `long unsigned int` is `unsigned long`).
fn c_base_name(name: &str) -> &str {
    match name {
        "long int" => "long",
        "long unsigned int" => "unsigned long",
        "short int" => "short",
        "short unsigned int" => "unsigned short",
        "long long int" => "long long",
        "long long unsigned int" => "unsigned long long",
        other => other,
    }
}

/// `base` followed by a declarator, with gdb's spacing (`char *`, `int [4]`).
fn join(base: &str, inner: &str) -> String {
    if inner.is_empty() {
        base.to_string()
    } else if inner.starts_with(' ') {
        format!("{base}{inner}")
    } else {
        format!("{base} {inner}")
    }
}

/// A type of a module's DWARF: what [`crate::vars::format_value`] decodes by.
/// Cheap to clone.
#[derive(Clone)]
pub struct Ty {
    pub(crate) m: Arc<ModVars>,
    pub(crate) r: Option<DieRef>,
}

impl std::fmt::Debug for Ty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Ty").field(&self.name()).finish()
    }
}

impl Ty {
    /// The C spelling: `unsigned int`, `struct point *`, `const char *`.
    pub fn name(&self) -> String {
        type_name(&self.m, self.r)
    }

    /// Size in bytes, when known.
    pub fn size(&self) -> Option<u64> {
        size_of(&self.m, self.r)
    }

    /// What the type is once typedefs and qualifiers are stripped.
    pub fn kind(&self) -> TypeKind {
        strip(&self.m, self.r).1.kind
    }
}
