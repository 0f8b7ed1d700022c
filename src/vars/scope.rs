//! What is in scope at a pc: the enclosing function, the inlined
//! subroutines within it that contain the pc, and for each its formal
//! parameters and the local variables of every lexical block that contains
//! the pc (innermost block first, as gdb's `info locals` lists them).

use crate::symbols::Reader;
pub(crate) use crate::vars::data::{FrameData, ScopeData, VarData};
use crate::vars::location::Loc;
use crate::vars::module::{DieRef, ModVars};
use std::collections::HashSet;
use std::sync::Arc;

/// Tree depth walked below a unit (nested blocks, namespaces).
const MAX_DEPTH: usize = 64;
/// DIEs visited per scope lookup before giving up (corrupt trees).
const MAX_VISITS: usize = 2_000_000;

struct Walker<'a> {
    m: &'a ModVars,
    unit: usize,
    vaddr: u64,
    /// Outermost first while walking.
    frames: Vec<FrameData>,
    frame_bases: Vec<Option<Arc<Loc>>>,
    /// `(frame, block level, variable)` of every local seen.
    locals: Vec<(usize, usize, Arc<VarData>)>,
    visits: usize,
}

/// Builds the scope at file address `vaddr` (empty when no unit covers it).
pub(crate) fn build(m: &ModVars, vaddr: u64) -> ScopeData {
    let covering: Vec<usize> = (0..m.units.len())
        .filter(|&i| {
            m.units[i]
                .ranges
                .iter()
                .any(|&(b, e)| b <= vaddr && vaddr < e)
        })
        .collect();
    for unit in covering {
        let mut w = Walker {
            m,
            unit,
            vaddr,
            frames: Vec::new(),
            frame_bases: Vec::new(),
            locals: Vec::new(),
            visits: 0,
        };
        let u = &m.units[unit].unit;
        let Ok(mut tree) = u.entries_tree(None) else {
            continue;
        };
        let Ok(root) = tree.root() else { continue };
        w.children(root.children(), None, 0, 0);
        if w.frames.is_empty() {
            continue;
        }
        // Innermost block first, declaration order within a block.
        w.locals
            .sort_by_key(|&(_, level, _)| std::cmp::Reverse(level));
        for (frame, _, var) in w.locals {
            w.frames[frame].locals.push(var);
        }
        w.frames.reverse();
        return ScopeData { frames: w.frames };
    }
    ScopeData::default()
}

