//! ioctl families with small arguments, chosen by the request's type byte as
//! strace 6.1 does: random (`RNDADDENTROPY`), watchdog (`WDIOC_*`), inotify,
//! namespaces (`NS_GET_*`), perf events (`PERF_EVENT_IOC_*`), `TIOCM*` modem
//! lines, LIRC, NBD, counters, and the evdev request names built from numbers
//! (`EVIOCGBIT(EV_KEY, 96)`); block devices, file systems and RTCs
//! have their own files. Anything else goes back to the generic
//! decoder ([`Io::Pass`]).

use crate::syscall::ioctl::Io;
use crate::syscall::printers::{id_value, le32, num_at, xflags};
use crate::syscall::{Ctx, Field, RetFmt, Value};
use crate::value::Ret;
use rtrace_arch::xlat;
use std::borrow::Cow;

const R: u32 = 2;
const W: u32 = 1;

/// `_IOC(dir, type, nr, size)`.
const fn ioc(dir: u32, ty: u32, nr: u32, size: u32) -> u32 {
    (dir << 30) | (size << 16) | (ty << 8) | nr
}

/// Reads `len` bytes for a structure argument as `umove_or_printaddr` does:
/// `Err(value)` is what prints instead (NULL, the address after a failed
/// call, or an unreadable address).
pub(in crate::syscall::ioctl) fn fetch(
    c: &mut Ctx,
    addr: u64,
    len: usize,
) -> Result<Vec<u8>, Value> {
    if addr == 0 {
        return Err(Value::Ptr(0));
    }
    if c.exiting() && c.failed() {
        return Err(Value::Ptr(addr));
    }
    c.read_bytes(addr, len).ok_or(Value::Unreadable(addr))
}

/// A structure the kernel reads and writes back: at entry only checked
/// (`Err(Io::Exit)`, or what prints instead of it); at exit its bytes, or
/// the address when it cannot be read. Read once, at exit: a field the
/// kernel overwrote shows its new value in the part printed as the input.
pub(in crate::syscall::ioctl) fn in_out_bytes(
    c: &mut Ctx,
    arg: u64,
    size: usize,
) -> Result<Vec<u8>, Io> {
    if c.entering() {
        return Err(match fetch(c, arg, size) {
            Ok(_) => Io::Exit,
            Err(v) => Io::Arg(v),
        });
    }
    c.read_bytes(arg, size)
        .ok_or(Io::Arg(Value::Unreadable(arg)))
}

/// `printnum_*`: `[N]` of a `size`-byte number, the address after a failed call.
pub(in crate::syscall::ioctl) fn num(c: &mut Ctx, addr: u64, size: usize, signed: bool) -> Value {
    if c.exiting() && c.failed() && addr != 0 {
        return Value::Ptr(addr);
    }
    num_at(c, addr, size, signed)
}

/// A `%u` field.
pub(in crate::syscall::ioctl) fn u(v: u64) -> Value {
    Value::UInt(v)
}

/// A `%d` field of 32 bits.
pub(in crate::syscall::ioctl) fn d32(v: u64) -> Value {
    Value::Int(v as u32 as i32 as i64)
}

/// A `%#x` field.
pub(in crate::syscall::ioctl) fn x(v: u64) -> Value {
    crate::syscall::printers::xint(v)
}

/// A NUL-terminated char array field (`PRINT_FIELD_CSTRING`).
pub(in crate::syscall::ioctl) fn cstring_field(b: &[u8]) -> Value {
    // Without a NUL the last byte is not printed, then `...` follows.
    let end = b.iter().position(|&ch| ch == 0);
    let bytes = b[..end.unwrap_or(b.len().saturating_sub(1))].to_vec();
    Value::Str(crate::value::StrVal {
        bytes,
        truncated: end.is_none(),
        c_string: true,
    })
}

/// `RND*` requests (type `R`).
pub(in crate::syscall::ioctl) fn random(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        // RNDGETENTCNT
        0x8004_5200 if c.entering() => Io::Exit,
        0x8004_5200 | 0x4004_5201 => Io::Arg(num(c, arg, 4, true)),
        // RNDADDENTROPY
        0x4008_5203 => Io::Arg(match fetch(c, arg, 8) {
            Ok(b) => {
                let n = le32(&b, 4) as u32 as i32;
                let buf = c.buf_value(arg + 8, n.max(0) as u64);
                Value::structure(vec![
                    Field::new("entropy_count", d32(le32(&b, 0))),
                    Field::new("buf_size", Value::Int(n as i64)),
                    Field::new("buf", buf),
                ])
            }
            Err(v) => v,
        }),
        // RNDZAPENTCNT, RNDCLEARPOOL, RNDRESEEDCRNG
        0x5204 | 0x5206 | 0x5207 => Io::NoArg,
        _ => Io::Hex,
    }
}

