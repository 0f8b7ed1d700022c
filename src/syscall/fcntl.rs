//! Descriptor control: fcntl (every common command, with annotated returns
//! like `= 0x8002 (flags O_RDWR|O_LARGEFILE)`) and flock. ioctl is in
//! `ioctl/mod.rs`.

use crate::syscall::ctx::{render_flags, signal_name, PidKind};
use crate::syscall::file::{open_flags_value, open_modes};
use crate::syscall::printers::{
    enum_arg, flags_arg, layout64, le16, le32, le64, lld_arg, struct_at, xflags, xint,
};
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[("fcntl", fcntl), ("flock", flock)];

// ---- fcntl ----

/// A return value strace prints with `%#lx` and a comment (`RVAL_HEX|RVAL_STR`).
fn hex_ret(v: i64, comment: Option<String>) -> RetFmt {
    let r = if v == 0 {
        Ret::Int(0)
    } else {
        Ret::Hex(v as u64)
    };
    RetFmt::Value(match comment {
        Some(s) => Ret::Annotated(Box::new(r), Cow::Owned(s)),
        None => r,
    })
}

/// `struct flock` (64-bit layout) at `addr`; `getlk` adds `l_pid`.
fn flock_struct(c: &mut Ctx, addr: u64, getlk: bool) -> Value {
    let size = layout64(c, 32);
    let mut v = struct_at(c, addr, size, |c, b| {
        let mut f = vec![
            Field::new(
                "l_type",
                c.enum_value(le16(b, 0), &xlat::LOCKF_CMDS, "F_???"),
            ),
            Field::new(
                "l_whence",
                c.enum_value(le16(b, 2), &xlat::WHENCE, "SEEK_???"),
            ),
            Field::new("l_start", Value::Int(le64(b, 8) as i64)),
            Field::new("l_len", Value::Int(le64(b, 16) as i64)),
        ];
        if getlk {
            f.push(Field::new("l_pid", Value::Int(le32(b, 24) as i32 as i64)));
        }
        Value::structure(f)
    });
    c.field_id(&mut v, "l_pid", PidKind::Tgid);
    v
}

/// `struct f_owner_ex` at `addr`.
fn owner_struct(c: &mut Ctx, addr: u64) -> Value {
    let mut kind = None;
    let mut v = struct_at(c, addr, Some(8), |c, b| {
        let t = c.enum_value(le32(b, 0), &xlat::F_OWNER_TYPES, "F_OWNER_???");
        kind = match xlat::F_OWNER_TYPES.lookup(le32(b, 0)) {
            Some("F_OWNER_TID") => Some(PidKind::Tid),
            Some("F_OWNER_PID") => Some(PidKind::Tgid),
            Some("F_OWNER_PGRP") => Some(PidKind::Pgid),
            _ => None,
        };
        Value::structure(vec![
            Field::new("type", t),
            Field::new("pid", Value::Int(le32(b, 4) as i32 as i64)),
        ])
    });
    if let Some(k) = kind {
        c.field_id(&mut v, "pid", k);
    }
    v
}

/// `fcntl(fd, cmd, arg)`. Commands are matched by their name in the
/// `fcntl_cmds` table, so the numbers stay the arch crate's.
fn fcntl(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        enum_arg(c, 1, &xlat::FCNTL_CMDS, "F_???");
    }
    let arg = c.arg_ulong(2);
    let cmd = xlat::FCNTL_CMDS
        .lookup(c.arg(1) as u32 as u64)
        .unwrap_or("");
    match cmd {
        "F_SETFD" => flags_arg(c, 2, &xlat::FD_FLAGS, "FD_???"),
        "F_SETOWN" => c.pid_or_pgid(2),
        "F_SETPIPE_SZ" => lld_arg(c, 2),
        // Linux 6.10: is fd the same file as arg (strace 7.2 prints it as an fd).
        "F_DUPFD_QUERY" => c.fd(2),
        // Linux 6.19: a struct delegation, printed as its address.
        "F_GETDELEG" | "F_SETDELEG" => c.ptr(2),
        "F_DUPFD" | "F_DUPFD_CLOEXEC" => {
            lld_arg(c, 2);
            return Step::Done(RetFmt::Fd);
        }
        "F_SETFL" => {
            let v = open_flags_value(c, arg as u32 as u64);
            c.push(v);
        }
        "F_SETLK" | "F_SETLKW" | "F_OFD_SETLK" | "F_OFD_SETLKW" => {
            let v = flock_struct(c, arg, false);
            c.push(v);
        }
        "F_SETOWN_EX" => {
            let v = owner_struct(c, arg);
            c.push(v);
        }
        "F_NOTIFY" => c.push(xflags(c, arg, &xlat::NOTIFY_FLAGS, "DN_???")),
        "F_SETLEASE" => c.push(c.enum_value(arg, &xlat::LOCKF_CMDS, "F_???")),
        "F_ADD_SEALS" => c.push(xflags(c, arg, &xlat::SEAL_FLAGS, "F_SEAL_???")),
        "F_SETSIG" => c.push(c.signal_value(arg)),
        // A negative owner is a process group: strace prints it bare.
        "F_GETOWN" => return Step::Done(RetFmt::Pid),
        "F_GETPIPE_SZ" => {}
        "F_GETFD" | "F_GETFL" | "F_GETLK" | "F_OFD_GETLK" | "F_GETOWN_EX" | "F_GETLEASE"
        | "F_GET_SEALS" | "F_GETSIG" => return fcntl_get(c, cmd, arg),
        _ => c.push(xint(arg)),
    }
    Step::Done(RetFmt::Int)
}

