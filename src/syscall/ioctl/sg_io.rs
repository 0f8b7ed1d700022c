//! `SG_IO` (scsi/sg.h, linux/bsg.h) as strace 6.1 prints it: by the
//! interface id in the first word, `struct sg_io_hdr` (`'S'`, version 3)
//! or `struct sg_io_v4` (`'Q'`), the request (command, buffers the device
//! reads) and then the response (status, sense and the data the device
//! wrote); other ids print as `[N]`. strace prints the response whether or
//! not the call failed.

use crate::syscall::array::iov_upto;
use crate::syscall::ioctl::misc::fetch;
use crate::syscall::ioctl::{exit_state, Io};
use crate::syscall::netlink::hexstr_value;
use crate::syscall::printers::{le16, le32, le64, xflags, xint};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::xlat;

const V3: u64 = b'S' as u64;
const V4: u64 = b'Q' as u64;
const V4_SIZE: usize = 160;

const DXFER_TO_DEV: u64 = -2i64 as u64;
const DXFER_FROM_DEV: u64 = -3i64 as u64;
const DXFER_TO_FROM_DEV: u64 = -4i64 as u64;

/// `SG_IO`: the interface id decides the structure.
pub(in crate::syscall::ioctl) fn sg_io(c: &mut Ctx, arg: u64) -> Io {
    if c.exiting() {
        return match exit_state(c) {
            V3 => Io::Arg(v3_exit(c, arg)),
            _ => Io::Arg(v4_exit(c, arg)),
        };
    }
    let b = match fetch(c, arg, 4) {
        Ok(b) => b,
        Err(v) => return Io::Arg(v),
    };
    let iid = le32(&b, 0);
    let (size, name, shown) = match iid {
        V3 => (V3Layout::of(c).size, "interface_id", "'S'"),
        V4 => (V4_SIZE, "guard", "'Q'"),
        _ => return Io::Arg(Value::Array(vec![Value::UInt(iid)], false)),
    };
    if c.read_bytes(arg + 4, size - 4).is_none() {
        return Io::Arg(Value::structure(vec![
            Field::new(name, Value::sym(shown)),
            Field::new("", Value::Unreadable(arg + 4)),
        ]));
    }
    Io::ExitWith(iid)
}

/// The buffer of an `SG_IO` request: `len` bytes in hex, or an iovec
/// array of `count` entries limited to `len` bytes.
fn buffer(c: &mut Ctx, addr: u64, len: u64, count: u64) -> Value {
    if count != 0 {
        return iov_upto(c, addr, count, Some(len), |c, base, n| c.buf_value(base, n));
    }
    if addr == 0 {
        return Value::Ptr(0);
    }
    hexstr_value(c, addr, len)
}

/// `name=v` as the right side of ` => ` after a field.
fn named(name: &'static str, v: Value) -> Value {
    Value::Joined(vec![Value::sym(name), v], "=")
}

/// Appends ` => what` to the last field (strace's `tprint_value_changed`
/// between two fields).
fn changed_after_last(f: &mut [Field], what: Value) {
    if let Some(last) = f.last_mut() {
        let prev = std::mem::replace(&mut last.value, Value::Unknown);
        last.value = Value::Changed(Box::new(prev), Box::new(what));
    }
}

/// A signed 32-bit value.
fn d32(v: u64) -> Value {
    Value::Int(v as u32 as i32 as i64)
}

/// Where the fields of `struct sg_io_hdr` are in this personality.
struct V3Layout {
    w: usize,
    dxferp: usize,
    cmdp: usize,
    sbp: usize,
    timeout: usize,
    status: usize,
    size: usize,
}

impl V3Layout {
    fn of(c: &Ctx) -> V3Layout {
        if c.arch.word_size() == 4 {
            V3Layout {
                w: 4,
                dxferp: 16,
                cmdp: 20,
                sbp: 24,
                timeout: 28,
                status: 44,
                size: 64,
            }
        } else {
            V3Layout {
                w: 8,
                dxferp: 16,
                cmdp: 24,
                sbp: 32,
                timeout: 40,
                status: 64,
                size: 88,
            }
        }
    }

    fn ptr(&self, b: &[u8], off: usize) -> u64 {
        if self.w == 4 {
            le32(b, off)
        } else {
            le64(b, off)
        }
    }
}

