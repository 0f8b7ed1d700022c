//! clone, clone3 and `struct clone_args`: the flags with the exit signal,
//! the stack, parent/child tid pointers, tls, pidfd and cgroup fields.

use crate::syscall::ctx::PidKind;
use crate::syscall::printers::{le64, num_at, xflags, xint};
use crate::syscall::process::named;
use crate::syscall::signal::sig_value;
use crate::syscall::{Ctx, Field, RetFmt, Step, Value};
use rtrace_arch::{xlat, Arch};
use std::borrow::Cow;

// ---- unshare ----

/// The flags `unshare` takes, in strace's order (`unshare_flags`).
static UNSHARE_FLAGS: rtrace_arch::Xlat = rtrace_arch::Xlat {
    name: "unshare_flags",
    kind: rtrace_arch::xlat::XlatKind::Flags,
    entries: &[
        (0x80, "CLONE_NEWTIME"),
        (0x100, "CLONE_VM"),
        (0x200, "CLONE_FS"),
        (0x400, "CLONE_FILES"),
        (0x800, "CLONE_SIGHAND"),
        (0x10000, "CLONE_THREAD"),
        (0x20000, "CLONE_NEWNS"),
        (0x40000, "CLONE_SYSVSEM"),
        (0x0200_0000, "CLONE_NEWCGROUP"),
        (0x0400_0000, "CLONE_NEWUTS"),
        (0x0800_0000, "CLONE_NEWIPC"),
        (0x1000_0000, "CLONE_NEWUSER"),
        (0x2000_0000, "CLONE_NEWPID"),
        (0x4000_0000, "CLONE_NEWNET"),
    ],
};

/// `unshare(flags)`: all the bits of the long, `CLONE_???` when none is known.
pub(in crate::syscall::process) fn unshare(c: &mut Ctx) -> Step {
    let v = xflags(c, c.arg_ulong(0), &UNSHARE_FLAGS, "CLONE_???");
    c.push(v);
    Step::Done(RetFmt::Int)
}

// ---- clone ----

/// clone flags that make strace wait for the exit to print more.
const CLONE_PIDFD: u64 = 0x1000;
const CLONE_SETTLS: u64 = 0x0008_0000;
const CLONE_PARENT_SETTID: u64 = 0x0010_0000;
const CLONE_CHILD_CLEARTID: u64 = 0x0020_0000;
const CLONE_CHILD_SETTID: u64 = 0x0100_0000;
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;
const CSIGNAL: u64 = 0xff;

/// Argument positions of clone's pointers, which differ by personality.
struct CloneArgs {
    ptid: usize,
    ctid: usize,
    tls: usize,
}

/// clone's pointer argument positions for `arch`.
fn clone_args(arch: Arch) -> CloneArgs {
    match arch {
        // x86_64 swaps the last two arguments relative to the generic order.
        Arch::X86_64 => CloneArgs {
            ptid: 2,
            ctid: 3,
            tls: 4,
        },
        Arch::I386 | Arch::Aarch64 => CloneArgs {
            ptid: 2,
            ctid: 4,
            tls: 3,
        },
    }
}

/// `flags=CLONE_VM|...|SIGCHLD`: the flags, then the exit signal.
fn clone_flags_value(c: &Ctx, raw: u64) -> Value {
    let style = c.opts.xlat_style;
    let flags = raw & !CSIGNAL;
    let sig = (raw & CSIGNAL) as i64;
    let sigv = sig_value(style, sig);
    if flags == 0 {
        return sigv;
    }
    let f = xflags(c, flags, &xlat::CLONE_FLAGS, "CLONE_???");
    if sig == 0 {
        return f;
    }
    Value::Joined(vec![f, sigv], "|")
}

/// `clone(child_stack=…, flags=…, parent_tid=[…], tls=…, child_tidptr=…)`.
pub(in crate::syscall::process) fn clone(c: &mut Ctx) -> Step {
    let raw = c.arg_ulong(0);
    let flags = raw & !CSIGNAL;
    let pos = clone_args(c.arch);
    if c.entering() {
        c.push(named("child_stack=", Value::Ptr(c.arg_ulong(1))));
        let v = clone_flags_value(c, raw);
        c.push(named("flags=", v));
        let later = CLONE_PARENT_SETTID
            | CLONE_PIDFD
            | CLONE_CHILD_SETTID
            | CLONE_CHILD_CLEARTID
            | CLONE_SETTLS;
        if flags & later == 0 {
            return Step::Done(RetFmt::Id(PidKind::Tid));
        }
        c.sep_at_exit = true;
        return Step::Exit;
    }
    if flags & (CLONE_PARENT_SETTID | CLONE_PIDFD) != 0 {
        let addr = c.arg_ulong(pos.ptid);
        let v = if c.failed() {
            Value::Ptr(addr)
        } else if flags & CLONE_PARENT_SETTID != 0 {
            num_at(c, addr, 4, true)
        } else {
            fd_at(c, addr)
        };
        c.push(named("parent_tid=", v));
    }
    if flags & CLONE_SETTLS != 0 {
        c.push(named("tls=", Value::Ptr(c.arg_ulong(pos.tls))));
    }
    if flags & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID) != 0 {
        c.push(named("child_tidptr=", Value::Ptr(c.arg_ulong(pos.ctid))));
    }
    Step::Done(RetFmt::Id(PidKind::Tid))
}