impl Walker<'_> {
    /// Walks the children of a DIE of the scope; returns the abstract
    /// origins its direct children name (see [`Walker::inherit`]).
    fn children(
        &mut self,
        mut iter: gimli::EntriesTreeIter<'_, '_, Reader>,
        frame: Option<usize>,
        level: usize,
        depth: usize,
    ) -> HashSet<DieRef> {
        let mut origins = HashSet::new();
        if depth > MAX_DEPTH {
            return origins;
        }
        while let Ok(Some(child)) = iter.next() {
            self.visits += 1;
            if self.visits > MAX_VISITS {
                break;
            }
            let die = child.entry();
            let r = DieRef {
                unit: self.unit,
                offset: die.offset().0,
            };
            let origin = self
                .m
                .attr_ref(self.unit, die, gimli::DW_AT_abstract_origin);
            origins.extend(origin);
            match die.tag() {
                gimli::DW_TAG_subprogram | gimli::DW_TAG_inlined_subroutine => {
                    if !self.m.contains(self.unit, die, self.vaddr) {
                        continue;
                    }
                    let inlined = die.tag() == gimli::DW_TAG_inlined_subroutine;
                    let base = match (inlined, frame) {
                        (true, Some(f)) => self.frame_bases[f].clone(),
                        _ => die
                            .attr_value(gimli::DW_AT_frame_base)
                            .map(|v| Arc::new(Loc::from_attr(self.m, self.unit, v))),
                    };
                    self.frames.push(FrameData {
                        function: self.m.name(r),
                        qualified: crate::vars::qualify::qualified_name(self.m, r),
                        ret: self.m.type_of(r),
                        inlined,
                        main_subprogram: matches!(
                            die.attr_value(gimli::DW_AT_main_subprogram),
                            Some(gimli::AttributeValue::Flag(true))
                        ),
                        entry: self.m.entry_pc(self.unit, die),
                        frame_base: base.clone(),
                        params: Vec::new(),
                        locals: Vec::new(),
                    });
                    self.frame_bases.push(base);
                    let f = self.frames.len() - 1;
                    let seen = self.children(child.children(), Some(f), 0, depth + 1);
                    self.inherit(origin, &seen, f, 0, depth + 1);
                }
                gimli::DW_TAG_lexical_block => {
                    let Some(f) = frame else { continue };
                    let has_pc = die.attr(gimli::DW_AT_low_pc).is_some()
                        || die.attr(gimli::DW_AT_ranges).is_some();
                    if !has_pc {
                        // As gdb does: a block without addresses is no
                        // block; its variables belong to the enclosing one.
                        self.children(child.children(), frame, level, depth + 1);
                    } else if self.m.contains(self.unit, die, self.vaddr) {
                        let seen = self.children(child.children(), frame, level + 1, depth + 1);
                        self.inherit(origin, &seen, f, level + 1, depth + 1);
                    }
                }
                gimli::DW_TAG_namespace | gimli::DW_TAG_module if frame.is_none() => {
                    self.children(child.children(), None, 0, depth + 1);
                }
                gimli::DW_TAG_formal_parameter | gimli::DW_TAG_variable => {
                    if let Some(f) = frame {
                        self.add(r, die, f, level);
                    }
                }
                _ => {}
            }
        }
        origins
    }

    /// Adds the children of a concrete DIE's abstract origin that none of
    /// its direct children stands for (`seen`): variables and parameters
    /// the compiler dropped from this instance are listed, optimized out
    /// (or with their constant value), as gdb lists them.
    fn inherit(
        &mut self,
        origin: Option<DieRef>,
        seen: &HashSet<DieRef>,
        f: usize,
        level: usize,
        depth: usize,
    ) {
        let Some(o) = origin else { return };
        let Some(unit) = self.m.unit(o) else { return };
        let Ok(mut tree) = unit.entries_tree(Some(gimli::UnitOffset(o.offset))) else {
            return;
        };
        let Ok(root) = tree.root() else { return };
        self.abstract_children(root.children(), o.unit, Some(seen), f, level, depth);
    }

    fn abstract_children(
        &mut self,
        mut iter: gimli::EntriesTreeIter<'_, '_, Reader>,
        unit: usize,
        seen: Option<&HashSet<DieRef>>,
        f: usize,
        level: usize,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        while let Ok(Some(child)) = iter.next() {
            self.visits += 1;
            if self.visits > MAX_VISITS {
                return;
            }
            let die = child.entry();
            let r = DieRef {
                unit,
                offset: die.offset().0,
            };
            if seen.is_some_and(|s| s.contains(&r)) {
                continue;
            }
            match die.tag() {
                gimli::DW_TAG_formal_parameter | gimli::DW_TAG_variable => {
                    self.add(r, die, f, level)
                }
                // Abstract blocks have no addresses: their variables belong
                // to the enclosing scope.
                gimli::DW_TAG_lexical_block => {
                    self.abstract_children(child.children(), unit, None, f, level, depth + 1)
                }
                _ => {}
            }
        }
    }

    /// Adds a parameter or variable DIE to frame `f` at block `level`.
    fn add(
        &mut self,
        r: DieRef,
        die: &gimli::DebuggingInformationEntry<Reader>,
        f: usize,
        level: usize,
    ) {
        if die.attr(gimli::DW_AT_declaration).is_some() {
            return;
        }
        let Some(name) = self.m.name(r) else { return };
        let var = Arc::new(VarData {
            name,
            die: r,
            ty: self.m.type_of(r),
            loc: Loc::of(self.m, r),
            frame_base: self.frame_bases[f].clone(),
        });
        if die.tag() == gimli::DW_TAG_formal_parameter {
            self.frames[f].params.push(var);
        } else {
            self.locals.push((f, level, var));
        }
    }
}
