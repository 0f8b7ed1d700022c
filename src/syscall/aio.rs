//! Linux native AIO: io_setup, io_destroy, io_submit (with each `struct
//! iocb`), io_cancel, io_getevents and io_pgetevents (`struct io_event`
//! arrays, the timeout and the `struct __aio_sigset`), as strace prints them.

use crate::syscall::array::{array_at, iov_upto};
use crate::syscall::printers::{le16, le32, le64, num_at, timespec_value, xflags, xint};
use crate::syscall::signal::sigset_at;
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("io_setup", io_setup),
    ("io_destroy", io_destroy),
    ("io_submit", io_submit),
    ("io_cancel", io_cancel),
    ("io_getevents", io_getevents),
    ("io_pgetevents", io_pgetevents),
];

/// `sizeof(struct iocb)`.
const IOCB_SIZE: usize = 64;
/// `sizeof(struct io_event)`.
const EVENT_SIZE: usize = 32;
const IOCB_FLAG_RESFD: u64 = 1;
const IOCB_FLAG_IOPRIO: u64 = 2;

fn io_setup(c: &mut Ctx) -> Step {
    if c.entering() {
        c.uint(0);
        return Step::Exit;
    }
    let addr = c.arg_ulong(1);
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        match num_at(c, addr, c.arch.word_size(), false) {
            Value::Array(items, more) => Value::Array(
                items
                    .into_iter()
                    .map(|v| match v {
                        Value::UInt(p) => xint(p),
                        o => o,
                    })
                    .collect(),
                more,
            ),
            o => o,
        }
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

fn io_destroy(c: &mut Ctx) -> Step {
    c.ptr(0);
    Step::Done(RetFmt::Int)
}

/// `IOPRIO_PRIO_VALUE(class, data)`.
fn ioprio(c: &Ctx, v: u64) -> Value {
    let class = c.enum_value((v >> 13) & 0x7, &xlat::IOPRIO_CLASS, "IOPRIO_CLASS_???");
    Value::Call(
        Cow::Borrowed("IOPRIO_PRIO_VALUE"),
        vec![class, Value::UInt(v & 0x1fff)],
    )
}

/// The fields of a `struct iocb` up to `aio_fildes`; also returns the opcode.
fn iocb_header(c: &mut Ctx, b: &[u8]) -> (Vec<Field>, u64) {
    let mut f = vec![Field::new("aio_data", xint(le64(b, 0)))];
    let key = le32(b, 8);
    if key != 0 {
        f.push(Field::new("aio_key", Value::UInt(key)));
    }
    let rw = le32(b, 12);
    if rw != 0 {
        f.push(Field::new(
            "aio_rw_flags",
            xflags(c, rw, &xlat::RWF_FLAGS, "RWF_???"),
        ));
    }
    let op = le16(b, 16);
    let opv = match xlat::AIO_CMDS.lookup(op) {
        Some(_) => c.enum_value(op, &xlat::AIO_CMDS, ""),
        None => Value::Commented(Box::new(Value::UInt(op)), Cow::Borrowed("IOCB_CMD_???")),
    };
    f.push(Field::new("aio_lio_opcode", opv));
    let flags = le32(b, 56);
    let prio = le16(b, 18);
    if flags & IOCB_FLAG_IOPRIO != 0 {
        f.push(Field::new("aio_reqprio", ioprio(c, prio)));
    } else if prio != 0 {
        f.push(Field::new(
            "aio_reqprio",
            Value::Int(prio as u16 as i16 as i64),
        ));
    }
    let fd = c.fd_value(le32(b, 20) as u32 as i32 as i64);
    f.push(Field::new("aio_fildes", fd));
    (f, op)
}

/// `aio_flags` and `aio_resfd`.
fn common_flags(c: &mut Ctx, b: &[u8], f: &mut Vec<Field>) {
    let flags = le32(b, 56);
    if flags != 0 {
        f.push(Field::new(
            "aio_flags",
            xflags(c, flags, &xlat::AIO_IOCB_FLAGS, "IOCB_FLAG_???"),
        ));
    }
    let resfd = le32(b, 60);
    if flags & IOCB_FLAG_RESFD != 0 {
        let v = c.fd_value(resfd as u32 as i32 as i64);
        f.push(Field::new("aio_resfd", v));
    } else if resfd != 0 {
        f.push(Field::new("aio_resfd", xint(resfd)));
    }
}

/// A whole `struct iocb`.
fn iocb(c: &mut Ctx, b: &[u8]) -> Value {
    let (mut f, op) = iocb_header(c, b);
    let (buf, nbytes, off) = (le64(b, 24), le64(b, 32), le64(b, 40) as i64);
    let valid = (nbytes as i64) >= 0;
    match op {
        0 | 1 => {
            let v = if op == 1 && valid {
                c.buf_value(buf, nbytes)
            } else {
                xint(buf)
            };
            f.push(Field::new("aio_buf", v));
            f.push(Field::new("aio_nbytes", Value::UInt(nbytes)));
            f.push(Field::new("aio_offset", Value::Int(off)));
            common_flags(c, b, &mut f);
        }
        7 | 8 => {
            if valid {
                let v = if op == 8 {
                    iov_upto(c, buf, nbytes, None, |c, base, len| c.buf_value(base, len))
                } else {
                    iov_upto(c, buf, nbytes, None, |_, base, _| Value::Ptr(base))
                };
                f.push(Field::new("aio_buf", v));
            } else {
                f.push(Field::new("aio_buf", xint(buf)));
                f.push(Field::new("aio_nbytes", Value::UInt(nbytes)));
            }
            f.push(Field::new("aio_offset", Value::Int(off)));
            common_flags(c, b, &mut f);
        }
        5 => {
            f.push(Field::new(
                "aio_buf",
                xflags(c, buf, &xlat::POLL_EVENTS, "POLL???"),
            ));
            common_flags(c, b, &mut f);
        }
        _ => {}
    }
    Value::structure(f)
}

/// `io_submit(ctx_id, nr, iocbpp)`.
fn io_submit(c: &mut Ctx) -> Step {
    c.ptr(0);
    let nr = c.arg_long(1);
    c.push(Value::Int(nr));
    let addr = c.arg_ulong(2);
    let w = c.arch.word_size();
    let v = if nr < 0 {
        Value::Ptr(addr)
    } else {
        array_at(c, addr, nr as u64, w, |c, b| {
            let p = if w == 4 { le32(b, 0) } else { le64(b, 0) };
            Some(if p == 0 {
                Value::Ptr(0)
            } else {
                match c.read_bytes(p, IOCB_SIZE) {
                    Some(cb) => iocb(c, &cb),
                    None => Value::Unreadable(p),
                }
            })
        })
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `{data=…, obj=…, res=…, res2=…}`.
fn event(b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("data", xint(le64(b, 0))),
        Field::new("obj", xint(le64(b, 8))),
        Field::new("res", Value::Int(le64(b, 16) as i64)),
        Field::new("res2", Value::Int(le64(b, 24) as i64)),
    ])
}

/// `io_cancel(ctx_id, iocb, result)`.
fn io_cancel(c: &mut Ctx) -> Step {
    if c.entering() {
        c.ptr(0);
        let addr = c.arg_ulong(1);
        let v = match c.read_bytes(addr, IOCB_SIZE) {
            _ if addr == 0 => Value::Ptr(0),
            Some(b) => Value::structure(iocb_header(c, &b).0),
            None => Value::Unreadable(addr),
        };
        c.push(v);
        return Step::Exit;
    }
    let addr = c.arg_ulong(2);
    let v = match c.read_bytes(addr, EVENT_SIZE) {
        _ if addr == 0 || c.failed() => Value::Ptr(addr),
        Some(b) => event(&b),
        None => Value::Unreadable(addr),
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// Shared by io_getevents and io_pgetevents.
fn getevents(c: &mut Ctx, sig: bool) -> Step {
    if c.entering() {
        c.ptr(0);
        c.long(1);
        c.long(2);
        return Step::Exit;
    }
    let n = c.retval() as u64;
    let v = array_at(c, c.arg_ulong(3), n, EVENT_SIZE, |_, b| Some(event(b)));
    c.push(v);
    // The kernel read the timeout and the signal mask at entry: they print
    // whether the call failed or not.
    let ret = c.ret.take();
    c.ret = Some(0);
    let addr = c.arg_ulong(4);
    let t = match c.read_bytes(addr, 16) {
        _ if addr == 0 => Value::Ptr(0),
        Some(b) => timespec_value(le64(&b, 0) as i64, le64(&b, 8)),
        None => Value::Unreadable(addr),
    };
    c.push(t);
    if sig {
        let addr = c.arg_ulong(5);
        let v = match c.read_bytes(addr, 16) {
            _ if addr == 0 => Value::Ptr(0),
            Some(b) => {
                let (mask, size) = (le64(&b, 0), le64(&b, 8));
                let m = sigset_at(c, mask, size, 8);
                Value::structure(vec![
                    Field::new("sigmask", m),
                    Field::new("sigsetsize", Value::UInt(size)),
                ])
            }
            None => Value::Unreadable(addr),
        };
        c.push(v);
    }
    c.ret = ret;
    Step::Done(RetFmt::Int)
}

fn io_getevents(c: &mut Ctx) -> Step {
    getevents(c, false)
}

fn io_pgetevents(c: &mut Ctx) -> Step {
    getevents(c, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn aio_calls() {
        let mut m = FakeMemory::default();
        let ctx = m.put(&0x7000u64.to_le_bytes());
        assert_eq!(
            run(io_setup, "io_setup", &[2, ctx], 0, &mut m),
            "io_setup(2, [0x7000]) = 0"
        );
        let mut cb = vec![0u8; 64];
        cb[0..8].copy_from_slice(&0x11u64.to_le_bytes());
        cb[18..20].copy_from_slice(&11u16.to_le_bytes());
        cb[24..32].copy_from_slice(&0x5000u64.to_le_bytes());
        cb[32..40].copy_from_slice(&4096u64.to_le_bytes());
        let cb = m.put(&cb);
        let arr = m.put(&cb.to_le_bytes());
        assert_eq!(
            run(io_submit, "io_submit", &[0x7000, 1, arr], 1, &mut m),
            "io_submit(0x7000, 1, [{aio_data=0x11, aio_lio_opcode=IOCB_CMD_PREAD, aio_reqprio=11, aio_fildes=0, aio_buf=0x5000, aio_nbytes=4096, aio_offset=0}]) = 1"
        );
        let mut ts = 0u64.to_le_bytes().to_vec();
        ts.extend_from_slice(&5u64.to_le_bytes());
        let ts = m.put(&ts);
        assert_eq!(
            run(io_getevents, "io_getevents", &[0x7000, 0, 0, 0, ts], -22, &mut m),
            "io_getevents(0x7000, 0, 0, NULL, {tv_sec=0, tv_nsec=5}) = -1 EINVAL (Invalid argument)"
        );
    }
}