/// strace's `printnum_fd`: `[4]` (with the path under `-y`).
fn fd_at(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    match c.read_pod::<i32>(addr) {
        Some(fd) => {
            let v = c.fd_value(fd as i64);
            Value::Array(vec![v], false)
        }
        None => Value::Unreadable(addr),
    }
}

/// The size of `struct clone_args` strace knows, and the part that must exist.
const CLONE_ARGS_SIZE: u64 = 88;
const CLONE_ARGS_MIN: u64 = 64;

/// `clone3({flags=…, …} => {parent_tid=[…]}, size)`. Decoded wholly at exit
/// when the kernel writes something back, so the `=>` part joins the struct.
pub(in crate::syscall::process) fn clone3(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(0);
    let size = c.arg_ulong(1);
    let fetch = size.min(CLONE_ARGS_SIZE);
    let bytes = if fetch < CLONE_ARGS_MIN {
        None
    } else {
        c.read_bytes(addr, fetch as usize)
    };
    let flags = bytes.as_deref().map_or(0, |b| le64(b, 0));
    // A structure larger than the one known: its tail is shown (strace's
    // print_nonzero_bytes), at entry and again at exit.
    let larger = bytes.is_some() && size > fetch;
    let writes_back = flags & (CLONE_PIDFD | CLONE_PARENT_SETTID) != 0 || larger;
    if c.entering() && writes_back {
        return Step::Exit;
    }
    let v = match &bytes {
        None if fetch < CLONE_ARGS_MIN => Value::Ptr(addr),
        None => Value::Unreadable(addr),
        Some(b) => {
            let mut v = clone_args_value(c, b, fetch);
            if let (true, Value::Struct(f, _)) = (larger, &mut v) {
                if let Some(t) = tail(c, addr, fetch, size) {
                    f.push(t);
                }
            }
            v
        }
    };
    let v = if c.exiting() && writes_back && !c.failed() {
        let mut f = Vec::new();
        if flags & CLONE_PIDFD != 0 {
            let pfd = le64(bytes.as_deref().unwrap_or(&[]), 8);
            f.push(Field::new("pidfd", fd_at(c, pfd)));
        }
        if flags & CLONE_PARENT_SETTID != 0 {
            let ptid = le64(bytes.as_deref().unwrap_or(&[]), 24);
            f.push(Field::new("parent_tid", num_at(c, ptid, 4, true)));
        }
        if larger {
            f.extend(tail(c, addr, fetch, size));
        }
        if f.is_empty() {
            v
        } else {
            Value::Changed(Box::new(v), Box::new(Value::structure(f)))
        }
    } else {
        v
    };
    c.push(v);
    c.ulong(1);
    Step::Done(RetFmt::Id(PidKind::Tid))
}

/// The bytes of a `struct clone_args` beyond the known size, up to a page:
/// nothing when all zero, `/* bytes 88..95 */ "\x…"` otherwise, `???`
/// when they cannot be read.
fn tail(c: &mut Ctx, addr: u64, fetch: u64, size: u64) -> Option<Field> {
    let t = crate::syscall::printers::nonzero_bytes(c, addr, fetch, size.min(4096))?;
    let t = if t == Value::Unknown {
        Value::sym("???")
    } else {
        t
    };
    Some(Field {
        name: Cow::Borrowed(""),
        value: t,
    })
}

/// The fields of `struct clone_args` strace prints.
fn clone_args_value(c: &mut Ctx, b: &[u8], fetch: u64) -> Value {
    let flags = le64(b, 0);
    let ptr = |off| Value::Ptr(le64(b, off));
    let mut f = vec![Field::new("flags", clone3_flags_value(c, flags))];
    if flags & CLONE_PIDFD != 0 {
        f.push(Field::new("pidfd", ptr(8)));
    }
    if flags & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID) != 0 {
        f.push(Field::new("child_tid", ptr(16)));
    }
    if flags & CLONE_PARENT_SETTID != 0 {
        f.push(Field::new("parent_tid", ptr(24)));
    }
    let exit_signal = le64(b, 32);
    let sig = if exit_signal < i32::MAX as u64 {
        sig_value(c.opts.xlat_style, exit_signal as i64)
    } else {
        Value::UInt(exit_signal)
    };
    f.push(Field::new("exit_signal", sig));
    f.push(Field::new("stack", ptr(40)));
    f.push(Field::new("stack_size", xint(le64(b, 48))));
    if flags & CLONE_SETTLS != 0 {
        f.push(Field::new("tls", ptr(56)));
    }
    let (set_tid, set_tid_size) = (le64(b, 64), le64(b, 72));
    if fetch > 64 && (set_tid != 0 || set_tid_size != 0) {
        // Up to 32 pids are shown as the array they are, as strace does.
        let arr = (set_tid != 0 && (1..=32).contains(&set_tid_size))
            .then(|| c.read_data(set_tid, set_tid_size as usize * 4))
            .flatten()
            .map(|v| {
                Value::Array(
                    v.chunks_exact(4)
                        .map(|x| Value::Int(i32::from_le_bytes([x[0], x[1], x[2], x[3]]) as i64))
                        .collect(),
                    false,
                )
            });
        f.push(Field::new("set_tid", arr.unwrap_or(Value::Ptr(set_tid))));
        f.push(Field::new("set_tid_size", Value::UInt(set_tid_size)));
    }
    let cgroup = le64(b, 80);
    if fetch > 80 && (cgroup != 0 || flags & CLONE_INTO_CGROUP != 0) {
        f.push(Field::new("cgroup", Value::UInt(cgroup)));
    }
    Value::structure(f)
}

