//! A function's parameters and return type from DWARF, reduced to what a
//! uprobe fetch-arg needs: the ABI position of each integer-class parameter
//! at function entry, its size and signedness, and whether it is a string
//! (`char *`). This is how `u:prog:func n s` becomes `n=%di:s32
//! s=+0(%si):ustring` (perf probe does the same with `func var`).

use crate::symbols::{Reader, Symbolizer};
use gimli::Reader as _;
use gimli::{AttributeValue, DwAte, UnitOffset};
use std::path::Path;

/// The shape of a value as a fetch-arg type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgType {
    /// An integer of `bytes` bytes.
    Int {
        /// Size in bytes.
        bytes: u64,
        /// Signed.
        signed: bool,
    },
    /// A pointer to char: fetched as a user string.
    Str,
    /// Any other pointer: hex.
    Ptr,
    /// Floating point, aggregates by value: not in an integer register.
    Other(String),
}

impl ArgType {
    /// The fetch-arg type suffix (`s32`, `u64`, `x64`); `None` for
    /// [`ArgType::Str`] and [`ArgType::Other`].
    pub fn suffix(&self) -> Option<String> {
        match self {
            ArgType::Int { bytes, signed } => {
                Some(format!("{}{}", if *signed { 's' } else { 'u' }, bytes * 8))
            }
            ArgType::Ptr => Some("x64".into()),
            _ => None,
        }
    }
}

/// A function's signature.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    /// Parameters in order: name and type.
    pub params: Vec<(String, ArgType)>,
    /// The return type (`None` for void).
    pub ret: Option<ArgType>,
}

type Unit = gimli::Unit<Reader>;

fn resolve_type(unit: &Unit, mut off: UnitOffset) -> ArgType {
    for _ in 0..16 {
        let Ok(die) = unit.entry(off) else {
            return ArgType::Other("unreadable type".into());
        };
        let size = match die.attr_value(gimli::DW_AT_byte_size) {
            Some(AttributeValue::Udata(n)) => Some(n),
            Some(v) => v.udata_value(),
            _ => None,
        };
        match die.tag() {
            gimli::DW_TAG_base_type => {
                let enc = match die.attr_value(gimli::DW_AT_encoding) {
                    Some(AttributeValue::Encoding(e)) => e,
                    _ => DwAte(0),
                };
                let bytes = size.unwrap_or(0);
                return match enc {
                    gimli::DW_ATE_signed | gimli::DW_ATE_signed_char => ArgType::Int {
                        bytes,
                        signed: true,
                    },
                    gimli::DW_ATE_unsigned
                    | gimli::DW_ATE_unsigned_char
                    | gimli::DW_ATE_boolean => ArgType::Int {
                        bytes,
                        signed: false,
                    },
                    _ => ArgType::Other(format!("{enc} base type")),
                };
            }
            gimli::DW_TAG_enumeration_type => {
                return ArgType::Int {
                    bytes: size.unwrap_or(4),
                    signed: false,
                }
            }
            gimli::DW_TAG_pointer_type | gimli::DW_TAG_reference_type => {
                if let Some(AttributeValue::UnitRef(t)) = die.attr_value(gimli::DW_AT_type) {
                    if let ArgType::Int { bytes: 1, .. } = resolve_type(unit, t) {
                        return ArgType::Str;
                    }
                }
                return ArgType::Ptr;
            }
            gimli::DW_TAG_typedef
            | gimli::DW_TAG_const_type
            | gimli::DW_TAG_volatile_type
            | gimli::DW_TAG_restrict_type => match die.attr_value(gimli::DW_AT_type) {
                Some(AttributeValue::UnitRef(t)) => off = t,
                _ => return ArgType::Other("void".into()),
            },
            t => return ArgType::Other(format!("{t}")),
        }
    }
    ArgType::Other("type chain too deep".into())
}

fn die_name(
    dwarf: &gimli::Dwarf<Reader>,
    unit: &Unit,
    die: &gimli::DebuggingInformationEntry<Reader>,
) -> Option<String> {
    let v = die.attr_value(gimli::DW_AT_name)?;
    let s = dwarf.attr_string(unit, v).ok()?;
    Some(s.to_string_lossy().ok()?.into_owned())
}

/// The signature of the defined function `func` in `binary`, from its DWARF.
pub fn signature(binary: &Path, func: &str) -> Result<Signature, String> {
    let sym = Symbolizer::new();
    let module = sym.module_for_path(binary);
    let info = module
        .dwarf()
        .ok_or_else(|| format!("{} has no DWARF (build with -g)", binary.display()))?;
    let dwarf = info.gimli();
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let mut cursor = unit.entries();
        while let Ok(Some(die)) = cursor.next_dfs() {
            if die.tag() != gimli::DW_TAG_subprogram
                || die.attr_value(gimli::DW_AT_low_pc).is_none()
                || die_name(dwarf, &unit, die).as_deref() != Some(func)
            {
                continue;
            }
            let ret = match die.attr_value(gimli::DW_AT_type) {
                Some(AttributeValue::UnitRef(t)) => Some(resolve_type(&unit, t)),
                _ => None,
            };
            let mut sig = Signature {
                params: Vec::new(),
                ret,
            };
            let mut tree = unit
                .entries_tree(Some(die.offset()))
                .map_err(|e| e.to_string())?;
            let root = tree.root().map_err(|e| e.to_string())?;
            let mut children = root.children();
            while let Ok(Some(child)) = children.next() {
                let d = child.entry();
                if d.tag() != gimli::DW_TAG_formal_parameter {
                    continue;
                }
                let name = die_name(dwarf, &unit, d).unwrap_or_default();
                let ty = match d.attr_value(gimli::DW_AT_type) {
                    Some(AttributeValue::UnitRef(t)) => resolve_type(&unit, t),
                    _ => ArgType::Other("untyped".into()),
                };
                sig.params.push((name, ty));
            }
            return Ok(sig);
        }
    }
    Err(format!(
        "no DWARF for function '{func}' in {}",
        binary.display()
    ))
}
