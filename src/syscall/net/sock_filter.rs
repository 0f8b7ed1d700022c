//! Classic BPF socket filters (`SO_ATTACH_FILTER`, `SO_GET_FILTER`) as
//! strace 6.1 prints them: `{len=N, filter=[BPF_STMT(BPF_LD|BPF_B|BPF_ABS,
//! SKF_AD_OFF+SKF_AD_PROTOCOL), BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x11, 0,
//! 0x5), …]}`, honouring `-X raw`/`-X verbose` inside the instruction text.
//! Without `-v` the program prints as its address.

use crate::syscall::layout::kstruct;
use crate::syscall::net::cbpf::{hex, insn_text, xv, SockFilter};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// A named 32-bit constant (`print_xlat32`).
fn named(c: &Ctx, v: u32, name: &str) -> String {
    match c.opts.xlat_style {
        1 => hex(v as u64),
        0 => name.to_string(),
        _ => format!("{} /* {name} */", hex(v as u64)),
    }
}

/// The `k` of a socket filter statement (`print_sock_filter_k`).
fn sock_k(c: &Ctx, code: u64, k: u64) -> String {
    let k = k as u32;
    const SKF_AD_OFF: u32 = 0xffff_f000;
    const SKF_NET_OFF: u32 = 0xfff0_0000;
    const SKF_LL_OFF: u32 = 0xffe0_0000;
    // BPF_LD|BPF_ABS
    if code & 0x07 == 0 && code & 0xe0 == 0x20 {
        if k >= SKF_AD_OFF {
            return format!(
                "{}+{}",
                named(c, SKF_AD_OFF, "SKF_AD_OFF"),
                xv(c, (k - SKF_AD_OFF) as u64, &xlat::SKF_AD, "SKF_AD_???")
            );
        }
        if k >= SKF_NET_OFF {
            return format!(
                "{}+{}",
                named(c, SKF_NET_OFF, "SKF_NET_OFF"),
                k - SKF_NET_OFF
            );
        }
        if k >= SKF_LL_OFF {
            return format!("{}+{}", named(c, SKF_LL_OFF, "SKF_LL_OFF"), k - SKF_LL_OFF);
        }
    }
    hex(k as u64)
}

/// `len` instructions at `addr` (`print_sock_fprog`): an array, the
/// address without `-v`.
pub(crate) fn program(c: &mut Ctx, addr: u64, len: u64) -> Value {
    if !c.opts.verbose || addr == 0 {
        return Value::Ptr(addr);
    }
    let n = len.min(4096);
    let mut items = Vec::new();
    for i in 0..n {
        let a = addr + (SockFilter::SIZE as u64) * i;
        let Some(b) = c.read_bytes(a, SockFilter::SIZE) else {
            if i == 0 {
                return Value::Unreadable(addr);
            }
            items.push(Value::sym_owned(format!("... /* {a:#x} */")));
            return Value::Array(items, false);
        };
        items.push(Value::sym_owned(insn_text(c, &b, sock_k)));
    }
    Value::Array(items, len > n)
}

kstruct! {
    /// `struct sock_fprog` of a 64-bit tracee.
    struct SockFprog size 16 {
        len: u16 @ 0,
        filter: u64 @ 8,
    }
}

/// `struct sock_fprog` at `addr` (`decode_sock_fprog`).
pub(in crate::syscall) fn fprog(c: &mut Ctx, addr: u64) -> Value {
    let Some(b) = c.read_bytes(addr, SockFprog::SIZE) else {
        return Value::Unreadable(addr);
    };
    let p = SockFprog(&b);
    let len = p.len() as u64;
    let filter = p.filter();
    let prog = program(c, filter, len);
    Value::structure(vec![
        Field::new("len", Value::UInt(len)),
        Field::new("filter", prog),
    ])
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ctx::DecodeOpts;
    use crate::syscall::net::sockopt::setsockopt;
    use crate::syscall::testutil::run_with;

    #[test]
    fn socket_filter() {
        let mut m = FakeMemory::default();
        let mut prog = Vec::new();
        // BPF_STMT(BPF_LD|BPF_B|BPF_ABS, SKF_AD_OFF+SKF_AD_PROTOCOL)
        prog.extend_from_slice(&[0x30, 0, 0, 0]);
        prog.extend_from_slice(&0xffff_f000u32.to_le_bytes());
        // BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x11, 0, 0x5)
        prog.extend_from_slice(&[0x15, 0, 0, 5]);
        prog.extend_from_slice(&0x11u32.to_le_bytes());
        // BPF_STMT(BPF_RET|BPF_K, 0)
        prog.extend_from_slice(&[0x06, 0, 0, 0, 0, 0, 0, 0]);
        let p = m.put(&prog);
        let mut fp = vec![3, 0, 0, 0, 0, 0, 0, 0];
        fp.extend_from_slice(&p.to_le_bytes());
        let f = m.put(&fp);
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(
                setsockopt,
                "setsockopt",
                &[3, 1, 26, f, 16],
                0,
                &mut m,
                &opts
            ),
            "setsockopt(3, SOL_SOCKET, SO_ATTACH_FILTER, {len=3, filter=[\
             BPF_STMT(BPF_LD|BPF_B|BPF_ABS, SKF_AD_OFF+SKF_AD_PROTOCOL), \
             BPF_JUMP(BPF_JMP|BPF_K|BPF_JEQ, 0x11, 0, 0x5), \
             BPF_STMT(BPF_RET|BPF_K, 0)]}, 16) = 0"
        );
    }
}
