//! Kernel key management: add_key, request_key and keyctl (the commands
//! strace 6.1 decodes: keyring ids, descriptions, payloads, permissions,
//! default keyrings, the Diffie-Hellman and public-key parameter structures
//! and the capability bytes), as strace's `keyctl.c` prints them.

use crate::syscall::array::{array_at, iov_upto};
use crate::syscall::printers::{id_value, le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("add_key", add_key),
    ("request_key", request_key),
    ("keyctl", keyctl),
];

/// A key serial: `KEY_SPEC_PROCESS_KEYRING` or the number.
fn key_arg(c: &mut Ctx, i: usize) {
    let id = c.arg_int(i) as i64;
    let v = int_xval(c, id, &xlat::KEY_SPEC, "");
    c.push(v);
}

/// strace's `printxval_d`-style constant: the name, or the decimal number
/// (`-X raw`), or both (`-1 /* KEY_SPEC_THREAD_KEYRING */`); an unknown
/// value with `dflt` as its comment when given.
fn int_xval(c: &Ctx, v: i64, table: &rtrace_arch::Xlat, dflt: &'static str) -> Value {
    match (table.lookup(v as u64), c.opts.xlat_style) {
        (Some(n), 0) => Value::sym(n),
        (Some(n), 2) => Value::Commented(Box::new(Value::Int(v)), Cow::Borrowed(n)),
        (Some(_), _) => Value::Int(v),
        (None, 1) => Value::Int(v),
        (None, _) if !dflt.is_empty() => {
            Value::Commented(Box::new(Value::Int(v)), Cow::Borrowed(dflt))
        }
        (None, _) => Value::Int(v),
    }
}

/// strace's `print_err(err, false)`: an errno by name.
fn errno_value(c: &Ctx, e: u64) -> Value {
    match (rtrace_arch::tables::errno_name(e), c.opts.xlat_style) {
        (Some(n), 0) => Value::sym(n),
        (Some(n), 2) => Value::Commented(Box::new(Value::UInt(e)), Cow::Borrowed(n)),
        _ => Value::UInt(e),
    }
}

/// `add_key(type, description, payload, plen, keyring)`.
fn add_key(c: &mut Ctx) -> Step {
    c.cstr(0);
    c.cstr(1);
    c.buf(2, c.arg_ulong(3));
    c.ulong(3);
    key_arg(c, 4);
    Step::Done(RetFmt::Int)
}

/// `request_key(type, description, callout_info, dest_keyring)`.
fn request_key(c: &mut Ctx) -> Step {
    c.cstr(0);
    c.cstr(1);
    c.cstr(2);
    key_arg(c, 3);
    Step::Done(RetFmt::Int)
}

/// A buffer the kernel filled at exit: `min(ret, size)` bytes, a trailing
/// NUL hidden when `omit_nul` (descriptions and labels), the address when
/// the call failed.
fn filled(c: &mut Ctx, omit_nul: bool) {
    let addr = c.arg_ulong(2);
    let size = c.arg_ulong(3);
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        let n = (c.retval().max(0) as u64).min(size);
        match c.buf_value(addr, n) {
            Value::Str(mut s) if omit_nul && !s.truncated && s.bytes.last() == Some(&0) => {
                s.bytes.pop();
                Value::Str(s)
            }
            v => v,
        }
    };
    c.push(v);
    c.ulong(3);
}

/// A flags table local to this file (the keyctl bit names strace prints).
const fn flag_table(
    name: &'static str,
    entries: &'static [(u64, &'static str)],
) -> rtrace_arch::Xlat {
    rtrace_arch::Xlat {
        name,
        kind: rtrace_arch::xlat::XlatKind::Flags,
        entries,
    }
}

static KEYCTL_CAPS0: rtrace_arch::Xlat = flag_table(
    "keyctl_caps0",
    &[
        (0x01, "KEYCTL_CAPS0_CAPABILITIES"),
        (0x02, "KEYCTL_CAPS0_PERSISTENT_KEYRINGS"),
        (0x04, "KEYCTL_CAPS0_DIFFIE_HELLMAN"),
        (0x08, "KEYCTL_CAPS0_PUBLIC_KEY"),
        (0x10, "KEYCTL_CAPS0_BIG_KEY"),
        (0x20, "KEYCTL_CAPS0_INVALIDATE"),
        (0x40, "KEYCTL_CAPS0_RESTRICT_KEYRING"),
        (0x80, "KEYCTL_CAPS0_MOVE"),
    ],
);

