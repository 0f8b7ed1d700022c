//! seccomp user-notification ioctls (`SECCOMP_IOCTL_NOTIF_RECV`, `_SEND`,
//! `_ID_VALID`, `_ADDFD`) as strace 6.1's `seccomp_ioctl.c` prints them:
//! `struct seccomp_notif` (with its `struct seccomp_data` and the syscall
//! named for its audit architecture), the response, and the added fd.

use crate::syscall::ioctl::misc::fetch;
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Arch};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    /// `SECCOMP_IOCTL_NOTIF_RECV` requests printed at entry, by thread, to
    /// show again before ` => ` and what the kernel wrote.
    static RECV_ENTRY: RefCell<HashMap<i32, Value>> = RefCell::new(HashMap::new());
}

/// `struct seccomp_notif` (80 bytes).
fn notif(c: &mut Ctx, b: &[u8]) -> Value {
    let arch = le32(b, 20) as u32;
    let nr = le32(b, 16);
    let name = Arch::from_audit_arch(arch)
        .and_then(|a| a.syscall_name(nr))
        .map(|n| format!("__NR_{n}"));
    let nr_v = match (c.opts.xlat_style, name) {
        (1, _) | (_, None) => Value::UInt(nr),
        (2, Some(n)) => Value::Commented(Box::new(Value::UInt(nr)), Cow::Owned(n)),
        (_, Some(n)) => Value::sym_owned(n),
    };
    let data = Value::structure(vec![
        Field::new("nr", nr_v),
        Field::new(
            "arch",
            c.enum_value(arch as u64, &xlat::AUDIT_ARCH, "AUDIT_ARCH_???"),
        ),
        Field::new("instruction_pointer", Value::Ptr(le64(b, 24))),
        Field::new(
            "args",
            Value::Array((0..6).map(|i| xint(le64(b, 32 + 8 * i))).collect(), false),
        ),
    ]);
    let pid = le32(b, 8) as u32 as i32 as i64;
    Value::structure(vec![
        Field::new("id", xint(le64(b, 0))),
        Field::new("pid", c.pid_value(pid)),
        Field::new("flags", xint(le32(b, 12))),
        Field::new("data", data),
    ])
}

/// An `int` that holds a negated errno (`PRINT_FIELD_ERR_D`).
fn err_d(c: &Ctx, v: i32) -> Value {
    let name = (v < 0)
        .then(|| rtrace_arch::tables::errno_name(v.unsigned_abs() as u64))
        .flatten();
    match (c.opts.xlat_style, name) {
        (1, _) | (_, None) => Value::Int(v as i64),
        (2, Some(n)) => {
            Value::Commented(Box::new(Value::Int(v as i64)), Cow::Owned(format!("-{n}")))
        }
        (_, Some(n)) => Value::sym_owned(format!("-{n}")),
    }
}

/// The seccomp requests (type `!`).
pub(in crate::syscall::ioctl) fn seccomp(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        // SECCOMP_IOCTL_NOTIF_RECV
        0xc050_2100 => {
            let pid = c.pid;
            if c.entering() {
                let b = match fetch(c, arg, 80) {
                    Ok(b) => b,
                    Err(v) => return Io::Arg(v),
                };
                if b.iter().any(|&x| x != 0) {
                    let v = notif(c, &b);
                    RECV_ENTRY.with(|m| m.borrow_mut().insert(pid, v));
                }
                return Io::Exit;
            }
            let before = RECV_ENTRY.with(|m| m.borrow_mut().remove(&pid));
            let after = match fetch(c, arg, 80) {
                Ok(b) => notif(c, &b),
                Err(v) => v,
            };
            Io::Arg(match before {
                Some(b) => Value::Changed(Box::new(b), Box::new(after)),
                None => after,
            })
        }
        // SECCOMP_IOCTL_NOTIF_SEND
        0xc018_2101 => Io::Arg(match fetch(c, arg, 24) {
            Ok(b) => Value::structure(vec![
                Field::new("id", xint(le64(&b, 0))),
                Field::new("val", Value::Int(le64(&b, 8) as i64)),
                Field::new("error", err_d(c, le32(&b, 16) as u32 as i32)),
                Field::new(
                    "flags",
                    xflags(
                        c,
                        le32(&b, 20),
                        &xlat::SECCOMP_IOCTL_RESP_FLAGS,
                        "SECCOMP_USER_NOTIF_FLAG_???",
                    ),
                ),
            ]),
            Err(v) => v,
        }),
        // SECCOMP_IOCTL_NOTIF_ID_VALID and its _WRONG_DIR twin
        0x4008_2102 | 0x8008_2102 => Io::Arg(match fetch(c, arg, 8) {
            Ok(b) => Value::Array(vec![xint(le64(&b, 0))], false),
            Err(v) => v,
        }),
        // SECCOMP_IOCTL_NOTIF_ADDFD
        0x4018_2103 => Io::Arg(match fetch(c, arg, 24) {
            Ok(b) => {
                let srcfd = c.fd_value(le32(&b, 12) as u32 as i32 as i64);
                Value::structure(vec![
                    Field::new("id", xint(le64(&b, 0))),
                    Field::new(
                        "flags",
                        xflags(
                            c,
                            le32(&b, 8),
                            &xlat::SECCOMP_IOCTL_ADDFD_FLAGS,
                            "SECCOMP_ADDFD_FLAG_???",
                        ),
                    ),
                    Field::new("srcfd", srcfd),
                    Field::new("newfd", Value::Int(le32(&b, 16) as u32 as i32 as i64)),
                    Field::new(
                        "newfd_flags",
                        xflags(c, le32(&b, 20), &xlat::OPEN_FLAGS, "O_???"),
                    ),
                ])
            }
            Err(v) => v,
        }),
        _ => Io::Hex,
    }
}
