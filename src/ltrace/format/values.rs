//! How one value prints, as ltrace 0.7.3 prints it: numbers (`%f`, `%a`,
//! hex, octal), characters, strings cut at `-s`, arrays, structs, enums,
//! bit vectors, pointers followed, out-parameters; [`Fmt`] walks a call's
//! fetched arguments and the tracee memory behind them.

use super::*;

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
pub(super) struct Fmt<'a> {
    pub(super) src: &'a mut dyn ArgSource,
    pub(super) args: &'a [Arg],
    pub(super) params: &'a [Param],
    pub(super) ret: Option<u64>,
    pub(super) slen: usize,
    pub(super) alen: usize,
    pub(super) ptrs: Vec<u64>,
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

    pub(super) fn parts(&mut self, range: std::ops::Range<usize>) -> Vec<String> {
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

    pub(super) fn list(&mut self, range: std::ops::Range<usize>) -> String {
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
                let ty = self.ty(a);
                // ltrace takes a length from any argument's word: a
                // double's bits (a printf `%s` after `%*d %f`, see
                // printf.rs).
                int_of(ty, a.bytes.as_slice())
                    .or_else(|| matches!(ty, Type::Double).then(|| word(a.bytes.as_slice()) as i64))
                    .map(|v| v as u64)
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

    pub(super) fn value(&mut self, out: &mut String, ty: &Type, b: &[u8], elts: Elts) {
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
