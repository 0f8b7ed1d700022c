//! KVM ioctls (type 0xae, linux/kvm.h) as strace 6.1 prints them: the
//! descriptors `KVM_CREATE_VM` and `KVM_CREATE_VCPU` return, the
//! capability of `KVM_CHECK_EXTENSION`, `struct kvm_userspace_memory_region`,
//! `struct kvm_cpuid2` (entries only with `-v`), and on x86 `struct
//! kvm_regs` and `struct kvm_sregs` (abbreviated without `-v`). Also the
//! lookup behind `-e kvm=vcpu`: the exit reason of a vCPU's mapped
//! `struct kvm_run`, found through `/proc/PID/maps`.

use crate::syscall::array::array_at;
use crate::syscall::ioctl::misc::fetch;
use crate::syscall::ioctl::Io;
use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, RetFmt, Value};
use crate::value::Ret;
use rtrace_arch::xlat;
use rtrace_arch::Arch;
use std::borrow::Cow;

/// `sizeof(struct kvm_regs)` and `sizeof(struct kvm_sregs)` on x86.
const REGS: usize = 144;
const SREGS: usize = 312;
/// `sizeof(struct kvm_cpuid2)` and of one `struct kvm_cpuid_entry2`.
const CPUID2: u64 = 8;
const CPUID_ENTRY: usize = 40;
/// `sizeof(struct kvm_run)`: a smaller mapping is not a vCPU's.
const KVM_RUN_SIZE: u64 = 2352;

/// `...` in the middle of a structure.
fn more() -> Field {
    Field::new("", Value::sym("..."))
}

/// `struct kvm_regs` (x86): without `-v`, only rax, rsp, rbp, rip, rflags.
fn regs(c: &Ctx, b: &[u8]) -> Value {
    const NAMES: [&str; 18] = [
        "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rsp", "rbp", "r8", "r9", "r10", "r11", "r12",
        "r13", "r14", "r15", "rip", "rflags",
    ];
    let mut f = Vec::new();
    for (i, &n) in NAMES.iter().enumerate() {
        let shown = c.opts.verbose || matches!(i, 0 | 6 | 7 | 16 | 17);
        if shown {
            f.push(Field::new(n, xint(le64(b, 8 * i))));
        } else if i == 1 || i == 8 {
            f.push(more());
        }
    }
    Value::structure(f)
}

/// `struct kvm_segment` at `b`.
fn segment(b: &[u8]) -> Value {
    let u = |o: usize| Value::UInt(b[o] as u64);
    Value::structure(vec![
        Field::new("base", xint(le64(b, 0))),
        Field::new("limit", Value::UInt(le32(b, 8))),
        Field::new("selector", Value::UInt(le16(b, 12))),
        Field::new("type", u(14)),
        Field::new("present", u(15)),
        Field::new("dpl", u(16)),
        Field::new("db", u(17)),
        Field::new("s", u(18)),
        Field::new("l", u(19)),
        Field::new("g", u(20)),
        Field::new("avl", u(21)),
    ])
}

/// `struct kvm_dtable` at `b`.
fn dtable(b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("base", xint(le64(b, 0))),
        Field::new("limit", Value::UInt(le16(b, 8))),
    ])
}

/// `struct kvm_sregs` (x86): without `-v`, only `cs`.
fn sregs(c: &Ctx, b: &[u8]) -> Value {
    let mut f = vec![Field::new("cs", segment(&b[..24]))];
    if !c.opts.verbose {
        return Value::Struct(f, true);
    }
    for (i, n) in ["ds", "es", "fs", "gs", "ss", "tr", "ldt"]
        .into_iter()
        .enumerate()
    {
        let o = 24 * (i + 1);
        f.push(Field::new(n, segment(&b[o..o + 24])));
    }
    f.push(Field::new("gdt", dtable(&b[192..208])));
    f.push(Field::new("idt", dtable(&b[208..224])));
    for (i, n) in ["cr0", "cr2", "cr3", "cr4", "cr8", "efer"]
        .into_iter()
        .enumerate()
    {
        f.push(Field::new(n, Value::UInt(le64(b, 224 + 8 * i))));
    }
    f.push(Field::new("apic_base", xint(le64(b, 272))));
    let bitmap = (0..4).map(|i| xint(le64(b, 280 + 8 * i))).collect();
    f.push(Field::new("interrupt_bitmap", Value::Array(bitmap, false)));
    Value::structure(f)
}

