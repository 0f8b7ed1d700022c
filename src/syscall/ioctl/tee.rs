//! TEE (trusted execution environment) ioctls (type 0xa4, linux/tee.h) as
//! strace 6.1 prints them: the version, shared memory allocation and
//! registration (the request, then ` => ` what the kernel wrote after a
//! successful call), cancel and close, and the buffer-carried requests
//! (`TEE_IOC_OPEN_SESSION`, `TEE_IOC_INVOKE`, `TEE_IOC_SUPPL_RECV`,
//! `TEE_IOC_SUPPL_SEND`): `{buf_len=N, buf_ptr=...}` with the argument
//! structure and its parameter array decoded when the buffer is consistent.

use crate::syscall::array::array_at;
use crate::syscall::ioctl::misc::{fetch, in_out_bytes};
use crate::syscall::ioctl::{exit_state, Io};
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

const VERSION: u32 = 0x800c_a400;
const SHM_ALLOC: u32 = 0xc010_a401;
const OPEN_SESSION: u32 = 0x8010_a402;
const INVOKE: u32 = 0x8010_a403;
const CANCEL: u32 = 0x8008_a404;
const CLOSE_SESSION: u32 = 0x8004_a405;
const SUPPL_RECV: u32 = 0x8010_a406;
const SUPPL_SEND: u32 = 0x8010_a407;
/// Not in the kernel's UAPI (strace knows it by number only).
const SHM_REGISTER_FD: u32 = 0xc020_a408;
const SHM_REGISTER: u32 = 0xc018_a409;

/// `TEE_MAX_ARG_SIZE`.
const MAX_ARG: u64 = 1024;
/// `sizeof(struct tee_ioctl_param)`.
const PARAM: u64 = 32;
const ATTR_META: u64 = 0x100;

/// `TEE_IOCTL_SHM_*` flags.
fn shm_flags(c: &Ctx, v: u64) -> Value {
    xflags(c, v, &xlat::TEE_IOCTL_SHM_FLAGS, "TEE_IOCTL_SHM_???")
}

/// A signed 32-bit field.
fn d32(v: u64) -> Value {
    Value::Int(v as u32 as i32 as i64)
}

/// One `struct tee_ioctl_param`.
fn param(c: &Ctx, b: &[u8]) -> Value {
    let attr = le64(b, 0);
    let ty = c.enum_value(
        attr & !ATTR_META,
        &xlat::TEE_IOCTL_PARAM_ATTR_TYPES,
        "TEE_IOCTL_PARAM_ATTR_",
    );
    let shown = if attr & ATTR_META != 0 {
        Value::Joined(vec![ty, Value::sym("TEE_IOCTL_PARAM_ATTR_META")], "|")
    } else {
        ty
    };
    let mut f = vec![Field::new("attr", shown)];
    match attr {
        0 => {}
        5..=7 => {
            f.push(Field::new("shm_offs", xint(le64(b, 8))));
            f.push(Field::new("size", xint(le64(b, 16))));
            f.push(Field::new("shm_id", Value::UInt(le64(b, 24))));
        }
        _ => {
            f.push(Field::new("a", xint(le64(b, 8))));
            f.push(Field::new("b", xint(le64(b, 16))));
            f.push(Field::new("c", xint(le64(b, 24))));
        }
    }
    Value::structure(f)
}

/// The `params` array of `n` parameters after the `size`-byte argument
/// structure at `ptr` (`NULL` when there are none).
fn params(c: &mut Ctx, ptr: u64, size: u64, n: u64) -> Field {
    let at = if n == 0 { 0 } else { ptr.wrapping_add(size) };
    Field::new(
        "params",
        array_at(c, at, n, PARAM as usize, |c, b| Some(param(c, b))),
    )
}

/// `{buf_len=N, buf_ptr=0x...}` of `struct tee_ioctl_buf_data` at `b`.
fn buf_data(b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("buf_len", Value::UInt(le64(b, 8))),
        Field::new("buf_ptr", Value::Ptr(le64(b, 0))),
    ])
}

