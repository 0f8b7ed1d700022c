//! File system ioctls: `FITRIM`, `FS_IOC_FS[GS]ETXATTR`, `FIFREEZE`,
//! `FITHAW`, `FS_IOC_SHUTDOWN` (type `X`), `FS_IOC_[GS]ETFLAGS` and
//! `FS_IOC_FIEMAP` (type `f`), `FS_IOC_GETFSUUID` (type 0x15).

use crate::syscall::ioctl::misc::{fetch, u, x};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{hex_quoted, le32, le64, xflags};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// `FITRIM`, `FS_IOC_FS[GS]ETXATTR`, `FIFREEZE`, `FITHAW` (type `X`).
pub(in crate::syscall::ioctl) fn fs_x(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        // FITRIM
        0xc018_5879 => Io::Arg(match fetch(c, arg, 24) {
            Ok(b) => Value::structure(vec![
                Field::new("start", x(le64(&b, 0))),
                Field::new("len", u(le64(&b, 8))),
                Field::new("minlen", u(le64(&b, 16))),
            ]),
            Err(v) => v,
        }),
        // FS_IOC_FSGETXATTR
        0x801c_581f if c.entering() => Io::Exit,
        0x801c_581f | 0x401c_5820 => {
            let get = code == 0x801c_581f;
            Io::Arg(match fetch(c, arg, 28) {
                Ok(b) => {
                    let mut f = vec![
                        Field::new(
                            "fsx_xflags",
                            xflags(c, le32(&b, 0), &xlat::FS_XFLAGS, "FS_XFLAG_???"),
                        ),
                        Field::new("fsx_extsize", u(le32(&b, 4))),
                    ];
                    if get {
                        f.push(Field::new("fsx_nextents", u(le32(&b, 8))));
                    }
                    f.push(Field::new("fsx_projid", x(le32(&b, 12))));
                    f.push(Field::new("fsx_cowextsize", u(le32(&b, 16))));
                    Value::structure(f)
                }
                Err(v) => v,
            })
        }
        // FIFREEZE, FITHAW
        0xc004_5877 | 0xc004_5878 => Io::NoArg,
        // FS_IOC_SHUTDOWN: `[FS_SHUTDOWN_FLAGS_LOGFLUSH]`.
        0x8004_587d => Io::Arg(match fetch(c, arg, 4) {
            Ok(b) => Value::Array(
                vec![c.enum_value(
                    le32(&b, 0),
                    &xlat::FS_SHUTDOWN_FLAGS,
                    "FS_SHUTDOWN_FLAGS_???",
                )],
                false,
            ),
            Err(v) => v,
        }),
        _ => Io::Hex,
    }
}

/// `FS_IOC_GETFSUUID` (type 0x15): `{len=16, uuid="\x.."}` at exit, the
/// identifier's `len` bytes (at most 16) in hex.
pub(in crate::syscall::ioctl) fn fs_0x15(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        0x8011_1500 if c.entering() => Io::Exit,
        0x8011_1500 => Io::Arg(match fetch(c, arg, 17) {
            Ok(b) => {
                let len = b[0] as usize;
                Value::structure(vec![
                    Field::new("len", u(len as u64)),
                    Field::new("uuid", Value::sym_owned(hex_quoted(&b[1..1 + len.min(16)]))),
                ])
            }
            Err(v) => v,
        }),
        _ => Io::Hex,
    }
}

/// `[FLAGS]` of `FS_IOC_[GS]ETFLAGS`.
pub(in crate::syscall::ioctl) fn fs_flags(c: &mut Ctx, arg: u64) -> Value {
    match fetch(c, arg, 4) {
        Ok(b) => Value::Array(
            vec![xflags(c, le32(&b, 0), &xlat::FS_IOC_FLAGS, "FS_???_FL")],
            false,
        ),
        Err(v) => v,
    }
}

/// `FS_IOC_FIEMAP`: the request, ` => ` the mapped extents after a
/// successful call (both read at exit: the kernel leaves the request
/// fields as they were).
pub(in crate::syscall::ioctl) fn fiemap(c: &mut Ctx, arg: u64) -> Io {
    let flags = |c: &Ctx, b: &[u8]| xflags(c, le32(b, 16), &xlat::FIEMAP_FLAGS, "FIEMAP_FLAG_???");
    if c.entering() {
        return match fetch(c, arg, 32) {
            Ok(_) => Io::Exit,
            Err(v) => Io::Arg(v),
        };
    }
    let Some(b) = c.read_bytes(arg, 32) else {
        return Io::Arg(Value::Unreadable(arg));
    };
    let before = Value::structure(vec![
        Field::new("fm_start", u(le64(&b, 0))),
        Field::new("fm_length", u(le64(&b, 8))),
        Field::new("fm_flags", flags(c, &b)),
        Field::new("fm_extent_count", u(le32(&b, 24))),
    ]);
    if c.failed() {
        return Io::Arg(before);
    }
    let n = le32(&b, 20);
    let mut f = vec![
        Field::new("fm_flags", flags(c, &b)),
        Field::new("fm_mapped_extents", u(n)),
    ];
    let after = if !c.opts.verbose {
        Value::Struct(f, true)
    } else {
        let ext = crate::syscall::array::array_at(c, arg + 32, n, 56, |c, e| {
            Some(Value::structure(vec![
                Field::new("fe_logical", u(le64(e, 0))),
                Field::new("fe_physical", u(le64(e, 8))),
                Field::new("fe_length", u(le64(e, 16))),
                Field::new(
                    "fe_flags",
                    xflags(
                        c,
                        le32(e, 40),
                        &xlat::FIEMAP_EXTENT_FLAGS,
                        "FIEMAP_EXTENT_???",
                    ),
                ),
            ]))
        });
        f.push(Field::new("fm_extents", ext));
        Value::structure(f)
    };
    Io::Arg(Value::Changed(Box::new(before), Box::new(after)))
}

/// `FS_IOC_*FLAGS` and `FS_IOC_FIEMAP` (type `f`).
pub(in crate::syscall::ioctl) fn fs_f(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        0xc020_660b => fiemap(c, arg),
        // FS_IOC_GETFLAGS, FS_IOC32_GETFLAGS
        0x8008_6601 | 0x8004_6601 if c.entering() => Io::Exit,
        0x8008_6601 | 0x8004_6601 | 0x4008_6602 | 0x4004_6602 => Io::Arg(fs_flags(c, arg)),
        _ => Io::Hex,
    }
}
