//! GPIO character device ioctls (type 0xb4) as strace 6.1 prints them:
//! chip and line information (v1 and v2), line handle, event and v2 line
//! requests (the request at entry, ` => {fd=N}` after success), line
//! values and line configurations with their attribute arrays. Also the
//! local-array printer the other family files share.

use crate::syscall::ioctl::misc::{cstring_field, fetch, in_out_bytes};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// strace's `print_local_array_ex` over values already decoded: cut at
/// `-s` elements (with `...`) unless `-v`.
pub(in crate::syscall::ioctl) fn local_array(c: &Ctx, items: Vec<Value>) -> Value {
    let lim = c.opts.string_limit;
    if !c.opts.verbose && items.len() > lim {
        let mut items = items;
        items.truncate(lim);
        return Value::Array(items, true);
    }
    Value::Array(items, false)
}

/// `n` little-endian unsigned integers of `size` bytes at `b`.
fn uints(b: &[u8], n: usize, size: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let o = i * size;
            Value::UInt(match size {
                1 => b[o] as u64,
                _ => le32(b, o),
            })
        })
        .collect()
}

/// All of an array's words in hex, no `-s` limit (`PRINT_FIELD_X_ARRAY`).
fn x_array(b: &[u8], n: usize) -> Value {
    Value::Array((0..n).map(|i| xint(le32(b, 4 * i))).collect(), false)
}

/// The GPIO requests (type 0xb4), by name.
pub(in crate::syscall::ioctl) fn gpio(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(name) = names.iter().find(|n| n.starts_with("GPIO")) else {
        return Io::Hex;
    };
    match *name {
        "GPIO_GET_CHIPINFO_IOCTL" => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(match fetch(c, arg, 68) {
                Ok(b) => Value::structure(vec![
                    Field::new("name", cstring_field(&b[0..32])),
                    Field::new("label", cstring_field(&b[32..64])),
                    Field::new("lines", Value::UInt(le32(&b, 64))),
                ]),
                Err(v) => v,
            })
        }
        "GPIO_GET_LINEINFO_UNWATCH_IOCTL" => Io::Arg(match fetch(c, arg, 4) {
            Ok(b) => Value::structure(vec![Field::new("offset", Value::UInt(le32(&b, 0)))]),
            Err(v) => v,
        }),
        "GPIO_V2_GET_LINEINFO_IOCTL" | "GPIO_V2_GET_LINEINFO_WATCH_IOCTL" => in_out(
            c,
            arg,
            256,
            |_, b| Value::structure(vec![Field::new("offset", Value::UInt(le32(b, 64)))]),
            |c, b| Some(v2_line_info(c, b)),
        ),
        "GPIO_V2_GET_LINE_IOCTL" => in_out(c, arg, 592, v2_line_request, |c, b| {
            Some(fd_struct(c, b, 588))
        }),
        "GPIO_V2_LINE_SET_CONFIG_IOCTL" => Io::Arg(match fetch(c, arg, 272) {
            Ok(b) => v2_line_config(c, &b),
            Err(v) => v,
        }),
        "GPIO_V2_LINE_GET_VALUES_IOCTL" => in_out(
            c,
            arg,
            16,
            |_, b| Value::structure(vec![Field::new("mask", xint(le64(b, 8)))]),
            |_, b| Some(Value::structure(vec![Field::new("bits", xint(le64(b, 0)))])),
        ),
        "GPIO_V2_LINE_SET_VALUES_IOCTL" => Io::Arg(match fetch(c, arg, 16) {
            Ok(b) => Value::structure(vec![
                Field::new("bits", xint(le64(&b, 0))),
                Field::new("mask", xint(le64(&b, 8))),
            ]),
            Err(v) => v,
        }),
        "GPIO_GET_LINEINFO_IOCTL" | "GPIO_GET_LINEINFO_WATCH_IOCTL" => in_out(
            c,
            arg,
            72,
            |_, b| Value::structure(vec![Field::new("line_offset", Value::UInt(le32(b, 0)))]),
            |c, b| {
                Some(Value::structure(vec![
                    Field::new(
                        "flags",
                        xflags(c, le32(b, 4), &xlat::GPIO_LINE_FLAGS, "GPIOLINE_FLAG_???"),
                    ),
                    Field::new("name", cstring_field(&b[8..40])),
                    Field::new("consumer", cstring_field(&b[40..72])),
                ]))
            },
        ),
        "GPIO_GET_LINEHANDLE_IOCTL" => in_out(c, arg, 364, handle_request, |c, b| {
            Some(fd_struct(c, b, 360))
        }),
        "GPIO_GET_LINEEVENT_IOCTL" => in_out(
            c,
            arg,
            48,
            |c, b| {
                Value::structure(vec![
                    Field::new("lineoffset", Value::UInt(le32(b, 0))),
                    Field::new(
                        "handleflags",
                        xflags(
                            c,
                            le32(b, 4),
                            &xlat::GPIO_HANDLE_FLAGS,
                            "GPIOHANDLE_REQUEST_???",
                        ),
                    ),
                    Field::new(
                        "eventflags",
                        xflags(
                            c,
                            le32(b, 8),
                            &xlat::GPIO_EVENT_FLAGS,
                            "GPIOEVENT_REQUEST_???",
                        ),
                    ),
                    Field::new("consumer_label", cstring_field(&b[12..44])),
                ])
            },
            |c, b| Some(fd_struct(c, b, 44)),
        ),
        "GPIOHANDLE_GET_LINE_VALUES_IOCTL" => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(match fetch(c, arg, 64) {
                Ok(b) => handle_data(c, &b),
                Err(v) => v,
            })
        }
        "GPIOHANDLE_SET_LINE_VALUES_IOCTL" => Io::Arg(match fetch(c, arg, 64) {
            Ok(b) => handle_data(c, &b),
            Err(v) => v,
        }),
        "GPIOHANDLE_SET_CONFIG_IOCTL" => Io::Arg(match fetch(c, arg, 84) {
            Ok(b) => Value::structure(vec![
                Field::new(
                    "flags",
                    xflags(
                        c,
                        le32(&b, 0),
                        &xlat::GPIO_HANDLE_FLAGS,
                        "GPIOHANDLE_REQUEST_???",
                    ),
                ),
                Field::new("default_values", local_array(c, uints(&b[4..68], 64, 1))),
            ]),
            Err(v) => v,
        }),
        _ => Io::Hex,
    }
}

