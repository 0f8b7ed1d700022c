//! The variable-and-type view of one module's DWARF: its units (parsed
//! once), DIE references that may cross units, attribute helpers that follow
//! `DW_AT_abstract_origin` and `DW_AT_specification`, and the lazily built
//! index of globals and enumerators by name.

use crate::symbols::Reader;
pub(crate) use crate::vars::data::lock;
pub use crate::vars::data::DieRef;
use crate::vars::data::ScopeData;
use crate::vars::data::ScopeSpan;
use crate::vars::data::TypeNode;
use gimli::{AttributeValue, DebuggingInformationEntry as Die, UnitOffset};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Most scopes cached per module (one per distinct pc asked about).
const MAX_CACHED_SCOPES: usize = 4096;
/// How many `DW_AT_abstract_origin` / `DW_AT_specification` links are
/// followed before giving up (they may form cycles in corrupt DWARF).
const MAX_ORIGIN_HOPS: usize = 4;

/// One parsed compilation unit and the addresses it covers.
pub(crate) struct UnitData {
    pub unit: gimli::Unit<Reader>,
    /// `[begin, end)` file addresses of the unit's code.
    pub ranges: Vec<(u64, u64)>,
    /// Offset of the unit header in `.debug_info` (for `DW_FORM_ref_addr`).
    start: usize,
    /// gdb's "locations valid" (see `vars::prologue`), computed on first use.
    pub(crate) locations_valid: OnceLock<bool>,
    /// Its namespaces and classes (see `vars::qualify`), on first use.
    pub(crate) scope_spans: OnceLock<Vec<ScopeSpan>>,
}

/// A global variable or an enumerator found by name.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Named {
    /// A `DW_TAG_variable` at unit level (its defining DIE).
    Var(DieRef),
    /// An enumerator's value.
    Enumerator(i64),
}

/// The DWARF of one module, as variables and types need it.
pub(crate) struct ModVars {
    pub dwarf: Arc<gimli::Dwarf<Reader>>,
    pub units: Vec<UnitData>,
    globals: OnceLock<HashMap<String, Vec<Named>>>,
    pub(crate) types: Mutex<HashMap<DieRef, Arc<TypeNode>>>,
    pub(crate) scopes: Mutex<HashMap<u64, Arc<ScopeData>>>,
}

impl std::fmt::Debug for ModVars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModVars")
            .field("units", &self.units.len())
            .finish_non_exhaustive()
    }
}

impl ModVars {
    /// Parses every unit header of `dwarf` (a unit that fails to parse is
    /// skipped; the rest stay usable).
    pub fn new(dwarf: Arc<gimli::Dwarf<Reader>>) -> ModVars {
        let mut units = Vec::new();
        let mut headers = dwarf.units();
        while let Ok(Some(header)) = headers.next() {
            let start = header.debug_info_offset().map_or(0, |o| o.0);
            let Ok(unit) = dwarf.unit(header) else {
                continue;
            };
            let mut ranges = Vec::new();
            if let Ok(mut iter) = dwarf.unit_ranges(&unit) {
                while let Ok(Some(r)) = iter.next() {
                    if r.begin < r.end {
                        ranges.push((r.begin, r.end));
                    }
                }
            }
            units.push(UnitData {
                unit,
                ranges,
                start,
                locations_valid: OnceLock::new(),
                scope_spans: OnceLock::new(),
            });
        }
        ModVars {
            dwarf,
            units,
            globals: OnceLock::new(),
            types: Mutex::new(HashMap::new()),
            scopes: Mutex::new(HashMap::new()),
        }
    }

    /// The unit of `r`.
    pub fn unit(&self, r: DieRef) -> Option<&gimli::Unit<Reader>> {
        self.units.get(r.unit).map(|u| &u.unit)
    }

    /// The DIE at `r`, parsed.
    pub fn entry(&self, r: DieRef) -> Option<Die<Reader>> {
        self.unit(r)?.entry(UnitOffset(r.offset)).ok()
    }

    /// Resolves a reference attribute value of a DIE in unit `unit`.
    pub fn resolve(&self, unit: usize, value: AttributeValue<Reader>) -> Option<DieRef> {
        match value {
            AttributeValue::UnitRef(o) => Some(DieRef { unit, offset: o.0 }),
            AttributeValue::DebugInfoRef(o) => {
                // The unit whose header starts at or before `o`.
                let i = self
                    .units
                    .partition_point(|u| u.start <= o.0)
                    .checked_sub(1)?;
                let u = &self.units[i];
                let offset = o.0.checked_sub(u.start)?;
                Some(DieRef { unit: i, offset })
            }
            _ => None,
        }
    }

    /// The DIE that attribute `at` of `die` (in unit `unit`) refers to.
    pub fn attr_ref(&self, unit: usize, die: &Die<Reader>, at: gimli::DwAt) -> Option<DieRef> {
        self.resolve(unit, die.attr_value(at)?)
    }

