//! prctl options beyond the common ones in `mod.rs`: arm64's SVE/SME
//! vector lengths, tagged addresses and pointer authentication keys,
//! PR_SCHED_CORE, PR_SET/GET_UNALIGN, and the getters whose return value
//! strace shows in hex with the flag names (`= 0x1 (PR_FP_MODE_FR)`).

use crate::syscall::kernel_admin::cstr_upto;
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Ret, RetFmt, Step, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

/// `TASK_COMM_LEN - 1`: the longest thread name.
const COMM_MAX: usize = 15;
const VL_LEN_MASK: u64 = 0xffff;
const PR_TAGGED_ADDR_ENABLE: u64 = 1;
const PR_MTE_TCF_MASK: u64 = 6;
const PR_MTE_TAG_SHIFT: u64 = 3;
const PR_MTE_TAG_MASK: u64 = 0xffff << PR_MTE_TAG_SHIFT;

/// The option name of prctl's first argument.
pub(super) fn option(c: &Ctx) -> Value {
    c.enum_value(c.arg(0) as u32 as u64, &xlat::PRCTL_OPTIONS, "PR_???")
}

/// Arguments `first..5` in hex.
pub(super) fn hex_args(c: &mut Ctx, first: usize) {
    for i in first..5 {
        c.push(xint(c.arg_ulong(i)));
    }
}

/// strace's `sprintflags_ex(…, SPFF_AUXSTR_MODE)`: the names of the set
/// bits (and the unknown rest after them), for a return value's comment;
/// nothing under `-X raw` or when no bit has a name.
pub(super) fn aux_flags(c: &Ctx, v: u64, table: &Xlat) -> Option<String> {
    if c.opts.xlat_style == 1 {
        return None;
    }
    if v == 0 {
        return table.lookup(0).map(str::to_string);
    }
    let (names, rest) = table.split_flags(v);
    if names.is_empty() {
        return None;
    }
    let mut s = names.join("|");
    if rest != 0 {
        s.push_str(&format!("|{rest:#x}"));
    }
    Some(s)
}

/// `= 0x… (comment)`, as strace's `RVAL_HEX | RVAL_STR`.
pub(super) fn hex_ret(r: i64, aux: Option<String>) -> Step {
    let h = Ret::Hex(r as u64);
    Step::Done(RetFmt::Value(match aux {
        Some(s) => Ret::Annotated(Box::new(h), Cow::Owned(s)),
        None => h,
    }))
}

/// `%#x` text: `0` for zero.
fn hex_text(v: u64) -> String {
    if v == 0 {
        "0".to_string()
    } else {
        format!("{v:#x}")
    }
}

/// An SVE/SME vector length word: `PR_SVE_VL_INHERIT|0xea57`. `aux` asks
/// for the return value's comment (`None`: no comment).
fn vl_text(c: &Ctx, arg: u64, aux: bool, table: &Xlat) -> Option<Value> {
    if c.opts.xlat_style == 1 {
        return (!aux).then_some(Value::Hex(arg));
    }
    let (vl, flags) = (arg & VL_LEN_MASK, arg & !VL_LEN_MASK);
    if flags == 0 && aux {
        return None;
    }
    let mut s = String::new();
    if flags != 0 {
        let (names, rest) = table.split_flags(flags);
        let mut parts: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        if rest != 0 {
            parts.push(format!("{rest:#x}"));
        }
        s = parts.join("|");
        s.push('|');
    }
    s.push_str(&hex_text(vl));
    if !aux && flags != 0 && c.opts.xlat_style == 2 {
        return Some(Value::Commented(Box::new(Value::Hex(arg)), Cow::Owned(s)));
    }
    Some(Value::sym_owned(s))
}

