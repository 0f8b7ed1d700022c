//! Console keyboard and display ioctls (type `K`, linux/kd.h) as strace
//! 6.1 prints them: tones with their frequency in a comment, LEDs, modes,
//! screen and Unicode maps, keymap entries (`kb_value=0x41 /* K(KT_LATIN,
//! 'A') */`), function key strings, accent tables, key codes, repeat
//! rates, fonts (`KDFONTOP`, `[GP]IO_FONT[X]`) and colour maps. Getters
//! are decoded at exit; requests that the kernel updates print ` => ` and
//! the new value after a successful call.

pub(in crate::syscall::ioctl) mod font;

use crate::syscall::array::array_at;
use crate::syscall::ctx::{render_flags, signal_name};
use crate::syscall::ioctl::misc::{fetch, in_out_bytes};
use crate::syscall::ioctl::Io;
use crate::syscall::netlink::hexstr_value;
use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use crate::value::StrVal;
use rtrace_arch::xlat;
use std::borrow::Cow;

/// `kb_table` modifier bits of a key map that is not a known table.
static KEYMAP_FLAGS: rtrace_arch::Xlat = rtrace_arch::Xlat {
    name: "kd_keymap_flags",
    kind: rtrace_arch::xlat::XlatKind::Flags,
    entries: &[
        (0x1, "1<<KG_SHIFT"),
        (0x2, "1<<KG_ALTGR"),
        (0x4, "1<<KG_CTRL"),
        (0x8, "1<<KG_ALT"),
        (0x10, "1<<KG_SHIFTL"),
        (0x20, "1<<KG_SHIFTR"),
        (0x40, "1<<KG_CTRLL"),
        (0x80, "1<<KG_CTRLR"),
    ],
};

/// The PIT frequency the kernel divides to make tones.
const PIT_TICK_RATE: u64 = 1_193_182;

/// `v` followed by a `/* text */` comment unless `-X raw`.
fn commented(c: &Ctx, v: Value, text: String) -> Value {
    if c.opts.xlat_style == 1 {
        v
    } else {
        Value::Commented(Box::new(v), Cow::Owned(text))
    }
}

/// `printxval_d`: like an enum, but numbers print in decimal.
fn xval_d(c: &Ctx, v: u32, table: &rtrace_arch::Xlat, dflt: &'static str) -> Value {
    let n = Value::Int(v as i32 as i64);
    match (table.lookup(v as u64), c.opts.xlat_style) {
        (_, 1) => n,
        (Some(s), 0) => Value::sym(s),
        (Some(s), _) => Value::Commented(Box::new(n), Cow::Borrowed(s)),
        (None, _) => Value::Commented(Box::new(n), Cow::Borrowed(dflt)),
    }
}

/// A character as strace's `print_char` with quotes and `\t`-style escapes.
fn chr(b: u8) -> String {
    let mut s = String::from("'");
    match b {
        b'\'' | b'\\' => {
            s.push('\\');
            s.push(b as char);
        }
        0x20..=0x7e => s.push(b as char),
        b'\t'..=b'\r' => {
            s.push('\\');
            s.push(b"tnvfr"[(b - b'\t') as usize] as char);
        }
        _ => s.push_str(&format!("\\x{b:02x}")),
    }
    s.push('\'');
    s
}

/// A buffer of `len` bytes in forced hex; `NULL` for a null pointer.
pub(in crate::syscall::ioctl) fn hexbuf(c: &mut Ctx, addr: u64, len: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    // Like printstr: one byte past the `-s` limit must be readable too.
    let need = len.min(c.opts.string_limit as u64 + 1) as usize;
    if c.read_data(addr, need).is_none() {
        return Value::Unreadable(addr);
    }
    hexstr_value(c, addr, len)
}

/// `[v]` of a getter's value, or what prints instead.
fn boxed(r: Result<Vec<u8>, Value>, f: impl FnOnce(&[u8]) -> Value) -> Value {
    match r {
        Ok(b) => Value::Array(vec![f(&b)], false),
        Err(v) => v,
    }
}

