//! Demangling of Rust (legacy and v0) and C++ (Itanium) symbol names.

use std::borrow::Cow;

/// Demangles `name` if it is a Rust or C++ mangled name; otherwise returns
/// it unchanged. Rust names lose their hash suffix (`{:#}` form).
pub fn demangle(name: &str) -> Cow<'_, str> {
    if let Ok(d) = rustc_demangle::try_demangle(name) {
        return Cow::Owned(format!("{d:#}"));
    }
    if name.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(name) {
            let opts = cpp_demangle::DemangleOptions::default();
            if let Ok(d) = sym.demangle_with_options(&opts) {
                return Cow::Owned(d);
            }
        }
    }
    Cow::Borrowed(name)
}

/// A demangled symbol's function name without its parameter list,
/// qualifiers and return type, as DWARF names it: `ns::Shape::area(int)
/// const` gives `ns::Shape::area`, `int ns::triple<int>(int)` gives
/// `ns::triple<int>`.
pub fn function_base(sym: &str) -> &str {
    let b = sym.as_bytes();
    let (mut depth, mut start, mut i) = (0i32, 0, 0);
    while i < b.len() {
        if sym[i..].starts_with(ANONYMOUS) {
            i += ANONYMOUS.len();
            continue;
        }
        if depth == 0 && operator_at(sym, i) {
            i += OPERATOR.len();
            i += operator_len(&sym[i..]);
            continue;
        }
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b'(' if depth == 0 => break,
            b' ' if depth == 0 => start = i + 1,
            _ => {}
        }
        i += 1;
    }
    let end = i.min(b.len());
    &sym[start.min(end)..end]
}

const OPERATOR: &str = "operator";
/// The demangled name of an anonymous namespace: a component, not a
/// parameter list.
const ANONYMOUS: &str = "(anonymous namespace)";

/// Whether the word `operator` starts at byte `i` of `s`.
fn operator_at(s: &str, i: usize) -> bool {
    let before = s[..i].bytes().last();
    s[i..].starts_with(OPERATOR) && matches!(before, None | Some(b':' | b' '))
}

/// The length of the operator after `operator` in `rest`: `()`, `[]`, a
/// run of punctuation (`<<=`, `->`), or ` new`/` delete`/a conversion's
/// type name.
fn operator_len(rest: &str) -> usize {
    if rest.starts_with("()") || rest.starts_with("[]") {
        return 2;
    }
    let punct = rest
        .bytes()
        .take_while(|c| b"<>=!+-*/%^&|~,".contains(c))
        .count();
    if punct > 0 {
        return punct;
    }
    // ` new`, ` delete[]`, ` int`: up to the parameter list.
    rest.find('(').unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_base_drops_parameters_qualifiers_and_return_type() {
        assert_eq!(
            function_base("ns::Shape::area(int) const"),
            "ns::Shape::area"
        );
        assert_eq!(function_base("int ns::triple<int>(int)"), "ns::triple<int>");
        assert_eq!(
            function_base("std::pair<int, char> f<int, char>(int)"),
            "f<int, char>"
        );
        assert_eq!(function_base("ns::S::operator()(int)"), "ns::S::operator()");
        assert_eq!(
            function_base("bk_rust::geo::calc::area"),
            "bk_rust::geo::calc::area"
        );
        assert_eq!(function_base("main"), "main");
        assert_eq!(
            function_base("(anonymous namespace)::hidden(int)"),
            "(anonymous namespace)::hidden"
        );
        assert_eq!(
            function_base("ns::S::operator<(ns::S const&)"),
            "ns::S::operator<"
        );
        assert_eq!(function_base("operator new(unsigned long)"), "operator new");
        assert_eq!(
            function_base("ns::S::operator->() const"),
            "ns::S::operator->"
        );
    }

    #[test]
    fn rust_cpp_and_plain() {
        assert_eq!(
            demangle("_ZN4core3fmt5write17h0123456789abcdefE"),
            "core::fmt::write"
        );
        assert_eq!(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
        assert_eq!(
            demangle("_ZN2ns6Widget6methodEi"),
            "ns::Widget::method(int)"
        );
        assert_eq!(
            demangle("_ZNSt6vectorIiSaIiEE9push_backERKi"),
            "std::vector<int, std::allocator<int> >::push_back(int const&)"
        );
        assert_eq!(demangle("malloc"), "malloc");
        assert_eq!(demangle("_Z"), "_Z", "garbage stays as is");
        assert_eq!(demangle("_ZZZZZZ"), "_ZZZZZZ");
    }
}