/// A request printed at entry (`before`) and, after a successful call,
/// ` => ` what the kernel wrote (`after`); both read at exit.
fn in_out(
    c: &mut Ctx,
    arg: u64,
    size: usize,
    before: impl Fn(&Ctx, &[u8]) -> Value,
    after: impl Fn(&mut Ctx, &[u8]) -> Option<Value>,
) -> Io {
    let b = match in_out_bytes(c, arg, size) {
        Ok(b) => b,
        Err(io) => return io,
    };
    let first = before(c, &b);
    if c.failed() {
        return Io::Arg(first);
    }
    match after(c, &b) {
        Some(v) => Io::Arg(Value::Changed(Box::new(first), Box::new(v))),
        None => Io::Arg(first),
    }
}

/// `{fd=N}` of the descriptor at offset `off`.
fn fd_struct(c: &mut Ctx, b: &[u8], off: usize) -> Value {
    let fd = c.fd_value(le32(b, off) as u32 as i32 as i64);
    Value::structure(vec![Field::new("fd", fd)])
}

/// `struct gpiohandle_data`.
fn handle_data(c: &Ctx, b: &[u8]) -> Value {
    Value::structure(vec![Field::new("values", local_array(c, uints(b, 64, 1)))])
}

/// `struct gpiohandle_request` (its input part).
fn handle_request(c: &Ctx, b: &[u8]) -> Value {
    let lines = le32(b, 356) as usize;
    let n = lines.min(64);
    Value::structure(vec![
        Field::new("lines", Value::UInt(lines as u64)),
        Field::new("lineoffsets", local_array(c, uints(b, n, 4))),
        Field::new(
            "flags",
            xflags(
                c,
                le32(b, 256),
                &xlat::GPIO_HANDLE_FLAGS,
                "GPIOHANDLE_REQUEST_???",
            ),
        ),
        Field::new("default_values", local_array(c, uints(&b[260..324], n, 1))),
        Field::new("consumer_label", cstring_field(&b[324..356])),
    ])
}

/// The fields of `struct gpio_v2_line_attribute` at `b`.
fn v2_attr(c: &Ctx, b: &[u8]) -> Vec<Field> {
    let id = le32(b, 0);
    let pad = le32(b, 4);
    let v = le64(b, 8);
    if pad == 0 {
        match id {
            1 => {
                return vec![Field::new(
                    "flags",
                    xflags(c, v, &xlat::GPIO_V2_LINE_FLAGS, "GPIO_V2_LINE_FLAG_???"),
                )]
            }
            2 => return vec![Field::new("values", xint(v))],
            3 => {
                return vec![Field::new(
                    "debounce_period_us",
                    Value::UInt(v & 0xffff_ffff),
                )]
            }
            _ => {}
        }
    }
    let mut f = vec![Field::new("id", Value::UInt(id))];
    if pad != 0 {
        f.push(Field::new("padding", xint(pad)));
    }
    f.push(Field::new("data", xint(v)));
    f
}

