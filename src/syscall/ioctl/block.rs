//! Block device ioctls (type 0x12: `BLK*`, `BLKPG`, `BLKTRACESETUP`) as
//! strace 6.1 prints them.

use crate::syscall::ioctl::misc::{cstring_field, d32, fetch, num, u};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le32, le64};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// Block device requests (type 0x12).
pub(in crate::syscall::ioctl) fn block(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let w = c.arch.word_size();
    let at_entry = |c: &Ctx| c.entering();
    match code {
        // BLKRASET, BLKFRASET
        0x1262 | 0x1264 => Io::Arg(Value::UInt(arg)),
        // BLKSECTGET, BLKROTATIONAL: unsigned short
        0x1267 | 0x127e => {
            if at_entry(c) {
                return Io::Exit;
            }
            Io::Arg(match fetch(c, arg, 2) {
                Ok(b) => Value::Array(vec![u(b[0] as u64 | (b[1] as u64) << 8)], false),
                Err(v) => v,
            })
        }
        // BLKROGET, BLKBSZGET(0x80081270), BLKSSZGET, BLKALIGNOFF
        0x125e | 0x8008_1270 | 0x1268 | 0x127a if at_entry(c) => Io::Exit,
        0x125e | 0x8008_1270 | 0x1268 | 0x127a | 0x125d | 0x4008_1271 => {
            Io::Arg(num(c, arg, 4, true))
        }
        // BLKPBSZGET, BLKIOMIN, BLKIOOPT, BLKDISCARDZEROES, BLKGETZONESZ, BLKGETNRZONES
        0x127b | 0x1278 | 0x1279 | 0x127c | 0x8004_1284 | 0x8004_1285 => {
            if at_entry(c) {
                return Io::Exit;
            }
            Io::Arg(num(c, arg, 4, false))
        }
        // BLKRAGET, BLKFRAGET
        0x1263 | 0x1265 => {
            if at_entry(c) {
                return Io::Exit;
            }
            Io::Arg(num(c, arg, w, true))
        }
        // BLKGETSIZE
        0x1260 => {
            if at_entry(c) {
                return Io::Exit;
            }
            Io::Arg(num(c, arg, w, false))
        }
        // BLKGETSIZE64, BLKGETDISKSEQ
        0x8008_1272 | 0x8008_1280 => {
            if at_entry(c) {
                return Io::Exit;
            }
            Io::Arg(num(c, arg, 8, false))
        }
        // BLKDISCARD, BLKSECDISCARD, BLKZEROOUT
        0x1277 | 0x127d | 0x127f => Io::Arg(match fetch(c, arg, 16) {
            Ok(b) => Value::Array(vec![u(le64(&b, 0)), u(le64(&b, 8))], false),
            Err(v) => v,
        }),
        // BLKPG
        0x1269 => Io::Arg(match fetch(c, arg, 24) {
            Ok(b) => {
                let data = le64(&b, 16);
                let part = match fetch(c, data, 152) {
                    Ok(p) => Value::structure(vec![
                        Field::new("start", Value::Int(le64(&p, 0) as i64)),
                        Field::new("length", Value::Int(le64(&p, 8) as i64)),
                        Field::new("pno", d32(le32(&p, 16))),
                        Field::new("devname", cstring_field(&p[20..84])),
                        Field::new("volname", cstring_field(&p[84..148])),
                    ]),
                    Err(v) => v,
                };
                Value::structure(vec![
                    Field::new(
                        "op",
                        c.enum_value(le32(&b, 0) as u32 as u64, &xlat::BLKPG_OPS, "BLKPG_???"),
                    ),
                    Field::new("flags", d32(le32(&b, 4))),
                    Field::new("datalen", d32(le32(&b, 8))),
                    Field::new("data", part),
                ])
            }
            Err(v) => v,
        }),
        // BLKTRACESETUP
        0xc048_1273 => {
            if c.entering() {
                return match fetch(c, arg, 72) {
                    Ok(_) => Io::Exit,
                    Err(v) => Io::Arg(v),
                };
            }
            let Some(b) = c.read_bytes(arg, 72) else {
                return Io::Arg(Value::Unreadable(arg));
            };
            let pid = le32(&b, 64) as u32 as i32 as i64;
            let mut f = vec![
                Field::new("act_mask", u(le32(&b, 32) & 0xffff)),
                Field::new("buf_size", u(le32(&b, 36))),
                Field::new("buf_nr", u(le32(&b, 40))),
                Field::new("start_lba", u(le64(&b, 48))),
                Field::new("end_lba", u(le64(&b, 56))),
                Field::new("pid", c.pid_value(pid)),
            ];
            if !c.failed() {
                f.push(Field::new("name", cstring_field(&b[0..32])));
            }
            Io::Arg(Value::structure(f))
        }
        // BLKRRPART, BLKFLSBUF, BLKTRACESTART, BLKTRACESTOP, BLKTRACETEARDOWN
        0x125f | 0x1261 | 0x1274 | 0x1275 | 0x1276 => Io::NoArg,
        _ => Io::Hex,
    }
}
