//! Video4Linux2 ioctls (type `V`) as strace 6.1 prints them: the request
//! dispatch, the shared printers (`v4l2_fourcc(...)` pixel formats,
//! rectangles, fractions, buffer types) and the simple structures
//! (capabilities, format descriptions, buffers, frame buffers, stream
//! parameters). Formats and cropping live in `fmt.rs`, the
//! enumeration requests in `enums.rs`, controls and tuners in
//! `ctrl.rs`.
//!
//! As strace does, a structure the kernel reads prints at entry, the part
//! it fills after a successful call, and a structure it updates as
//! `{before} => {after}`. Both halves are read at exit.

mod ctrl;
mod enums;
mod fmt;
#[cfg(test)]
mod tests;

use crate::syscall::ctx::render_flags;
use crate::syscall::ioctl::misc::{cstring_field, fetch, num};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

const VIDIOC_QUERYCAP: u32 = 0x8068_5600;
const VIDIOC_ENUM_FMT: u32 = 0xc040_5602;
const VIDIOC_G_FMT: u32 = 0xc0d0_5604;
const VIDIOC_S_FMT: u32 = 0xc0d0_5605;
const VIDIOC_REQBUFS: u32 = 0xc014_5608;
const VIDIOC_QUERYBUF: u32 = 0xc058_5609;
const VIDIOC_G_FBUF: u32 = 0x8030_560a;
const VIDIOC_S_FBUF: u32 = 0x4030_560b;
const VIDIOC_QBUF: u32 = 0xc058_560f;
const VIDIOC_DQBUF: u32 = 0xc058_5611;
const VIDIOC_STREAMON: u32 = 0x4004_5612;
const VIDIOC_STREAMOFF: u32 = 0x4004_5613;
const VIDIOC_G_PARM: u32 = 0xc0cc_5615;
const VIDIOC_S_PARM: u32 = 0xc0cc_5616;
const VIDIOC_G_STD: u32 = 0x8008_5617;
const VIDIOC_S_STD: u32 = 0x4008_5618;
const VIDIOC_ENUMSTD: u32 = 0xc048_5619;
const VIDIOC_ENUMINPUT: u32 = 0xc050_561a;
const VIDIOC_G_CTRL: u32 = 0xc008_561b;
const VIDIOC_S_CTRL: u32 = 0xc008_561c;
const VIDIOC_G_TUNER: u32 = 0xc054_561d;
const VIDIOC_S_TUNER: u32 = 0x4054_561e;
const VIDIOC_QUERYCTRL: u32 = 0xc044_5624;
const VIDIOC_G_INPUT: u32 = 0x8004_5626;
const VIDIOC_S_INPUT: u32 = 0xc004_5627;
const VIDIOC_CROPCAP: u32 = 0xc02c_563a;
const VIDIOC_G_CROP: u32 = 0xc014_563b;
const VIDIOC_S_CROP: u32 = 0x4014_563c;
const VIDIOC_TRY_FMT: u32 = 0xc0d0_5640;
const VIDIOC_G_EXT_CTRLS: u32 = 0xc020_5647;
const VIDIOC_S_EXT_CTRLS: u32 = 0xc020_5648;
const VIDIOC_TRY_EXT_CTRLS: u32 = 0xc020_5649;
const VIDIOC_ENUM_FRAMESIZES: u32 = 0xc02c_564a;
const VIDIOC_ENUM_FRAMEINTERVALS: u32 = 0xc034_564b;
const VIDIOC_CREATE_BUFS: u32 = 0xc100_565c;
const VIDIOC_QUERY_EXT_CTRL: u32 = 0xc0e8_5667;

