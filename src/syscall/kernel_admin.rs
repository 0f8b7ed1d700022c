//! System administration calls as strace prints them: acct, reboot, syslog,
//! swapon/swapoff, kexec_load/kexec_file_load, init_module/finit_module/
//! delete_module, sethostname/setdomainname, iopl, lookup_dcookie and
//! _sysctl.

use crate::syscall::array::array_at;
use crate::syscall::printers::{le64, xflags};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, StrVal, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("acct", acct),
    ("reboot", reboot),
    ("syslog", syslog),
    ("swapon", swapon),
    ("swapoff", swapoff),
    ("kexec_load", kexec_load),
    ("kexec_file_load", kexec_file_load),
    ("init_module", init_module),
    ("finit_module", finit_module),
    ("delete_module", delete_module),
    ("sethostname", sethostname),
    ("setdomainname", sethostname),
    ("iopl", iopl),
    ("lookup_dcookie", lookup_dcookie),
    ("_sysctl", sysctl),
];

/// A NUL-terminated string of at most `max` bytes (also bounded by `-s`), as
/// strace's `printstr_ex(…, max, QUOTE_0_TERMINATED)`: `...` follows when
/// no NUL occurs within the bytes shown; the address prints when those bytes
/// cannot all be read.
pub(in crate::syscall) fn cstr_upto(c: &mut Ctx, addr: u64, max: usize) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let n = max.min(c.opts.string_limit);
    if n == 0 {
        return Value::Str(StrVal {
            bytes: Vec::new(),
            truncated: true,
            c_string: true,
        });
    }
    // A NUL within the first `n` bytes ends the string; otherwise all `n`
    // bytes must be readable.
    if let Some(s) = c.read_cstr(addr, n - 1).filter(|s| !s.truncated) {
        return Value::Str(s);
    }
    match c.read_data(addr, n) {
        Some(bytes) => Value::Str(StrVal {
            bytes,
            truncated: true,
            c_string: true,
        }),
        None => Value::Unreadable(addr),
    }
}

fn acct(c: &mut Ctx) -> Step {
    c.path(0);
    Step::Done(RetFmt::Int)
}

const LINUX_REBOOT_CMD_RESTART2: u64 = 0xa1b2_c3d4;

/// `reboot(magic1, magic2, cmd[, arg])`.
fn reboot(c: &mut Ctx) -> Step {
    let m1 = c.enum_value(
        c.arg(0) as u32 as u64,
        &xlat::REBOOT_MAGIC1,
        "LINUX_REBOOT_MAGIC_???",
    );
    c.push(m1);
    let m2 = c.enum_value(
        c.arg(1) as u32 as u64,
        &xlat::REBOOT_MAGIC2,
        "LINUX_REBOOT_MAGIC_???",
    );
    c.push(m2);
    let cmd = c.arg(2) as u32 as u64;
    let v = c.enum_value(cmd, &xlat::REBOOT_CMDS, "LINUX_REBOOT_CMD_???");
    c.push(v);
    if cmd == LINUX_REBOOT_CMD_RESTART2 {
        let v = cstr_upto(c, c.arg_ulong(3), 255);
        c.push(v);
    }
    Step::Done(RetFmt::Int)
}

/// A value with strace's `XLAT_STYLE_VERBOSE | XLAT_STYLE_FMT_D`: the
/// number in decimal with its name (or `X_???`) in a comment.
fn dec_commented(c: &Ctx, v: i32, table: &rtrace_arch::Xlat, dflt: &'static str) -> Value {
    let name = table.lookup(v as u32 as u64);
    if c.opts.xlat_style == 1 {
        return Value::Int(v as i64);
    }
    Value::Commented(
        Box::new(Value::Int(v as i64)),
        std::borrow::Cow::Borrowed(name.unwrap_or(dflt)),
    )
}

/// `syslog(type, bufp, len)`.
fn syslog(c: &mut Ctx) -> Step {
    let ty = c.arg_int(0);
    let len = c.arg_int(2);
    if c.entering() {
        let v = dec_commented(c, ty, &xlat::SYSLOG_ACTIONS, "SYSLOG_ACTION_???");
        c.push(v);
    }
    match ty {
        0 | 1 | 5 | 6 | 7 | 9 | 10 => {
            c.entry_complete = true;
            Step::Done(RetFmt::Int)
        }
        2..=4 => {
            if c.entering() {
                return Step::Exit;
            }
            let addr = c.arg(1);
            let v = if c.failed() {
                Value::Ptr(addr)
            } else {
                c.buf_value(addr, c.retval() as u64)
            };
            c.push(v);
            c.push(Value::Int(len as i64));
            Step::Done(RetFmt::Int)
        }
        8 => {
            c.push(Value::Ptr(c.arg(1)));
            let v = dec_commented(c, len, &xlat::LOGLEVELS, "LOGLEVEL_???");
            c.push(v);
            Step::Done(RetFmt::Int)
        }
        _ => {
            c.push(Value::Ptr(c.arg(1)));
            c.push(Value::Int(len as i64));
            Step::Done(RetFmt::Int)
        }
    }
}

