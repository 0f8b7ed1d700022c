//! rseq(2), as strace 7.2 prints it: `struct rseq` (when the length is at
//! least the original 32 bytes and the address 32-byte aligned, as the
//! kernel requires), its critical-section descriptor `struct rseq_cs`
//! dereferenced with its address in a comment, the length in decimal, the
//! flags and the signature in hex.

use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[("rseq", rseq)];

/// The original `struct rseq` size: shorter lengths are rejected.
const ORIG_SIZE: u64 = 32;
/// `sizeof(struct rseq)` (36 bytes of fields, aligned to 32): at most
/// this much is read.
const STRUCT_SIZE: u64 = 64;

/// `rseq(rseq, rseq_len, flags, sig)`.
fn rseq(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(0);
    let len = c.arg(1) as u32 as u64;
    let v = rseq_value(c, addr, len);
    c.push(v);
    c.push(Value::UInt(len));
    let fl = xflags(
        c,
        c.arg(2) as u32 as u64,
        &xlat::RSEQ_FLAGS,
        "RSEQ_FLAG_???",
    );
    c.push(fl);
    c.push(xint(c.arg(3) as u32 as u64));
    Step::Done(RetFmt::Int)
}

/// A cpu id: the special values by name (in decimal under `-X`), else
/// unsigned.
fn cpu_id(c: &Ctx, v: u64) -> Value {
    let signed = v as u32 as i32 as i64;
    match (xlat::RSEQ_CPU_IDS.lookup(signed as u64), c.opts.xlat_style) {
        (Some(n), 0) => Value::sym(n),
        (Some(_), 1) => Value::Int(signed),
        (Some(n), _) => Value::Commented(Box::new(Value::Int(signed)), Cow::Borrowed(n)),
        (None, _) => Value::UInt(v),
    }
}

fn rseq_value(c: &mut Ctx, addr: u64, len: u64) -> Value {
    // The kernel rejects short lengths and unaligned addresses: strace
    // does not read the memory then.
    if len < ORIG_SIZE || !addr.is_multiple_of(ORIG_SIZE) {
        return Value::Ptr(addr);
    }
    let want = len.min(STRUCT_SIZE) as usize;
    let Some(mut b) = c.read_bytes(addr, want) else {
        return Value::Ptr(addr);
    };
    // Fields past the given length read as zero.
    b.resize(STRUCT_SIZE as usize, 0);
    let cs = rseq_cs(c, le64(&b, 8));
    let flags = xflags(c, le32(&b, 16), &xlat::RSEQ_CS_FLAGS, "RSEQ_CS_FLAG_???");
    let slice = Value::structure(vec![
        Field::new("request", Value::UInt(b[28] as u64)),
        Field::new("granted", Value::UInt(b[29] as u64)),
        Field::new(
            "__reserved",
            xint(u16::from_le_bytes([b[30], b[31]]) as u64),
        ),
    ]);
    Value::structure(vec![
        Field::new("cpu_id_start", cpu_id(c, le32(&b, 0))),
        Field::new("cpu_id", cpu_id(c, le32(&b, 4))),
        Field::new("rseq_cs", cs),
        Field::new("flags", flags),
        Field::new("node_id", Value::UInt(le32(&b, 20))),
        Field::new("mm_cid", Value::UInt(le32(&b, 24))),
        Field::new("slice_ctrl", slice),
        Field::new("__reserved", xint(le32(&b, 32))),
    ])
}

/// `struct rseq_cs` at `addr` with the address in a comment, or the
/// address alone when it is NULL or unreadable.
fn rseq_cs(c: &mut Ctx, addr: u64) -> Value {
    // On a 32-bit ABI only the low word is the pointer.
    let ptr = if c.arch.word_size() == 4 {
        addr & 0xffff_ffff
    } else {
        addr
    };
    if ptr == 0 {
        return Value::Ptr(addr);
    }
    let Some(b) = c.read_bytes(ptr, 32) else {
        return Value::Ptr(addr);
    };
    let flags = xflags(c, le32(&b, 4), &xlat::RSEQ_CS_FLAGS, "RSEQ_CS_FLAG_???");
    let s = Value::structure(vec![
        Field::new("version", Value::UInt(le32(&b, 0))),
        Field::new("flags", flags),
        Field::new("start_ip", xint(le64(&b, 8))),
        Field::new("post_commit_offset", xint(le64(&b, 16))),
        Field::new("abort_ip", xint(le64(&b, 24))),
    ]);
    Value::Commented(Box::new(s), Cow::Owned(format!("{ptr:#x}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn short_or_unaligned_prints_the_address() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(
                rseq,
                "rseq",
                &[0x7f49_c6de_d060, 20, 0, 0x5305_3053],
                -22,
                &mut m
            ),
            "rseq(0x7f49c6ded060, 20, 0, 0x53053053) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(rseq, "rseq", &[0x7f49_c6de_d068, 32, 1, 0x5305_3053], -22, &mut m),
            "rseq(0x7f49c6ded068, 32, RSEQ_FLAG_UNREGISTER, 0x53053053) = -1 EINVAL (Invalid argument)"
        );
    }
}