/// The V4L2 requests strace decodes; the others print in hex.
pub(in crate::syscall::ioctl) fn v4l2(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        VIDIOC_QUERYCAP => capability(c, arg),
        VIDIOC_ENUM_FMT => fmtdesc(c, arg),
        VIDIOC_G_FMT | VIDIOC_S_FMT | VIDIOC_TRY_FMT => fmt::format(c, arg, code == VIDIOC_G_FMT),
        VIDIOC_REQBUFS => reqbufs(c, arg),
        VIDIOC_QUERYBUF | VIDIOC_QBUF | VIDIOC_DQBUF => buffer(c, arg, code == VIDIOC_DQBUF),
        VIDIOC_G_FBUF if c.entering() => Io::Exit,
        VIDIOC_G_FBUF | VIDIOC_S_FBUF => framebuffer(c, arg),
        VIDIOC_STREAMON | VIDIOC_STREAMOFF => Io::Arg(match fetch(c, arg, 4) {
            Ok(b) => Value::Array(vec![buf_type(c, le32(&b, 0))], false),
            Err(v) => v,
        }),
        VIDIOC_G_PARM | VIDIOC_S_PARM => streamparm(c, arg, code == VIDIOC_G_PARM),
        VIDIOC_G_INPUT | VIDIOC_G_STD if c.entering() => Io::Exit,
        VIDIOC_G_INPUT | VIDIOC_S_INPUT => Io::Arg(num(c, arg, 4, false)),
        VIDIOC_G_STD | VIDIOC_S_STD => Io::Arg(match fetch(c, arg, 8) {
            Ok(b) => Value::Array(vec![xint(le64(&b, 0))], false),
            Err(v) => v,
        }),
        VIDIOC_ENUMSTD => enums::standard(c, arg),
        VIDIOC_ENUMINPUT => enums::enum_input(c, arg),
        VIDIOC_G_CTRL | VIDIOC_S_CTRL => ctrl::control(c, arg, code == VIDIOC_G_CTRL),
        VIDIOC_G_TUNER | VIDIOC_S_TUNER => ctrl::tuner(c, arg, code == VIDIOC_G_TUNER),
        VIDIOC_QUERYCTRL => ctrl::queryctrl(c, arg),
        VIDIOC_QUERY_EXT_CTRL => ctrl::query_ext_ctrl(c, arg),
        VIDIOC_CROPCAP => fmt::cropcap(c, arg),
        VIDIOC_G_CROP | VIDIOC_S_CROP => fmt::crop(c, arg, code == VIDIOC_G_CROP),
        VIDIOC_G_EXT_CTRLS | VIDIOC_S_EXT_CTRLS | VIDIOC_TRY_EXT_CTRLS => {
            ctrl::ext_controls(c, arg, code == VIDIOC_G_EXT_CTRLS)
        }
        VIDIOC_ENUM_FRAMESIZES => enums::frmsizeenum(c, arg),
        VIDIOC_ENUM_FRAMEINTERVALS => enums::frmivalenum(c, arg),
        VIDIOC_CREATE_BUFS => fmt::create_buffers(c, arg),
        _ => Io::Hex,
    }
}

// ---- shared printers ----

/// A `%u` field.
fn u(v: u64) -> Value {
    Value::UInt(v)
}

/// A `%d` field of 32 bits.
fn d(v: u64) -> Value {
    Value::Int(v as u32 as i32 as i64)
}

/// The structure at `arg` (`size` bytes): at entry as strace's
/// `umove_or_printaddr` (`Err` is what prints instead), at exit re-read.
fn load(c: &mut Ctx, arg: u64, size: usize) -> Result<Vec<u8>, Io> {
    if c.entering() {
        fetch(c, arg, size).map_err(Io::Arg)
    } else {
        c.read_bytes(arg, size)
            .ok_or(Io::Arg(Value::Unreadable(arg)))
    }
}

/// `numerator/denominator` of a `struct v4l2_fract` at `off`.
fn fract(b: &[u8], off: usize) -> Value {
    Value::sym_owned(format!("{}/{}", le32(b, off), le32(b, off + 4)))
}

/// `struct v4l2_rect` at `off`.
fn rect(b: &[u8], off: usize) -> Value {
    Value::structure(vec![
        Field::new("left", d(le32(b, off))),
        Field::new("top", d(le32(b, off + 4))),
        Field::new("width", u(le32(b, off + 8))),
        Field::new("height", u(le32(b, off + 12))),
    ])
}

/// A `V4L2_BUF_TYPE_*` value.
fn buf_type(c: &Ctx, v: u64) -> Value {
    c.enum_value(v, &xlat::V4L2_BUF_TYPES, "V4L2_BUF_TYPE_???")
}

/// A `V4L2_MEMORY_*` value.
fn memory(c: &Ctx, v: u64) -> Value {
    c.enum_value(v, &xlat::V4L2_MEMORIES, "V4L2_MEMORY_???")
}

/// One character of a four-character code, quoted as strace's
/// `print_char` does (`'A'`, `'\''`, `'\xfa'`).
fn quoted_char(ch: u8) -> Value {
    let s = match ch {
        b'\'' | b'\\' => format!("'\\{}'", ch as char),
        0x20..=0x7e => format!("'{}'", ch as char),
        _ => format!("'\\x{ch:02x}'"),
    };
    Value::sym_owned(s)
}

