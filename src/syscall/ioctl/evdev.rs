//! Input event device ioctls (type `E`) as strace 6.1 prints them: the
//! fixed requests (`EVIOCGID`, `EVIOCGREP`, `EVIOCSKEYCODE_V2`,
//! `EVIOCSFF`, …), the ones numbered by an event type or axis
//! (`EVIOCGBIT(EV_KEY, 96)`, `EVIOCGABS(ABS_X)`), and the bit sets the
//! kernel fills (`[KEY_1 KEY_2 ...]`, followed by the raw words under
//! `-X verbose` and alone under `-X raw`). Read requests are decoded at
//! exit, write requests at entry.

use crate::syscall::array::array_at;
use crate::syscall::ctx::render_flags;
use crate::syscall::ioctl::misc::{fetch, num};
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le16, le32, le64, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Xlat};

const R: u32 = 2;
const W: u32 = 1;

/// `_IOC(dir, 'E', nr, size)`.
const fn ioc(dir: u32, nr: u32, size: u32) -> u32 {
    (dir << 30) | (size << 16) | (0x45 << 8) | nr
}

const EVIOCGVERSION: u32 = ioc(R, 0x01, 4);
const EVIOCGID: u32 = ioc(R, 0x02, 8);
const EVIOCGREP: u32 = ioc(R, 0x03, 8);
const EVIOCSREP: u32 = ioc(W, 0x03, 8);
const EVIOCGKEYCODE: u32 = ioc(R, 0x04, 8);
const EVIOCGKEYCODE_V2: u32 = ioc(R, 0x04, 40);
const EVIOCSKEYCODE: u32 = ioc(W, 0x04, 8);
const EVIOCSKEYCODE_V2: u32 = ioc(W, 0x04, 40);
const EVIOCSFF: u32 = ioc(W, 0x80, 48);
const EVIOCRMFF: u32 = ioc(W, 0x81, 4);
const EVIOCGEFFECTS: u32 = ioc(R, 0x84, 4);
const EVIOCGRAB: u32 = ioc(W, 0x90, 4);
const EVIOCREVOKE: u32 = ioc(W, 0x91, 4);
const EVIOCSCLOCKID: u32 = ioc(W, 0xa0, 4);

/// A `%u` value.
fn u(v: u64) -> Value {
    Value::UInt(v)
}

/// A signed 16-bit field.
fn d16(v: u64) -> Value {
    Value::Int(v as u16 as i16 as i64)
}

/// The evdev requests (type `E`).
pub(in crate::syscall::ioctl) fn evdev(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code >> 30 {
        R if c.entering() => Io::Exit,
        R => Io::Arg(read_request(c, code, arg)),
        W => Io::Arg(write_request(c, code, arg)),
        _ => Io::Hex,
    }
}

/// A request the kernel answers by filling the argument (at exit).
fn read_request(c: &mut Ctx, code: u32, arg: u64) -> Value {
    match code {
        EVIOCGVERSION => {
            return match num(c, arg, 4, false) {
                Value::Array(v, m) => Value::Array(
                    v.into_iter()
                        .map(|x| match x {
                            Value::UInt(n) => xint(n),
                            o => o,
                        })
                        .collect(),
                    m,
                ),
                o => o,
            }
        }
        EVIOCGEFFECTS => return num(c, arg, 4, false),
        EVIOCGID => {
            return match fetch(c, arg, 8) {
                Ok(b) => Value::structure(
                    ["bustype", "vendor", "product", "version"]
                        .iter()
                        .enumerate()
                        .map(|(i, n)| Field::new(n, u(le16(&b, 2 * i))))
                        .collect(),
                ),
                Err(v) => v,
            }
        }
        EVIOCGREP => return pair(c, arg),
        EVIOCGKEYCODE => return keycode(c, arg),
        EVIOCGKEYCODE_V2 => return keycode_v2(c, arg),
        _ => {}
    }
    let nr = code & 0xff;
    let size = (code >> 16) & 0x3fff;
    match nr {
        0x0a => mtslots(c, size, arg),
        0x06..=0x08 => {
            if c.failed() {
                Value::Ptr(arg)
            } else {
                let n = c.retval().max(0) as u64;
                c.buf_value(arg, n)
            }
        }
        0x09 => bitset(c, arg, &xlat::EVDEV_PROP, 0x1f, "PROP_???"),
        0x1a => bitset(c, arg, &xlat::EVDEV_SND, 0x07, "SND_???"),
        0x1b => bitset(c, arg, &xlat::EVDEV_SWITCH, 0x10, "SW_???"),
        0x18 => bitset(c, arg, &xlat::EVDEV_KEYCODE, 0x2ff, "KEY_???"),
        0x19 => bitset(c, arg, &xlat::EVDEV_LEDS, 0x0f, "LED_???"),
        0x40..=0x7f => absinfo(c, size, arg),
        0x20..=0x3f => bits(c, nr & 0x1f, arg),
        _ => Value::Ptr(arg),
    }
}

