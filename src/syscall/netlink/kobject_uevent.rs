//! NETLINK_KOBJECT_UEVENT buffers (strace's `netlink_kobject_uevent.c`):
//! a libudev monitor message (`struct udev_monitor_netlink_header`, its
//! `libudev` prefix, then the properties as a string); anything else, a
//! kernel uevent included, prints as a plain string.

use crate::syscall::{Ctx, Field, Value};
use std::borrow::Cow;

/// `sizeof(struct udev_monitor_netlink_header)`.
const HDR_SIZE: usize = 40;

fn htonl(b: &[u8], o: usize) -> Value {
    let v = u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    Value::Call(Cow::Borrowed("htonl"), vec![Value::Hex(v as u64)])
}

fn le32(b: &[u8], o: usize) -> Value {
    Value::UInt(u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as u64)
}

/// The buffer of a send or receive on a NETLINK_KOBJECT_UEVENT socket.
pub(in crate::syscall) fn value(c: &mut Ctx, addr: u64, len: u64) -> Value {
    let hdr = if len >= HDR_SIZE as u64 {
        c.read_bytes(addr, HDR_SIZE)
            .filter(|b| b[..8].split(|&x| x == 0).next() == Some(b"libudev"))
    } else {
        None
    };
    let Some(b) = hdr else {
        return c.buf_value(addr, len);
    };
    let prefix = Value::Str(crate::value::StrVal {
        bytes: b"libudev".to_vec(),
        truncated: false,
        c_string: true,
    });
    let h = Value::structure(vec![
        Field::new("prefix", prefix),
        Field::new("magic", htonl(&b, 8)),
        Field::new("header_size", le32(&b, 12)),
        Field::new("properties_off", le32(&b, 16)),
        Field::new("properties_len", le32(&b, 20)),
        Field::new("filter_subsystem_hash", htonl(&b, 24)),
        Field::new("filter_devtype_hash", htonl(&b, 28)),
        Field::new("filter_tag_bloom_hi", htonl(&b, 32)),
        Field::new("filter_tag_bloom_lo", htonl(&b, 36)),
    ]);
    if len == HDR_SIZE as u64 {
        return h;
    }
    let rest = c.buf_value(addr + HDR_SIZE as u64, len - HDR_SIZE as u64);
    Value::Array(vec![h, rest], false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;
    use crate::syscall::{RetFmt, Step};

    fn uevent(c: &mut Ctx) -> Step {
        let v = value(c, c.arg_ulong(0), c.arg_ulong(1));
        c.push(v);
        Step::Done(RetFmt::Int)
    }

    #[test]
    fn libudev_header_then_properties() {
        let mut m = FakeMemory::default();
        let mut b = b"libudev\0".to_vec();
        b.extend(0xfeedcafeu32.to_be_bytes());
        for v in [40u32, 40, 299] {
            b.extend(v.to_le_bytes());
        }
        for v in [0xc370b302u32, 0x10800000, 0x2000400, 0x10800000] {
            b.extend(v.to_be_bytes());
        }
        b.extend(b"ab");
        let a = m.put(&b);
        assert_eq!(
            run(uevent, "x", &[a, 42], 0, &mut m),
            "x([{prefix=\"libudev\", magic=htonl(0xfeedcafe), header_size=40, \
             properties_off=40, properties_len=299, filter_subsystem_hash=htonl(0xc370b302), \
             filter_devtype_hash=htonl(0x10800000), filter_tag_bloom_hi=htonl(0x2000400), \
             filter_tag_bloom_lo=htonl(0x10800000)}, \"ab\"]) = 0"
        );
        let a = m.put(b"change@/devices\0");
        assert_eq!(
            run(uevent, "x", &[a, 16], 0, &mut m),
            "x(\"change@/devices\\0\") = 0"
        );
    }
}
