//! Waiting on descriptors: poll, ppoll, select, pselect6 and the epoll
//! calls (strace's `poll.c`, `desc.c`, `epoll.c`). Ready sets print after
//! the return value as strace prints them: `= 1 ([{fd=3, revents=POLLIN}],
//! left {tv_sec=0, tv_nsec=99000})`, `= 1 (in [3], left {...})`, or
//! `(Timeout)`.

use crate::syscall::array::array_at;
use crate::syscall::ctx::render_flags;
use crate::syscall::printers::{enum_arg, flags_arg, le32, le64, xflags};
use crate::syscall::signal::sigset_at;
use crate::syscall::{Ctx, Decoder, Field, Ret, RetFmt, Step, Value};
use rtrace_arch::{xlat, Arch};
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("poll", poll),
    ("ppoll", ppoll),
    ("ppoll_time64", ppoll64),
    ("select", select),
    ("_newselect", newselect),
    ("pselect6", pselect6),
    ("pselect6_time64", pselect6_64),
    ("epoll_create", epoll_create),
    ("epoll_create1", epoll_create1),
    ("epoll_ctl", epoll_ctl),
    ("epoll_wait", epoll_wait),
    ("epoll_pwait", epoll_pwait),
    ("epoll_pwait2", epoll_pwait2),
];

/// A `{tv_sec, tv_nsec|tv_usec}` pair of `w`-byte fields at `addr`.
fn time_at(c: &mut Ctx, addr: u64, w: usize, sub: &'static str) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let Some(b) = c.read_bytes(addr, 2 * w) else {
        return Value::Unreadable(addr);
    };
    let (s, n) = if w == 4 {
        (le32(&b, 0) as u32 as i32 as i64, le32(&b, 4))
    } else {
        (le64(&b, 0) as i64, le64(&b, 8))
    };
    Value::structure(vec![
        Field::new("tv_sec", Value::Int(s)),
        Field::new(sub, Value::UInt(n)),
    ])
}

/// A return value with strace's auxiliary string: `= N (note)`.
fn annotated(r: i64, note: String) -> Step {
    Step::Done(RetFmt::Value(Ret::Annotated(
        Box::new(Ret::Int(r)),
        Cow::Owned(note),
    )))
}

// ---- poll / ppoll ----

/// The size of strace's buffer for the ready sets after the return value.
const OUTSTR: usize = 1024;

/// The pollfd array and `nfds`.
fn poll_entry(c: &mut Ctx) {
    let nfds = c.arg(1) as u32 as u64;
    let v = array_at(c, c.arg_ulong(0), nfds, 8, |c, b| {
        let fd = le32(b, 0) as u32 as i32 as i64;
        let mut f = vec![Field::new("fd", c.fd_value(fd))];
        if fd >= 0 {
            let ev = xflags(
                c,
                b[4] as u64 | (b[5] as u64) << 8,
                &xlat::POLL_EVENTS,
                "POLL???",
            );
            f.push(Field::new("events", ev));
        }
        Some(Value::structure(f))
    });
    c.push(v);
    c.push(Value::UInt(nfds));
}

/// strace's `decode_poll_exiting`: the ready descriptors (and the time
/// left when `tmo` points to a timeout of `w`-byte fields).
fn poll_exit(c: &mut Ctx, tmo: Option<(u64, usize)>) -> Step {
    if c.failed() {
        return Step::Done(RetFmt::Int);
    }
    let r = c.retval();
    if r == 0 {
        return annotated(r, "Timeout".into());
    }
    let (start, nfds) = (c.arg_ulong(0), c.arg(1) as u32 as u64);
    let mut s = String::new();
    if start != 0 && nfds != 0 && start.checked_add(8 * nfds).is_some() {
        let mut raw = vec![0u8; (8 * nfds.min(1 << 20)) as usize];
        let got = c.mem.read(start, &mut raw) / 8;
        let mut printed = 0u64;
        for i in 0..nfds.min(1 << 20) as usize {
            let sep = if s.is_empty() { "[" } else { ", " };
            if i >= got {
                s.push_str(sep);
                s.push_str(&format!("{:#x}", start + 8 * i as u64));
                break;
            }
            let b = &raw[8 * i..8 * i + 8];
            let revents = b[6] as u64 | (b[7] as u64) << 8;
            if revents == 0 {
                continue;
            }
            s.push_str(sep);
            if !c.opts.verbose && printed + 1 > c.opts.string_limit as u64 {
                s.push_str("...");
                break;
            }
            let fl = render_flags(&c.flags_value(revents, &xlat::POLL_EVENTS));
            let fdstr = format!("{{fd={}, revents=", le32(b, 0) as u32 as i32);
            // strace formats into a 1024-byte buffer and stops with `...`
            // where the next entry would not leave room for the tail.
            if s.len() + fdstr.len() + fl.len() + 1 >= OUTSTR - (2 + 2 * 8 + 9) {
                s.push_str("...");
                break;
            }
            s.push_str(&fdstr);
            s.push_str(&fl);
            s.push('}');
            printed += 1;
        }
        if !s.is_empty() {
            s.push(']');
        }
    }
    if let Some((addr, w)) = tmo.filter(|t| t.0 != 0) {
        let left = render_flags(&time_at(c, addr, w, "tv_nsec"));
        s.push_str(if s.is_empty() { "left " } else { ", left " });
        s.push_str(&left);
    }
    if s.is_empty() {
        return Step::Done(RetFmt::Int);
    }
    annotated(r, s)
}