/// The console requests (type `K`), by name.
pub(in crate::syscall::ioctl) fn kd(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(&name) = names
        .iter()
        .find(|n| n.starts_with("K") || n.contains("IO_"))
    else {
        return Io::Hex;
    };
    let get = matches!(
        name,
        "KDGETLED"
            | "KDGKBLED"
            | "KDGKBTYPE"
            | "KDGETMODE"
            | "GIO_SCRNMAP"
            | "GIO_UNISCRNMAP"
            | "KDGKBMODE"
            | "KDGKBDIACR"
            | "KDGKBDIACRUC"
            | "GIO_FONT"
            | "KDGKBMETA"
            | "GIO_CMAP"
    );
    if get && c.entering() {
        return Io::Exit;
    }
    let v = match name {
        "KIOCSOUND" => {
            let freq = PIT_TICK_RATE.checked_div(arg).unwrap_or(0) as u32;
            let t = if freq != 0 {
                format!("{freq} Hz")
            } else {
                "off".into()
            };
            commented(c, Value::UInt(arg), t)
        }
        "KDMKTONE" => {
            let a = arg as u32;
            let (ticks, count) = (a >> 16, a & 0xffff);
            let freq = if ticks != 0 && count != 0 {
                PIT_TICK_RATE as u32 / count
            } else {
                0
            };
            let v = if ticks != 0 {
                Value::sym_owned(format!("{ticks}<<16|{count}"))
            } else {
                Value::UInt(count as u64)
            };
            let t = if freq != 0 {
                format!("{freq} Hz, {ticks} ms")
            } else {
                "off".into()
            };
            commented(c, v, t)
        }
        "KDGETLED" | "KDSETLED" | "KDGKBLED" | "KDSKBLED" => {
            let table = if name.contains("KB") {
                &xlat::KD_DEFAULT_LED_FLAGS
            } else {
                &xlat::KD_LED_FLAGS
            };
            if get {
                let r = fetch(c, arg, 1);
                boxed(r, |b| xflags(c, b[0] as u64, table, "LED_???"))
            } else {
                xflags(c, arg & 0xff, table, "LED_???")
            }
        }
        "KDGKBTYPE" => {
            let r = fetch(c, arg, 1);
            boxed(r, |b| {
                c.enum_value(b[0] as u64, &xlat::KD_KBD_TYPES, "KB_???")
            })
        }
        "KDADDIO" | "KDDELIO" => {
            if (0x3b4..=0x3df).contains(&arg) {
                commented(c, xint(arg), format!("GPFIRST + {}", arg - 0x3b4))
            } else {
                xint(arg)
            }
        }
        "KDSETMODE" => c.enum_value(arg & 0xffff_ffff, &xlat::KD_MODES, "KD_???"),
        "KDGETMODE" => {
            let r = fetch(c, arg, 4);
            boxed(r, |b| c.enum_value(le32(b, 0), &xlat::KD_MODES, "KD_???"))
        }
        "GIO_SCRNMAP" | "PIO_SCRNMAP" | "GIO_FONT" | "PIO_FONT" | "GIO_CMAP" | "PIO_CMAP" => {
            let len = match name {
                "GIO_SCRNMAP" | "PIO_SCRNMAP" => 256,
                "GIO_FONT" | "PIO_FONT" => 8192,
                _ => 48,
            };
            if c.exiting() && c.failed() {
                Value::Ptr(arg)
            } else {
                hexbuf(c, arg, len)
            }
        }
        "GIO_UNISCRNMAP" | "PIO_UNISCRNMAP" => {
            let style = c.opts.xlat_style;
            if c.exiting() && c.failed() {
                return Io::Arg(Value::Ptr(arg));
            }
            array_at(c, arg, 256, 2, |_, e| {
                let v = le16(e, 0);
                let direct = v & !0x1ff == 0xf000;
                let x = render_flags(&xint(v));
                let d = format!("UNI_DIRECT_BASE+{}", render_flags(&xint(v & 0x1ff)));
                Some(Value::sym_owned(match (direct, style) {
                    (false, _) | (_, 1) => x,
                    (true, 0) => d,
                    (true, _) => format!("{x} /* {d} */"),
                }))
            })
        }
        "KDGKBMODE" => {
            let r = fetch(c, arg, 4);
            boxed(r, |b| {
                xval_d(c, le32(b, 0) as u32, &xlat::KD_KBD_MODES, "K_???")
            })
        }
        "KDSKBMODE" => xval_d(c, arg as u32, &xlat::KD_KBD_MODES, "K_???"),
        "KDGKBENT" | "KDSKBENT" => return kbd_entry(c, arg, name == "KDGKBENT"),
        "KDGKBSENT" | "KDSKBSENT" => return kbd_str_entry(c, arg, name == "KDGKBSENT"),
        "KDGKBDIACR" | "KDSKBDIACR" => diacrs(c, arg, false),
        "KDGKBDIACRUC" | "KDSKBDIACRUC" => diacrs(c, arg, true),
        "KDGETKEYCODE" | "KDSETKEYCODE" => return keycode(c, arg, name == "KDGETKEYCODE"),
        "KDSIGACCEPT" => {
            if arg < i32::MAX as u64 {
                let n = Value::Int(arg as i64);
                match (signal_name(arg), c.opts.xlat_style) {
                    (Some(s), 0) => Value::Sym(s),
                    (Some(s), 2) => Value::Commented(Box::new(n), s),
                    _ => n,
                }
            } else {
                Value::UInt(arg)
            }
        }
        "KDKBDREP" => {
            let f = |b: &[u8]| {
                Value::structure(vec![
                    Field::new("delay", Value::Int(le32(b, 0) as u32 as i32 as i64)),
                    Field::new("period", Value::Int(le32(b, 4) as u32 as i32 as i64)),
                ])
            };
            return in_out(c, arg, 8, f, f);
        }
        "KDGKBMETA" => {
            let r = fetch(c, arg, 4);
            boxed(r, |b| {
                c.enum_value(le32(b, 0), &xlat::KD_META_VALS, "K_???")
            })
        }
        "KDSKBMETA" => c.enum_value(arg & 0xffff_ffff, &xlat::KD_META_VALS, "K_???"),
        "PIO_UNIMAPCLR" => match fetch(c, arg, 6) {
            Ok(b) => Value::structure(vec![
                Field::new("advised_hashsize", Value::UInt(le16(&b, 0))),
                Field::new("advised_hashstep", Value::UInt(le16(&b, 2))),
                Field::new("advised_hashlevel", Value::UInt(le16(&b, 4))),
            ]),
            Err(v) => v,
        },
        "GIO_UNIMAP" | "PIO_UNIMAP" => return unimap(c, arg, name == "GIO_UNIMAP"),
        "GIO_FONTX" | "PIO_FONTX" => return font::fontx(c, arg, name == "GIO_FONTX"),
        "KDFONTOP" => return font::font_op(c, arg),
        "KDENABIO" | "KDDISABIO" | "KDMAPDISP" | "KDUNMAPDISP" | "PIO_FONTRESET" => {
            return Io::NoArg
        }
        _ => return Io::Hex,
    };
    Io::Arg(v)
}

