//! ioctl(2): request names (`TCGETS`, `FIONREAD`, `BLKGETSIZE64`,
//! `LOOP_SET_FD`, …; both names when two share a value, as strace joins them
//! with ` or `), `_IOC(dir, type, nr, size)` for unnamed requests, and the
//! arguments strace 6.1 decodes for terminals (termios, termio, termios2,
//! winsize, integers), block devices and loop devices. Other arguments print
//! in hex, or as the pointer for structures not decoded here
//! (`struct loop_info64`, `struct loop_config`, serial and modem requests).

use super::ctx::render_flags;
use super::ioctl_term::{termios_value, winsize, TermKind};
use super::printers::{le64, num_at, xflags, xint};
use super::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(super) const DECODERS: &[(&str, Decoder)] = &[("ioctl", ioctl)];

/// asm-generic's request layout: nr, type, size, dir (x86 and arm64 use it).
const IOC_TYPESHIFT: u32 = 8;
const IOC_SIZESHIFT: u32 = 16;
const IOC_DIRSHIFT: u32 = 30;

/// `_IOC(_IOC_READ|_IOC_WRITE, 0xbe, 0xef, 0x1ead)` for an unnamed request.
fn ioc_value(c: &Ctx, code: u32) -> Value {
    let dir = xflags(
        c,
        (code >> IOC_DIRSHIFT) as u64,
        &xlat::IOCTL_DIRS,
        "_IOC_???",
    );
    Value::Call(
        Cow::Borrowed("_IOC"),
        vec![
            dir,
            xint(((code >> IOC_TYPESHIFT) & 0xff) as u64),
            xint((code & 0xff) as u64),
            xint(((code >> IOC_SIZESHIFT) & 0x3fff) as u64),
        ],
    )
}

/// How strace prints the argument of a named request.
#[derive(Clone, Copy, PartialEq)]
enum IoctlArg {
    /// No argument at all.
    None,
    /// `[int]` read at entry.
    IntIn,
    /// `[int]` read at exit.
    IntOut,
    /// `[unsigned int]` read at exit.
    UintOut,
    /// `[long]` read at exit.
    LongOut,
    /// `[unsigned long]` read at exit.
    UlongOut,
    /// `[uint64]` read at exit.
    U64Out,
    /// `[start, length]` of two `uint64`s at entry.
    U64Pair,
    /// `struct winsize` at entry.
    WinszIn,
    /// `struct winsize` at exit.
    WinszOut,
    /// A termios-like structure at entry.
    TermIn(TermKind),
    /// A termios-like structure at exit.
    TermOut(TermKind),
    /// One character at the pointer (`TIOCSTI`).
    Char,
    /// A decimal `int`.
    Int,
    /// A decimal `unsigned long`.
    Ulong,
    /// A descriptor.
    Fd,
    /// `TCXONC`'s action.
    Tcxonc,
    /// `TCFLSH`'s queue.
    Tcflsh,
    /// A pointer to a structure not decoded here.
    Ptr,
    /// Undecoded: hex.
    Hex,
}

