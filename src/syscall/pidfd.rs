//! Calls on other processes and their descriptors: pidfd_open, pidfd_getfd,
//! pidfd_send_signal, process_mrelease, process_madvise, setns, kcmp and
//! process_vm_readv/process_vm_writev, as strace prints them (a descriptor
//! of another process shows that process's path under `-y`).

use crate::syscall::array::iov_upto;
use crate::syscall::printers::{le32, xflags, xint};
use crate::syscall::signal::sig_value;
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("pidfd_open", pidfd_open),
    ("pidfd_getfd", pidfd_getfd),
    ("pidfd_send_signal", pidfd_send_signal),
    ("process_mrelease", process_mrelease),
    ("process_madvise", process_madvise),
    ("setns", setns),
    ("kcmp", kcmp),
    ("process_vm_readv", process_vm_readv),
    ("process_vm_writev", process_vm_writev),
];

/// Descriptor `fd` of process `pid` (`-y` resolves it in that process).
fn fd_of_pid(c: &mut Ctx, pid: i64, fd: i64) -> Value {
    // The pid is the tracee's; /proc is read at rstrace's number for it.
    let pid = if c.opts.pidns {
        let tracee = c.pid;
        c.fds
            .translate_pid(tracee, pid, crate::syscall::ctx::PidKind::Tgid)
            .unwrap_or(0)
    } else {
        pid
    };
    if pid == c.pid as i64 || pid <= 0 {
        return if pid == c.pid as i64 {
            c.fd_value(fd)
        } else {
            Value::Int(fd)
        };
    }
    let path = if c.opts.fd_paths && fd >= 0 {
        c.fds.fd_path(pid as i32, fd)
    } else {
        None
    };
    Value::Fd { fd, path }
}

/// The process a pidfd of the tracee refers to (`Pid:` of its fdinfo).
fn pidfd_pid(tracee: i32, fd: i64) -> Option<i64> {
    if fd < 0 {
        return None;
    }
    let info = std::fs::read_to_string(format!("/proc/{tracee}/fdinfo/{fd}")).ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("Pid:"))
        .and_then(|v| v.trim().parse().ok())
}

fn pidfd_open(c: &mut Ctx) -> Step {
    c.pid(0);
    let f = xflags(c, c.arg(1) as u32 as u64, &xlat::PIDFD_FLAGS, "PIDFD_???");
    c.push(f);
    Step::Done(RetFmt::Fd)
}

fn pidfd_getfd(c: &mut Ctx) -> Step {
    c.fd(0);
    let target = c.arg_int(1) as i64;
    let owner = if c.opts.fd_paths {
        pidfd_pid(c.pid, c.arg_int(0) as i64)
    } else {
        None
    };
    let v = match owner {
        Some(p) if p > 0 => fd_of_pid(c, p, target),
        _ => Value::Int(target),
    };
    c.push(v);
    c.push(xint(c.arg(2) as u32 as u64));
    Step::Done(RetFmt::Fd)
}

fn pidfd_send_signal(c: &mut Ctx) -> Step {
    c.fd(0);
    let s = sig_value(c.opts.xlat_style, c.arg_int(1) as i64);
    c.push(s);
    let addr = c.arg_ulong(2);
    let v = match c.read_bytes(addr, crate::syscall::signal::SIGINFO_SIZE) {
        _ if addr == 0 => Value::Ptr(0),
        Some(b) => crate::syscall::signal::siginfo_value_styled(c.arch, c.opts.xlat_style, &b),
        None => Value::Unreadable(addr),
    };
    let mut v = v;
    c.translate_pids(&mut v);
    c.push(v);
    c.push(xint(c.arg(3) as u32 as u64));
    Step::Done(RetFmt::Int)
}

fn process_mrelease(c: &mut Ctx) -> Step {
    c.fd(0);
    c.push(xint(c.arg(1) as u32 as u64));
    Step::Done(RetFmt::Int)
}

/// An iovec array whose bases print as addresses.
fn iov_addrs(c: &mut Ctx, addr: u64, n: u64) -> Value {
    iov_upto(c, addr, n, None, |_, base, _| Value::Ptr(base))
}

fn process_madvise(c: &mut Ctx) -> Step {
    c.fd(0);
    let (addr, n) = (c.arg_ulong(1), c.arg_ulong(2));
    let v = iov_addrs(c, addr, n);
    c.push(v);
    c.push(Value::UInt(n));
    let adv = c.enum_value(c.arg(3) as u32 as u64, &xlat::MADVISE_ADVICE, "MADV_???");
    c.push(adv);
    c.push(xint(c.arg(4) as u32 as u64));
    Step::Done(RetFmt::Int)
}

fn setns(c: &mut Ctx) -> Step {
    c.fd(0);
    let f = xflags(
        c,
        c.arg(1) as u32 as u64,
        &xlat::SETNS_TYPES,
        "CLONE_NEW???",
    );
    c.push(f);
    Step::Done(RetFmt::Int)
}

