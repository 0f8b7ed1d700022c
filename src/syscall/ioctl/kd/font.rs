//! Console font ioctls of the `K` type (`GIO_FONTX`, `PIO_FONTX`,
//! `KDFONTOP`) as strace 6.1 prints them: font descriptors and font
//! operations with their glyph data in hex, and the font name of
//! `KD_FONT_OP_SET_DEFAULT`.

use crate::syscall::ioctl::kd::hexbuf;
use crate::syscall::ioctl::misc::fetch;
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le16, le32, le64, xflags};
use crate::syscall::{Ctx, Field, Value};
use crate::value::StrVal;
use rtrace_arch::xlat;

/// `struct consolefontdesc` of `GIO_FONTX`/`PIO_FONTX`.
pub(in crate::syscall::ioctl) fn fontx(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let desc = |c: &mut Ctx, b: &[u8], data: bool| {
        let count = le16(b, 0);
        let ptr = le64(b, 8);
        let chardata = if data {
            hexbuf(c, ptr, count.min(512) * 32)
        } else {
            Value::Ptr(ptr)
        };
        Value::structure(vec![
            Field::new("charcount", Value::UInt(count)),
            Field::new("charheight", Value::UInt(le16(b, 2))),
            Field::new("chardata", chardata),
        ])
    };
    if c.entering() {
        let b = match fetch(c, arg, 16) {
            Ok(b) => b,
            Err(v) => return Io::Arg(v),
        };
        if get {
            return Io::Exit;
        }
        return Io::Arg(desc(c, &b, true));
    }
    let Some(b) = c.read_bytes(arg, 16) else {
        return Io::Arg(Value::Unreadable(arg));
    };
    let first = desc(c, &b, false);
    if c.failed() {
        return Io::Arg(first);
    }
    let second = desc(c, &b, true);
    Io::Arg(Value::Changed(Box::new(first), Box::new(second)))
}

/// `struct console_font_op` of `KDFONTOP`; `entry` prints the request.
fn font_op_value(c: &mut Ctx, b: &[u8], entry: bool) -> Value {
    const SET: u64 = 0;
    const GET: u64 = 1;
    const SET_DEFAULT: u64 = 2;
    const COPY: u64 = 3;
    let op = le32(b, 0);
    let (width, height, count) = (le32(b, 8), le32(b, 12), le32(b, 16));
    let data = le64(b, 24);
    let mut f = Vec::new();
    if entry {
        f.push(Field::new(
            "op",
            c.enum_value(op, &xlat::KD_FONT_OPS, "KD_FONT_OP_???"),
        ));
        if op != SET_DEFAULT && op != COPY {
            f.push(Field::new(
                "flags",
                xflags(c, le32(b, 4), &xlat::KD_FONT_FLAGS, "KD_FONT_FLAG_???"),
            ));
        }
    }
    if op != COPY {
        f.push(Field::new("width", Value::UInt(width)));
    }
    f.push(Field::new("height", Value::UInt(height)));
    if op != SET_DEFAULT && op != COPY {
        f.push(Field::new("charcount", Value::UInt(count)));
    }
    match op {
        GET if entry => f.push(Field::new("data", Value::Ptr(data))),
        GET | SET => {
            let len = width.min(32).div_ceil(8) * 32 * count.min(512);
            let v = hexbuf(c, data, len);
            f.push(Field::new("data", v));
        }
        SET_DEFAULT if entry => {
            let v = font_name(c, data);
            f.push(Field::new("data", v));
        }
        SET_DEFAULT | COPY => {}
        _ => f.push(Field::new("data", Value::Ptr(data))),
    }
    Value::structure(f)
}

/// The font name of `KD_FONT_OP_SET_DEFAULT`: at most 32 bytes, the last
/// expected to be the terminating NUL.
fn font_name(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let limit = c.opts.string_limit;
    match c.umovestr(addr, 32) {
        Some((b, nul)) => {
            let keep = if nul { b.len() } else { 31 };
            let n = keep.min(limit);
            Value::Str(StrVal {
                bytes: b[..n].to_vec(),
                truncated: !nul || n < keep,
                c_string: true,
            })
        }
        None => Value::Unreadable(addr),
    }
}

/// `KDFONTOP`.
pub(in crate::syscall::ioctl) fn font_op(c: &mut Ctx, arg: u64) -> Io {
    let b = match fetch(c, arg, 32) {
        Ok(b) => b,
        Err(v) if c.entering() => return Io::Arg(v),
        Err(_) => match c.read_bytes(arg, 32) {
            Some(b) => b,
            None => return Io::Arg(Value::Ptr(arg)),
        },
    };
    let op = le32(&b, 0);
    let once = op == 0 || op == 3;
    if c.entering() {
        if once {
            return Io::Arg(font_op_value(c, &b, true));
        }
        return Io::Exit;
    }
    let first = font_op_value(c, &b, true);
    if c.failed() {
        return Io::Arg(first);
    }
    let second = font_op_value(c, &b, false);
    Io::Arg(Value::Changed(Box::new(first), Box::new(second)))
}
