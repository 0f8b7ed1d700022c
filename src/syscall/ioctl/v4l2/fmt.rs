//! V4L2 data formats as strace 6.1 prints them: `struct v4l2_format` of
//! `VIDIOC_G_FMT`, `VIDIOC_S_FMT` and `VIDIOC_TRY_FMT` (its `fmt` union
//! chosen by the buffer type: `fmt.pix`, `fmt.pix_mp`, `fmt.win` with its
//! clip list, `fmt.vbi`, `fmt.sliced`, `fmt.sdr`, `fmt.meta`), and
//! `struct v4l2_create_buffers` of `VIDIOC_CREATE_BUFS`, whose result
//! prints after the return value; and the cropping structures
//! (`VIDIOC_CROPCAP`, `VIDIOC_G_CROP`, `VIDIOC_S_CROP`).

use crate::syscall::array::array_at;
use crate::syscall::ioctl::v4l2::{buf_type, d, fourcc, fract, hex16s, load, memory, rect, u};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, RetFmt, Value};
use crate::value::Ret;
use rtrace_arch::xlat;
use std::borrow::Cow;

/// Size of `struct v4l2_format`; its `fmt` union starts at offset 8.
const FORMAT_SIZE: usize = 208;

/// The `fmt.*` field of a format of buffer type `ty` whose union is `p`;
/// `None` for a type strace does not decode. The flag is false when the
/// clip list of `fmt.win` could not be printed whole (strace then stops
/// decoding the call).
fn fmt_field(c: &mut Ctx, ty: u64, p: &[u8]) -> Option<(Field, bool)> {
    let field = |c: &Ctx, v| c.enum_value(v, &xlat::V4L2_FIELDS, "V4L2_FIELD_???");
    let colorspace = |c: &Ctx, v| c.enum_value(v, &xlat::V4L2_COLORSPACES, "V4L2_COLORSPACE_???");
    let mut ok = true;
    let (name, v) = match ty {
        1 | 2 => (
            "fmt.pix",
            Value::structure(vec![
                Field::new("width", u(le32(p, 0))),
                Field::new("height", u(le32(p, 4))),
                Field::new("pixelformat", fourcc(c, le32(p, 8), &xlat::V4L2_PIX_FMTS)),
                Field::new("field", field(c, le32(p, 12))),
                Field::new("bytesperline", u(le32(p, 16))),
                Field::new("sizeimage", u(le32(p, 20))),
                Field::new("colorspace", colorspace(c, le32(p, 24))),
            ]),
        ),
        9 | 10 => {
            let n = (p[180] as usize).min(8);
            let planes = (0..n)
                .map(|i| {
                    Value::structure(vec![
                        Field::new("sizeimage", u(le32(p, 20 + 20 * i))),
                        Field::new("bytesperline", u(le32(p, 24 + 20 * i))),
                    ])
                })
                .collect();
            (
                "fmt.pix_mp",
                Value::structure(vec![
                    Field::new("width", u(le32(p, 0))),
                    Field::new("height", u(le32(p, 4))),
                    Field::new("pixelformat", fourcc(c, le32(p, 8), &xlat::V4L2_PIX_FMTS)),
                    Field::new("field", field(c, le32(p, 12))),
                    Field::new("colorspace", colorspace(c, le32(p, 16))),
                    Field::new("plane_fmt", Value::Array(planes, false)),
                    Field::new("num_planes", u(p[180] as u64)),
                ]),
            )
        }
        3 | 8 => {
            let count = le32(p, 32);
            let clips = array_at(c, le64(p, 24), count, 24, |_, e| {
                Some(Value::structure(vec![Field::new("c", rect(e, 0))]))
            });
            // strace stops after an empty list too.
            ok = matches!(&clips, Value::Array(items, false)
                if count > 0 && items.len() as u64 == count
                    && !items.iter().any(|i| matches!(i, Value::Commented(..))));
            let mut f = vec![
                Field::new("w", rect(p, 0)),
                Field::new("field", field(c, le32(p, 16))),
                Field::new("chromakey", xint(le32(p, 20))),
                Field::new("clips", clips),
                Field::new("clipcount", u(count)),
                Field::new("bitmap", Value::Ptr(le64(p, 40))),
            ];
            if p[48] != 0 {
                f.push(Field::new("global_alpha", xint(p[48] as u64)));
            }
            ("fmt.win", Value::structure(f))
        }
        4 | 5 => (
            "fmt.vbi",
            Value::structure(vec![
                Field::new("sampling_rate", u(le32(p, 0))),
                Field::new("offset", u(le32(p, 4))),
                Field::new("samples_per_line", u(le32(p, 8))),
                Field::new(
                    "sample_format",
                    fourcc(c, le32(p, 12), &xlat::V4L2_PIX_FMTS),
                ),
                Field::new(
                    "start",
                    Value::Array(vec![d(le32(p, 16)), d(le32(p, 20))], false),
                ),
                Field::new(
                    "count",
                    Value::Array(vec![u(le32(p, 24)), u(le32(p, 28))], false),
                ),
                Field::new(
                    "flags",
                    xflags(c, le32(p, 32), &xlat::V4L2_VBI_FLAGS, "V4L2_VBI_???"),
                ),
            ]),
        ),
        6 | 7 => (
            "fmt.sliced",
            Value::structure(vec![
                Field::new(
                    "service_set",
                    xflags(c, le16(p, 0), &xlat::V4L2_SLICED_FLAGS, "V4L2_SLICED_???"),
                ),
                Field::new(
                    "service_lines",
                    Value::Array(vec![hex16s(p, 2, 24), hex16s(p, 50, 24)], false),
                ),
                Field::new("io_size", u(le32(p, 100))),
            ]),
        ),
        11 | 12 => {
            let mut f = vec![Field::new(
                "pixelformat",
                fourcc(c, le32(p, 0), &xlat::V4L2_SDR_FMTS),
            )];
            if le32(p, 4) != 0 {
                f.push(Field::new("buffersize", u(le32(p, 4))));
            }
            ("fmt.sdr", Value::structure(f))
        }
        13 | 14 => (
            "fmt.meta",
            Value::structure(vec![
                Field::new("dataformat", fourcc(c, le32(p, 0), &xlat::V4L2_META_FMTS)),
                Field::new("buffersize", u(le32(p, 4))),
            ]),
        ),
        _ => return None,
    };
    Some((Field::new(name, v), ok))
}

