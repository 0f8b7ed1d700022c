//! Function symbols of one module: `.symtab` and `.dynsym` (of the file and
//! of its separate debug file) and synthesized PLT stub symbols, sorted by
//! address for lookups by address, searchable by name or glob.

use super::demangle::{demangle, function_base};
use super::elf::ElfImage;
use super::plt;
pub use super::symbol::Symbol;
use super::Warning;
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};

/// The sorted function symbols of a module.
#[derive(Debug, Clone, Default)]
pub struct SymbolTable {
    syms: Vec<Symbol>,
}

impl SymbolTable {
    /// Collects the function symbols of `image` and of its debug file.
    /// Returns a warning next to whatever could be read when a table is
    /// corrupt.
    pub fn build(image: &ElfImage, debug: Option<&ElfImage>) -> (SymbolTable, Option<Warning>) {
        let mut syms = Vec::new();
        let mut warning = None;
        for img in std::iter::once(image).chain(debug) {
            if collect(img, &mut syms).is_err() {
                warning = Some(Warning::BadSymbols);
            }
        }
        syms.extend(plt::plt_symbols(image));
        SymbolTable::from_symbols(syms).with_warning(warning)
    }

    /// A table from a list of symbols (sorted and deduplicated here).
    pub fn from_symbols(mut syms: Vec<Symbol>) -> SymbolTable {
        // By address; at one address the preferred name first, as gdb
        // chooses among aliases (`raise` over `gsignal`): sized before
        // unsized, then the name that sorts last.
        syms.sort_by(|a, b| {
            a.addr
                .cmp(&b.addr)
                .then((b.size != 0).cmp(&(a.size != 0)))
                .then(b.name.cmp(&a.name))
        });
        syms.dedup_by(|b, a| a.addr == b.addr && a.name == b.name);
        SymbolTable { syms }
    }

    fn with_warning(self, w: Option<Warning>) -> (SymbolTable, Option<Warning>) {
        (self, w)
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.syms.len()
    }

    /// Whether there are no symbols.
    pub fn is_empty(&self) -> bool {
        self.syms.is_empty()
    }

    /// All symbols, sorted by address.
    pub fn symbols(&self) -> &[Symbol] {
        &self.syms
    }

    /// All symbols, sorted by address, owned.
    pub fn into_symbols(self) -> Vec<Symbol> {
        self.syms
    }

    /// The symbol containing file address `vaddr`: the nearest one at or
    /// below it, if `vaddr` is within its size (or it has none and no other
    /// symbol lies between).
    pub fn lookup(&self, vaddr: u64) -> Option<&Symbol> {
        let i = self.syms.partition_point(|s| s.addr <= vaddr);
        let last = self.syms.get(i.checked_sub(1)?)?;
        // The preferred symbol at that address sorts first in its group.
        let first = self.syms[..i].partition_point(|s| s.addr < last.addr);
        let group = &self.syms[first..i];
        if let Some(sized) = group
            .iter()
            .find(|s| s.size != 0 && vaddr < s.addr + s.size)
        {
            return Some(sized);
        }
        if let Some(bare) = group.iter().find(|s| s.size == 0) {
            return Some(bare);
        }
        // A sized symbol that ends before vaddr; a larger one may still
        // enclose it (nested symbols are rare, so look back a little).
        self.syms[..first]
            .iter()
            .rev()
            .take(8)
            .find(|s| s.size != 0 && vaddr >= s.addr && vaddr < s.addr + s.size)
    }

    /// Symbols whose raw or demangled name equals `pattern`, or matches it
    /// as a glob (`*`, `?`, `[...]`) when it contains one of those. A plain
    /// name also matches a demangled name's last components, as gdb's
    /// linespecs do for C++ (`wild` matching, gdb's default): `twice` and
    /// `Shape::area` select `ns::twice(int)` and `ns::Shape::area() const`,
    /// with or without the parameter list or template arguments.
    pub fn find(&self, pattern: &str) -> Vec<&Symbol> {
        let is_glob = pattern.contains(['*', '?', '[']);
        let matches = |name: &str| {
            if is_glob {
                glob_match(pattern, name)
            } else {
                name == pattern
            }
        };
        self.syms
            .iter()
            .filter(|s| {
                if matches(&s.name) {
                    return true;
                }
                let d = demangle(&s.name);
                if d == s.name {
                    return false;
                }
                // Also without the parameter list and return type (`ns::f`
                // for `ns::f(int)`, `(anonymous namespace)::f` for its
                // `(int)` form).
                matches(&d)
                    || matches(function_base(&d))
                    || !is_glob && is_cxx(&s.name) && wild_match(pattern, &d)
                    || inherent_path(&d).is_some_and(|p| matches(&p))
            })
            .collect()
    }
}