/// A request that passes the argument to the kernel (at entry).
fn write_request(c: &mut Ctx, code: u32, arg: u64) -> Value {
    match code {
        EVIOCSREP => pair(c, arg),
        EVIOCSKEYCODE => keycode(c, arg),
        EVIOCSKEYCODE_V2 => keycode_v2(c, arg),
        EVIOCRMFF => Value::Int(arg as i32 as i64),
        EVIOCGRAB | EVIOCREVOKE => u(arg),
        EVIOCSCLOCKID => num(c, arg, 4, false),
        EVIOCSFF => ff_effect(c, arg),
        _ if (0xc0..=0xff).contains(&(code & 0xff)) => absinfo(c, (code >> 16) & 0x3fff, arg),
        _ => Value::Ptr(arg),
    }
}

/// `[a, b]` of two `unsigned int`s (`printpair_int` with `%u`).
fn pair(c: &mut Ctx, arg: u64) -> Value {
    match fetch(c, arg, 8) {
        Ok(b) => Value::Array(vec![u(le32(&b, 0)), u(le32(&b, 4))], false),
        Err(v) => v,
    }
}

/// `[scancode, KEY_*]`.
fn keycode(c: &mut Ctx, arg: u64) -> Value {
    match fetch(c, arg, 8) {
        Ok(b) => Value::Array(
            vec![
                u(le32(&b, 0)),
                c.enum_value(le32(&b, 4), &xlat::EVDEV_KEYCODE, "KEY_???"),
            ],
            false,
        ),
        Err(v) => v,
    }
}

/// `struct input_keymap_entry`.
fn keycode_v2(c: &mut Ctx, arg: u64) -> Value {
    let b = match fetch(c, arg, 40) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let mut f = vec![
        Field::new("flags", u(b[0] as u64)),
        Field::new("len", u(b[1] as u64)),
    ];
    if !c.opts.verbose {
        return Value::Struct(f, true);
    }
    f.push(Field::new("index", u(le16(&b, 2))));
    f.push(Field::new(
        "keycode",
        c.enum_value(le32(&b, 4), &xlat::EVDEV_KEYCODE, "KEY_???"),
    ));
    f.push(Field::new(
        "scancode",
        Value::Array(b[8..40].iter().map(|&x| xint(x as u64)).collect(), false),
    ));
    Value::structure(f)
}

/// `struct input_absinfo` of a request whose size is `sz`.
fn absinfo(c: &mut Ctx, sz: u32, arg: u64) -> Value {
    const ORIG: u32 = 20;
    const RES: u32 = 24;
    if sz < ORIG {
        return Value::Ptr(arg);
    }
    let b = match fetch(c, arg, sz.min(RES) as usize) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let mut f = vec![
        Field::new("value", u(le32(&b, 0))),
        Field::new("minimum", u(le32(&b, 4))),
    ];
    if !c.opts.verbose {
        return Value::Struct(f, true);
    }
    f.push(Field::new("maximum", u(le32(&b, 8))));
    f.push(Field::new("fuzz", u(le32(&b, 12))));
    f.push(Field::new("flat", u(le32(&b, 16))));
    let mut more = false;
    if sz > ORIG {
        if sz >= RES {
            f.push(Field::new("resolution", u(le32(&b, 20))));
        }
        more = sz != RES;
    }
    Value::Struct(f, more)
}