/// `struct sg_io_hdr`: the request and the response, read at exit.
fn v3_exit(c: &mut Ctx, arg: u64) -> Value {
    let l = V3Layout::of(c);
    let mut f = vec![Field::new("interface_id", Value::sym("'S'"))];
    let Some(b) = c.read_bytes(arg, l.size) else {
        f.push(Field::new("", Value::Unreadable(arg)));
        return Value::structure(f);
    };
    let dir = le32(&b, 4) as u32 as i32 as i64 as u64;
    let cmd_len = b[8] as u64;
    let iovec_count = le16(&b, 10);
    let dxfer_len = le32(&b, 12);
    let dxferp = l.ptr(&b, l.dxferp);
    f.push(Field::new(
        "dxfer_direction",
        c.enum_value(dir, &xlat::SG_IO_DXFER_DIRECTION, "SG_DXFER_???"),
    ));
    f.push(Field::new("cmd_len", Value::UInt(cmd_len)));
    let cmdp = l.ptr(&b, l.cmdp);
    f.push(Field::new("cmdp", buffer(c, cmdp, cmd_len, 0)));
    f.push(Field::new("mx_sb_len", Value::UInt(b[9] as u64)));
    f.push(Field::new("iovec_count", Value::UInt(iovec_count)));
    f.push(Field::new("dxfer_len", Value::UInt(dxfer_len)));
    f.push(Field::new("timeout", Value::UInt(le32(&b, l.timeout))));
    f.push(Field::new(
        "flags",
        xflags(
            c,
            le32(&b, l.timeout + 4),
            &xlat::SG_IO_FLAGS,
            "SG_FLAG_???",
        ),
    ));
    if dir == DXFER_TO_DEV || dir == DXFER_TO_FROM_DEV {
        let v = buffer(c, dxferp, dxfer_len, iovec_count);
        f.push(Field::new("dxferp", v));
    }
    let iid = le32(&b, 0);
    if iid != V3 {
        changed_after_last(&mut f, named("interface_id", Value::UInt(iid)));
        return Value::structure(f);
    }
    let s = l.status;
    let resid = le32(&b, s + 8) as u32 as i32;
    if dir == DXFER_FROM_DEV || dir == DXFER_TO_FROM_DEV {
        let mut din_len = dxfer_len;
        if resid > 0 && resid as u64 <= din_len {
            din_len -= resid as u64;
        }
        if dir == DXFER_FROM_DEV {
            let v = buffer(c, dxferp, din_len, iovec_count);
            f.push(Field::new("dxferp", v));
        } else if din_len != 0 {
            let v = buffer(c, dxferp, din_len, iovec_count);
            changed_after_last(&mut f, named("dxferp", v));
        }
    }
    let sb_len_wr = b[s + 3] as u64;
    f.push(Field::new("status", xint(b[s] as u64)));
    f.push(Field::new("masked_status", xint(b[s + 1] as u64)));
    f.push(Field::new("msg_status", xint(b[s + 2] as u64)));
    f.push(Field::new("sb_len_wr", Value::UInt(sb_len_wr)));
    let sbp = l.ptr(&b, l.sbp);
    f.push(Field::new("sbp", buffer(c, sbp, sb_len_wr, 0)));
    f.push(Field::new("host_status", xint(le16(&b, s + 4))));
    f.push(Field::new("driver_status", xint(le16(&b, s + 6))));
    f.push(Field::new("resid", Value::Int(resid as i64)));
    f.push(Field::new("duration", Value::UInt(le32(&b, s + 12))));
    f.push(Field::new(
        "info",
        xflags(c, le32(&b, s + 16), &xlat::SG_IO_INFO, "SG_INFO_???"),
    ));
    Value::structure(f)
}