/// clone3's 64-bit flags: `clone_flags` then `clone3_flags` names.
fn clone3_flags_value(c: &Ctx, flags: u64) -> Value {
    if c.opts.xlat_style == 1 || flags == 0 {
        return xint(flags);
    }
    let (mut names, rest) = xlat::CLONE_FLAGS.split_flags(flags);
    let (more, rest) = xlat::CLONE3_FLAGS.split_flags(rest);
    names.extend(more);
    if names.is_empty() {
        return Value::Commented(Box::new(xint(flags)), Cow::Borrowed("CLONE_???"));
    }
    let v = Value::Flags {
        names,
        rest,
        octal_rest: false,
    };
    if c.opts.xlat_style == 2 {
        return Value::Commented(
            Box::new(xint(flags)),
            Cow::Owned(crate::syscall::ctx::render_flags(&v)),
        );
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn clones() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(clone, "clone", &[0x0120_0011, 0, 0, 0x7f49_c6de_ca10, 0], 7718, &mut m),
            "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f49c6deca10) = 7718"
        );
        let ptid = m.put(&1235u32.to_le_bytes());
        assert_eq!(
            run(clone, "clone", &[0x003d_0f00, 0x7f00_0000_1000, ptid, 0x7f00_0000_2000, 0x7f00_0000_3000], 1235, &mut m),
            format!("clone(child_stack=0x7f0000001000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tid=[1235], tls=0x7f0000003000, child_tidptr=0x7f0000002000) = 1235")
        );
        assert_eq!(
            run(clone, "clone", &[0x4111, 0, 0, 0, 0], 9, &mut m),
            "clone(child_stack=NULL, flags=CLONE_VM|CLONE_VFORK|SIGCHLD) = 9"
        );
        assert_eq!(
            run(clone, "clone", &[17, 0, 0, 0, 0], 9, &mut m),
            "clone(child_stack=NULL, flags=SIGCHLD) = 9"
        );
        let _ = ptid;
    }

    #[test]
    fn clone3s() {
        let mut m = FakeMemory::default();
        let pidfd = m.put(&4u32.to_le_bytes());
        let mut a = vec![0u8; 88];
        a[..8].copy_from_slice(&(0x1_0000_1000u64).to_le_bytes());
        a[8..16].copy_from_slice(&pidfd.to_le_bytes());
        a[32..40].copy_from_slice(&17u64.to_le_bytes());
        let args = m.put(&a);
        assert_eq!(
            run(clone3, "clone3", &[args, 88], 15472, &mut m),
            format!("clone3({{flags=CLONE_PIDFD|CLONE_CLEAR_SIGHAND, pidfd={pidfd:#x}, exit_signal=SIGCHLD, stack=NULL, stack_size=0}} => {{pidfd=[4]}}, 88) = 15472")
        );
        let mut b = vec![0u8; 88];
        b[..8].copy_from_slice(&(0x0120_0000u64).to_le_bytes());
        b[16..24].copy_from_slice(&0x7f00u64.to_le_bytes());
        b[32..40].copy_from_slice(&17u64.to_le_bytes());
        b[48..56].copy_from_slice(&0x7fff80u64.to_le_bytes());
        let args = m.put(&b);
        assert_eq!(
            run(clone3, "clone3", &[args, 88], 5, &mut m),
            "clone3({flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID, child_tid=0x7f00, exit_signal=SIGCHLD, stack=NULL, stack_size=0x7fff80}, 88) = 5"
        );
        assert_eq!(
            run(clone3, "clone3", &[args, 8], -22, &mut m),
            format!("clone3({args:#x}, 8) = -1 EINVAL (Invalid argument)")
        );
    }

    #[test]
    fn unshare_flags() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(unshare, "unshare", &[0x0200_0000], 0, &mut m),
            "unshare(CLONE_NEWCGROUP) = 0"
        );
        assert_eq!(
            run(unshare, "unshare", &[0xbadc0ded_0000000f], -22, &mut m),
            "unshare(0xbadc0ded0000000f /* CLONE_??? */) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(
                unshare,
                "unshare",
                &[0x80 | 0x200 | 0x1_0000_0000],
                -22,
                &mut m
            ),
            "unshare(CLONE_NEWTIME|CLONE_FS|0x100000000) = -1 EINVAL (Invalid argument)"
        );
    }
}
