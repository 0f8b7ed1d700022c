//! Classic BPF instructions as strace 6.1 prints them
//! (`print_bpf_filter_code`, `BPF_STMT(…)`/`BPF_JUMP(…)`), honouring
//! `-X raw`/`-X verbose`; shared by socket filters (`sock_filter.rs`) and
//! seccomp filters (`seccomp_filter.rs`), which differ only in how a
//! statement's `k` reads.

use crate::syscall::layout::kstruct;
use crate::syscall::Ctx;
use rtrace_arch::{xlat, Xlat};

/// `%#x`: `0` or `0x…`.
pub(crate) fn hex(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// A constant as `printxval` prints it in the current `-X` style.
pub(crate) fn xv(c: &Ctx, v: u64, table: &Xlat, dflt: &str) -> String {
    match (c.opts.xlat_style, table.lookup(v)) {
        (1, _) => hex(v),
        (0, Some(n)) => n.to_string(),
        (_, Some(n)) => format!("{} /* {n} */", hex(v)),
        (_, None) => format!("{} /* {dflt} */", hex(v)),
    }
}

/// An unknown rest of an opcode: `0x… /* BPF_??? */`.
fn rest(v: u64) -> String {
    format!("{} /* BPF_??? */", hex(v))
}

/// The opcode of a classic instruction (`print_bpf_filter_code`).
fn code_text(c: &Ctx, code: u64) -> String {
    let class = code & 0x07;
    let mut i = code & !0x07;
    let mut parts = vec![xv(c, class, &xlat::BPF_CLASS, "BPF_???")];
    match class {
        // BPF_ST, BPF_STX
        2 | 3 => {
            if i != 0 {
                parts.push(rest(i));
            }
        }
        // BPF_LD, BPF_LDX
        0 | 1 => {
            parts.push(xv(c, code & 0x18, &xlat::BPF_SIZE, "BPF_???"));
            parts.push(xv(c, code & 0xe0, &xlat::BPF_MODE, "BPF_???"));
        }
        // BPF_MISC
        7 => {
            parts.push(xv(c, code & 0xf8, &xlat::BPF_MISCOP, "BPF_???"));
            i &= !0xf8;
            if i != 0 {
                parts.push(rest(i));
            }
        }
        // BPF_ALU, BPF_JMP
        4 | 5 => {
            parts.push(xv(c, code & 0x08, &xlat::BPF_SRC, "BPF_???"));
            let ops = if class == 4 {
                &xlat::BPF_OP_ALU
            } else {
                &xlat::BPF_OP_JMP
            };
            parts.push(xv(c, code & 0xf0, ops, "BPF_???"));
        }
        // BPF_RET
        _ => {
            parts.push(xv(c, code & 0x18, &xlat::BPF_RVAL, "BPF_???"));
            i &= !0x18;
            if i != 0 {
                parts.push(rest(i));
            }
        }
    }
    parts.join("|")
}

kstruct! {
    /// `struct sock_filter`, one classic BPF instruction.
    pub(crate) struct SockFilter size 8 {
        code: u16 @ 0,
        jt: u8 @ 2,
        jf: u8 @ 3,
        k: u32 @ 4,
    }
}

/// One 8-byte instruction: `BPF_STMT(code, k)`, with `k` as `stmt_k`
/// prints it for the opcode, or `BPF_JUMP(code, k, jt, jf)`.
pub(crate) fn insn_text(c: &Ctx, b: &[u8], stmt_k: fn(&Ctx, u64, u64) -> String) -> String {
    let i = SockFilter(b);
    let code = i.code() as u64;
    let (jt, jf) = (i.jt() as u64, i.jf() as u64);
    let k = i.k() as u64;
    if jt != 0 || jf != 0 {
        format!(
            "BPF_JUMP({}, {}, {}, {})",
            code_text(c, code),
            hex(k),
            hex(jt),
            hex(jf)
        )
    } else {
        format!("BPF_STMT({}, {})", code_text(c, code), stmt_k(c, code, k))
    }
}
