//! The ltrace.conf(5) line parser: lenses, types, expressions. Part of
//! `mod.rs` (kept apart for size); `Protos::parse_line` drives it.

use std::collections::HashMap;

use super::{Expr, Lens, Type};

/// A cursor over one line of ltrace.conf text.
pub(super) struct Parser<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
    pub(super) typedefs: &'a HashMap<String, Type>,
}

impl Parser<'_> {
    pub(super) fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    pub(super) fn eof(&self) -> bool {
        self.i >= self.s.len()
    }
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    pub(super) fn next(&mut self) -> Option<u8> {
        let c = self.peek();
        self.i += usize::from(c.is_some());
        c
    }
    pub(super) fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            let got = self
                .peek()
                .map_or("end of line".to_string(), |g| format!("'{}'", g as char));
            Err(format!("expected '{}', got {got}", c as char))
        }
    }
    /// The statement ends with `;` (or the line ends); the rest is a comment.
    pub(super) fn end(&mut self) -> Result<(), String> {
        self.ws();
        match self.peek() {
            None | Some(b';') => Ok(()),
            Some(_) => Err(format!("unexpected text around '{}'", self.rest())),
        }
    }
    fn rest(&self) -> String {
        String::from_utf8_lossy(&self.s[self.i.min(self.s.len())..]).into_owned()
    }
    pub(super) fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        if start == self.i || self.s[start].is_ascii_digit() {
            self.i = start;
            return None;
        }
        Some(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }
    /// Consumes keyword `k` if it is the next whole word.
    pub(super) fn kwd(&mut self, k: &str) -> bool {
        self.ws();
        let save = self.i;
        match self.ident() {
            Some(w) if w == k => true,
            _ => {
                self.i = save;
                false
            }
        }
    }
    fn number(&mut self) -> Result<i64, String> {
        self.ws();
        let start = self.i;
        let neg = self.eat(b'-');
        self.ws();
        let (radix, digits_at) =
            if self.s[self.i..].starts_with(b"0x") || self.s[self.i..].starts_with(b"0X") {
                (16, self.i + 2)
            } else {
                (10, self.i)
            };
        let mut j = digits_at;
        while j < self.s.len() && (self.s[j] as char).is_digit(radix) {
            j += 1;
        }
        let text = std::str::from_utf8(&self.s[digits_at..j]).unwrap_or("");
        let v = u64::from_str_radix(text, radix).map_err(|_| {
            self.i = start;
            "bad number".to_string()
        })?;
        self.i = j;
        Ok(if neg {
            (v as i64).wrapping_neg()
        } else {
            v as i64
        })
    }
    fn expr(&mut self) -> Result<Expr, String> {
        self.ws();
        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Ok(Expr::Num(self.number()? as u64));
        }
        let save = self.i;
        let w = self.ident().unwrap_or_default();
        if w == "retval" {
            return Ok(Expr::Arg(0));
        }
        if w == "zero" {
            if self.eat(b'(') {
                let e = self.expr()?;
                self.expect(b')')?;
                return Ok(Expr::Zero(Some(Box::new(e))));
            }
            return Ok(Expr::Zero(None));
        }
        for (pre, mk) in [("arg", Expr::Arg as fn(usize) -> Expr), ("elt", Expr::Elt)] {
            if let Some(n) = w.strip_prefix(pre) {
                if let Ok(n) = n.parse::<usize>() {
                    return Ok(mk(n));
                }
            }
        }
        self.i = save;
        Err("bad number".into())
    }
    /// `LENS` followed by any number of `*`.
    pub(super) fn lens(&mut self) -> Result<Type, String> {
        let mut t = self.base()?;
        while self.eat(b'*') {
            t = Type::Pointer(Box::new(t));
        }
        Ok(t)
    }
    fn wrapped(&mut self, lens: Lens) -> Result<Type, String> {
        self.expect(b'(')?;
        let t = self.lens()?;
        self.expect(b')')?;
        Ok(Type::Lens(lens, Box::new(t)))
    }
    fn base(&mut self) -> Result<Type, String> {
        self.ws();
        let save = self.i;
        let Some(w) = self.ident() else {
            return Err(format!("unknown type around '{}'", self.rest()));
        };
        Ok(match w.as_str() {
            "void" => Type::Void,
            "char" => Type::Char,
            "short" => Type::Short,
            "ushort" => Type::UShort,
            "int" => Type::Int,
            "uint" => Type::UInt,
            "long" => Type::Long,
            "ulong" => Type::ULong,
            "float" => Type::Float,
            "double" => Type::Double,
            "addr" | "file" => Type::Pointer(Box::new(Type::Void)),
            "octal" => Type::Lens(Lens::Oct, Box::new(Type::Int)),
            "format" => Type::Format,
            "oct" => self.wrapped(Lens::Oct)?,
            "hex" => self.wrapped(Lens::Hex)?,
            "hide" => self.wrapped(Lens::Hide)?,
            "bool" => self.wrapped(Lens::Bool)?,
            "bitvec" => self.wrapped(Lens::Bitvec)?,
            "enum" => self.enumeration()?,
            "struct" => {
                self.expect(b'(')?;
                let mut fields = Vec::new();
                if !self.eat(b')') {
                    loop {
                        fields.push(self.lens()?);
                        if self.eat(b')') {
                            break;
                        }
                        self.expect(b',')?;
                    }
                }
                Type::Struct(fields)
            }
            "array" => {
                self.expect(b'(')?;
                let t = self.lens()?;
                self.expect(b',')?;
                let e = self.expr()?;
                self.expect(b')')?;
                Type::Array(Box::new(t), e)
            }
            "string" => {
                self.ws();
                match self.peek() {
                    Some(b'(') => self.wrapped(Lens::Str)?,
                    Some(b'[') => {
                        self.i += 1;
                        let e = self.expr()?;
                        self.expect(b']')?;
                        Type::string(Some(e))
                    }
                    _ => Type::string(None),
                }
            }
            s if s.starts_with("string") && s[6..].bytes().all(|c| c.is_ascii_digit()) => {
                // Legacy `stringN` = `string[argN]`; `string0` = `string[retval]`.
                Type::string(Some(Expr::Arg(s[6..].parse().map_err(|_| "bad number")?)))
            }
            name => match self.typedefs.get(name) {
                Some(t) => t.clone(),
                None => {
                    self.i = save;
                    return Err(format!("unknown type around '{}'", self.rest()));
                }
            },
        })
    }
    /// `enum(NAME[=VALUE], ...)` or `enum[TYPE](...)`.
    fn enumeration(&mut self) -> Result<Type, String> {
        let under = if self.eat(b'[') {
            let t = self.lens()?;
            self.expect(b']')?;
            t
        } else {
            Type::Int
        };
        self.expect(b'(')?;
        let mut vals = Vec::new();
        let mut next = 0i64;
        loop {
            let name = self
                .ident()
                .ok_or_else(|| format!("bad identifier around '{}'", self.rest()))?;
            if self.eat(b'=') {
                next = self.number()?;
            }
            vals.push((name, next));
            next = next.wrapping_add(1);
            if self.eat(b')') {
                break;
            }
            self.expect(b',')?;
        }
        Ok(Type::Lens(Lens::Enum(vals.into()), Box::new(under)))
    }
}
