//! seccomp filter programs (`struct sock_fprog` of seccomp(2) and
//! `prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, …)`) as strace 6.1 prints
//! them: under `-v` each classic BPF instruction as `BPF_STMT(…)` or
//! `BPF_JUMP(…)`, return values as seccomp actions
//! (`SECCOMP_RET_ERRNO|0x10`); without `-v` the program's address.

use super::array::array_at;
use super::printers::{le16, le32, le64};
use super::{Ctx, Field, Value};
use rtrace_arch::{xlat, Xlat};

/// strace's `BPF_MAXINSNS`.
const MAXINSNS: u32 = 4096;
/// `SECCOMP_RET_ACTION_FULL`.
const RET_ACTION_FULL: u64 = 0xffff_0000;

/// `%#x`: `0` or `0x…`.
fn hex(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// A constant in the current `-X` style (`printxval`).
fn xv(c: &Ctx, v: u64, table: &Xlat, dflt: &str) -> String {
    match (c.opts.xlat_style, table.lookup(v)) {
        (1, _) => hex(v),
        (0, Some(n)) => n.to_string(),
        (_, Some(n)) => format!("{} /* {n} */", hex(v)),
        (_, None) => format!("{} /* {dflt} */", hex(v)),
    }
}

/// The opcode of a classic BPF instruction (`print_bpf_filter_code`).
fn code_text(c: &Ctx, code: u64) -> String {
    let class = code & 0x07;
    let mut i = code & !0x07;
    let mut parts = vec![xv(c, class, &xlat::BPF_CLASS, "BPF_???")];
    let rest = |v: u64| format!("{} /* BPF_??? */", hex(v));
    match class {
        2 | 3 => {
            if i != 0 {
                parts.push(rest(i));
            }
        }
        0 | 1 => {
            parts.push(xv(c, code & 0x18, &xlat::BPF_SIZE, "BPF_???"));
            parts.push(xv(c, code & 0xe0, &xlat::BPF_MODE, "BPF_???"));
        }
        7 => {
            parts.push(xv(c, code & 0xf8, &xlat::BPF_MISCOP, "BPF_???"));
            i &= !0xf8;
            if i != 0 {
                parts.push(rest(i));
            }
        }
        4 | 5 => {
            parts.push(xv(c, code & 0x08, &xlat::BPF_SRC, "BPF_???"));
            let ops = if class == 4 {
                &xlat::BPF_OP_ALU
            } else {
                &xlat::BPF_OP_JMP
            };
            parts.push(xv(c, code & 0xf0, ops, "BPF_???"));
        }
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

/// One instruction: `BPF_STMT(code, k)` or `BPF_JUMP(code, k, jt, jf)`.
fn insn_text(c: &Ctx, b: &[u8]) -> String {
    let code = le16(b, 0);
    let (jt, jf) = (b[2] as u64, b[3] as u64);
    let k = le32(b, 4);
    if jt != 0 || jf != 0 {
        return format!(
            "BPF_JUMP({}, {}, {}, {})",
            code_text(c, code),
            hex(k),
            hex(jt),
            hex(jf)
        );
    }
    let k_text = if code & 0x07 == 6 {
        let action = k & RET_ACTION_FULL;
        let data = k & !action;
        let mut s = xv(c, action, &xlat::SECCOMP_RET_ACTION, "SECCOMP_RET_???");
        if data != 0 {
            s.push('|');
            s.push_str(&hex(data));
        }
        s
    } else {
        hex(k)
    };
    format!("BPF_STMT({}, {})", code_text(c, code), k_text)
}

/// `len` instructions at `addr`; the address without `-v`.
fn program(c: &mut Ctx, addr: u64, len: u64) -> Value {
    if !c.opts.verbose {
        return Value::Ptr(addr);
    }
    let mut count = 0u32;
    let v = array_at(c, addr, len, 8, |c, b| {
        count += 1;
        (count <= MAXINSNS).then(|| Value::sym_owned(insn_text(c, b)))
    });
    match v {
        Value::Array(items, false) if count > MAXINSNS => Value::Array(items, true),
        o => o,
    }
}

/// `struct sock_fprog` at `addr`: `{len=N, filter=…}`.
pub(super) fn fprog(c: &mut Ctx, addr: u64) -> Value {
    let w = c.arch.word_size();
    if addr == 0 {
        return Value::Ptr(0);
    }
    let Some(b) = c.read_bytes(addr, 2 * w) else {
        return Value::Unreadable(addr);
    };
    let len = le16(&b, 0);
    let filter = if w == 4 { le32(&b, 4) } else { le64(&b, 8) };
    let prog = program(c, filter, len);
    Value::structure(vec![
        Field::new("len", Value::UInt(len)),
        Field::new("filter", prog),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::memory::FakeMemory;
    use super::super::testutil::run_with;
    use super::super::DecodeOpts;

    #[test]
    fn seccomp_program() {
        let mut m = FakeMemory::default();
        let mut prog = Vec::new();
        // BPF_LD|BPF_W|BPF_ABS 0; BPF_JMP|BPF_K|BPF_JEQ 3, 0, 1;
        // BPF_RET|BPF_K SECCOMP_RET_ERRNO|0x10.
        for (code, jt, jf, k) in [
            (0x20u16, 0u8, 0u8, 0u32),
            (0x15, 0, 1, 3),
            (0x06, 0, 0, 0x5_0010),
        ] {
            prog.extend_from_slice(&code.to_le_bytes());
            prog.extend_from_slice(&[jt, jf]);
            prog.extend_from_slice(&k.to_le_bytes());
        }
        let p = m.put(&prog);
        let mut fp = 3u64.to_le_bytes().to_vec();
        fp.extend_from_slice(&p.to_le_bytes());
        let fp = m.put(&fp);
        let d = super::super::all_decoders()["seccomp"];
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(d, "seccomp", &[1, 0, fp], 0, &mut m, &opts),
            "seccomp(SECCOMP_SET_MODE_FILTER, 0, {len=3, filter=[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x3, 0, 0x1), BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ERRNO|0x10)]}) = 0"
        );
    }
}