/// One `struct kvm_cpuid_entry2`.
fn cpuid_entry(c: &Ctx, b: &[u8]) -> Value {
    let x = |o: usize| xint(le32(b, o));
    Value::structure(vec![
        Field::new("function", x(0)),
        Field::new("index", x(4)),
        Field::new(
            "flags",
            xflags(c, le32(b, 8), &xlat::KVM_CPUID_FLAGS, "KVM_CPUID_FLAG_???"),
        ),
        Field::new("eax", x(12)),
        Field::new("ebx", x(16)),
        Field::new("ecx", x(20)),
        Field::new("edx", x(24)),
    ])
}

/// `struct kvm_cpuid2` at `arg`: the entries only with `-v`.
fn cpuid2(c: &mut Ctx, arg: u64) -> Value {
    let b = match fetch(c, arg, CPUID2 as usize) {
        Ok(b) => b,
        Err(v) => return v,
    };
    let nent = le32(&b, 0);
    let entries = if c.opts.verbose {
        array_at(c, arg + CPUID2, nent, CPUID_ENTRY, |c, e| {
            Some(cpuid_entry(c, e))
        })
    } else {
        Value::Array(Vec::new(), nent != 0)
    };
    Value::structure(vec![
        Field::new("nent", Value::UInt(nent)),
        Field::new("entries", entries),
    ])
}

/// Whether this personality's register structures are the x86 ones.
fn x86(c: &Ctx) -> bool {
    matches!(c.arch, Arch::X86_64 | Arch::I386)
}

/// A register structure of `size` bytes at `arg` printed by `f` (x86),
/// or its address elsewhere (strace has no decoder for other machines).
fn regs_arg(c: &mut Ctx, arg: u64, size: usize, f: fn(&Ctx, &[u8]) -> Value) -> Value {
    match fetch(c, arg, size) {
        Ok(b) if x86(c) => f(c, &b),
        Ok(_) => Value::Ptr(arg),
        Err(v) => v,
    }
}

/// The KVM requests (type 0xae), by name.
pub(in crate::syscall::ioctl) fn kvm(c: &mut Ctx, code: u32, arg: u64) -> Io {
    let names = crate::syscall::ioctl::request_names(code);
    let Some(&name) = names.iter().find(|n| n.starts_with("KVM_")) else {
        return Io::Hex;
    };
    let v = match name {
        "KVM_RUN" if c.opts.kvm_vcpu => return kvm_run_ret(c),
        "KVM_CREATE_VCPU" => {
            return Io::Ret(Some(Value::UInt(arg & 0xffff_ffff)), RetFmt::Fd);
        }
        "KVM_CREATE_VM" => return Io::Ret(Some(xint(arg)), RetFmt::Fd),
        "KVM_CHECK_EXTENSION" => c.enum_value(arg, &xlat::KVM_CAP, "KVM_CAP_???"),
        "KVM_SET_USER_MEMORY_REGION" => match fetch(c, arg, 32) {
            Ok(b) => Value::structure(vec![
                Field::new("slot", Value::UInt(le32(&b, 0))),
                Field::new(
                    "flags",
                    xflags(c, le32(&b, 4), &xlat::KVM_MEM_FLAGS, "KVM_MEM_???"),
                ),
                Field::new("guest_phys_addr", xint(le64(&b, 8))),
                Field::new("memory_size", Value::UInt(le64(&b, 16))),
                Field::new("userspace_addr", xint(le64(&b, 24))),
            ]),
            Err(v) => v,
        },
        "KVM_GET_REGS" | "KVM_GET_SREGS" | "KVM_GET_SUPPORTED_CPUID" | "KVM_GET_EMULATED_CPUID"
            if c.entering() =>
        {
            return Io::Exit
        }
        "KVM_GET_REGS" | "KVM_SET_REGS" => regs_arg(c, arg, REGS, regs),
        "KVM_GET_SREGS" | "KVM_SET_SREGS" => regs_arg(c, arg, SREGS, sregs),
        "KVM_SET_CPUID2" | "KVM_GET_SUPPORTED_CPUID" | "KVM_GET_EMULATED_CPUID" => cpuid2(c, arg),
        _ => return Io::Hex,
    };
    Io::Arg(v)
}

/// `-e kvm=vcpu`'s note after a successful `KVM_RUN` on descriptor `fd`:
/// the exit reason in the `struct kvm_run` the tracee mapped from that
/// vCPU (`KVM_EXIT_???` when unnamed), or `None` when no mapping is found.
pub(in crate::syscall::ioctl) fn vcpu_exit_reason(c: &mut Ctx, fd: i64) -> Option<&'static str> {
    let pid = c.pid;
    let path = c.fds.fd_path(pid, fd)?;
    let path = String::from_utf8(path).ok()?;
    path.strip_prefix("anon_inode:kvm-vcpu:")?;
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", c.pid)).ok()?;
    let (start, len) = vcpu_mapping(&maps, &path)?;
    if len < KVM_RUN_SIZE {
        return None;
    }
    let b = c.read_bytes(start + 8, 4)?;
    Some(
        xlat::KVM_EXIT_REASON
            .lookup(le32(&b, 0))
            .unwrap_or("KVM_EXIT_???"),
    )
}

