//! UBI ioctls (types `o` and `O`, mtd/ubi-user.h) as strace 6.1 prints
//! them: volume creation, resizing and renaming requests, LEB changes and
//! maps, attach requests (with ` => [N]`, the number the kernel assigned),
//! volume properties and the plain integer arguments.

use crate::syscall::ioctl::gpio::local_array;
use crate::syscall::ioctl::misc::{cstring_field, fetch, in_out_bytes, num};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// A signed 32-bit field.
fn d32(v: u64) -> Value {
    Value::Int(v as u32 as i32 as i64)
}

/// A signed 16-bit field.
fn d16(v: u64) -> Value {
    Value::Int(v as u16 as i16 as i64)
}

/// A volume name of `name_len` bytes (clamped to the array) at `b`.
fn name(b: &[u8], len: u64) -> Value {
    let n = (len as u16 as i16).clamp(0, 127) as usize;
    cstring_field(&b[..n + 1])
}

/// The request at entry and, after success, ` => [N]` of the `int` the
/// kernel wrote at the start of the argument.
fn with_result(c: &mut Ctx, arg: u64, size: usize, f: impl Fn(&Ctx, &[u8]) -> Value) -> Io {
    let b = match in_out_bytes(c, arg, size) {
        Ok(b) => b,
        Err(io) => return io,
    };
    let req = f(c, &b);
    if c.failed() {
        return Io::Arg(req);
    }
    let n = num(c, arg, 4, true);
    Io::Arg(Value::Changed(Box::new(req), Box::new(n)))
}

/// The UBI requests.
pub(in crate::syscall::ioctl) fn ubi(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let data = |c: &Ctx, v: u64| c.enum_value(v, &xlat::UBI_DATA_TYPES, "UBI_???");
    let v = match code {
        // UBI_IOCATT
        0x4018_6f40 => {
            return with_result(c, arg, 24, |_, b| {
                Value::structure(vec![
                    Field::new("ubi_num", d32(le32(b, 0))),
                    Field::new("mtd_num", d32(le32(b, 4))),
                    Field::new("vid_hdr_offset", d32(le32(b, 8))),
                    Field::new("max_beb_per1024", d16(le16(b, 12))),
                ])
            })
        }
        // UBI_IOCMKVOL
        0x4098_6f00 => {
            return with_result(c, arg, 152, |c, b| {
                Value::structure(vec![
                    Field::new("vol_id", d32(le32(b, 0))),
                    Field::new("alignment", d32(le32(b, 4))),
                    Field::new("bytes", Value::Int(le64(b, 8) as i64)),
                    Field::new(
                        "vol_type",
                        c.enum_value(b[16] as u64, &xlat::UBI_VOLUME_TYPES, "UBI_???_VOLUME"),
                    ),
                    Field::new(
                        "flags",
                        xflags(c, b[17] as u64, &xlat::UBI_VOLUME_FLAGS, "UBI_VOL_???"),
                    ),
                    Field::new("name_len", d16(le16(b, 18))),
                    Field::new("name", name(&b[24..152], le16(b, 18))),
                ])
            })
        }
        // UBI_IOCRSVOL
        0x400c_6f02 => match fetch(c, arg, 12) {
            Ok(b) => Value::structure(vec![
                Field::new("bytes", Value::Int(le64(&b, 0) as i64)),
                Field::new("vol_id", d32(le32(&b, 8))),
            ]),
            Err(v) => v,
        },
        // UBI_IOCRNVOL
        0x5110_6f03 => match fetch(c, arg, 4368) {
            Ok(b) => {
                let count = le32(&b, 0) as u32 as i32;
                let n = count.clamp(0, 32) as usize;
                let ents = (0..n)
                    .map(|i| {
                        let e = &b[16 + 136 * i..16 + 136 * (i + 1)];
                        Value::structure(vec![
                            Field::new("vol_id", d32(le32(e, 0))),
                            Field::new("name_len", d16(le16(e, 4))),
                            Field::new("name", name(&e[8..136], le16(e, 4))),
                        ])
                    })
                    .collect();
                Value::structure(vec![
                    Field::new("count", Value::Int(count as i64)),
                    Field::new("ents", local_array(c, ents)),
                ])
            }
            Err(v) => v,
        },
        // UBI_IOCEBCH
        0x4004_4f02 => match fetch(c, arg, 16) {
            Ok(b) => Value::structure(vec![
                Field::new("lnum", d32(le32(&b, 0))),
                Field::new("bytes", d32(le32(&b, 4))),
                Field::new("dtype", data(c, b[8] as u64)),
            ]),
            Err(v) => v,
        },
        // UBI_IOCEBMAP
        0x4008_4f03 => match fetch(c, arg, 8) {
            Ok(b) => Value::structure(vec![
                Field::new("lnum", d32(le32(&b, 0))),
                Field::new("dtype", data(c, b[4] as u64)),
            ]),
            Err(v) => v,
        },
        // UBI_IOCSETVOLPROP
        0x4010_4f06 => match fetch(c, arg, 16) {
            Ok(b) => Value::structure(vec![
                Field::new(
                    "property",
                    c.enum_value(b[0] as u64, &xlat::UBI_VOLUME_PROPS, "UBI_VOL_PROP_???"),
                ),
                Field::new("value", xint(le64(&b, 8))),
            ]),
            Err(v) => v,
        },
        // UBI_IOCVOLUP
        0x4008_4f00 => num(c, arg, 8, true),
        // UBI_IOCDET, UBI_IOCRMVOL, UBI_IOCRPEB, UBI_IOCSPEB, UBI_IOCEBER,
        // UBI_IOCEBISMAP, UBI_IOCEBUNMAP
        0x4004_6f41 | 0x4004_6f01 | 0x4004_6f04 | 0x4004_6f05 | 0x4004_4f01 | 0x8004_4f05
        | 0x4004_4f04 => num(c, arg, 4, true),
        // UBI_IOCVOLCRBLK, UBI_IOCVOLRMBLK
        0x4080_4f07 | 0x4f08 => return Io::NoArg,
        _ => return Io::Hex,
    };
    Io::Arg(v)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn ubi_requests() {
        let mut m = FakeMemory::default();
        let n = m.put(&(-2i32).to_le_bytes());
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4004_6f41, n], 0, &mut m),
            "ioctl(3, UBI_IOCDET, [-2]) = 0"
        );
        let map = m.put(&[5, 0, 0, 0, 3, 0, 0, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4008_4f03, map], 0, &mut m),
            "ioctl(3, UBI_IOCEBMAP, {lnum=5, dtype=UBI_UNKNOWN}) = 0"
        );
    }
}
