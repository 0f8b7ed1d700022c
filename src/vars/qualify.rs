//! Functions' qualified names as gdb prints them in frame lines
//! (`ns::Shape::area`, `calc::Runner<calc::Acc>::run`,
//! `bk_rust::geo::calc::area`): the function's `DW_AT_name` after the
//! names of the namespaces, classes and modules that enclose its
//! declaration. A definition outside its class (`DW_AT_specification`) or
//! an inlined or out-of-line instance (`DW_AT_abstract_origin`) is
//! qualified by where the DIE those links end at is declared, as gdb's
//! prefix computation does.
//!
//! gimli's DIEs know their children, not their parent: each unit's
//! enclosing scopes are indexed once, as offset spans (a DIE's subtree
//! is the offsets from it to its next sibling), the first time a name of
//! that unit is asked for.
//!
//! Non-goals: gdb's names for functions in functions (local classes,
//! lambdas: `main()::{lambda(int)#1}`) and anonymous classes; their
//! functions get the prefix of the named scopes around them.

use crate::vars::data::ScopeSpan;
use crate::vars::module::{DieRef, ModVars};

/// How many links are followed to the declaration (cycles in corrupt
/// DWARF).
const MAX_HOPS: usize = 4;
/// Enclosing scopes named, innermost first, before giving up.
const MAX_NESTING: usize = 64;

/// Whether a DIE of tag `tag` qualifies the names declared in it.
fn is_scope(tag: gimli::DwTag) -> bool {
    matches!(
        tag,
        gimli::DW_TAG_namespace
            | gimli::DW_TAG_class_type
            | gimli::DW_TAG_structure_type
            | gimli::DW_TAG_union_type
            | gimli::DW_TAG_interface_type
            | gimli::DW_TAG_module
    )
}

/// The scope spans of unit `unit`, in offset order.
fn index_unit(m: &ModVars, unit: usize) -> Vec<ScopeSpan> {
    let mut spans: Vec<ScopeSpan> = Vec::new();
    let Some(u) = m.units.get(unit) else {
        return spans;
    };
    // Open spans: (depth of the DIE, index).
    let mut open: Vec<(isize, usize)> = Vec::new();
    let mut cursor = u.unit.entries();
    while let Ok(Some(die)) = cursor.next_dfs() {
        let depth = die.depth();
        let offset = die.offset().0;
        while let Some(&(d, i)) = open.last() {
            if d < depth {
                break;
            }
            spans[i].end = offset;
            open.pop();
        }
        if !is_scope(die.tag()) {
            continue;
        }
        let name = die
            .attr_value(gimli::DW_AT_name)
            .and_then(|v| m.string(unit, v))
            .or_else(|| {
                (die.tag() == gimli::DW_TAG_namespace).then(|| "(anonymous namespace)".into())
            });
        spans.push(ScopeSpan {
            begin: offset,
            end: usize::MAX,
            name,
            parent: open.last().map(|&(_, i)| i),
        });
        open.push((depth, spans.len() - 1));
    }
    spans
}

/// The names of the scopes around the DIE at `offset`, outermost first.
fn prefix(spans: &[ScopeSpan], offset: usize) -> Vec<&str> {
    // The last span opened before the DIE, then out to one that holds it.
    let mut at = spans.partition_point(|s| s.begin < offset).checked_sub(1);
    while let Some(i) = at {
        if spans[i].end > offset {
            break;
        }
        at = spans[i].parent;
    }
    let mut names = Vec::new();
    while let Some(i) = at {
        if names.len() >= MAX_NESTING {
            break;
        }
        names.extend(spans[i].name.as_deref());
        at = spans[i].parent;
    }
    names.reverse();
    names
}

/// `r`'s name qualified by the scopes of its declaration, `::`-joined;
/// its bare `DW_AT_name` when nothing encloses it (C).
pub(crate) fn qualified_name(m: &ModVars, r: DieRef) -> Option<String> {
    let name = m.name(r)?;
    let mut decl = r;
    for _ in 0..MAX_HOPS {
        let Some(die) = m.entry(decl) else { break };
        let next = m
            .attr_ref(decl.unit, &die, gimli::DW_AT_specification)
            .or_else(|| m.attr_ref(decl.unit, &die, gimli::DW_AT_abstract_origin));
        match next {
            Some(n) => decl = n,
            None => break,
        }
    }
    let name = canonical_types(&name);
    let spans = m
        .units
        .get(decl.unit)?
        .scope_spans
        .get_or_init(|| index_unit(m, decl.unit));
    let mut names = prefix(spans, decl.offset);
    if names.is_empty() {
        return Some(name);
    }
    names.push(&name);
    Some(canonical_types(&names.join("::")))
}

/// g++'s spellings of integer types (in template arguments:
/// `Box<long int>`) as gdb's canonical C++ names print them
/// (`Box<long>`), longest first.
const INTEGER_SPELLINGS: [(&str, &str); 6] = [
    ("long long unsigned int", "unsigned long long"),
    ("long long int", "long long"),
    ("long unsigned int", "unsigned long"),
    ("short unsigned int", "unsigned short"),
    ("long int", "long"),
    ("short int", "short"),
];

/// `name` with [`INTEGER_SPELLINGS`] replaced where they are whole words.
fn canonical_types(name: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    'scan: while i < name.len() {
        let rest = &name[i..];
        if !word(out.chars().last()) {
            for (from, to) in INTEGER_SPELLINGS {
                if rest.starts_with(from) && !word(rest[from.len()..].chars().next()) {
                    out.push_str(to);
                    i += from.len();
                    continue 'scan;
                }
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(begin: usize, end: usize, name: &str, parent: Option<usize>) -> ScopeSpan {
        ScopeSpan {
            begin,
            end,
            name: (!name.is_empty()).then(|| name.to_string()),
            parent,
        }
    }

    #[test]
    fn integer_types_spelled_as_gdb() {
        assert_eq!(canonical_types("Box<long int>"), "Box<long>");
        assert_eq!(
            canonical_types("M<long unsigned int, short int>"),
            "M<unsigned long, short>"
        );
        assert_eq!(canonical_types("P<long long int>"), "P<long long>");
        // Whole words only.
        assert_eq!(canonical_types("along int_t"), "along int_t");
        assert_eq!(canonical_types("area"), "area");
    }

    #[test]
    fn prefix_is_the_spans_holding_the_offset() {
        // ns [10, 100) { Shape [20, 50) { } unnamed [60, 80) { } }, other [100, 120)
        let spans = [
            span(10, 100, "ns", None),
            span(20, 50, "Shape", Some(0)),
            span(60, 80, "", Some(0)),
            span(100, 120, "other", None),
        ];
        assert_eq!(prefix(&spans, 5), Vec::<&str>::new());
        assert_eq!(prefix(&spans, 30), ["ns", "Shape"]);
        // Past Shape's subtree, still in ns.
        assert_eq!(prefix(&spans, 55), ["ns"]);
        // An unnamed class adds nothing.
        assert_eq!(prefix(&spans, 70), ["ns"]);
        assert_eq!(prefix(&spans, 110), ["other"]);
        assert_eq!(prefix(&spans, 130), Vec::<&str>::new());
    }
}
