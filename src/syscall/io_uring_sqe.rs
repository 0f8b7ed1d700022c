//! One io_uring submission queue entry (`struct io_uring_sqe`) as strace
//! 7.2 prints the argument of IORING_REGISTER_SEND_MSG_RING: every field,
//! with the meaning of the unions chosen by the SQE's opcode (the flags in
//! `ioprio` of accept and send/receive, the per-opcode flags word, the
//! socket command in `off` of a command on a socket, the read/write
//! attributes in the last 16 bytes) and the 64 command bytes that follow
//! a 128-byte SQE.
//!
//! Non-goals: the SQEs of a ring's submission queue (rstrace, like strace,
//! does not read the rings).

use crate::syscall::array::array_at;
use crate::syscall::fd_cache;
use crate::syscall::printers::{le16, le32, le64, read, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat::{self, Xlat};
use std::borrow::Cow;

const OP_NOP: u64 = 0;
const OP_READV: u64 = 1;
const OP_WRITEV: u64 = 2;
const OP_READ_FIXED: u64 = 4;
const OP_WRITE_FIXED: u64 = 5;
const OP_SENDMSG: u64 = 9;
const OP_RECVMSG: u64 = 10;
const OP_ACCEPT: u64 = 13;
const OP_READ: u64 = 22;
const OP_WRITE: u64 = 23;
const OP_SEND: u64 = 26;
const OP_RECV: u64 = 27;
const OP_MSG_RING: u64 = 40;
const OP_URING_CMD: u64 = 46;
const OP_SEND_ZC: u64 = 47;
const OP_SENDMSG_ZC: u64 = 48;
const OP_READ_MULTISHOT: u64 = 49;
const OP_FIXED_FD_INSTALL: u64 = 54;
const OP_RECV_ZC: u64 = 58;
const OP_READV_FIXED: u64 = 60;
const OP_WRITEV_FIXED: u64 = 61;
const OP_NOP128: u64 = 63;
const OP_URING_CMD128: u64 = 64;

/// `IORING_RW_ATTR_FLAG_PI`: `attr_ptr` points to a `struct io_uring_attr_pi`.
const RW_ATTR_PI: u64 = 1;

/// A value printed in decimal with its name (strace's `XVAL_U`): the name,
/// under `-X raw` the number, under `-X verbose` both; an unknown value as
/// the number and `/* unknown */`.
pub(super) fn xval_u(c: &Ctx, v: u64, table: &Xlat, unknown: &'static str) -> Value {
    match (table.lookup(v), c.opts.xlat_style) {
        (_, 1) => Value::UInt(v),
        (Some(n), 0) => Value::sym(n),
        (Some(n), _) => Value::Commented(Box::new(Value::UInt(v)), Cow::Borrowed(n)),
        (None, _) => Value::Commented(Box::new(Value::UInt(v)), Cow::Borrowed(unknown)),
    }
}

/// The SQE at `addr` (its address when it cannot be read).
pub(super) fn sqe_at(c: &mut Ctx, addr: u64) -> Value {
    read(c, addr, 64, |c, b| sqe(c, addr, b))
}

/// `struct io_uring_sqe` from its first 64 bytes `b`, read at `addr`.
fn sqe(c: &mut Ctx, addr: u64, b: &[u8]) -> Value {
    let op = b[0] as u64;
    let fd = le32(b, 4) as u32 as i32 as i64;
    let mut f = vec![
        Field::new("opcode", xval_u(c, op, &xlat::URING_OPS, "IORING_OP_???")),
        Field::new(
            "flags",
            xflags(c, b[1] as u64, &xlat::URING_SQE_FLAGS, "IOSQE_???"),
        ),
        Field::new("ioprio", ioprio(c, op, le16(b, 2))),
        Field::new("fd", c.fd_value(fd)),
    ];
    // A command on a socket carries the socket command in `off`.
    let cmd = matches!(op, OP_URING_CMD | OP_URING_CMD128);
    let off = if cmd && fd_cache::socket_inode(c.pid, fd).is_some() {
        xval_u(
            c,
            le64(b, 8),
            &xlat::URING_SOCKET_OPS,
            "SOCKET_URING_OP_???",
        )
    } else {
        xint(le64(b, 8))
    };
    f.push(Field::new("off", off));
    f.push(Field::new("addr", xint(le64(b, 16))));
    f.push(Field::new("len", Value::UInt(le32(b, 24))));
    f.push(op_flags(c, op, le32(b, 28)));
    f.push(Field::new("user_data", xint(le64(b, 32))));
    f.push(Field::new("buf_index", xint(le16(b, 40))));
    f.push(Field::new("personality", Value::UInt(le16(b, 42))));
    f.push(Field::new("file_index", xint(le32(b, 44))));
    let mask = le64(b, 56);
    if rw_op(op) && mask != 0 {
        let fl = xflags(
            c,
            mask,
            &xlat::URING_RW_ATTR_FLAGS,
            "IORING_RW_ATTR_FLAG_???",
        );
        f.push(Field::new("attr_type_mask", fl));
        let ptr = le64(b, 48);
        let pv = if mask & RW_ATTR_PI != 0 {
            read(c, ptr, 32, |_, a| attr_pi(a))
        } else {
            Value::Ptr(ptr)
        };
        f.push(Field::new("attr_ptr", pv));
    } else {
        f.push(Field::new("optval", xint(le64(b, 48))));
    }
    if matches!(op, OP_NOP128 | OP_URING_CMD128) {
        let cmd = array_at(c, addr.wrapping_add(64), 64, 1, |_, e| {
            Some(xint(e[0] as u64))
        });
        f.push(Field::new("cmd", cmd));
    }
    Value::structure(f)
}

/// `ioprio`: flags for accept and the send/receive family, else a number.
fn ioprio(c: &Ctx, op: u64, v: u64) -> Value {
    match op {
        OP_ACCEPT => xflags(c, v, &xlat::URING_ACCEPT_FLAGS, "IORING_ACCEPT_???"),
        OP_SEND | OP_SENDMSG | OP_SEND_ZC | OP_SENDMSG_ZC | OP_RECV | OP_RECVMSG | OP_RECV_ZC => {
            xflags(c, v, &xlat::URING_RECVSEND_FLAGS, "IORING_RECVSEND_???")
        }
        _ => Value::UInt(v),
    }
}

/// The opcode's flags word at offset 28, named after the union member the
/// opcode uses (`rw_flags` in hex for the others).
fn op_flags(c: &Ctx, op: u64, v: u64) -> Field {
    let (name, table, unknown): (&'static str, &Xlat, &'static str) = match op {
        OP_NOP | OP_NOP128 => ("nop_flags", &xlat::URING_NOP_FLAGS, "IORING_NOP_???"),
        OP_FIXED_FD_INSTALL => (
            "install_fd_flags",
            &xlat::URING_FIXED_FD_FLAGS,
            "IORING_FIXED_FD_???",
        ),
        OP_MSG_RING => (
            "msg_ring_flags",
            &xlat::URING_MSG_RING_FLAGS,
            "IORING_MSG_RING_???",
        ),
        _ => return Field::new("rw_flags", xint(v)),
    };
    Field::new(name, xflags(c, v, table, unknown))
}

/// The opcodes whose last 16 bytes may be `attr_ptr` and `attr_type_mask`.
fn rw_op(op: u64) -> bool {
    matches!(
        op,
        OP_READ
            | OP_WRITE
            | OP_READV
            | OP_WRITEV
            | OP_READ_FIXED
            | OP_WRITE_FIXED
            | OP_READV_FIXED
            | OP_WRITEV_FIXED
            | OP_SEND
            | OP_RECV
            | OP_SENDMSG
            | OP_RECVMSG
            | OP_SEND_ZC
            | OP_RECV_ZC
            | OP_READ_MULTISHOT
    )
}

/// `struct io_uring_attr_pi` (protection information of a read or write).
fn attr_pi(a: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("flags", xint(le16(a, 0))),
        Field::new("app_tag", xint(le16(a, 2))),
        Field::new("len", Value::UInt(le32(a, 4))),
        Field::new("addr", xint(le64(a, 8))),
        Field::new("seed", xint(le64(a, 16))),
        Field::new("rsvd", xint(le64(a, 24))),
    ])
}
