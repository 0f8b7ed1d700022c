//! ltrace-style formatting of library-call arguments and return values.
//!
//! Scope: turning a [`Proto`] plus register values (through [`ArgSource`])
//! into exactly the text ltrace 0.7.3 prints: `"str"...` truncation at `-s`,
//! `nil`, `'c'`, `[ 1, 2 ]`, `{ 1, 2 }`, enum names, `%f` floats, `0x…`
//! hex, octal, `true`/`false`, bit vectors, `recurse^`, printf varargs decoded
//! from the format, out-parameters (`+`) read at return, and the
//! no-prototype default (four arguments, decimal when within ±10000, else
//! hex). Arguments are fetched at entry following the x86-64 SysV classes
//! (integer and SSE registers counted apart, then stack slots, small structs
//! split by eightbyte); memory is read when the text is made.
//! Non-goals: `long double`, and the second register of a returned
//! two-eightbyte struct (`RetVals` carries one of each kind).
//!
//! The calling convention (`protos/abi.rs`) and the printf parameter pack
//! (`protos/printf.rs`) are submodules kept beside the prototype data.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::proto::{Expr, Lens, Param, Proto, Type};

#[path = "protos/abi.rs"]
mod abi;
#[path = "protos/printf.rs"]
mod printf;

use abi::{int_of, layout, ret_bytes, size_align, strip, struct_fields, word, Bytes, Fetch};
pub use printf::printf_types;

/// Where argument values come from (registers and tracee memory).
pub trait ArgSource {
    /// The i-th integer-class argument at function entry in ABI order; from
    /// i = 6 on (x86-64), the (i-6)-th 8-byte stack argument slot.
    fn int_arg(&mut self, i: usize) -> u64;
    /// The i-th floating-point argument register (i < 8): its low 64 bits
    /// as an `f64` bit pattern (a `float` argument is in the low 32 bits).
    fn float_arg(&mut self, i: usize) -> f64;
    /// Reads tracee memory at `addr` into `buf`; returns the bytes read.
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize;
}

/// Return-value registers at function return.
#[derive(Debug, Clone, Copy, Default)]
pub struct RetVals {
    /// Integer return register, all 64 bits.
    pub int: u64,
    /// Floating-point return register: low 64 bits as an `f64` bit pattern.
    pub float: f64,
}

/// Formatting options.
#[derive(Debug, Clone, Copy)]
pub struct FormatOpts {
    /// `-s`: maximum string length printed (default 32).
    pub string_len: usize,
    /// `-C`: demangle C++ names (see [`display_name`]).
    pub demangle: bool,
}

impl Default for FormatOpts {
    fn default() -> Self {
        FormatOpts {
            string_len: 32,
            demangle: false,
        }
    }
}

/// ltrace's default `-A` (array elements and struct nesting shown).
pub const DEFAULT_ARRAY_LEN: usize = 4;
/// Arguments shown for a function without a prototype, as ltrace 0.7.3.
pub const UNKNOWN_ARGS: usize = 4;
const MAX_FORMAT_LEN: usize = 4096;

/// The function name as printed: demangled with `-C`.
pub fn display_name<'a>(name: &'a str, o: &FormatOpts) -> Cow<'a, str> {
    if o.demangle {
        crate::symbols::demangle(name)
    } else {
        Cow::Borrowed(name)
    }
}

/// Where an argument's type is: the prototype's parameter, the default
/// for functions without one, or a type made from a printf format.
#[derive(Debug, Clone)]
enum ArgTy {
    Param(usize),
    Guess,
    Extra(Type),
}

/// An argument as fetched at entry.
#[derive(Debug, Clone)]
struct Arg {
    ty: ArgTy,
    bytes: Bytes,
}

/// An array parameter is passed as a pointer to it (C's decay, which
/// ltrace applies too): the pointer type to format it with, if `ty` is one.
fn decay(ty: &Type) -> Option<Type> {
    match ty {
        Type::Array(..) => Some(Type::Pointer(Box::new(ty.clone()))),
        Type::Lens(l, t) => decay(t).map(|d| Type::Lens(l.clone(), Box::new(d))),
        _ => None,
    }
}

