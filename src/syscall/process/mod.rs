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
//!
//! Submodules: [`exec`] decodes execve/execveat (argument and environment
//! vectors), [`clone`] the clone family and `struct clone_args`.

mod clone;
mod exec;

use clone::{clone, clone3, unshare};
use exec::{execve, execveat};

use crate::syscall::ctx::PidKind;
use crate::syscall::printers::{flags_arg, num_at, xint};
use crate::syscall::resource::rusage_at;
use crate::syscall::signal::{sig_arg, siginfo_at};
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("execve", execve),
    ("execveat", execveat),
    ("clone", clone),
    ("clone3", clone3),
    ("unshare", unshare),
    ("fork", pid_ret),
    ("vfork", pid_ret),
    ("wait4", wait4),
    ("waitid", waitid),
    ("exit", exit),
    ("exit_group", exit),
    ("kill", kill),
    ("tkill", tkill),
    ("tgkill", tgkill),
    ("getpid", pid_ret),
    ("getppid", pid_ret),
    ("gettid", tid_ret),
    ("getuid", no_args),
    ("geteuid", no_args),
    ("getgid", no_args),
    ("getegid", no_args),
    ("getpgrp", pgid_ret),
    ("setsid", no_args),
    ("getpgid", getpgid),
    ("getsid", getsid),
    ("setpgid", two_pids),
    ("set_tid_address", set_tid_address),
    ("set_robust_list", set_robust_list),
    ("get_robust_list", get_robust_list),
];

/// An argument printed with its name, as strace prints clone's:
/// `child_stack=NULL`.
pub(in crate::syscall) fn named(name: &'static str, v: Value) -> Value {
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

/// `gettid()`: a thread id.
fn tid_ret(_: &mut Ctx) -> Step {
    Step::Done(RetFmt::Id(PidKind::Tid))
}

/// `getpgrp()`: a process group id.
fn pgid_ret(_: &mut Ctx) -> Step {
    Step::Done(RetFmt::Id(PidKind::Pgid))
}

/// `getpgid(pid)`: a process group id.
fn getpgid(c: &mut Ctx) -> Step {
    c.pid(0);
    Step::Done(RetFmt::Id(PidKind::Pgid))
}

/// `getsid(pid)`: a session id.
fn getsid(c: &mut Ctx) -> Step {
    c.pid(0);
    Step::Done(RetFmt::Id(PidKind::Sid))
}

/// `setpgid(pid, pgid)`.
fn two_pids(c: &mut Ctx) -> Step {
    c.pid(0);
    c.id(1, PidKind::Pgid);
    Step::Done(RetFmt::Int)
}

// ---- wait ----

/// strace's `printstatus`: `[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]`.
pub(in crate::syscall) fn wait_status_value(status: u32) -> Value {
    let signame = |sig: u32| -> String {
        match crate::syscall::ctx::signal_name(sig as u64) {
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
        c.pid_or_pgid(0);
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
        match xlat::WAITID_TYPES.lookup(idtype) {
            Some("P_PIDFD") => c.fd(1),
            Some("P_PID") => c.pid(1),
            Some("P_PGID") => c.id(1, PidKind::Pgid),
            _ => c.int(1),
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
    // It returns only when an injection skipped it (`= -1 ENOSYS
    // (INJECTED)`); otherwise the thread's exit ends the line with `= ?`.
    Step::Done(RetFmt::Int)
}

// ---- signals to processes ----

/// `kill(pid, sig)`: a process, or a process group when below -1.
fn kill(c: &mut Ctx) -> Step {
    c.pid_or_pgid(0);
    sig_arg(c, 1);
    Step::Done(RetFmt::Int)
}

/// `tkill(tid, sig)`.
fn tkill(c: &mut Ctx) -> Step {
    c.id(0, PidKind::Tid);
    sig_arg(c, 1);
    Step::Done(RetFmt::Int)
}

/// `tgkill(tgid, tid, sig)`.
fn tgkill(c: &mut Ctx) -> Step {
    c.pid(0);
    c.id(1, PidKind::Tid);
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
        c.id(0, PidKind::Tid);
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
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

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
        let txt = |s: u32| crate::syscall::ctx::render_flags(&wait_status_value(s));
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
        // exit_group returns only when an injection skipped it.
        assert_eq!(
            run(exit, "exit_group", &[0], -38, &mut m),
            "exit_group(0) = -1 ENOSYS (Function not implemented)"
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
