//! What bpf(2) decodes only under `-v`, as strace 6.1 prints it: eBPF
//! instruction arrays (`{code=BPF_ALU64|BPF_K|BPF_MOV, dst_reg=BPF_REG_0,
//! ...}`) and the `struct bpf_map_info` BPF_OBJ_GET_INFO_BY_FD returns for a
//! map descriptor (a program's is in `bpf/prog_info.rs`).

use crate::syscall::array::array_at;
use crate::syscall::printers::{dev_value, le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

/// strace's `BPF_MAXINSNS`: instructions past it print as `...`.
const MAXINSNS: u64 = 4096;

/// `print_bpf_filter_code` for eBPF: class, then size and mode or source
/// and operation, then unknown bits.
fn code_text(c: &Ctx, code: u64) -> String {
    let name = |v: u64, t, d| crate::syscall::ctx::render_flags(&c.enum_value(v, t, d));
    let class = code & 7;
    let mut s = name(class, &xlat::EBPF_CLASS, "BPF_???");
    let mut rest = code & !7;
    match class {
        0..=3 => {
            s.push('|');
            s.push_str(&name(code & 0x18, &xlat::EBPF_SIZE, "BPF_???"));
            s.push('|');
            s.push_str(&name(code & 0xe0, &xlat::EBPF_MODE, "BPF_???"));
            rest = 0;
        }
        4 | 5 | 7 => {
            s.push('|');
            s.push_str(&name(code & 8, &xlat::BPF_SRC, "BPF_???"));
            s.push('|');
            let ops = if class == 5 {
                &xlat::EBPF_OP_JMP
            } else {
                &xlat::EBPF_OP_ALU
            };
            s.push_str(&name(code & 0xf0, ops, "BPF_???"));
            rest = 0;
        }
        _ => {}
    }
    if rest != 0 {
        s.push_str(&format!("|{rest:#x} /* BPF_??? */"));
    }
    s
}

/// The `insns` field: its address, or under `-v` the instructions.
pub(in crate::syscall) fn insns_value(c: &mut Ctx, addr: u64, n: u64) -> Value {
    if !c.opts.verbose {
        return Value::Ptr(addr);
    }
    let mut count = 0u64;
    let v = array_at(c, addr, n, 8, |c, b| {
        count += 1;
        if count > MAXINSNS {
            return None;
        }
        let regs = b[1] as u64;
        let f = vec![
            Field::new("code", Value::sym_owned(code_text(c, b[0] as u64))),
            Field::new(
                "dst_reg",
                c.enum_value(regs & 15, &xlat::EBPF_REGS, "BPF_REG_???"),
            ),
            Field::new(
                "src_reg",
                c.enum_value(regs >> 4, &xlat::EBPF_REGS, "BPF_REG_???"),
            ),
            Field::new("off", Value::Int(le16(b, 2) as u16 as i16 as i64)),
            Field::new("imm", xint(le32(b, 4))),
        ];
        Some(Value::structure(f))
    });
    match v {
        Value::Array(items, false) if count > MAXINSNS => Value::Array(items, true),
        v => v,
    }
}

/// The `info` field of BPF_OBJ_GET_INFO_BY_FD at exit: its address, or
/// under `-v` the `struct bpf_map_info` or `struct bpf_prog_info` the kernel
/// wrote for a map or program descriptor.
pub(in crate::syscall) fn info_value(c: &mut Ctx, fd: u64, addr: u64, len: u64) -> Value {
    if !c.opts.verbose {
        return Value::Ptr(addr);
    }
    let path = c.fds.fd_path(c.pid, fd as u32 as i32 as i64);
    if path.as_deref() == Some(b"anon_inode:bpf-prog".as_slice()) {
        return crate::syscall::bpf::prog_info::prog_info(c, addr, len).unwrap_or(Value::Ptr(addr));
    }
    if path.as_deref() != Some(b"anon_inode:bpf-map".as_slice()) || len == 0 || len > 4096 {
        return Value::Ptr(addr);
    }
    let Some(mut b) = c.read_bytes(addr, len as usize) else {
        return Value::Ptr(addr);
    };
    // strace 6.1's struct bpf_map_info ends after btf_value_type_id.
    const KNOWN: usize = 80;
    let n = b.len().min(KNOWN);
    b.truncate(n);
    b.resize(KNOWN, 0);
    let mut f = vec![
        Field::new(
            "type",
            c.enum_value(le32(&b, 0), &xlat::BPF_MAP_TYPES, "BPF_MAP_TYPE_???"),
        ),
        Field::new("id", Value::UInt(le32(&b, 4))),
        Field::new("key_size", Value::UInt(le32(&b, 8))),
        Field::new("value_size", Value::UInt(le32(&b, 12))),
        Field::new("max_entries", Value::UInt(le32(&b, 16))),
        Field::new(
            "map_flags",
            xflags(c, le32(&b, 20), &xlat::BPF_MAP_FLAGS, "BPF_F_???"),
        ),
    ];
    if n > 24 {
        f.push(Field::new(
            "name",
            crate::syscall::bpf::prog_info::cstring(&b[24..40]),
        ));
    }
    if n > 40 {
        f.push(Field::new(
            "ifindex",
            crate::syscall::bpf::ifindex_value(le32(&b, 40) as u32),
        ));
        f.push(Field::new(
            "btf_vmlinux_value_type_id",
            Value::UInt(le32(&b, 44)),
        ));
        f.push(Field::new("netns_dev", dev_value(c, le64(&b, 48))));
        f.push(Field::new("netns_ino", Value::UInt(le64(&b, 56))));
    }
    if n > 64 {
        f.push(Field::new("btf_id", Value::UInt(le32(&b, 64))));
        f.push(Field::new("btf_key_type_id", Value::UInt(le32(&b, 68))));
        f.push(Field::new("btf_value_type_id", Value::UInt(le32(&b, 72))));
    }
    Value::structure(f)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run_with;
    use crate::syscall::DecodeOpts;

    #[test]
    fn instructions() {
        let mut m = FakeMemory::default();
        let insns = m.put(&[
            0xb7, 0, 0, 0, 0, 0, 0, 0, 0x95, 0, 0, 0, 0, 0, 0, 0, 0x0e, 0xfd, 0xff, 0xff, 1, 0, 0,
            0,
        ]);
        let lic = m.put(b"GPL\0");
        let mut a = vec![0u8; 24];
        a[0] = 1;
        a[4] = 3;
        a[8..16].copy_from_slice(&insns.to_le_bytes());
        a[16..24].copy_from_slice(&lic.to_le_bytes());
        let p = m.put(&a);
        let v = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(crate::syscall::bpf::DECODERS[0].1, "bpf", &[5, p, 24], 4, &mut m, &v),
            "bpf(BPF_PROG_LOAD, {prog_type=BPF_PROG_TYPE_SOCKET_FILTER, insn_cnt=3, insns=[{code=BPF_ALU64|BPF_K|BPF_MOV, dst_reg=BPF_REG_0, src_reg=BPF_REG_0, off=0, imm=0}, {code=BPF_JMP|BPF_K|BPF_EXIT, dst_reg=BPF_REG_0, src_reg=BPF_REG_0, off=0, imm=0}, {code=BPF_JMP32|0x8 /* BPF_??? */, dst_reg=0xd /* BPF_REG_??? */, src_reg=0xf /* BPF_REG_??? */, off=-1, imm=0x1}], license=\"GPL\"}, 24) = 4"
        );
    }
}