static KEYCTL_CAPS1: rtrace_arch::Xlat = flag_table(
    "keyctl_caps1",
    &[
        (0x01, "KEYCTL_CAPS1_NS_KEYRING_NAME"),
        (0x02, "KEYCTL_CAPS1_NS_KEY_TAG"),
        (0x04, "KEYCTL_CAPS1_NOTIFICATIONS"),
    ],
);

static KEYCTL_PKEY_OPS: rtrace_arch::Xlat = flag_table(
    "keyctl_pkey_ops",
    &[
        (0x01, "KEYCTL_SUPPORTS_ENCRYPT"),
        (0x02, "KEYCTL_SUPPORTS_DECRYPT"),
        (0x04, "KEYCTL_SUPPORTS_SIGN"),
        (0x08, "KEYCTL_SUPPORTS_VERIFY"),
    ],
);

/// A key serial read from a structure, as [`key_arg`] prints an argument.
fn key_value(c: &Ctx, id: u64) -> Value {
    int_xval(c, id as u32 as i32 as i64, &xlat::KEY_SPEC, "")
}

/// `__spare=[…]` when any of the `n` 32-bit words at `off` is non-zero.
fn spare_field(b: &[u8], off: usize, n: usize) -> Option<Field> {
    let words: Vec<u64> = (0..n).map(|i| le32(b, off + 4 * i)).collect();
    if words.iter().all(|&w| w == 0) {
        return None;
    }
    Some(Field::new(
        "__spare",
        Value::Array(words.into_iter().map(xint).collect(), false),
    ))
}

/// `{private=…, prime=…, base=…}`: `struct keyctl_dh_params` at `addr`.
fn dh_params(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    match c.read_bytes(addr, 12) {
        Some(b) => Value::structure(vec![
            Field::new("private", key_value(c, le32(&b, 0))),
            Field::new("prime", key_value(c, le32(&b, 4))),
            Field::new("base", key_value(c, le32(&b, 8))),
        ]),
        None => Value::Unreadable(addr),
    }
}

/// `struct keyctl_kdf_params` at `addr`: the hash name, the other info
/// (a pointer when its length is zero) and any non-zero spare words.
fn kdf_params(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let w = c.arch.word_size();
    let size = if w == 4 { 44 } else { 56 };
    let Some(b) = c.read_bytes(addr, size) else {
        return Value::Unreadable(addr);
    };
    let word = |off| if w == 4 { le32(&b, off) } else { le64(&b, off) };
    let (hash, other, len) = (word(0), word(w), le32(&b, 2 * w));
    let hv = c.cstr_value(hash);
    let ov = if len != 0 {
        c.buf_value(other, len)
    } else {
        Value::Ptr(other)
    };
    let mut f = vec![
        Field::new("hashname", hv),
        Field::new("otherinfo", ov),
        Field::new("otherinfolen", Value::UInt(len)),
    ];
    f.extend(spare_field(&b, 2 * w + 4, 8));
    Value::structure(f)
}

/// `struct keyctl_pkey_query` at `addr`.
fn pkey_query(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 || c.failed() {
        return Value::Ptr(addr);
    }
    let Some(b) = c.read_bytes(addr, 56) else {
        return Value::Unreadable(addr);
    };
    let mut f = vec![
        Field::new(
            "supported_ops",
            xflags(c, le32(&b, 0), &KEYCTL_PKEY_OPS, "KEYCTL_SUPPORTS_???"),
        ),
        Field::new("key_size", Value::UInt(le32(&b, 4))),
        Field::new("max_data_size", Value::UInt(le16(&b, 8))),
        Field::new("max_sig_size", Value::UInt(le16(&b, 10))),
        Field::new("max_enc_size", Value::UInt(le16(&b, 12))),
        Field::new("max_dec_size", Value::UInt(le16(&b, 14))),
    ];
    f.extend(spare_field(&b, 16, 10));
    Value::structure(f)
}

