//! The arguments of io_uring_register's zero-copy receive and query
//! opcodes, as strace 7.2 prints them at the call's entry:
//! IORING_REGISTER_ZCRX_IFQ (`struct io_uring_zcrx_ifq_reg`, one of them),
//! IORING_REGISTER_ZCRX_CTRL (`struct zcrx_ctrl`, one) and
//! IORING_REGISTER_QUERY (a chain of `struct io_uring_query_hdr`, no count),
//! with each query's data by its opcode. Another count prints the bare
//! address, as strace does. What the kernel writes back (the ring offsets,
//! a query's answer) is not printed: strace 7.2 prints none of it.

use crate::syscall::printers::{le32, le64, nonzero_x, read, resv_array, xflags, xint};
use crate::syscall::{Ctx, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

const ZCRX_IFQ: u64 = 32;
const QUERY: u64 = 35;
const ZCRX_CTRL: u64 = 36;

/// Whether `op` is decoded here.
pub(super) fn handles(op: u64) -> bool {
    matches!(op, ZCRX_IFQ | QUERY | ZCRX_CTRL)
}

/// The entry of opcode `op` (fd and opcode already pushed): the argument
/// and the count.
pub(super) fn entry(c: &mut Ctx, op: u64, addr: u64, nr: u64) -> Step {
    let want = if op == QUERY { 0 } else { 1 };
    let v = if nr != want {
        Value::Ptr(addr)
    } else {
        match op {
            ZCRX_IFQ => read(c, addr, 96, ifq_reg),
            ZCRX_CTRL => read(c, addr, 72, ctrl),
            _ => query_chain(c, addr),
        }
    };
    c.push(v);
    c.uint(3);
    Step::Done(RetFmt::Int)
}

/// A `__u32` in decimal.
fn u32f(name: &'static str, b: &[u8], off: usize) -> Field {
    Field::new(name, Value::UInt(le32(b, off)))
}

/// `struct io_uring_zcrx_ifq_reg`.
fn ifq_reg(c: &mut Ctx, b: &[u8]) -> Value {
    let flags = xflags(c, le32(b, 12), &xlat::URING_ZCRX_REG_FLAGS, "ZCRX_REG_???");
    let mut off = vec![
        u32f("head", b, 32),
        u32f("tail", b, 36),
        u32f("rqes", b, 40),
    ];
    nonzero_x(&mut off, "__resv2", le32(b, 44));
    resv_array(c, &mut off, "__resv", b, 48, 2, 8);
    let mut f = vec![
        u32f("if_idx", b, 0),
        u32f("if_rxq", b, 4),
        u32f("rq_entries", b, 8),
        Field::new("flags", flags),
        Field::new("area_ptr", Value::Ptr(le64(b, 16))),
        Field::new("region_ptr", Value::Ptr(le64(b, 24))),
        Field::new("offsets", Value::structure(off)),
        u32f("zcrx_id", b, 64),
        u32f("rx_buf_len", b, 68),
        Field::new("event_desc", Value::Ptr(le64(b, 72))),
    ];
    resv_array(c, &mut f, "__resv", b, 80, 2, 8);
    Value::structure(f)
}

/// `struct zcrx_ctrl`: the union member of its op (ZCRX_CTRL_EXPORT's is
/// the kernel's answer, not printed).
fn ctrl(c: &mut Ctx, b: &[u8]) -> Value {
    let op = le32(b, 4);
    let mut f = vec![
        u32f("zcrx_id", b, 0),
        Field::new(
            "op",
            c.enum_value(op, &xlat::URING_ZCRX_CTRL_OPS, "ZCRX_CTRL_???"),
        ),
    ];
    resv_array(c, &mut f, "__resv", b, 8, 2, 8);
    match op {
        0 => {
            let mut u = Vec::new();
            resv_array(c, &mut u, "__resv", b, 24, 6, 8);
            f.push(Field::new("zc_flush", Value::structure(u)));
        }
        2 => {
            let t = c.enum_value(le32(b, 24), &xlat::URING_ZCRX_EVENT_TYPES, "ZCRX_EVENT_???");
            let mut u = vec![Field::new("event_type", t)];
            resv_array(c, &mut u, "__resv", b, 28, 11, 4);
            f.push(Field::new("zc_arm_event", Value::structure(u)));
        }
        _ => {}
    }
    Value::structure(f)
}

/// strace 7.2 follows at most this many query headers, whatever `-s`/`-v`.
const MAX_QUERIES: usize = 1000;

/// The chain of `struct io_uring_query_hdr` from `addr`: as many headers
/// as the string limit (`-s`; all under `-v`) up to [`MAX_QUERIES`], then
/// the next address with `/* ... */`.
fn query_chain(c: &mut Ctx, addr: u64) -> Value {
    let limit = if c.opts.verbose {
        MAX_QUERIES
    } else {
        c.opts.string_limit.clamp(1, MAX_QUERIES)
    };
    // Built from the innermost header out.
    let mut hdrs = Vec::new();
    let mut next = addr;
    let mut tail = Value::Ptr(0);
    while next != 0 {
        if hdrs.len() == limit {
            tail = Value::Commented(Box::new(Value::Ptr(next)), Cow::Borrowed("..."));
            break;
        }
        let Some(b) = c.read_bytes(next, 40) else {
            tail = Value::Ptr(next);
            break;
        };
        next = le64(&b, 0);
        hdrs.push(query_hdr(c, &b));
    }
    for mut f in hdrs.into_iter().rev() {
        f.push(Field::new("next_entry", tail));
        tail = Value::structure(f);
    }
    tail
}

/// One query header's fields before `next_entry`: its data when it has a
/// size and an address.
fn query_hdr(c: &mut Ctx, b: &[u8]) -> Vec<Field> {
    let data = le64(b, 8);
    let op = le32(b, 16);
    let size = le32(b, 20);
    let mut f = vec![
        Field::new("query_data", Value::Ptr(data)),
        Field::new(
            "query_op",
            c.enum_value(op, &xlat::URING_QUERY_OPS, "IO_URING_QUERY_???"),
        ),
        Field::new("size", Value::UInt(size)),
        Field::new("result", Value::Int(le32(b, 24) as u32 as i32 as i64)),
    ];
    resv_array(c, &mut f, "__resv", b, 28, 3, 4);
    if data != 0 && size != 0 {
        let v = match op {
            0 => read(c, data, 48, query_opcodes),
            1 => read(c, data, 40, query_zcrx),
            2 => read(c, data, 16, |_, d| {
                Value::structure(vec![
                    Field::new("hdr_size", Value::UInt(le64(d, 0))),
                    Field::new("hdr_alignment", Value::UInt(le64(d, 8))),
                ])
            }),
            3 => read(c, data, 48, |c, d| {
                let mut f = vec![
                    Field::new("event_flags", xint(le32(d, 0))),
                    u32f("stats_size", d, 4),
                    u32f("stats_off_alignment", d, 8),
                ];
                nonzero_x(&mut f, "__resv1", le32(d, 12));
                resv_array(c, &mut f, "__resv2", d, 16, 4, 8);
                Value::structure(f)
            }),
            _ => Value::Ptr(data),
        };
        f.push(Field::new("query_data", v));
    }
    f
}

/// `struct io_uring_query_opcode`.
fn query_opcodes(c: &mut Ctx, d: &[u8]) -> Value {
    let feat = xflags(c, le64(d, 8), &xlat::URING_FEATURES, "IORING_FEAT_???");
    let setup = xflags(c, le64(d, 16), &xlat::URING_SETUP_FLAGS, "IORING_SETUP_???");
    let enter = xflags(c, le64(d, 24), &xlat::URING_ENTER_FLAGS, "IORING_ENTER_???");
    let sqe = xflags(c, le64(d, 32), &xlat::URING_SQE_FLAGS, "IOSQE_???");
    let mut f = vec![
        u32f("nr_request_opcodes", d, 0),
        u32f("nr_register_opcodes", d, 4),
        Field::new("feature_flags", feat),
        Field::new("ring_setup_flags", setup),
        Field::new("enter_flags", enter),
        Field::new("sqe_flags", sqe),
        u32f("nr_query_opcodes", d, 40),
    ];
    nonzero_x(&mut f, "__pad", le32(d, 44));
    Value::structure(f)
}

/// `struct io_uring_query_zcrx`.
fn query_zcrx(c: &mut Ctx, d: &[u8]) -> Value {
    let reg = xflags(c, le64(d, 0), &xlat::URING_ZCRX_REG_FLAGS, "ZCRX_REG_???");
    let area = xflags(
        c,
        le64(d, 8),
        &xlat::URING_ZCRX_AREA_FLAGS,
        "IORING_ZCRX_AREA_???",
    );
    let mut f = vec![
        Field::new("register_flags", reg),
        Field::new("area_flags", area),
        u32f("nr_ctrl_opcodes", d, 16),
        Field::new("features", xint(le32(d, 20))),
        u32f("rq_hdr_size", d, 24),
        u32f("rq_hdr_alignment", d, 28),
    ];
    nonzero_x(&mut f, "__resv2", le64(d, 32));
    Value::structure(f)
}