/// `{code=ABS_MT_*, values=[…]}` of `EVIOCGMTSLOTS(size)`.
fn mtslots(c: &mut Ctx, size: u32, arg: u64) -> Value {
    let n = size / 4;
    if n == 0 {
        return Value::Ptr(arg);
    }
    let b = match fetch(c, arg, 4) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let code = c.enum_value(le32(&b, 0), &xlat::EVDEV_MTSLOTS, "ABS_MT_???");
    let values = array_at(c, arg + 4, (n - 1) as u64, 4, |_, e| {
        Some(Value::Int(le32(e, 0) as u32 as i32 as i64))
    });
    Value::structure(vec![Field::new("code", code), Field::new("values", values)])
}

/// `EVIOCGBIT(ev, len)`: the bit set of event type `ev`.
fn bits(c: &mut Ctx, ev: u32, arg: u64) -> Value {
    let (table, max, dflt): (&Xlat, u32, &'static str) = match ev {
        0 => (&xlat::EVDEV_EV, 0x1f, "EV_???"),
        1 => (&xlat::EVDEV_KEYCODE, 0x2ff, "KEY_???"),
        2 => (&xlat::EVDEV_RELATIVE_AXES, 0x0f, "REL_???"),
        3 => (&xlat::EVDEV_ABS, 0x3f, "ABS_???"),
        4 => (&xlat::EVDEV_MISC, 0x07, "MSC_???"),
        5 => (&xlat::EVDEV_SWITCH, 0x10, "SW_???"),
        0x11 => (&xlat::EVDEV_LEDS, 0x0f, "LED_???"),
        0x12 => (&xlat::EVDEV_SND, 0x07, "SND_???"),
        0x14 => (&xlat::EVDEV_AUTOREPEAT, 0x01, "REP_???"),
        0x15 => (&xlat::EVDEV_FF_TYPES, 0x7f, "FF_???"),
        0x16 => return num(c, arg, 4, true),
        0x17 => (&xlat::EVDEV_FF_STATUS, 0x01, "FF_STATUS_???"),
        _ => return Value::Ptr(arg),
    };
    bitset(c, arg, table, max, dflt)
}

/// strace's `decode_bitset`: the set bits of the `retval` bytes the
/// kernel wrote (at most `max` bits), named from `table`; at most four
/// names without `-v`; the raw words too under `-X verbose` (in a
/// comment) and alone under `-X raw`.
fn bitset(c: &mut Ctx, arg: u64, table: &Xlat, max: u32, dflt: &'static str) -> Value {
    let w = c.arch.word_size() as u64;
    let rval = c.retval() as u64;
    let size_bits = if rval > (max / 8) as u64 {
        max as u64
    } else {
        rval * 8
    };
    let size = size_bits.div_ceil(8).div_ceil(w) * w;
    if c.failed() || size == 0 {
        return Value::Ptr(arg);
    }
    let b = match fetch(c, arg, size as usize) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let style = c.opts.xlat_style;
    let mut s = String::new();
    if style != 1 {
        let set: Vec<u64> = (0..size_bits)
            .filter(|&i| b[(i / 8) as usize] & (1 << (i % 8)) != 0)
            .collect();
        s.push('[');
        for (k, &i) in set.iter().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            if k >= 4 && !c.opts.verbose {
                s.push_str("...");
                break;
            }
            s.push_str(&render_flags(&c.enum_value(i, table, dflt)));
        }
        s.push(']');
    }
    if style != 0 {
        let words: Vec<String> = b
            .chunks(w as usize)
            .map(|ch| {
                let v = if w == 8 { le64(ch, 0) } else { le32(ch, 0) };
                render_flags(&xint(v))
            })
            .collect();
        let arr = format!("[{}]", words.join(", "));
        if style == 2 {
            s.push_str(&format!(" /* {arr} */"));
        } else {
            s = arr;
        }
    }
    Value::sym_owned(s)
}

/// `struct ff_envelope` at `b`.
fn envelope(b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("attack_length", u(le16(b, 0))),
        Field::new("attack_level", u(le16(b, 2))),
        Field::new("fade_length", u(le16(b, 4))),
        Field::new("fade_level", xint(le16(b, 6))),
    ])
}