/// A tagged address control word:
/// `PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_ASYNC|0x1<<PR_MTE_TAG_SHIFT`.
fn tagged_text(arg: u64) -> String {
    let mut s = String::from(if arg & PR_TAGGED_ADDR_ENABLE != 0 {
        "PR_TAGGED_ADDR_ENABLE"
    } else {
        "!PR_TAGGED_ADDR_ENABLE"
    });
    s.push('|');
    s.push_str(
        xlat::PR_MTE_TCF
            .lookup(arg & PR_MTE_TCF_MASK)
            .unwrap_or("?"),
    );
    let tag = arg & PR_MTE_TAG_MASK;
    if tag != 0 {
        s.push_str(&format!(
            "|{:#x}<<PR_MTE_TAG_SHIFT",
            tag >> PR_MTE_TAG_SHIFT
        ));
    }
    let rest = arg & !(PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_MASK | PR_MTE_TAG_MASK);
    if rest != 0 {
        s.push_str(&format!("|{rest:#x}"));
    }
    s
}

fn tagged_value(c: &Ctx, arg: u64) -> Value {
    match c.opts.xlat_style {
        1 => Value::Hex(arg),
        2 => Value::Commented(Box::new(Value::Hex(arg)), Cow::Owned(tagged_text(arg))),
        _ => Value::sym_owned(tagged_text(arg)),
    }
}

/// The entry half of the options decoded here; `None` for other options.
pub(in crate::syscall) fn entry(c: &mut Ctx, name: &str) -> Option<Step> {
    let arg2 = c.arg_ulong(1);
    let step = match name {
        "PR_SVE_SET_VL" | "PR_SME_SET_VL" => {
            let opt = option(c);
            c.push(opt);
            let t = if name == "PR_SVE_SET_VL" {
                &xlat::PR_SVE_VL_FLAGS
            } else {
                &xlat::PR_SME_VL_FLAGS
            };
            let v = vl_text(c, arg2, false, t).unwrap_or(Value::Hex(arg2));
            c.push(v);
            c.entry_complete = true;
            Step::Exit
        }
        "PR_SVE_GET_VL" | "PR_SME_GET_VL" | "PR_GET_FP_MODE" | "PR_GET_UNALIGN" => {
            let opt = option(c);
            c.push(opt);
            c.entry_complete = name != "PR_GET_UNALIGN";
            Step::Exit
        }
        "PR_GET_TAGGED_ADDR_CTRL" | "PR_PAC_GET_ENABLED_KEYS" => {
            let opt = option(c);
            c.push(opt);
            hex_args(c, 1);
            c.entry_complete = true;
            Step::Exit
        }
        "PR_SET_TAGGED_ADDR_CTRL" => {
            let opt = option(c);
            c.push(opt);
            let v = tagged_value(c, arg2);
            c.push(v);
            hex_args(c, 2);
            Step::Done(RetFmt::Int)
        }
        "PR_PAC_RESET_KEYS" => {
            let opt = option(c);
            c.push(opt);
            let v = xflags(c, arg2, &xlat::PR_PAC_KEYS, "PR_PAC_???");
            c.push(v);
            hex_args(c, 2);
            Step::Done(RetFmt::Int)
        }
        "PR_PAC_SET_ENABLED_KEYS" => {
            let opt = option(c);
            c.push(opt);
            for i in 1..3 {
                let v = xflags(c, c.arg_ulong(i), &xlat::PR_PAC_ENABLED_KEYS, "PR_PAC_???");
                c.push(v);
            }
            hex_args(c, 3);
            Step::Done(RetFmt::Int)
        }
        "PR_SCHED_CORE" => {
            let opt = option(c);
            c.push(opt);
            let cmd = arg2 as u32 as u64;
            let v = c.enum_value(cmd, &xlat::PR_SCHED_CORE_CMDS, "PR_SCHED_CORE_???");
            c.push(v);
            let ty = c.arg(3) as u32 as u64;
            // The pid's kind is the PIDTYPE_* argument.
            use crate::syscall::ctx::PidKind;
            match ty {
                0 => c.id(2, PidKind::Tid),
                1 => c.pid(2),
                2 => c.id(2, PidKind::Pgid),
                3 => c.id(2, PidKind::Sid),
                _ => c.int(2),
            }
            let v = if c.opts.xlat_style == 1 {
                Value::Hex(ty)
            } else {
                let n = xlat::PR_SCHED_CORE_PIDTYPES
                    .lookup(ty)
                    .unwrap_or("PIDTYPE_???");
                Value::Commented(Box::new(Value::Hex(ty)), Cow::Borrowed(n))
            };
            c.push(v);
            if cmd == 0 {
                return Some(Step::Exit);
            }
            // Only PR_SCHED_CORE_GET's arg5 is a pointer (to the cookie).
            c.push(xint(c.arg_ulong(4)));
            Step::Done(RetFmt::Int)
        }
        "PR_SET_UNALIGN" => {
            let opt = option(c);
            c.push(opt);
            let v = xflags(c, arg2, &xlat::PR_UNALIGN_FLAGS, "PR_UNALIGN_???");
            c.push(v);
            Step::Done(RetFmt::Int)
        }
        "PR_SET_TSC" => {
            let opt = option(c);
            c.push(opt);
            let v = c.enum_value(arg2 as u32 as u64, &xlat::PR_TSC, "PR_TSC_???");
            c.push(v);
            Step::Done(RetFmt::Int)
        }
        "PR_SET_SPECULATION_CTRL" => {
            let opt = option(c);
            c.push(opt);
            let v = c.enum_value(arg2, &xlat::PR_SPEC_CMDS, "PR_SPEC_???");
            c.push(v);
            let arg3 = c.arg_ulong(2);
            let v = if arg2 <= 2 {
                c.enum_value(arg3, &xlat::PR_SPEC_SET_FLAGS, "PR_SPEC_???")
            } else {
                xint(arg3)
            };
            c.push(v);
            Step::Done(RetFmt::Int)
        }
        "PR_SET_PTRACER" => {
            let opt = option(c);
            c.push(opt);
            if arg2 as i32 == -1 {
                let v = match c.opts.xlat_style {
                    0 => Value::sym("PR_SET_PTRACER_ANY"),
                    1 => Value::Int(-1),
                    _ => Value::Commented(
                        Box::new(Value::Int(-1)),
                        Cow::Borrowed("PR_SET_PTRACER_ANY"),
                    ),
                };
                c.push(v);
            } else {
                c.pid(1);
            }
            Step::Done(RetFmt::Int)
        }
        "PR_SET_NAME" => {
            let opt = option(c);
            c.push(opt);
            let v = cstr_upto(c, arg2, COMM_MAX);
            c.push(v);
            Step::Done(RetFmt::Int)
        }
        _ => return None,
    };
    Some(step)
}

