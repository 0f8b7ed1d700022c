//! seccomp filter programs (`struct sock_fprog` of seccomp(2) and
//! `prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, …)`, and the program
//! `ptrace(PTRACE_SECCOMP_GET_FILTER)` reads back) as strace prints
//! them: under `-v` each classic BPF instruction as `BPF_STMT(…)` or
//! `BPF_JUMP(…)`, return values as seccomp actions
//! (`SECCOMP_RET_ERRNO|0x10`); without `-v` the program's address.

use crate::syscall::array::array_at;
use crate::syscall::net::cbpf::{hex, insn_text, xv};
use crate::syscall::printers::{le16, le32, le64};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// strace's `BPF_MAXINSNS`.
const MAXINSNS: u32 = 4096;
/// `SECCOMP_RET_ACTION_FULL`.
const RET_ACTION_FULL: u64 = 0xffff_0000;

/// A statement's `k`: a seccomp action for `BPF_RET`, else a number.
fn stmt_k(c: &Ctx, code: u64, k: u64) -> String {
    if code & 0x07 != 6 {
        return hex(k);
    }
    let action = k & RET_ACTION_FULL;
    let data = k & !action;
    let mut s = xv(c, action, &xlat::SECCOMP_RET_ACTION, "SECCOMP_RET_???");
    if data != 0 {
        s.push('|');
        s.push_str(&hex(data));
    }
    s
}

/// `len` instructions at `addr`; the address without `-v`.
pub(in crate::syscall) fn program(c: &mut Ctx, addr: u64, len: u64) -> Value {
    if !c.opts.verbose {
        return Value::Ptr(addr);
    }
    let mut count = 0u32;
    let v = array_at(c, addr, len, 8, |c, b| {
        count += 1;
        (count <= MAXINSNS).then(|| Value::sym_owned(insn_text(c, b, stmt_k)))
    });
    match v {
        Value::Array(items, false) if count > MAXINSNS => Value::Array(items, true),
        o => o,
    }
}

/// `struct sock_fprog` at `addr`: `{len=N, filter=…}`.
pub(in crate::syscall) fn fprog(c: &mut Ctx, addr: u64) -> Value {
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
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run_with;
    use crate::syscall::DecodeOpts;

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
        let d = crate::syscall::all_decoders()["seccomp"];
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(d, "seccomp", &[1, 0, fp], 0, &mut m, &opts),
            "seccomp(SECCOMP_SET_MODE_FILTER, 0, {len=3, filter=[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x3, 0, 0x1), BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ERRNO|0x10)]}) = 0"
        );
        // PTRACE_SECCOMP_GET_FILTER reads back as many instructions as it
        // returns.
        let d = crate::syscall::all_decoders()["ptrace"];
        assert_eq!(
            run_with(d, "ptrace", &[0x420c, 5, 0, p], 2, &mut m, &opts),
            "ptrace(PTRACE_SECCOMP_GET_FILTER, 5, 0, [BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x3, 0, 0x1)]) = 2"
        );
    }
}