/// A pixel format: `v4l2_fourcc('a', 'b', 'c', 'd')` with the name from
/// `table` in a comment; plain hex under `-X raw`.
fn fourcc(c: &Ctx, v: u64, table: &Xlat) -> Value {
    if c.opts.xlat_style == 1 {
        return xint(v);
    }
    let call = Value::Call(
        Cow::Borrowed("v4l2_fourcc"),
        (0..4).map(|i| quoted_char((v >> (8 * i)) as u8)).collect(),
    );
    match table.lookup(v) {
        Some(n) => Value::Commented(Box::new(call), Cow::Borrowed(n)),
        None => call,
    }
}

/// `KERNEL_VERSION(a, b, c)` of a packed version number.
fn kernel_version(c: &Ctx, v: u64) -> Value {
    if c.opts.xlat_style == 1 {
        return xint(v);
    }
    let call = Value::Call(
        Cow::Borrowed("KERNEL_VERSION"),
        vec![u(v >> 16), u((v >> 8) & 0xff), u(v & 0xff)],
    );
    if c.opts.xlat_style == 2 {
        return Value::Commented(Box::new(xint(v)), Cow::Owned(render_flags(&call)));
    }
    call
}

/// A structure, or `{before} => {after}` when the call succeeded.
fn changed(c: &Ctx, before: Vec<Field>, after: impl FnOnce() -> Vec<Field>) -> Value {
    if c.failed() {
        return Value::structure(before);
    }
    Value::Changed(
        Box::new(Value::structure(before)),
        Box::new(Value::structure(after())),
    )
}

// ---- simple structures ----

/// `struct v4l2_capability`, filled by the kernel.
fn capability(c: &mut Ctx, arg: u64) -> Io {
    if c.entering() {
        return Io::Exit;
    }
    let b = match fetch(c, arg, 104) {
        Ok(b) => b,
        Err(v) => return Io::Arg(v),
    };
    let caps = |c: &Ctx, v| xflags(c, v, &xlat::V4L2_DEVICE_CAPABILITIES_FLAGS, "V4L2_CAP_???");
    let mut f = vec![
        Field::new("driver", cstring_field(&b[0..16])),
        Field::new("card", cstring_field(&b[16..48])),
        Field::new("bus_info", cstring_field(&b[48..80])),
        Field::new("version", kernel_version(c, le32(&b, 80))),
        Field::new("capabilities", caps(c, le32(&b, 84))),
    ];
    let dev = le32(&b, 88);
    if dev != 0 {
        f.push(Field::new("device_caps", caps(c, dev)));
    }
    Io::Arg(Value::structure(f))
}

/// `struct v4l2_fmtdesc`: index and type in, the description out.
fn fmtdesc(c: &mut Ctx, arg: u64) -> Io {
    let b = match load(c, arg, 64) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![
        Field::new("index", u(le32(&b, 0))),
        Field::new("type", buf_type(c, le32(&b, 4))),
    ];
    if !c.failed() {
        f.push(Field::new(
            "flags",
            xflags(
                c,
                le32(&b, 8),
                &xlat::V4L2_FORMAT_DESCRIPTION_FLAGS,
                "V4L2_FMT_FLAG_???",
            ),
        ));
        f.push(Field::new("description", cstring_field(&b[12..44])));
        f.push(Field::new(
            "pixelformat",
            fourcc(c, le32(&b, 44), &xlat::V4L2_PIX_FMTS),
        ));
    }
    Io::Arg(Value::structure(f))
}

/// `struct v4l2_requestbuffers`: the count the kernel granted after `=>`.
fn reqbufs(c: &mut Ctx, arg: u64) -> Io {
    let b = match load(c, arg, 20) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let count = u(le32(&b, 0));
    let count = if c.failed() {
        count
    } else {
        Value::Changed(Box::new(count.clone()), Box::new(count))
    };
    Io::Arg(Value::structure(vec![
        Field::new("type", buf_type(c, le32(&b, 4))),
        Field::new("memory", memory(c, le32(&b, 8))),
        Field::new("count", count),
    ]))
}

/// The flags of a `struct v4l2_buffer`: the flag bits, then the timestamp
/// type and source enums, joined by `|`.
fn buffer_flags(c: &Ctx, v: u64) -> Value {
    const TS_TYPE: u64 = 0xe000;
    const TS_SRC: u64 = 0x7_0000;
    if c.opts.xlat_style == 1 {
        return xint(v);
    }
    let flags = v & !(TS_TYPE | TS_SRC);
    let mut parts = Vec::new();
    if flags != 0 {
        parts.push(xflags(c, flags, &xlat::V4L2_BUF_FLAGS, "V4L2_BUF_FLAG_???"));
    }
    parts.push(c.enum_value(
        v & TS_TYPE,
        &xlat::V4L2_BUF_FLAGS_TS_TYPE,
        "V4L2_BUF_FLAG_TIMESTAMP_???",
    ));
    parts.push(c.enum_value(
        v & TS_SRC,
        &xlat::V4L2_BUF_FLAGS_TS_SRC,
        "V4L2_BUF_FLAG_TSTAMP_SRC_???",
    ));
    Value::Joined(parts, "|")
}