const SWAP_FLAG_PRIO_MASK: u64 = 0x7fff;

fn swapon(c: &mut Ctx) -> Step {
    c.path(0);
    let flags = c.arg(1) as u32 as u64;
    let prio = flags & SWAP_FLAG_PRIO_MASK;
    let rest = flags & !SWAP_FLAG_PRIO_MASK;
    if rest == 0 {
        c.push(Value::UInt(prio));
    } else {
        let f = xflags(c, rest, &xlat::SWAP_FLAGS, "SWAP_FLAG_???");
        let s = crate::syscall::ctx::render_flags(&f);
        c.push(Value::sym_owned(format!("{s}|{prio}")));
    }
    Step::Done(RetFmt::Int)
}

fn swapoff(c: &mut Ctx) -> Step {
    c.path(0);
    Step::Done(RetFmt::Int)
}

/// strace's `KEXEC_SEGMENT_MAX`.
const KEXEC_SEGMENT_MAX: u64 = 16;
const KEXEC_ARCH_MASK: u64 = 0xffff_0000;

/// `kexec_load(entry, nr_segments, segments, flags)`.
fn kexec_load(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.ulong(1);
    let (addr, n) = (c.arg_ulong(2), c.arg_ulong(1));
    let v = if n > KEXEC_SEGMENT_MAX {
        Value::Ptr(addr)
    } else {
        let w = c.arch.word_size();
        array_at(c, addr, n, 4 * w, |_, b| {
            let word = |i: usize| {
                if w == 4 {
                    crate::syscall::printers::le32(b, 4 * i)
                } else {
                    le64(b, 8 * i)
                }
            };
            Some(Value::structure(vec![
                Field::new("buf", Value::Ptr(word(0))),
                Field::new("bufsz", Value::UInt(word(1))),
                Field::new("mem", Value::Ptr(word(2))),
                Field::new("memsz", Value::UInt(word(3))),
            ]))
        })
    };
    c.push(v);
    let flags = c.arg_ulong(3);
    let arch = c.enum_value(flags & KEXEC_ARCH_MASK, &xlat::KEXEC_ARCH, "KEXEC_ARCH_???");
    let rest = flags & !KEXEC_ARCH_MASK;
    if rest == 0 {
        c.push(arch);
    } else {
        let a = crate::syscall::ctx::render_flags(&arch);
        let f = xflags(c, rest, &xlat::KEXEC_LOAD_FLAGS, "KEXEC_???");
        let s = crate::syscall::ctx::render_flags(&f);
        c.push(Value::sym_owned(format!("{a}|{s}")));
    }
    Step::Done(RetFmt::Int)
}

/// `kexec_file_load(kernel_fd, initrd_fd, cmdline_len, cmdline, flags)`.
fn kexec_file_load(c: &mut Ctx) -> Step {
    c.fd(0);
    c.fd(1);
    c.ulong(2);
    let (addr, len) = (c.arg_ulong(3), c.arg_ulong(2));
    let v = c.buf_value(addr, len);
    c.push(v);
    let f = xflags(
        c,
        c.arg_ulong(4),
        &xlat::KEXEC_FILE_LOAD_FLAGS,
        "KEXEC_FILE_???",
    );
    c.push(f);
    Step::Done(RetFmt::Int)
}

/// `init_module(module_image, len, param_values)`.
fn init_module(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.ulong(1);
    c.cstr(2);
    Step::Done(RetFmt::Int)
}

/// `finit_module(fd, param_values, flags)`.
fn finit_module(c: &mut Ctx) -> Step {
    c.fd(0);
    c.cstr(1);
    let f = xflags(
        c,
        c.arg(2) as u32 as u64,
        &xlat::MODULE_INIT_FLAGS,
        "MODULE_INIT_???",
    );
    c.push(f);
    Step::Done(RetFmt::Int)
}

/// `delete_module(name, flags)`.
fn delete_module(c: &mut Ctx) -> Step {
    c.cstr(0);
    let f = xflags(
        c,
        c.arg(1) as u32 as u64,
        &xlat::DELETE_MODULE_FLAGS,
        "O_???",
    );
    c.push(f);
    Step::Done(RetFmt::Int)
}