/// A Rust v0 inherent method, `<krate::m::Type>::len`, as the path gdb
/// and Rust's legacy mangling name it: `krate::m::Type::len`. Not a
/// trait method (`<T as Trait>::f`).
fn inherent_path(d: &str) -> Option<String> {
    let inner = d.strip_prefix('<')?;
    let close = inner.find(">::")?;
    let ty = &inner[..close];
    (!ty.contains([' ', '<'])).then(|| format!("{ty}{}", &inner[close + 1..]))
}

/// An Itanium C++ name, not a Rust legacy one (also `_ZN…E`): gdb
/// wild-matches C++ names only (`break main` in a Rust program is not
/// `prog::main`).
fn is_cxx(raw: &str) -> bool {
    raw.starts_with("_Z") && rustc_demangle::try_demangle(raw).is_err()
}

/// gdb's wild matching of a plain `pattern` against the demangled name
/// `d`: `pattern` is `d`'s trailing `::`-separated components, compared
/// with the parameter list (`area(int) const`) or without it and then
/// also without the last component's template arguments (`f` for
/// `ns::f<int>(int)`). A return type before the name (a template
/// function's) is not part of the components.
fn wild_match(pattern: &str, d: &str) -> bool {
    let suffix = |name: &str| {
        name.strip_suffix(pattern)
            .is_some_and(|head| head.is_empty() || head.ends_with("::") || head.ends_with(' '))
    };
    if suffix(d) {
        return true;
    }
    // Without the parameter list: the `(` of `(anonymous namespace)` is
    // part of the name.
    let base = function_base(d);
    if suffix(base) {
        return true;
    }
    base.strip_suffix('>')
        .and_then(|b| {
            // The `<` that opens the last component's template arguments.
            let mut depth = 1;
            b.char_indices().rev().find_map(|(i, c)| {
                match c {
                    '>' => depth += 1,
                    '<' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(i)
            })
        })
        .is_some_and(|open| suffix(&base[..open]))
}

fn collect(image: &ElfImage, out: &mut Vec<Symbol>) -> Result<(), object::Error> {
    let file = object::File::parse(&**image.data())?;
    let exec_sections: Vec<bool> = std::iter::once(false)
        .chain(file.sections().map(|s| s.kind() == SectionKind::Text))
        .collect();
    for sym in file.symbols().chain(file.dynamic_symbols()) {
        let in_text = sym
            .section_index()
            .and_then(|i| exec_sections.get(i.0).copied())
            .unwrap_or(false);
        let wanted = match sym.kind() {
            SymbolKind::Text => true,
            // Hand-written assembly often has untyped labels (glibc's __restore_rt).
            SymbolKind::Unknown | SymbolKind::Label => in_text,
            _ => false,
        };
        if !wanted || !sym.is_definition() && !in_text {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        if name.is_empty() {
            continue;
        }
        out.push(Symbol {
            addr: sym.address(),
            size: sym.size(),
            name: name.to_string(),
            global: sym.is_global() || sym.is_weak(),
        });
    }
    Ok(())
}

/// Shell-style glob matching: `*` (any run), `?` (one character), `[abc]`,
/// `[a-z]`, `[!x]`.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ti));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, len)) = class_match(&p[pi..], t[ti]) {
                        if ok {
                            pi += len;
                            ti += 1;
                            continue;
                        }
                    } else if t[ti] == '[' {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
                c if c == t[ti] => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, st)) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches `c` against the class at the start of `p` (`[...]`); returns
