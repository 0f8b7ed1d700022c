//! `perf_event_open` and the ioctls on its descriptors.
//!
//! Raw syscall: nix has no perf_event_open.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

/// `PERF_FLAG_FD_CLOEXEC`.
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
/// `PERF_EVENT_IOC_DISABLE`.
const IOC_DISABLE: libc::c_ulong = 0x2401;

/// `struct perf_event_attr` up to `config3` (PERF_ATTR_SIZE_VER8); the
/// kernel accepts any size it knows or a larger one whose tail is zero.
#[repr(C)]
#[derive(Default, Clone, Copy)]
#[allow(dead_code)] // the fields are read by the kernel
struct PerfEventAttr {
    /// Event type (`PERF_TYPE_*`).
    type_: u32,
    /// `sizeof(struct perf_event_attr)`.
    size: u32,
    /// Event id within the type.
    config: u64,
    sample_period: u64,
    sample_type: u64,
    /// `PERF_FORMAT_*`.
    read_format: u64,
    /// The bit-field word (disabled, inherit, ..., enable_on_exec).
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: i32,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    reserved2: u16,
    aux_sample_size: u32,
    reserved3: u32,
    sig_data: u64,
    config3: u64,
}

/// `perf_event_open` of event `type_`/`config` on task `pid`, all CPUs,
/// no group, close-on-exec; `read_format` and `flags` (the bit-field
/// word: disabled, inherit, ..., enable_on_exec) as the kernel takes them.
pub fn open(
    type_: u32,
    config: u64,
    read_format: u64,
    flags: u64,
    pid: i32,
) -> io::Result<OwnedFd> {
    let attr = PerfEventAttr {
        type_,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config,
        read_format,
        flags,
        ..Default::default()
    };
    // SAFETY: attr is a valid, fully initialised perf_event_attr of the
    // size it declares; the other arguments are plain integers.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            pid,
            -1i32,
            -1i32,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us; nothing else
    // owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// `PERF_EVENT_IOC_DISABLE` on a perf descriptor: stops counting.
pub fn disable(fd: BorrowedFd) {
    // SAFETY: an ioctl without argument on a descriptor the caller holds.
    unsafe { libc::ioctl(fd.as_raw_fd(), IOC_DISABLE, 0) };
}
