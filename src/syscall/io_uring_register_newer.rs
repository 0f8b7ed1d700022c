//! The arguments of io_uring_register's opcodes 24 and later (Linux 6.0
//! on), as strace 7.2 prints them: synchronous cancelation, the file
//! allocation range, buffer-ring status (filled by the kernel), NAPI
//! busy polling (register: the old settings after `=>`; unregister: the
//! settings the kernel hands back), the ring's clock, buffer cloning,
//! memory regions, ring resizing and IORING_REGISTER_SEND_MSG_RING's SQE
//! (printed by `io_uring_sqe.rs`). An argument count these opcodes do
//! not take prints the bare address, as strace does. The zero-copy receive
//! opcodes and IORING_REGISTER_QUERY are in `io_uring_register_zcrx.rs`.

use crate::syscall::printers::{le32, le64, nonzero_x, read, resv_array, xflags, xint};
use crate::syscall::{Ctx, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

const SYNC_CANCEL: u64 = 24;
const FILE_ALLOC_RANGE: u64 = 25;
const PBUF_STATUS: u64 = 26;
const NAPI: u64 = 27;
const UNREGISTER_NAPI: u64 = 28;
const CLOCK: u64 = 29;
const CLONE_BUFFERS: u64 = 30;
const SEND_MSG_RING: u64 = 31;
const RESIZE_RINGS: u64 = 33;
const MEM_REGION: u64 = 34;

/// Whether `op` is decoded here.
pub(super) fn handles(op: u64) -> bool {
    matches!(
        op,
        SYNC_CANCEL
            | FILE_ALLOC_RANGE
            | PBUF_STATUS
            | NAPI
            | UNREGISTER_NAPI
            | CLOCK
            | CLONE_BUFFERS
            | SEND_MSG_RING
            | RESIZE_RINGS
            | MEM_REGION
    )
}

/// The entry of opcode `op` (fd and opcode already pushed): the argument
/// and count when they are decoded now, else nothing (or, for
/// IORING_REGISTER_NAPI, the settings given) until the exit.
pub(super) fn entry(c: &mut Ctx, op: u64, addr: u64, nr: u64) -> Step {
    // The count each opcode takes; any other prints the address.
    let want = if op == CLOCK { 0 } else { 1 };
    if nr != want {
        c.push(Value::Ptr(addr));
        c.uint(3);
        return Step::Done(RetFmt::Int);
    }
    let v = match op {
        PBUF_STATUS | UNREGISTER_NAPI => return Step::Exit,
        NAPI => match napi(c, addr) {
            Some(v) => {
                c.push(v);
                c.entry_complete = true;
                return Step::Exit;
            }
            None => Value::Ptr(addr),
        },
        SYNC_CANCEL => read(c, addr, 64, sync_cancel),
        FILE_ALLOC_RANGE => read(c, addr, 16, |_, b| {
            let mut f = vec![
                Field::new("off", Value::UInt(le32(b, 0))),
                Field::new("len", Value::UInt(le32(b, 4))),
            ];
            nonzero_x(&mut f, "resv", le64(b, 8));
            Value::structure(f)
        }),
        CLOCK => read(c, addr, 16, |c, b| {
            let id = c.enum_value(le32(b, 0), &xlat::CLOCKS, "CLOCK_???");
            let mut f = vec![Field::new("clockid", id)];
            resv_array(c, &mut f, "__resv", b, 4, 3, 4);
            Value::structure(f)
        }),
        CLONE_BUFFERS => read(c, addr, 32, clone_buffers),
        SEND_MSG_RING => super::io_uring_sqe::sqe_at(c, addr),
        RESIZE_RINGS => read(c, addr, 120, resize_params),
        _ => read(c, addr, 32, |c, b| {
            let fl = xflags(
                c,
                le64(b, 8),
                &xlat::URING_MEM_REGION_REG_FLAGS,
                "IORING_MEM_REGION_REG_???",
            );
            let mut f = vec![
                Field::new("region_uptr", Value::Ptr(le64(b, 0))),
                Field::new("flags", fl),
            ];
            resv_array(c, &mut f, "__resv", b, 16, 2, 8);
            Value::structure(f)
        }),
    };
    c.push(v);
    c.uint(3);
    Step::Done(RetFmt::Int)
}

/// The exit of an opcode [`entry`] left open.
pub(super) fn exit(c: &mut Ctx, op: u64, addr: u64, nr: u64) -> Step {
    if op == NAPI {
        // The old settings the kernel wrote back, unless it failed.
        let mut parts = Vec::new();
        if !c.failed() {
            parts.push(Value::sym(" => "));
            parts.push(napi(c, addr).unwrap_or(Value::Ptr(addr)));
        }
        parts.push(Value::sym(", "));
        parts.push(Value::UInt(nr));
        c.push(Value::Joined(parts, ""));
        return Step::Done(RetFmt::Int);
    }
    // What the kernel filled in; the address when the call failed.
    let v = if c.failed() {
        Value::Ptr(addr)
    } else if op == UNREGISTER_NAPI {
        napi(c, addr).unwrap_or(Value::Ptr(addr))
    } else {
        read(c, addr, 40, |c, b| {
            let mut f = vec![
                Field::new("buf_group", xint(le32(b, 0))),
                Field::new("head", xint(le32(b, 4))),
            ];
            resv_array(c, &mut f, "resv", b, 8, 8, 4);
            Value::structure(f)
        })
    };
    c.push(v);
    c.uint(3);
    Step::Done(RetFmt::Int)
}

/// `resv=[0, 0x5, …]` of `n` bytes at `off`, when any is set.
fn byte_array(c: &Ctx, f: &mut Vec<Field>, name: &'static str, b: &[u8], off: usize, n: usize) {
    resv_array(c, f, name, b, off, n, 1);
}

/// `struct io_uring_sync_cancel_reg`.
fn sync_cancel(c: &mut Ctx, b: &[u8]) -> Value {
    let fd = c.fd_value(le32(b, 8) as u32 as i32 as i64);
    let flags = xflags(
        c,
        le32(b, 12),
        &xlat::URING_ASYNC_CANCEL_FLAGS,
        "IORING_ASYNC_CANCEL_???",
    );
    let timeout = Value::structure(vec![
        Field::new("tv_sec", Value::Int(le64(b, 16) as i64)),
        Field::new("tv_nsec", Value::Int(le64(b, 24) as i64)),
    ]);
    let op = c.enum_value(b[32] as u64, &xlat::URING_OPS, "IORING_OP_???");
    let mut f = vec![
        Field::new("addr", Value::Ptr(le64(b, 0))),
        Field::new("fd", fd),
        Field::new("flags", flags),
        Field::new("timeout", timeout),
        Field::new("opcode", op),
    ];
    byte_array(c, &mut f, "pad", b, 33, 7);
    resv_array(c, &mut f, "pad2", b, 40, 3, 8);
    Value::structure(f)
}

/// `struct io_uring_napi` at `addr`, `None` when unreadable.
fn napi(c: &mut Ctx, addr: u64) -> Option<Value> {
    let b = c.read_bytes(addr, 16)?;
    let op = b[5] as u64;
    let mut f = vec![
        Field::new("busy_poll_to", xint(le32(&b, 0))),
        Field::new("prefer_busy_poll", xint(b[4] as u64)),
        Field::new(
            "opcode",
            c.enum_value(op, &xlat::URING_NAPI_OPS, "IO_URING_NAPI_???"),
        ),
    ];
    byte_array(c, &mut f, "pad", &b, 6, 2);
    let param = le32(&b, 8);
    // IO_URING_NAPI_REGISTER_OP's parameter is the tracking strategy.
    let param = if op == 0 {
        c.enum_value(
            param,
            &xlat::URING_NAPI_TRACKING,
            "IO_URING_NAPI_TRACKING_???",
        )
    } else {
        xint(param)
    };
    f.push(Field::new("op_param", param));
    nonzero_x(&mut f, "resv", le32(&b, 12));
    Some(Value::structure(f))
}

/// `struct io_uring_clone_buffers`.
fn clone_buffers(c: &mut Ctx, b: &[u8]) -> Value {
    let fd = c.fd_value(le32(b, 0) as u32 as i32 as i64);
    let flags = xflags(
        c,
        le32(b, 4),
        &xlat::URING_CLONE_BUFFERS_FLAGS,
        "IORING_REGISTER_???",
    );
    let mut f = vec![
        Field::new("src_fd", fd),
        Field::new("flags", flags),
        Field::new("src_off", Value::UInt(le32(b, 8))),
        Field::new("dst_off", Value::UInt(le32(b, 12))),
        Field::new("nr", Value::UInt(le32(b, 16))),
    ];
    resv_array(c, &mut f, "pad", b, 20, 3, 4);
    Value::structure(f)
}

/// The caller's part of `struct io_uring_params` for IORING_REGISTER_RESIZE_RINGS:
/// the sizes, the flags, the ring offsets' `user_addr` when set.
fn resize_params(c: &mut Ctx, b: &[u8]) -> Value {
    let flags = xflags(c, le32(b, 8), &xlat::URING_SETUP_FLAGS, "IORING_SETUP_???");
    let mut f = vec![
        Field::new("sq_entries", Value::UInt(le32(b, 0))),
        Field::new("cq_entries", Value::UInt(le32(b, 4))),
        Field::new("flags", flags),
    ];
    for (name, off) in [("sq_off", 72), ("cq_off", 112)] {
        let ua = le64(b, off);
        if ua != 0 {
            let s = Value::structure(vec![Field::new("user_addr", xint(ua))]);
            f.push(Field::new(name, s));
        }
    }
    resv_array(c, &mut f, "resv", b, 28, 3, 4);
    Value::structure(f)
}
