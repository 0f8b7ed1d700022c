//! V4L2 controls and tuners as strace 6.1 prints them: control ids
//! (`V4L2_CID_*`, `V4L2_CTRL_CLASS_USER+0x12` for an unnamed id of a known
//! class, the `V4L2_CTRL_FLAG_NEXT_*` bits of a query), `struct
//! v4l2_control`, `struct v4l2_queryctrl`, `struct v4l2_query_ext_ctrl`
//! (their limits only under `-v`), `struct v4l2_ext_controls` with its
//! control array, and `struct v4l2_tuner`.

use crate::syscall::array::array_at;
use crate::syscall::ioctl::v4l2::{changed, d, load, u};
use crate::syscall::ioctl::{exit_state, Io};
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

/// A name printed as strace's `print_xlat_ex` does for the current `-X`
/// style (the value in hex, the name, or both).
fn styled(c: &Ctx, v: u64, name: Cow<'static, str>) -> Value {
    match c.opts.xlat_style {
        1 => xint(v),
        2 => Value::Commented(Box::new(xint(v)), name),
        _ => Value::Sym(name),
    }
}

/// A control id; `next` splits off the `V4L2_CTRL_FLAG_NEXT_*` bits a
/// query may carry.
pub(in crate::syscall::ioctl::v4l2) fn cid(c: &Ctx, v: u64, next: bool) -> Value {
    if c.opts.xlat_style == 1 {
        return xint(v);
    }
    let mut parts = Vec::new();
    let mut id = v;
    if next {
        let mask = xlat::V4L2_CONTROL_QUERY_FLAGS
            .entries
            .iter()
            .fold(0, |m, e| m | e.0);
        let fl = id & mask;
        if fl != 0 {
            parts.push(xflags(
                c,
                fl,
                &xlat::V4L2_CONTROL_QUERY_FLAGS,
                "V4L2_CTRL_FLAG_NEXT_???",
            ));
            id &= !fl;
        }
    }
    let main = if let Some(n) = xlat::V4L2_CONTROL_IDS.lookup(id) {
        styled(c, id, Cow::Borrowed(n))
    } else {
        let class = xlat::V4L2_CONTROL_CLASSES
            .entries
            .iter()
            .filter(|e| e.0 <= id)
            .max_by_key(|e| e.0);
        match class {
            Some(&(base, name)) if id - base < 0x10000 => {
                let off = id - base;
                let off = if off == 0 {
                    "0".to_string()
                } else {
                    format!("{off:#x}")
                };
                styled(c, id, Cow::Owned(format!("{name}+{off}")))
            }
            _ => Value::Commented(Box::new(xint(id)), Cow::Borrowed("V4L2_CID_???")),
        }
    };
    if parts.is_empty() {
        return main;
    }
    parts.push(main);
    Value::Joined(parts, "|")
}

/// `struct v4l2_control` of `VIDIOC_G_CTRL`/`VIDIOC_S_CTRL`.
pub(in crate::syscall::ioctl::v4l2) fn control(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let b = match load(c, arg, 8) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![Field::new("id", cid(c, le32(&b, 0), false))];
    let value = d(le32(&b, 4));
    if get {
        if !c.failed() {
            f.push(Field::new("value", value));
        }
    } else if c.failed() {
        f.push(Field::new("value", value));
    } else {
        f.push(Field::new(
            "value",
            Value::Changed(Box::new(value.clone()), Box::new(value)),
        ));
    }
    Io::Arg(Value::structure(f))
}