/// The argument kind of the request named `name`.
fn ioctl_arg(name: &str) -> IoctlArg {
    use IoctlArg::*;
    use TermKind::*;
    match name {
        "TIOCEXCL" | "TIOCNXCL" | "TIOCCONS" | "TIOCSSERIAL" | "TIOCNOTTY" | "TIOCSBRK"
        | "TIOCCBRK" | "FIONCLEX" | "FIOCLEX" | "FIFREEZE" | "FITHAW" | "BLKRRPART"
        | "BLKFLSBUF" | "LOOP_CLR_FD" | "LOOP_SET_CAPACITY" | "LOOP_CTL_GET_FREE" => None,
        "FIONBIO" | "FIOASYNC" | "TIOCSPTLCK" | "TIOCSPGRP" | "TIOCSETD" | "BLKROSET"
        | "BLKBSZSET" => IntIn,
        "FIONREAD" | "TIOCOUTQ" | "TIOCGPGRP" | "TIOCGSID" | "TIOCGETD" | "BLKROGET"
        | "BLKSSZGET" | "BLKBSZGET" | "TIOCGEXCL" | "TIOCGPKT" | "TIOCGPTLCK" => IntOut,
        "TIOCGPTN" | "BLKPBSZGET" => UintOut,
        "BLKRAGET" => LongOut,
        "BLKGETSIZE" => UlongOut,
        "BLKGETSIZE64" => U64Out,
        "BLKDISCARD" => U64Pair,
        "TIOCSWINSZ" => WinszIn,
        "TIOCGWINSZ" => WinszOut,
        "TCGETS" | "TIOCGLCKTRMIOS" => TermOut(Termios),
        "TCSETS" | "TCSETSW" | "TCSETSF" | "TIOCSLCKTRMIOS" => TermIn(Termios),
        "TCGETA" => TermOut(Termio),
        "TCSETA" | "TCSETAW" | "TCSETAF" => TermIn(Termio),
        "TCGETS2" => TermOut(Termios2),
        "TCSETS2" | "TCSETSW2" | "TCSETSF2" => TermIn(Termios2),
        "TIOCSTI" => Char,
        "TCSBRK" | "TCSBRKP" | "TIOCSCTTY" | "LOOP_CTL_ADD" | "LOOP_CTL_REMOVE" => Int,
        "BLKRASET" | "LOOP_SET_DIRECT_IO" | "LOOP_SET_BLOCK_SIZE" => Ulong,
        "FICLONE" | "LOOP_SET_FD" | "LOOP_CHANGE_FD" => Fd,
        "TCXONC" => Tcxonc,
        "TCFLSH" => Tcflsh,
        "TIOCMGET" | "TIOCMBIS" | "TIOCMBIC" | "TIOCMSET" | "TIOCGSOFTCAR" | "TIOCSSOFTCAR"
        | "TIOCPKT" | "TIOCGDEV" | "FITRIM" | "FICLONERANGE" | "FIDEDUPERANGE"
        | "FS_IOC_GETFLAGS" | "FS_IOC_SETFLAGS" | "FS_IOC_FSGETXATTR" | "FS_IOC_FSSETXATTR"
        | "LOOP_SET_STATUS" | "LOOP_GET_STATUS" | "LOOP_SET_STATUS64" | "LOOP_GET_STATUS64"
        | "LOOP_CONFIGURE" => Ptr,
        _ => Hex,
    }
}

/// `[start, length]` of two `uint64`s (`printpair_int64`).
fn u64_pair(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    match c.read_bytes(addr, 16) {
        Some(b) => Value::Array(
            vec![Value::UInt(le64(&b, 0)), Value::UInt(le64(&b, 8))],
            false,
        ),
        None => Value::Unreadable(addr),
    }
}

/// The value of an argument the kernel fills, at exit.
fn out_value(c: &mut Ctx, kind: IoctlArg, arg: u64) -> Value {
    if c.failed() {
        return Value::Ptr(arg);
    }
    let w = c.arch.word_size();
    match kind {
        IoctlArg::WinszOut => winsize(c, arg),
        IoctlArg::TermOut(k) => termios_value(c, arg, k),
        IoctlArg::UintOut => num_at(c, arg, 4, false),
        IoctlArg::LongOut => num_at(c, arg, w, true),
        IoctlArg::UlongOut => num_at(c, arg, w, false),
        IoctlArg::U64Out => num_at(c, arg, 8, false),
        _ => num_at(c, arg, 4, true),
    }
}

