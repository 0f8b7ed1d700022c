//! io_uring_setup, io_uring_enter and io_uring_register, as strace 6.1's
//! `io_uring.c` prints them: `struct io_uring_params` (the caller's part at
//! entry, the kernel's answer at exit), enter flags with the signal mask, and
//! each register opcode's argument (buffers, files, eventfds, probes,
//! restrictions, io-wq affinity and limits, ring descriptors, buffer rings).

use super::array::array_at;
use super::printers::{le16, le32, le64, xflags, xint};
use super::signal::sigset_at;
use super::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(super) const DECODERS: &[(&str, Decoder)] = &[
    ("io_uring_setup", io_uring_setup),
    ("io_uring_enter", io_uring_enter),
    ("io_uring_register", io_uring_register),
];

const SETUP_ATTACH_WQ: u64 = 0x20;
const ENTER_EXT_ARG: u64 = 0x8;
const PARAMS_SIZE: usize = 120;

/// `io_uring_setup(entries, params)`: the new ring's descriptor.
fn io_uring_setup(c: &mut Ctx) -> Step {
    if c.entering() {
        c.uint(0);
        return Step::Exit;
    }
    let addr = c.arg_ulong(1);
    let v = match c.read_bytes(addr, PARAMS_SIZE) {
        Some(b) => params_value(c, &b),
        None => Value::Ptr(addr),
    };
    c.push(v);
    Step::Done(RetFmt::Fd)
}

/// A u32 field printed with `%#x` only when it is not zero.
fn nonzero_x(f: &mut Vec<Field>, name: &'static str, v: u64) {
    if v != 0 {
        f.push(Field::new(name, xint(v)));
    }
}

/// `resv=[...]` when any of `n` words of `size` bytes at `off` is set.
fn resv_array(f: &mut Vec<Field>, name: &'static str, b: &[u8], off: usize, n: usize, size: usize) {
    let vals: Vec<u64> = (0..n)
        .map(|i| {
            let o = off + i * size;
            if size == 8 {
                le64(b, o)
            } else {
                le32(b, o)
            }
        })
        .collect();
    if vals.iter().any(|&v| v != 0) {
        f.push(Field::new(
            name,
            Value::Array(vals.into_iter().map(xint).collect(), false),
        ));
    }
}

fn params_value(c: &mut Ctx, b: &[u8]) -> Value {
    let mut f = Vec::new();
    let flags = le32(b, 8);
    f.push(Field::new(
        "flags",
        xflags(c, flags, &xlat::URING_SETUP_FLAGS, "IORING_SETUP_???"),
    ));
    f.push(Field::new("sq_thread_cpu", xint(le32(b, 12))));
    f.push(Field::new("sq_thread_idle", Value::UInt(le32(b, 16))));
    if flags & SETUP_ATTACH_WQ != 0 {
        let fd = c.fd_value(le32(b, 24) as u32 as i32 as i64);
        f.push(Field::new("wq_fd", fd));
    }
    resv_array(&mut f, "resv", b, 28, 3, 4);
    if c.failed() {
        return Value::structure(f);
    }
    f.push(Field::new("sq_entries", Value::UInt(le32(b, 0))));
    f.push(Field::new("cq_entries", Value::UInt(le32(b, 4))));
    f.push(Field::new(
        "features",
        xflags(c, le32(b, 20), &xlat::URING_FEATURES, "IORING_FEAT_???"),
    ));
    let sq = [
        "head",
        "tail",
        "ring_mask",
        "ring_entries",
        "flags",
        "dropped",
        "array",
    ];
    let cq = [
        "head",
        "tail",
        "ring_mask",
        "ring_entries",
        "overflow",
        "cqes",
        "flags",
    ];
    for (name, off, names) in [("sq_off", 40, sq), ("cq_off", 80, cq)] {
        let mut o: Vec<Field> = names
            .iter()
            .enumerate()
            .map(|(i, n)| Field::new(n, Value::UInt(le32(b, off + 4 * i))))
            .collect();
        nonzero_x(&mut o, "resv1", le32(b, off + 28));
        nonzero_x(&mut o, "resv2", le64(b, off + 32));
        f.push(Field::new(name, Value::structure(o)));
    }
    Value::structure(f)
}