    /// Attribute `at` of `r`, or of the DIE its abstract origin or
    /// specification names (where names and types of inlined and
    /// out-of-line instances live), with the unit it was found in.
    pub fn inherited(&self, r: DieRef, at: gimli::DwAt) -> Option<(usize, AttributeValue<Reader>)> {
        let mut cur = r;
        for _ in 0..=MAX_ORIGIN_HOPS {
            let die = self.entry(cur)?;
            if let Some(v) = die.attr_value(at) {
                return Some((cur.unit, v));
            }
            cur = self
                .attr_ref(cur.unit, &die, gimli::DW_AT_abstract_origin)
                .or_else(|| self.attr_ref(cur.unit, &die, gimli::DW_AT_specification))?;
        }
        None
    }

    /// A string attribute value of a DIE in unit `unit`.
    pub fn string(&self, unit: usize, value: AttributeValue<Reader>) -> Option<String> {
        let u = &self.units.get(unit)?.unit;
        let s = self.dwarf.attr_string(u, value).ok()?;
        Some(gimli::Reader::to_string_lossy(&s).ok()?.into_owned())
    }

    /// `DW_AT_name` of `r`, inherited from its origin when missing.
    pub fn name(&self, r: DieRef) -> Option<String> {
        let (unit, v) = self.inherited(r, gimli::DW_AT_name)?;
        self.string(unit, v)
    }

    /// `DW_AT_type` of `r`, inherited from its origin when missing.
    pub fn type_of(&self, r: DieRef) -> Option<DieRef> {
        let (unit, v) = self.inherited(r, gimli::DW_AT_type)?;
        self.resolve(unit, v)
    }

    /// Whether file address `vaddr` is in one of the DIE's ranges.
    pub fn contains(&self, unit: usize, die: &Die<Reader>, vaddr: u64) -> bool {
        let Some(u) = self.units.get(unit) else {
            return false;
        };
        let Ok(mut ranges) = self.dwarf.die_ranges(&u.unit, die) else {
            return false;
        };
        let mut n = 0;
        while let Ok(Some(r)) = ranges.next() {
            if r.begin <= vaddr && vaddr < r.end {
                return true;
            }
            n += 1;
            if n > 100_000 {
                break;
            }
        }
        false
    }

    /// Where the function or inlined call `die` is entered (file address):
    /// `DW_AT_entry_pc`, else `DW_AT_low_pc`, else its first range, as
    /// gdb's block entry pc.
    pub fn entry_pc(&self, unit: usize, die: &Die<Reader>) -> Option<u64> {
        let u = &self.units.get(unit)?.unit;
        for at in [gimli::DW_AT_entry_pc, gimli::DW_AT_low_pc] {
            if let Some(v) = die.attr_value(at) {
                if let Ok(Some(a)) = self.dwarf.attr_address(u, v) {
                    return Some(a);
                }
            }
        }
        let mut ranges = self.dwarf.die_ranges(u, die).ok()?;
        ranges.next().ok()?.map(|r| r.begin)
    }

    /// Globals and enumerators named `name`: definitions first.
    pub fn named(&self, name: &str) -> &[Named] {
        self.globals
            .get_or_init(|| self.index_globals())
            .get(name)
            .map_or(&[], Vec::as_slice)
    }

    /// Walks the top level of every unit (and enumeration types anywhere at
    /// that level) once.
    fn index_globals(&self) -> HashMap<String, Vec<Named>> {
        let mut out: HashMap<String, Vec<Named>> = HashMap::new();
        for (ui, u) in self.units.iter().enumerate() {
            let mut cursor = u.unit.entries();
            // Depth 0 is the unit DIE; globals are at depth 1, enumerators
            // of unit-level enums at depth 2.
            while let Ok(Some(die)) = cursor.next_dfs() {
                let depth = die.depth();
                if depth == 1 && die.tag() == gimli::DW_TAG_variable {
                    let r = DieRef {
                        unit: ui,
                        offset: die.offset().0,
                    };
                    let has_location = die.attr(gimli::DW_AT_location).is_some()
                        || die.attr(gimli::DW_AT_const_value).is_some();
                    if has_location {
                        if let Some(name) = self.name(r) {
                            out.entry(name).or_default().insert(0, Named::Var(r));
                        }
                    }
                } else if depth == 2 && die.tag() == gimli::DW_TAG_enumerator {
                    let name = die
                        .attr_value(gimli::DW_AT_name)
                        .and_then(|v| self.string(ui, v));
                    let value = die.attr(gimli::DW_AT_const_value).and_then(|a| {
                        a.sdata_value()
                            .or_else(|| a.udata_value().map(|u| u as i64))
                    });
                    if let (Some(name), Some(value)) = (name, value) {
                        out.entry(name).or_default().push(Named::Enumerator(value));
                    }
                }
            }
        }
        out
    }

    /// The cached scope data for `vaddr`, or builds it with `make`.
    pub fn scope_cached(&self, vaddr: u64, make: impl FnOnce() -> ScopeData) -> Arc<ScopeData> {
        if let Some(s) = lock(&self.scopes).get(&vaddr) {
            return s.clone();
        }
        let built = Arc::new(make());
        let mut cache = lock(&self.scopes);
        if cache.len() >= MAX_CACHED_SCOPES {
            cache.clear();
        }
        cache.insert(vaddr, built.clone());
        built
    }
}