/// `WDIOC_*` requests (type `W`).
pub(in crate::syscall::ioctl) fn watchdog(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let getters = [
        ioc(R, 0x57, 1, 4),
        ioc(R, 0x57, 2, 4),
        ioc(R, 0x57, 3, 4),
        ioc(R, 0x57, 7, 4),
        ioc(R, 0x57, 9, 4),
        ioc(R, 0x57, 10, 4),
    ];
    if getters.contains(&code) {
        if c.entering() {
            return Io::Exit;
        }
        return Io::Arg(num(c, arg, 4, true));
    }
    match code {
        // WDIOC_SETTIMEOUT, WDIOC_SETPRETIMEOUT
        0xc004_5706 | 0xc004_5708 => Io::Arg(num(c, arg, 4, true)),
        // WDIOC_KEEPALIVE
        0x8004_5705 => Io::NoArg,
        _ => Io::Hex,
    }
}

/// `INOTIFY_IOC_SETNEXTWD` (type `I`).
pub(in crate::syscall::ioctl) fn inotify(_c: &mut Ctx, code: u32, arg: u64) -> Io {
    if code == ioc(W, 0x49, 0, 4) {
        return Io::Arg(Value::Int(arg as i32 as i64));
    }
    Io::Hex
}

/// `NS_GET_*` requests (type 0xb7).
pub(in crate::syscall::ioctl) fn nsfs(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        // NS_GET_USERNS, NS_GET_PARENT: return a descriptor.
        0xb701 | 0xb702 => Io::Ret(None, RetFmt::Fd),
        // NS_GET_NSTYPE
        0xb703 if c.entering() => Io::Exit,
        0xb703 => {
            let r = c.retval();
            match (c.failed(), xlat::SETNS_TYPES.lookup(r as u64)) {
                (false, Some(n)) => Io::Ret(
                    None,
                    RetFmt::Value(Ret::Annotated(Box::new(Ret::Int(r)), Cow::Borrowed(n))),
                ),
                _ => Io::NoArg,
            }
        }
        // NS_GET_OWNER_UID
        0xb704 if c.entering() => Io::Exit,
        0xb704 => Io::Arg(match fetch(c, arg, 4) {
            Ok(b) => Value::Array(vec![id_value(le32(&b, 0) as u32)], false),
            Err(v) => v,
        }),
        _ => Io::Hex,
    }
}

/// `PERF_EVENT_IOC_*` requests (type `$`).
pub(in crate::syscall::ioctl) fn perf(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        // MODIFY_ATTRIBUTES: the attribute structure, as perf_event_open's.
        0x4008_240b => Io::Arg(crate::syscall::perf_event::ioctl_attr(c, arg)),
        // ENABLE, DISABLE, RESET
        0x2400 | 0x2401 | 0x2403 => Io::Arg(xflags(
            c,
            arg & 0xffff_ffff,
            &xlat::PERF_IOCTL_FLAGS,
            "PERF_IOC_FLAG_???",
        )),
        // REFRESH
        0x2402 => Io::Arg(Value::Int(arg as i32 as i64)),
        // PERIOD
        0x4008_2404 => Io::Arg(num(c, arg, 8, false)),
        // SET_OUTPUT, SET_BPF
        0x2405 | 0x4004_2408 => Io::Arg(c.fd_value(arg as i32 as i64)),
        // PAUSE_OUTPUT
        0x4004_2409 => Io::Arg(Value::UInt(arg)),
        // SET_FILTER
        0x4008_2406 => Io::Arg(c.cstr_value(arg)),
        // ID
        0x8008_2407 if c.entering() => Io::Exit,
        0x8008_2407 => Io::Arg(num(c, arg, 8, false)),
        // QUERY_BPF
        0xc008_240a => {
            if c.entering() {
                return match fetch(c, arg, 4) {
                    Ok(_) => Io::Exit,
                    Err(v) => Io::Arg(v),
                };
            }
            let Some(b) = c.read_bytes(arg, 4) else {
                return Io::Arg(Value::Ptr(arg));
            };
            let ids_len = Field::new("ids_len", u(le32(&b, 0)));
            let cnt = c.read_bytes(arg + 4, 4);
            let (false, Some(b)) = (c.failed(), cnt) else {
                return Io::Arg(Value::Struct(vec![ids_len], true));
            };
            let n = le32(&b, 0);
            let ids = crate::syscall::array::array_at(c, arg + 8, n, 4, |_, b| {
                Some(Value::UInt(le32(b, 0)))
            });
            Io::Arg(Value::structure(vec![
                ids_len,
                Field::new("prog_cnt", u(n)),
                Field::new("ids", ids),
            ]))
        }
        _ => Io::Hex,
    }
}