/// The fields of a `struct v4l2_tuner` after its index.
fn tuner_fields(c: &Ctx, b: &[u8]) -> Vec<Field> {
    vec![
        Field::new(
            "name",
            crate::syscall::ioctl::v4l2::cstring_field(&b[4..36]),
        ),
        Field::new(
            "type",
            c.enum_value(le32(b, 36), &xlat::V4L2_TUNER_TYPES, "V4L2_TUNER_???"),
        ),
        Field::new(
            "capability",
            xflags(
                c,
                le32(b, 40),
                &xlat::V4L2_TUNER_CAPABILITIES,
                "V4L2_TUNER_CAP_???",
            ),
        ),
        Field::new("rangelow", u(le32(b, 44))),
        Field::new("rangehigh", u(le32(b, 48))),
        Field::new(
            "rxsubchans",
            xflags(
                c,
                le32(b, 52),
                &xlat::V4L2_TUNER_RXSUBCHANSES,
                "V4L2_TUNER_SUB_???",
            ),
        ),
        Field::new(
            "audmode",
            c.enum_value(
                le32(b, 56),
                &xlat::V4L2_TUNER_AUDMODES,
                "V4L2_TUNER_MODE_???",
            ),
        ),
        Field::new("signal", d(le32(b, 60))),
        Field::new("afc", d(le32(b, 64))),
    ]
}

/// `struct v4l2_tuner` of `VIDIOC_G_TUNER`/`VIDIOC_S_TUNER`.
pub(in crate::syscall::ioctl::v4l2) fn tuner(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let b = match load(c, arg, 84) {
        Ok(b) => b,
        Err(io) => return io,
    };
    if c.entering() {
        return Io::Exit;
    }
    let mut f = vec![Field::new("index", u(le32(&b, 0)))];
    if get {
        if !c.failed() {
            f.extend(tuner_fields(c, &b));
        }
        return Io::Arg(Value::structure(f));
    }
    f.extend(tuner_fields(c, &b));
    Io::Arg(changed(c, f, || tuner_fields(c, &b)))
}

/// `reserved=[…]` in hex when any of the `n` words at `off` is set.
fn reserved(b: &[u8], off: usize, n: usize) -> Option<Field> {
    let words: Vec<u64> = (0..n).map(|i| le32(b, off + 4 * i)).collect();
    words.iter().any(|&w| w != 0).then(|| {
        Field::new(
            "reserved",
            Value::Array(words.into_iter().map(xint).collect(), false),
        )
    })
}

/// The id at entry, then the type and name; the rest only under `-v`.
fn query_common(c: &mut Ctx, arg: u64, size: usize) -> Result<(Vec<u8>, Vec<Field>), Io> {
    let b = load(c, arg, size)?;
    if c.entering() {
        // The id asked for: the kernel may answer with the next one.
        return Err(Io::ExitWith(le32(&b, 0)));
    }
    let (asked, now) = (exit_state(c), le32(&b, 0));
    if c.failed() {
        return Err(Io::Arg(Value::structure(vec![Field::new(
            "id",
            cid(c, asked, true),
        )])));
    }
    let id = if now == asked {
        cid(c, now, true)
    } else {
        Value::Changed(Box::new(cid(c, asked, true)), Box::new(cid(c, now, false)))
    };
    let mut f = vec![Field::new("id", id)];
    f.push(Field::new(
        "type",
        c.enum_value(le32(&b, 4), &xlat::V4L2_CONTROL_TYPES, "V4L2_CTRL_TYPE_???"),
    ));
    f.push(Field::new(
        "name",
        crate::syscall::ioctl::v4l2::cstring_field(&b[8..40]),
    ));
    if !c.opts.verbose {
        return Err(Io::Arg(Value::Struct(f, true)));
    }
    Ok((b, f))
}

/// The `flags` field of a control query.
fn ctrl_flags(c: &Ctx, v: u64) -> Field {
    Field::new(
        "flags",
        xflags(c, v, &xlat::V4L2_CONTROL_FLAGS, "V4L2_CTRL_FLAG_???"),
    )
}

/// `struct v4l2_queryctrl` of `VIDIOC_QUERYCTRL`.
pub(in crate::syscall::ioctl::v4l2) fn queryctrl(c: &mut Ctx, arg: u64) -> Io {
    let (b, mut f) = match query_common(c, arg, 68) {
        Ok(x) => x,
        Err(io) => return io,
    };
    f.push(Field::new("minimum", d(le32(&b, 40))));
    f.push(Field::new("maximum", d(le32(&b, 44))));
    f.push(Field::new("step", d(le32(&b, 48))));
    f.push(Field::new("default_value", d(le32(&b, 52))));
    f.push(ctrl_flags(c, le32(&b, 56)));
    f.extend(reserved(&b, 60, 2));
    Io::Arg(Value::structure(f))
}

