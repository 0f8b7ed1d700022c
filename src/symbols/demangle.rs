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

#[cfg(test)]
mod tests {
    use super::*;

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
