//! The structures of three ptrace requests, as strace 7.2 prints them:
//! `struct ptrace_syscall_info`, filled by PTRACE_GET_SYSCALL_INFO (at exit,
//! up to the size both the caller and the kernel gave) and passed in by
//! PTRACE_SET_SYSCALL_INFO (at entry, up to the caller's size), and
//! `struct seccomp_metadata` (PTRACE_SECCOMP_GET_METADATA).

use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Arch};
use std::borrow::Cow;

/// `offsetofend(struct ptrace_syscall_info, seccomp.ret_data)`.
const SECCOMP_SIZE: u64 = 84;
/// `sizeof(struct ptrace_syscall_info)`: the most of it that is read.
const INFO_SIZE: u64 = 88;
/// `offsetofend(struct ptrace_syscall_info, exit.is_error)`.
const EXIT_SIZE: u64 = 33;

/// `nr=__NR_chdir` for syscall `nr` of the personality `audit_arch`.
fn syscall_nr(c: &Ctx, nr: u64, audit_arch: u32) -> Value {
    let name = Arch::from_audit_arch(audit_arch)
        .and_then(|a| a.syscall_name(nr))
        .map(|n| format!("__NR_{n}"));
    match (c.opts.xlat_style, name) {
        (1, _) | (_, None) => Value::UInt(nr),
        (2, Some(n)) => Value::Commented(Box::new(Value::UInt(nr)), Cow::Owned(n)),
        (_, Some(n)) => Value::sym_owned(n),
    }
}

/// `args=[…]`: as many of the six arguments as `size` bytes from `off` hold.
fn args_field(b: &[u8], off: usize, size: u64) -> Option<Field> {
    let n = ((size as usize).saturating_sub(off) / 8).min(6);
    (n > 0).then(|| {
        Field::new(
            "args",
            Value::Array((0..n).map(|i| xint(le64(b, off + 8 * i))).collect(), false),
        )
    })
}

/// The `struct ptrace_syscall_info` at `addr`, read up to the smaller of
/// the caller's `user_len` and the kernel's `kernel_len` (the return value
/// of PTRACE_GET_SYSCALL_INFO; PTRACE_SET_SYSCALL_INFO reads what the caller
/// gives, so it passes `u64::MAX`).
pub(in crate::syscall) fn syscall_info(
    c: &mut Ctx,
    addr: u64,
    user_len: u64,
    kernel_len: u64,
) -> Value {
    let size = user_len.min(kernel_len).min(INFO_SIZE);
    if size == 0 {
        return Value::Ptr(addr);
    }
    let Some(b) = c.read_bytes(addr, size as usize) else {
        return Value::Ptr(addr);
    };
    let mut b = b;
    b.resize(INFO_SIZE as usize, 0);
    let op = b[0] as u64;
    let mut f = vec![Field::new(
        "op",
        c.enum_value(op, &xlat::PTRACE_SYSCALL_INFO_OP, "PTRACE_SYSCALL_INFO_???"),
    )];
    // `reserved` (byte 1) and `flags` (bytes 2-3) of Linux 6.16 show only
    // when set (the kernel refuses them set, so they tell a bad call).
    if size > 1 && b[1] != 0 {
        f.push(Field::new("reserved", xint(b[1] as u64)));
    }
    if size > 2 && le16(&b, 2) != 0 {
        f.push(Field::new("flags", xint(le16(&b, 2))));
    }
    let arch = le32(&b, 4);
    if size >= 8 {
        f.push(Field::new(
            "arch",
            c.enum_value(arch, &xlat::AUDIT_ARCH, "AUDIT_ARCH_???"),
        ));
    }
    if size >= 16 {
        f.push(Field::new("instruction_pointer", Value::Ptr(le64(&b, 8))));
    }
    if size >= 24 {
        f.push(Field::new("stack_pointer", Value::Ptr(le64(&b, 16))));
    }
    if size >= 32 {
        let sub = match op {
            1 | 3 => {
                let mut s = vec![Field::new("nr", syscall_nr(c, le64(&b, 24), arch as u32))];
                s.extend(args_field(&b, 32, size));
                if op == 3 && size >= SECCOMP_SIZE {
                    s.push(Field::new("ret_data", Value::UInt(le32(&b, 80))));
                }
                Some((if op == 1 { "entry" } else { "seccomp" }, s))
            }
            2 => {
                let rval = le64(&b, 24) as i64;
                let is_error = b[32];
                let rv = match rtrace_arch::tables::errno_name(rval.unsigned_abs()) {
                    Some(n) if size >= EXIT_SIZE && is_error != 0 && rval < 0 => {
                        if c.opts.xlat_style == 1 {
                            Value::Int(rval)
                        } else if c.opts.xlat_style == 2 {
                            Value::Commented(
                                Box::new(Value::Int(rval)),
                                Cow::Owned(format!("-{n}")),
                            )
                        } else {
                            Value::sym_owned(format!("-{n}"))
                        }
                    }
                    _ => Value::Int(rval),
                };
                let mut s = vec![Field::new("rval", rv)];
                if size >= EXIT_SIZE {
                    s.push(Field::new("is_error", Value::UInt(is_error as u64)));
                }
                Some(("exit", s))
            }
            _ => None,
        };
        if let Some((name, s)) = sub {
            f.push(Field::new(name, Value::structure(s)));
        }
    }
    Value::structure(f)
}