/// A structure printed at entry and, after success, ` => ` as the kernel
/// left it (both read at exit).
fn in_out(
    c: &mut Ctx,
    arg: u64,
    size: usize,
    before: impl Fn(&[u8]) -> Value,
    after: impl Fn(&[u8]) -> Value,
) -> Io {
    let b = match in_out_bytes(c, arg, size) {
        Ok(b) => b,
        Err(io) => return io,
    };
    let first = before(&b);
    if c.failed() {
        return Io::Arg(first);
    }
    Io::Arg(Value::Changed(Box::new(first), Box::new(after(&b))))
}

/// `struct kbentry` of `KDGKBENT`/`KDSKBENT`.
fn kbd_entry(c: &mut Ctx, arg: u64, get: bool) -> Io {
    if c.entering() && get {
        return match c.read_bytes(arg, 2) {
            Some(_) => Io::Exit,
            None => Io::Arg(Value::Ptr(arg)),
        };
    }
    let Some(b) = c.read_bytes(arg, 2) else {
        return Io::Arg(Value::Ptr(arg));
    };
    let table = b[0] as u64;
    let kb_table = match xlat::KD_KEY_TABLES.lookup(table) {
        Some(_) => c.enum_value(table, &xlat::KD_KEY_TABLES, ""),
        None => xflags(c, table, &KEYMAP_FLAGS, "K_???"),
    };
    let mut f = vec![
        Field::new("kb_table", kb_table),
        Field::new("kb_index", Value::UInt(b[1] as u64)),
    ];
    if c.exiting() && c.failed() {
        return Io::Arg(Value::structure(f));
    }
    let Some(v) = c.read_bytes(arg + 2, 2) else {
        f.push(Field::new("kb_value", Value::sym("???")));
        return Io::Arg(Value::structure(f));
    };
    let val = le16(&v, 0);
    let x = xint(val);
    if c.opts.xlat_style == 1 {
        f.push(Field::new("kb_value", x));
        return Io::Arg(Value::structure(f));
    }
    let (ktyp, kval) = (val >> 8, (val & 0xff) as u8);
    let table: Option<&rtrace_arch::Xlat> = match ktyp {
        1 => Some(&xlat::KD_KEY_FN_KEYS),
        2 => Some(&xlat::KD_KEY_SPEC_KEYS),
        3 => Some(&xlat::KD_KEY_PAD_KEYS),
        4 => Some(&xlat::KD_KEY_DEAD_KEYS),
        6 => Some(&xlat::KD_KEY_CUR_KEYS),
        7 => Some(&xlat::KD_KEY_SHIFT_KEYS),
        9 => Some(&xlat::KD_KEY_ASCII_KEYS),
        10 => Some(&xlat::KD_KEY_LOCK_KEYS),
        12 => Some(&xlat::KD_KEY_SLOCK_KEYS),
        14 => Some(&xlat::KD_KEY_BRL_KEYS),
        _ => None,
    };
    let text = match table.and_then(|t| t.lookup(val)) {
        Some(s) => s.to_string(),
        None => {
            let ty = xlat::KD_KEY_TYPES
                .lookup(ktyp)
                .map_or_else(|| format!("{ktyp:#x}"), String::from);
            let v = match ktyp {
                0 | 8 | 11 | 13 => chr(kval),
                _ => render_flags(&xint(kval as u64)),
            };
            format!("K({ty}, {v})")
        }
    };
    f.push(Field::new(
        "kb_value",
        Value::Commented(Box::new(x), Cow::Owned(text)),
    ));
    Io::Arg(Value::structure(f))
}