/// `io_uring_enter(fd, to_submit, min_complete, flags, sig, sigsz)`.
fn io_uring_enter(c: &mut Ctx) -> Step {
    c.fd(0);
    c.uint(1);
    c.uint(2);
    let flags = c.arg(3) as u32 as u64;
    let v = xflags(c, flags, &xlat::URING_ENTER_FLAGS, "IORING_ENTER_???");
    c.push(v);
    let addr = c.arg_ulong(4);
    let v = if flags & ENTER_EXT_ARG != 0 {
        Value::Ptr(addr)
    } else {
        let min = c.arch.word_size() as u64;
        sigset_at(c, addr, c.arg_ulong(5), min)
    };
    c.push(v);
    c.ulong(5);
    Step::Done(RetFmt::Int)
}

const REG_BUFFERS: u64 = 0;
const REG_FILES: u64 = 2;
const REG_EVENTFD: u64 = 4;
const REG_FILES_UPDATE: u64 = 6;
const REG_EVENTFD_ASYNC: u64 = 7;
const REG_PROBE: u64 = 8;
const REG_RESTRICTIONS: u64 = 11;
const REG_IOWQ_AFF: u64 = 17;
const REG_IOWQ_MAX_WORKERS: u64 = 19;
const REG_RING_FDS: u64 = 20;
const UNREG_RING_FDS: u64 = 21;
const REG_PBUF_RING: u64 = 22;
const UNREG_PBUF_RING: u64 = 23;

/// `io_uring_register(fd, opcode, arg, nr_args)`.
fn io_uring_register(c: &mut Ctx) -> Step {
    let op = c.arg(1) as u32 as u64;
    let addr = c.arg_ulong(2);
    let nr = c.arg(3) as u32 as u64;
    if c.entering() {
        c.fd(0);
        c.xenum(1, &xlat::URING_REGISTER_OPCODES, "IORING_REGISTER_???");
        match op {
            REG_PROBE => return Step::Exit,
            REG_IOWQ_MAX_WORKERS => {
                // The limits as given; the kernel writes the old ones back.
                c.saved = match c.read_bytes(addr, 8).filter(|_| nr == 2) {
                    Some(b) => le64(&b, 0),
                    None => u64::MAX,
                };
                return Step::Exit;
            }
            _ => {}
        }
        let v = register_arg(c, op, addr, nr);
        c.push(v);
        c.uint(3);
        return Step::Done(RetFmt::Int);
    }
    let v = match op {
        REG_PROBE => probe_value(c, addr, nr),
        _ => max_workers(c, addr, nr),
    };
    c.push(v);
    c.uint(3);
    Step::Done(RetFmt::Int)
}

/// The argument of the opcodes decoded at entry.
fn register_arg(c: &mut Ctx, op: u64, addr: u64, nr: u64) -> Value {
    match op {
        REG_BUFFERS => {
            let w = c.arch.word_size();
            array_at(c, addr, nr, 2 * w, |_, b| {
                let (base, len) = if w == 4 {
                    (le32(b, 0), le32(b, 4))
                } else {
                    (le64(b, 0), le64(b, 8))
                };
                Some(Value::structure(vec![
                    Field::new("iov_base", Value::Ptr(base)),
                    Field::new("iov_len", Value::UInt(len)),
                ]))
            })
        }
        REG_FILES | REG_EVENTFD | REG_EVENTFD_ASYNC => fd_array(c, addr, nr),
        REG_FILES_UPDATE => match c.read_bytes(addr, 16) {
            Some(b) => {
                let mut f = vec![Field::new("offset", Value::UInt(le32(&b, 0)))];
                nonzero_x(&mut f, "resv", le32(&b, 4));
                let fds = fd_array(c, le64(&b, 8), nr);
                f.push(Field::new("fds", fds));
                Value::structure(f)
            }
            None => Value::Ptr(addr),
        },
        REG_RESTRICTIONS => array_at(c, addr, nr, 16, |c, b| Some(restriction(c, b))),
        REG_IOWQ_AFF => cpu_mask(c, addr, nr),
        REG_RING_FDS | UNREG_RING_FDS => array_at(c, addr, nr, 16, |c, b| {
            let mut f = vec![Field::new("offset", Value::UInt(le32(b, 0)))];
            nonzero_x(&mut f, "resv", le32(b, 4));
            let data = if op == REG_RING_FDS {
                c.fd_value(le32(b, 8) as u32 as i32 as i64)
            } else {
                xint(le64(b, 8))
            };
            f.push(Field::new("data", data));
            Some(Value::structure(f))
        }),
        REG_PBUF_RING | UNREG_PBUF_RING => match c.read_bytes(addr, 40) {
            Some(b) => {
                let mut f = vec![
                    Field::new("ring_addr", Value::Ptr(le64(&b, 0))),
                    Field::new("ring_entries", Value::UInt(le32(&b, 8))),
                    Field::new("bgid", Value::UInt(le16(&b, 12))),
                ];
                nonzero_x(&mut f, "pad", le16(&b, 14));
                resv_array(&mut f, "resv", &b, 16, 3, 8);
                Value::structure(f)
            }
            None => Value::Ptr(addr),
        },
        _ => Value::Ptr(addr),
    }
}

