//! PTP clock ioctls (`PTP_CLOCK_GETCAPS`, `PTP_EXTTS_REQUEST`,
//! `PTP_PEROUT_REQUEST`, `PTP_SYS_OFFSET*`, `PTP_PIN_[GS]ETFUNC`, and their
//! `…2` twins) as strace 6.1's `ptp.c` prints them, with the times of day
//! commented (`/* 2044-05-01T01:28:21.999999999+0000 */`) and reserved
//! words shown only when not zero.

use crate::syscall::ioctl::misc::{cstring_field, fetch};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le32, le64, with_time, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// `struct ptp_clock_time` at `b` (`print_ptp_clock_time`): `rtc` adds the
/// time-of-day comment (not under `-X raw`).
fn clock_time(c: &Ctx, b: &[u8], rtc: bool) -> Value {
    let sec = le64(b, 0) as i64;
    let nsec = le32(b, 8);
    let mut f = vec![
        Field::new("sec", Value::Int(sec)),
        Field::new("nsec", Value::UInt(nsec)),
    ];
    let rsv = le32(b, 12);
    if rsv != 0 {
        f.push(Field::new("reserved", xint(rsv)));
    }
    let v = Value::structure(f);
    if rtc && c.opts.xlat_style != 1 {
        with_time(v, sec, nsec)
    } else {
        v
    }
}

/// `, rsv=[…]` when any of the `n` words at `b` is set.
fn rsv(f: &mut Vec<Field>, b: &[u8], n: usize) {
    let words: Vec<u64> = (0..n).map(|i| le32(b, 4 * i)).collect();
    if words.iter().any(|&w| w != 0) {
        f.push(Field::new(
            "rsv",
            Value::Array(words.into_iter().map(xint).collect(), false),
        ));
    }
}

/// An array of `n` items of `size` bytes at `b`, cut at `-s` without `-v`.
fn local_array(c: &Ctx, b: &[u8], n: usize, size: usize, item: impl Fn(&[u8]) -> Value) -> Value {
    let lim = if c.opts.verbose {
        n
    } else {
        c.opts.string_limit.min(n)
    };
    Value::Array(
        (0..lim)
            .map(|i| item(&b[i * size..(i + 1) * size]))
            .collect(),
        lim < n,
    )
}