/// Terminal requests handled here (`TIOCM*`); the rest are decoded by name.
pub(in crate::syscall::ioctl) fn term(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        // TIOCMGET
        0x5415 if c.entering() => Io::Exit,
        // TIOCMGET, TIOCMBIS, TIOCMBIC, TIOCMSET
        0x5415..=0x5418 => Io::Arg(match fetch(c, arg, 4) {
            Ok(b) => Value::Array(
                vec![xflags(c, le32(&b, 0), &xlat::MODEM_FLAGS, "TIOCM_???")],
                false,
            ),
            Err(v) => v,
        }),
        _ => Io::Pass,
    }
}

/// `LIRC_*` requests (type `i`): an `unsigned int` at entry (`SET`) or exit
/// (`GET`).
pub(in crate::syscall::ioctl) fn lirc(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(name) = names.iter().find(|n| n.starts_with("LIRC_")) else {
        return Io::Hex;
    };
    let known = [
        "LIRC_GET_FEATURES",
        "LIRC_GET_SEND_MODE",
        "LIRC_GET_REC_MODE",
        "LIRC_GET_REC_RESOLUTION",
        "LIRC_GET_MIN_TIMEOUT",
        "LIRC_GET_MAX_TIMEOUT",
        "LIRC_GET_LENGTH",
        "LIRC_SET_SEND_MODE",
        "LIRC_SET_REC_MODE",
        "LIRC_SET_SEND_CARRIER",
        "LIRC_SET_REC_CARRIER",
        "LIRC_SET_SEND_DUTY_CYCLE",
        "LIRC_SET_TRANSMITTER_MASK",
        "LIRC_SET_REC_TIMEOUT",
        "LIRC_SET_REC_TIMEOUT_REPORTS",
        "LIRC_SET_MEASURE_CARRIER_MODE",
        "LIRC_SET_REC_CARRIER_RANGE",
        "LIRC_SET_WIDEBAND_RECEIVER",
        "LIRC_GET_REC_TIMEOUT",
    ];
    if !known.contains(name) {
        return Io::Hex;
    }
    if c.entering() && code >> 30 == R {
        return Io::Exit;
    }
    Io::Arg(match fetch(c, arg, 4) {
        Ok(b) => {
            let v = le32(&b, 0);
            let item = match *name {
                "LIRC_GET_FEATURES" => xflags(c, v, &xlat::LIRC_FEATURES, "LIRC_CAN_???"),
                "LIRC_GET_SEND_MODE" | "LIRC_GET_REC_MODE" | "LIRC_SET_SEND_MODE"
                | "LIRC_SET_REC_MODE" => c.enum_value(v, &xlat::LIRC_MODES, "LIRC_MODE_???"),
                "LIRC_SET_TRANSMITTER_MASK" => x(v),
                _ => u(v),
            };
            Value::Array(vec![item], false)
        }
        Err(v) => v,
    })
}

/// `NBD_*` requests (type 0xab).
pub(in crate::syscall::ioctl) fn nbd(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(name) = names.iter().find(|n| n.starts_with("NBD_")) else {
        return Io::Hex;
    };
    match *name {
        "NBD_DISCONNECT" | "NBD_CLEAR_SOCK" | "NBD_DO_IT" | "NBD_CLEAR_QUE" | "NBD_PRINT_DEBUG" => {
            Io::NoArg
        }
        "NBD_SET_SOCK" => Io::Arg(c.fd_value(arg as i32 as i64)),
        "NBD_SET_BLKSIZE" | "NBD_SET_SIZE" | "NBD_SET_SIZE_BLOCKS" | "NBD_SET_TIMEOUT" => {
            Io::Arg(Value::UInt(arg))
        }
        "NBD_SET_FLAGS" => Io::Arg(xflags(c, arg, &xlat::NBD_IOCTL_FLAGS, "NBD_IOC_FLAG_???")),
        _ => Io::Hex,
    }
}