/// The fcntl commands decoded at exit.
fn fcntl_get(c: &mut Ctx, cmd: &str, arg: u64) -> Step {
    if c.entering() {
        c.entry_complete = !matches!(cmd, "F_GETLK" | "F_OFD_GETLK" | "F_GETOWN_EX");
        return Step::Exit;
    }
    let r = c.retval();
    match cmd {
        "F_GETLK" | "F_OFD_GETLK" => {
            let v = flock_struct(c, arg, true);
            c.push(v);
        }
        "F_GETOWN_EX" => {
            let v = owner_struct(c, arg);
            c.push(v);
        }
        _ if c.failed() => {}
        "F_GETFL" => {
            let s = render_flags(&open_modes(r as u64));
            return Step::Done(hex_ret(r, Some(format!("flags {s}"))));
        }
        "F_GETLEASE" => {
            let name = xlat::LOCKF_CMDS.lookup(r as u64).map(String::from);
            return Step::Done(hex_ret(r, name));
        }
        _ if r == 0 => {}
        "F_GETFD" => {
            let s = render_flags(&c.flags_value(r as u64, &xlat::FD_FLAGS));
            return Step::Done(hex_ret(r, Some(format!("flags {s}"))));
        }
        "F_GET_SEALS" => {
            let s = render_flags(&c.flags_value(r as u64, &xlat::SEAL_FLAGS));
            return Step::Done(hex_ret(r, Some(format!("seals {s}"))));
        }
        "F_GETSIG" => {
            let name = signal_name(r as u64).map_or_else(|| r.to_string(), |n| n.into_owned());
            let ret = Ret::Annotated(Box::new(Ret::Int(r)), Cow::Owned(name));
            return Step::Done(RetFmt::Value(ret));
        }
        _ => {}
    }
    Step::Done(RetFmt::Int)
}

/// `flock(fd, operation)`.
fn flock(c: &mut Ctx) -> Step {
    c.fd(0);
    flags_arg(c, 1, &xlat::FLOCK_OPS, "LOCK_???");
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn fcntl_plain_commands() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(fcntl, "fcntl", &[3, 1], 0, &mut m),
            "fcntl(3, F_GETFD) = 0"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 1], 1, &mut m),
            "fcntl(3, F_GETFD) = 0x1 (flags FD_CLOEXEC)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 2, 3], -9, &mut m),
            "fcntl(3, F_SETFD, FD_CLOEXEC|0x2) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 3], 0x8002, &mut m),
            "fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[0, 3], 0, &mut m),
            "fcntl(0, F_GETFL) = 0 (flags O_RDONLY)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 4, 0o6000], 0, &mut m),
            "fcntl(3, F_SETFL, O_RDONLY|O_APPEND|O_NONBLOCK) = 0"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 0, 10], 11, &mut m),
            "fcntl(3, F_DUPFD, 10) = 11"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 1025], 2, &mut m),
            "fcntl(3, F_GETLEASE) = 0x2 (F_UNLCK)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 1034], 6, &mut m),
            "fcntl(3, F_GET_SEALS) = 0x6 (seals F_SEAL_SHRINK|F_SEAL_GROW)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[4, 11], 10, &mut m),
            "fcntl(4, F_GETSIG) = 10 (SIGUSR1)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[4, 10, 10], 0, &mut m),
            "fcntl(4, F_SETSIG, SIGUSR1) = 0"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[4, 10, 0], 0, &mut m),
            "fcntl(4, F_SETSIG, 0) = 0"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[1000, 0x1234, 5], -9, &mut m),
            "fcntl(1000, 0x1234 /* F_??? */, 0x5) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[1000, 0x1234, 0], -9, &mut m),
            "fcntl(1000, 0x1234 /* F_??? */, 0) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[1000, 1026, 0x8000_0003], -9, &mut m),
            "fcntl(1000, F_NOTIFY, DN_ACCESS|DN_MODIFY|DN_MULTISHOT) = -1 EBADF (Bad file descriptor)"
        );
    }

    #[test]
    fn fcntl_structs() {
        let mut m = FakeMemory::default();
        let mut b = vec![0u8; 32];
        b[2..4].copy_from_slice(&1u16.to_le_bytes());
        b[8..16].copy_from_slice(&2u64.to_le_bytes());
        let fl = m.put(&b);
        assert_eq!(
            run(fcntl, "fcntl", &[3, 7, fl], 0, &mut m),
            "fcntl(3, F_SETLKW, {l_type=F_RDLCK, l_whence=SEEK_CUR, l_start=2, l_len=0}) = 0"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 5, fl], 0, &mut m),
            "fcntl(3, F_GETLK, {l_type=F_RDLCK, l_whence=SEEK_CUR, l_start=2, l_len=0, l_pid=0}) = 0"
        );
        assert_eq!(
            run(fcntl, "fcntl", &[3, 6, 8], -9, &mut m),
            "fcntl(3, F_SETLK, 0x8) = -1 EBADF (Bad file descriptor)"
        );
        let o = m.put(&[0x53, 0xef, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            run(fcntl, "fcntl", &[3, 15, o], -9, &mut m),
            "fcntl(3, F_SETOWN_EX, {type=0xef53 /* F_OWNER_??? */, pid=0}) = -1 EBADF (Bad file descriptor)"
        );
    }

    #[test]
    fn flock_ops() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(flock, "flock", &[3, 6], 0, &mut m),
            "flock(3, LOCK_EX|LOCK_NB) = 0"
        );
        assert_eq!(
            run(flock, "flock", &[3, 0], -22, &mut m),
            "flock(3, 0) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(flock, "flock", &[3, 0x100], -22, &mut m),
            "flock(3, 0x100 /* LOCK_??? */) = -1 EINVAL (Invalid argument)"
        );
    }
}