/// A buffer-carried request: its argument structure's size and where
/// its `num_params` is.
#[derive(Clone, Copy)]
struct BufReq {
    code: u32,
    size: u64,
    num_params_at: usize,
}

impl BufReq {
    fn of(code: u32) -> Option<BufReq> {
        let (size, num_params_at) = match code {
            OPEN_SESSION => (56, 52),
            INVOKE => (24, 20),
            SUPPL_RECV | SUPPL_SEND => (8, 4),
            _ => return None,
        };
        Some(BufReq {
            code,
            size,
            num_params_at,
        })
    }

    /// What the caller passed in the argument structure `a` (at `ptr`),
    /// with `n` parameters.
    fn input(self, c: &mut Ctx, a: &[u8], ptr: u64, n: u64) -> Value {
        let u = |o: usize| Value::UInt(le32(a, o));
        let mut f = Vec::new();
        match self.code {
            OPEN_SESSION => {
                f.push(Field::new("uuid", uuid(&a[..16])));
                let login = le32(a, 32);
                f.push(Field::new(
                    "clnt_login",
                    c.enum_value(login, &xlat::TEE_IOCTL_LOGIN_TYPES, "TEE_IOCTL_LOGIN_???"),
                ));
                match login {
                    0 | 1 | 4 | 5 => {}
                    2 | 6 => {
                        // A group id, not a UUID (strace's printuid).
                        let gid = le32(a, 16);
                        let v = if gid == 0xffff_ffff {
                            Value::Int(-1)
                        } else {
                            Value::UInt(gid)
                        };
                        f.push(Field::new("clnt_uuid", v));
                    }
                    _ => f.push(Field::new(
                        "clnt_uuid",
                        Value::Array(a[16..32].iter().map(|&x| xint(x as u64)).collect(), false),
                    )),
                }
                f.push(Field::new("cancel_id", u(36)));
            }
            INVOKE => {
                f.push(Field::new("func", u(0)));
                f.push(Field::new("session", xint(le32(a, 4))));
                f.push(Field::new("cancel_id", u(8)));
            }
            SUPPL_RECV => f.push(Field::new("func", u(0))),
            _ => {}
        }
        f.push(Field::new("num_params", Value::UInt(n)));
        f.push(params(c, ptr, self.size, n));
        Value::structure(f)
    }

    /// What the kernel wrote in the argument structure `a` (at `ptr`).
    fn output(self, c: &mut Ctx, a: &[u8], ptr: u64) -> Value {
        let n = le32(a, self.num_params_at);
        let origin = |c: &Ctx, v: u64| c.enum_value(v, &xlat::TEE_IOCTL_ORIGINS, "TEEC_ORIGIN_???");
        let mut f = Vec::new();
        match self.code {
            OPEN_SESSION => {
                f.push(Field::new("session", xint(le32(a, 40))));
                f.push(Field::new("ret", Value::UInt(le32(a, 44))));
                f.push(Field::new("ret_origin", origin(c, le32(a, 48))));
            }
            INVOKE => {
                f.push(Field::new("ret", Value::UInt(le32(a, 12))));
                f.push(Field::new("ret_origin", origin(c, le32(a, 16))));
            }
            SUPPL_RECV => f.push(Field::new("num_params", Value::UInt(n))),
            _ => f.push(Field::new("ret", Value::UInt(le32(a, 0)))),
        }
        f.push(params(c, ptr, self.size, n));
        Value::structure(f)
    }
}

/// A UUID's 16 bytes as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
fn uuid(b: &[u8]) -> Value {
    let mut s = String::with_capacity(36);
    for (i, x) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{x:02x}"));
    }
    Value::Sym(Cow::Owned(s))
}