/// The no-prototype type: a long shown as decimal or hex by size.
fn guess_type() -> &'static Type {
    static GUESS: OnceLock<Type> = OnceLock::new();
    GUESS.get_or_init(|| Type::Lens(Lens::Guess, Box::new(Type::Long)))
}

/// State of one call from entry to return.
#[derive(Debug, Clone)]
pub struct Call {
    proto: Option<Proto>,
    args: Vec<Arg>,
    split: usize,
    entry: String,
    array_len: usize,
}

/// Fetches and formats the arguments of `name` at entry (`-A` = 4).
pub fn on_entry(
    name: &str,
    proto: Option<&Proto>,
    src: &mut dyn ArgSource,
    o: &FormatOpts,
) -> Call {
    on_entry_with(name, proto, src, o, DEFAULT_ARRAY_LEN)
}

/// [`on_entry`] with an explicit `-A` limit (array elements, struct depth).
pub fn on_entry_with(
    _name: &str,
    proto: Option<&Proto>,
    src: &mut dyn ArgSource,
    o: &FormatOpts,
    array_len: usize,
) -> Call {
    let mut fetch = Fetch {
        ni: 0,
        nf: 0,
        stack: 0,
    };
    let mut args = Vec::new();
    let mut split = None;
    match proto {
        None => {
            for _ in 0..UNKNOWN_ARGS {
                let w = fetch.int(src);
                args.push(Arg {
                    ty: ArgTy::Guess,
                    bytes: Bytes::word(w),
                });
            }
        }
        Some(p) => {
            for (k, param) in p.params().iter().enumerate() {
                if param.out && split.is_none() {
                    split = Some(args.len());
                }
                let bytes = fetch.arg(src, &param.ty);
                let is_format = matches!(param.ty, Type::Format);
                let addr = word(bytes.as_slice());
                args.push(Arg {
                    ty: ArgTy::Param(k),
                    bytes,
                });
                if is_format && addr != 0 {
                    let mut buf = vec![0u8; MAX_FORMAT_LEN];
                    let n = src.read(addr, &mut buf);
                    let end = buf[..n].iter().position(|&c| c == 0).unwrap_or(n);
                    for ty in printf_types(&buf[..end], args.len() + 1) {
                        let bytes = fetch.arg(src, &ty);
                        args.push(Arg {
                            ty: ArgTy::Extra(ty),
                            bytes,
                        });
                    }
                }
            }
        }
    }
    let split = split.unwrap_or(args.len());
    let mut call = Call {
        proto: proto.cloned(),
        args,
        split,
        entry: String::new(),
        array_len,
    };
    let mut f = call.formatter(src, o, None);
    call.entry = f.list(0..split);
    call
}

impl Call {
    /// Arguments as printed before `" <unfinished ...>"`. The first text of
    /// [`Call::finish`] always starts with this, so the `<... f resumed>`
    /// part is `&full[entry_text().len()..]`.
    pub fn entry_text(&self) -> &str {
        &self.entry
    }

    /// Whether the return value is (partly) in a vector register, so the
    /// floating-point registers must be read at return.
    pub fn ret_uses_float(&self) -> bool {
        let Some(p) = &self.proto else {
            return false;
        };
        let t = p.ret();
        match abi::struct_classes(t) {
            Some(classes) => size_align(t).0 <= 16 && classes.iter().any(|&sse| sse),
            None => abi::is_float(t),
        }
    }

    /// At return: (full argument text including out-parameters read now,
    /// return value text such as `5`, `"x"`, `nil` or `<void>`).
    pub fn finish(
        &self,
        ret: RetVals,
        src: &mut dyn ArgSource,
        o: &FormatOpts,
    ) -> (String, String) {
        let mut f = self.formatter(src, o, Some(ret.int));
        let rest = f.list(self.split..self.args.len());
        let mut full = self.entry.clone();
        if !full.is_empty() && !rest.is_empty() {
            full.push_str(", ");
        }
        full.push_str(&rest);
        let out = self.ret_text(&mut f, ret);
        (full, out)
    }

