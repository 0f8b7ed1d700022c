//! Library-call prototypes as data, in ltrace.conf(5) syntax.
//!
//! Scope: the type and lens language of ltrace 0.7.3 (`int`, `uint`, `long`,
//! `ulong`, `short`, `ushort`, `char`, `float`, `double`, `void`, `addr`,
//! `file`, `octal`, `format`, `string`, `stringN`, `string[EXPR]`,
//! `string(TYPE)`, `array(TYPE,EXPR)`, `struct(...)`, `enum(...)`,
//! `enum[TYPE](...)`, `oct()`, `hex()`, `hide()`, `bool()`, `bitvec()`,
//! pointers `T*`, `+` out-parameters, `typedef` including forward-declared
//! recursive structs, and the expressions `N`, `argN`, `retval`, `eltN`,
//! `zero`, `zero(EXPR)`). The built-in set lives in `*.conf` beside this file and is
//! parsed by the same code as `-F` files (the line parser is the submodule
//! `parse.rs`). Formatting is in `../format/`.
//! Non-goals: ltrace 0.7.90's per-library `.conf` lookup and `import`.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, OnceLock};

mod parse;

use parse::Parser;

/// A length or value expression (`arg2`, `retval`, `elt1`, `zero(5)`, `6`).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A constant.
    Num(u64),
    /// `argN` (1-based parameter index); `Arg(0)` is `retval`.
    Arg(usize),
    /// `eltN`: the N-th (1-based) field of the enclosing struct.
    Elt(usize),
    /// `zero` / `zero(EXPR)`: up to the first all-zero element, at most EXPR.
    Zero(Option<Box<Expr>>),
}

/// A lens: how a value of the underlying type is shown.
#[derive(Debug, Clone)]
pub enum Lens {
    /// `oct(T)`: base 8 with a leading 0.
    Oct,
    /// `hex(T)`: base 16 (`%#x`), floats as `%a`.
    Hex,
    /// `hide(T)`: not shown.
    Hide,
    /// `bool(T)`: `true` / `false`.
    Bool,
    /// `bitvec(T)`: `<1,3-5>` summary of set bits.
    Bitvec,
    /// `string(T)`: a quoted string.
    Str,
    /// `enum(...)`: value names.
    Enum(Arc<[(String, i64)]>),
    /// No prototype: decimal for small values, hex otherwise (ltrace's default).
    Guess,
}

/// A struct introduced by `typedef NAME = struct;` (possibly recursive).
#[derive(Debug)]
pub struct NamedStruct {
    /// The typedef name.
    pub name: String,
    /// The fields, set by the later `typedef NAME = struct(...)`.
    pub fields: OnceLock<Vec<Type>>,
}

/// A type as ltrace.conf describes it.
#[derive(Debug, Clone)]
pub enum Type {
    /// `void`: as a return, nothing; as a value, a hex pointer-sized number.
    Void,
    /// `char`.
    Char,
    /// `short`.
    Short,
    /// `ushort`.
    UShort,
    /// `int`.
    Int,
    /// `uint`.
    UInt,
    /// `long`.
    Long,
    /// `ulong`.
    ULong,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `T*`.
    Pointer(Box<Type>),
    /// `array(T, EXPR)`.
    Array(Box<Type>, Expr),
    /// `struct(T, ...)`.
    Struct(Vec<Type>),
    /// A recursive struct typedef.
    Named(Arc<NamedStruct>),
    /// `LENS(T)`.
    Lens(Lens, Box<Type>),
    /// `format`: a printf format string followed by the arguments it describes.
    Format,
}

impl Type {
    /// `string[EXPR]`-style string: a pointer to NUL-terminated chars, at most `max`.
    pub fn string(max: Option<Expr>) -> Type {
        let arr = Type::Array(Box::new(Type::Char), Expr::Zero(max.map(Box::new)));
        Type::Lens(Lens::Str, Box::new(Type::Pointer(Box::new(arr))))
    }
}

/// One parameter: its type and whether it is an output (`+`) parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// The parameter's type.
    pub ty: Type,
    /// Marked with `+`: from here on, parameters are printed at return.
    pub out: bool,
}