/// An array of `n` descriptors (`int`).
fn fd_array(c: &mut Ctx, addr: u64, n: u64) -> Value {
    array_at(c, addr, n, 4, |c, b| {
        Some(c.fd_value(le32(b, 0) as u32 as i32 as i64))
    })
}

/// One `struct io_uring_restriction`.
fn restriction(c: &mut Ctx, b: &[u8]) -> Value {
    let opcode = le16(b, 0);
    let arg = b[2] as u64;
    let mut f = Vec::new();
    let name = "IORING_RESTRICTION_???";
    let op = c.enum_value(opcode, &xlat::URING_RESTRICTION_OPCODES, name);
    match opcode {
        0 => {
            f.push(Field::new("opcode", op));
            let v = c.enum_value(arg, &xlat::URING_REGISTER_OPCODES, "IORING_REGISTER_???");
            f.push(Field::new("register_op", v));
        }
        1 => {
            f.push(Field::new("opcode", op));
            let v = c.enum_value(arg, &xlat::URING_OPS, "IORING_OP_???");
            f.push(Field::new("sqe_op", v));
        }
        2 | 3 => {
            f.push(Field::new("opcode", op));
            let v = xflags(c, arg, &xlat::URING_SQE_FLAGS, "IOSQE_???");
            f.push(Field::new("sqe_flags", v));
        }
        _ => {
            let v = Value::Commented(Box::new(op), Cow::Owned(format!("op: {arg:#x}")));
            f.push(Field::new("opcode", v));
        }
    }
    nonzero_x(&mut f, "resv", b[3] as u64);
    resv_array(&mut f, "resv2", b, 4, 3, 4);
    Value::structure(f)
}

/// An opcode number printed in decimal with its name or `/* IORING_OP_??? */`.
fn op_u(c: &Ctx, v: u64) -> Value {
    match xlat::URING_OPS.lookup(v) {
        Some(_) => c.enum_value(v, &xlat::URING_OPS, ""),
        None => Value::Commented(Box::new(Value::UInt(v)), Cow::Borrowed("IORING_OP_???")),
    }
}

/// IORING_REGISTER_PROBE at exit: `struct io_uring_probe` and `nr` ops.
fn probe_value(c: &mut Ctx, addr: u64, nr: u64) -> Value {
    let Some(b) = c.read_bytes(addr, 16) else {
        return Value::Ptr(addr);
    };
    let mut f = vec![
        Field::new("last_op", op_u(c, b[0] as u64)),
        Field::new("ops_len", Value::UInt(b[1] as u64)),
    ];
    nonzero_x(&mut f, "resv", le16(&b, 2));
    resv_array(&mut f, "resv2", &b, 4, 3, 4);
    let ops = array_at(c, addr + 16, nr, 8, |c, e| {
        let mut o = vec![Field::new("op", op_u(c, e[0] as u64))];
        nonzero_x(&mut o, "resv", e[1] as u64);
        let fl = xflags(c, le16(e, 2), &xlat::URING_OP_FLAGS, "IO_URING_OP_???");
        o.push(Field::new("flags", fl));
        nonzero_x(&mut o, "resv2", le32(e, 4));
        Some(Value::structure(o))
    });
    f.push(Field::new("ops", ops));
    Value::structure(f)
}

