//! prctl options strace 7.2 decodes that 6.1 printed in hex: memory-deny-
//! write-execute (`PR_SET_MDWE`/`PR_GET_MDWE`), RISC-V vector state control
//! and icache flush context, and PowerPC DEXCR aspects. Getters show their
//! return value in hex with the names in a comment, as `ext.rs` does.

use super::ext::{aux_flags, hex_args, hex_ret, option};
use crate::syscall::printers::{xflags, xint};
use crate::syscall::{Ctx, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

/// `PR_RISCV_V_VSTATE_CTRL_CUR_MASK`: the state of the current context;
/// the next context's state is the two bits above it.
const VSTATE_CUR_MASK: u64 = 0x3;
const VSTATE_NEXT_SHIFT: u32 = 2;
const VSTATE_INHERIT: u64 = 1 << 4;
const VSTATE_MASK: u64 = 0x1f;

/// A RISC-V vector state control word:
/// `PR_RISCV_V_VSTATE_CTRL_OFF|PR_RISCV_V_VSTATE_CTRL_ON<<2|!PR_RISCV_V_VSTATE_CTRL_INHERIT`.
fn vstate_text(v: u64) -> String {
    let state = |s: u64| match xlat::PR_RISCV_V_VSTATE_CTRL.lookup(s) {
        Some(n) => n.to_string(),
        None => format!("{s:#x}"),
    };
    let mut t = state(v & VSTATE_CUR_MASK);
    t.push('|');
    t.push_str(&state((v >> VSTATE_NEXT_SHIFT) & VSTATE_CUR_MASK));
    t.push_str("<<2|");
    if v & VSTATE_INHERIT == 0 {
        t.push('!');
    }
    t.push_str("PR_RISCV_V_VSTATE_CTRL_INHERIT");
    if v & !VSTATE_MASK != 0 {
        t.push_str(&format!("|{:#x}", v & !VSTATE_MASK));
    }
    t
}

/// The entry half of the options decoded here; `None` for other options.
pub(in crate::syscall) fn entry(c: &mut Ctx, name: &str) -> Option<Step> {
    let arg2 = c.arg_ulong(1);
    let opt = option(c);
    match name {
        "PR_SET_MDWE" => {
            c.push(opt);
            let v = xflags(c, arg2, &xlat::PR_MDWE_FLAGS, "PR_MDWE_???");
            c.push(v);
            hex_args(c, 2);
        }
        "PR_GET_MDWE" | "PR_PPC_GET_DEXCR" => {
            c.push(opt);
            if name == "PR_PPC_GET_DEXCR" {
                let v = c.enum_value(arg2, &xlat::PR_PPC_DEXCR_ASPECTS, "PR_PPC_DEXCR_???");
                c.push(v);
                hex_args(c, 2);
            } else {
                hex_args(c, 1);
            }
            c.entry_complete = true;
            return Some(Step::Exit);
        }
        "PR_PPC_SET_DEXCR" => {
            c.push(opt);
            let v = c.enum_value(arg2, &xlat::PR_PPC_DEXCR_ASPECTS, "PR_PPC_DEXCR_???");
            c.push(v);
            let ctrl = c.arg_ulong(2);
            let v = xflags(c, ctrl, &xlat::PR_PPC_DEXCR_CTRL, "PR_PPC_DEXCR_CTRL_???");
            c.push(v);
            hex_args(c, 3);
        }
        "PR_RISCV_V_SET_CONTROL" => {
            c.push(opt);
            let v = match c.opts.xlat_style {
                1 => xint(arg2),
                2 => Value::Commented(Box::new(xint(arg2)), Cow::Owned(vstate_text(arg2))),
                _ => Value::sym_owned(vstate_text(arg2)),
            };
            c.push(v);
        }
        "PR_RISCV_V_GET_CONTROL" => {
            c.push(opt);
            c.entry_complete = true;
            return Some(Step::Exit);
        }
        "PR_RISCV_SET_ICACHE_FLUSH_CTX" => {
            c.push(opt);
            let v = c.enum_value(arg2, &xlat::PR_RISCV_ICACHE_CTX, "PR_RISCV_CTX_???");
            c.push(v);
            let scope = c.arg_ulong(2);
            let v = c.enum_value(scope, &xlat::PR_RISCV_ICACHE_SCOPE, "PR_RISCV_SCOPE_???");
            c.push(v);
        }
        _ => return None,
    }
    Some(Step::Done(RetFmt::Int))
}

/// The exit half of the getters decoded here; `None` for other options.
pub(in crate::syscall) fn exit(c: &mut Ctx, name: &str) -> Option<Step> {
    let r = c.retval();
    let aux = match name {
        "PR_GET_MDWE" => aux_flags(c, r as u64, &xlat::PR_MDWE_FLAGS),
        "PR_PPC_GET_DEXCR" => aux_flags(c, r as u64, &xlat::PR_PPC_DEXCR_CTRL),
        "PR_RISCV_V_GET_CONTROL" => (c.opts.xlat_style != 1).then(|| vstate_text(r as u64)),
        _ => return None,
    };
    if c.failed() {
        return Some(Step::Done(RetFmt::Int));
    }
    Some(hex_ret(r, aux))
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    fn prctl(args: &[u64], ret: i64) -> String {
        let d = crate::syscall::all_decoders()["prctl"];
        run(d, "prctl", args, ret, &mut FakeMemory::default())
    }

    #[test]
    fn exec_controls() {
        assert_eq!(
            prctl(&[0x41, 6, 0, 0, 0], -22),
            "prctl(PR_SET_MDWE, PR_MDWE_NO_INHERIT|0x4, 0, 0, 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            prctl(&[0x42, 0, 0, 0, 0], 0x2a),
            "prctl(PR_GET_MDWE, 0, 0, 0, 0) = 0x2a (PR_MDWE_NO_INHERIT|0x28)"
        );
        assert_eq!(
            prctl(&[0x45, 0x3d], -22),
            "prctl(PR_RISCV_V_SET_CONTROL, PR_RISCV_V_VSTATE_CTRL_OFF|0x3<<2|PR_RISCV_V_VSTATE_CTRL_INHERIT|0x20) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            prctl(&[0x46], 0),
            "prctl(PR_RISCV_V_GET_CONTROL) = 0 (PR_RISCV_V_VSTATE_CTRL_DEFAULT|PR_RISCV_V_VSTATE_CTRL_DEFAULT<<2|!PR_RISCV_V_VSTATE_CTRL_INHERIT)"
        );
        assert_eq!(
            prctl(&[0x47, 5, 1], -22),
            "prctl(PR_RISCV_SET_ICACHE_FLUSH_CTX, 0x5 /* PR_RISCV_CTX_??? */, PR_RISCV_SCOPE_PER_THREAD) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            prctl(&[0x49, 2, 0x11, 0, 0], -22),
            "prctl(PR_PPC_SET_DEXCR, PR_PPC_DEXCR_SRAPD, PR_PPC_DEXCR_CTRL_EDITABLE|PR_PPC_DEXCR_CTRL_CLEAR_ONEXEC, 0, 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            prctl(&[0x48, 9, 0, 0, 0], 0x2),
            "prctl(PR_PPC_GET_DEXCR, 0x9 /* PR_PPC_DEXCR_??? */, 0, 0, 0) = 0x2 (PR_PPC_DEXCR_CTRL_SET)"
        );
    }
}