/// The kernel's `__NEW_UTS_LEN`.
const NEW_UTS_LEN: u64 = 64;

/// `sethostname(name, len)` and `setdomainname(name, len)`.
fn sethostname(c: &mut Ctx) -> Step {
    let len = c.arg(1) as u32 as u64;
    let addr = c.arg_ulong(0);
    let v = if len > NEW_UTS_LEN {
        Value::Ptr(addr)
    } else {
        c.buf_value(addr, len)
    };
    c.push(v);
    c.push(Value::UInt(len));
    Step::Done(RetFmt::Int)
}

fn iopl(c: &mut Ctx) -> Step {
    c.int(0);
    Step::Done(RetFmt::Int)
}

/// `lookup_dcookie(cookie, buffer, len)`: everything prints at exit.
fn lookup_dcookie(c: &mut Ctx) -> Step {
    if c.entering() {
        c.sep_at_exit = true;
        return Step::Exit;
    }
    c.push(Value::UInt(c.arg(0)));
    let addr = c.arg_ulong(1);
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        c.buf_value(addr, c.retval() as u64)
    };
    c.push(v);
    c.ulong(2);
    Step::Done(RetFmt::Int)
}

/// `_sysctl(args)`: `struct __sysctl_args` with its pointers as addresses.
fn sysctl(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(0);
    let w = c.arch.word_size();
    let v = crate::syscall::printers::struct_at(c, addr, Some(6 * w), |_, b| {
        let word = |i: usize| {
            if w == 4 {
                crate::syscall::printers::le32(b, 4 * i)
            } else {
                le64(b, 8 * i)
            }
        };
        Value::structure(vec![
            Field::new("name", Value::Ptr(word(0))),
            Field::new("nlen", Value::Int(word(1) as u32 as i32 as i64)),
            Field::new("oldval", Value::Ptr(word(2))),
            Field::new("oldlenp", Value::Ptr(word(3))),
            Field::new("newval", Value::Ptr(word(4))),
            Field::new("newlen", Value::UInt(word(5))),
        ])
    });
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn admin_calls() {
        let mut m = FakeMemory::default();
        let e = -22;
        assert_eq!(
            run(reboot, "reboot", &[0, 0, 0], e, &mut m),
            "reboot(0 /* LINUX_REBOOT_MAGIC_??? */, 0 /* LINUX_REBOOT_MAGIC_??? */, LINUX_REBOOT_CMD_CAD_OFF) = -1 EINVAL (Invalid argument)"
        );
        let s = m.put(b"reboot\0");
        assert_eq!(
            run(reboot, "reboot", &[0xfee1_dead, 672274793, 0xa1b2_c3d4, s], e, &mut m),
            "reboot(LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_RESTART2, \"reboot\") = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(syslog, "syslog", &[10, 0, 0], 4096, &mut m),
            "syslog(10 /* SYSLOG_ACTION_SIZE_BUFFER */) = 4096"
        );
        assert_eq!(
            run(syslog, "syslog", &[u64::MAX, 0, u64::MAX], e, &mut m),
            "syslog(-1 /* SYSLOG_ACTION_??? */, NULL, -1) = -1 EINVAL (Invalid argument)"
        );
        let p = m.put(b"swap.sample\0");
        assert_eq!(
            run(swapon, "swapon", &[p, 0x8000 | 42], e, &mut m),
            "swapon(\"swap.sample\", SWAP_FLAG_PREFER|42) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(kexec_load, "kexec_load", &[0, 0, 0, 0x2a_0003], e, &mut m),
            "kexec_load(NULL, 0, NULL, KEXEC_ARCH_SH|KEXEC_ON_CRASH|KEXEC_PRESERVE_CONTEXT) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(finit_module, "finit_module", &[3, 0, 2], e, &mut m),
            "finit_module(3, NULL, MODULE_INIT_IGNORE_VERMAGIC) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(sethostname, "sethostname", &[0, 65], e, &mut m),
            "sethostname(NULL, 65) = -1 EINVAL (Invalid argument)"
        );
        let long = m.put(b"0123456789abcdef0123456789abcdef0123456789\0");
        assert_eq!(
            run(reboot, "reboot", &[0xfee1_dead, 672274793, 0xa1b2_c3d4, long], e, &mut m),
            "reboot(LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_RESTART2, \"0123456789abcdef0123456789abcdef\"...) = -1 EINVAL (Invalid argument)"
        );
    }
}
