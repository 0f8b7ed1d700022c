//! Video4Linux2 ioctls (type `V`) as strace 6.1 prints them — for now
//! only the input and video standard requests (`VIDIOC_ENUMINPUT`,
//! `VIDIOC_[GS]_INPUT`, `VIDIOC_[GS]_STD`); the other requests print
//! their argument in hex.

use super::misc::{cstring_field, fetch, num};
use super::Io;
use crate::syscall::printers::{le32, le64, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

const VIDIOC_S_STD: u32 = 0x4008_5618;
const VIDIOC_G_INPUT: u32 = 0x8004_5626;
const VIDIOC_G_STD: u32 = 0x8008_5617;
const VIDIOC_S_INPUT: u32 = 0xc004_5627;
const VIDIOC_ENUMINPUT: u32 = 0xc050_561a;

/// The V4L2 requests decoded so far.
pub(super) fn v4l2(c: &mut Ctx, code: u32, arg: u64) -> Io {
    match code {
        VIDIOC_G_INPUT | VIDIOC_G_STD if c.entering() => Io::Exit,
        VIDIOC_G_INPUT | VIDIOC_S_INPUT => Io::Arg(num(c, arg, 4, false)),
        VIDIOC_G_STD | VIDIOC_S_STD => Io::Arg(match fetch(c, arg, 8) {
            Ok(b) => Value::Array(vec![xint(le64(&b, 0))], false),
            Err(v) => v,
        }),
        VIDIOC_ENUMINPUT => enum_input(c, arg),
        _ => Io::Hex,
    }
}

/// `struct v4l2_input`: the index at entry, the name and type after a
/// successful call.
fn enum_input(c: &mut Ctx, arg: u64) -> Io {
    if c.entering() {
        return match fetch(c, arg, 80) {
            Ok(_) => Io::Exit,
            Err(v) => Io::Arg(v),
        };
    }
    let Some(b) = c.read_bytes(arg, 80) else {
        return Io::Arg(Value::Unreadable(arg));
    };
    let mut f = vec![Field::new("index", Value::UInt(le32(&b, 0)))];
    if !c.failed() {
        f.push(Field::new("name", cstring_field(&b[4..36])));
        f.push(Field::new(
            "type",
            c.enum_value(le32(&b, 36), &xlat::V4L2_INPUT_TYPES, "V4L2_INPUT_TYPE_???"),
        ));
    }
    Io::Arg(Value::structure(f))
}

#[cfg(test)]
mod tests {
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn v4l2_inputs() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc050_561a, 0], -9, &mut m),
            "ioctl(3, VIDIOC_ENUMINPUT, NULL) = -1 EBADF (Bad file descriptor)"
        );
        let mut inp = vec![0u8; 80];
        inp[0] = 1;
        inp[4..7].copy_from_slice(b"cam");
        inp[36] = 2;
        let p = m.put(&inp);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xc050_561a, p], 0, &mut m),
            "ioctl(3, VIDIOC_ENUMINPUT, {index=1, name=\"cam\", type=V4L2_INPUT_TYPE_CAMERA}) = 0"
        );
    }
}