/// `poll(fds, nfds, timeout)`.
fn poll(c: &mut Ctx) -> Step {
    if c.entering() {
        poll_entry(c);
        c.int(2);
        return Step::Exit;
    }
    poll_exit(c, None)
}

/// `ppoll(fds, nfds, tmo_p, sigmask, sigsetsize)` with `w`-byte timespec fields.
fn do_ppoll(c: &mut Ctx, w: usize) -> Step {
    if c.entering() {
        poll_entry(c);
        let v = time_at(c, c.arg_ulong(2), w, "tv_nsec");
        c.push(v);
        let min = c.arch.word_size() as u64;
        let v = sigset_at(c, c.arg_ulong(3), c.arg_ulong(4), min);
        c.push(v);
        c.ulong(4);
        return Step::Exit;
    }
    poll_exit(c, Some((c.arg_ulong(2), w)))
}

fn ppoll(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_ppoll(c, w)
}

fn ppoll64(c: &mut Ctx) -> Step {
    do_ppoll(c, 8)
}

// ---- select / pselect6 ----

/// The set bits below `nfds` of a descriptor set.
fn set_bits(b: &[u8], nfds: usize) -> impl Iterator<Item = usize> + '_ {
    (0..nfds).filter(move |&j| b.get(j / 8).is_some_and(|x| x & (1 << (j % 8)) != 0))
}

/// strace's `decode_select` (`tw`-byte timeout fields, `sub` their second
/// member): the sets at entry, the ready sets at exit.
fn decode_select(c: &mut Ctx, tw: usize, sub: &'static str) -> Step {
    let nfds = (c.arg(0) as u32 as i32).clamp(0, 1024 * 1024) as usize;
    let w = c.arch.word_size();
    let fdsize = (nfds.div_ceil(8) + w - 1) & !(w - 1);
    if c.entering() {
        c.int(0);
        for i in 1..4 {
            let addr = c.arg_ulong(i);
            if fdsize == 0 || addr == 0 {
                c.push(Value::Ptr(addr));
                continue;
            }
            let v = match c.read_bytes(addr, fdsize) {
                Some(b) => {
                    let items: Vec<Value> =
                        set_bits(&b, nfds).map(|j| c.fd_value(j as i64)).collect();
                    Value::Joined(
                        vec![Value::sym("["), Value::Joined(items, " "), Value::sym("]")],
                        "",
                    )
                }
                None => Value::Unreadable(addr),
            };
            c.push(v);
        }
        let v = time_at(c, c.arg_ulong(4), tw, sub);
        c.push(v);
        return Step::Exit;
    }
    if c.failed() {
        return Step::Done(RetFmt::Int);
    }
    let r = c.retval();
    if r == 0 {
        return annotated(r, "Timeout".into());
    }
    let mut ready = r;
    let mut s = String::new();
    let mut sep = "";
    for i in 0..3 {
        if ready <= 0 {
            break;
        }
        let addr = c.arg_ulong(i + 1);
        if addr == 0 || fdsize == 0 {
            continue;
        }
        let Some(b) = c.read_bytes(addr, fdsize) else {
            continue;
        };
        let mut first = true;
        for j in set_bits(&b, nfds) {
            // strace's 1024-byte buffer: members past its end are counted
            // but not shown.
            if s.len() >= OUTSTR - (11 + 12 + 2) {
                ready -= 1;
                if ready == 0 {
                    break;
                }
                continue;
            }
            if first {
                let name = ["in", "out", "except"][i];
                s.push_str(&format!("{sep}{name} [{j}"));
                first = false;
                sep = ", ";
            } else {
                s.push_str(&format!(" {j}"));
            }
            ready -= 1;
            if ready == 0 {
                break;
            }
        }
        if !s.is_empty() {
            s.push(']');
        }
    }
    if c.arg_ulong(4) != 0 {
        let left = render_flags(&time_at(c, c.arg_ulong(4), tw, sub));
        s.push_str(&format!("{sep}left {left}"));
    }
    annotated(r, s)
}

