//! MTD (flash memory) ioctls (type `M`, mtd/mtd-abi.h) as strace 6.1
//! prints them: erase regions, OOB buffers, write requests, device, OTP,
//! ECC and region information. The type is shared with the sound mixer
//! requests, whose names come from the request number; requests not
//! listed here print their argument in hex.

use crate::syscall::ioctl::gpio::local_array;
use crate::syscall::ioctl::misc::{fetch, num};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// `%#x` fields of 32 bits at the given offsets.
fn x32(b: &[u8], fields: &[(&'static str, usize)]) -> Vec<Field> {
    fields
        .iter()
        .map(|&(n, o)| Field::new(n, xint(le32(b, o))))
        .collect()
}

/// A structure read at `arg` and decoded by `f`.
fn st(c: &mut Ctx, arg: u64, size: usize, f: impl FnOnce(&Ctx, &[u8]) -> Value) -> Value {
    match fetch(c, arg, size) {
        Ok(b) => f(c, &b),
        Err(v) => v,
    }
}

/// `n` 32-bit words in hex, cut at `-s` without `-v`.
fn xwords(c: &Ctx, b: &[u8], n: usize) -> Value {
    local_array(c, (0..n).map(|i| xint(le32(b, 4 * i))).collect())
}

/// The MTD requests (type `M`).
pub(in crate::syscall::ioctl) fn mtd(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let getter = matches!(
        code,
        0x400c_4d0f
            | 0x8020_4d01
            | 0x80c8_4d0a
            | 0x8148_4d11
            | 0x8010_4d12
            | 0x4004_4d0e
            | 0x8004_4d07
    );
    if getter && c.entering() {
        return Io::Exit;
    }
    let v = match code {
        // MEMERASE, MEMLOCK, MEMUNLOCK, MEMISLOCKED
        0x4008_4d02 | 0x4008_4d05 | 0x4008_4d06 | 0x8008_4d17 => st(c, arg, 8, |_, b| {
            Value::structure(x32(b, &[("start", 0), ("length", 4)]))
        }),
        // MEMERASE64
        0x4010_4d14 => st(c, arg, 16, |_, b| {
            Value::structure(vec![
                Field::new("start", xint(le64(b, 0))),
                Field::new("length", xint(le64(b, 8))),
            ])
        }),
        // MEMWRITEOOB, MEMREADOOB
        0xc010_4d03 | 0xc010_4d04 => st(c, arg, 16, |_, b| {
            let mut f = x32(b, &[("start", 0), ("length", 4)]);
            f.push(Field::new("ptr", Value::Ptr(le64(b, 8))));
            Value::structure(f)
        }),
        // MEMWRITEOOB64, MEMREADOOB64
        0xc018_4d15 | 0xc018_4d16 => st(c, arg, 24, |_, b| {
            Value::structure(vec![
                Field::new("start", xint(le64(b, 0))),
                Field::new("length", xint(le32(b, 12))),
                Field::new("usr_ptr", xint(le64(b, 16))),
            ])
        }),
        // MEMWRITE
        0xc030_4d18 => st(c, arg, 48, |c, b| {
            Value::structure(vec![
                Field::new("start", xint(le64(b, 0))),
                Field::new("len", xint(le64(b, 8))),
                Field::new("ooblen", xint(le64(b, 16))),
                Field::new("usr_data", xint(le64(b, 24))),
                Field::new("usr_oob", xint(le64(b, 32))),
                Field::new(
                    "mode",
                    c.enum_value(b[40] as u64, &xlat::MTD_MODE_OPTIONS, "MTD_OPS_???"),
                ),
            ])
        }),
        // OTPGETREGIONINFO, OTPLOCK
        0x400c_4d0f | 0x800c_4d10 => st(c, arg, 12, |_, b| {
            let mut f = x32(b, &[("start", 0), ("length", 4)]);
            f.push(Field::new("locked", Value::UInt(le32(b, 8))));
            Value::structure(f)
        }),
        // OTPSELECT
        0x8004_4d0d => st(c, arg, 4, |c, b| {
            Value::Array(
                vec![c.enum_value(le32(b, 0), &xlat::MTD_OTP_OPTIONS, "MTD_OTP_???")],
                false,
            )
        }),
        // MTDFILEMODE
        0x4d13 => c.enum_value(arg, &xlat::MTD_FILE_MODE_OPTIONS, "MTD_FILE_MODE_???"),
        // MEMGETBADBLOCK, MEMSETBADBLOCK
        0x4008_4d0b | 0x4008_4d0c => num(c, arg, 8, false),
        // MEMGETINFO
        0x8020_4d01 => st(c, arg, 32, |c, b| {
            let mut f = vec![
                Field::new(
                    "type",
                    c.enum_value(b[0] as u64, &xlat::MTD_TYPE_OPTIONS, "MTD_???"),
                ),
                Field::new(
                    "flags",
                    xflags(c, le32(b, 4), &xlat::MTD_FLAGS_OPTIONS, "MTD_???"),
                ),
            ];
            f.extend(x32(
                b,
                &[
                    ("size", 8),
                    ("erasesize", 12),
                    ("writesize", 16),
                    ("oobsize", 20),
                ],
            ));
            f.push(Field::new("padding", xint(le64(b, 24))));
            Value::structure(f)
        }),
        // MEMGETOOBSEL
        0x80c8_4d0a => st(c, arg, 200, |c, b| {
            let free = (0..8)
                .map(|i| {
                    Value::Array(
                        vec![xint(le32(b, 8 + 8 * i)), xint(le32(b, 12 + 8 * i))],
                        false,
                    )
                })
                .collect();
            Value::structure(vec![
                Field::new(
                    "useecc",
                    c.enum_value(le32(b, 0), &xlat::MTD_NANDECC_OPTIONS, "MTD_NANDECC_???"),
                ),
                Field::new("eccbytes", xint(le32(b, 4))),
                Field::new("oobfree", local_array(c, free)),
                Field::new("eccpos", xwords(c, &b[72..200], 32)),
            ])
        }),
        // ECCGETLAYOUT
        0x8148_4d11 => st(c, arg, 328, |c, b| {
            let free = (0..8)
                .map(|i| Value::structure(x32(&b[264 + 8 * i..], &[("offset", 0), ("length", 4)])))
                .collect();
            Value::structure(vec![
                Field::new("eccbytes", xint(le32(b, 0))),
                Field::new("eccpos", xwords(c, &b[4..260], 64)),
                Field::new("oobavail", xint(le32(b, 260))),
                Field::new("oobfree", local_array(c, free)),
            ])
        }),
        // ECCGETSTATS
        0x8010_4d12 => st(c, arg, 16, |_, b| {
            Value::structure(x32(
                b,
                &[
                    ("corrected", 0),
                    ("failed", 4),
                    ("badblocks", 8),
                    ("bbtblocks", 12),
                ],
            ))
        }),
        // OTPGETREGIONCOUNT
        0x4004_4d0e => num(c, arg, 4, false),
        // MEMGETREGIONCOUNT
        0x8004_4d07 => num(c, arg, 4, true),
        // MEMGETREGIONINFO
        0xc010_4d08 => return region_info(c, arg),
        _ => return Io::Hex,
    };
    Io::Arg(v)
}

/// `MEMGETREGIONINFO`: the index at entry, the region after success.
fn region_info(c: &mut Ctx, arg: u64) -> Io {
    if c.entering() {
        return match fetch(c, arg, 16) {
            Ok(_) => Io::Exit,
            Err(v) => Io::Arg(v),
        };
    }
    let Some(b) = c.read_bytes(arg, 16) else {
        return Io::Arg(Value::Unreadable(arg));
    };
    let mut f = x32(&b, &[("regionindex", 12)]);
    if !c.failed() {
        f.extend(x32(
            &b,
            &[("offset", 0), ("erasesize", 4), ("numblocks", 8)],
        ));
    }
    Io::Arg(Value::structure(f))
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn mtd_requests() {
        let mut m = FakeMemory::default();
        let e = m.put(&[0, 0x10, 0, 0, 0, 0x20, 0, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4008_4d02, e], 0, &mut m),
            "ioctl(3, MIXER_WRITE(2) or MEMERASE, {start=0x1000, length=0x2000}) = 0"
        );
        let sel = m.put(&1u32.to_le_bytes());
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8004_4d0d, sel], 0, &mut m),
            "ioctl(3, MIXER_READ(13) or OTPSELECT, [MTD_OTP_FACTORY]) = 0"
        );
    }
}