/// The PTP requests (type `=`), by name.
pub(in crate::syscall::ioctl) fn ptp(c: &mut Ctx, code: u32, arg: u64) -> Io {
    if !c.opts.deref {
        return Io::Hex;
    }
    let names = crate::syscall::ioctl::request_names(code);
    let Some(name) = names.iter().find(|n| n.starts_with("PTP_")) else {
        return Io::Hex;
    };
    let two = name.ends_with('2');
    let base = name.trim_end_matches('2');
    match base {
        "PTP_CLOCK_GETCAPS" => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(match fetch(c, arg, 80) {
                Ok(b) => {
                    let mut f: Vec<Field> = [
                        "max_adj",
                        "n_alarm",
                        "n_ext_ts",
                        "n_per_out",
                        "pps",
                        "n_pins",
                        "cross_timestamping",
                        "adjust_phase",
                    ]
                    .iter()
                    .enumerate()
                    .map(|(i, n)| Field::new(n, Value::Int(le32(&b, 4 * i) as u32 as i32 as i64)))
                    .collect();
                    rsv(&mut f, &b[32..], 12);
                    Value::structure(f)
                }
                Err(v) => v,
            })
        }
        "PTP_EXTTS_REQUEST" => Io::Arg(match fetch(c, arg, 16) {
            Ok(b) => {
                let mut f = vec![
                    Field::new("index", Value::UInt(le32(&b, 0))),
                    Field::new(
                        "flags",
                        xflags(c, le32(&b, 4), &xlat::PTP_EXTTS_FLAGS, "PTP_???"),
                    ),
                ];
                if two {
                    rsv(&mut f, &b[8..], 2);
                }
                Value::structure(f)
            }
            Err(v) => v,
        }),
        "PTP_PEROUT_REQUEST" => Io::Arg(match fetch(c, arg, 56) {
            Ok(b) => {
                const PHASE: u64 = 0x4;
                const DUTY_CYCLE: u64 = 0x2;
                let flags = le32(&b, 36);
                let mut f = vec![if flags & PHASE != 0 {
                    Field::new("phase", clock_time(c, &b[0..16], false))
                } else {
                    Field::new("start", clock_time(c, &b[0..16], true))
                }];
                f.push(Field::new("period", clock_time(c, &b[16..32], false)));
                f.push(Field::new("index", Value::UInt(le32(&b, 32))));
                f.push(Field::new(
                    "flags",
                    xflags(c, flags, &xlat::PTP_PEROUT_FLAGS, "PTP_PEROUT_???"),
                ));
                if flags & DUTY_CYCLE != 0 {
                    f.push(Field::new("on", clock_time(c, &b[40..56], false)));
                } else if two {
                    rsv(&mut f, &b[40..], 4);
                }
                Value::structure(f)
            }
            Err(v) => v,
        }),
        "PTP_ENABLE_PPS" => Io::Arg(xint(arg)),
        "PTP_SYS_OFFSET" | "PTP_SYS_OFFSET_EXTENDED" => {
            let ext = base == "PTP_SYS_OFFSET_EXTENDED";
            let size = if ext { 1216 } else { 832 };
            if c.entering() {
                return match fetch(c, arg, size) {
                    Ok(_) => Io::Exit,
                    Err(v) => Io::Arg(v),
                };
            }
            let Some(b) = c.read_bytes(arg, size) else {
                return Io::Arg(Value::Unreadable(arg));
            };
            let n = le32(&b, 0);
            let mut f = vec![Field::new("n_samples", Value::UInt(n))];
            rsv(&mut f, &b[4..], 3);
            if !c.failed() {
                let n = n.min(25) as usize;
                let ts = if ext {
                    local_array(c, &b[16..], n, 48, |t| {
                        Value::Array(
                            (0..3)
                                .map(|j| clock_time(c, &t[16 * j..16 * j + 16], true))
                                .collect(),
                            false,
                        )
                    })
                } else {
                    local_array(c, &b[16..], 2 * n + 1, 16, |t| clock_time(c, t, true))
                };
                f.push(Field::new("ts", ts));
            }
            Io::Arg(Value::structure(f))
        }
        "PTP_PIN_GETFUNC" | "PTP_PIN_SETFUNC" => {
            let get = base == "PTP_PIN_GETFUNC";
            if c.entering() && get {
                return match fetch(c, arg, 96) {
                    Ok(_) => Io::Exit,
                    Err(v) => Io::Arg(v),
                };
            }
            if arg == 0 {
                return Io::Arg(Value::Ptr(0));
            }
            let Some(b) = c.read_bytes(arg, 96) else {
                return Io::Arg(Value::Unreadable(arg));
            };
            let mut f = vec![Field::new("index", Value::UInt(le32(&b, 64)))];
            if get && two {
                rsv(&mut f, &b[76..], 5);
            }
            if get && c.failed() {
                return Io::Arg(Value::structure(f));
            }
            if get {
                f.push(Field::new("name", cstring_field(&b[0..64])));
            }
            f.push(Field::new(
                "func",
                c.enum_value(le32(&b, 68), &xlat::PTP_PIN_FUNCS, "PTP_PF_???"),
            ));
            f.push(Field::new("chan", Value::UInt(le32(&b, 72))));
            if !get && two {
                rsv(&mut f, &b[76..], 5);
            }
            Io::Arg(Value::structure(f))
        }
        "PTP_SYS_OFFSET_PRECISE" => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(match fetch(c, arg, 64) {
                Ok(b) => {
                    let mut f = vec![
                        Field::new("device", clock_time(c, &b[0..16], true)),
                        Field::new("sys_realtime", clock_time(c, &b[16..32], true)),
                        Field::new("sys_monoraw", clock_time(c, &b[32..48], false)),
                    ];
                    rsv(&mut f, &b[48..], 4);
                    Value::structure(f)
                }
                Err(v) => v,
            })
        }
        _ => Io::Hex,
    }
}
