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
//! The calling convention (`abi.rs`), the printf parameter pack
//! (`printf.rs`) and what a printf call writes (`render.rs`) are
//! submodules here.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::proto::{Expr, Lens, Param, Proto, Type};

mod abi;
mod printf;
mod render;
mod values;

use values::Fmt;
pub use values::{fmt_a, push_char};

use abi::{int_of, layout, ret_bytes, size_align, strip, struct_fields, word, Bytes, Fetch};
pub use printf::printf_types;
pub use render::render as render_printf;

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
    /// The second integer and floating-point return registers (the second
    /// eightbyte of a struct of up to 16 bytes returned in registers);
    /// read only when the return type is such a struct, else 0.
    pub second: (u64, f64),
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

    /// Whether the return value is a struct of more than one eightbyte
    /// returned in registers (its second eightbyte in rdx or xmm1).
    pub fn ret_is_pair(&self) -> bool {
        let Some(p) = &self.proto else {
            return false;
        };
        let t = p.ret();
        abi::struct_classes(t).is_some_and(|c| c.len() > 1) && (8..=16).contains(&size_align(t).0)
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