/// A buffer-carried request: decided at entry (the buffer alone when it
/// is inconsistent), printed at exit with ` => ` the output after success.
fn buf_request(c: &mut Ctx, req: BufReq, arg: u64) -> Io {
    if c.entering() {
        let b = match fetch(c, arg, 16) {
            Ok(b) => b,
            Err(v) => return Io::Arg(v),
        };
        let (ptr, len) = (le64(&b, 0), le64(&b, 8));
        if len > MAX_ARG || len < req.size {
            return Io::Arg(buf_data(&b));
        }
        let Some(a) = c.read_bytes(ptr, req.size as usize) else {
            return Io::Arg(buf_data(&b));
        };
        let n = le32(&a, req.num_params_at);
        if req.size + PARAM * n != len {
            return Io::Arg(buf_data(&b));
        }
        return Io::ExitWith(n);
    }
    let Some(b) = c.read_bytes(arg, 16) else {
        return Io::Arg(Value::Unreadable(arg));
    };
    let ptr = le64(&b, 0);
    let Some(a) = c.read_bytes(ptr, req.size as usize) else {
        return Io::Arg(buf_data(&b));
    };
    let input = req.input(c, &a, ptr, exit_state(c));
    let inner = if c.failed() {
        input
    } else {
        let out = req.output(c, &a, ptr);
        Value::Changed(Box::new(input), Box::new(out))
    };
    Io::Arg(Value::structure(vec![
        Field::new("buf_len", Value::UInt(le64(&b, 8))),
        Field::new("buf_ptr", inner),
    ]))
}

/// A request printed at entry (`input`) and, after a successful call,
/// ` => ` what the kernel wrote (`output`); both read at exit.
fn in_out(
    c: &mut Ctx,
    arg: u64,
    size: usize,
    input: impl Fn(&mut Ctx, &[u8]) -> Value,
    output: impl Fn(&Ctx, &[u8]) -> Value,
) -> Io {
    let b = match in_out_bytes(c, arg, size) {
        Ok(b) => b,
        Err(io) => return io,
    };
    let first = input(c, &b);
    if c.failed() {
        return Io::Arg(first);
    }
    Io::Arg(Value::Changed(Box::new(first), Box::new(output(c, &b))))
}

