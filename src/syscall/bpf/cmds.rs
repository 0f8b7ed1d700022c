//! bpf(2)'s larger commands: the `union bpf_attr` fields of BPF_MAP_CREATE,
//! BPF_PROG_LOAD, BPF_LINK_CREATE, BPF_PROG_QUERY, BPF_TASK_FD_QUERY and the
//! map batch operations, as strace 6.1 prints them.

use crate::syscall::bpf::{kernel_version, str0, Attr, S};
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;
/// An enum of a 64-bit field.
pub(in crate::syscall::bpf) fn c_enum64(c: &Ctx, v: u64, t: &Xlat, d: &'static str) -> Value {
    c.enum_value(v, t, d)
}

/// `entry => exit` when the kernel changed a field kept in `saved`.
pub(in crate::syscall::bpf) fn changed(saved: u64, now: u64) -> Value {
    let before = saved & 0xffff_ffff;
    if before != now {
        Value::Changed(Box::new(Value::UInt(before)), Box::new(Value::UInt(now)))
    } else {
        Value::UInt(now)
    }
}

pub(in crate::syscall::bpf) fn map_create(c: &mut Ctx, a: &Attr) -> Vec<Field> {
    let mut s = S::new(c, a);
    s.xval("map_type", 0, &xlat::BPF_MAP_TYPES, "BPF_MAP_TYPE_???");
    s.u("key_size", 4).u("value_size", 8).u("max_entries", 12);
    if !a.has(16) {
        return s.done();
    }
    s.flags("map_flags", 16, &xlat::BPF_MAP_FLAGS, "BPF_F_???");
    if !a.has(20) {
        return s.done();
    }
    s.fd("inner_map_fd", 20);
    if !a.has(24) {
        return s.done();
    }
    if a.u32(16) & 4 != 0 {
        // BPF_F_NUMA_NODE: strace forces the verbose style here.
        let n = a.u32(24);
        let v = match xlat::BPF_NUMA_NODE.lookup(n) {
            Some(name) if s.c.opts.xlat_style != 1 => {
                Value::Commented(Box::new(Value::UInt(n)), Cow::Borrowed(name))
            }
            _ => Value::UInt(n),
        };
        s.put("numa_node", v);
    }
    if !a.has(28) {
        return s.done();
    }
    s.cstring("map_name", 28, a.len - 28);
    if !a.has(44) {
        return s.done();
    }
    s.ifindex("map_ifindex", 44);
    if !a.has(48) {
        return s.done();
    }
    s.fd("btf_fd", 48)
        .u("btf_key_type_id", 52)
        .u("btf_value_type_id", 56);
    if !a.has(60) {
        return s.done();
    }
    s.u("btf_vmlinux_value_type_id", 60);
    if a.has(64) {
        s.u64("map_extra", 64);
    }
    s.done()
}

pub(in crate::syscall::bpf) fn prog_load(c: &mut Ctx, a: &Attr) -> Vec<Field> {
    let insns = crate::syscall::bpf::insn::insns_value(c, a.u64(8), a.u32(4));
    let license = c.cstr_value(a.u64(16));
    let log = if a.has(24) {
        str0(c, a.u64(32), a.u32(28))
    } else {
        Value::Unknown
    };
    let mut s = S::new(c, a);
    s.xval("prog_type", 0, &xlat::BPF_PROG_TYPES, "BPF_PROG_TYPE_???");
    s.u("insn_cnt", 4)
        .put("insns", insns)
        .put("license", license);
    if !a.has(24) {
        return s.done();
    }
    s.u("log_level", 24).u("log_size", 28).put("log_buf", log);
    if !a.has(40) {
        return s.done();
    }
    let kv = kernel_version(s.c, a.u32(40));
    s.put("kern_version", kv);
    if !a.has(44) {
        return s.done();
    }
    s.flags("prog_flags", 44, &xlat::BPF_PROG_FLAGS, "BPF_F_???");
    if !a.has(48) {
        return s.done();
    }
    s.cstring("prog_name", 48, a.len - 48);
    if !a.has(64) {
        return s.done();
    }
    s.ifindex("prog_ifindex", 64);
    if !a.has(68) {
        return s.done();
    }
    s.xval(
        "expected_attach_type",
        68,
        &xlat::BPF_ATTACH_TYPES,
        "BPF_???",
    );
    if !a.has(72) {
        return s.done();
    }
    s.fd("prog_btf_fd", 72).u("func_info_rec_size", 76);
    s.addr("func_info", 80).u("func_info_cnt", 88);
    s.u("line_info_rec_size", 92)
        .addr("line_info", 96)
        .u("line_info_cnt", 104);
    if !a.has(108) {
        return s.done();
    }
    s.u("attach_btf_id", 108);
    if !a.has(112) {
        return s.done();
    }
    s.fd("attach_prog_fd", 112);
    if !a.has(120) {
        return s.done();
    }
    s.addr("fd_array", 120);
    s.done()
}

