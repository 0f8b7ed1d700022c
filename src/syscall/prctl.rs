//! Process control: prctl (the common options; others print their arguments
//! in hex as strace does for options it does not know), arch_prctl, seccomp
//! (without decoding BPF programs) and ptrace (request, pid, and the address
//! and data each request uses; `struct user` offsets print in hex).

use super::printers::{enum_arg, flags_arg, le32, le64, num_at, struct_at, xflags, xint};
use super::signal::{sig_value, siginfo_at, sigset_at};
use super::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(super) const DECODERS: &[(&str, Decoder)] = &[
    ("prctl", prctl),
    ("arch_prctl", arch_prctl),
    ("seccomp", seccomp),
    ("ptrace", ptrace),
];

/// `TASK_COMM_LEN`: the size of a thread name with its NUL.
const TASK_COMM_LEN: usize = 16;

/// Arguments `first..5` of prctl in hex.
fn hex_args(c: &mut Ctx, first: usize) {
    for i in first..5 {
        c.push(xint(c.arg_ulong(i)));
    }
}

/// A NUL-terminated string of at most `max` bytes (also bounded by `-s`).
fn short_str(c: &mut Ctx, addr: u64, max: usize) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let limit = max.min(c.opts.string_limit);
    match c.read_cstr(addr, limit) {
        Some(s) => Value::Str(s),
        None => Value::Unreadable(addr),
    }
}

/// `struct sock_fprog` at `addr`: `{len=4, filter=0x...}`.
fn fprog_at(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    struct_at(c, addr, Some(2 * w), |_, b| {
        let filter = if w == 4 { le32(b, 4) } else { le64(b, 8) };
        Value::structure(vec![
            Field::new("len", Value::UInt(le32(b, 0) & 0xffff)),
            Field::new("filter", Value::Ptr(filter)),
        ])
    })
}

/// An enum value of a full `unsigned long` argument (`printxval64`).
fn enum64(c: &mut Ctx, i: usize, table: &rtrace_arch::Xlat, dflt: &'static str) {
    let v = c.enum_value(c.arg_ulong(i), table, dflt);
    c.push(v);
}

/// `prctl(option, arg2, arg3, arg4, arg5)`.
fn prctl(c: &mut Ctx) -> Step {
    let option = c.arg(0) as u32 as u64;
    let name = xlat::PRCTL_OPTIONS.lookup(option).unwrap_or("");
    let arg2 = c.arg_ulong(1);
    if c.exiting() {
        return prctl_exit(c, name, arg2);
    }
    let opt = c.enum_value(option, &xlat::PRCTL_OPTIONS, "PR_???");
    match name {
        // The return value is annotated: the option prints at exit.
        "PR_GET_DUMPABLE" => return Step::Exit,
        _ => c.push(opt),
    }
    match name {
        "PR_GET_KEEPCAPS"
        | "PR_GET_SECCOMP"
        | "PR_GET_TIMERSLACK"
        | "PR_GET_TIMING"
        | "PR_TASK_PERF_EVENTS_DISABLE"
        | "PR_TASK_PERF_EVENTS_ENABLE"
        | "PR_GET_SECUREBITS" => {}
        "PR_GET_CHILD_SUBREAPER"
        | "PR_GET_ENDIAN"
        | "PR_GET_FPEMU"
        | "PR_GET_FPEXC"
        | "PR_GET_NAME"
        | "PR_GET_PDEATHSIG"
        | "PR_GET_TID_ADDRESS" => return Step::Exit,
        "PR_SET_CHILD_SUBREAPER"
        | "PR_SET_ENDIAN"
        | "PR_SET_FPEMU"
        | "PR_SET_FPEXC"
        | "PR_SET_KEEPCAPS"
        | "PR_SET_TIMING" => c.push(Value::UInt(arg2)),
        "PR_SET_DUMPABLE" => enum64(c, 1, &xlat::PR_DUMPABLE, "SUID_DUMP_???"),
        "PR_CAPBSET_DROP" | "PR_CAPBSET_READ" => enum64(c, 1, &xlat::CAP, "CAP_???"),
        "PR_SET_NAME" => {
            let v = short_str(c, arg2, TASK_COMM_LEN - 1);
            c.push(v);
        }
        "PR_SET_PDEATHSIG" => {
            let v = if arg2 > 128 {
                Value::UInt(arg2)
            } else {
                sig_value(c.opts.xlat_style, arg2 as i64)
            };
            c.push(v);
        }
        "PR_SET_PTRACER" => {
            if arg2 as i32 == -1 {
                c.push(Value::sym("PR_SET_PTRACER_ANY"));
            } else {
                c.int(1);
            }
        }
        "PR_SET_SECCOMP" => {
            enum64(c, 1, &xlat::SECCOMP_MODE, "SECCOMP_MODE_???");
            match xlat::SECCOMP_MODE.lookup(arg2) {
                Some("SECCOMP_MODE_STRICT") => {}
                Some("SECCOMP_MODE_FILTER") => {
                    let v = fprog_at(c, c.arg_ulong(2));
                    c.push(v);
                }
                _ => hex_args(c, 2),
            }
        }
        "PR_SET_TIMERSLACK" => c.push(Value::Int(arg2 as i64)),
        "PR_SET_NO_NEW_PRIVS" | "PR_SET_THP_DISABLE" | "PR_SET_IO_FLUSHER" => {
            c.push(Value::UInt(arg2));
            hex_args(c, 2);
        }
        "PR_SET_VMA" => {
            enum64(c, 1, &xlat::PR_SET_VMA, "PR_SET_VMA_???");
            if arg2 == 0 {
                c.ptr(2);
                c.ulong(3);
                let v = c.cstr_value(c.arg_ulong(4));
                c.push(v);
            } else {
                hex_args(c, 2);
            }
        }
        _ => hex_args(c, 1),
    }
    Step::Done(RetFmt::Int)
}