/// `struct kbsentry` of `KDGKBSENT`/`KDSKBSENT`.
fn kbd_str_entry(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let func = if c.entering() {
        match fetch(c, arg, 1) {
            Ok(_) if get => return Io::Exit,
            Ok(b) => b[0],
            Err(v) => return Io::Arg(v),
        }
    } else {
        match c.read_bytes(arg, 1) {
            Some(b) => b[0],
            None => return Io::Arg(Value::Ptr(arg)),
        }
    };
    let mut f = vec![Field::new(
        "kb_func",
        c.enum_value(func as u64, &xlat::KD_KEY_FN_KEY_VALS, "KVAL(K_???)"),
    )];
    if c.exiting() && c.failed() {
        return Io::Arg(Value::structure(f));
    }
    let limit = c.opts.string_limit;
    let s = match c.umovestr(arg + 1, 512) {
        None => Value::sym("???"),
        Some((bytes, nul)) => {
            let full = if nul { bytes.len() + 1 } else { 512 };
            let shown = full.min(limit);
            let truncated = !nul || shown < full;
            let n = shown.min(bytes.len());
            Value::Str(StrVal {
                bytes: bytes[..n].to_vec(),
                truncated,
                c_string: false,
            })
        }
    };
    f.push(Field::new("kb_string", s));
    Io::Arg(Value::structure(f))
}

