//! userfaultfd ioctls (type 0xaa, linux/userfaultfd.h) as strace 6.1
//! prints them: `UFFDIO_API` (the features the caller asked for, then
//! ` => ` the ones the kernel granted when they differ, and the ioctls
//! bits), `UFFDIO_REGISTER`, `UFFDIO_COPY` and `UFFDIO_ZEROPAGE` (the
//! request, then what the kernel wrote after a successful call), and the
//! address ranges of `UFFDIO_WAKE` and `UFFDIO_UNREGISTER`.

use crate::syscall::ioctl::misc::fetch;
use crate::syscall::ioctl::{exit_state, Io};
use crate::syscall::printers::{le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

const API: u32 = 0xc018_aa3f;
const REGISTER: u32 = 0xc020_aa00;
const UNREGISTER: u32 = 0x8010_aa01;
const WAKE: u32 = 0x8010_aa02;
const COPY: u32 = 0xc028_aa03;
const ZEROPAGE: u32 = 0xc020_aa04;

/// The low 63 bits (what [`Io::ExitWith`] keeps).
const KEPT: u64 = u64::MAX >> 1;

/// `struct uffdio_range` at `b`.
fn range(b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("start", xint(le64(b, 0))),
        Field::new("len", xint(le64(b, 8))),
    ])
}

/// `UFFD_FEATURE_*` flags.
fn features(c: &Ctx, v: u64) -> Value {
    xflags(c, v, &xlat::UFFD_API_FEATURES, "UFFD_FEATURE_???")
}

/// The structure at entry (its readability) or at exit (its fields).
fn read_at_exit(c: &mut Ctx, arg: u64, size: usize) -> Result<Vec<u8>, Io> {
    if c.entering() {
        return Err(match fetch(c, arg, size) {
            Ok(_) => Io::Exit,
            Err(v) => Io::Arg(v),
        });
    }
    c.read_bytes(arg, size)
        .ok_or(Io::Arg(Value::Unreadable(arg)))
}

/// The userfaultfd requests (type 0xaa).
pub(in crate::syscall::ioctl) fn uffdio(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        API => {
            if c.entering() {
                return match fetch(c, arg, 24) {
                    Ok(b) => Io::ExitWith(le64(&b, 8) & KEPT),
                    Err(v) => Io::Arg(v),
                };
            }
            let Some(b) = c.read_bytes(arg, 24) else {
                return Io::Arg(Value::Unreadable(arg));
            };
            let now = le64(&b, 8);
            let asked = exit_state(c) | (now & !KEPT);
            let mut feat = features(c, asked);
            let mut f = vec![Field::new("api", xint(le64(&b, 0)))];
            if !c.failed() {
                if asked != now {
                    let granted =
                        Value::Joined(vec![Value::sym("features="), features(c, now)], "");
                    feat = Value::Changed(Box::new(feat), Box::new(granted));
                }
                f.push(Field::new("features", feat));
                f.push(Field::new(
                    "ioctls",
                    xflags(c, le64(&b, 16), &xlat::UFFD_API_FLAGS, "_UFFDIO_???"),
                ));
            } else {
                f.push(Field::new("features", feat));
            }
            Io::Arg(Value::structure(f))
        }
        COPY => {
            let b = match read_at_exit(c, arg, 40) {
                Ok(b) => b,
                Err(io) => return io,
            };
            let mut f = vec![
                Field::new("dst", xint(le64(&b, 0))),
                Field::new("src", xint(le64(&b, 8))),
                Field::new("len", xint(le64(&b, 16))),
                Field::new(
                    "mode",
                    xflags(c, le64(&b, 24), &xlat::UFFD_COPY_FLAGS, "UFFDIO_COPY_???"),
                ),
            ];
            if !c.failed() {
                f.push(Field::new("copy", xint(le64(&b, 32))));
            }
            Io::Arg(Value::structure(f))
        }
        REGISTER => {
            let b = match read_at_exit(c, arg, 32) {
                Ok(b) => b,
                Err(io) => return io,
            };
            let mut f = vec![
                Field::new("range", range(&b)),
                Field::new(
                    "mode",
                    xflags(
                        c,
                        le64(&b, 16),
                        &xlat::UFFD_REGISTER_MODE_FLAGS,
                        "UFFDIO_REGISTER_MODE_???",
                    ),
                ),
            ];
            if !c.failed() {
                f.push(Field::new(
                    "ioctls",
                    xflags(
                        c,
                        le64(&b, 24),
                        &xlat::UFFD_REGISTER_IOCTL_FLAGS,
                        "UFFDIO_???",
                    ),
                ));
            }
            Io::Arg(Value::structure(f))
        }
        ZEROPAGE => {
            let b = match read_at_exit(c, arg, 32) {
                Ok(b) => b,
                Err(io) => return io,
            };
            let mut f = vec![
                Field::new("range", range(&b)),
                Field::new(
                    "mode",
                    xflags(
                        c,
                        le64(&b, 16),
                        &xlat::UFFD_ZEROPAGE_FLAGS,
                        "UFFDIO_ZEROPAGE_???",
                    ),
                ),
            ];
            if !c.failed() {
                f.push(Field::new("zeropage", xint(le64(&b, 24))));
            }
            Io::Arg(Value::structure(f))
        }
        UNREGISTER | WAKE => Io::Arg(match fetch(c, arg, 16) {
            Ok(b) => range(&b),
            Err(v) => v,
        }),
        _ => Io::Hex,
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    fn words(w: &[u64]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn uffdio_requests() {
        let mut m = FakeMemory::default();
        let api = m.put(&words(&[0xaa, 0, 0x8000_0000_0000_0003]));
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc018_aa3f, api], -9, &mut m),
            "ioctl(3, UFFDIO_API, {api=0xaa, features=0}) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc018_aa3f, api], 0, &mut m),
            "ioctl(3, UFFDIO_API, {api=0xaa, features=0, ioctls=1<<_UFFDIO_REGISTER|1<<_UFFDIO_UNREGISTER|1<<_UFFDIO_API}) = 0"
        );
        let copy = m.put(&words(&[0x1000, 0x2000, 0x1000, 1, 0x1000]));
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc028_aa03, copy], 0, &mut m),
            "ioctl(3, UFFDIO_COPY, {dst=0x1000, src=0x2000, len=0x1000, mode=UFFDIO_COPY_MODE_DONTWAKE, copy=0x1000}) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc028_aa03, 0], -14, &mut m),
            "ioctl(3, UFFDIO_COPY, NULL) = -1 EFAULT (Bad address)"
        );
        let reg = m.put(&words(&[0x1000, 0x1000, 1, 0x11c]));
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc020_aa00, reg], 0, &mut m),
            "ioctl(3, UFFDIO_REGISTER, {range={start=0x1000, len=0x1000}, mode=UFFDIO_REGISTER_MODE_MISSING, ioctls=1<<_UFFDIO_WAKE|1<<_UFFDIO_COPY|1<<_UFFDIO_ZEROPAGE|0x100}) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x8010_aa02, reg], 0, &mut m),
            "ioctl(3, UFFDIO_WAKE, {start=0x1000, len=0x1000}) = 0"
        );
    }
}
