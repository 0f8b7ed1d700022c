//! V4L2 enumeration requests as strace 6.1 prints them: `struct
//! v4l2_standard` (`VIDIOC_ENUMSTD`), `struct v4l2_input`
//! (`VIDIOC_ENUMINPUT`), `struct v4l2_frmsizeenum`
//! (`VIDIOC_ENUM_FRAMESIZES`) and `struct v4l2_frmivalenum`
//! (`VIDIOC_ENUM_FRAMEINTERVALS`): the index (and the format asked about)
//! at entry, the entry the kernel filled after a successful call.

use crate::syscall::ioctl::v4l2::{cstring_field, fourcc, fract, load, u};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::le32;
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// `struct v4l2_standard` of `VIDIOC_ENUMSTD`.
pub(in crate::syscall::ioctl::v4l2) fn standard(c: &mut Ctx, arg: u64) -> Io {
    let b = match load(c, arg, 72) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![Field::new("index", u(le32(&b, 0)))];
    if !c.failed() {
        f.push(Field::new("name", cstring_field(&b[16..40])));
        f.push(Field::new("frameperiod", fract(&b, 40)));
        f.push(Field::new("framelines", u(le32(&b, 48))));
    }
    Io::Arg(Value::structure(f))
}

/// `struct v4l2_input`: the index at entry, the name and type after a
/// successful call.
pub(in crate::syscall::ioctl::v4l2) fn enum_input(c: &mut Ctx, arg: u64) -> Io {
    let b = match load(c, arg, 80) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![Field::new("index", u(le32(&b, 0)))];
    if !c.failed() {
        f.push(Field::new("name", cstring_field(&b[4..36])));
        f.push(Field::new(
            "type",
            c.enum_value(le32(&b, 36), &xlat::V4L2_INPUT_TYPES, "V4L2_INPUT_TYPE_???"),
        ));
    }
    Io::Arg(Value::structure(f))
}

/// `struct v4l2_frmsizeenum` of `VIDIOC_ENUM_FRAMESIZES`.
pub(in crate::syscall::ioctl::v4l2) fn frmsizeenum(c: &mut Ctx, arg: u64) -> Io {
    let b = match load(c, arg, 44) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![
        Field::new("index", u(le32(&b, 0))),
        Field::new("pixel_format", fourcc(c, le32(&b, 4), &xlat::V4L2_PIX_FMTS)),
    ];
    if !c.failed() {
        let ty = le32(&b, 8);
        f.push(Field::new(
            "type",
            c.enum_value(ty, &xlat::V4L2_FRAMESIZE_TYPES, "V4L2_FRMSIZE_TYPE_???"),
        ));
        let dims = |names: &[&'static str]| {
            Value::structure(
                names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| Field::new(n, u(le32(&b, 12 + 4 * i))))
                    .collect(),
            )
        };
        match ty {
            1 => f.push(Field::new("discrete", dims(&["width", "height"]))),
            3 => f.push(Field::new(
                "stepwise",
                dims(&[
                    "min_width",
                    "max_width",
                    "step_width",
                    "min_height",
                    "max_height",
                    "step_height",
                ]),
            )),
            _ => {}
        }
    }
    Io::Arg(Value::structure(f))
}

/// `struct v4l2_frmivalenum` of `VIDIOC_ENUM_FRAMEINTERVALS`.
pub(in crate::syscall::ioctl::v4l2) fn frmivalenum(c: &mut Ctx, arg: u64) -> Io {
    let b = match load(c, arg, 52) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![
        Field::new("index", u(le32(&b, 0))),
        Field::new("pixel_format", fourcc(c, le32(&b, 4), &xlat::V4L2_PIX_FMTS)),
        Field::new("width", u(le32(&b, 8))),
        Field::new("height", u(le32(&b, 12))),
    ];
    if !c.failed() {
        let ty = le32(&b, 16);
        f.push(Field::new(
            "type",
            c.enum_value(ty, &xlat::V4L2_FRAMEINTERVAL_TYPES, "V4L2_FRMIVAL_TYPE_???"),
        ));
        match ty {
            1 => f.push(Field::new("discrete", fract(&b, 20))),
            2 | 3 => f.push(Field::new(
                "stepwise",
                Value::structure(vec![
                    Field::new("min", fract(&b, 20)),
                    Field::new("max", fract(&b, 28)),
                    Field::new("step", fract(&b, 36)),
                ]),
            )),
            _ => {}
        }
    }
    Io::Arg(Value::structure(f))
}