/// `struct sg_io_v4`: the request and the response, read at exit.
fn v4_exit(c: &mut Ctx, arg: u64) -> Value {
    let mut f = vec![Field::new("guard", Value::sym("'Q'"))];
    let Some(b) = c.read_bytes(arg, V4_SIZE) else {
        f.push(Field::new("", Value::Unreadable(arg)));
        return Value::structure(f);
    };
    let u = |o: usize| Value::UInt(le32(&b, o));
    f.push(Field::new(
        "protocol",
        c.enum_value(le32(&b, 4), &xlat::BSG_PROTOCOL, "BSG_PROTOCOL_???"),
    ));
    f.push(Field::new(
        "subprotocol",
        c.enum_value(le32(&b, 8), &xlat::BSG_SUBPROTOCOL, "BSG_SUB_PROTOCOL_???"),
    ));
    let request_len = le32(&b, 12);
    f.push(Field::new("request_len", Value::UInt(request_len)));
    let request = buffer(c, le64(&b, 16), request_len, 0);
    f.push(Field::new("request", request));
    f.push(Field::new("request_tag", xint(le64(&b, 24))));
    f.push(Field::new("request_attr", u(32)));
    f.push(Field::new("request_priority", u(36)));
    f.push(Field::new("request_extra", u(40)));
    f.push(Field::new("max_response_len", u(44)));
    f.push(Field::new("dout_iovec_count", u(56)));
    f.push(Field::new("dout_xfer_len", u(60)));
    f.push(Field::new("din_iovec_count", u(64)));
    f.push(Field::new("din_xfer_len", u(68)));
    let dout = buffer(c, le64(&b, 72), le32(&b, 60), le32(&b, 56));
    f.push(Field::new("dout_xferp", dout));
    f.push(Field::new("timeout", u(88)));
    f.push(Field::new(
        "flags",
        xflags(c, le32(&b, 92), &xlat::BSG_FLAGS, "BSG_FLAG_???"),
    ));
    f.push(Field::new("usr_ptr", xint(le64(&b, 96))));
    let guard = le32(&b, 0);
    if guard != V4 {
        changed_after_last(&mut f, named("guard", Value::UInt(guard)));
        return Value::structure(f);
    }
    let response_len = le32(&b, 132);
    f.push(Field::new("response_len", Value::UInt(response_len)));
    let response = buffer(c, le64(&b, 48), response_len, 0);
    f.push(Field::new("response", response));
    let din_resid = le32(&b, 136) as u32 as i32;
    let mut din_len = le32(&b, 68);
    if din_resid > 0 && din_resid as u64 <= din_len {
        din_len -= din_resid as u64;
    }
    let din = buffer(c, le64(&b, 80), din_len, le32(&b, 64));
    f.push(Field::new("din_xferp", din));
    f.push(Field::new("driver_status", xint(le32(&b, 108))));
    f.push(Field::new("transport_status", xint(le32(&b, 112))));
    f.push(Field::new("device_status", xint(le32(&b, 116))));
    f.push(Field::new("retry_delay", u(120)));
    f.push(Field::new(
        "info",
        xflags(c, le32(&b, 124), &xlat::SG_IO_INFO, "SG_INFO_???"),
    ));
    f.push(Field::new("duration", u(128)));
    f.push(Field::new("response_len", Value::UInt(response_len)));
    f.push(Field::new("din_resid", Value::Int(din_resid as i64)));
    f.push(Field::new("dout_resid", d32(le32(&b, 140))));
    f.push(Field::new("generated_tag", xint(le64(&b, 144))));
    Value::structure(f)
}

#[cfg(test)]
mod tests {
    use crate::engine::memory::FakeMemory;
    use crate::syscall::ioctl::ioctl;
    use crate::syscall::testutil::run;

    #[test]
    fn sg_io_v3() {
        let mut m = FakeMemory::default();
        let data = m.put(&[0xd4, 0xd5, 0xd6, 0xd7]);
        let cmd = m.put(&[0x12, 0, 0, 0, 0x24, 0]);
        let mut h = vec![0u8; 88];
        h[0] = b'S';
        h[4..8].copy_from_slice(&(-3i32).to_le_bytes());
        h[8] = 6;
        h[12] = 4;
        h[16..24].copy_from_slice(&data.to_le_bytes());
        h[24..32].copy_from_slice(&cmd.to_le_bytes());
        h[40] = 100;
        h[72] = 1;
        h[80] = 1;
        let p = m.put(&h);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x2285, p], 0, &mut m),
            "ioctl(3, SG_IO, {interface_id='S', dxfer_direction=SG_DXFER_FROM_DEV, cmd_len=6, cmdp=\"\\x12\\x00\\x00\\x00\\x24\\x00\", mx_sb_len=0, iovec_count=0, dxfer_len=4, timeout=100, flags=0, dxferp=\"\\xd4\\xd5\\xd6\", status=0, masked_status=0, msg_status=0, sb_len_wr=0, sbp=NULL, host_status=0, driver_status=0, resid=1, duration=0, info=SG_INFO_CHECK}) = 0"
        );
        let other = m.put(&7u32.to_le_bytes());
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x2285, other], -22, &mut m),
            "ioctl(3, SG_IO, [7]) = -1 EINVAL (Invalid argument)"
        );
    }

    #[test]
    fn sg_io_v4() {
        let mut m = FakeMemory::default();
        let mut h = vec![0u8; 160];
        h[0] = b'Q';
        h[8] = 1;
        h[92] = 0x20;
        h[136..140].copy_from_slice(&(-2i32).to_le_bytes());
        let p = m.put(&h);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x2285, p], -9, &mut m),
            "ioctl(3, SG_IO, {guard='Q', protocol=BSG_PROTOCOL_SCSI, subprotocol=BSG_SUB_PROTOCOL_SCSI_TMF, request_len=0, request=NULL, request_tag=0, request_attr=0, request_priority=0, request_extra=0, max_response_len=0, dout_iovec_count=0, dout_xfer_len=0, din_iovec_count=0, din_xfer_len=0, dout_xferp=NULL, timeout=0, flags=BSG_FLAG_Q_AT_HEAD, usr_ptr=0, response_len=0, response=NULL, din_xferp=NULL, driver_status=0, transport_status=0, device_status=0, retry_delay=0, info=0, duration=0, response_len=0, din_resid=-2, dout_resid=0, generated_tag=0}) = -1 EBADF (Bad file descriptor)"
        );
    }
}