/// Whether attribute `b` prints as its raw fields (wrapped in `attr={…}`).
fn v2_attr_raw(b: &[u8]) -> bool {
    le32(b, 4) != 0 || !(1..=3).contains(&le32(b, 0))
}

/// `struct gpio_v2_line_config` at `b`.
fn v2_line_config(c: &Ctx, b: &[u8]) -> Value {
    let n = le32(b, 8) as usize;
    let mut f = vec![
        Field::new(
            "flags",
            xflags(
                c,
                le64(b, 0),
                &xlat::GPIO_V2_LINE_FLAGS,
                "GPIO_V2_LINE_FLAG_???",
            ),
        ),
        Field::new("num_attrs", Value::UInt(n as u64)),
    ];
    if b[12..32].iter().any(|&x| x != 0) {
        f.push(Field::new("padding", x_array(&b[12..32], 5)));
    }
    if n != 0 {
        let items = (0..n.min(10))
            .map(|i| {
                let a = &b[32 + 24 * i..56 + 24 * i];
                let mut af = v2_attr(c, &a[..16]);
                if v2_attr_raw(a) {
                    af = vec![Field::new("attr", Value::structure(af))];
                }
                af.push(Field::new("mask", xint(le64(a, 16))));
                Value::structure(af)
            })
            .collect();
        f.push(Field::new("attrs", local_array(c, items)));
    }
    Value::structure(f)
}

/// `struct gpio_v2_line_request` (its input part).
fn v2_line_request(c: &Ctx, b: &[u8]) -> Value {
    let n = le32(b, 560) as usize;
    let mut f = vec![
        Field::new("num_lines", Value::UInt(n as u64)),
        Field::new("offsets", local_array(c, uints(b, n.min(64), 4))),
        Field::new("consumer", cstring_field(&b[256..288])),
        Field::new("config", v2_line_config(c, &b[288..560])),
    ];
    let ebs = le32(b, 564);
    if ebs != 0 {
        f.push(Field::new("event_buffer_size", Value::UInt(ebs)));
    }
    if b[568..588].iter().any(|&x| x != 0) {
        f.push(Field::new("padding", x_array(&b[568..588], 5)));
    }
    Value::structure(f)
}

/// `struct gpio_v2_line_info` (what the kernel wrote).
fn v2_line_info(c: &Ctx, b: &[u8]) -> Value {
    let n = le32(b, 68) as usize;
    let mut f = vec![
        Field::new("name", cstring_field(&b[0..32])),
        Field::new("consumer", cstring_field(&b[32..64])),
        Field::new(
            "flags",
            xflags(
                c,
                le64(b, 72),
                &xlat::GPIO_V2_LINE_FLAGS,
                "GPIO_V2_LINE_FLAG_???",
            ),
        ),
        Field::new("num_attrs", Value::UInt(n as u64)),
    ];
    if n != 0 {
        let items = (0..n.min(10))
            .map(|i| Value::structure(v2_attr(c, &b[80 + 16 * i..96 + 16 * i])))
            .collect();
        f.push(Field::new("attrs", local_array(c, items)));
    }
    if b[240..256].iter().any(|&x| x != 0) {
        f.push(Field::new("padding", x_array(&b[240..256], 4)));
    }
    Value::structure(f)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn gpio_requests() {
        let mut m = FakeMemory::default();
        let mut info = vec![0u8; 72];
        info[0] = 7;
        info[4] = 0x3;
        info[8..12].copy_from_slice(b"line");
        let p = m.put(&info);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc048_b402, p], 0, &mut m),
            "ioctl(3, GPIO_GET_LINEINFO_IOCTL, {line_offset=7} => {flags=GPIOLINE_FLAG_KERNEL|GPIOLINE_FLAG_IS_OUT, name=\"line\", consumer=\"\"}) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc048_b402, p], -9, &mut m),
            "ioctl(3, GPIO_GET_LINEINFO_IOCTL, {line_offset=7}) = -1 EBADF (Bad file descriptor)"
        );
        let vals = m.put(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc010_b40f, vals], 0, &mut m),
            "ioctl(3, GPIO_V2_LINE_SET_VALUES_IOCTL, {bits=0x807060504030201, mask=0x100f0e0d0c0b0a09}) = 0"
        );
    }
}
