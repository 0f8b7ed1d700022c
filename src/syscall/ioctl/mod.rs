//! ioctl(2): request names (strace 6.1's full request table, in
//! `ioctlent_<arch>.txt`; all names when several share a value, as strace
//! joins them with ` or `), the names strace builds from a request's number
//! (`EVIOCGBIT(EV_KEY, 96)`, `MIXER_READ(17)`), `_IOC(dir, type, nr, size)`
//! for unnamed requests, and the arguments: per-family decoders (in
//! `misc.rs` and the other files of this folder, chosen by the request's
//! type byte as strace does), then the terminal, block and loop requests
//! decoded by name here. Other arguments print in hex.

mod block;
mod btrfs;
mod dm;
mod evdev;
mod fs;
mod gpio;
mod hdio;
mod kd;
mod kvm;
mod loop_dev;
pub(in crate::syscall) mod misc;
mod mtd;
mod ptp;
mod rtc;
mod scsi;
mod seccomp;
mod sg_io;
mod sock;
mod tee;
pub(in crate::syscall) mod term;
mod ubi;
mod uffdio;
mod v4l2;

use crate::syscall::ctx::render_flags;
use crate::syscall::ioctl::term::{termios_value, winsize, TermKind};
use crate::syscall::printers::{le64, num_at, xflags, xint};
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[("ioctl", ioctl)];

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

/// `_IOC(...)` inside a `-X verbose` comment: direction names without
/// their own comment, and nothing for unknown direction bits.
fn ioc_value_inner(c: &Ctx, code: u32) -> Value {
    let (dir, ty, nr, size) = ioc_parts(code);
    let d = if dir == 0 {
        xlat::IOCTL_DIRS
            .lookup(0)
            .map_or(Value::UInt(0), Value::sym)
    } else {
        let (names, rest) = xlat::IOCTL_DIRS.split_flags(dir as u64);
        Value::Flags {
            names,
            rest,
            octal_rest: false,
        }
    };
    let _ = c;
    Value::Call(
        Cow::Borrowed("_IOC"),
        vec![d, xint(ty as u64), xint(nr as u64), xint(size as u64)],
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

/// What a family decoder did with a request's argument.
pub(in crate::syscall) enum Io {
    /// Not a request this family decodes: try the next decoder.
    Pass,
    /// Known, but the argument prints in hex (strace's `RVAL_DECODED`).
    Hex,
    /// The request takes no argument: print none.
    NoArg,
    /// The argument, fully decoded.
    Arg(Value),
    /// Call the family again at exit (it decodes what the kernel wrote).
    Exit,
    /// As `Exit`, keeping 63 bits of entry state for the exit call
    /// (read there with [`exit_state`]).
    ExitWith(u64),

    /// The argument (if any) and how to show the return value.
    Ret(Option<Value>, RetFmt),
}

/// A family decoder: `(ctx, request, argument)`, called at entry and, after
/// [`Io::Exit`], at exit (with `c.exiting()` true).
pub(in crate::syscall) type Family = fn(&mut Ctx, u32, u64) -> Io;

/// What a family kept at entry with [`Io::ExitWith`].
pub(in crate::syscall) fn exit_state(c: &Ctx) -> u64 {
    c.saved >> 1
}

/// The family decoder of a request type byte (strace's `ioctl_decode`).
fn family(ty: u32) -> Option<Family> {
    Some(match ty {
        0x03 => hdio::hdio,
        0x12 => block::block,
        0x15 => fs::fs_0x15,
        0x21 => seccomp::seccomp,
        0x22 => scsi::scsi,
        0x24 => misc::perf,
        0x3d => ptp::ptp,
        0x3e => misc::counter,
        0x45 => evdev::evdev,
        0x4b => kd::kd,
        0x4c => loop_dev::loop_dev,
        0x4d => mtd::mtd,
        0x4f | 0x6f => ubi::ubi,
        0x49 => misc::inotify,
        0x52 => misc::random,
        0x54 => misc::term,
        0x56 => v4l2::v4l2,
        0x57 => misc::watchdog,
        0x58 => fs::fs_x,
        0x66 => fs::fs_f,
        0x69 => misc::lirc,
        0x70 => rtc::rtc,
        0x89 => sock::sock,
        0x94 => btrfs::fs_0x94,
        0xa4 => tee::tee,
        0xaa => uffdio::uffdio,
        0xab => misc::nbd,
        0xae => kvm::kvm,
        0xb4 => gpio::gpio,
        0xb7 => misc::nsfs,
        0xfd => dm::dm,
        _ => return None,
    })
}

/// strace's request table: `(request, name)` sorted by request, then name.
fn ioctlent() -> &'static [(u32, &'static str)] {
    static TABLE: std::sync::OnceLock<Vec<(u32, &'static str)>> = std::sync::OnceLock::new();
    #[cfg(target_arch = "aarch64")]
    const TEXT: &str = rtrace_arch::tables::IOCTLENT_AARCH64;
    #[cfg(not(target_arch = "aarch64"))]
    const TEXT: &str = rtrace_arch::tables::IOCTLENT_X86_64;
    TABLE.get_or_init(|| {
        TEXT.lines()
            .filter_map(|l| {
                let (v, n) = l.split_once(' ')?;
                let v = u32::from_str_radix(v.trim_start_matches("0x"), 16).ok()?;
                Some((v, n))
            })
            .collect()
    })
}

/// All the names of request `code`, in strace's order.
pub(in crate::syscall) fn request_names(code: u32) -> Vec<&'static str> {
    let t = ioctlent();
    let i = t.partition_point(|e| e.0 < code);
    t[i..]
        .iter()
        .take_while(|e| e.0 == code)
        .map(|e| e.1)
        .collect()
}