/// The exit half of prctl's getters.
fn prctl_exit(c: &mut Ctx, name: &str, arg2: u64) -> Step {
    let failed = c.failed();
    match name {
        "PR_GET_DUMPABLE" => {
            let opt = c.enum_value(c.arg(0) as u32 as u64, &xlat::PRCTL_OPTIONS, "PR_???");
            c.push(opt);
            let r = c.retval();
            if let Some(n) = xlat::PR_DUMPABLE.lookup(r as u64).filter(|_| !failed) {
                return Step::Done(RetFmt::Value(Ret::Annotated(
                    Box::new(Ret::Int(r)),
                    Cow::Borrowed(n),
                )));
            }
        }
        "PR_GET_NAME" => {
            let v = if failed {
                Value::Ptr(arg2)
            } else {
                short_str(c, arg2, TASK_COMM_LEN)
            };
            c.push(v);
        }
        "PR_GET_PDEATHSIG" => {
            let v = match (failed, num_at(c, arg2, 4, true)) {
                (true, _) => Value::Ptr(arg2),
                (false, Value::Array(items, more)) => Value::Array(
                    items
                        .into_iter()
                        .map(|it| match it {
                            Value::Int(s) => sig_value(c.opts.xlat_style, s),
                            other => other,
                        })
                        .collect(),
                    more,
                ),
                (false, other) => other,
            };
            c.push(v);
        }
        "PR_GET_TID_ADDRESS" => {
            let w = c.arch.word_size();
            let v = match (failed, num_at(c, arg2, w, false)) {
                (true, _) => Value::Ptr(arg2),
                (false, Value::Array(items, more)) => Value::Array(
                    items
                        .into_iter()
                        .map(|it| match it {
                            Value::UInt(p) => xint(p),
                            other => other,
                        })
                        .collect(),
                    more,
                ),
                (false, other) => other,
            };
            c.push(v);
        }
        _ => {
            // PR_GET_CHILD_SUBREAPER, PR_GET_ENDIAN, PR_GET_FPEMU, PR_GET_FPEXC.
            let v = if failed {
                Value::Ptr(arg2)
            } else {
                num_at(c, arg2, 4, false)
            };
            c.push(v);
        }
    }
    Step::Done(RetFmt::Int)
}

