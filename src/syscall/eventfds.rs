//! Event descriptors: eventfd/eventfd2, signalfd/signalfd4, the inotify and
//! fanotify calls (strace's `eventfd.c`, `signalfd.c`, `inotify.c`,
//! `fanotify.c`). The timerfd calls are decoded with the other timers in
//! `time.rs`.

use crate::syscall::file::open_flags_value;
use crate::syscall::printers::{flags_arg, xflags};
use crate::syscall::signal::sigset_at;
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("eventfd", eventfd),
    ("eventfd2", eventfd2),
    ("signalfd", signalfd),
    ("signalfd4", signalfd4),
    ("inotify_init", inotify_init),
    ("inotify_init1", inotify_init1),
    ("inotify_add_watch", inotify_add_watch),
    ("inotify_rm_watch", inotify_rm_watch),
    ("fanotify_init", fanotify_init),
    ("fanotify_mark", fanotify_mark),
];

/// `eventfd(initval)`.
fn eventfd(c: &mut Ctx) -> Step {
    c.uint(0);
    Step::Done(RetFmt::Fd)
}

/// `eventfd2(initval, flags)`.
fn eventfd2(c: &mut Ctx) -> Step {
    c.uint(0);
    flags_arg(c, 1, &xlat::EVENTFD_FLAGS, "EFD_???");
    Step::Done(RetFmt::Fd)
}

/// `signalfd(fd, mask, sizemask)`.
fn signalfd(c: &mut Ctx) -> Step {
    c.fd(0);
    let min = c.arch.word_size() as u64;
    let v = sigset_at(c, c.arg_ulong(1), c.arg_ulong(2), min);
    c.push(v);
    c.ulong(2);
    Step::Done(RetFmt::Fd)
}

/// `signalfd4(fd, mask, sizemask, flags)`.
fn signalfd4(c: &mut Ctx) -> Step {
    signalfd(c);
    flags_arg(c, 3, &xlat::SIGNALFD_FLAGS, "SFD_???");
    Step::Done(RetFmt::Fd)
}

/// `inotify_init()`.
fn inotify_init(_c: &mut Ctx) -> Step {
    Step::Done(RetFmt::Fd)
}

/// `inotify_init1(flags)`.
fn inotify_init1(c: &mut Ctx) -> Step {
    flags_arg(c, 0, &xlat::INOTIFY_INIT_FLAGS, "IN_???");
    Step::Done(RetFmt::Fd)
}

/// `inotify_add_watch(fd, pathname, mask)`.
fn inotify_add_watch(c: &mut Ctx) -> Step {
    c.fd(0);
    c.path(1);
    flags_arg(c, 2, &xlat::INOTIFY_FLAGS, "IN_???");
    Step::Done(RetFmt::Int)
}

/// `inotify_rm_watch(fd, wd)`.
fn inotify_rm_watch(c: &mut Ctx) -> Step {
    c.fd(0);
    c.int(1);
    Step::Done(RetFmt::Int)
}

/// The notification class bits of `fanotify_init` flags.
const FAN_ALL_CLASS_BITS: u64 = 0xc;

/// `fanotify_init(flags, event_f_flags)`: the class, then the other flags.
fn fanotify_init(c: &mut Ctx) -> Step {
    let flags = c.arg(0) as u32 as u64;
    let class = c.enum_value(
        flags & FAN_ALL_CLASS_BITS,
        &xlat::FAN_CLASSES,
        "FAN_CLASS_???",
    );
    let rest = flags & !FAN_ALL_CLASS_BITS;
    let v = if rest == 0 {
        class
    } else {
        let more = xflags(c, rest, &xlat::FAN_INIT_FLAGS, "FAN_???");
        Value::Joined(vec![class, more], "|")
    };
    c.push(v);
    let v = open_flags_value(c, c.arg(1) as u32 as u64);
    c.push(v);
    Step::Done(RetFmt::Fd)
}

/// `fanotify_mark(fd, flags, mask, dirfd, pathname)`: a 64-bit mask takes
/// two arguments on 32-bit personalities.
fn fanotify_mark(c: &mut Ctx) -> Step {
    c.fd(0);
    flags_arg(c, 1, &xlat::FAN_MARK_FLAGS, "FAN_MARK_???");
    let (mask, next) = if c.arch.word_size() == 4 {
        ((c.arg(2) as u32 as u64) | (c.arg(3) as u32 as u64) << 32, 4)
    } else {
        (c.arg(2), 3)
    };
    let v = xflags(c, mask, &xlat::FAN_EVENT_FLAGS, "FAN_???");
    c.push(v);
    if c.arg_int(next) == -1 {
        let v = match c.opts.xlat_style {
            1 => Value::Int(-1),
            2 => Value::Commented(Box::new(Value::Int(-1)), "FAN_NOFD".into()),
            _ => Value::sym("FAN_NOFD"),
        };
        c.push(v);
    } else {
        c.atfd(next);
    }
    c.path(next + 1);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn event_descriptors() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(eventfd2, "eventfd2", &[5, 0o2000000 | 1], 3, &mut m),
            "eventfd2(5, EFD_SEMAPHORE|EFD_CLOEXEC) = 3"
        );
        let set = m.put(&(1u64 << 9).to_le_bytes());
        assert_eq!(
            run(
                signalfd4,
                "signalfd4",
                &[u64::MAX, set, 8, 0o4000],
                4,
                &mut m
            ),
            "signalfd4(-1, [USR1], 8, SFD_NONBLOCK) = 4"
        );
        assert_eq!(
            run(fanotify_init, "fanotify_init", &[1, 0], 3, &mut m),
            "fanotify_init(FAN_CLASS_NOTIF|FAN_CLOEXEC, O_RDONLY) = 3"
        );
        let p = m.put(b"/tmp\0");
        assert_eq!(
            run(
                fanotify_mark,
                "fanotify_mark",
                &[3, 1, 0x20, u64::MAX, p],
                0,
                &mut m
            ),
            "fanotify_mark(3, FAN_MARK_ADD, FAN_OPEN, FAN_NOFD, \"/tmp\") = 0"
        );
    }
}
