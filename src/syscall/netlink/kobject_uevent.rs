//! NETLINK_KOBJECT_UEVENT buffers (strace's `netlink_kobject_uevent.c`):
//! a libudev monitor message (`struct udev_monitor_netlink_header`, its
//! `libudev` prefix, then the properties as a string); anything else, a
//! kernel uevent included, prints as a plain string.

use crate::syscall::layout::kstruct;
use crate::syscall::{Ctx, Field, Value};
use std::borrow::Cow;

kstruct! {
    /// libudev's `struct udev_monitor_netlink_header`.
    struct UdevHeader size 40 {
        prefix: [u8; 8] @ 0,
        magic: be32 @ 8,
        header_size: u32 @ 12,
        properties_off: u32 @ 16,
        properties_len: u32 @ 20,
        filter_subsystem_hash: be32 @ 24,
        filter_devtype_hash: be32 @ 28,
        filter_tag_bloom_hi: be32 @ 32,
        filter_tag_bloom_lo: be32 @ 36,
    }
}

/// `sizeof(struct udev_monitor_netlink_header)`.
const HDR_SIZE: usize = UdevHeader::SIZE;

/// `htonl(0x…)`: a field in network order.
fn htonl(v: u32) -> Value {
    Value::Call(Cow::Borrowed("htonl"), vec![Value::Hex(v as u64)])
}

/// The buffer of a send or receive on a NETLINK_KOBJECT_UEVENT socket.
pub(in crate::syscall) fn value(c: &mut Ctx, addr: u64, len: u64) -> Value {
    let hdr = if len >= HDR_SIZE as u64 {
        c.read_bytes(addr, HDR_SIZE)
            .filter(|b| UdevHeader(b).prefix().split(|&x| x == 0).next() == Some(b"libudev"))
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
    let u = UdevHeader(&b);
    let h = Value::structure(vec![
        Field::new("prefix", prefix),
        Field::new("magic", htonl(u.magic())),
        Field::new("header_size", Value::UInt(u.header_size() as u64)),
        Field::new("properties_off", Value::UInt(u.properties_off() as u64)),
        Field::new("properties_len", Value::UInt(u.properties_len() as u64)),
        Field::new("filter_subsystem_hash", htonl(u.filter_subsystem_hash())),
        Field::new("filter_devtype_hash", htonl(u.filter_devtype_hash())),
        Field::new("filter_tag_bloom_hi", htonl(u.filter_tag_bloom_hi())),
        Field::new("filter_tag_bloom_lo", htonl(u.filter_tag_bloom_lo())),
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