/// `BPF_F_KPROBE_MULTI_*` (`bpf_link_create_kprobe_multi_flags`).
static BPF_KPROBE_MULTI_FLAGS: Xlat = Xlat {
    name: "bpf_link_create_kprobe_multi_flags",
    kind: rtrace_arch::xlat::XlatKind::Flags,
    entries: &[(1, "BPF_F_KPROBE_MULTI_RETURN")],
};

/// BPF_LINK_CREATE: the common fields, then the union member strace 6.1
/// guesses from the attach type; also where its "extra data" starts when
/// the member decides it (`None`: the whole structure).
pub(in crate::syscall::bpf) fn link_create(c: &mut Ctx, a: &Attr) -> (Vec<Field>, Option<usize>) {
    let mut s = S::new(c, a);
    s.fd("prog_fd", 0);
    // tcx and netkit links attach to a network device (strace 7.2).
    let by_ifindex = matches!(
        xlat::BPF_ATTACH_TYPES.lookup(a.u32(8)),
        Some("BPF_TCX_INGRESS" | "BPF_TCX_EGRESS" | "BPF_NETKIT_PRIMARY" | "BPF_NETKIT_PEER")
    );
    if by_ifindex {
        s.u("target_ifindex", 4);
    } else {
        s.fd("target_fd", 4);
    }
    s.xval("attach_type", 8, &xlat::BPF_ATTACH_TYPES, "BPF_???");
    s.x("flags", 12);
    if !a.has(16) {
        return (s.done(), None);
    }
    let end = match a.u32(8) {
        0 => {
            if a.u32(16) != 0 {
                s.u("target_btf_id", 16);
            }
            20
        }
        28 => {
            // BPF_TRACE_ITER: an array of `union bpf_iter_link_info`.
            let (addr, n) = (a.u64(16), a.u32(24));
            let v = crate::syscall::array::array_at(s.c, addr, n, 4, |c, b| {
                let fd = c.fd_value(le32(b, 0) as u32 as i32 as i64);
                let map = Value::structure(vec![Field::new("map_fd", fd)]);
                Some(Value::structure(vec![Field::new("map", map)]))
            });
            s.put("iter_info", v).u("iter_info_len", 24);
            28
        }
        41 => {
            // BPF_PERF_EVENT
            let v = Value::structure(vec![Field::new("bpf_cookie", xint(a.u64(16)))]);
            s.put("perf_event", v);
            24
        }
        42 => {
            // BPF_TRACE_KPROBE_MULTI
            let n = a.u32(20);
            let w = s.c.arch.word_size();
            let syms = crate::syscall::array::array_at(s.c, a.u64(24), n, w, |c, b| {
                let p = if w == 4 { le32(b, 0) } else { le64(b, 0) };
                Some(c.cstr_value(p))
            });
            let words = |c: &mut Ctx, addr| {
                crate::syscall::array::array_at(c, addr, n, 8, |_, b| Some(xint(le64(b, 0))))
            };
            let addrs = words(s.c, a.u64(32));
            let cookies = words(s.c, a.u64(40));
            let f = xflags(s.c, a.u32(16), &BPF_KPROBE_MULTI_FLAGS, "BPF_F_???");
            let v = Value::structure(vec![
                Field::new("flags", f),
                Field::new("cnt", Value::UInt(n)),
                Field::new("syms", syms),
                Field::new("addrs", addrs),
                Field::new("cookies", cookies),
            ]);
            s.put("kprobe_multi", v);
            48
        }
        _ => 16,
    };
    (s.done(), Some(end))
}

/// `BPF_F_QUERY_*` (`bpf_query_flags`).
static BPF_QUERY_FLAGS: Xlat = Xlat {
    name: "bpf_query_flags",
    kind: rtrace_arch::xlat::XlatKind::Flags,
    entries: &[(1, "BPF_F_QUERY_EFFECTIVE")],
};

