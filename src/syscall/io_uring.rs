//! io_uring_setup, as strace 7.2's `io_uring.c` prints it: `struct
//! io_uring_params` (the caller's part at entry, the kernel's answer at
//! exit, with the ring offsets' `user_addr`). io_uring_enter is in `io_uring_enter.rs`,
//! io_uring_register in `io_uring_register.rs`.

use crate::syscall::printers::{le32, le64, nonzero_x, resv_array, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("io_uring_setup", io_uring_setup),
    ("io_uring_enter", super::io_uring_enter::io_uring_enter),
    (
        "io_uring_register",
        super::io_uring_register::io_uring_register,
    ),
];

const SETUP_ATTACH_WQ: u64 = 0x20;
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
    resv_array(c, &mut f, "resv", b, 28, 3, 4);
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
        o.push(Field::new("user_addr", xint(le64(b, off + 32))));
        f.push(Field::new(name, Value::structure(o)));
    }
    Value::structure(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn setup_without_params() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(io_uring_setup, "io_uring_setup", &[1, 0], -14, &mut m),
            "io_uring_setup(1, NULL) = -1 EFAULT (Bad address)"
        );
    }
}