const IOC_READ: u32 = 2;
const IOC_WRITE: u32 = 1;

/// `_IOC_DIR`, `_IOC_TYPE`, `_IOC_NR`, `_IOC_SIZE` of a request.
pub(in crate::syscall) fn ioc_parts(code: u32) -> (u32, u32, u32, u32) {
    (
        code >> IOC_DIRSHIFT,
        (code >> IOC_TYPESHIFT) & 0xff,
        code & 0xff,
        (code >> IOC_SIZESHIFT) & 0x3fff,
    )
}

/// A name strace builds from a request's number rather than its table
/// (`EVIOCGBIT(EV_KEY, 96)`, `MIXER_WRITE(3)`); `inner` when the text goes
/// inside a `/* */` comment (names only, no nested comments).
fn number_name(c: &Ctx, code: u32, inner: bool) -> Option<String> {
    let (dir, ty, nr, size) = ioc_parts(code);
    let call = |f: &str, a: String| Some(format!("{f}({a})"));
    match ty {
        0x21 if code
            == (IOC_READ << IOC_DIRSHIFT) | (0x21 << IOC_TYPESHIFT) | 2 | (8 << IOC_SIZESHIFT) =>
        {
            Some("SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR".into())
        }
        0x45 => misc::evdev_number(c, dir, nr, size, inner),
        0x48 => {
            let n = match (dir, nr) {
                (IOC_READ, 0x04) => "HIDIOCGRAWNAME",
                (IOC_READ, 0x05) => "HIDIOCGRAWPHYS",
                (IOC_READ, 0x06) => "HIDIOCSFEATURE",
                (IOC_READ, 0x08) => "HIDIOCGRAWUNIQ",
                (IOC_READ, 0x12) => "HIDIOCGPHYS",
                (3, 0x06) => "HIDIOCSFEATURE",
                (3, 0x07) => "HIDIOCGFEATURE",
                _ => return None,
            };
            call(n, size.to_string())
        }
        0x4d if dir == IOC_WRITE => call("MIXER_WRITE", nr.to_string()),
        0x4d if dir == IOC_READ => call("MIXER_READ", nr.to_string()),
        0x55 if dir == IOC_READ && nr == 0x2c => call("UI_GET_SYSNAME", size.to_string()),
        0x6a if dir == IOC_READ && nr == 0x13 => call("JSIOCGNAME", size.to_string()),
        0x6b if dir == IOC_WRITE && nr == 0 => call("SPI_IOC_MESSAGE", size.to_string()),
        _ => None,
    }
}

/// The request as strace names it: the number-built name and the table's
/// names joined by ` or `; `None` when it has none.
fn request_text(c: &Ctx, code: u32, inner: bool) -> Option<String> {
    let mut parts: Vec<String> = number_name(c, code, inner).into_iter().collect();
    let stop = parts
        .first()
        .is_some_and(|p| p.starts_with("SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR"));
    if !stop {
        parts.extend(request_names(code).into_iter().map(String::from));
    }
    (!parts.is_empty()).then(|| parts.join(" or "))
}

/// `ioctl(fd, request, arg)`.
pub(in crate::syscall) fn ioctl(c: &mut Ctx) -> Step {
    let code = c.arg(1) as u32;
    let arg = c.arg_ulong(2);
    let fam = family((code >> IOC_TYPESHIFT) & 0xff);
    if c.exiting() {
        if c.saved & 1 == 1 {
            if let Some(f) = fam {
                return match f(c, code, arg) {
                    Io::Arg(v) => {
                        c.push(v);
                        Step::Done(RetFmt::Int)
                    }
                    Io::NoArg => Step::Done(RetFmt::Int),
                    Io::Ret(v, r) => {
                        if let Some(v) = v {
                            c.push(v);
                        }
                        Step::Done(r)
                    }
                    _ => {
                        c.push(xint(arg));
                        Step::Done(RetFmt::Int)
                    }
                };
            }
        }
        let names = request_names(code);
        let kind = names.last().map_or(IoctlArg::Hex, |n| ioctl_arg(n));
        let v = out_value(c, kind, arg);
        c.push(v);
        return Step::Done(RetFmt::Int);
    }
    c.fd(0);
    let req = match c.opts.xlat_style {
        1 => xint(code as u64),
        0 => match request_text(c, code, false) {
            Some(t) => Value::sym_owned(t),
            None => ioc_value(c, code),
        },
        _ => {
            let t = request_text(c, code, true)
                .unwrap_or_else(|| render_flags(&ioc_value_inner(c, code)));
            Value::Commented(Box::new(xint(code as u64)), Cow::Owned(t))
        }
    };
    c.push(req);
    if let Some(f) = fam {
        match f(c, code, arg) {
            Io::Pass => {}
            Io::Hex => {
                c.push(xint(arg));
                return Step::Done(RetFmt::Int);
            }
            Io::NoArg => return Step::Done(RetFmt::Int),
            Io::Arg(v) => {
                c.push(v);
                return Step::Done(RetFmt::Int);
            }
            Io::Exit => {
                c.saved = 1;
                return Step::Exit;
            }
            Io::ExitWith(v) => {
                c.saved = 1 | v << 1;
                return Step::Exit;
            }

            Io::Ret(v, r) => {
                if let Some(v) = v {
                    c.push(v);
                }
                return Step::Done(r);
            }
        }
    }
    let names = request_names(code);
    let kind = names.last().map_or(IoctlArg::Hex, |n| ioctl_arg(n));
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
    use crate::engine::memory::FakeMemory;
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
