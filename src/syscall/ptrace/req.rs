//! ptrace(2) requests as strace 7.2 prints them: the request, the pid, and
//! the address and data each request uses: words read back (`[0x1234]`),
//! `struct user` offsets (`8*RIP`, `offsetof(struct user, u_debugreg)+8`),
//! register sets (`{r15=…, …}`, `{cwd=…, …}` for the x86_64 layouts),
//! options, signals, siginfo and signal masks.
//!
//! The `struct user` offsets and register layouts are x86_64's; other
//! personalities print those arguments in hex or as the address.

use crate::syscall::printers::{le16, le32, le64, num_at, xflags, xint};
use crate::syscall::signal::{sig_value, siginfo_array_at, siginfo_at, sigset_at};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::{x86_64, xlat, Arch};

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[("ptrace", ptrace)];

/// `NT_PRSTATUS` and `NT_FPREGSET`: the register sets decoded here.
const NT_PRSTATUS: u64 = 1;
const NT_FPREGSET: u64 = 2;

/// Size of x86_64's `struct user_regs_struct`.
const REGS_SIZE: usize = 27 * 8;
/// Size of x86_64's `struct user_fpregs_struct`.
const FPREGS_SIZE: usize = 512;

/// The fields of x86_64's `struct user` after the registers, by offset
/// (`arch/x86/include/asm/user_64.h`), as strace names them.
const USER_FIELDS: &[(u64, &str)] = &[
    (216, "u_fpvalid"),
    (224, "i387"),
    (736, "u_tsize"),
    (744, "u_dsize"),
    (752, "u_ssize"),
    (760, "start_code"),
    (768, "start_stack"),
    (776, "signal"),
    (784, "reserved"),
    (792, "u_ar0"),
    (800, "u_fpstate"),
    (808, "magic"),
    (816, "u_comm"),
    (848, "u_debugreg"),
];
/// `sizeof(struct user)` on x86_64.
const USER_SIZE: u64 = 912;

/// A `struct user` offset: `8*RIP`, `8*RIP+4`, `offsetof(struct user, X)+N`.
fn user_offset(c: &Ctx, off: u64) -> Value {
    if c.arch != Arch::X86_64 || c.opts.xlat_style == 1 {
        return xint(off);
    }
    if off < REGS_SIZE as u64 {
        let name = x86_64::REG_NAMES[(off / 8) as usize].to_uppercase();
        let rest = off % 8;
        return Value::sym_owned(if rest == 0 {
            format!("8*{name}")
        } else {
            format!("8*{name}+{rest}")
        });
    }
    if off >= USER_SIZE {
        return xint(off);
    }
    let (base, name) = USER_FIELDS
        .iter()
        .rev()
        .find(|(b, _)| *b <= off)
        .copied()
        .unwrap_or((216, "u_fpvalid"));
    let s = format!("offsetof(struct user, {name})");
    Value::sym_owned(if off == base {
        s
    } else {
        format!("{s}+{}", off - base)
    })
}

/// `{r15=0x…, …}`: the first `len` bytes of x86_64's `user_regs_struct`.
fn regs_value(b: &[u8], len: usize) -> Value {
    let n = (len / 8).min(27);
    Value::structure(
        (0..n)
            .map(|i| Field::new(x86_64::REG_NAMES[i], xint(le64(b, 8 * i))))
            .collect(),
    )
}

/// `[0x…, …]` of `n` 32-bit words at `off` (abbreviated past `-s` like
/// strace's `print_array`).
fn words(c: &mut Ctx, b: &[u8], off: usize, n: usize) -> Value {
    let limit = if c.opts.verbose {
        n
    } else {
        n.min(c.opts.string_limit)
    };
    let items = (0..limit).map(|i| xint(le32(b, off + 4 * i))).collect();
    Value::Array(items, limit < n)
}

