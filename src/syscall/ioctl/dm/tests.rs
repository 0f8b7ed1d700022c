//! Unit tests of the device-mapper ioctl decoder over fake memory: the
//! header, the `-v` payloads (target specs, device names) and the exit
//! part of successful calls.

use crate::engine::memory::FakeMemory;
use crate::syscall::ctx::DecodeOpts;
use crate::syscall::ioctl::ioctl;
use crate::syscall::testutil::{run, run_with};

const FD: u64 = -1i64 as u64;
const BAD: &str = "-1 EBADF (Bad file descriptor)";

fn put32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

/// A `struct dm_ioctl` of ABI 4.`minor` with `size` bytes in all.
fn header(size: usize, start: u32, minor: u32, dev: bool) -> Vec<u8> {
    let mut b = vec![0u8; size];
    put32(&mut b, 0, 4);
    put32(&mut b, 4, minor);
    put32(&mut b, 12, size as u32);
    put32(&mut b, 16, start);
    if dev {
        b[40..48].copy_from_slice(&0x1234u64.to_le_bytes());
        b[48..51].copy_from_slice(b"nnn");
        b[176..179].copy_from_slice(b"uuu");
    }
    b
}

const DEV: &str = "dev=makedev(0x12, 0x34), name=\"nnn\", uuid=\"uuu\"";

#[test]
fn headers() {
    let mut m = FakeMemory::default();
    let p = m.put(&header(305, 0, 1, true));
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0xc138_fd00, p], -9, &mut m),
        format!(
            "ioctl(-1, DM_VERSION, [{{version=[4, 1, 0], data_size=305, {DEV}, flags=0}}]) = {BAD}"
        )
    );
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0xc138_fd00, 8], -9, &mut m),
        format!("ioctl(-1, DM_VERSION, 0x8) = {BAD}")
    );
    let mut small = header(305, 0, 1, true);
    put32(&mut small, 12, 20);
    let q = m.put(&small);
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0xc138_fd00, q], -9, &mut m),
        format!("ioctl(-1, DM_VERSION, [{{version=[4, 1, 0], data_size=20 /* data_size too small */}}]) = {BAD}")
    );
    let mut h = header(305, 0, 1, true);
    put32(&mut h, 20, 1);
    put32(&mut h, 24, 2);
    put32(&mut h, 32, 3);
    let r = m.put(&h);
    let hdr = format!("version=[4, 1, 0], data_size=305, {DEV}");
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc138_fd07, r], 0, &mut m),
        format!(
            "ioctl(3, DM_DEV_STATUS, [{{{hdr}, flags=0}}] => \
             [{{{hdr}, target_count=1, open_count=2, event_nr=3, flags=0}}]) = 0"
        )
    );
}

#[test]
fn table_load_target_specs() {
    let mut m = FakeMemory::default();
    let mut b = header(360, 312, 1, true);
    put32(&mut b, 20, 1); // target_count
    b[312] = 16; // sector_start
    b[320] = 32; // length
    b[336..339].copy_from_slice(b"tgt");
    b[352..355].copy_from_slice(b"par");
    let p = m.put(&b);
    let hdr =
        format!("version=[4, 1, 0], data_size=360, data_start=312, {DEV}, target_count=1, flags=0");
    assert_eq!(
        run(ioctl, "ioctl", &[FD, 0xc138_fd09, p], -9, &mut m),
        format!("ioctl(-1, DM_TABLE_LOAD, [{{{hdr}}}, ...]) = {BAD}")
    );
    let v = DecodeOpts {
        verbose: true,
        ..DecodeOpts::default()
    };
    assert_eq!(
        run_with(ioctl, "ioctl", &[FD, 0xc138_fd09, p], -9, &mut m, &v),
        format!(
            "ioctl(-1, DM_TABLE_LOAD, [{{{hdr}}}, {{sector_start=16, length=32, \
             target_type=\"tgt\", string=\"par\"}}]) = {BAD}"
        )
    );
    // A second target whose offset does not move forward is misplaced.
    put32(&mut b, 20, 2);
    let q = m.put(&b);
    let hdr2 = hdr.replace("target_count=1", "target_count=2");
    assert_eq!(
        run_with(ioctl, "ioctl", &[FD, 0xc138_fd09, q], -9, &mut m, &v),
        format!(
            "ioctl(-1, DM_TABLE_LOAD, [{{{hdr2}}}, {{sector_start=16, length=32, \
             target_type=\"tgt\", string=\"par\"}}, ??? /* misplaced struct dm_target_spec */]) = {BAD}"
        )
    );
}

#[test]
fn list_devices_with_event_numbers() {
    let mut m = FakeMemory::default();
    let mut b = header(352, 312, 37, false);
    b[312..320].copy_from_slice(&0x1234u64.to_le_bytes());
    put32(&mut b, 320, 24); // next
    b[324..327].copy_from_slice(b"dm0");
    put32(&mut b, 328, 5); // event_nr after the aligned name
    b[348] = b'x';
    let p = m.put(&b);
    let hdr = "{version=[4, 37, 0], data_size=352, data_start=312, flags=0}";
    let v = DecodeOpts {
        verbose: true,
        ..DecodeOpts::default()
    };
    assert_eq!(
        run_with(ioctl, "ioctl", &[3, 0xc138_fd02, p], 0, &mut m, &v),
        format!(
            "ioctl(3, DM_LIST_DEVICES, [{hdr}] => [{hdr}, {{dev=makedev(0x12, 0x34), \
             name=\"dm0\", event_nr=5}}, {{dev=makedev(0, 0), name=\"x\"}}]) = 0"
        )
    );
    assert_eq!(
        run(ioctl, "ioctl", &[3, 0xc138_fd02, p], 0, &mut m),
        format!("ioctl(3, DM_LIST_DEVICES, [{hdr}] => [{hdr}, ...]) = 0")
    );
}
