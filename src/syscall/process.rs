//! Process lifecycle: execve/execveat, clone/clone3/fork/vfork, wait4/waitid,
//! exit/exit_group, kill/tkill/tgkill, the id getters (getpid, getuid, …,
//! getpgid, setpgid, getsid, setsid), set_tid_address and the robust futex
//! list calls.
//!
//! Limits of the one-line model: strace ends the entry part of `clone` and
//! `clone3` without a separator (`clone(..., flags=... <unfinished ...>`,
//! `<... clone resumed>, child_tidptr=...`); here `clone` pushes its exit
//! arguments normally and `clone3` decodes everything at exit, which is
//! exact whenever the line is not interrupted by another thread's.

use super::printers::{flags_arg, le32, le64, num_at, xflags, xint};
use super::resource::rusage_at;
use super::signal::{sig_arg, sig_value, siginfo_at};
use super::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::{xlat, Arch};
use std::borrow::Cow;

pub(super) const DECODERS: &[(&str, Decoder)] = &[
    ("execve", execve),
    ("execveat", execveat),
    ("clone", clone),
    ("clone3", clone3),
    ("fork", pid_ret),
    ("vfork", pid_ret),
    ("wait4", wait4),
    ("waitid", waitid),
    ("exit", exit),
    ("exit_group", exit),
    ("kill", kill),
    ("tkill", kill),
    ("tgkill", tgkill),
    ("getpid", pid_ret),
    ("getppid", pid_ret),
    ("gettid", pid_ret),
    ("getuid", no_args),
    ("geteuid", no_args),
    ("getgid", no_args),
    ("getegid", no_args),
    ("getpgrp", no_args),
    ("setsid", no_args),
    ("getpgid", one_pid),
    ("getsid", one_pid),
    ("setpgid", two_pids),
    ("set_tid_address", set_tid_address),
    ("set_robust_list", set_robust_list),
    ("get_robust_list", get_robust_list),
];

/// An argument printed with its name, as strace prints clone's:
/// `child_stack=NULL`.
pub(super) fn named(name: &'static str, v: Value) -> Value {
    Value::Joined(vec![Value::sym(name), v], "")
}

/// A call whose arguments are ignored (`getpid()`, `fork()`).
fn no_args(_: &mut Ctx) -> Step {
    Step::Done(RetFmt::Int)
}

/// A call that returns a process or thread id (`getpid()`, `fork()`).
fn pid_ret(_: &mut Ctx) -> Step {
    Step::Done(RetFmt::Pid)
}

/// `getpgid(pid)`, `getsid(pid)`.
fn one_pid(c: &mut Ctx) -> Step {
    c.pid(0);
    Step::Done(RetFmt::Int)
}

/// `setpgid(pid, pgid)`.
fn two_pids(c: &mut Ctx) -> Step {
    c.pid(0);
    c.pid(1);
    Step::Done(RetFmt::Int)
}

// ---- execve ----

/// Reads NUL-terminated arrays of tracee words at `addr`, page by page:
/// returns the words before the terminating zero (at most `max`), whether
/// the zero was found, and the address of the first unreadable word, if any.
fn read_words(c: &mut Ctx, addr: u64, max: usize) -> (Vec<u64>, bool, Option<u64>) {
    let w = c.arch.word_size() as u64;
    let mut out = Vec::new();
    let mut a = addr;
    while out.len() < max {
        let page_left = 4096 - (a % 4096);
        let n = (page_left / w).max(1).min((max - out.len()) as u64) as usize;
        let mut buf = vec![0u8; n * w as usize];
        let got = c.mem.read(a, &mut buf) / w as usize;
        for i in 0..got {
            let word = if w == 4 {
                le32(&buf, 4 * i)
            } else {
                le64(&buf, 8 * i)
            };
            if word == 0 {
                return (out, true, None);
            }
            out.push(word);
        }
        if got < n {
            return (out, false, Some(a + got as u64 * w));
        }
        a = match a.checked_add(n as u64 * w) {
            Some(next) => next,
            None => return (out, false, Some(a)),
        };
    }
    (out, false, None)
}