/// x86_64's `struct user_fpregs_struct`, the fields that start within the
/// `n` bytes fetched (strace prints a partial set field by field).
fn fpregs_value(c: &mut Ctx, b: &[u8], n: usize) -> Value {
    let h = |off| xint(le16(b, off));
    let mut f = Vec::new();
    let scalars: [(usize, &'static str, Value); 8] = [
        (0, "cwd", h(0)),
        (2, "swd", h(2)),
        (4, "ftw", h(4)),
        (6, "fop", h(6)),
        (8, "rip", xint(le64(b, 8))),
        (16, "rdp", xint(le64(b, 16))),
        (24, "mxcsr", xint(le32(b, 24))),
        (28, "mxcr_mask", xint(le32(b, 28))),
    ];
    for (off, name, v) in scalars {
        if n > off {
            f.push(Field::new(name, v));
        }
    }
    for (off, name, count) in [
        (32, "st_space", 32),
        (160, "xmm_space", 64),
        (416, "padding", 24),
    ] {
        if n > off {
            let k = ((n - off) / 4).min(count);
            f.push(Field::new(name, words(c, b, off, k)));
        }
    }
    Value::structure(f)
}

/// A register set of type `nt` of `len` bytes at `addr`, or the address:
/// strace prints the address for an empty set, a size that is not a whole
/// number of 8-byte slots, or a failed call.
fn regset_value(c: &mut Ctx, nt: u64, addr: u64, len: usize) -> Value {
    regset_value_in(c, nt, addr, len, c.failed())
}

/// [`regset_value`] with the failure decided by the caller (PTRACE_SETREGSET
/// shows what it passed even when the call failed).
fn regset_value_in(c: &mut Ctx, nt: u64, addr: u64, len: usize, failed: bool) -> Value {
    if c.arch != Arch::X86_64 || failed || len == 0 || !len.is_multiple_of(8) {
        return Value::Ptr(addr);
    }
    let more = |v: Value, full: usize| match v {
        Value::Struct(f, _) if len > full => Value::Struct(f, true),
        other => other,
    };
    match nt {
        NT_PRSTATUS => {
            let n = len.min(REGS_SIZE);
            match c.read_bytes(addr, n) {
                Some(b) => more(regs_value(&b, n), REGS_SIZE),
                None => Value::Unreadable(addr),
            }
        }
        NT_FPREGSET => {
            let n = len.min(FPREGS_SIZE);
            match c.read_bytes(addr, n) {
                Some(b) => more(fpregs_value(c, &b, n), FPREGS_SIZE),
                None => Value::Unreadable(addr),
            }
        }
        _ => Value::Ptr(addr),
    }
}

/// Reads the `(iov_base, iov_len)` of the iovec at `addr`.
fn read_iov(c: &mut Ctx, addr: u64) -> Option<(u64, u64)> {
    let w = c.arch.word_size();
    let b = c.read_bytes(addr, 2 * w)?;
    let get = |off| if w == 4 { le32(&b, off) } else { le64(&b, off) };
    Some((get(0), get(w)))
}

/// `{iov_base=…, iov_len=N}` of a register-set iovec at `addr`; at exit of
/// PTRACE_GETREGSET, `iov_len=OLD => NEW` when the kernel changed it.
fn regset_iov(c: &mut Ctx, nt: u64, addr: u64, set: bool) -> Value {
    let Some((base, len)) = read_iov(c, addr) else {
        return Value::Ptr(addr);
    };
    let failed = c.failed() && !set;
    let bv = regset_value_in(
        c,
        nt,
        base,
        (if set { c.saved } else { len }) as usize,
        failed,
    );
    let old = if c.exiting() { c.saved } else { len };
    let lv = if old == len {
        Value::UInt(len)
    } else {
        Value::Changed(Box::new(Value::UInt(old)), Box::new(Value::UInt(len)))
    };
    Value::structure(vec![Field::new("iov_base", bv), Field::new("iov_len", lv)])
}

/// `PTRACE_PEEKSIGINFO_*` flags.
static PEEKSIGINFO_FLAGS: rtrace_arch::Xlat = rtrace_arch::Xlat {
    name: "ptrace_peeksiginfo_flags",
    kind: rtrace_arch::xlat::XlatKind::Flags,
    entries: &[(1, "PTRACE_PEEKSIGINFO_SHARED")],
};

/// `{off=N, flags=…, nr=N}`: the `struct ptrace_peeksiginfo_args` at `addr`.
fn peeksiginfo_args(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    match c.read_bytes(addr, 16) {
        Some(b) => Value::structure(vec![
            Field::new("off", Value::UInt(le64(&b, 0))),
            Field::new(
                "flags",
                xflags(c, le32(&b, 8), &PEEKSIGINFO_FLAGS, "PTRACE_PEEKSIGINFO_???"),
            ),
            Field::new("nr", Value::UInt(le32(&b, 12))),
        ]),
        None => Value::Unreadable(addr),
    }
}

/// `[value]` of a tracee word at `addr` read back by PTRACE_PEEK*.
fn peek_at(c: &mut Ctx, addr: u64) -> Value {
    if c.failed() {
        return Value::Ptr(addr);
    }
    let w = c.arch.word_size();
    match num_at(c, addr, w, false) {
        Value::Array(items, more) => Value::Array(
            items
                .into_iter()
                .map(|it| match it {
                    Value::UInt(p) => Value::Ptr(p),
                    other => other,
                })
                .collect(),
            more,
        ),
        other => other,
    }
}

/// The whole-set register requests that take no address argument.
fn regs_request(name: &str) -> Option<(bool, u64)> {
    match name {
        "PTRACE_GETREGS" => Some((false, NT_PRSTATUS)),
        "PTRACE_SETREGS" => Some((true, NT_PRSTATUS)),
        "PTRACE_GETFPREGS" => Some((false, NT_FPREGSET)),
        "PTRACE_SETFPREGS" => Some((true, NT_FPREGSET)),
        _ => None,
    }
}

/// The full-size register set of type `nt` at `addr`.
fn regs_at(c: &mut Ctx, nt: u64, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let len = if nt == NT_PRSTATUS {
        REGS_SIZE
    } else {
        FPREGS_SIZE
    };
    regset_value(c, nt, addr, len)
}

/// `ptrace(request, pid, addr, data)`.
fn ptrace(c: &mut Ctx) -> Step {
    let req = c.arg_ulong(0);
    let name = xlat::PTRACE_REQUESTS.lookup(req).unwrap_or("");
    let addr = c.arg_ulong(2);
    let data = c.arg_ulong(3);
    if c.exiting() && name == "PTRACE_SETREGSET" {
        // Decoded at exit to show `iov_len=OLD => NEW` when the kernel
        // shortened it, from the buffer the call left unchanged.
        let v = regset_iov(c, addr, data, true);
        c.push(v);
        return Step::Done(RetFmt::Int);
    }
    if c.exiting() {
        let v = match name {
            "PTRACE_PEEKDATA" | "PTRACE_PEEKTEXT" | "PTRACE_PEEKUSER" => peek_at(c, data),
            "PTRACE_GETEVENTMSG" if !c.failed() => num_at(c, data, c.arch.word_size(), false),
            "PTRACE_GETSIGINFO" => siginfo_at(c, data),
            "PTRACE_GETSIGMASK" => sigset_at(c, data, addr, c.arch.word_size() as u64),
            "PTRACE_GETREGSET" => regset_iov(c, addr, data, false),
            "PTRACE_PEEKSIGINFO" if !c.failed() => {
                let n = c.retval() as u64;
                siginfo_array_at(c, data, n)
            }
            "PTRACE_GET_SYSCALL_INFO" if !c.failed() => {
                let kernel_len = c.retval() as u64;
                crate::syscall::ptrace::info::syscall_info(c, data, addr, kernel_len)
            }
            "PTRACE_SECCOMP_GET_METADATA" => {
                crate::syscall::ptrace::info::seccomp_metadata(c, data, addr)
            }
            "PTRACE_SECCOMP_GET_FILTER" if !c.failed() => {
                // The call returns the number of instructions it copied.
                let n = c.retval() as u64;
                crate::syscall::seccomp_filter::program(c, data, n)
            }
            "PTRACE_GETREGS" | "PTRACE_GETFPREGS" if !c.failed() => {
                let nt = regs_request(name).map_or(0, |r| r.1);
                regs_at(c, nt, data)
            }
            _ => Value::Ptr(data),
        };
        c.push(v);
        return Step::Done(RetFmt::Int);
    }
    let v = c.enum_value(req, &xlat::PTRACE_REQUESTS, "PTRACE_???");
    c.push(v);
    if name == "PTRACE_TRACEME" {
        return Step::Done(RetFmt::Int);
    }
    c.pid(1);
    if let Some((set, nt)) = regs_request(name) {
        if !set {
            return Step::Exit;
        }
        let v = regs_at(c, nt, data);
        c.push(v);
        return Step::Done(RetFmt::Int);
    }
    match name {
        "PTRACE_ATTACH" | "PTRACE_INTERRUPT" | "PTRACE_KILL" | "PTRACE_LISTEN" => {
            return Step::Done(RetFmt::Int);
        }
        "PTRACE_GETREGSET" | "PTRACE_SETREGSET" => {
            let v = c.enum_value(addr, &xlat::NT_TYPES, "NT_???");
            c.push(v);
        }
        "PTRACE_PEEKSIGINFO" => {
            let v = peeksiginfo_args(c, addr);
            c.push(v);
        }
        "PTRACE_PEEKUSER" | "PTRACE_POKEUSER" => {
            let v = user_offset(c, addr);
            c.push(v);
        }
        "PTRACE_GETSIGMASK"
        | "PTRACE_SETSIGMASK"
        | "PTRACE_SECCOMP_GET_FILTER"
        | "PTRACE_SECCOMP_GET_METADATA"
        | "PTRACE_GET_SYSCALL_INFO"
        | "PTRACE_SET_SYSCALL_INFO" => {
            c.push(Value::UInt(addr));
        }
        _ => c.push(Value::Ptr(addr)),
    }
    let style = c.opts.xlat_style;
    let v = match name {
        "PTRACE_CONT"
        | "PTRACE_DETACH"
        | "PTRACE_SYSCALL"
        | "PTRACE_SINGLESTEP"
        | "PTRACE_SINGLEBLOCK"
        | "PTRACE_SYSEMU"
        | "PTRACE_SYSEMU_SINGLESTEP" => sig_value(style, data as i64),
        "PTRACE_SEIZE" | "PTRACE_SETOPTIONS" | "PTRACE_OLDSETOPTIONS" => {
            xflags(c, data, &xlat::PTRACE_OPTIONS, "PTRACE_O_???")
        }
        "PTRACE_SETSIGINFO" => siginfo_at(c, data),
        "PTRACE_SETSIGMASK" => sigset_at(c, data, addr, c.arch.word_size() as u64),
        "PTRACE_SET_SYSCALL_INFO" => {
            crate::syscall::ptrace::info::syscall_info(c, data, addr, u64::MAX)
        }
        "PTRACE_SETREGSET" | "PTRACE_GETREGSET" => match read_iov(c, data) {
            Some((_, len)) => {
                c.saved = len;
                return Step::Exit;
            }
            None => Value::Ptr(data),
        },
        "PTRACE_PEEKDATA"
        | "PTRACE_PEEKTEXT"
        | "PTRACE_PEEKUSER"
        | "PTRACE_GETEVENTMSG"
        | "PTRACE_PEEKSIGINFO"
        | "PTRACE_GETSIGINFO"
        | "PTRACE_GETSIGMASK"
        | "PTRACE_GET_SYSCALL_INFO"
        | "PTRACE_SECCOMP_GET_FILTER"
        | "PTRACE_SECCOMP_GET_METADATA" => {
            return Step::Exit;
        }
        _ => Value::Ptr(data),
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn ptraces() {
        let mut m = FakeMemory::default();
        let e = -3i64;
        assert_eq!(
            run(ptrace, "ptrace", &[0, 0, 0, 0], -1, &mut m),
            "ptrace(PTRACE_TRACEME) = -1 EPERM (Operation not permitted)"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[7, 1, 0, 2], e, &mut m),
            "ptrace(PTRACE_CONT, 1, NULL, SIGINT) = -1 ESRCH (No such process)"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[0x4200, 1, 0, 9], e, &mut m),
            "ptrace(PTRACE_SETOPTIONS, 1, NULL, PTRACE_O_TRACESYSGOOD|PTRACE_O_TRACECLONE) = -1 ESRCH (No such process)"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[0x10, 999999, 0, 0], e, &mut m),
            "ptrace(PTRACE_ATTACH, 999999) = -1 ESRCH (No such process)"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[2, 1, 0x1000, 0], e, &mut m),
            "ptrace(PTRACE_PEEKDATA, 1, 0x1000, NULL) = -1 ESRCH (No such process)"
        );
        let word = m.put(&0x1234u64.to_le_bytes());
        assert_eq!(
            run(ptrace, "ptrace", &[2, 1, 0x1000, word], 0, &mut m),
            "ptrace(PTRACE_PEEKDATA, 1, 0x1000, [0x1234]) = 0"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[0x4201, 1, 0, word], 0, &mut m),
            "ptrace(PTRACE_GETEVENTMSG, 1, NULL, [4660]) = 0"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[5, 1, 0x1000, 0x1234], e, &mut m),
            "ptrace(PTRACE_POKEDATA, 1, 0x1000, 0x1234) = -1 ESRCH (No such process)"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[0x7777, 1, 0x1000, 0x1234], e, &mut m),
            "ptrace(0x7777 /* PTRACE_??? */, 1, 0x1000, 0x1234) = -1 ESRCH (No such process)"
        );
    }

    #[test]
    fn user_offsets_and_regs() {
        let mut m = FakeMemory::default();
        let zero = m.put(&0u64.to_le_bytes());
        assert_eq!(
            run(ptrace, "ptrace", &[3, 5, 8 * 16 + 4, zero], 0, &mut m),
            "ptrace(PTRACE_PEEKUSER, 5, 8*RIP+4, [NULL]) = 0"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[3, 5, 848 + 56, zero], 0, &mut m),
            "ptrace(PTRACE_PEEKUSER, 5, offsetof(struct user, u_debugreg)+56, [NULL]) = 0"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[6, 5, 80, 5], 0, &mut m),
            "ptrace(PTRACE_POKEUSER, 5, 8*RAX, 0x5) = 0"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[3, 5, 100000, 0x1000], -5, &mut m),
            "ptrace(PTRACE_PEEKUSER, 5, 0x186a0, 0x1000) = -1 EIO (Input/output error)"
        );
        let mut regs = vec![0u8; REGS_SIZE];
        regs[..8].copy_from_slice(&0x13u64.to_le_bytes());
        let r = m.put(&regs);
        let got = run(ptrace, "ptrace", &[12, 5, 0, r], 0, &mut m);
        assert!(
            got.starts_with("ptrace(PTRACE_GETREGS, 5, {r15=0x13, r14=0, ")
                && got.ends_with(", fs=0, gs=0}) = 0"),
            "{got}"
        );
        let mut iov = r.to_le_bytes().to_vec();
        iov.extend_from_slice(&8u64.to_le_bytes());
        let iov = m.put(&iov);
        assert_eq!(
            run(ptrace, "ptrace", &[0x4204, 5, 1, iov], 0, &mut m),
            "ptrace(PTRACE_GETREGSET, 5, NT_PRSTATUS, {iov_base={r15=0x13}, iov_len=8}) = 0"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[12, -1i64 as u64, 0, 0x1000], -3, &mut m),
            "ptrace(PTRACE_GETREGS, -1, 0x1000) = -1 ESRCH (No such process)"
        );
    }

    #[test]
    fn peeksiginfo_and_partial_regsets() {
        let mut m = FakeMemory::default();
        let mut args = 7u64.to_le_bytes().to_vec();
        args.extend_from_slice(&1u32.to_le_bytes());
        args.extend_from_slice(&2u32.to_le_bytes());
        let args = m.put(&args);
        let mut si = vec![0u8; 256];
        si[0] = 10;
        si[8..12].copy_from_slice(&(-6i32).to_le_bytes());
        si[16] = 42;
        si[128] = 12;
        si[136..140].copy_from_slice(&(-6i32).to_le_bytes());
        si[144] = 42;
        let si = m.put(&si);
        assert_eq!(
            run(ptrace, "ptrace", &[0x4209, 42, args, si], 2, &mut m),
            "ptrace(PTRACE_PEEKSIGINFO, 42, {off=7, flags=PTRACE_PEEKSIGINFO_SHARED, nr=2}, [{si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=42, si_uid=0}, {si_signo=SIGUSR2, si_code=SI_TKILL, si_pid=42, si_uid=0}]) = 2"
        );
        assert_eq!(
            run(ptrace, "ptrace", &[0x4209, 42, args, 0x10], -3, &mut m),
            "ptrace(PTRACE_PEEKSIGINFO, 42, {off=7, flags=PTRACE_PEEKSIGINFO_SHARED, nr=2}, 0x10) = -1 ESRCH (No such process)"
        );
        let regs = m.put(&[0u8; 16]);
        let mut iov = regs.to_le_bytes().to_vec();
        iov.extend_from_slice(&9u64.to_le_bytes());
        let iov = m.put(&iov);
        assert_eq!(
            run(ptrace, "ptrace", &[0x4205, 5, 1, iov], -22, &mut m),
            format!("ptrace(PTRACE_SETREGSET, 5, NT_PRSTATUS, {{iov_base={regs:#x}, iov_len=9}}) = -1 EINVAL (Invalid argument)")
        );
        let mut iov = regs.to_le_bytes().to_vec();
        iov.extend_from_slice(&8u64.to_le_bytes());
        let iov = m.put(&iov);
        assert_eq!(
            run(ptrace, "ptrace", &[0x4204, 5, 2, iov], 0, &mut m),
            "ptrace(PTRACE_GETREGSET, 5, NT_FPREGSET, {iov_base={cwd=0, swd=0, ftw=0, fop=0}, iov_len=8}) = 0"
        );
    }
}