#[derive(Debug)]
struct ProtoInner {
    name: String,
    ret: Type,
    params: Vec<Param>,
}

/// One function prototype: name, return type, parameters. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Proto(Arc<ProtoInner>);

impl Proto {
    /// Builds a prototype.
    pub fn new(name: &str, ret: Type, params: Vec<Param>) -> Proto {
        Proto(Arc::new(ProtoInner {
            name: name.to_string(),
            ret,
            params,
        }))
    }
    /// The function name.
    pub fn name(&self) -> &str {
        &self.0.name
    }
    /// The return type.
    pub fn ret(&self) -> &Type {
        &self.0.ret
    }
    /// The parameters in order.
    pub fn params(&self) -> &[Param] {
        &self.0.params
    }
    /// Index of the first parameter printed only at return (the first `+`).
    pub fn split(&self) -> Option<usize> {
        self.0.params.iter().position(|p| p.out)
    }
}

/// The built-in prototype files, in load order (later ones win).
pub const BUILTIN_FILES: &[(&str, &str)] = &[
    ("libc.conf", include_str!("libc.conf")),
    ("libm.conf", include_str!("libm.conf")),
    ("libpthread.conf", include_str!("libpthread.conf")),
];

/// A set of prototypes and typedefs, looked up by function name.
#[derive(Debug, Default, Clone)]
pub struct Protos {
    map: HashMap<String, Proto>,
    typedefs: HashMap<String, Type>,
}

impl Protos {
    /// An empty set (what `-F` files load into when the built-ins are not wanted).
    pub fn empty() -> Protos {
        Protos::default()
    }

    /// The built-in set: common libc, libm and libpthread functions.
    pub fn builtin() -> Protos {
        let mut p = Protos::default();
        for (name, text) in BUILTIN_FILES {
            if let Err(e) = p.load_str(text, name) {
                panic!("built-in prototype file is invalid: {e}");
            }
        }
        p
    }

    /// Loads an ltrace.conf-syntax file (`-F FILE`). Good lines are loaded
    /// even when others are bad; the error lists every bad line as
    /// `FILE:LINE: error: MESSAGE`, one per line, as ltrace words them.
    pub fn load_file(&mut self, path: &Path) -> Result<(), String> {
        let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        self.load_str(&String::from_utf8_lossy(&text), &path.display().to_string())
    }

    /// Loads prototype text; `origin` names it in error messages.
    pub fn load_str(&mut self, text: &str, origin: &str) -> Result<(), String> {
        let mut errors = Vec::new();
        // Typedefs this text made: a second one of a name is an error and
        // the first stays, as in ltrace (a later file may still override
        // an earlier file's).
        let mut defined = HashSet::new();
        for (no, line) in text.lines().enumerate() {
            if let Err(e) = self.parse_line(line, &mut defined) {
                errors.push(format!("{origin}:{}: error: {e}", no + 1));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("\n"))
        }
    }