/// `struct keyctl_pkey_params` at `addr` and its lengths
/// (`in_len`, `out_len`/`in2_len`), or the pointer.
fn pkey_params(c: &mut Ctx, addr: u64, out: bool) -> (Value, Option<(u64, u64)>) {
    if addr == 0 {
        return (Value::Ptr(0), None);
    }
    let Some(b) = c.read_bytes(addr, 40) else {
        return (Value::Unreadable(addr), None);
    };
    let (inl, second) = (le32(&b, 4), le32(&b, 8));
    let mut f = vec![
        Field::new("key_id", key_value(c, le32(&b, 0))),
        Field::new("in_len", Value::UInt(inl)),
        Field::new(if out { "out_len" } else { "in2_len" }, Value::UInt(second)),
    ];
    f.extend(spare_field(&b, 12, 7));
    (Value::structure(f), Some((inl, second)))
}

/// The public-key operations at entry: parameters, info and the input
/// buffers; an encrypt/decrypt/sign with readable parameters waits for the
/// output buffer.
fn pkey_op_entry(c: &mut Ctx, out: bool) -> Step {
    let (pv, lens) = pkey_params(c, c.arg_ulong(1), out);
    c.push(pv);
    c.cstr(2);
    let op1 = c.arg_ulong(3);
    let v = match lens {
        Some((inl, _)) => c.buf_value(op1, inl),
        None => Value::Ptr(op1),
    };
    c.push(v);
    match lens {
        Some((_, out_len)) if out => {
            c.saved = out_len;
            Step::Exit
        }
        Some((_, in2)) => {
            let v = c.buf_value(c.arg_ulong(4), in2);
            c.push(v);
            Step::Done(RetFmt::Int)
        }
        None => {
            c.ptr(4);
            Step::Done(RetFmt::Int)
        }
    }
}

/// The exit half of the keyctl commands that print something then.
fn keyctl_exit(c: &mut Ctx, name: &str) {
    match name {
        "KEYCTL_DH_COMPUTE" => {
            let (buf, len) = (c.arg_ulong(2), c.arg_ulong(3));
            let v = if c.failed() {
                Value::Ptr(buf)
            } else {
                let n = (c.retval() as u64).min(len);
                c.buf_value(buf, n)
            };
            c.push(v);
            c.push(Value::UInt(len));
            let k = kdf_params(c, c.arg_ulong(4));
            c.push(k);
        }
        "KEYCTL_PKEY_QUERY" => {
            let v = pkey_query(c, c.arg_ulong(4));
            c.push(v);
        }
        "KEYCTL_PKEY_ENCRYPT" | "KEYCTL_PKEY_DECRYPT" | "KEYCTL_PKEY_SIGN" => {
            let op2 = c.arg_ulong(4);
            let v = if c.failed() {
                Value::Ptr(op2)
            } else {
                c.buf_value(op2, c.saved)
            };
            c.push(v);
        }
        "KEYCTL_CAPABILITIES" => {
            let (buf, len) = (c.arg_ulong(1), c.arg_ulong(2));
            let v = if c.failed() {
                Value::Ptr(buf)
            } else {
                let n = len.min(c.retval() as u64);
                let mut pos = 0;
                array_at(c, buf, n, 1, |c, b| {
                    let byte = u64::from(b[0]);
                    let v = match pos {
                        0 => xflags(c, byte, &KEYCTL_CAPS0, "KEYCTL_CAPS0_???"),
                        1 => xflags(c, byte, &KEYCTL_CAPS1, "KEYCTL_CAPS1_???"),
                        _ => xint(byte),
                    };
                    pos += 1;
                    Some(v)
                })
            };
            c.push(v);
            c.push(Value::UInt(len));
        }
        _ => filled(c, name != "KEYCTL_READ"),
    }
}