/// `BPF_FD_TYPE_*` (`bpf_task_fd_type`).
static BPF_TASK_FD_TYPE: Xlat = Xlat {
    name: "bpf_task_fd_type",
    kind: rtrace_arch::xlat::XlatKind::Enum,
    entries: &[
        (0, "BPF_FD_TYPE_RAW_TRACEPOINT"),
        (1, "BPF_FD_TYPE_TRACEPOINT"),
        (2, "BPF_FD_TYPE_KPROBE"),
        (3, "BPF_FD_TYPE_KRETPROBE"),
        (4, "BPF_FD_TYPE_UPROBE"),
        (5, "BPF_FD_TYPE_URETPROBE"),
    ],
};

/// BPF_PROG_QUERY at exit: `{query={…, prog_ids=[…], prog_cnt=N}}`, the
/// count as `ENTRY => EXIT` when the kernel changed it.
pub(in crate::syscall::bpf) fn prog_query(c: &mut Ctx, a: &Attr) -> Vec<Field> {
    let cnt = a.u32(24);
    let ids = if c.failed() && cnt > 0 {
        Value::Ptr(a.u64(16))
    } else {
        crate::syscall::array::array_at(c, a.u64(16), cnt, 4, |_, b| Some(Value::UInt(le32(b, 0))))
    };
    let mut s = S::new(c, a);
    s.fd("target_fd", 0);
    s.xval("attach_type", 4, &xlat::BPF_ATTACH_TYPES, "BPF_???");
    s.flags("query_flags", 8, &BPF_QUERY_FLAGS, "BPF_F_QUERY_???");
    s.flags("attach_flags", 12, &xlat::BPF_ATTACH_FLAGS, "BPF_F_???");
    let cnt_v = changed(s.c.saved, cnt);
    s.put("prog_ids", ids).put("prog_cnt", cnt_v);
    vec![Field::new("query", Value::structure(s.done()))]
}

/// BPF_TASK_FD_QUERY at exit: `{task_fd_query={pid=…, …, buf="…", …}}`.
pub(in crate::syscall::bpf) fn task_fd_query(c: &mut Ctx, a: &Attr) -> Vec<Field> {
    let len = a.u32(12);
    let shown = len.min(c.saved & 0xffff_ffff);
    let buf = str0(c, a.u64(16), shown);
    let pid = c.pid_value(a.u32(0) as u32 as i32 as i64);
    let mut s = S::new(c, a);
    s.put("pid", pid).fd("fd", 4).u("flags", 8);
    let len_v = changed(s.c.saved, len);
    s.put("buf_len", len_v).put("buf", buf);
    s.u("prog_id", 24);
    s.xval("fd_type", 28, &BPF_TASK_FD_TYPE, "BPF_FD_TYPE_???");
    let (off, addr) = (xint(a.u64(32)), xint(a.u64(40)));
    s.put("probe_offset", off).put("probe_addr", addr);
    vec![Field::new("task_fd_query", Value::structure(s.done()))]
}

/// BPF_MAP_{LOOKUP,LOOKUP_AND_DELETE,UPDATE,DELETE}_BATCH at entry (the
/// count as it was then).
pub(in crate::syscall::bpf) fn batch(c: &mut Ctx, cmd: u64, a: &Attr) -> Vec<Field> {
    let before = c.saved & 0xffff_ffff;
    let mut s = S::new(c, a);
    if cmd <= 25 {
        s.addr("in_batch", 0).addr("out_batch", 8);
    }
    s.addr("keys", 16);
    if cmd != 27 {
        s.addr("values", 24);
    }
    s.put("count", Value::UInt(before)).fd("map_fd", 36);
    s.flags64(
        "elem_flags",
        40,
        &xlat::BPF_MAP_LOOKUP_ELEM_FLAGS,
        "BPF_???",
    );
    s.x("flags", 48);
    let inner = s.done();
    vec![Field::new("batch", Value::structure(inner))]
}

/// The batch count the kernel wrote back: `=> {batch={count=N}}` after the
/// entry structure when it changed.
pub(in crate::syscall::bpf) fn batch_exit(c: &Ctx, entry: Value, a: &Attr) -> Value {
    let now = a.u32(32);
    if now == c.saved & 0xffff_ffff {
        return entry;
    }
    let after = Value::structure(vec![Field::new(
        "batch",
        Value::structure(vec![Field::new("count", Value::UInt(now))]),
    )]);
    Value::Changed(Box::new(entry), Box::new(after))
}