/// `select(nfds, readfds, writefds, exceptfds, timeout)`. On i386, number
/// 82 (`select`) is the old form taking a pointer to the five arguments
/// (strace's `oldselect`); `_newselect` is the direct one.
fn select(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    if c.arch == Arch::I386 {
        // The argument block's address, kept from entry: the argument
        // registers are replaced by its contents below.
        const KEPT: u64 = 1 << 63;
        let addr = if c.exiting() && c.saved & KEPT != 0 {
            c.saved & !KEPT
        } else {
            c.arg_ulong(0)
        };
        c.saved = addr | KEPT;
        let Some(b) = c.read_bytes(addr, 20) else {
            if c.entering() {
                c.push(Value::Ptr(addr));
            }
            return Step::Done(RetFmt::Int);
        };
        for i in 0..5 {
            c.args[i] = le32(&b, 4 * i);
        }
    }
    decode_select(c, w, "tv_usec")
}

/// `_newselect`: i386's direct select.
fn newselect(c: &mut Ctx) -> Step {
    decode_select(c, 4, "tv_usec")
}

/// `pselect6(…, timeout, sig)`: `sig` points to `{sigmask, sigsetsize}`.
fn do_pselect6(c: &mut Ctx, tw: usize) -> Step {
    let step = decode_select(c, tw, "tv_nsec");
    if c.entering() {
        let addr = c.arg_ulong(5);
        let w = c.arch.word_size();
        let v = if addr == 0 {
            Value::Ptr(0)
        } else {
            match c.read_bytes(addr, 2 * w) {
                Some(b) => {
                    let (p, n) = if w == 4 {
                        (le32(&b, 0), le32(&b, 4))
                    } else {
                        (le64(&b, 0), le64(&b, 8))
                    };
                    let mask = sigset_at(c, p, n, w as u64);
                    Value::structure(vec![
                        Field::new("sigmask", mask),
                        Field::new("sigsetsize", Value::UInt(n)),
                    ])
                }
                None => Value::Unreadable(addr),
            }
        };
        c.push(v);
    }
    step
}

fn pselect6(c: &mut Ctx) -> Step {
    let w = c.arch.word_size();
    do_pselect6(c, w)
}

fn pselect6_64(c: &mut Ctx) -> Step {
    do_pselect6(c, 8)
}

// ---- epoll ----

/// `epoll_create(size)`.
fn epoll_create(c: &mut Ctx) -> Step {
    c.int(0);
    Step::Done(RetFmt::Fd)
}

/// `epoll_create1(flags)`.
fn epoll_create1(c: &mut Ctx) -> Step {
    flags_arg(c, 0, &xlat::EPOLL_FLAGS, "EPOLL_???");
    Step::Done(RetFmt::Fd)
}

/// `sizeof(struct epoll_event)`: packed on x86, padded elsewhere.
fn epoll_event_size(c: &Ctx) -> usize {
    match c.arch {
        Arch::X86_64 | Arch::I386 => 12,
        Arch::Aarch64 => 16,
    }
}

/// `{events=EPOLLIN, data={u32=N, u64=N}}`.
fn epoll_event_value(c: &Ctx, b: &[u8]) -> Value {
    let data_off = if epoll_event_size(c) == 12 { 4 } else { 8 };
    let data = le64(b, data_off);
    Value::structure(vec![
        Field::new(
            "events",
            xflags(c, le32(b, 0), &xlat::EPOLL_EVENTS, "EPOLL???"),
        ),
        Field::new(
            "data",
            Value::structure(vec![
                Field::new("u32", Value::UInt(data as u32 as u64)),
                Field::new("u64", Value::UInt(data)),
            ]),
        ),
    ])
}

