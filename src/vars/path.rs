//! Variable paths: `name`, `name.field`, `ptr->field`, `table[3]` and
//! their combinations ([`parse_path`], pure), and why one could not be
//! resolved ([`PathError`]). Following them is [`crate::vars::place`]'s job.

use crate::vars::VarError;
use std::fmt;

/// Steps a path may have.
const MAX_STEPS: usize = 64;

/// One step after a path's first name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStep {
    /// `.field`
    Field(String),
    /// `->field`
    Arrow(String),
    /// `[N]`
    Index(u64),
}

/// Why a path could not be resolved or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// Bad syntax at this byte offset.
    Syntax(usize),
    /// No variable (or enumerator) of this name.
    NotFound(String),
    /// The struct or union has no such member.
    NoMember(String),
    /// `.field` or `->field` on something that is not a struct or union.
    NotStruct,
    /// `[N]` on something that is neither an array nor a pointer.
    NotIndexable,
    /// `[N]` past the end of an array of this length.
    OutOfRange(u64),
    /// `->` on something that is not a pointer.
    NotPointer,
    /// Following a pointer needs the tracee's memory, which is not at hand.
    NeedsMemory,
    /// A bit field has no address of its own.
    BitField,
    /// Not an integer, enum, pointer or floating-point value.
    NotScalar,
    /// The variable lives in registers or is a constant: no address.
    NotInMemory,
    /// Not supported (a partly indexed multi-dimensional array as a whole).
    Unsupported,
    /// The variable's value is not available.
    Var(VarError),
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Syntax(at) => write!(f, "bad variable path at offset {at}"),
            PathError::NotFound(n) => write!(f, "no variable '{n}' in scope or among globals"),
            PathError::NoMember(n) => write!(f, "no member named '{n}'"),
            PathError::NotStruct => f.write_str("not a struct or union"),
            PathError::NotIndexable => f.write_str("not an array or pointer"),
            PathError::OutOfRange(n) => write!(f, "index out of range (array of {n})"),
            PathError::NotPointer => f.write_str("'->' on a value that is not a pointer"),
            PathError::NeedsMemory => f.write_str("following a pointer needs a running process"),
            PathError::BitField => f.write_str("a bit field has no address"),
            PathError::NotScalar => f.write_str("not a number, enum or pointer"),
            PathError::NotInMemory => {
                f.write_str("the variable has no address (register or constant)")
            }
            PathError::Unsupported => f.write_str("unsupported path"),
            PathError::Var(e) => write!(f, "{e}"),
        }
    }
}

/// Parses `name(.field|->field|[N])*`; `N` is decimal or `0x` hex.
pub fn parse_path(s: &str) -> Result<(String, Vec<PathStep>), PathError> {
    let b = s.as_bytes();
    let mut i = 0;
    let ident = |i: &mut usize| -> Result<String, PathError> {
        let start = *i;
        if !b
            .get(*i)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            return Err(PathError::Syntax(start));
        }
        while b
            .get(*i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            *i += 1;
        }
        Ok(s[start..*i].to_string())
    };
    let name = ident(&mut i)?;
    let mut steps = Vec::new();
    while i < b.len() {
        if steps.len() >= MAX_STEPS {
            return Err(PathError::Syntax(i));
        }
        if b[i] == b'.' {
            i += 1;
            steps.push(PathStep::Field(ident(&mut i)?));
        } else if s[i..].starts_with("->") {
            i += 2;
            steps.push(PathStep::Arrow(ident(&mut i)?));
        } else if b[i] == b'[' {
            let start = i + 1;
            let end = s[start..]
                .find(']')
                .map(|e| start + e)
                .ok_or(PathError::Syntax(i))?;
            let text = s[start..end].trim();
            let n = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16),
                None => text.parse(),
            };
            steps.push(PathStep::Index(n.map_err(|_| PathError::Syntax(start))?));
            i = end + 1;
        } else {
            return Err(PathError::Syntax(i));
        }
    }
    Ok((name, steps))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(s: &str) -> PathStep {
        PathStep::Field(s.into())
    }

    #[test]
    fn paths_parse() {
        assert_eq!(parse_path("counter"), Ok(("counter".into(), vec![])));
        assert_eq!(
            parse_path("config.origin.x"),
            Ok(("config".into(), vec![field("origin"), field("x")]))
        );
        assert_eq!(
            parse_path("p->next->v[0x10][2]"),
            Ok((
                "p".into(),
                vec![
                    PathStep::Arrow("next".into()),
                    PathStep::Arrow("v".into()),
                    PathStep::Index(16),
                    PathStep::Index(2)
                ]
            ))
        );
        assert_eq!(
            parse_path("_a1.b_2"),
            Ok(("_a1".into(), vec![field("b_2")]))
        );
    }

    #[test]
    fn bad_paths_are_errors() {
        for (bad, at) in [
            ("", 0),
            ("1x", 0),
            ("a.", 2),
            ("a..b", 2),
            ("a[", 1),
            ("a[x]", 2),
            ("a[-1]", 2),
            ("a->", 3),
            ("a b", 1),
            ("a.b c", 3),
            ("é", 0),
            ("a.é", 2),
        ] {
            assert_eq!(parse_path(bad), Err(PathError::Syntax(at)), "{bad:?}");
        }
        let long = format!("a{}", ".b".repeat(100));
        assert!(parse_path(&long).is_err());
    }
}