/// `struct v4l2_buffer` of `VIDIOC_QUERYBUF`, `VIDIOC_QBUF` and
/// `VIDIOC_DQBUF` (whose index and timestamp are outputs).
fn buffer(c: &mut Ctx, arg: u64, dq: bool) -> Io {
    const MMAP: u64 = 1;
    const USERPTR: u64 = 2;
    let b = match load(c, arg, 88) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![Field::new("type", buf_type(c, le32(&b, 4)))];
    if !dq || !c.failed() {
        f.push(Field::new("index", u(le32(&b, 0))));
    }
    if c.failed() {
        return Io::Arg(Value::structure(f));
    }
    let mem = le32(&b, 60);
    f.push(Field::new("memory", memory(c, mem)));
    if mem == MMAP {
        f.push(Field::new("m.offset", xint(le32(&b, 64))));
    } else if mem == USERPTR {
        f.push(Field::new("m.userptr", Value::Ptr(le64(&b, 64))));
    }
    f.push(Field::new("length", u(le32(&b, 72))));
    f.push(Field::new("bytesused", u(le32(&b, 8))));
    f.push(Field::new("flags", buffer_flags(c, le32(&b, 12))));
    if dq {
        f.push(Field::new(
            "timestamp",
            Value::structure(vec![
                Field::new("tv_sec", Value::Int(le64(&b, 24) as i64)),
                Field::new("tv_usec", Value::Int(le64(&b, 32) as i64)),
            ]),
        ));
    }
    Io::Arg(Value::Struct(f, true))
}

/// `struct v4l2_framebuffer` (its format is not printed).
fn framebuffer(c: &mut Ctx, arg: u64) -> Io {
    Io::Arg(match fetch(c, arg, 48) {
        Ok(b) => Value::structure(vec![
            Field::new("capability", xint(le32(&b, 0))),
            Field::new("flags", xint(le32(&b, 4))),
            Field::new("base", Value::Ptr(le64(&b, 8))),
        ]),
        Err(v) => v,
    })
}

/// `parm.capture` or `parm.output` of a `struct v4l2_streamparm`.
fn parm(c: &Ctx, b: &[u8]) -> Field {
    let capture = le32(b, 0) == 1;
    let p = &b[4..];
    let (mode, bufs) = if capture {
        ("capturemode", "readbuffers")
    } else {
        ("outputmode", "writebuffers")
    };
    let v = Value::structure(vec![
        Field::new(
            "capability",
            xflags(
                c,
                le32(p, 0),
                &xlat::V4L2_STREAMING_CAPABILITIES,
                "V4L2_CAP_???",
            ),
        ),
        Field::new(
            mode,
            xflags(c, le32(p, 4), &xlat::V4L2_CAPTURE_MODES, "V4L2_MODE_???"),
        ),
        Field::new("timeperframe", fract(p, 8)),
        Field::new("extendedmode", xint(le32(p, 16))),
        Field::new(bufs, u(le32(p, 20))),
    ]);
    Field::new(
        if capture {
            "parm.capture"
        } else {
            "parm.output"
        },
        v,
    )
}

/// `struct v4l2_streamparm` of `VIDIOC_G_PARM`/`VIDIOC_S_PARM`: only the
/// video capture and output types have their parameters printed.
fn streamparm(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let b = match load(c, arg, 204) {
        Ok(b) => b,
        Err(io) => return io,
    };
    let ty = le32(&b, 0);
    let mut f = vec![Field::new("type", buf_type(c, ty))];
    let video = ty == 1 || ty == 2;
    if c.entering() {
        return if video {
            Io::Exit
        } else {
            Io::Arg(Value::structure(f))
        };
    }
    if get {
        if !c.failed() {
            f.push(parm(c, &b));
        }
        return Io::Arg(Value::structure(f));
    }
    f.push(parm(c, &b));
    Io::Arg(changed(c, f, || vec![parm(c, &b)]))
}

/// `[a, b, …]` of `n` little-endian 16-bit words at `off`, in hex.
fn hex16s(b: &[u8], off: usize, n: usize) -> Value {
    Value::Array((0..n).map(|i| xint(le16(b, off + 2 * i))).collect(), false)
}