/// `keyctl(operation, ...)`.
fn keyctl(c: &mut Ctx) -> Step {
    let cmd = c.arg(0) as u32 as u64;
    let name = xlat::KEYCTL_COMMANDS.lookup(cmd).unwrap_or("");
    if c.exiting() {
        keyctl_exit(c, name);
        return Step::Done(RetFmt::Int);
    }
    c.push(c.enum_value(cmd, &xlat::KEYCTL_COMMANDS, "KEYCTL_???"));
    match name {
        "KEYCTL_GET_KEYRING_ID" => {
            key_arg(c, 1);
            c.int(2);
        }
        "KEYCTL_JOIN_SESSION_KEYRING" => c.cstr(1),
        "KEYCTL_UPDATE" => {
            key_arg(c, 1);
            c.buf(2, c.arg_ulong(3));
            c.ulong(3);
        }
        "KEYCTL_REVOKE" | "KEYCTL_CLEAR" | "KEYCTL_INVALIDATE" | "KEYCTL_ASSUME_AUTHORITY" => {
            key_arg(c, 1)
        }
        "KEYCTL_LINK" | "KEYCTL_UNLINK" => {
            key_arg(c, 1);
            key_arg(c, 2);
        }
        "KEYCTL_DESCRIBE" | "KEYCTL_READ" | "KEYCTL_GET_SECURITY" => {
            key_arg(c, 1);
            return Step::Exit;
        }
        "KEYCTL_SEARCH" => {
            key_arg(c, 1);
            c.cstr(2);
            c.cstr(3);
            key_arg(c, 4);
        }
        "KEYCTL_CHOWN" => {
            key_arg(c, 1);
            c.push(id_value(c.arg(2) as u32));
            c.push(id_value(c.arg(3) as u32));
        }
        "KEYCTL_SETPERM" => {
            key_arg(c, 1);
            let v = xflags(c, c.arg(2) as u32 as u64, &xlat::KEY_PERMS, "KEY_???");
            c.push(v);
        }
        "KEYCTL_INSTANTIATE" => {
            key_arg(c, 1);
            c.buf(2, c.arg_ulong(3));
            c.ulong(3);
            key_arg(c, 4);
        }
        "KEYCTL_NEGATE" => {
            key_arg(c, 1);
            c.uint(2);
            key_arg(c, 3);
        }
        "KEYCTL_REJECT" => {
            key_arg(c, 1);
            c.uint(2);
            let v = errno_value(c, c.arg(3) as u32 as u64);
            c.push(v);
            key_arg(c, 4);
        }
        "KEYCTL_SET_REQKEY_KEYRING" => {
            let v = int_xval(
                c,
                c.arg_int(1) as i64,
                &xlat::KEY_REQKEYS,
                "KEY_REQKEY_DEFL_???",
            );
            c.push(v);
        }
        "KEYCTL_INSTANTIATE_IOV" => {
            key_arg(c, 1);
            let n = c.arg_ulong(3);
            let v = iov_upto(c, c.arg_ulong(2), n, None, |c, base, len| {
                c.buf_value(base, len)
            });
            c.push(v);
            c.ulong(3);
            key_arg(c, 4);
        }
        "KEYCTL_MOVE" => {
            key_arg(c, 1);
            key_arg(c, 2);
            key_arg(c, 3);
            let v = xflags(
                c,
                c.arg(4) as u32 as u64,
                &xlat::KEYCTL_MOVE_FLAGS,
                "KEYCTL_MOVE_???",
            );
            c.push(v);
        }
        "KEYCTL_SET_TIMEOUT" => {
            key_arg(c, 1);
            c.uint(2);
        }
        "KEYCTL_SESSION_TO_PARENT" => {}
        "KEYCTL_GET_PERSISTENT" => {
            c.push(id_value(c.arg(1) as u32));
            key_arg(c, 2);
        }
        "KEYCTL_RESTRICT_KEYRING" => {
            key_arg(c, 1);
            c.cstr(2);
            c.cstr(3);
        }
        "KEYCTL_DH_COMPUTE" => {
            let v = dh_params(c, c.arg_ulong(1));
            c.push(v);
            return Step::Exit;
        }
        "KEYCTL_PKEY_QUERY" => {
            key_arg(c, 1);
            c.push(xint(c.arg_ulong(2)));
            c.cstr(3);
            return Step::Exit;
        }
        "KEYCTL_PKEY_ENCRYPT" | "KEYCTL_PKEY_DECRYPT" | "KEYCTL_PKEY_SIGN" => {
            return pkey_op_entry(c, true);
        }
        "KEYCTL_PKEY_VERIFY" => return pkey_op_entry(c, false),
        "KEYCTL_CAPABILITIES" => return Step::Exit,
        _ => {
            for i in 1..5 {
                c.push(xint(c.arg_ulong(i)));
            }
        }
    }
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn keys() {
        let mut m = FakeMemory::default();
        let user = m.put(b"user\0");
        let desc = m.put(b"rtrace:test\0");
        let secret = m.put(b"secret");
        assert_eq!(
            run(
                add_key,
                "add_key",
                &[user, desc, secret, 6, -2i64 as u64],
                5,
                &mut m
            ),
            "add_key(\"user\", \"rtrace:test\", \"secret\", 6, KEY_SPEC_PROCESS_KEYRING) = 5"
        );
        assert_eq!(
            run(keyctl, "keyctl", &[0, -3i64 as u64, 0], 7, &mut m),
            "keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) = 7"
        );
        let d = m.put(b"user;0;0;3f010000;x\0");
        assert_eq!(
            run(keyctl, "keyctl", &[6, 5, d, 128], 20, &mut m),
            "keyctl(KEYCTL_DESCRIBE, 5, \"user;0;0;3f010000;x\", 128) = 20"
        );
        assert_eq!(
            run(keyctl, "keyctl", &[5, 5, 0x3f01_0000], 0, &mut m),
            "keyctl(KEYCTL_SETPERM, 5, KEY_POS_VIEW|KEY_POS_READ|KEY_POS_WRITE|KEY_POS_SEARCH|KEY_POS_LINK|KEY_POS_SETATTR|KEY_USR_VIEW) = 0"
        );
        assert_eq!(
            run(keyctl, "keyctl", &[9999, 1, 2, 3, 4], -95, &mut m),
            "keyctl(0x270f /* KEYCTL_??? */, 0x1, 0x2, 0x3, 0x4) = -1 EOPNOTSUPP (Operation not supported)"
        );
    }

    #[test]
    fn dh_pkey_caps() {
        let mut m = FakeMemory::default();
        let mut dh = (-6i32).to_le_bytes().to_vec();
        dh.extend_from_slice(&1234567890i32.to_le_bytes());
        dh.extend_from_slice(&(-3i32).to_le_bytes());
        let dh = m.put(&dh);
        let hash = m.put(b"hmac(aes)\0");
        let other = m.put(b"\x01\x02x");
        let mut kdf = hash.to_le_bytes().to_vec();
        kdf.extend_from_slice(&other.to_le_bytes());
        kdf.extend_from_slice(&3u32.to_le_bytes());
        kdf.extend_from_slice(&[0; 36]);
        let kdf = m.put(&kdf);
        assert_eq!(
            run(keyctl, "keyctl", &[23, dh, 0x1000, 9, kdf], -95, &mut m),
            "keyctl(KEYCTL_DH_COMPUTE, {private=KEY_SPEC_GROUP_KEYRING, prime=1234567890, base=KEY_SPEC_SESSION_KEYRING}, 0x1000, 9, {hashname=\"hmac(aes)\", otherinfo=\"\\1\\2x\", otherinfolen=3}) = -1 EOPNOTSUPP (Operation not supported)"
        );
        let mut pp = (-2i32).to_le_bytes().to_vec();
        pp.extend_from_slice(&2u32.to_le_bytes());
        pp.extend_from_slice(&3u32.to_le_bytes());
        pp.extend_from_slice(&[0; 24]);
        pp.extend_from_slice(&5u32.to_le_bytes());
        let pp = m.put(&pp);
        let info = m.put(b"enc\0");
        let data = m.put(b"ab");
        let out = m.put(b"xyz");
        assert_eq!(
            run(keyctl, "keyctl", &[25, pp, info, data, out], 3, &mut m),
            "keyctl(KEYCTL_PKEY_ENCRYPT, {key_id=KEY_SPEC_PROCESS_KEYRING, in_len=2, out_len=3, __spare=[0, 0, 0, 0, 0, 0, 0x5]}, \"enc\", \"ab\", \"xyz\") = 3"
        );
        assert_eq!(
            run(keyctl, "keyctl", &[28, 0, 0, 0, 0], -14, &mut m),
            "keyctl(KEYCTL_PKEY_VERIFY, NULL, NULL, NULL, NULL) = -1 EFAULT (Bad address)"
        );
        let caps = m.put(&[0xeb, 0x3]);
        assert_eq!(
            run(keyctl, "keyctl", &[31, caps, 4, 0, 0], 2, &mut m),
            "keyctl(KEYCTL_CAPABILITIES, [KEYCTL_CAPS0_CAPABILITIES|KEYCTL_CAPS0_PERSISTENT_KEYRINGS|KEYCTL_CAPS0_PUBLIC_KEY|KEYCTL_CAPS0_INVALIDATE|KEYCTL_CAPS0_RESTRICT_KEYRING|KEYCTL_CAPS0_MOVE, KEYCTL_CAPS1_NS_KEYRING_NAME|KEYCTL_CAPS1_NS_KEY_TAG], 4) = 2"
        );
    }
}
