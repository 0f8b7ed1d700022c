//! Real-time clock ioctls (`RTC_*`, type `p`): `struct rtc_time`,
//! `struct rtc_wkalrm` and `struct rtc_param` as strace 6.1 prints them.

use crate::syscall::ioctl::misc::{d32, fetch, num, u, x};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le32, le64, xflags};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// `struct rtc_time` (`print_rtc_time`): the date, `...` without `-v`.
pub(in crate::syscall::ioctl) fn rtc_time(c: &Ctx, b: &[u8]) -> Value {
    let names = [
        "tm_sec", "tm_min", "tm_hour", "tm_mday", "tm_mon", "tm_year", "tm_wday", "tm_yday",
        "tm_isdst",
    ];
    let n = if c.opts.verbose { 9 } else { 6 };
    let f = names[..n]
        .iter()
        .enumerate()
        .map(|(i, name)| Field::new(name, d32(le32(b, 4 * i))))
        .collect();
    Value::Struct(f, !c.opts.verbose)
}

/// `RTC_PARAM_FEATURES` bits as strace names them: `1<<RTC_FEATURE_ALARM|…`.
pub(in crate::syscall::ioctl) fn rtc_features(c: &Ctx, v: u64) -> Value {
    if v == 0 || c.opts.xlat_style == 1 {
        return x(v);
    }
    let mut names = Vec::new();
    let mut rest = v;
    for &(bit, name) in xlat::RTC_FEATURES.entries {
        if bit < 64 && v & (1 << bit) != 0 {
            names.push(format!("1<<{name}"));
            rest &= !(1 << bit);
        }
    }
    if names.is_empty() {
        return Value::Commented(Box::new(x(v)), "1<<RTC_FEATURE_???".into());
    }
    if rest != 0 {
        names.push(format!("{rest:#x}"));
    }
    let text = names.join("|");
    if c.opts.xlat_style == 2 {
        Value::Commented(Box::new(x(v)), text.into())
    } else {
        Value::sym_owned(text)
    }
}

/// `struct rtc_param` (`decode_rtc_param`): `entry` is the part printed
/// before the call, else the value after it.
pub(in crate::syscall::ioctl) fn rtc_param(c: &Ctx, b: &[u8], entry: bool, get: bool) -> Value {
    let param = le64(b, 0);
    let mut f = Vec::new();
    if entry {
        f.push(Field::new(
            "param",
            c.enum_value(param, &xlat::RTC_PARAMS, "RTC_PARAM_???"),
        ));
    }
    if entry ^ get {
        let v = le64(b, 8);
        f.push(match param {
            0 => Field::new("uvalue", rtc_features(c, v)),
            1 => Field::new("svalue", Value::Int(v as i64)),
            2 => Field::new(
                "uvalue",
                c.enum_value(v, &xlat::RTC_BACKUP_SWITCH_MODES, "RTC_BSM_???"),
            ),
            _ => Field::new("uvalue", x(v)),
        });
    }
    if entry {
        f.push(Field::new("index", u(le32(b, 16))));
    }
    let pad = le32(b, 20);
    if pad != 0 {
        f.push(Field::new("__pad", x(pad)));
    }
    Value::structure(f)
}

/// `RTC_*` requests (type `p`).
pub(in crate::syscall::ioctl) fn rtc(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(name) = names.iter().find(|n| n.starts_with("RTC_")) else {
        return Io::Hex;
    };
    let getter = matches!(
        *name,
        "RTC_ALM_READ"
            | "RTC_RD_TIME"
            | "RTC_IRQP_READ"
            | "RTC_EPOCH_READ"
            | "RTC_WKALM_RD"
            | "RTC_PLL_GET"
            | "RTC_VL_READ"
    );
    if getter && c.entering() {
        return Io::Exit;
    }
    let w = c.arch.word_size();
    match *name {
        "RTC_ALM_READ" | "RTC_RD_TIME" | "RTC_ALM_SET" | "RTC_SET_TIME" => {
            Io::Arg(match fetch(c, arg, 36) {
                Ok(b) => rtc_time(c, &b),
                Err(v) => v,
            })
        }
        "RTC_IRQP_SET" | "RTC_EPOCH_SET" => Io::Arg(Value::UInt(arg)),
        "RTC_IRQP_READ" | "RTC_EPOCH_READ" => Io::Arg(num(c, arg, w, false)),
        "RTC_WKALM_RD" | "RTC_WKALM_SET" => Io::Arg(match fetch(c, arg, 40) {
            Ok(b) => Value::structure(vec![
                Field::new("enabled", u(b[0] as u64)),
                Field::new("pending", u(b[1] as u64)),
                Field::new("time", rtc_time(c, &b[4..40])),
            ]),
            Err(v) => v,
        }),
        "RTC_PLL_GET" | "RTC_PLL_SET" => Io::Arg(match fetch(c, arg, 32) {
            Ok(b) => {
                let mut f: Vec<Field> = [
                    "pll_ctrl",
                    "pll_value",
                    "pll_max",
                    "pll_min",
                    "pll_posmult",
                    "pll_negmult",
                ]
                .iter()
                .enumerate()
                .map(|(i, n)| Field::new(n, d32(le32(&b, 4 * i))))
                .collect();
                f.push(Field::new("pll_clock", Value::Int(le64(&b, 24) as i64)));
                Value::structure(f)
            }
            Err(v) => v,
        }),
        "RTC_VL_READ" => Io::Arg(match fetch(c, arg, 4) {
            Ok(b) => Value::Array(
                vec![xflags(c, le32(&b, 0), &xlat::RTC_VL_FLAGS, "RTC_VL_???")],
                false,
            ),
            Err(v) => v,
        }),
        "RTC_PARAM_GET" | "RTC_PARAM_SET" => {
            let get = *name == "RTC_PARAM_GET";
            if c.entering() {
                return match fetch(c, arg, 24) {
                    Ok(b) if get => {
                        let _ = b;
                        Io::Exit
                    }
                    Ok(b) => Io::Arg(rtc_param(c, &b, true, false)),
                    Err(v) => Io::Arg(v),
                };
            }
            // RTC_PARAM_GET at exit: the request, then what the kernel wrote.
            let Some(b) = c.read_bytes(arg, 24) else {
                return Io::Arg(Value::Unreadable(arg));
            };
            let before = rtc_param(c, &b, true, true);
            let after = if c.failed() {
                Value::Ptr(arg)
            } else {
                rtc_param(c, &b, false, true)
            };
            Io::Arg(Value::Changed(Box::new(before), Box::new(after)))
        }
        "RTC_AIE_ON" | "RTC_AIE_OFF" | "RTC_UIE_ON" | "RTC_UIE_OFF" | "RTC_PIE_ON"
        | "RTC_PIE_OFF" | "RTC_WIE_ON" | "RTC_WIE_OFF" | "RTC_VL_CLR" => Io::NoArg,
        _ => Io::Hex,
    }
}