/// `[[IO_WQ_BOUND]=4, [IO_WQ_UNBOUND]=8]` of `n` counts.
fn workers_array(c: &Ctx, vals: &[u64]) -> Value {
    let items = vals
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let idx = match xlat::URING_IOWQ_TYPES.lookup(i as u64) {
                Some(n) if c.opts.xlat_style != 1 => n.to_string(),
                _ => i.to_string(),
            };
            Value::sym_owned(format!("[{idx}]={v}"))
        })
        .collect();
    Value::Array(items, false)
}

/// IORING_REGISTER_IOWQ_MAX_WORKERS: the limits given `=>` the old ones.
fn max_workers(c: &mut Ctx, addr: u64, nr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let before = if c.saved == u64::MAX {
        match c.read_bytes(addr, (nr.min(64) * 4) as usize) {
            Some(b) => (0..nr.min(64) as usize).map(|i| le32(&b, 4 * i)).collect(),
            None => return Value::Ptr(addr),
        }
    } else {
        vec![c.saved & 0xffff_ffff, c.saved >> 32]
    };
    let entry = workers_array(c, &before);
    let after = if c.failed() {
        Value::Ptr(addr)
    } else {
        match c.read_bytes(addr, before.len() * 4) {
            Some(b) => {
                let v: Vec<u64> = (0..before.len()).map(|i| le32(&b, 4 * i)).collect();
                workers_array(c, &v)
            }
            None => Value::Ptr(addr),
        }
    };
    Value::Changed(Box::new(entry), Box::new(after))
}

/// A CPU mask of `len` bytes: the set CPUs as `[0 8]`.
fn cpu_mask(c: &mut Ctx, addr: u64, len: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let Some(b) = c.read_bytes(addr, len.min(4096) as usize) else {
        return Value::Ptr(addr);
    };
    let cpus: Vec<String> = b
        .iter()
        .enumerate()
        .flat_map(|(i, byte)| {
            (0..8)
                .filter(move |bit| byte & (1 << bit) != 0)
                .map(move |bit| (i * 8 + bit).to_string())
        })
        .collect();
    Value::sym_owned(format!("[{}]", cpus.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syscall::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn register_and_enter() {
        let mut m = FakeMemory::default();
        let fds = m.put(&[0u8, 0, 0, 0, 255, 255, 255, 255]);
        assert_eq!(
            run(
                io_uring_register,
                "io_uring_register",
                &[3, 2, fds, 2],
                0,
                &mut m
            ),
            "io_uring_register(3, IORING_REGISTER_FILES, [0, -1], 2) = 0"
        );
        let mut r = vec![0u8; 32];
        r[0] = 0;
        r[2] = 8;
        r[16] = 5;
        r[18] = 1;
        let r = m.put(&r);
        assert_eq!(
            run(io_uring_register, "io_uring_register", &[3, 11, r, 2], -22, &mut m),
            "io_uring_register(3, IORING_REGISTER_RESTRICTIONS, [{opcode=IORING_RESTRICTION_REGISTER_OP, register_op=IORING_REGISTER_PROBE}, {opcode=0x5 /* IORING_RESTRICTION_??? */ /* op: 0x1 */}], 2) = -1 EINVAL (Invalid argument)"
        );
        let w = m.put(&[4u8, 0, 0, 0, 8, 0, 0, 0]);
        let out = run(
            io_uring_register,
            "io_uring_register",
            &[3, 19, w, 2],
            0,
            &mut m,
        );
        assert_eq!(out, "io_uring_register(3, IORING_REGISTER_IOWQ_MAX_WORKERS, [[IO_WQ_BOUND]=4, [IO_WQ_UNBOUND]=8] => [[IO_WQ_BOUND]=4, [IO_WQ_UNBOUND]=8], 2) = 0");
        assert_eq!(
            run(
                io_uring_enter,
                "io_uring_enter",
                &[3, 1, 0, 0x108, 8, 24],
                0,
                &mut m
            ),
            "io_uring_enter(3, 1, 0, IORING_ENTER_EXT_ARG|0x100, 0x8, 24) = 0"
        );
        assert_eq!(
            run(io_uring_setup, "io_uring_setup", &[1, 0], -14, &mut m),
            "io_uring_setup(1, NULL) = -1 EFAULT (Bad address)"
        );
    }
}