/// `KVM_RUN`'s return value with the exit reason (`0 (KVM_EXIT_HLT)`).
pub(in crate::syscall::ioctl) fn kvm_run_ret(c: &mut Ctx) -> Io {
    if c.entering() {
        return Io::Exit;
    }
    let fd = c.arg(0) as i32 as i64;
    match (c.failed(), vcpu_exit_reason(c, fd)) {
        (false, Some(r)) => Io::Ret(
            Some(xint(c.arg_ulong(2))),
            RetFmt::Value(Ret::Annotated(
                Box::new(Ret::Int(c.retval())),
                Cow::Borrowed(r),
            )),
        ),
        _ => Io::Ret(Some(xint(c.arg_ulong(2))), RetFmt::Int),
    }
}

/// The start and length of the mapping of `file` (an anonymous inode,
/// device major 0) in a `/proc/PID/maps` text.
fn vcpu_mapping(maps: &str, file: &str) -> Option<(u64, u64)> {
    maps.lines().find_map(|l| {
        let mut it = l.split_whitespace();
        let range = it.next()?;
        let (_perms, _off, dev, _ino) = (it.next()?, it.next()?, it.next()?, it.next()?);
        let name = it.collect::<Vec<_>>().join(" ");
        let major = u32::from_str_radix(dev.split(':').next()?, 16).ok()?;
        if name != file || major != 0 {
            return None;
        }
        let (a, b) = range.split_once('-')?;
        let a = u64::from_str_radix(a, 16).ok()?;
        let b = u64::from_str_radix(b, 16).ok()?;
        Some((a, b.saturating_sub(a)))
    })
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ctx::DecodeOpts;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::{run, run_with};

    #[test]
    fn kvm_requests() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xae03, 3], 1, &mut m),
            "ioctl(3, KVM_CHECK_EXTENSION, KVM_CAP_USER_MEMORY) = 1"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0xae41, 0], 5, &mut m),
            "ioctl(4, KVM_CREATE_VCPU, 0) = 5"
        );
        let mut r = vec![0u8; 32];
        r[8] = 0x10;
        r[17] = 0x10;
        r[24] = 0x20;
        let p = m.put(&r);
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0x4020_ae46, p], 0, &mut m),
            "ioctl(4, KVM_SET_USER_MEMORY_REGION, {slot=0, flags=0, guest_phys_addr=0x10, memory_size=4096, userspace_addr=0x20}) = 0"
        );
        let mut regs = vec![0u8; 144];
        regs[0] = 2;
        regs[128] = 0x10;
        let p = m.put(&regs);
        assert_eq!(
            run(ioctl, "ioctl", &[5, 0x4090_ae82, p], 0, &mut m),
            "ioctl(5, KVM_SET_REGS, {rax=0x2, ..., rsp=0, rbp=0, ..., rip=0x10, rflags=0}) = 0"
        );
        let mut cpuid = vec![0u8; 48];
        cpuid[0] = 1;
        cpuid[8] = 0xd;
        cpuid[16] = 1;
        let p = m.put(&cpuid);
        assert_eq!(
            run(ioctl, "ioctl", &[5, 0x4008_ae90, p], 0, &mut m),
            "ioctl(5, KVM_SET_CPUID2, {nent=1, entries=[...]}) = 0"
        );
        let v = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(ioctl, "ioctl", &[5, 0x4008_ae90, p], 0, &mut m, &v),
            "ioctl(5, KVM_SET_CPUID2, {nent=1, entries=[{function=0xd, index=0, flags=KVM_CPUID_FLAG_SIGNIFCANT_INDEX, eax=0, ebx=0, ecx=0, edx=0}]}) = 0"
        );
    }

    #[test]
    fn vcpu_mapping_lookup() {
        let maps = "7f00000000-7f00003000 rw-s 00000000 00:0e 1234 anon_inode:kvm-vcpu:0\n\
                    7f10000000-7f10001000 r--p 00000000 08:01 99 /usr/lib/x\n";
        assert_eq!(
            super::vcpu_mapping(maps, "anon_inode:kvm-vcpu:0"),
            Some((0x7f00000000, 0x3000))
        );
        assert_eq!(super::vcpu_mapping(maps, "anon_inode:kvm-vcpu:1"), None);
        assert_eq!(super::vcpu_mapping(maps, "/usr/lib/x"), None);
    }
}
