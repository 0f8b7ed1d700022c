//! Process control: prctl (the common options; others print their arguments
//! in hex as strace does for options it does not know), arch_prctl and
//! seccomp (BPF programs under `-v` in `seccomp_filter.rs`; arm64 and
//! newer options in `ext.rs`; MDWE, RISC-V and PowerPC ones in
//! `exec_ctl.rs`). ptrace is in `../ptrace/req.rs`.

mod exec_ctl;
pub(in crate::syscall) mod ext;

use crate::syscall::printers::{enum_arg, flags_arg, num_at, struct_at, xflags, xint};
use crate::syscall::signal::sig_value;
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("prctl", prctl),
    ("arch_prctl", arch_prctl),
    ("seccomp", seccomp),
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

/// `struct sock_fprog` at `addr` (the program decoded under `-v`).
fn fprog_at(c: &mut Ctx, addr: u64) -> Value {
    crate::syscall::seccomp_filter::fprog(c, addr)
}

/// An enum value of a full `unsigned long` argument (`printxval64`).
fn enum64(c: &mut Ctx, i: usize, table: &rtrace_arch::Xlat, dflt: &'static str) {
    let raw = c.arg_ulong(i);
    let v = match c.enum_value(raw, table, dflt) {
        // printxval64 prints an unknown value in hex, even a "negative" one.
        Value::Int(_) => Value::Hex(raw),
        Value::Commented(b, t) if matches!(*b, Value::Int(_)) => {
            Value::Commented(Box::new(Value::Hex(raw)), t)
        }
        other => other,
    };
    c.push(v);
}