/// `ioctl(fd, request, arg)`.
pub(super) fn ioctl(c: &mut Ctx) -> Step {
    let code = c.arg(1) as u32;
    let arg = c.arg_ulong(2);
    let names: Vec<&str> = xlat::IOCTL_REQUESTS
        .entries
        .iter()
        .filter(|e| e.0 == code as u64)
        .map(|e| e.1)
        .collect();
    let kind = names.last().map_or(IoctlArg::Hex, |n| ioctl_arg(n));
    if c.exiting() {
        let v = out_value(c, kind, arg);
        c.push(v);
        return Step::Done(RetFmt::Int);
    }
    c.fd(0);
    let req = match (c.opts.xlat_style, names.is_empty()) {
        (1, _) => Value::Hex(code as u64),
        (0, false) => Value::sym_owned(names.join(" or ")),
        (_, false) => Value::Commented(
            Box::new(Value::Hex(code as u64)),
            Cow::Owned(names.join(" or ")),
        ),
        (0, true) => ioc_value(c, code),
        (_, true) => Value::Commented(
            Box::new(Value::Hex(code as u64)),
            Cow::Owned(render_flags(&ioc_value(c, code))),
        ),
    };
    c.push(req);
    let v = match kind {
        IoctlArg::None => return Step::Done(RetFmt::Int),
        IoctlArg::IntOut
        | IoctlArg::UintOut
        | IoctlArg::LongOut
        | IoctlArg::UlongOut
        | IoctlArg::U64Out
        | IoctlArg::WinszOut
        | IoctlArg::TermOut(_) => return Step::Exit,
        IoctlArg::IntIn => num_at(c, arg, 4, true),
        IoctlArg::U64Pair => u64_pair(c, arg),
        IoctlArg::WinszIn => winsize(c, arg),
        IoctlArg::TermIn(k) => termios_value(c, arg, k),
        IoctlArg::Char => c.buf_value(arg, 1),
        IoctlArg::Int => Value::Int(arg as i32 as i64),
        IoctlArg::Ulong => Value::UInt(arg),
        IoctlArg::Fd => c.fd_value(arg as i32 as i64),
        IoctlArg::Tcxonc => c.enum_value(arg, &xlat::TCXONC_ACTIONS, "TC???"),
        IoctlArg::Tcflsh => c.enum_value(arg, &xlat::TCFLSH_QUEUES, "TC???"),
        IoctlArg::Ptr => Value::Ptr(arg),
        IoctlArg::Hex => xint(arg),
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syscall::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn ioctls() {
        let mut m = FakeMemory::default();
        let n = m.put(&5u32.to_le_bytes());
        assert_eq!(
            run(ioctl, "ioctl", &[5, 0x541b, n], 0, &mut m),
            "ioctl(5, FIONREAD, [5]) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[5, 0x541b, 8], -14, &mut m),
            "ioctl(5, FIONREAD, 0x8) = -1 EFAULT (Bad address)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x5451, 0], 0, &mut m),
            "ioctl(3, FIOCLEX) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0x5401, 0x1000], -25, &mut m),
            "ioctl(4, TCGETS, 0x1000) = -1 ENOTTY (Inappropriate ioctl for device)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0x5401, 0], -25, &mut m),
            "ioctl(4, TCGETS, NULL) = -1 ENOTTY (Inappropriate ioctl for device)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0xdeadbeef, 0x1234], -9, &mut m),
            "ioctl(3, _IOC(_IOC_READ|_IOC_WRITE, 0xbe, 0xef, 0x1ead), 0x1234) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x1234, 0], -25, &mut m),
            "ioctl(3, _IOC(_IOC_NONE, 0x12, 0x34, 0), 0) = -1 ENOTTY (Inappropriate ioctl for device)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x40049409, 3], -22, &mut m),
            "ioctl(3, BTRFS_IOC_CLONE or FICLONE, 3) = -1 EINVAL (Invalid argument)"
        );
        let ws = m.put(&[24, 0, 80, 0, 0, 0, 0, 0]);
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x5413, ws], 0, &mut m),
            "ioctl(3, TIOCGWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x540a, 1], 0, &mut m),
            "ioctl(3, TCXONC, TCOON) = 0"
        );
    }

    #[test]
    fn block_and_loop() {
        let mut m = FakeMemory::default();
        let sz = m.put(&(1u64 << 33).to_le_bytes());
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x80081272, sz], 0, &mut m),
            "ioctl(3, BLKGETSIZE64, [8589934592]) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[3, 0x80081272, 0], -9, &mut m),
            "ioctl(3, BLKGETSIZE64, NULL) = -1 EBADF (Bad file descriptor)"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[5, 0x4c00, 3], 0, &mut m),
            "ioctl(5, LOOP_SET_FD, 3) = 0"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[5, 0x4c82, 0], 2, &mut m),
            "ioctl(5, LOOP_CTL_GET_FREE) = 2"
        );
        assert_eq!(
            run(ioctl, "ioctl", &[5, 0x4c05, 0], -9, &mut m),
            "ioctl(5, LOOP_GET_STATUS64, NULL) = -1 EBADF (Bad file descriptor)"
        );
        let x = m.put(b"x");
        assert_eq!(
            run(ioctl, "ioctl", &[4, 0x5412, x], 0, &mut m),
            "ioctl(4, TIOCSTI, \"x\") = 0"
        );
    }
}
