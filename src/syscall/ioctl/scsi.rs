//! SCSI generic ioctls (type 0x22, scsi/sg.h) as strace 6.1 prints them:
//! the integer getters and setters, `SG_SCSI_RESET`'s reset kind,
//! `SG_GET_SCSI_ID`; `SG_IO` is decoded in `sg_io.rs`.

use crate::syscall::ioctl::misc::{fetch, num};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le16, le32, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// The SCSI generic requests, by name.
pub(in crate::syscall::ioctl) fn scsi(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(&name) = names.iter().find(|n| n.starts_with("SG_")) else {
        return Io::Hex;
    };
    let getter = matches!(
        name,
        "SG_EMULATED_HOST"
            | "SG_GET_ACCESS_COUNT"
            | "SG_GET_COMMAND_Q"
            | "SG_GET_KEEP_ORPHAN"
            | "SG_GET_LOW_DMA"
            | "SG_GET_NUM_WAITING"
            | "SG_GET_PACK_ID"
            | "SG_GET_RESERVED_SIZE"
            | "SG_GET_SG_TABLESIZE"
            | "SG_GET_TRANSFORM"
            | "SG_GET_VERSION_NUM"
            | "SG_GET_SCSI_ID"
            | "SG_GET_REQUEST_TABLE"
    );
    if getter && c.entering() {
        return Io::Exit;
    }
    let v = match name {
        "SG_IO" => return crate::syscall::ioctl::sg_io::sg_io(c, arg),
        "SG_GET_SCSI_ID" => match fetch(c, arg, 32) {
            Ok(b) => {
                let d = |o: usize| Value::Int(le32(&b, o) as u32 as i32 as i64);
                let h = |o: usize| Value::Int(le16(&b, o) as u16 as i16 as i64);
                Value::structure(vec![
                    Field::new("host_no", d(0)),
                    Field::new("channel", d(4)),
                    Field::new("scsi_id", xint(le32(&b, 8))),
                    Field::new("lun", d(12)),
                    Field::new("scsi_type", xint(le32(&b, 16))),
                    Field::new("h_cmd_per_lun", h(20)),
                    Field::new("d_queue_depth", h(22)),
                ])
            }
            Err(v) => v,
        },
        "SG_GET_REQUEST_TABLE" => fetch(c, arg, 1).map_or_else(|v| v, |_| Value::Ptr(arg)),
        "SG_SCSI_RESET" => match fetch(c, arg, 4) {
            Ok(b) => {
                const NO_ESCALATE: u64 = 0x100;
                let v = le32(&b, 0);
                let rest =
                    c.enum_value(v & !NO_ESCALATE, &xlat::SG_SCSI_RESET, "SG_SCSI_RESET_???");
                let item = if v & NO_ESCALATE != 0 {
                    let ne = c.enum_value(NO_ESCALATE, &xlat::SG_SCSI_RESET, "");
                    Value::Joined(vec![ne, rest], "|")
                } else {
                    rest
                };
                Value::Array(vec![item], false)
            }
            Err(v) => v,
        },
        "SG_NEXT_CMD_LEN"
        | "SG_SET_COMMAND_Q"
        | "SG_SET_DEBUG"
        | "SG_SET_FORCE_LOW_DMA"
        | "SG_SET_FORCE_PACK_ID"
        | "SG_SET_KEEP_ORPHAN"
        | "SG_SET_RESERVED_SIZE"
        | "SG_SET_TIMEOUT" => num(c, arg, 4, true),
        _ if getter => num(c, arg, 4, true),
        "SG_SET_TRANSFORM" => xint(arg & 0xffff_ffff),
        "SG_GET_TIMEOUT" => return Io::NoArg,
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
    fn scsi_requests() {
        let mut m = FakeMemory::default();
        let r = m.put(&0x101u32.to_le_bytes());
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x2284, r], 0, &mut m),
            "ioctl(3, SG_SCSI_RESET, [SG_SCSI_RESET_NO_ESCALATE|SG_SCSI_RESET_DEVICE]) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x2202, 0], 0, &mut m),
            "ioctl(3, SG_GET_TIMEOUT) = 0"
        );
    }
}