    /// Each entry argument's text on its own (`--json`), as
    /// [`Call::entry_text`] shows them (memory is read again now).
    pub fn entry_parts(&self, src: &mut dyn ArgSource, o: &FormatOpts) -> Vec<String> {
        let mut f = self.formatter(src, o, None);
        f.parts(0..self.split)
    }

    /// At return, for `--json`: each out-parameter's text on its own and
    /// the return value's text (as [`Call::finish`]).
    pub fn finish_parts(
        &self,
        ret: RetVals,
        src: &mut dyn ArgSource,
        o: &FormatOpts,
    ) -> (Vec<String>, String) {
        let mut f = self.formatter(src, o, Some(ret.int));
        let rest = f.parts(self.split..self.args.len());
        let out = self.ret_text(&mut f, ret);
        (rest, out)
    }

    fn ret_text(&self, f: &mut Fmt<'_>, ret: RetVals) -> String {
        let rty = match &self.proto {
            None => guess_type(),
            Some(p) => p.ret(),
        };
        let mut out = String::new();
        match rty {
            Type::Void => out.push_str("<void>"),
            Type::Lens(Lens::Hide, _) => {}
            t => {
                let bytes = ret_bytes(t, ret, f.src);
                f.value(&mut out, t, &bytes, None);
            }
        }
        out
    }

    fn formatter<'a>(
        &'a self,
        src: &'a mut dyn ArgSource,
        o: &FormatOpts,
        ret: Option<u64>,
    ) -> Fmt<'a> {
        Fmt {
            src,
            args: &self.args,
            params: self.proto.as_ref().map_or(&[][..], |p| p.params()),
            ret,
            slen: o.string_len,
            alen: self.array_len,
            ptrs: Vec::new(),
        }
    }
}

/// C's `%f` (six decimals, `inf`, `nan`).
fn fmt_f(v: f64) -> String {
    if v.is_nan() {
        if v.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if v.is_infinite() {
        if v < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{v:.6}")
    }
}

/// C's `%a` for a double (glibc style: `0x1.8p+0`, `0x0p+0`).
pub fn fmt_a(v: f64) -> String {
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v.is_nan() || v.is_infinite() {
        return format!("{sign}{}", if v.is_nan() { "nan" } else { "inf" });
    }
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1u64 << 52) - 1);
    if exp == 0 && mant == 0 {
        return format!("{sign}0x0p+0");
    }
    let (lead, e) = if exp == 0 {
        (0, -1022)
    } else {
        (1, exp - 1023)
    };
    let mut hex = format!("{mant:013x}");
    while hex.ends_with('0') {
        hex.pop();
    }
    let dot = if hex.is_empty() {
        String::new()
    } else {
        format!(".{hex}")
    };
    format!("{sign}0x{lead}{dot}p{}{e}", if e >= 0 { "+" } else { "" })
}

/// One character as ltrace prints it inside quotes.
pub fn push_char(out: &mut String, c: u8) {
    match c {
        0 => out.push_str("\\0"),
        7 => out.push_str("\\a"),
        8 => out.push_str("\\b"),
        9 => out.push_str("\\t"),
        10 => out.push_str("\\n"),
        11 => out.push_str("\\v"),
        12 => out.push_str("\\f"),
        13 => out.push_str("\\r"),
        b'\\' => out.push_str("\\\\"),
        0x20..=0x7e => out.push(c as char),
        _ => out.push_str(&format!("\\{c:03o}")),
    }
}

/// `%#x` of an unsigned value (`0` stays `0`).
fn hex(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// Text production over fetched arguments and tracee memory.
struct Fmt<'a> {
    src: &'a mut dyn ArgSource,
    args: &'a [Arg],
    params: &'a [Param],
    ret: Option<u64>,
    slen: usize,
    alen: usize,
    ptrs: Vec<u64>,
}

