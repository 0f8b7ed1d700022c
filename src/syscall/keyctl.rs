//! Kernel key management: add_key, request_key and keyctl (the commands
//! strace 6.1 decodes: keyring ids, descriptions, payloads, permissions,
//! default keyrings; the public-key and Diffie-Hellman commands print their
//! arguments in hex), as strace's `keyctl.c` prints them.

use super::array::iov_upto;
use super::printers::{id_value, xflags, xint};
use super::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(super) const DECODERS: &[(&str, Decoder)] = &[
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

/// `keyctl(operation, ...)`.
fn keyctl(c: &mut Ctx) -> Step {
    let cmd = c.arg(0) as u32 as u64;
    let name = xlat::KEYCTL_COMMANDS.lookup(cmd).unwrap_or("");
    if c.exiting() {
        filled(c, name != "KEYCTL_READ");
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
    use crate::syscall::memory::FakeMemory;
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
}