/// `epoll_ctl(epfd, op, fd, event)`.
fn epoll_ctl(c: &mut Ctx) -> Step {
    c.fd(0);
    enum_arg(c, 1, &xlat::EPOLL_CTL_OPS, "EPOLL_CTL_???");
    c.fd(2);
    let addr = c.arg_ulong(3);
    let v = if c.arg(1) as u32 == 2 || addr == 0 {
        Value::Ptr(addr)
    } else {
        let size = epoll_event_size(c);
        match c.read_bytes(addr, size) {
            Some(b) => epoll_event_value(c, &b),
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// The exit half of the epoll_wait family: events, maxevents.
fn epoll_wait_exit(c: &mut Ctx) {
    let size = epoll_event_size(c);
    let n = if c.failed() {
        u64::MAX
    } else {
        c.retval() as u64
    };
    let v = array_at(c, c.arg_ulong(1), n, size, |c, b| {
        Some(epoll_event_value(c, b))
    });
    c.push(v);
    c.int(2);
}

/// `epoll_wait(epfd, events, maxevents, timeout)`.
fn epoll_wait(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    epoll_wait_exit(c);
    c.int(3);
    Step::Done(RetFmt::Int)
}

/// The sigmask and sigsetsize of epoll_pwait/epoll_pwait2.
fn epoll_sigmask(c: &mut Ctx) {
    let min = c.arch.word_size() as u64;
    let v = sigset_at(c, c.arg_ulong(4), c.arg_ulong(5), min);
    c.push(v);
    c.ulong(5);
}

/// `epoll_pwait(epfd, events, maxevents, timeout, sigmask, sigsetsize)`.
fn epoll_pwait(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    epoll_wait_exit(c);
    c.int(3);
    epoll_sigmask(c);
    Step::Done(RetFmt::Int)
}

/// `epoll_pwait2(epfd, events, maxevents, timeout, sigmask, sigsetsize)`.
fn epoll_pwait2(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    epoll_wait_exit(c);
    // Read at exit, like strace: a failed call shows the address.
    let addr = c.arg_ulong(3);
    let v = if c.failed() {
        Value::Ptr(addr)
    } else {
        time_at(c, addr, 8, "tv_nsec")
    };
    c.push(v);
    epoll_sigmask(c);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn poll_ready_sets() {
        let mut m = FakeMemory::default();
        let mut fds = Vec::new();
        for (fd, ev, rev) in [(3i32, 5u16, 4u16), (-1, 1, 0), (4, 4, 4)] {
            fds.extend_from_slice(&fd.to_le_bytes());
            fds.extend_from_slice(&ev.to_le_bytes());
            fds.extend_from_slice(&rev.to_le_bytes());
        }
        let a = m.put(&fds);
        assert_eq!(
            run(poll, "poll", &[a, 3, 0], 2, &mut m),
            "poll([{fd=3, events=POLLIN|POLLOUT}, {fd=-1}, {fd=4, events=POLLOUT}], 3, 0) \
             = 2 ([{fd=3, revents=POLLOUT}, {fd=4, revents=POLLOUT}])"
        );
        assert_eq!(
            run(poll, "poll", &[a, 1, 0], 0, &mut m),
            "poll([{fd=3, events=POLLIN|POLLOUT}], 1, 0) = 0 (Timeout)"
        );
    }

    #[test]
    fn i386_old_select_reads_its_arguments() {
        use crate::syscall::testutil::{run_env, Env};
        let mut m = FakeMemory::default();
        let w = m.put(&0x2u32.to_le_bytes());
        let tv = m.put(&[0, 0, 0, 0, 0xe8, 3, 0, 0]);
        let mut args = Vec::new();
        for v in [2u32, 0, w as u32, 0, tv as u32] {
            args.extend_from_slice(&v.to_le_bytes());
        }
        let a = m.put(&args);
        let env = Env {
            arch: Arch::I386,
            ..Env::default()
        };
        assert_eq!(
            run_env(select, "select", &[a], 1, &mut m, &env),
            "select(2, NULL, [1], NULL, {tv_sec=0, tv_usec=1000}) = 1 \
             (out [1], left {tv_sec=0, tv_usec=1000})"
        );
    }

    #[test]
    fn select_sets() {
        let mut m = FakeMemory::default();
        let r = m.put(&0x8u64.to_le_bytes());
        let w = m.put(&0x18u64.to_le_bytes());
        let tv = m.put(&crate::syscall::testutil::pair(0, 500));
        assert_eq!(
            run(select, "select", &[5, r, w, 0, tv], 2, &mut m),
            "select(5, [3], [3 4], NULL, {tv_sec=0, tv_usec=500}) = 2 \
             (in [3], out [3], left {tv_sec=0, tv_usec=500})"
        );
    }
}