type Elts<'b> = Option<(&'b [Type], &'b [u8])>;

impl<'a> Fmt<'a> {
    fn ty(&self, a: &'a Arg) -> &'a Type {
        match &a.ty {
            ArgTy::Param(k) => &self.params[*k].ty,
            ArgTy::Guess => guess_type(),
            ArgTy::Extra(t) => t,
        }
    }

    fn parts(&mut self, range: std::ops::Range<usize>) -> Vec<String> {
        let args = self.args;
        let mut v = Vec::new();
        for a in &args[range] {
            let ty = self.ty(a);
            if matches!(ty, Type::Lens(Lens::Hide, _)) {
                continue;
            }
            let mut out = String::new();
            match decay(ty) {
                Some(d) => self.value(&mut out, &d, a.bytes.as_slice(), None),
                None => self.value(&mut out, ty, a.bytes.as_slice(), None),
            }
            v.push(out);
        }
        v
    }

    fn list(&mut self, range: std::ops::Range<usize>) -> String {
        let mut out = String::new();
        let args = self.args;
        for a in &args[range] {
            let ty = self.ty(a);
            if matches!(ty, Type::Lens(Lens::Hide, _)) {
                continue;
            }
            if !out.is_empty() {
                out.push_str(", ");
            }
            match decay(ty) {
                Some(d) => self.value(&mut out, &d, a.bytes.as_slice(), None),
                None => self.value(&mut out, ty, a.bytes.as_slice(), None),
            }
        }
        out
    }

    fn eval(&mut self, e: &Expr, elts: Elts) -> Option<u64> {
        match e {
            Expr::Num(n) => Some(*n),
            Expr::Arg(0) => self.ret,
            Expr::Arg(n) => {
                let a = self.args.get(n - 1)?;
                int_of(self.ty(a), a.bytes.as_slice()).map(|v| v as u64)
            }
            Expr::Elt(n) => {
                let (fields, b) = elts?;
                let (offs, _, _) = layout(fields);
                let (ty, off) = (fields.get(n - 1)?, *offs.get(n - 1)?);
                int_of(ty, b.get(off..)?).map(|v| v as u64)
            }
            Expr::Zero(_) => None,
        }
    }

    fn value(&mut self, out: &mut String, ty: &Type, b: &[u8], elts: Elts) {
        match ty {
            Type::Void => out.push_str(&hex(word(b))),
            Type::Char => {
                out.push('\'');
                push_char(out, b.first().copied().unwrap_or(0));
                out.push('\'');
            }
            Type::Short | Type::Int | Type::Long => {
                out.push_str(&int_of(ty, b).unwrap_or(0).to_string())
            }
            Type::UShort | Type::UInt => out.push_str(&int_of(ty, b).unwrap_or(0).to_string()),
            Type::ULong => out.push_str(&word(b).to_string()),
            Type::Float => out.push_str(&fmt_f(f32::from_bits(word(b) as u32) as f64)),
            Type::Double => out.push_str(&fmt_f(f64::from_bits(word(b)))),
            Type::Format => self.string_at(out, &Type::Char, &Expr::Zero(None), word(b), elts),
            Type::Pointer(inner) => self.pointer(out, inner, word(b), elts),
            // Inline (in a struct): the bytes are here. Parameters decayed in `list`.
            Type::Array(el, _) => {
                let size = size_align(ty).0.min(b.len());
                self.array_bytes(out, el, b, size)
            }
            Type::Struct(_) | Type::Named(_) => {
                let fields = struct_fields(ty).unwrap_or(&[]);
                let offs = layout(fields).0;
                out.push_str("{ ");
                let mut first = true;
                for (f, off) in fields.iter().zip(offs) {
                    if matches!(f, Type::Lens(Lens::Hide, _)) {
                        continue;
                    }
                    if !first {
                        out.push_str(", ");
                    }
                    first = false;
                    let fb = b.get(off..).unwrap_or(&[]);
                    self.value(out, f, fb, Some((fields, b)));
                }
                out.push_str(" }");
            }
            Type::Lens(lens, t) => self.lens(out, lens, t, b, elts),
        }
    }

    fn lens(&mut self, out: &mut String, lens: &Lens, t: &Type, b: &[u8], elts: Elts) {
        let width = size_align(t).0.clamp(1, 8);
        let unsigned = word(b) & (u64::MAX >> (64 - 8 * width as u32));
        match lens {
            Lens::Hide => {}
            Lens::Oct => out.push_str(&format!("0{unsigned:o}")),
            Lens::Hex => match strip(t) {
                Type::Float => out.push_str(&fmt_a(f32::from_bits(word(b) as u32) as f64)),
                Type::Double => out.push_str(&fmt_a(f64::from_bits(word(b)))),
                _ => out.push_str(&hex(unsigned)),
            },
            Lens::Bool => out.push_str(if unsigned == 0 { "false" } else { "true" }),
            Lens::Guess => {
                let v = int_of(t, b).unwrap_or(0);
                if (-10000..=10000).contains(&v) {
                    out.push_str(&v.to_string());
                } else {
                    out.push_str(&hex(unsigned));
                }
            }
            Lens::Enum(vals) => match int_of(t, b).and_then(|v| vals.iter().find(|(_, x)| *x == v))
            {
                Some((name, _)) => out.push_str(name),
                None => self.value(out, t, b, elts),
            },
            Lens::Bitvec => self.bitvec(out, t, b),
            Lens::Str => match strip(t) {
                Type::Pointer(inner) => match strip(inner) {
                    Type::Array(el, len) => self.string_at(out, el, len, word(b), elts),
                    Type::Char => {
                        self.string_at(out, &Type::Char, &Expr::Zero(None), word(b), elts)
                    }
                    _ => self.value(out, t, b, elts),
                },
                Type::Array(el, _) => {
                    let n = size_align(t).0.min(b.len());
                    self.string_bytes(out, el, &b[..n], (n / size_align(el).0.max(1)) as u64);
                }
                _ => self.value(out, t, b, elts),
            },
        }
    }

    fn bitvec(&mut self, out: &mut String, t: &Type, b: &[u8]) {
        let bytes: Vec<u8> = match strip(t) {
            Type::Pointer(inner) => {
                let addr = word(b);
                let mut buf = vec![0u8; size_align(inner).0];
                if addr == 0 || self.src.read(addr, &mut buf) < buf.len() {
                    out.push_str(&if addr == 0 {
                        "nil".to_string()
                    } else {
                        hex(addr)
                    });
                    return;
                }
                buf
            }
            t => b[..size_align(t).0.min(b.len())].to_vec(),
        };
        let nbits = bytes.len() * 8;
        let bit = |i: usize| bytes[i / 8] >> (i % 8) & 1 == 1;
        let set = (0..nbits).filter(|&i| bit(i)).count();
        let invert = set > nbits - set;
        let mut parts = Vec::new();
        let mut i = 0;
        while i < nbits {
            if bit(i) != invert {
                let start = i;
                while i + 1 < nbits && bit(i + 1) != invert {
                    i += 1;
                }
                parts.push(if start == i {
                    start.to_string()
                } else {
                    format!("{start}-{i}")
                });
            }
            i += 1;
        }
        out.push_str(&format!(
            "{}<{}>",
            if invert { "~" } else { "" },
            parts.join(",")
        ));
    }

    fn pointer(&mut self, out: &mut String, inner: &Type, addr: u64, elts: Elts) {
        if matches!(inner, Type::Void) {
            return out.push_str(&hex(addr));
        }
        if addr == 0 {
            return out.push_str("nil");
        }
        // The -A depth limit applies to pointers to structs (ltrace 0.7.3
        // still shows `int*` and arrays at `-A 0`); at the limit it prints
        // "..." even for a back pointer.
        let to_struct = matches!(inner, Type::Struct(_) | Type::Named(_));
        if to_struct && self.ptrs.len() >= self.alen {
            return out.push_str("...");
        }
        if let Some(i) = self.ptrs.iter().rposition(|&p| p == addr) {
            out.push_str("recurse");
            out.push_str(&"^".repeat(self.ptrs.len() - 1 - i));
            return;
        }
        self.ptrs.push(addr);
        if let Type::Array(el, len) = inner {
            self.array_at(out, el, len, addr, elts);
        } else {
            let mut buf = vec![0u8; size_align(inner).0.max(1)];
            if self.src.read(addr, &mut buf) < buf.len() {
                out.push_str(&hex(addr));
            } else {
                self.value(out, inner, &buf, None);
            }
        }
        self.ptrs.pop();
    }

    /// Number of elements of an array at `addr` and its bytes, reading at
    /// most `cap` elements; zero-terminated arrays stop at the zero element.
    fn read_elems(
        &mut self,
        el: &Type,
        len: &Expr,
        addr: u64,
        cap: usize,
        elts: Elts,
    ) -> Option<(u64, Vec<u8>)> {
        let es = size_align(el).0.max(1);
        let (total, zero) = match len {
            Expr::Zero(max) => (
                max.as_ref()
                    .map_or(Some(u64::MAX), |m| self.eval(m, elts))?,
                true,
            ),
            e => (self.eval(e, elts)?, false),
        };
        let want = total.min(cap as u64) as usize;
        let mut buf = vec![0u8; want * es];
        let n = self.src.read(addr, &mut buf);
        if n == 0 && want > 0 {
            return None;
        }
        buf.truncate(n / es * es);
        let got = (n / es) as u64;
        if zero {
            if let Some(k) = buf.chunks(es).position(|c| c.iter().all(|&x| x == 0)) {
                buf.truncate(k * es);
                return Some((k as u64, buf));
            }
        }
        // Without a terminator in what was read, the array goes on (up to total).
        let len = if got < want as u64 { got } else { total };
        Some((len, buf))
    }

    fn array_at(&mut self, out: &mut String, el: &Type, len: &Expr, addr: u64, elts: Elts) {
        let Some((total, buf)) = self.read_elems(el, len, addr, self.alen.saturating_add(1), elts)
        else {
            return out.push_str(&hex(addr));
        };
        self.array_list(out, el, &buf, total);
    }

    fn array_bytes(&mut self, out: &mut String, el: &Type, b: &[u8], size: usize) {
        let es = size_align(el).0.max(1);
        self.array_list(out, el, &b[..size], (size / es) as u64);
    }

    /// `[ a, b... ]`: ltrace puts `...` inside when elements were left out.
    fn array_list(&mut self, out: &mut String, el: &Type, buf: &[u8], total: u64) {
        let es = size_align(el).0.max(1);
        out.push_str("[ ");
        for (i, chunk) in buf.chunks(es).enumerate() {
            if i == self.alen {
                out.push_str("...");
                break;
            }
            if i > 0 {
                out.push_str(", ");
            }
            self.value(out, el, chunk, None);
        }
        if total > self.alen as u64 && !out.ends_with("...") {
            out.push_str("...");
        }
        out.push_str(" ]");
    }

    fn string_at(&mut self, out: &mut String, el: &Type, len: &Expr, addr: u64, elts: Elts) {
        if addr == 0 {
            return out.push_str("nil");
        }
        match self.read_elems(el, len, addr, self.slen, elts) {
            Some((total, buf)) => self.string_bytes(out, el, &buf, total),
            None => out.push_str(&hex(addr)),
        }
    }

    /// `"text"`, then `...` when the string is at least `-s` long (ltrace's rule).
    fn string_bytes(&mut self, out: &mut String, el: &Type, buf: &[u8], total: u64) {
        let es = size_align(el).0.max(1);
        out.push('"');
        for chunk in buf.chunks(es).take(self.slen) {
            let code = word(chunk);
            match u8::try_from(code) {
                Ok(c) => push_char(out, c),
                Err(_) => out.push(char::from_u32(code as u32).unwrap_or('?')),
            }
        }
        out.push('"');
        if total >= self.slen as u64 {
            out.push_str("...");
        }
    }
}