/// `struct ff_effect` of `EVIOCSFF`.
fn ff_effect(c: &mut Ctx, arg: u64) -> Value {
    let b = match fetch(c, arg, 48) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let ty = le16(&b, 0);
    let mut f = vec![
        Field::new("type", c.enum_value(ty, &xlat::EVDEV_FF_TYPES, "FF_???")),
        Field::new("id", d16(le16(&b, 2))),
        Field::new("direction", u(le16(&b, 4))),
    ];
    if !c.opts.verbose {
        return Value::Struct(f, true);
    }
    f.push(Field::new(
        "trigger",
        Value::structure(vec![
            Field::new("button", u(le16(&b, 6))),
            Field::new("interval", u(le16(&b, 8))),
        ]),
    ));
    f.push(Field::new(
        "replay",
        Value::structure(vec![
            Field::new("length", u(le16(&b, 10))),
            Field::new("delay", u(le16(&b, 12))),
        ]),
    ));
    let e = &b[16..];
    match ty {
        // FF_CONSTANT
        0x52 => f.push(Field::new(
            "constant",
            Value::structure(vec![
                Field::new("level", d16(le16(e, 0))),
                Field::new("envelope", envelope(&e[2..10])),
            ]),
        )),
        // FF_RAMP
        0x57 => f.push(Field::new(
            "ramp",
            Value::structure(vec![
                Field::new("start_level", d16(le16(e, 0))),
                Field::new("end_level", d16(le16(e, 2))),
                Field::new("envelope", envelope(&e[4..12])),
            ]),
        )),
        // FF_PERIODIC
        0x51 => f.push(Field::new(
            "periodic",
            Value::structure(vec![
                Field::new("waveform", u(le16(e, 0))),
                Field::new("period", u(le16(e, 2))),
                Field::new("magnitude", d16(le16(e, 4))),
                Field::new("offset", d16(le16(e, 6))),
                Field::new("phase", u(le16(e, 8))),
                Field::new("envelope", envelope(&e[10..18])),
                Field::new("custom_len", u(le32(e, 20))),
                Field::new("custom_data", Value::Ptr(le64(e, 24))),
            ]),
        )),
        // FF_RUMBLE
        0x50 => f.push(Field::new(
            "rumble",
            Value::structure(vec![
                Field::new("strong_magnitude", u(le16(e, 0))),
                Field::new("weak_magnitude", u(le16(e, 2))),
            ]),
        )),
        _ => {}
    }
    Value::structure(f)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::DecodeOpts;

    #[test]
    fn evdev_requests() {
        let mut m = FakeMemory::default();
        let id = m.put(&[1, 0, 2, 0, 3, 0, 4, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8008_4502, id], 0, &mut m),
            "ioctl(3, EVIOCGID, {bustype=1, vendor=2, product=3, version=4}) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8008_4502, id], -9, &mut m),
            format!("ioctl(3, EVIOCGID, {id:#x}) = -1 EBADF (Bad file descriptor)")
        );
        let kc = m.put(&[5, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4008_4504, kc], 0, &mut m),
            "ioctl(3, EVIOCSKEYCODE, [5, KEY_1]) = 0"
        );
        // EV_KEY and EV_ABS set, 8 bytes returned.
        let bits = m.put(&[0x0a, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8008_4520, bits], 8, &mut m),
            "ioctl(3, EVIOCGBIT(0, 8), [EV_KEY EV_ABS]) = 8"
        );
        let opts = DecodeOpts {
            xlat_style: 2,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(ioctl, "ioctl", &[3, 0x8008_4520, bits], 8, &mut m, &opts),
            "ioctl(3, 0x80084520 /* EVIOCGBIT(0, 8) */, [0x1 /* EV_KEY */ 0x3 /* EV_ABS */] /* [0xa] */) = 8"
        );
        let abs = m.put(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8014_4540, abs], 0, &mut m),
            "ioctl(3, EVIOCGABS(ABS_X), {value=1, minimum=2, ...}) = 0"
        );
    }
}