/// strace's `printargv`: `["ls", "-l"]`, cut after `-s` elements unless
/// `-v`; the address when nothing is readable.
fn argv_value(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 || !c.opts.deref {
        return Value::Ptr(addr);
    }
    let limit = if c.opts.verbose {
        usize::MAX
    } else {
        c.opts.string_limit
    };
    let (words, _, fault) = read_words(c, addr, limit.saturating_add(1).min(1 << 20));
    if words.is_empty() {
        if let Some(f) = fault {
            if f == addr {
                return Value::Ptr(addr);
            }
        }
    }
    let more = words.len() > limit;
    let mut items: Vec<Value> = words
        .into_iter()
        .take(limit)
        .map(|p| c.cstr_value(p))
        .collect();
    if let Some(f) = fault {
        items.push(Value::Commented(
            Box::new(Value::sym("...")),
            Cow::Owned(format!("{f:#x}")),
        ));
        return Value::Array(items, false);
    }
    Value::Array(items, more)
}

/// strace's `printargc`: `0x7ffd… /* 23 vars */`.
fn envc_value(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 || !c.opts.deref {
        return Value::Ptr(addr);
    }
    let (words, _, fault) = read_words(c, addr, 1 << 20);
    let n = words.len();
    if n == 0 && fault == Some(addr) {
        return Value::Ptr(addr);
    }
    let s = format!(
        "{n} var{}{}",
        if n == 1 { "" } else { "s" },
        if fault.is_some() {
            ", unterminated"
        } else {
            ""
        }
    );
    Value::Commented(Box::new(Value::Ptr(addr)), Cow::Owned(s))
}

/// Path, argv and envp (counted unless `-v`) from argument `i`.
fn exec_args(c: &mut Ctx, i: usize) {
    c.path(i);
    let v = argv_value(c, c.arg_ulong(i + 1));
    c.push(v);
    let envp = c.arg_ulong(i + 2);
    let v = if c.opts.verbose {
        argv_value(c, envp)
    } else {
        envc_value(c, envp)
    };
    c.push(v);
}

/// `execve(path, argv, envp)`.
fn execve(c: &mut Ctx) -> Step {
    exec_args(c, 0);
    Step::Done(RetFmt::Int)
}

/// `execveat(dirfd, path, argv, envp, flags)`.
fn execveat(c: &mut Ctx) -> Step {
    c.atfd(0);
    exec_args(c, 1);
    flags_arg(c, 4, &xlat::AT_FLAGS, "AT_???");
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
fn clone(c: &mut Ctx) -> Step {
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
            return Step::Done(RetFmt::Pid);
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
    Step::Done(RetFmt::Pid)
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
fn clone3(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(0);
    let size = c.arg_ulong(1);
    let fetch = size.min(CLONE_ARGS_SIZE);
    let bytes = if fetch < CLONE_ARGS_MIN {
        None
    } else {
        c.read_bytes(addr, fetch as usize)
    };
    let flags = bytes.as_deref().map_or(0, |b| le64(b, 0));
    let writes_back = flags & (CLONE_PIDFD | CLONE_PARENT_SETTID) != 0;
    if c.entering() && writes_back {
        return Step::Exit;
    }
    let v = match &bytes {
        None if fetch < CLONE_ARGS_MIN => Value::Ptr(addr),
        None => Value::Unreadable(addr),
        Some(b) => clone_args_value(c, b, fetch),
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
        Value::Changed(Box::new(v), Box::new(Value::structure(f)))
    } else {
        v
    };
    c.push(v);
    c.ulong(1);
    Step::Done(RetFmt::Pid)
}

/// The fields of `struct clone_args` strace prints.
fn clone_args_value(c: &Ctx, b: &[u8], fetch: u64) -> Value {
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
        f.push(Field::new("set_tid", Value::Ptr(set_tid)));
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
            Cow::Owned(super::ctx::render_flags(&v)),
        );
    }
    v
}