/// `arch_prctl(code, addr)`: `ARCH_GET_FS`/`ARCH_GET_GS` print `[0x...]` at
/// exit; `ARCH_GET_CPUID` has no argument; others print the address in hex.
fn arch_prctl(c: &mut Ctx) -> Step {
    let code = c.arg(0) as u32 as u64;
    let name = xlat::ARCH_PRCTL_CODES.lookup(code).unwrap_or("");
    let addr = c.arg_ulong(1);
    if c.entering() {
        enum_arg(c, 0, &xlat::ARCH_PRCTL_CODES, "ARCH_???");
        match name {
            "ARCH_GET_FS" | "ARCH_GET_GS" => return Step::Exit,
            "ARCH_GET_CPUID" => {}
            _ => c.push(xint(addr)),
        }
        return Step::Done(RetFmt::Int);
    }
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        match num_at(c, addr, 8, false) {
            Value::Array(items, more) => Value::Array(
                items
                    .into_iter()
                    .map(|it| match it {
                        Value::UInt(p) => xint(p),
                        other => other,
                    })
                    .collect(),
                more,
            ),
            other => other,
        }
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `seccomp(operation, flags, args)`.
fn seccomp(c: &mut Ctx) -> Step {
    let op = c.arg(0) as u32 as u64;
    let name = xlat::SECCOMP_OPS.lookup(op).unwrap_or("");
    let args = c.arg_ulong(2);
    if c.exiting() {
        // SECCOMP_GET_NOTIF_SIZES: the three sizes the kernel filled.
        let v = struct_at(c, args, Some(6), |_, b| {
            let u = |off| Value::UInt(super::printers::le16(b, off));
            Value::structure(vec![
                Field::new("seccomp_notif", u(0)),
                Field::new("seccomp_notif_resp", u(2)),
                Field::new("seccomp_data", u(4)),
            ])
        });
        c.push(v);
        return Step::Done(RetFmt::Int);
    }
    enum_arg(c, 0, &xlat::SECCOMP_OPS, "SECCOMP_SET_MODE_???");
    flags_arg(c, 1, &xlat::SECCOMP_FILTER_FLAGS, "SECCOMP_FILTER_FLAG_???");
    match name {
        "SECCOMP_SET_MODE_FILTER" => {
            let v = fprog_at(c, args);
            c.push(v);
        }
        "SECCOMP_GET_ACTION_AVAIL" => {
            let v = match c.read_pod::<u32>(args) {
                _ if args == 0 => Value::Ptr(0),
                Some(a) => Value::Array(
                    vec![c.enum_value(a as u64, &xlat::SECCOMP_RET_ACTION, "SECCOMP_RET_???")],
                    false,
                ),
                None => Value::Unreadable(args),
            };
            c.push(v);
        }
        "SECCOMP_GET_NOTIF_SIZES" => return Step::Exit,
        _ => c.ptr(2),
    }
    Step::Done(RetFmt::Int)
}

// ---- ptrace ----

/// `ptrace(request, pid, addr, data)`.
fn ptrace(c: &mut Ctx) -> Step {
    let req = c.arg_ulong(0);
    let name = xlat::PTRACE_REQUESTS.lookup(req).unwrap_or("");
    let addr = c.arg_ulong(2);
    let data = c.arg_ulong(3);
    if c.exiting() {
        let v = match name {
            "PTRACE_PEEKDATA" | "PTRACE_PEEKTEXT" | "PTRACE_PEEKUSER" => ulong_at(c, data, true),
            "PTRACE_GETEVENTMSG" => ulong_at(c, data, false),
            "PTRACE_GETSIGINFO" => siginfo_at(c, data),
            "PTRACE_GETSIGMASK" => sigset_at(c, data, addr, c.arch.word_size() as u64),
            "PTRACE_GETREGSET" => iovec_at(c, data),
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
    c.int(1);
    match name {
        "PTRACE_ATTACH" | "PTRACE_INTERRUPT" | "PTRACE_KILL" | "PTRACE_LISTEN" => {
            return Step::Done(RetFmt::Int);
        }
        "PTRACE_GETREGSET" | "PTRACE_SETREGSET" => {
            let v = c.enum_value(addr, &xlat::NT_TYPES, "NT_???");
            c.push(v);
        }
        "PTRACE_GETSIGMASK"
        | "PTRACE_SETSIGMASK"
        | "PTRACE_SECCOMP_GET_FILTER"
        | "PTRACE_SECCOMP_GET_METADATA"
        | "PTRACE_GET_SYSCALL_INFO" => {
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
        "PTRACE_SETREGSET" => iovec_at(c, data),
        "PTRACE_PEEKDATA" | "PTRACE_PEEKTEXT" | "PTRACE_PEEKUSER" | "PTRACE_GETEVENTMSG"
        | "PTRACE_GETREGSET" | "PTRACE_GETSIGINFO" | "PTRACE_GETSIGMASK" => {
            return Step::Exit;
        }
        _ => Value::Ptr(data),
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `[value]` of a tracee word at `addr` (hex for pointers), or the address.
fn ulong_at(c: &mut Ctx, addr: u64, hex: bool) -> Value {
    if c.failed() {
        return Value::Ptr(addr);
    }
    let w = c.arch.word_size();
    match num_at(c, addr, w, false) {
        Value::Array(items, more) if hex => Value::Array(
            items
                .into_iter()
                .map(|it| match it {
                    Value::UInt(p) => xint(p),
                    other => other,
                })
                .collect(),
            more,
        ),
        other => other,
    }
}

/// One `struct iovec` shown as strace's `tprint_iov(1, ..., IOV_DECODE_ADDR)`:
/// `[{iov_base=0x..., iov_len=216}]`.
fn iovec_at(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    struct_at(c, addr, Some(2 * w), |_, b| {
        let get = |off| if w == 4 { le32(b, off) } else { le64(b, off) };
        Value::Array(
            vec![Value::structure(vec![
                Field::new("iov_base", Value::Ptr(get(0))),
                Field::new("iov_len", Value::UInt(get(w))),
            ])],
            false,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::memory::FakeMemory;
    use super::super::testutil::run;
    use super::*;

    #[test]
    fn prctls() {
        let mut m = FakeMemory::default();
        let name = m.put(b"probe\0");
        assert_eq!(
            run(prctl, "prctl", &[15, name], 0, &mut m),
            "prctl(PR_SET_NAME, \"probe\") = 0"
        );
        assert_eq!(
            run(prctl, "prctl", &[16, name], 0, &mut m),
            "prctl(PR_GET_NAME, \"probe\") = 0"
        );
        assert_eq!(
            run(prctl, "prctl", &[1, 9], 0, &mut m),
            "prctl(PR_SET_PDEATHSIG, SIGKILL) = 0"
        );
        assert_eq!(
            run(prctl, "prctl", &[3], 1, &mut m),
            "prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)"
        );
        assert_eq!(
            run(prctl, "prctl", &[38, 1, 0, 0, 0], 0, &mut m),
            "prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) = 0"
        );
        assert_eq!(
            run(prctl, "prctl", &[23, 0], 1, &mut m),
            "prctl(PR_CAPBSET_READ, CAP_CHOWN) = 1"
        );
        assert_eq!(
            run(prctl, "prctl", &[24, 99], -22, &mut m),
            "prctl(PR_CAPBSET_DROP, 0x63 /* CAP_??? */) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(prctl, "prctl", &[0x1234, 1, 2, 3, 4], -22, &mut m),
            "prctl(0x1234 /* PR_??? */, 0x1, 0x2, 0x3, 0x4) = -1 EINVAL (Invalid argument)"
        );
        let sig = m.put(&0u32.to_le_bytes());
        assert_eq!(
            run(prctl, "prctl", &[2, sig], 0, &mut m),
            "prctl(PR_GET_PDEATHSIG, [0]) = 0"
        );
        assert_eq!(
            run(prctl, "prctl", &[21], 2, &mut m),
            "prctl(PR_GET_SECCOMP) = 2"
        );
        assert_eq!(
            run(prctl, "prctl", &[4, 1], 0, &mut m),
            "prctl(PR_SET_DUMPABLE, SUID_DUMP_USER) = 0"
        );
        assert_eq!(
            run(prctl, "prctl", &[29, 50000], 0, &mut m),
            "prctl(PR_SET_TIMERSLACK, 50000) = 0"
        );
        assert_eq!(
            run(prctl, "prctl", &[0x5961_6d61, u64::MAX], -22, &mut m),
            "prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY) = -1 EINVAL (Invalid argument)"
        );
        let tid = m.put(&0x7fe9_c1a4_fa10u64.to_le_bytes());
        assert_eq!(
            run(prctl, "prctl", &[40, tid], 0, &mut m),
            "prctl(PR_GET_TID_ADDRESS, [0x7fe9c1a4fa10]) = 0"
        );
        let mut fp = 1u64.to_le_bytes().to_vec();
        fp.extend_from_slice(&0x7ffd_6739_e218u64.to_le_bytes());
        let fp = m.put(&fp);
        assert_eq!(
            run(prctl, "prctl", &[22, 2, fp], 0, &mut m),
            "prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, {len=1, filter=0x7ffd6739e218}) = 0"
        );
        let nm = m.put(b"nm\0");
        assert_eq!(
            run(prctl, "prctl", &[0x5356_4d41, 0, 0x1000, 4096, nm], -22, &mut m),
            "prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, 0x1000, 4096, \"nm\") = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn arch_prctls() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(
                arch_prctl,
                "arch_prctl",
                &[0x1002, 0x7f49_c6de_c740],
                0,
                &mut m
            ),
            "arch_prctl(ARCH_SET_FS, 0x7f49c6dec740) = 0"
        );
        let fs = m.put(&0x7feb_9df0_a740u64.to_le_bytes());
        assert_eq!(
            run(arch_prctl, "arch_prctl", &[0x1003, fs], 0, &mut m),
            "arch_prctl(ARCH_GET_FS, [0x7feb9df0a740]) = 0"
        );
        assert_eq!(
            run(arch_prctl, "arch_prctl", &[0x1234, 0], -22, &mut m),
            "arch_prctl(0x1234 /* ARCH_??? */, 0) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn seccomps() {
        let mut m = FakeMemory::default();
        let mut fp = 1u64.to_le_bytes().to_vec();
        fp.extend_from_slice(&0x7ffd_6739_e218u64.to_le_bytes());
        let fp = m.put(&fp);
        assert_eq!(
            run(seccomp, "seccomp", &[1, 2, fp], 0, &mut m),
            "seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, {len=1, filter=0x7ffd6739e218}) = 0"
        );
        assert_eq!(
            run(seccomp, "seccomp", &[99, 0, 0], -22, &mut m),
            "seccomp(0x63 /* SECCOMP_SET_MODE_??? */, 0, NULL) = -1 EINVAL (Invalid argument)"
        );
        let act = m.put(&0u32.to_le_bytes());
        assert_eq!(
            run(seccomp, "seccomp", &[2, 0, act], 0, &mut m),
            "seccomp(SECCOMP_GET_ACTION_AVAIL, 0, [SECCOMP_RET_KILL_THREAD]) = 0"
        );
        let sizes = m.put(&[80, 0, 24, 0, 64, 0]);
        assert_eq!(
            run(seccomp, "seccomp", &[3, 0, sizes], 0, &mut m),
            "seccomp(SECCOMP_GET_NOTIF_SIZES, 0, {seccomp_notif=80, seccomp_notif_resp=24, seccomp_data=64}) = 0"
        );
    }

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
        let mut iov = 0x7000u64.to_le_bytes().to_vec();
        iov.extend_from_slice(&216u64.to_le_bytes());
        let iov = m.put(&iov);
        assert_eq!(
            run(ptrace, "ptrace", &[0x4204, 5, 1, iov], 0, &mut m),
            "ptrace(PTRACE_GETREGSET, 5, NT_PRSTATUS, [{iov_base=0x7000, iov_len=216}]) = 0"
        );
    }
}