/// `prctl(option, arg2, arg3, arg4, arg5)`.
fn prctl(c: &mut Ctx) -> Step {
    let option = c.arg(0) as u32 as u64;
    let name = xlat::PRCTL_OPTIONS.lookup(option).unwrap_or("");
    let arg2 = c.arg_ulong(1);
    if c.exiting() {
        if let Some(step) = exec_ctl::exit(c, name) {
            return step;
        }
        if let Some(step) = crate::syscall::prctl::ext::exit(c, name) {
            return step;
        }
        return prctl_exit(c, name, arg2);
    }
    if let Some(step) = exec_ctl::entry(c, name) {
        return step;
    }
    if let Some(step) = crate::syscall::prctl::ext::entry(c, name) {
        return step;
    }
    let opt = c.enum_value(option, &xlat::PRCTL_OPTIONS, "PR_???");
    match name {
        // The return value is annotated: the option prints at exit.
        "PR_GET_DUMPABLE" | "PR_GET_SECUREBITS" | "PR_MCE_KILL_GET" => return Step::Exit,
        "PR_GET_SPECULATION_CTRL" => {
            c.push(opt);
            enum64(c, 1, &xlat::PR_SPEC_CMDS, "PR_SPEC_???");
            return Step::Exit;
        }
        _ => c.push(opt),
    }
    match name {
        "PR_GET_KEEPCAPS"
        | "PR_GET_SECCOMP"
        | "PR_GET_TIMERSLACK"
        | "PR_GET_TIMING"
        | "PR_TASK_PERF_EVENTS_DISABLE"
        | "PR_TASK_PERF_EVENTS_ENABLE" => {}
        "PR_GET_TSC" => return Step::Exit,
        "PR_SET_SECUREBITS" => {
            let v = xflags(c, arg2, &xlat::SECBITS, "SECBIT_???");
            c.push(v);
        }
        "PR_SET_FP_MODE" => {
            let v = xflags(c, arg2, &xlat::PR_FP_MODE, "PR_FP_MODE_???");
            c.push(v);
        }
        "PR_SET_MM" => {
            enum64(c, 1, &xlat::PR_SET_MM, "PR_SET_MM_???");
            hex_args(c, 2);
        }
        "PR_CAP_AMBIENT" => {
            enum64(c, 1, &xlat::PR_CAP_AMBIENT, "PR_CAP_AMBIENT_???");
            match xlat::PR_CAP_AMBIENT.lookup(arg2) {
                Some("PR_CAP_AMBIENT_IS_SET" | "PR_CAP_AMBIENT_RAISE" | "PR_CAP_AMBIENT_LOWER") => {
                    enum64(c, 2, &xlat::CAP, "CAP_???");
                    hex_args(c, 3);
                }
                _ => hex_args(c, 2),
            }
        }
        "PR_MCE_KILL" => {
            enum64(c, 1, &xlat::PR_MCE_KILL, "PR_MCE_KILL_???");
            if xlat::PR_MCE_KILL.lookup(arg2) == Some("PR_MCE_KILL_SET") {
                enum64(c, 2, &xlat::PR_MCE_KILL_POLICY, "PR_MCE_KILL_???");
            } else {
                c.push(xint(c.arg_ulong(2)));
            }
            hex_args(c, 3);
        }
        "PR_SET_SYSCALL_USER_DISPATCH" => {
            enum64(c, 1, &xlat::PR_SYS_DISPATCH, "PR_SYS_DISPATCH_???");
            c.push(xint(c.arg_ulong(2)));
            c.push(xint(c.arg_ulong(3)));
            c.ptr(4);
        }
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
        "PR_SET_PDEATHSIG" => {
            let v = if arg2 > 128 {
                Value::UInt(arg2)
            } else {
                sig_value(c.opts.xlat_style, arg2 as i64)
            };
            c.push(v);
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
        "PR_GET_SECUREBITS" | "PR_MCE_KILL_GET" | "PR_GET_SPECULATION_CTRL" => {
            return prctl_annotated(c, name);
        }
        "PR_GET_TSC" => {
            let v = match (failed, num_at(c, arg2, 4, false)) {
                (true, _) => Value::Ptr(arg2),
                (false, Value::Array(items, more)) => Value::Array(
                    items
                        .into_iter()
                        .map(|it| match it {
                            Value::UInt(m) => c.enum_value(m, &xlat::PR_TSC, "PR_TSC_???"),
                            other => other,
                        })
                        .collect(),
                    more,
                ),
                (false, other) => other,
            };
            c.push(v);
        }
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

/// Getters whose return value strace annotates: `= 0x10 (SECBIT_KEEP_CAPS)`,
/// `= 1 (PR_MCE_KILL_EARLY)`, `= 0x3 (PR_SPEC_PRCTL|PR_SPEC_ENABLE)`.
fn prctl_annotated(c: &mut Ctx, name: &str) -> Step {
    if name != "PR_GET_SPECULATION_CTRL" {
        let opt = c.enum_value(c.arg(0) as u32 as u64, &xlat::PRCTL_OPTIONS, "PR_???");
        c.push(opt);
    }
    if name == "PR_MCE_KILL_GET" {
        hex_args(c, 1);
    }
    let r = c.retval();
    if c.failed() {
        return Step::Done(RetFmt::Int);
    }
    let (shown, text) = match name {
        "PR_MCE_KILL_GET" => match xlat::PR_MCE_KILL_POLICY.lookup(r as u64) {
            Some(n) => (Ret::Int(r), n.to_string()),
            None => return Step::Done(RetFmt::Int),
        },
        _ => {
            let table = if name == "PR_GET_SECUREBITS" {
                &xlat::SECBITS
            } else {
                &xlat::PR_SPEC_FLAGS
            };
            if r == 0 && table.lookup(0).is_none() {
                return Step::Done(RetFmt::Int);
            }
            let v = xflags(c, r as u64, table, "");
            let shown = if r == 0 {
                Ret::Int(0)
            } else {
                Ret::Hex(r as u64)
            };
            (shown, crate::syscall::ctx::render_flags(&v))
        }
    };
    Step::Done(RetFmt::Value(Ret::Annotated(
        Box::new(shown),
        Cow::Owned(text),
    )))
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
            "ARCH_GET_FS"
            | "ARCH_GET_GS"
            | "ARCH_GET_XCOMP_SUPP"
            | "ARCH_GET_XCOMP_PERM"
            | "ARCH_GET_XCOMP_GUEST_PERM" => return Step::Exit,
            "ARCH_GET_CPUID" => {}
            "ARCH_REQ_XCOMP_PERM" | "ARCH_REQ_XCOMP_GUEST_PERM" => {
                // A feature number, always with its name in a comment
                // (strace's XLAT_STYLE_VERBOSE) unless -X raw.
                let v = match (xlat::X86_XFEATURE_BITS.lookup(addr), c.opts.xlat_style) {
                    (_, 1) => xint(addr),
                    (Some(n), _) => Value::Commented(Box::new(xint(addr)), Cow::Borrowed(n)),
                    (None, _) => {
                        Value::Commented(Box::new(xint(addr)), Cow::Borrowed("XFEATURE_???"))
                    }
                };
                c.push(v);
                // A positive return is a feature mask, shown in hex with
                // its names.
                c.entry_complete = true;
                return Step::Exit;
            }
            _ => c.push(xint(addr)),
        }
        return Step::Done(RetFmt::Int);
    }
    if name.starts_with("ARCH_REQ_XCOMP") {
        let r = c.retval();
        if r <= 0 || c.failed() {
            return Step::Done(RetFmt::Int);
        }
        let r = r as u64;
        if c.opts.xlat_style == 1 {
            return Step::Done(RetFmt::Hex);
        }
        let (names, rest) = xlat::X86_XFEATURES.split_flags(r);
        if names.is_empty() {
            return Step::Done(RetFmt::Hex);
        }
        let mut text = names.join("|");
        if rest != 0 {
            if !text.is_empty() {
                text.push('|');
            }
            text.push_str(&format!("{rest:#x}"));
        }
        return Step::Done(RetFmt::Value(Ret::Annotated(
            Box::new(Ret::Hex(r)),
            Cow::Owned(text),
        )));
    }
    if name.starts_with("ARCH_GET_XCOMP") {
        // A u64 feature mask, always in hex with the names in a comment.
        let v = if c.failed() || addr == 0 {
            Value::Ptr(addr)
        } else {
            match c.read_bytes(addr, 8) {
                Some(b) => {
                    let m = crate::syscall::printers::le64(&b, 0);
                    let (names, rest) = xlat::X86_XFEATURES.split_flags(m);
                    let mut text = names.join("|");
                    if rest != 0 || names.is_empty() {
                        if !text.is_empty() {
                            text.push('|');
                        }
                        text.push_str(&format!("{rest:#x}"));
                    }
                    let item = match (m, c.opts.xlat_style) {
                        (0, _) | (_, 1) => xint(m),
                        _ if names.is_empty() => {
                            Value::Commented(Box::new(xint(m)), Cow::Borrowed("XFEATURE_MASK_???"))
                        }
                        _ => Value::Commented(Box::new(xint(m)), Cow::Owned(text)),
                    };
                    Value::Array(vec![item], false)
                }
                None => Value::Unreadable(addr),
            }
        };
        c.push(v);
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
                        Value::UInt(p) => Value::Ptr(p),
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
            let u = |off| Value::UInt(crate::syscall::printers::le16(b, off));
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
    if name == "SECCOMP_SET_MODE_FILTER" {
        flags_arg(c, 1, &xlat::SECCOMP_FILTER_FLAGS, "SECCOMP_FILTER_FLAG_???");
    } else {
        c.push(xint(c.arg(1) as u32 as u64));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

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
}