// ---- wait ----

/// strace's `printstatus`: `[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]`.
pub(super) fn wait_status_value(status: u32) -> Value {
    let signame = |sig: u32| -> String {
        match super::ctx::signal_name(sig as u64) {
            Some(n) => n.into_owned(),
            None => sig.to_string(),
        }
    };
    let mut rest = status;
    let low7 = status & 0x7f;
    let mut s = if status & 0xff == 0x7f {
        let sig = (status >> 8) & 0xff;
        rest &= !((sig << 8) | 0x7f);
        format!(
            "{{WIFSTOPPED(s) && WSTOPSIG(s) == {}{}}}",
            signame(sig & 0x7f),
            if sig & 0x80 != 0 { " | 0x80" } else { "" }
        )
    } else if low7 != 0 && low7 != 0x7f {
        rest &= !(low7 | 0x80);
        format!(
            "{{WIFSIGNALED(s) && WTERMSIG(s) == {}{}}}",
            signame(low7),
            if status & 0x80 != 0 {
                " && WCOREDUMP(s)"
            } else {
                ""
            }
        )
    } else if low7 == 0 {
        rest &= !(status & 0xff00);
        format!(
            "{{WIFEXITED(s) && WEXITSTATUS(s) == {}}}",
            (status >> 8) & 0xff
        )
    } else if status == 0xffff {
        rest = 0;
        "{WIFCONTINUED(s)}".to_string()
    } else {
        return Value::Array(vec![xint(status as u64)], false);
    };
    if rest != 0 {
        let event = rest >> 16;
        if event != 0 {
            match xlat::PTRACE_EVENTS.lookup(event as u64) {
                Some(n) => s.push_str(&format!(" | {n} << 16")),
                None => s.push_str(&format!(" | {event:#x} /* PTRACE_EVENT_??? */ << 16")),
            }
            rest &= 0xffff;
        }
        if rest != 0 {
            s.push_str(&format!(" | {rest:#x}"));
        }
    }
    Value::Array(vec![Value::sym_owned(s)], false)
}

/// `wait4(pid, wstatus, options, rusage)`: everything after the pid at exit.
fn wait4(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        return Step::Exit;
    }
    let addr = c.arg_ulong(1);
    let v = if c.retval() == 0 || c.failed() || addr == 0 {
        Value::Ptr(addr)
    } else {
        match c.read_pod::<u32>(addr) {
            Some(st) => wait_status_value(st),
            None => Value::Unreadable(addr),
        }
    };
    c.push(v);
    flags_arg(c, 2, &xlat::WAIT4_OPTIONS, "W???");
    let ru = c.arg_ulong(3);
    let v = if c.retval() > 0 {
        rusage_at(c, ru)
    } else {
        Value::Ptr(ru)
    };
    c.push(v);
    Step::Done(RetFmt::Pid)
}

