//! io_uring_enter(2) as strace 7.2 prints it: the enter flags, then the
//! argument the flags say it is: a signal set, `struct
//! io_uring_getevents_arg` under IORING_ENTER_EXT_ARG, or an offset into
//! the registered wait region under IORING_ENTER_EXT_ARG_REG alone.

use crate::syscall::printers::{le32, le64, struct_at, timespec_value, xflags};
use crate::syscall::signal::sigset_at;
use crate::syscall::{Ctx, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

/// `sizeof(struct io_uring_getevents_arg)`.
const GETEVENTS_ARG_SIZE: usize = 24;

/// `io_uring_enter(fd, to_submit, min_complete, flags, arg, argsz)`.
pub(in crate::syscall) fn io_uring_enter(c: &mut Ctx) -> Step {
    c.fd(0);
    c.uint(1);
    c.uint(2);
    let flags = c.arg(3) as u32 as u64;
    let v = xflags(c, flags, &xlat::URING_ENTER_FLAGS, "IORING_ENTER_???");
    c.push(v);
    let addr = c.arg_ulong(4);
    let flag = |n| xlat::URING_ENTER_FLAGS.value(n).unwrap_or(0);
    let (ext, ext_reg) = (
        flag("IORING_ENTER_EXT_ARG"),
        flag("IORING_ENTER_EXT_ARG_REG"),
    );
    let v = if flags & ext_reg != 0 {
        // An offset into the registered wait region alone; with EXT_ARG
        // too strace 7.2 prints the address.
        if flags & ext == 0 {
            Value::UInt(addr)
        } else {
            Value::Ptr(addr)
        }
    } else if flags & ext != 0 {
        // The struct whatever argsz says (strace 7.2 does not check it).
        getevents_arg(c, addr)
    } else {
        let min = c.arch.word_size() as u64;
        sigset_at(c, addr, c.arg_ulong(5), min)
    };
    c.push(v);
    c.ulong(5);
    Step::Done(RetFmt::Int)
}

/// `{sigmask=…, sigmask_sz=…, min_wait_usec=…, ts=…}`: the signal set of
/// `sigmask_sz` bytes and the `struct __kernel_timespec` (64-bit fields in
/// every personality) dereferenced.
fn getevents_arg(c: &mut Ctx, addr: u64) -> Value {
    let Some(b) = c.read_bytes(addr, GETEVENTS_ARG_SIZE).filter(|_| addr != 0) else {
        return if addr == 0 {
            Value::Ptr(0)
        } else {
            Value::Unreadable(addr)
        };
    };
    let (mask, mask_sz, ts) = (le64(&b, 0), le32(&b, 8), le64(&b, 16));
    let min = c.arch.word_size() as u64;
    let mask_v = sigset_at(c, mask, mask_sz, min);
    let ts_v = struct_at(c, ts, Some(16), |_, t| {
        timespec_value(le64(t, 0) as i64, le64(t, 8))
    });
    Value::structure(vec![
        Field::new("sigmask", mask_v),
        Field::new("sigmask_sz", Value::UInt(mask_sz)),
        Field::new("min_wait_usec", Value::UInt(le32(&b, 12))),
        Field::new("ts", ts_v),
    ])
}
