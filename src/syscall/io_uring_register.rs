//! io_uring_register, as strace 7.2's `io_uring.c` prints it: the opcode
//! (with IORING_REGISTER_USE_REGISTERED_RING) and the argument of opcodes
//! 0-23 (buffers, files, eventfds, probes, restrictions, io-wq affinity and
//! limits, ring descriptors, buffer rings); the newer opcodes' arguments are
//! in `io_uring_register_newer.rs`.

use crate::syscall::array::array_at;
use crate::syscall::printers::{le16, le32, le64, nonzero_x, resv_array, xflags, xint};
use crate::syscall::{Ctx, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

const REG_BUFFERS: u64 = 0;
const REG_FILES: u64 = 2;
const REG_EVENTFD: u64 = 4;
const REG_FILES_UPDATE: u64 = 6;
const REG_EVENTFD_ASYNC: u64 = 7;
const REG_PROBE: u64 = 8;
const REG_RESTRICTIONS: u64 = 11;
const REG_FILES2: u64 = 13;
const REG_FILES_UPDATE2: u64 = 14;
const REG_BUFFERS2: u64 = 15;
const REG_BUFFERS_UPDATE: u64 = 16;
const REG_IOWQ_AFF: u64 = 17;
const REG_IOWQ_MAX_WORKERS: u64 = 19;
const REG_RING_FDS: u64 = 20;
const UNREG_RING_FDS: u64 = 21;
const REG_PBUF_RING: u64 = 22;
const UNREG_PBUF_RING: u64 = 23;

/// IORING_REGISTER_USE_REGISTERED_RING: the descriptor is an index into
/// the registered rings; the opcode is the rest.
const USE_REGISTERED_RING: u64 = 1 << 31;

/// The opcode, then `|IORING_REGISTER_USE_REGISTERED_RING` when that bit
/// is set (each part in the -X style, as strace 7.2 prints it).
fn opcode_value(c: &Ctx, op: u64) -> Value {
    let base = c.enum_value(
        op & !USE_REGISTERED_RING,
        &xlat::URING_REGISTER_OPCODES,
        "IORING_REGISTER_???",
    );
    if op & USE_REGISTERED_RING == 0 {
        return base;
    }
    let name = "IORING_REGISTER_USE_REGISTERED_RING";
    let bit = match c.opts.xlat_style {
        1 => Value::Hex(USE_REGISTERED_RING),
        2 => Value::Commented(
            Box::new(Value::Hex(USE_REGISTERED_RING)),
            Cow::Borrowed(name),
        ),
        _ => Value::sym(name),
    };
    Value::Joined(vec![base, bit], "|")
}

/// `io_uring_register(fd, opcode, arg, nr_args)`.
pub(super) fn io_uring_register(c: &mut Ctx) -> Step {
    let op = c.arg(1) as u32 as u64;
    let addr = c.arg_ulong(2);
    let nr = c.arg(3) as u32 as u64;
    let full_op = op;
    // The argument is the masked opcode's.
    let op = op & !USE_REGISTERED_RING;
    if c.entering() {
        c.fd(0);
        let v = opcode_value(c, full_op);
        c.push(v);
        if super::io_uring_register_newer::handles(op) {
            return super::io_uring_register_newer::entry(c, op, addr, nr);
        }
        if super::io_uring_register_zcrx::handles(op) {
            return super::io_uring_register_zcrx::entry(c, op, addr, nr);
        }
        match op {
            REG_PROBE => {
                // strace 6.1: more than 256 ops or unreadable memory print
                // the address; a zeroed buffer prints at exit only; one
                // with data prints now and `=> {…}` at exit.
                let size = 16 + 8 * nr as usize;
                let b = if nr > 256 {
                    None
                } else {
                    c.read_bytes(addr, size)
                };
                let Some(b) = b else {
                    c.push(Value::Ptr(addr));
                    c.uint(3);
                    return Step::Done(RetFmt::Int);
                };
                if b.iter().any(|&x| x != 0) {
                    let v = probe_struct(c, &b, nr, false);
                    c.push(v);
                    c.saved = 1;
                    c.entry_complete = true;
                }
                return Step::Exit;
            }
            REG_IOWQ_MAX_WORKERS => {
                // The limits as given; when all could be read, the kernel's
                // old ones follow at exit (`[…] => […]`).
                let full = addr != 0
                    && nr > 0
                    && nr <= 1024
                    && c.read_bytes(addr, 4 * nr as usize).is_some();
                let v = workers_value(c, addr, nr);
                c.push(v);
                if full {
                    c.entry_complete = true;
                    return Step::Exit;
                }
                c.uint(3);
                return Step::Done(RetFmt::Int);
            }
            _ => {}
        }
        let v = register_arg(c, op, addr, nr);
        c.push(v);
        c.uint(3);
        return Step::Done(RetFmt::Int);
    }
    if super::io_uring_register_newer::handles(op) {
        return super::io_uring_register_newer::exit(c, op, addr, nr);
    }
    if op == REG_PROBE {
        let printed = c.saved == 1;
        let v = if c.failed() {
            (!printed).then_some(Value::Ptr(addr))
        } else {
            let size = 16 + 8 * nr as usize;
            match c.read_bytes(addr, size) {
                Some(b) => Some(probe_struct(c, &b, nr, true)),
                None => Some(Value::Ptr(addr)),
            }
        };
        if printed {
            // The entry already printed the structure: `=> {…}, nr`.
            let mut parts = Vec::new();
            if let Some(v) = v {
                parts.push(Value::sym(" => "));
                parts.push(v);
            }
            parts.push(Value::sym(", "));
            parts.push(Value::UInt(nr));
            c.push(Value::Joined(parts, ""));
        } else {
            c.push(v.unwrap_or(Value::Ptr(addr)));
            c.uint(3);
        }
        return Step::Done(RetFmt::Int);
    }
    // IORING_REGISTER_IOWQ_MAX_WORKERS, its limits printed at entry.
    let after = if c.failed() {
        Value::Ptr(addr)
    } else {
        workers_value(c, addr, nr)
    };
    c.push(Value::Joined(
        vec![Value::sym(" => "), after, Value::sym(", "), Value::UInt(nr)],
        "",
    ));
    Step::Done(RetFmt::Int)
}

/// The argument of the opcodes decoded at entry.
fn register_arg(c: &mut Ctx, op: u64, addr: u64, nr: u64) -> Value {
    match op {
        REG_BUFFERS => iov_array(c, addr, nr),
        REG_FILES | REG_EVENTFD | REG_EVENTFD_ASYNC => fd_array(c, addr, nr),
        REG_FILES_UPDATE => match c.read_bytes(addr, 16) {
            Some(b) => {
                let mut f = vec![Field::new("offset", Value::UInt(le32(&b, 0)))];
                nonzero_x(&mut f, "resv", le32(&b, 4));
                let fds = update_fd_array(c, le64(&b, 8), nr);
                f.push(Field::new("fds", fds));
                Value::structure(f)
            }
            None => Value::Ptr(addr),
        },
        REG_FILES2 | REG_BUFFERS2 | REG_FILES_UPDATE2 | REG_BUFFERS_UPDATE => rsrc(c, op, addr, nr),
        REG_RESTRICTIONS => array_at(c, addr, nr, 16, |c, b| Some(restriction(c, b))),
        REG_IOWQ_AFF => cpu_mask(c, addr, nr),
        REG_RING_FDS | UNREG_RING_FDS => array_at(c, addr, nr, 16, |c, b| {
            let off = le32(b, 0);
            // Registering at offset -1 means "the first free slot".
            let off = if op == REG_RING_FDS && off == u32::MAX as u64 {
                Value::Int(-1)
            } else {
                Value::UInt(off)
            };
            let mut f = vec![Field::new("offset", off)];
            nonzero_x(&mut f, "resv", le32(b, 4));
            if op == REG_RING_FDS {
                let fd = c.fd_value(le32(b, 8) as u32 as i32 as i64);
                f.push(Field::new("data", fd));
            } else {
                nonzero_x(&mut f, "data", le64(b, 8));
            }
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
                resv_array(c, &mut f, "resv", &b, 16, 3, 8);
                Value::structure(f)
            }
            None => Value::Ptr(addr),
        },
        _ => Value::Ptr(addr),
    }
}

/// `%#x`: hex, but `0` for zero.
fn hex0(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// A descriptor of an update array: `IORING_REGISTER_FILES_SKIP` (-2) and
/// other values below -1 as numbers (by name when known).
fn update_fd(c: &mut Ctx, fd: i64) -> Value {
    if fd >= -1 {
        return c.fd_value(fd);
    }
    match (
        xlat::URING_FILES_UPDATE_FDS.lookup(fd as u64),
        c.opts.xlat_style,
    ) {
        (Some(n), 0) => Value::sym(n),
        (Some(n), 2) => Value::Commented(Box::new(Value::Int(fd)), Cow::Borrowed(n)),
        _ => Value::Int(fd),
    }
}

/// An array of `n` update descriptors.
fn update_fd_array(c: &mut Ctx, addr: u64, n: u64) -> Value {
    array_at(c, addr, n, 4, |c, b| {
        Some(update_fd(c, le32(b, 0) as u32 as i32 as i64))
    })
}

/// `n` iovecs whose bases print as addresses.
fn iov_array(c: &mut Ctx, addr: u64, n: u64) -> Value {
    let w = c.arch.word_size();
    array_at(c, addr, n, 2 * w, |_, b| {
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

/// `struct io_uring_rsrc_register` (FILES2, BUFFERS2) and `struct
/// io_uring_rsrc_update2` (FILES_UPDATE2, BUFFERS_UPDATE), `size` bytes.
fn rsrc(c: &mut Ctx, op: u64, addr: u64, size: u64) -> Value {
    if size < 32 || addr == 0 {
        return Value::Ptr(addr);
    }
    let Some(b) = c.read_bytes(addr, 32) else {
        return Value::Ptr(addr);
    };
    let register = op == REG_FILES2 || op == REG_BUFFERS2;
    let (n, data, tags) = if register {
        (le32(&b, 0), le64(&b, 16), le64(&b, 24))
    } else {
        (le32(&b, 24), le64(&b, 8), le64(&b, 16))
    };
    let mut f = Vec::new();
    if register {
        f.push(Field::new("nr", Value::UInt(n)));
        let fl = xflags(
            c,
            le32(&b, 4),
            &xlat::URING_REGISTER_RSRC_FLAGS,
            "IORING_RSRC_REGISTER_???",
        );
        f.push(Field::new("flags", fl));
        nonzero_x(&mut f, "resv2", le64(&b, 8));
    } else {
        f.push(Field::new("offset", Value::UInt(le32(&b, 0))));
        nonzero_x(&mut f, "resv", le32(&b, 4));
    }
    let dv = match op {
        REG_FILES2 => fd_array(c, data, n),
        REG_FILES_UPDATE2 => update_fd_array(c, data, n),
        _ => iov_array(c, data, n),
    };
    f.push(Field::new("data", dv));
    let tv = array_at(c, tags, n, 8, |_, e| Some(xint(le64(e, 0))));
    f.push(Field::new("tags", tv));
    if !register {
        f.push(Field::new("nr", Value::UInt(n)));
        nonzero_x(&mut f, "resv2", le32(&b, 28));
    }
    if size > 32 {
        if let Some(t) = crate::syscall::printers::nonzero_bytes(c, addr, 32, size.min(4096)) {
            let t = if t == Value::Unknown {
                Value::sym("???")
            } else {
                t
            };
            f.push(Field {
                name: Cow::Borrowed(""),
                value: t,
            });
        }
    }
    Value::structure(f)
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
            let v = Value::Commented(Box::new(op), Cow::Owned(format!("op: {}", hex0(arg))));
            f.push(Field::new("opcode", v));
        }
    }
    nonzero_x(&mut f, "resv", b[3] as u64);
    resv_array(c, &mut f, "resv2", b, 4, 3, 4);
    Value::structure(f)
}

/// An opcode number printed in decimal with its name or `/* IORING_OP_??? */`.
fn op_u(c: &Ctx, v: u64) -> Value {
    super::io_uring_sqe::xval_u(c, v, &xlat::URING_OPS, "IORING_OP_???")
}

/// `struct io_uring_probe` from `b` (its header and `nr` ops): all `nr`
/// ops at entry, at exit only the `ops_len` the kernel filled (`...` when
/// there were more than `nr`).
fn probe_struct(c: &mut Ctx, b: &[u8], nr: u64, exiting: bool) -> Value {
    let ops_len = b[1] as u64;
    let mut f = vec![
        Field::new("last_op", op_u(c, b[0] as u64)),
        Field::new("ops_len", Value::UInt(ops_len)),
    ];
    nonzero_x(&mut f, "resv", le16(b, 2));
    resv_array(c, &mut f, "resv2", b, 4, 3, 4);
    let shown = if exiting { ops_len.min(nr) } else { nr };
    // Without -v, arrays stop at the -s limit.
    let limit = c.opts.string_limit as u64;
    let (shown, cut) = if !c.opts.verbose && shown > limit {
        (limit, true)
    } else {
        (shown, exiting && nr < ops_len)
    };
    let ops = (0..shown as usize)
        .map(|i| {
            let e = &b[16 + 8 * i..24 + 8 * i];
            let mut o = vec![Field::new("op", op_u(c, e[0] as u64))];
            nonzero_x(&mut o, "resv", e[1] as u64);
            let fl = xflags(c, le16(e, 2), &xlat::URING_OP_FLAGS, "IO_URING_OP_???");
            o.push(Field::new("flags", fl));
            nonzero_x(&mut o, "resv2", le32(e, 4));
            Value::structure(o)
        })
        .collect();
    f.push(Field::new("ops", Value::Array(ops, cut)));
    Value::structure(f)
}

/// `[[IO_WQ_BOUND]=4, [IO_WQ_UNBOUND]=8]`: `n` counts with their indices.
fn workers_value(c: &mut Ctx, addr: u64, n: u64) -> Value {
    let mut i = 0u64;
    array_at(c, addr, n, 4, |c, b| {
        let idx = match (xlat::URING_IOWQ_TYPES.lookup(i), c.opts.xlat_style) {
            (Some(name), 0) => name.to_string(),
            (Some(name), 2) => format!("{i} /* {name} */"),
            (None, 1) | (Some(_), _) => i.to_string(),
            (None, _) => format!("{i} /* IO_WQ_??? */"),
        };
        i += 1;
        Some(Value::sym_owned(format!("[{idx}]={}", le32(b, 0))))
    })
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
    use crate::engine::memory::FakeMemory;
    use crate::syscall::io_uring_enter::io_uring_enter;
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
    }

    #[test]
    fn rsrc_updates_and_probes() {
        let mut m = FakeMemory::default();
        let fds = m.put(&[3, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
        let mut up = Vec::new();
        up.extend_from_slice(&7u32.to_le_bytes()); // offset
        up.extend_from_slice(&0u32.to_le_bytes()); // resv
        up.extend_from_slice(&fds.to_le_bytes()); // data
        up.extend_from_slice(&0u64.to_le_bytes()); // tags
        up.extend_from_slice(&2u32.to_le_bytes()); // nr
        up.extend_from_slice(&0u32.to_le_bytes()); // resv2
        let up = m.put(&up);
        assert_eq!(
            run(io_uring_register, "io_uring_register", &[0, 14, up, 32], 0, &mut m),
            "io_uring_register(0, IORING_REGISTER_FILES_UPDATE2, {offset=7, data=[3, IORING_REGISTER_FILES_SKIP], tags=NULL, nr=2}, 32) = 0"
        );
        // A probe buffer with data prints at entry, then what the kernel
        // wrote after `=>`.
        let mut p = vec![0u8; 24];
        p[0] = 1;
        p[1] = 1;
        let p = m.put(&p);
        assert_eq!(
            run(io_uring_register, "io_uring_register", &[0, 8, p, 1], 0, &mut m),
            "io_uring_register(0, IORING_REGISTER_PROBE, {last_op=IORING_OP_READV, ops_len=1, ops=[{op=IORING_OP_NOP, flags=0}]} => {last_op=IORING_OP_READV, ops_len=1, ops=[{op=IORING_OP_NOP, flags=0}]}, 1) = 0"
        );
    }
}

/// The opcodes of io_uring_register_newer.rs, run through the call's decoder.
#[cfg(test)]
mod newer_tests {
    use super::io_uring_register;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    /// The kernel answers IORING_REGISTER_PBUF_STATUS only for a
    /// registered buffer ring (the oracle test's calls fail): a
    /// successful call prints what it filled in, decoded at exit.
    #[test]
    fn pbuf_status_prints_the_kernels_answer() {
        let mut m = FakeMemory::default();
        let mut b = vec![0u8; 40];
        b[0] = 7;
        b[4] = 0x20;
        b[36] = 1;
        let a = m.put(&b);
        assert_eq!(
            run(io_uring_register, "io_uring_register", &[3, 26, a, 1], 0, &mut m),
            "io_uring_register(3, IORING_REGISTER_PBUF_STATUS, {buf_group=0x7, head=0x20, resv=[0, 0, 0, 0, 0, 0, 0, 0x1]}, 1) = 0"
        );
        assert_eq!(
            run(io_uring_register, "io_uring_register", &[3, 26, a, 1], -2, &mut m),
            format!("io_uring_register(3, IORING_REGISTER_PBUF_STATUS, {a:#x}, 1) = -1 ENOENT (No such file or directory)")
        );
    }
}