/// whether it matched and the class's length, or `None` if unterminated.
fn class_match(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            matched |= p[i] <= c && c <= p[i + 2];
            i += 3;
        } else {
            matched |= p[i] == c;
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(addr: u64, size: u64, name: &str, global: bool) -> Symbol {
        Symbol {
            addr,
            size,
            name: name.into(),
            global,
        }
    }

    /// A table of 16-byte global functions named `names`, 0x1000 apart.
    fn table_of(names: &[&str]) -> SymbolTable {
        SymbolTable::from_symbols(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| sym(0x1000 * (i as u64 + 1), 16, n, true))
                .collect(),
        )
    }

    #[test]
    fn plain_names_match_cxx_components_as_gdb_wild_matching() {
        let names = [
            "_ZN2ns5twiceEi",                 // ns::twice(int)
            "_ZN2ns5twiceEd",                 // ns::twice(double)
            "_ZNK2ns5Shape4areaEi",           // ns::Shape::area(int) const
            "_ZNK2ns5Shape4areaEv",           // ns::Shape::area() const
            "_ZN2ns1fIiEEvT_",                // void ns::f<int>(int)
            "_ZN2ns8untwiceEv",               // ns::untwice()
            "_ZN1r4main17h0123456789abcdefE", // Rust: r::main
            "main",
        ];
        let t = table_of(&names);
        let found = |p: &str| {
            let mut v: Vec<&str> = t.find(p).iter().map(|s| s.name.as_str()).collect();
            v.sort();
            v
        };
        assert_eq!(found("twice"), ["_ZN2ns5twiceEd", "_ZN2ns5twiceEi"]);
        assert_eq!(found("twice(double)"), ["_ZN2ns5twiceEd"]);
        assert_eq!(found("ns::twice"), ["_ZN2ns5twiceEd", "_ZN2ns5twiceEi"]);
        assert_eq!(
            found("Shape::area"),
            ["_ZNK2ns5Shape4areaEi", "_ZNK2ns5Shape4areaEv"]
        );
        assert_eq!(found("area(int) const"), ["_ZNK2ns5Shape4areaEi"]);
        assert_eq!(found("f"), ["_ZN2ns1fIiEEvT_"]);
        assert_eq!(found("f<int>"), ["_ZN2ns1fIiEEvT_"]);
        // Whole components only; Rust names are not wild-matched.
        assert!(found("wice").is_empty());
        assert!(found("s::twice").is_empty());
        assert_eq!(found("main"), ["main"]);
    }

    #[test]
    fn anonymous_namespace_functions_by_their_name_and_whole_path() {
        // (anonymous namespace)::hidden(int), and a Rust-free plain `f`.
        let names = ["_ZN12_GLOBAL__N_16hiddenEi", "f"];
        let t = table_of(&names);
        let found = |p: &str| -> Vec<String> { t.find(p).iter().map(|s| s.name.clone()).collect() };
        assert_eq!(found("hidden"), [names[0]]);
        assert_eq!(found("(anonymous namespace)::hidden"), [names[0]]);
        assert_eq!(found("*::hidden"), [names[0]]);
        assert!(found("idden").is_empty());
    }

    #[test]
    fn rust_v0_inherent_methods_by_their_path() {
        // <r::geo::P>::len and <r::geo::P as core::clone::Clone>::clone.
        let names = [
            "_RNvMNtCs6GmmlP4bgsG_1r3geoNtB2_1P3len",
            "_RNvXNtCs6GmmlP4bgsG_1r3geoNtB2_1PNtNtCs1234_4core5clone5Clone5clone",
        ];
        let t = table_of(&names);
        let found = |p: &str| -> Vec<String> { t.find(p).iter().map(|s| s.name.clone()).collect() };
        assert_eq!(found("r::geo::P::len"), [names[0]]);
        assert_eq!(found("<r::geo::P>::len"), [names[0]]);
        assert!(found("r::geo::P::clone").is_empty());
    }

    #[test]
    fn lookup_respects_sizes_and_picks_aliases_as_gdb_does() {
        let t = SymbolTable::from_symbols(vec![
            sym(0x1000, 0x10, "local_alias", false),
            sym(0x1000, 0x10, "global_name", true),
            sym(0x1000, 0, "label", true),
            sym(0x1100, 0x100, "outer", true),
            sym(0x1180, 0x10, "nested", false),
            sym(0x2000, 0, "unsized", true),
        ]);
        assert_eq!(
            t.lookup(0x1004).unwrap().name,
            "local_alias",
            "sized, last by name"
        );
        assert_eq!(
            t.lookup(0x1010).unwrap().name,
            "label",
            "unsized alias covers the rest"
        );
        assert_eq!(t.lookup(0x1185).unwrap().name, "nested");
        assert_eq!(t.lookup(0x11a0).unwrap().name, "outer");
        assert_eq!(t.lookup(0x2345).unwrap().name, "unsized");
        assert!(t.lookup(0xfff).is_none());
    }

    #[test]
    fn globs() {
        assert!(glob_match("vfs_*", "vfs_read"));
        assert!(glob_match("*read*", "pread64"));
        assert!(glob_match("m?lloc", "malloc"));
        assert!(glob_match("[a-c]x[!0-9]", "bxz"));
        assert!(!glob_match("[a-c]x[!0-9]", "bx5"));
        assert!(!glob_match("vfs_*", "do_vfs_read"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a*b*c", "aXXbYYc"));
        assert!(!glob_match("a*b*c", "aXXbYY"));
        assert!(glob_match("[x", "[x"), "unterminated class is literal");
    }

    #[test]
    fn find_by_demangled_name() {
        let t = SymbolTable::from_symbols(vec![
            sym(0x10, 4, "_ZN2ns4funcEi", true),
            sym(0x20, 4, "plain", true),
        ]);
        assert_eq!(t.find("ns::func").len(), 1);
        assert_eq!(t.find("ns::func(int)").len(), 1);
        assert_eq!(t.find("ns::*").len(), 1);
        assert_eq!(t.find("pl*").len(), 1);
        assert!(t.find("nothing").is_empty());
    }
}