/// `struct v4l2_query_ext_ctrl` of `VIDIOC_QUERY_EXT_CTRL`.
pub(in crate::syscall::ioctl::v4l2) fn query_ext_ctrl(c: &mut Ctx, arg: u64) -> Io {
    let (b, mut f) = match query_common(c, arg, 232) {
        Ok(x) => x,
        Err(io) => return io,
    };
    f.push(Field::new("minimum", Value::Int(le64(&b, 40) as i64)));
    f.push(Field::new("maximum", Value::Int(le64(&b, 48) as i64)));
    f.push(Field::new("step", u(le64(&b, 56))));
    f.push(Field::new("default_value", Value::Int(le64(&b, 64) as i64)));
    f.push(ctrl_flags(c, le32(&b, 72)));
    f.push(Field::new("elem_size", u(le32(&b, 76))));
    f.push(Field::new("elems", u(le32(&b, 80))));
    let dims = le32(&b, 84);
    f.push(Field::new("nr_of_dims", u(dims)));
    f.push(Field::new(
        "dims",
        Value::Array(
            (0..dims.min(4) as usize)
                .map(|i| u(le32(&b, 88 + 4 * i)))
                .collect(),
            false,
        ),
    ));
    f.extend(reserved(&b, 104, 32));
    Io::Arg(Value::structure(f))
}

/// `controls=[…]` of a `struct v4l2_ext_controls` (read even after a
/// failed call), and whether the whole array was printed.
fn ext_array(c: &mut Ctx, b: &[u8]) -> (Field, bool) {
    let n = le32(b, 4);
    let v = array_at(c, le64(b, 24), n, 20, |c, e| {
        let size = le32(e, 4);
        let mut f = vec![
            Field::new(
                "id",
                c.enum_value(le32(e, 0), &xlat::V4L2_CONTROL_IDS, "V4L2_CID_???"),
            ),
            Field::new("size", u(size)),
        ];
        if size > 0 {
            f.push(Field::new("string", c.buf_value(le64(e, 12), size)));
        } else {
            f.push(Field::new("value", d(le32(e, 12))));
            f.push(Field::new("value64", Value::Int(le64(e, 12) as i64)));
        }
        Some(Value::structure(f))
    });
    let ok = matches!(&v, Value::Array(items, false)
        if items.len() as u64 == n && !items.iter().any(|i| matches!(i, Value::Commented(..))));
    (Field::new("controls", v), ok)
}

/// `struct v4l2_ext_controls` of `VIDIOC_[GS]_EXT_CTRLS` and
/// `VIDIOC_TRY_EXT_CTRLS`; `error_idx` follows a failure.
pub(in crate::syscall::ioctl::v4l2) fn ext_controls(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let b = match load(c, arg, 32) {
        Ok(b) => b,
        Err(io) => return io,
    };
    let count = le32(&b, 4);
    let mut f = vec![
        Field::new(
            "ctrl_class",
            c.enum_value(
                le32(&b, 0),
                &xlat::V4L2_CONTROL_CLASSES,
                "V4L2_CTRL_CLASS_???",
            ),
        ),
        Field::new("count", u(count)),
    ];
    if count == 0 {
        return Io::Arg(Value::structure(f));
    }
    if c.entering() {
        if get {
            return Io::Exit;
        }
        let (arr, ok) = ext_array(c, &b);
        if ok {
            return Io::Exit;
        }
        f.push(arr);
        return Io::Arg(Value::structure(f));
    }
    let error_idx = Field::new("error_idx", u(le32(&b, 8)));
    let failed = c.failed();
    if get {
        f.push(ext_array(c, &b).0);
        if failed {
            f.push(error_idx);
        }
        return Io::Arg(Value::structure(f));
    }
    f.push(ext_array(c, &b).0);
    let mut after = vec![ext_array(c, &b).0];
    if failed {
        after.push(error_idx);
    }
    Io::Arg(Value::Changed(
        Box::new(Value::structure(f)),
        Box::new(Value::structure(after)),
    ))
}