/// The TEE requests (type 0xa4).
pub(in crate::syscall::ioctl) fn tee(c: &mut Ctx, code: u32, arg: u64) -> Io {
    if let Some(req) = BufReq::of(code) {
        return buf_request(c, req, arg);
    }
    match code {
        VERSION => {
            if c.entering() {
                return Io::Exit;
            }
            Io::Arg(match fetch(c, arg, 12) {
                Ok(b) => {
                    let id = le32(&b, 0);
                    let caps = le32(&b, 4);
                    Value::structure(vec![
                        Field::new(
                            "impl_id",
                            c.enum_value(id, &xlat::TEE_IOCTL_IMPL_IDS, "TEE_IMPL_ID_???"),
                        ),
                        Field::new(
                            "gen_caps",
                            xflags(c, le32(&b, 8), &xlat::TEE_IOCTL_GEN_CAPS, "TEE_GEN_CAP_???"),
                        ),
                        Field::new(
                            "impl_caps",
                            if id == 1 {
                                xflags(c, caps, &xlat::TEE_IOCTL_OPTEE_CAPS, "TEE_OPTEE_CAP_???")
                            } else {
                                xint(caps)
                            },
                        ),
                    ])
                }
                Err(v) => v,
            })
        }
        CANCEL => Io::Arg(match fetch(c, arg, 8) {
            Ok(b) => Value::structure(vec![
                Field::new("cancel_id", Value::UInt(le32(&b, 0))),
                Field::new("session", xint(le32(&b, 4))),
            ]),
            Err(v) => v,
        }),
        CLOSE_SESSION => Io::Arg(match fetch(c, arg, 4) {
            Ok(b) => Value::structure(vec![Field::new("session", xint(le32(&b, 0)))]),
            Err(v) => v,
        }),
        SHM_ALLOC => in_out(
            c,
            arg,
            16,
            |c, b| {
                Value::structure(vec![
                    Field::new("size", xint(le64(b, 0))),
                    Field::new("flags", shm_flags(c, le32(b, 8))),
                ])
            },
            |c, b| {
                Value::structure(vec![
                    Field::new("size", xint(le64(b, 0))),
                    Field::new("flags", shm_flags(c, le32(b, 8))),
                    Field::new("id", d32(le32(b, 12))),
                ])
            },
        ),
        SHM_REGISTER_FD => in_out(
            c,
            arg,
            32,
            |c, b| {
                let fd = c.fd_value(le64(b, 0) as i32 as i64);
                Value::structure(vec![
                    Field::new("fd", fd),
                    Field::new("flags", shm_flags(c, le32(b, 16))),
                ])
            },
            |_, b| {
                Value::structure(vec![
                    Field::new("size", xint(le64(b, 8))),
                    Field::new("id", d32(le32(b, 24))),
                ])
            },
        ),
        SHM_REGISTER => in_out(
            c,
            arg,
            24,
            |c, b| {
                Value::structure(vec![
                    Field::new("addr", Value::Ptr(le64(b, 0))),
                    Field::new("length", xint(le64(b, 8))),
                    Field::new("flags", shm_flags(c, le32(b, 16))),
                ])
            },
            |c, b| {
                Value::structure(vec![
                    Field::new("length", xint(le64(b, 8))),
                    Field::new("flags", shm_flags(c, le32(b, 16))),
                    Field::new("id", d32(le32(b, 20))),
                ])
            },
        ),
        _ => Io::Hex,
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn tee_requests() {
        let mut m = FakeMemory::default();
        let mut alloc = 0x1000u64.to_le_bytes().to_vec();
        alloc.extend_from_slice(&0x3u32.to_le_bytes());
        alloc.extend_from_slice(&7u32.to_le_bytes());
        let p = m.put(&alloc);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc010_a401, p], 0, &mut m),
            "ioctl(3, TEE_IOC_SHM_ALLOC, {size=0x1000, flags=TEE_IOCTL_SHM_MAPPED|TEE_IOCTL_SHM_DMA_BUF} => {size=0x1000, flags=TEE_IOCTL_SHM_MAPPED|TEE_IOCTL_SHM_DMA_BUF, id=7}) = 0"
        );
        // INVOKE with one memory-reference parameter.
        let mut inv = vec![0u8; 24 + 32];
        inv[0] = 9;
        inv[4] = 0x42;
        inv[12] = 5;
        inv[16] = 4;
        inv[20] = 1;
        inv[24] = 6;
        inv[32] = 0x10;
        inv[40] = 0x20;
        inv[48] = 3;
        let a = m.put(&inv);
        let mut buf = a.to_le_bytes().to_vec();
        buf.extend_from_slice(&56u64.to_le_bytes());
        let b = m.put(&buf);
        let params = "params=[{attr=TEE_IOCTL_PARAM_ATTR_TYPE_MEMREF_OUTPUT, shm_offs=0x10, size=0x20, shm_id=3}]";
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8010_a403, b], 0, &mut m),
            format!("ioctl(3, TEE_IOC_INVOKE, {{buf_len=56, buf_ptr={{func=9, session=0x42, cancel_id=0, num_params=1, {params}}} => {{ret=5, ret_origin=TEEC_ORIGIN_TRUSTED_APP, {params}}}}}) = 0")
        );
        // An inconsistent length: the buffer alone.
        let mut bad = a.to_le_bytes().to_vec();
        bad.extend_from_slice(&57u64.to_le_bytes());
        let b = m.put(&bad);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8010_a403, b], -9, &mut m),
            format!("ioctl(3, TEE_IOC_INVOKE, {{buf_len=57, buf_ptr={a:#x}}}) = -1 EBADF (Bad file descriptor)")
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x800c_a400, 0], -9, &mut m),
            "ioctl(3, TEE_IOC_VERSION, NULL) = -1 EBADF (Bad file descriptor)"
        );
    }
}