/// `struct v4l2_format`: the type at entry, the format the caller passes
/// (`VIDIOC_S_FMT`, `VIDIOC_TRY_FMT`) or gets (`VIDIOC_G_FMT`).
pub(in crate::syscall::ioctl::v4l2) fn format(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let b = match load(c, arg, FORMAT_SIZE) {
        Ok(b) => b,
        Err(io) => return io,
    };
    let ty = le32(&b, 0);
    let mut f = vec![Field::new("type", buf_type(c, ty))];
    if get {
        if c.entering() {
            return Io::Exit;
        }
        if !c.failed() {
            if let Some((fmt, _)) = fmt_field(c, ty, &b[8..]) {
                f.push(fmt);
            }
        }
        return Io::Arg(Value::structure(f));
    }
    let Some((fmt, ok)) = fmt_field(c, ty, &b[8..]) else {
        return Io::Arg(Value::structure(f));
    };
    f.push(fmt);
    if c.entering() {
        return if ok {
            Io::Exit
        } else {
            Io::Arg(Value::structure(f))
        };
    }
    if c.failed() {
        return Io::Arg(Value::structure(f));
    }
    let after = match fmt_field(c, ty, &b[8..]) {
        Some((fmt, _)) => vec![fmt],
        None => Vec::new(),
    };
    Io::Arg(Value::Changed(
        Box::new(Value::structure(f)),
        Box::new(Value::structure(after)),
    ))
}

/// `struct v4l2_create_buffers`: the request at entry; after success,
/// `{index=N, count=N}` follows the return value.
pub(in crate::syscall::ioctl::v4l2) fn create_buffers(c: &mut Ctx, arg: u64) -> Io {
    let b = match load(c, arg, 256) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let ty = le32(&b, 16);
    let mut format = vec![Field::new("type", buf_type(c, ty))];
    if let Some((fmt, _)) = fmt_field(c, ty, &b[24..]) {
        format.push(fmt);
    }
    let v = Value::structure(vec![
        Field::new("count", u(le32(&b, 4))),
        Field::new("memory", memory(c, le32(&b, 8))),
        Field::new("format", Value::structure(format)),
    ]);
    if c.failed() {
        return Io::Arg(v);
    }
    let note = format!("{{index={}, count={}}}", le32(&b, 0), le32(&b, 4));
    Io::Ret(
        Some(v),
        RetFmt::Value(Ret::Annotated(
            Box::new(Ret::Int(c.retval())),
            Cow::Owned(note),
        )),
    )
}

/// `struct v4l2_cropcap`.
pub(in crate::syscall::ioctl::v4l2) fn cropcap(c: &mut Ctx, arg: u64) -> Io {
    let b = match load(c, arg, 44) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![Field::new("type", buf_type(c, le32(&b, 0)))];
    if !c.failed() {
        f.push(Field::new("bounds", rect(&b, 4)));
        f.push(Field::new("defrect", rect(&b, 20)));
        f.push(Field::new("pixelaspect", fract(&b, 36)));
    }
    Io::Arg(Value::structure(f))
}

/// `struct v4l2_crop`: the rectangle is an input of `VIDIOC_S_CROP` and
/// an output of `VIDIOC_G_CROP`.
pub(in crate::syscall::ioctl::v4l2) fn crop(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let b = match load(c, arg, 20) {
        Ok(b) => b,
        Err(io) => return io,
    };
    let mut f = vec![Field::new("type", buf_type(c, le32(&b, 0)))];
    if c.entering() {
        if get {
            return Io::Exit;
        }
        f.push(Field::new("c", rect(&b, 4)));
        return Io::Arg(Value::structure(f));
    }
    if !c.failed() {
        f.push(Field::new("c", rect(&b, 4)));
    }
    Io::Arg(Value::structure(f))
}