/// PTRACE_SECCOMP_GET_METADATA's `struct seccomp_metadata` of `size`
/// bytes at `addr`: `filter_off` (read by the kernel), and `flags` when the
/// call succeeded.
pub(in crate::syscall) fn seccomp_metadata(c: &mut Ctx, addr: u64, size: u64) -> Value {
    if size < 8 || addr == 0 {
        return Value::Ptr(addr);
    }
    let Some(b) = c.read_bytes(addr, 8) else {
        return Value::Unreadable(addr);
    };
    let mut f = vec![Field::new("filter_off", Value::UInt(le64(&b, 0)))];
    let mut more = false;
    if !c.failed() && size > 8 {
        let flags = if size < 16 {
            None
        } else {
            c.read_bytes(addr + 8, 8).map(|b| le64(&b, 0))
        };
        let v = match flags {
            Some(fl) => xflags(
                c,
                fl,
                &xlat::SECCOMP_FILTER_FLAGS,
                "SECCOMP_FILTER_FLAG_???",
            ),
            None => Value::sym("???"),
        };
        f.push(Field::new("flags", v));
        more = flags.is_some() && size > 16;
    }
    Value::Struct(f, more)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn syscall_info_and_metadata() {
        let mut m = FakeMemory::default();
        let d = crate::syscall::all_decoders()["ptrace"];
        let mut b = vec![0u8; 88];
        b[0] = 2;
        b[4..8].copy_from_slice(&0xc000_003eu32.to_le_bytes());
        b[8..16].copy_from_slice(&0x1000u64.to_le_bytes());
        b[16..24].copy_from_slice(&0x2000u64.to_le_bytes());
        b[24..32].copy_from_slice(&(-2i64).to_le_bytes());
        b[32] = 1;
        let a = m.put(&b);
        assert_eq!(
            run(d, "ptrace", &[0x420e, 5, 88, a], 33, &mut m),
            "ptrace(PTRACE_GET_SYSCALL_INFO, 5, 88, {op=PTRACE_SYSCALL_INFO_EXIT, arch=AUDIT_ARCH_X86_64, instruction_pointer=0x1000, stack_pointer=0x2000, exit={rval=-ENOENT, is_error=1}}) = 33"
        );
        b[0] = 1;
        b[24..32].copy_from_slice(&80u64.to_le_bytes());
        b[32..40].copy_from_slice(&0x55u64.to_le_bytes());
        let a = m.put(&b);
        assert_eq!(
            run(d, "ptrace", &[0x420e, 5, 40, a], 80, &mut m),
            "ptrace(PTRACE_GET_SYSCALL_INFO, 5, 40, {op=PTRACE_SYSCALL_INFO_ENTRY, arch=AUDIT_ARCH_X86_64, instruction_pointer=0x1000, stack_pointer=0x2000, entry={nr=__NR_chdir, args=[0x55]}}) = 80"
        );
        // PTRACE_SET_SYSCALL_INFO: the caller's size alone cuts the
        // structure; `reserved` and `flags` show when set.
        b[1] = 2;
        b[2] = 1;
        let a = m.put(&b);
        assert_eq!(
            run(d, "ptrace", &[0x4212, 5, 24, a], -22, &mut m),
            "ptrace(PTRACE_SET_SYSCALL_INFO, 5, 24, {op=PTRACE_SYSCALL_INFO_ENTRY, reserved=0x2, flags=0x1, arch=AUDIT_ARCH_X86_64, instruction_pointer=0x1000, stack_pointer=0x2000}) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(d, "ptrace", &[0x420e, 5, 88, a], -3, &mut m),
            format!("ptrace(PTRACE_GET_SYSCALL_INFO, 5, 88, {a:#x}) = -1 ESRCH (No such process)")
        );
        let md = m.put(&[7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            run(d, "ptrace", &[0x420d, 5, 16, md], -3, &mut m),
            "ptrace(PTRACE_SECCOMP_GET_METADATA, 5, 16, {filter_off=7}) = -1 ESRCH (No such process)"
        );
        assert_eq!(
            run(d, "ptrace", &[0x420d, 5, 16, md], 0, &mut m),
            "ptrace(PTRACE_SECCOMP_GET_METADATA, 5, 16, {filter_off=7, flags=SECCOMP_FILTER_FLAG_TSYNC}) = 0"
        );
    }
}
