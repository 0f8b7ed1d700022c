//! ATA/IDE disk ioctls (`HDIO_*`, type 0x03) as strace 6.1 prints them:
//! `HDIO_GETGEO`'s geometry, `HDIO_DRIVE_CMD`'s command and the status
//! the drive returned (` => {status=…, buf="\x…"}`), the identity
//! buffers, the `[unsigned long]` getters and the value setters (bus
//! states and `IDE_NICE_*` bits by name).

use crate::syscall::ioctl::misc::fetch;
use crate::syscall::ioctl::Io;
use crate::syscall::netlink::hexstr_value;
use crate::syscall::printers::{le16, le32, le64, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat, XlatKind};

/// `IDE_NICE_*` bits, named as strace names them (`1 << IDE_NICE_1`).
static IDE_NICE: Xlat = Xlat {
    name: "hdio_ide_nice",
    kind: XlatKind::Flags,
    entries: &[
        (1 << 0, "1 << IDE_NICE_DSC_OVERLAP"),
        (1 << 1, "1 << IDE_NICE_ATAPI_OVERLAP"),
        (1 << 3, "1 << IDE_NICE_1"),
        (1 << 2, "1 << IDE_NICE_0"),
        (1 << 4, "1 << IDE_NICE_2"),
    ],
};

/// `IDE_NICE_*` flags (`printflags64`).
fn nice(c: &Ctx, v: u64) -> Value {
    crate::syscall::printers::xflags(c, v, &IDE_NICE, "IDE_NICE_???")
}

/// `[v]` of an `unsigned long` the kernel wrote.
fn ulong_out(c: &mut Ctx, arg: u64, f: impl Fn(&Ctx, u64) -> Value) -> Value {
    let w = c.arch.word_size();
    match fetch(c, arg, w) {
        Ok(b) => {
            let v = if w == 8 { le64(&b, 0) } else { le32(&b, 0) };
            Value::Array(vec![f(c, v)], false)
        }
        Err(v) => v,
    }
}

/// Three `int`s in hex (`HDIO_DRIVE_RESET`, `HDIO_SCAN_HWIF`).
fn three_ints(c: &mut Ctx, arg: u64) -> Value {
    crate::syscall::array::array_at(c, arg, 3, 4, |_, e| Some(xint(le32(e, 0))))
}

/// The `HDIO_*` requests.
pub(in crate::syscall::ioctl) fn hdio(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(name) = names.iter().find(|n| n.starts_with("HDIO_")) else {
        return Io::Hex;
    };
    let busstate = |c: &Ctx, v: u64| c.enum_value(v, &xlat::HDIO_BUSSTATES, "BUSSTATE_???");
    match *name {
        "HDIO_GETGEO" => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(match fetch(c, arg, 16) {
                Ok(b) => Value::structure(vec![
                    Field::new("heads", Value::UInt(b[0] as u64)),
                    Field::new("sectors", Value::UInt(b[1] as u64)),
                    Field::new("cylinders", Value::UInt(le16(&b, 2))),
                    Field::new("start", Value::UInt(le64(&b, 8))),
                ]),
                Err(v) => v,
            })
        }
        "HDIO_DRIVE_CMD" => drive_cmd(c, arg),
        "HDIO_DRIVE_RESET" | "HDIO_SCAN_HWIF" => Io::Arg(three_ints(c, arg)),
        "HDIO_GET_32BIT"
        | "HDIO_GET_ACOUSTIC"
        | "HDIO_GET_ADDRESS"
        | "HDIO_GET_DMA"
        | "HDIO_GET_KEEPSETTINGS"
        | "HDIO_GET_MULTCOUNT"
        | "HDIO_GET_NOWERR"
        | "HDIO_GET_UNMASKINTR"
        | "HDIO_GET_WCACHE" => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(ulong_out(c, arg, |_, v| Value::UInt(v)))
        }
        "HDIO_GET_BUSSTATE" => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(ulong_out(c, arg, busstate))
        }
        "HDIO_GET_NICE" => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(ulong_out(c, arg, nice))
        }
        "HDIO_GET_IDENTITY" | "HDIO_OBSOLETE_IDENTITY" => {
            if c.entering() {
                return Io::Exit;
            }
            let len = if *name == "HDIO_GET_IDENTITY" {
                512
            } else {
                142
            };
            Io::Arg(if c.failed() {
                Value::Ptr(arg)
            } else {
                c.buf_value(arg, len)
            })
        }
        "HDIO_SET_32BIT"
        | "HDIO_SET_ACOUSTIC"
        | "HDIO_SET_ADDRESS"
        | "HDIO_SET_DMA"
        | "HDIO_SET_KEEPSETTINGS"
        | "HDIO_SET_MULTCOUNT"
        | "HDIO_SET_NOWERR"
        | "HDIO_SET_PIO_MODE"
        | "HDIO_SET_UNMASKINTR"
        | "HDIO_SET_WCACHE"
        | "HDIO_UNREGISTER_HWIF" => Io::Arg(Value::UInt(arg)),
        "HDIO_SET_BUSSTATE" => Io::Arg(busstate(c, arg)),
        "HDIO_SET_NICE" => Io::Arg(nice(c, arg)),
        _ => Io::Hex,
    }
}

/// `HDIO_DRIVE_CMD`: the command at entry; the drive's answer after a
/// call that succeeded or failed with `EIO`.
fn drive_cmd(c: &mut Ctx, arg: u64) -> Io {
    const EIO: i64 = 5;
    if c.entering() {
        return match fetch(c, arg, 4) {
            Ok(_) => Io::Exit,
            Err(v) => Io::Arg(v),
        };
    }
    let Some(b) = c.read_bytes(arg, 4) else {
        return Io::Arg(Value::Unreadable(arg));
    };
    let cmd = Value::structure(vec![
        Field::new(
            "command",
            c.enum_value(b[0] as u64, &xlat::HDIO_DRIVE_CMDS, "ATA_CMD_???"),
        ),
        Field::new("sector_number", Value::UInt(b[1] as u64)),
        Field::new("feature", Value::UInt(b[2] as u64)),
        Field::new("sector_count", Value::UInt(b[3] as u64)),
    ]);
    if c.failed() && c.retval() != -EIO {
        return Io::Arg(cmd);
    }
    // The kernel overwrites the same four bytes with the drive's answer.
    let Some(r) = c.read_bytes(arg, 4) else {
        return Io::Arg(cmd);
    };
    let mut f = vec![
        Field::new("status", xint(r[0] as u64)),
        Field::new("error", Value::UInt(r[1] as u64)),
        Field::new("nsector", Value::UInt(r[2] as u64)),
    ];
    if r[3] != 0 {
        let v = hexstr_value(c, arg + 4, r[3] as u64 * 512);
        f.push(Field::new("buf", v));
    }
    Io::Arg(Value::Changed(Box::new(cmd), Box::new(Value::structure(f))))
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn hdio_requests() {
        let mut m = FakeMemory::default();
        let geo = m.put(&[4, 63, 0x10, 0x01, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x0301, geo], 0, &mut m),
            "ioctl(3, HDIO_GETGEO, {heads=4, sectors=63, cylinders=272, start=9}) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x032d, 1], 0, &mut m),
            "ioctl(3, HDIO_SET_BUSSTATE, BUSSTATE_ON) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x0329, 0xa], 0, &mut m),
            "ioctl(3, HDIO_SET_NICE, 1 << IDE_NICE_ATAPI_OVERLAP|1 << IDE_NICE_1) = 0"
        );
    }
}