/// The exit half; `None` for options `mod.rs` decodes.
pub(in crate::syscall) fn exit(c: &mut Ctx, name: &str) -> Option<Step> {
    let r = c.retval();
    let failed = c.failed();
    let step = match name {
        "PR_SVE_SET_VL" | "PR_SVE_GET_VL" | "PR_SME_SET_VL" | "PR_SME_GET_VL" => {
            if failed || r == 0 {
                return Some(Step::Done(RetFmt::Int));
            }
            let t = if name.starts_with("PR_SVE") {
                &xlat::PR_SVE_VL_FLAGS
            } else {
                &xlat::PR_SME_VL_FLAGS
            };
            let aux = vl_text(c, r as u64, true, t).map(|v| crate::syscall::ctx::render_flags(&v));
            hex_ret(r, aux)
        }
        "PR_GET_FP_MODE" | "PR_GET_SECUREBITS" => {
            if name == "PR_GET_SECUREBITS" {
                let opt = option(c);
                c.push(opt);
            }
            if failed || r == 0 {
                return Some(Step::Done(RetFmt::Int));
            }
            let t = if name == "PR_GET_FP_MODE" {
                &xlat::PR_FP_MODE
            } else {
                &xlat::SECBITS
            };
            hex_ret(r, aux_flags(c, r as u64, t))
        }
        "PR_GET_SPECULATION_CTRL" => {
            if failed || c.arg_ulong(1) > 2 {
                return Some(Step::Done(RetFmt::Int));
            }
            hex_ret(r, aux_flags(c, r as u64, &xlat::PR_SPEC_FLAGS))
        }
        "PR_GET_TAGGED_ADDR_CTRL" => {
            if failed {
                return Some(Step::Done(RetFmt::Int));
            }
            let aux = (c.opts.xlat_style != 1).then(|| tagged_text(r as u64));
            hex_ret(r, aux)
        }
        "PR_PAC_GET_ENABLED_KEYS" => {
            if failed {
                return Some(Step::Done(RetFmt::Int));
            }
            hex_ret(r, aux_flags(c, r as u64, &xlat::PR_PAC_ENABLED_KEYS))
        }
        "PR_SCHED_CORE" => {
            let addr = c.arg_ulong(4);
            let v = match c.read_bytes(addr, 8) {
                _ if failed || addr == 0 => Value::Ptr(addr),
                Some(b) => Value::Array(vec![xint(le64(&b, 0))], false),
                None => Value::Unreadable(addr),
            };
            c.push(v);
            Step::Done(RetFmt::Int)
        }
        "PR_GET_UNALIGN" => {
            let addr = c.arg_ulong(1);
            let v = match c.read_bytes(addr, 4) {
                _ if failed || addr == 0 => Value::Ptr(addr),
                Some(b) => Value::Array(
                    vec![xflags(
                        c,
                        le32(&b, 0),
                        &xlat::PR_UNALIGN_FLAGS,
                        "PR_UNALIGN_???",
                    )],
                    false,
                ),
                None => Value::Unreadable(addr),
            };
            c.push(v);
            Step::Done(RetFmt::Int)
        }
        _ => return None,
    };
    Some(step)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    /// Runs prctl's decoder through the hooks in `mod.rs`.
    fn prctl(m: &mut FakeMemory, args: &[u64], ret: i64) -> String {
        let d = crate::syscall::all_decoders()["prctl"];
        run(d, "prctl", args, ret, m)
    }

    #[test]
    fn prctl_ext() {
        let mut m = FakeMemory::default();
        let e = -22;
        assert_eq!(
            prctl(&mut m, &[50, 0x600ff], e),
            "prctl(PR_SVE_SET_VL, PR_SVE_SET_VL_ONEXEC|PR_SVE_VL_INHERIT|0xff) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            prctl(&mut m, &[51], 0x2_0010),
            "prctl(PR_SVE_GET_VL) = 0x20010 (PR_SVE_VL_INHERIT|0x10)"
        );
        assert_eq!(
            prctl(&mut m, &[55, 0xd, 1, 2, 3], 0),
            "prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_ASYNC|0x1<<PR_MTE_TAG_SHIFT, 0x1, 0x2, 0x3) = 0"
        );
        assert_eq!(
            prctl(&mut m, &[54, 0x20, 0, 0, 0], e),
            "prctl(PR_PAC_RESET_KEYS, 0x20 /* PR_PAC_??? */, 0, 0, 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            prctl(&mut m, &[46], 1),
            "prctl(PR_GET_FP_MODE) = 0x1 (PR_FP_MODE_FR)"
        );
        assert_eq!(
            prctl(&mut m, &[27], 0x100),
            "prctl(PR_GET_SECUREBITS) = 0x100 (SECBIT_EXEC_RESTRICT_FILE)"
        );
        assert_eq!(
            prctl(&mut m, &[27], 0x10_0000),
            "prctl(PR_GET_SECUREBITS) = 0x100000"
        );
        assert_eq!(
            prctl(&mut m, &[6, 3], e),
            "prctl(PR_SET_UNALIGN, PR_UNALIGN_NOPRINT|PR_UNALIGN_SIGBUS) = -1 EINVAL (Invalid argument)"
        );
        let cookie = m.put(&0xdead_beefu64.to_le_bytes());
        assert_eq!(
            prctl(&mut m, &[62, 0, 1, 0, cookie], 0),
            "prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 1, 0 /* PIDTYPE_PID */, [0xdeadbeef]) = 0"
        );
        let name = m.put(b"123456789abcdef0\0");
        assert_eq!(
            prctl(&mut m, &[15, name], 0),
            "prctl(PR_SET_NAME, \"123456789abcdef\"...) = 0"
        );
    }
}