const KCMP_FILE: u32 = 0;
const KCMP_EPOLL_TFD: u32 = 7;

/// `kcmp(pid1, pid2, type, idx1, idx2)`.
fn kcmp(c: &mut Ctx) -> Step {
    let (pid1, pid2) = (c.arg_int(0) as i64, c.arg_int(1) as i64);
    c.pid(0);
    c.pid(1);
    let ty = c.arg(2) as u32;
    let v = c.enum_value(ty as u64, &xlat::KCMP_TYPES, "KCMP_???");
    c.push(v);
    match ty {
        KCMP_FILE => {
            let v = fd_of_pid(c, pid1, c.arg_int(3) as i64);
            c.push(v);
            let v = fd_of_pid(c, pid2, c.arg_int(4) as i64);
            c.push(v);
        }
        KCMP_EPOLL_TFD => {
            let v = fd_of_pid(c, pid1, c.arg_int(3) as i64);
            c.push(v);
            let addr = c.arg_ulong(4);
            let b = if addr == 0 {
                None
            } else {
                c.read_bytes(addr, 12)
            };
            let v = match b {
                None => Value::Ptr(addr),
                Some(b) => {
                    let efd = fd_of_pid(c, pid2, le32(&b, 0) as i32 as i64);
                    let tfd = fd_of_pid(c, pid2, le32(&b, 4) as i32 as i64);
                    Value::structure(vec![
                        Field::new("efd", efd),
                        Field::new("tfd", tfd),
                        Field::new("toff", Value::UInt(le32(&b, 8))),
                    ])
                }
            };
            c.push(v);
        }
        1..=6 => {}
        _ => {
            c.push(xint(c.arg_ulong(3)));
            c.push(xint(c.arg_ulong(4)));
        }
    }
    Step::Done(RetFmt::Int)
}

/// `process_vm_readv(pid, local_iov, liovcnt, remote_iov, riovcnt, flags)`:
/// the local iovec prints at exit with the data read.
fn process_vm_readv(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        return Step::Exit;
    }
    let (laddr, ln) = (c.arg_ulong(1), c.arg_ulong(2));
    let v = if c.failed() {
        iov_addrs(c, laddr, ln)
    } else {
        let total = c.retval() as u64;
        iov_upto(c, laddr, ln, Some(total), |c, base, shown| {
            c.buf_value(base, shown)
        })
    };
    c.push(v);
    vm_tail(c);
    Step::Done(RetFmt::Int)
}

/// `remote_iov, riovcnt, flags` and `liovcnt` before them.
fn vm_tail(c: &mut Ctx) {
    c.ulong(2);
    let (raddr, rn) = (c.arg_ulong(3), c.arg_ulong(4));
    let v = iov_addrs(c, raddr, rn);
    c.push(v);
    c.ulong(4);
    c.ulong(5);
}

fn process_vm_writev(c: &mut Ctx) -> Step {
    c.pid(0);
    let (laddr, ln) = (c.arg_ulong(1), c.arg_ulong(2));
    let v = iov_upto(c, laddr, ln, None, |c, base, len| c.buf_value(base, len));
    c.push(v);
    vm_tail(c);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn pidfd_calls() {
        let mut m = FakeMemory::default();
        let e = -22;
        assert_eq!(
            run(
                pidfd_open,
                "pidfd_open",
                &[0x0def_aced_0000_0000, 0x0def_aced_0000_0800],
                e,
                &mut m
            ),
            "pidfd_open(0, PIDFD_NONBLOCK) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(
                pidfd_getfd,
                "pidfd_getfd",
                &[u64::MAX, u64::MAX, 0],
                e,
                &mut m
            ),
            "pidfd_getfd(-1, -1, 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(setns, "setns", &[3, 0x4000_0000], e, &mut m),
            "setns(3, CLONE_NEWNET) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(kcmp, "kcmp", &[u64::MAX, u64::MAX, 2], e, &mut m),
            "kcmp(-1, -1, KCMP_FILES) = -1 EINVAL (Invalid argument)"
        );
        let mut slot = Vec::new();
        for v in [23u32, 42, 0] {
            slot.extend_from_slice(&v.to_le_bytes());
        }
        let slot = m.put(&slot);
        assert_eq!(
            run(kcmp, "kcmp", &[5, u64::MAX, 7, 23, slot], e, &mut m),
            "kcmp(5, -1, KCMP_EPOLL_TFD, 23, {efd=23, tfd=42, toff=0}) = -1 EINVAL (Invalid argument)"
        );
        let mut iov = 0x1000u64.to_le_bytes().to_vec();
        iov.extend_from_slice(&8u64.to_le_bytes());
        let iov = m.put(&iov);
        assert_eq!(
            run(process_madvise, "process_madvise", &[0, iov, 1, 0, 0], e, &mut m),
            "process_madvise(0, [{iov_base=0x1000, iov_len=8}], 1, MADV_NORMAL, 0) = -1 EINVAL (Invalid argument)"
        );
    }
}