/// `COUNTER_*_IOCTL` requests (type `>`).
pub(in crate::syscall::ioctl) fn counter(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        // COUNTER_ADD_WATCH_IOCTL: struct counter_watch.
        0x4006_3e00 => Io::Arg(match fetch(c, arg, 6) {
            Ok(b) => {
                let e = |c: &Ctx, v: u8, t: &rtrace_arch::Xlat, d: &'static str| {
                    c.enum_value(v as u64, t, d)
                };
                let comp = Value::structure(vec![
                    Field::new(
                        "type",
                        e(
                            c,
                            b[0],
                            &xlat::COUNTER_IOCTL_COMPONENT_TYPES,
                            "COUNTER_COMPONENT_???",
                        ),
                    ),
                    Field::new(
                        "scope",
                        e(c, b[1], &xlat::COUNTER_IOCTL_SCOPES, "COUNTER_SCOPE_???"),
                    ),
                    Field::new("parent", u(b[2] as u64)),
                    Field::new("id", u(b[3] as u64)),
                ]);
                Value::structure(vec![
                    Field::new("component", comp),
                    Field::new(
                        "event",
                        e(
                            c,
                            b[4],
                            &xlat::COUNTER_IOCTL_EVENT_TYPES,
                            "COUNTER_EVENT_???",
                        ),
                    ),
                    Field::new("channel", u(b[5] as u64)),
                ])
            }
            Err(v) => v,
        }),
        // COUNTER_ENABLE_EVENTS_IOCTL, COUNTER_DISABLE_EVENTS_IOCTL
        0x3e01 | 0x3e02 => Io::NoArg,
        _ => Io::Hex,
    }
}

/// The evdev request names built from the request number (strace's
/// `evdev_decode_number`); `inner` inside a `-X verbose` comment.
pub(in crate::syscall::ioctl) fn evdev_number(
    c: &Ctx,
    dir: u32,
    nr: u32,
    size: u32,
    inner: bool,
) -> Option<String> {
    let name = |t: &rtrace_arch::Xlat, v: u32, dflt: &'static str| -> String {
        match t.lookup(v as u64) {
            Some(n) if !inner && c.opts.xlat_style == 2 => format!("{v:#x} /* {n} */"),
            Some(n) => n.to_string(),
            None if inner => format!("{v:#x}"),
            None => format!("{v:#x} /* {dflt} */"),
        }
    };
    if dir == W && (0xc0..=0xff).contains(&nr) {
        return Some(format!(
            "EVIOCSABS({})",
            name(&xlat::EVDEV_ABS, nr - 0xc0, "ABS_???")
        ));
    }
    if dir != R {
        return None;
    }
    if (0x20..=0x3f).contains(&nr) {
        let ev = if nr == 0x20 {
            "0".to_string()
        } else {
            name(&xlat::EVDEV_EV, nr - 0x20, "EV_???")
        };
        return Some(format!("EVIOCGBIT({ev}, {size})"));
    }
    if (0x40..=0x7f).contains(&nr) {
        return Some(format!(
            "EVIOCGABS({})",
            name(&xlat::EVDEV_ABS, nr - 0x40, "ABS_???")
        ));
    }
    let n = match nr {
        0x06 => "EVIOCGNAME",
        0x07 => "EVIOCGPHYS",
        0x08 => "EVIOCGUNIQ",
        0x09 => "EVIOCGPROP",
        0x0a => "EVIOCGMTSLOTS",
        0x18 => "EVIOCGKEY",
        0x19 => "EVIOCGLED",
        0x1a => "EVIOCGSND",
        0x1b => "EVIOCGSW",
        _ => return None,
    };
    Some(format!("{n}({size})"))
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn small_families() {
        let mut m = FakeMemory::default();
        let six = m.put(&6i32.to_le_bytes());
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4004_5201, six], -9, &mut m),
            "ioctl(3, RNDADDTOENTCNT, [6]) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x5204, 0], 0, &mut m),
            "ioctl(3, FASTRPC_IOCTL_INIT_ATTACH or RNDZAPENTCNT) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x2400, 1], 0, &mut m),
            "ioctl(3, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) = 0"
        );
        let bits = m.put(&0x6u32.to_le_bytes());
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x5416, bits], 0, &mut m),
            "ioctl(3, TIOCMBIS, [TIOCM_DTR|TIOCM_RTS]) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8018_4520, 0], -9, &mut m),
            "ioctl(3, EVIOCGBIT(0, 24), NULL) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8148_4d11, 0], -9, &mut m),
            "ioctl(3, MIXER_READ(17) or ECCGETLAYOUT, NULL) = -1 EBADF (Bad file descriptor)"
        );
    }
}