/// `struct kbdiacrs` (`uc`: `struct kbdiacrsuc`).
fn diacrs(c: &mut Ctx, arg: u64, uc: bool) -> Value {
    let b = match fetch(c, arg, 4) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let cnt = le32(&b, 0);
    let (size, name) = if uc {
        (12, "kbdiacruc")
    } else {
        (3, "kbdiacr")
    };
    let mut arr = array_at(c, arg + 4, cnt.min(256), size, |_, e| {
        Some(if uc {
            Value::structure(vec![
                Field::new("diacr", xint(le32(e, 0))),
                Field::new("base", xint(le32(e, 4))),
                Field::new("result", xint(le32(e, 8))),
            ])
        } else {
            Value::structure(vec![
                Field::new("diacr", Value::sym_owned(chr(e[0]))),
                Field::new("base", Value::sym_owned(chr(e[1]))),
                Field::new("result", Value::sym_owned(chr(e[2]))),
            ])
        })
    });
    if cnt > 256 {
        if let Value::Array(_, more) = &mut arr {
            *more = true;
        }
    }
    Value::structure(vec![
        Field::new("kb_cnt", Value::UInt(cnt)),
        Field {
            name: Cow::Borrowed(name),
            value: arr,
        },
    ])
}

/// `struct kbkeycode` of `KDGETKEYCODE`/`KDSETKEYCODE`.
fn keycode(c: &mut Ctx, arg: u64, get: bool) -> Io {
    let b = match fetch(c, arg, 8) {
        Ok(b) => b,
        Err(v) if c.entering() => return Io::Arg(v),
        Err(_) => match c.read_bytes(arg, 8) {
            Some(b) => b,
            None => return Io::Arg(Value::Ptr(arg)),
        },
    };
    if get && c.entering() {
        return Io::Exit;
    }
    let mut kc = xint(le32(&b, 4));
    if get && !c.failed() {
        kc = Value::Changed(Box::new(kc.clone()), Box::new(kc));
    }
    Io::Arg(Value::structure(vec![
        Field::new("scancode", xint(le32(&b, 0))),
        Field::new("keycode", kc),
    ]))
}

/// `struct unimapdesc` of `GIO_UNIMAP`/`PIO_UNIMAP`.
fn unimap(c: &mut Ctx, arg: u64, get: bool) -> Io {
    const ENOMEM: i64 = 12;
    if c.entering() && get {
        return match fetch(c, arg, 16) {
            Ok(_) => Io::Exit,
            Err(v) => Io::Arg(v),
        };
    }
    let Some(b) = c.read_bytes(arg, 16) else {
        return Io::Arg(if arg == 0 {
            Value::Ptr(0)
        } else {
            Value::Unreadable(arg)
        });
    };
    let cnt = le16(&b, 0);
    let entries = le64(&b, 8);
    let mut ct = Value::UInt(cnt);
    if get {
        ct = Value::Changed(Box::new(ct.clone()), Box::new(ct));
    }
    let ev = if c.exiting() && c.failed() && c.retval() != -ENOMEM {
        Value::Ptr(entries)
    } else {
        array_at(c, entries, cnt, 4, |_, e| {
            Some(Value::structure(vec![
                Field::new("unicode", xint(le16(e, 0))),
                Field::new("fontpos", xint(le16(e, 2))),
            ]))
        })
    };
    Io::Arg(Value::structure(vec![
        Field::new("entry_ct", ct),
        Field::new("entries", ev),
    ]))
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn kd_requests() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4b2f, 1000], 0, &mut m),
            "ioctl(3, KIOCSOUND, 1000 /* 1193 Hz */) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4b3a, 1], 0, &mut m),
            "ioctl(3, KDSETMODE, KD_GRAPHICS) = 0"
        );
        let ent = m.put(&[0, 5, 0x41, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4b47, ent], 0, &mut m),
            "ioctl(3, KDSKBENT, {kb_table=K_NORMTAB, kb_index=5, kb_value=0x41 /* K(KT_LATIN, 'A') */}) = 0"
        );
        let kc = m.put(&[1, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x4b4c, kc], 0, &mut m),
            "ioctl(3, KDGETKEYCODE, {scancode=0x1, keycode=0x2 => 0x2}) = 0"
        );
    }
}