    /// Loads the files ltrace reads by default, later ones overriding earlier
    /// ones: `/usr/share/ltrace/*.conf` (newer ltrace; absent for 0.7.3),
    /// `/etc/ltrace.conf`, then `~/.ltrace.conf`. Missing files are skipped;
    /// bad lines are reported on stderr as ltrace does and the rest is used.
    pub fn load_default_paths(&mut self) {
        let mut paths = Vec::new();
        if let Ok(rd) = std::fs::read_dir("/usr/share/ltrace") {
            let mut v: Vec<_> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "conf"))
                .collect();
            v.sort();
            paths.extend(v);
        }
        paths.push("/etc/ltrace.conf".into());
        if let Some(home) = std::env::var_os("HOME") {
            paths.push(Path::new(&home).join(".ltrace.conf"));
        }
        for p in paths {
            if p.is_file() {
                if let Err(e) = self.load_file(&p) {
                    eprintln!("{e}");
                }
            }
        }
    }

    /// The prototype of `name`, if known.
    pub fn get(&self, name: &str) -> Option<&Proto> {
        self.map.get(name)
    }

    /// Number of prototypes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Parses one line: blank, `; comment`, `typedef NAME = LENS;` or
    /// `LENS NAME(PARAMS);`. Text after the terminating `;` is a comment.
    fn parse_line(&mut self, line: &str, defined: &mut HashSet<String>) -> Result<(), String> {
        let mut p = Parser {
            s: line.as_bytes(),
            i: 0,
            typedefs: &self.typedefs,
        };
        p.ws();
        if p.eof() || p.peek() == Some(b';') {
            return Ok(());
        }
        if p.kwd("typedef") {
            let name = p.ident().ok_or("bad identifier")?;
            p.expect(b'=')?;
            p.ws();
            // `typedef NAME = struct;` forward-declares a recursive struct.
            let save = p.i;
            if p.kwd("struct") && matches!(p.peek(), Some(b';') | None) {
                let ns = NamedStruct {
                    name: name.clone(),
                    fields: OnceLock::new(),
                };
                defined.insert(name.clone());
                self.typedefs.insert(name, Type::Named(Arc::new(ns)));
                return Ok(());
            }
            p.i = save;
            let ty = p.lens()?;
            p.end()?;
            if let (Some(Type::Named(ns)), Type::Struct(fields)) = (self.typedefs.get(&name), &ty) {
                if ns.fields.get().is_none() {
                    let _ = ns.fields.set(fields.clone());
                    return Ok(());
                }
            }
            if !defined.insert(name.clone()) {
                return Err(format!("Redefinition of typedef '{name}'"));
            }
            self.typedefs.insert(name, ty);
            return Ok(());
        }
        let ret = p.lens()?;
        let name = p.ident().ok_or("bad identifier")?;
        p.expect(b'(')?;
        let mut params = Vec::new();
        p.ws();
        if p.peek() == Some(b')') {
            p.i += 1;
        } else {
            loop {
                p.ws();
                if p.peek() == Some(b')') {
                    // A trailing comma, which ltrace accepts.
                    p.i += 1;
                    break;
                }
                let out = p.eat(b'+');
                let ty = p.lens()?;
                params.push(Param { ty, out });
                p.ws();
                match p.next() {
                    Some(b',') => continue,
                    Some(b')') => break,
                    _ => return Err("syntax error".into()),
                }
            }
        }
        p.end()?;
        self.map
            .insert(name.clone(), Proto::new(&name, ret, params));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_errors_name_file_and_line_and_keep_good_lines() {
        let mut p = Protos::empty();
        let e = p
            .load_str(
                "; c\nint f(foo);\nint good(int);\nint h(int\nint k(array(int));\n",
                "bad.conf",
            )
            .unwrap_err();
        let lines: Vec<&str> = e.lines().filter(|l| l.starts_with("bad.conf:")).collect();
        assert!(
            lines[0].starts_with("bad.conf:2: error: unknown type around 'foo);"),
            "{e}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("bad.conf:4: error: syntax error")),
            "{e}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("bad.conf:5: error: expected ',', got ')'")),
            "{e}"
        );
        assert!(p.get("good").is_some() && p.get("f").is_none());
        // Forms ltrace accepts: trailing comma, no ';', comment after ';', legacy names.
        let mut p = Protos::empty();
        p.load_str("int a(int,);\nint b(int)\nint c(string3, +string0, addr, file, octal);   ; note\nmntent *d(addr);", "ok")
            .map_err(|e| assert!(e.contains("mntent"), "{e}"))
            .ok();
        assert!(p.get("a").is_some() && p.get("b").is_some() && p.get("c").is_some());
        let err = Protos::empty()
            .load_file(std::path::Path::new("/nonexistent/ltproto.conf"))
            .unwrap_err();
        assert!(err.contains("/nonexistent/ltproto.conf"), "{err}");
    }

    #[test]
    fn system_ltrace_conf_parses_without_errors() {
        let path = std::path::Path::new("/etc/ltrace.conf");
        if !path.exists() {
            eprintln!("skip: /etc/ltrace.conf not installed (apt-get install ltrace)");
            return;
        }
        let mut p = Protos::empty();
        p.load_file(path).unwrap();
        assert!(
            p.get("strlen").is_some()
                && p.get("setlocale").is_some()
                && p.get("sigaction").is_some()
        );
    }
}