/// `waitid(idtype, id, infop, options, rusage)`.
fn waitid(c: &mut Ctx) -> Step {
    if c.entering() {
        let idtype = c.arg(0) as u32 as u64;
        let v = c.enum_value(idtype, &xlat::WAITID_TYPES, "P_???");
        c.push(v);
        if xlat::WAITID_TYPES.lookup(idtype) == Some("P_PIDFD") {
            c.fd(1);
        } else {
            c.pid(1);
        }
        return Step::Exit;
    }
    let v = siginfo_at(c, c.arg_ulong(2));
    c.push(v);
    flags_arg(c, 3, &xlat::WAITID_OPTIONS, "W???");
    let v = rusage_at(c, c.arg_ulong(4));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `exit(status)` and `exit_group(status)`: they never return (`= ?`).
fn exit(c: &mut Ctx) -> Step {
    c.int(0);
    Step::Done(RetFmt::Unknown)
}

// ---- signals to processes ----

/// `kill(pid, sig)` and `tkill(tid, sig)`.
fn kill(c: &mut Ctx) -> Step {
    c.pid(0);
    sig_arg(c, 1);
    Step::Done(RetFmt::Int)
}

/// `tgkill(tgid, tid, sig)`.
fn tgkill(c: &mut Ctx) -> Step {
    c.pid(0);
    c.pid(1);
    sig_arg(c, 2);
    Step::Done(RetFmt::Int)
}

// ---- thread bookkeeping ----

/// `set_tid_address(tidptr)`: strace prints the pointer with `%#lx`.
fn set_tid_address(c: &mut Ctx) -> Step {
    c.push(xint(c.arg_ulong(0)));
    Step::Done(RetFmt::Pid)
}

/// `set_robust_list(head, len)`.
fn set_robust_list(c: &mut Ctx) -> Step {
    c.ptr(0);
    c.ulong(1);
    Step::Done(RetFmt::Int)
}

/// `get_robust_list(pid, head_ptr, len_ptr)`: both pointers' targets at exit.
fn get_robust_list(c: &mut Ctx) -> Step {
    if c.entering() {
        c.pid(0);
        return Step::Exit;
    }
    let w = c.arch.word_size();
    for i in 1..3 {
        let addr = c.arg_ulong(i);
        let v = if c.failed() {
            Value::Ptr(addr)
        } else {
            match num_at(c, addr, w, false) {
                Value::Array(items, more) if i == 1 => Value::Array(
                    items
                        .into_iter()
                        .map(|it| match it {
                            Value::UInt(p) => xint(p),
                            other => other,
                        })
                        .collect(),
                    more,
                ),
                other => other,
            }
        };
        c.push(v);
    }
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::super::memory::FakeMemory;
    use super::super::testutil::{run, run_with};
    use super::super::DecodeOpts;
    use super::*;

    fn strings(m: &mut FakeMemory, items: &[&str]) -> u64 {
        let ptrs: Vec<u64> = items
            .iter()
            .map(|s| {
                let mut b = s.as_bytes().to_vec();
                b.push(0);
                m.put(&b)
            })
            .collect();
        let mut arr = Vec::new();
        for p in ptrs {
            arr.extend_from_slice(&p.to_le_bytes());
        }
        arr.extend_from_slice(&0u64.to_le_bytes());
        m.put(&arr)
    }

    #[test]
    fn execs() {
        let mut m = FakeMemory::default();
        let path = m.put(b"/bin/true\0");
        let argv = strings(&mut m, &["true"]);
        let envp = strings(&mut m, &["A=1", "B=2", "C=3"]);
        assert_eq!(
            run(execve, "execve", &[path, argv, envp], 0, &mut m),
            format!("execve(\"/bin/true\", [\"true\"], {envp:#x} /* 3 vars */) = 0")
        );
        let long = strings(
            &mut m,
            &[
                "/nonexistent",
                "a",
                "b\n",
                "cccccccccccccccccccccccccccccccccccccccccccccc",
            ],
        );
        let one = strings(&mut m, &["X=1"]);
        assert_eq!(
            run(execve, "execve", &[path, long, one], -2, &mut m),
            format!("execve(\"/bin/true\", [\"/nonexistent\", \"a\", \"b\\n\", \"cccccccccccccccccccccccccccccccc\"...], {one:#x} /* 1 var */) = -1 ENOENT (No such file or directory)")
        );
        let opts = DecodeOpts {
            string_limit: 2,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(execve, "execve", &[path, long, 0], -2, &mut m, &opts),
            "execve(\"/bin/true\", [\"/n\"..., \"a\", ...], NULL) = -1 ENOENT (No such file or directory)"
        );
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(execve, "execve", &[path, argv, envp], 0, &mut m, &opts),
            "execve(\"/bin/true\", [\"true\"], [\"A=1\", \"B=2\", \"C=3\"]) = 0"
        );
        assert_eq!(
            run(execveat, "execveat", &[(-100i64) as u64, path, 0, 0, 0x1100], -2, &mut m),
            "execveat(AT_FDCWD, \"/bin/true\", NULL, NULL, AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH) = -1 ENOENT (No such file or directory)"
        );
        // An argv running into unmapped memory.
        let end = m.base + m.data.len() as u64;
        let p = m.put(b"x\0");
        let tail = end + 8;
        m.put(&p.to_le_bytes());
        assert_eq!(
            run(execve, "execve", &[path, tail, 0x10], -14, &mut m),
            format!(
                "execve(\"/bin/true\", [\"x\", ... /* {:#x} */], 0x10) = -1 EFAULT (Bad address)",
                tail + 8
            )
        );
    }

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
    fn waits() {
        let mut m = FakeMemory::default();
        let st = m.put(&(3u32 << 8).to_le_bytes());
        assert_eq!(
            run(wait4, "wait4", &[7718, st, 0, 0], 7718, &mut m),
            "wait4(7718, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 7718"
        );
        let sig = m.put(&15u32.to_le_bytes());
        assert_eq!(
            run(
                wait4,
                "wait4",
                &[-1i64 as u64, sig, 0x4000_0001, 0],
                9,
                &mut m
            ),
            "wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGTERM}], WNOHANG|__WALL, NULL) = 9"
        );
        assert_eq!(
            run(wait4, "wait4", &[-1i64 as u64, sig, 1, 0], -10, &mut m),
            format!("wait4(-1, {sig:#x}, WNOHANG, NULL) = -1 ECHILD (No child processes)")
        );
        let txt = |s: u32| super::super::ctx::render_flags(&wait_status_value(s));
        assert_eq!(txt(0x137f), "[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGSTOP}]");
        assert_eq!(
            txt(0x857f),
            "[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTRAP | 0x80}]"
        );
        assert_eq!(
            txt(0x3_057f),
            "[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTRAP} | PTRACE_EVENT_CLONE << 16]"
        );
        assert_eq!(
            txt(0x8b),
            "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}]"
        );
        assert_eq!(txt(0xffff), "[{WIFCONTINUED(s)}]");
        let info = m.put(&[0u8; 128]);
        assert_eq!(
            run(
                waitid,
                "waitid",
                &[1, 15596, info, 0x0100_0005, 0],
                0,
                &mut m
            ),
            "waitid(P_PID, 15596, {}, WNOHANG|WEXITED|WNOWAIT, NULL) = 0"
        );
    }

    #[test]
    fn small_calls() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(exit, "exit_group", &[0], 0, &mut m),
            "exit_group(0) = ?"
        );
        assert_eq!(
            run(kill, "kill", &[7717, 10], 0, &mut m),
            "kill(7717, SIGUSR1) = 0"
        );
        assert_eq!(
            run(kill, "kill", &[0, 99], -22, &mut m),
            "kill(0, 99) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(tgkill, "tgkill", &[1, 1, 0], 0, &mut m),
            "tgkill(1, 1, 0) = 0"
        );
        assert_eq!(run(pid_ret, "getpid", &[], 42, &mut m), "getpid() = 42");
        assert_eq!(
            run(set_tid_address, "set_tid_address", &[0], 5, &mut m),
            "set_tid_address(0) = 5"
        );
        assert_eq!(
            run(
                set_robust_list,
                "set_robust_list",
                &[0x7f49_c6de_ca20, 24],
                0,
                &mut m
            ),
            "set_robust_list(0x7f49c6deca20, 24) = 0"
        );
        let head = m.put(&0x7feb_9df0_aa20u64.to_le_bytes());
        let len = m.put(&24u64.to_le_bytes());
        assert_eq!(
            run(
                get_robust_list,
                "get_robust_list",
                &[0, head, len],
                0,
                &mut m
            ),
            "get_robust_list(0, [0x7feb9df0aa20], [24]) = 0"
        );
        assert_eq!(
            run(two_pids, "setpgid", &[0, 0], 0, &mut m),
            "setpgid(0, 0) = 0"
        );
    }
}
