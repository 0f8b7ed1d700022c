//! System V IPC (msgget/msgsnd/msgrcv/msgctl, semget/semop/semtimedop/semctl,
//! shmget/shmat/shmdt/shmctl) and POSIX message queues (mq_open,
//! mq_timedsend, mq_timedreceive, mq_notify, mq_getsetattr, mq_unlink), as
//! strace 6.1's `ipc_*.c` and `mq.c` print them.
//!
//! The `*ctl` structures are decoded in the 64-bit layouts (`msqid64_ds`,
//! `shmid64_ds`, `msginfo`, `shminfo64`, `shm_info`); for i386 their
//! address prints.

use crate::syscall::array::array_at;
use crate::syscall::file::open_flags_value;
use crate::syscall::printers::{layout64, le16, le32, le64, struct_at, xflags, xint};
use crate::syscall::time::{sigevent_at, timespec_at};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("msgget", msgget),
    ("msgsnd", msgsnd),
    ("msgrcv", msgrcv),
    ("msgctl", msgctl),
    ("semget", semget),
    ("semop", semop),
    ("semtimedop", semtimedop),
    ("semtimedop_time64", semtimedop),
    ("semctl", semctl),
    ("shmget", shmget),
    ("shmat", shmat),
    ("shmdt", shmdt),
    ("shmctl", shmctl),
    ("mq_open", mq_open),
    ("mq_unlink", mq_unlink),
    ("mq_timedsend", mq_timedsend),
    ("mq_timedsend_time64", mq_timedsend),
    ("mq_timedreceive", mq_timedreceive),
    ("mq_timedreceive_time64", mq_timedreceive),
    ("mq_notify", mq_notify),
    ("mq_getsetattr", mq_getsetattr),
];

/// `IPC_64`: the "new layout" bit some ABIs OR into `*ctl` commands.
const IPC_64: u64 = 0x100;

/// An IPC key: `IPC_PRIVATE` or `%#x`.
fn key_arg(c: &mut Ctx, i: usize) {
    let k = c.arg(i) as u32;
    c.push(match (k, c.opts.xlat_style) {
        (0, 0) => Value::sym("IPC_PRIVATE"),
        (0, 2) => Value::Commented(Box::new(Value::UInt(0)), Cow::Borrowed("IPC_PRIVATE")),
        _ => xint(k as u64),
    });
}

/// C's `%#03o` of a permission mode (`000`, `0600`).
fn umode_text(m: u64) -> String {
    let s = if m == 0 {
        "0".to_string()
    } else {
        format!("0{m:o}")
    };
    format!("{s:0>3}")
}

/// C's `%#o`: `0` for zero, else `0` and the octal digits.
fn c_octal(v: u64) -> String {
    if v == 0 {
        "0".to_string()
    } else {
        format!("0{v:o}")
    }
}

/// `IPC_CREAT|0600`: the flags above the permission bits, strace's way
/// (`printflags` without a default: unknown bits in hex with no `|` before
/// the mode when no name was printed), then the mode.
fn flags_mode_value(c: &Ctx, v: u64, table: &Xlat) -> Value {
    let mut s = String::new();
    let high = v & !0o777;
    if high != 0 {
        s = crate::syscall::ctx::render_flags(&c.flags_value(high, table));
        if !table.split_flags(high).0.is_empty() {
            s.push('|');
        }
    }
    s.push_str(&umode_text(v & 0o777));
    Value::sym_owned(s)
}

/// A `*ctl` command, `IPC_64|` first when that bit is set.
fn ctl_cmd(c: &mut Ctx, i: usize, table: &Xlat, dflt: &'static str) -> u64 {
    let cmd = c.arg(i) as u32 as u64;
    let base = cmd & !IPC_64;
    let v = c.enum_value(base, table, dflt);
    c.push(if cmd & IPC_64 != 0 {
        Value::Joined(vec![Value::sym("IPC_64"), v], "|")
    } else {
        v
    });
    base
}

// ---- message queues ----

/// `msgget(key, msgflg)`.
fn msgget(c: &mut Ctx) -> Step {
    key_arg(c, 0);
    let v = flags_mode_value(c, c.arg(1) as u32 as u64, &xlat::IPC_RESOURCE_FLAGS);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `{mtype=1, mtext="..."}` with `count` bytes of text, then `count`.
fn msgbuf(c: &mut Ctx, addr: u64, count: u64) {
    let w = c.arch.word_size();
    let v = struct_at(c, addr, Some(w), |_, b| {
        let t = if w == 4 {
            le32(b, 0) as u32 as i32 as i64
        } else {
            le64(b, 0) as i64
        };
        Value::Int(t)
    });
    let v = match v {
        Value::Int(t) => {
            let text = c.buf_value(addr + w as u64, count);
            Value::structure(vec![
                Field::new("mtype", Value::Int(t)),
                Field::new("mtext", text),
            ])
        }
        other => other,
    };
    c.push(v);
    c.push(Value::UInt(count));
}

/// `msgsnd(msqid, msgp, msgsz, msgflg)`.
fn msgsnd(c: &mut Ctx) -> Step {
    c.int(0);
    msgbuf(c, c.arg_ulong(1), c.arg_ulong(2));
    flags_msg(c, 3);
    Step::Done(RetFmt::Int)
}

fn flags_msg(c: &mut Ctx, i: usize) {
    let v = xflags(c, c.arg(i) as u32 as u64, &xlat::IPC_MSG_FLAGS, "MSG_???");
    c.push(v);
}

/// `msgrcv(msqid, msgp, msgsz, msgtyp, msgflg)`: the message at exit.
fn msgrcv(c: &mut Ctx) -> Step {
    if c.entering() {
        c.int(0);
        return Step::Exit;
    }
    msgbuf(c, c.arg_ulong(1), c.arg_ulong(2));
    c.long(3);
    flags_msg(c, 4);
    Step::Done(RetFmt::Int)
}

/// `{uid=0, gid=0, mode=0600[, key=…, cuid=…, cgid=…]}` of an `ipc64_perm`.
fn perm_value(b: &[u8], full: bool) -> Value {
    let mut f = vec![
        Field::new("uid", Value::UInt(le32(b, 4))),
        Field::new("gid", Value::UInt(le32(b, 8))),
        Field::new("mode", Value::sym_owned(c_octal(le32(b, 20)))),
    ];
    if full {
        f.push(Field::new(
            "key",
            Value::Int(le32(b, 0) as u32 as i32 as i64),
        ));
        f.push(Field::new("cuid", Value::UInt(le32(b, 12))));
        f.push(Field::new("cgid", Value::UInt(le32(b, 16))));
    }
    Value::structure(f)
}

/// Signed 64-bit field.
fn d64(b: &[u8], off: usize) -> Value {
    Value::Int(le64(b, off) as i64)
}

/// Signed 32-bit field.
fn d32(b: &[u8], off: usize) -> Value {
    Value::Int(le32(b, off) as u32 as i32 as i64)
}

/// Unsigned 64-bit field.
fn u64f(b: &[u8], off: usize) -> Value {
    Value::UInt(le64(b, off))
}

/// `struct msqid64_ds`: in full for the `*_STAT` commands, the settable
/// fields for `IPC_SET`.
fn msqid_ds(c: &mut Ctx, addr: u64, full: bool) -> Value {
    let size = layout64(c, 120);
    struct_at(c, addr, size, |_, b| {
        let mut f = vec![Field::new("msg_perm", perm_value(b, full))];
        if full {
            f.push(Field::new("msg_stime", d64(b, 48)));
            f.push(Field::new("msg_rtime", d64(b, 56)));
            f.push(Field::new("msg_ctime", d64(b, 64)));
            f.push(Field::new("msg_qnum", u64f(b, 80)));
        }
        f.push(Field::new("msg_qbytes", u64f(b, 88)));
        if full {
            f.push(Field::new("msg_lspid", d32(b, 96)));
            f.push(Field::new("msg_lrpid", d32(b, 100)));
        }
        Value::structure(f)
    })
}

/// `struct msginfo` (eight `int`s, the last a `short`).
fn msginfo(c: &mut Ctx, addr: u64) -> Value {
    struct_at(c, addr, Some(32), |_, b| {
        let names = [
            "msgpool", "msgmap", "msgmax", "msgmnb", "msgmni", "msgssz", "msgtql",
        ];
        let mut f: Vec<Field> = names
            .iter()
            .enumerate()
            .map(|(i, n)| Field::new(n, d32(b, 4 * i)))
            .collect();
        f.push(Field::new("msgseg", Value::UInt(le16(b, 28))));
        Value::structure(f)
    })
}

/// `msgctl(msqid, cmd, buf)`.
fn msgctl(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(2);
    if c.entering() {
        c.int(0);
        let cmd = ctl_cmd(c, 1, &xlat::MSGCTL_CMDS, "MSG_???");
        match cmd {
            1 => {
                let v = msqid_ds(c, addr, false);
                c.push(v);
            }
            2 | 3 | 11 | 12 | 13 => return Step::Exit,
            _ => c.ptr(2),
        }
        return Step::Done(RetFmt::Int);
    }
    let v = match c.arg(1) as u32 as u64 & !IPC_64 {
        3 | 12 => msginfo(c, addr),
        _ => msqid_ds(c, addr, true),
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

// ---- semaphores ----

/// `semget(key, nsems, semflg)`.
fn semget(c: &mut Ctx) -> Step {
    key_arg(c, 0);
    c.int(1);
    let v = flags_mode_value(c, c.arg(2) as u32 as u64, &xlat::IPC_RESOURCE_FLAGS);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `[{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}, …]`.
fn sembufs(c: &mut Ctx) {
    let addr = c.arg_ulong(1);
    // strace takes the count as an `unsigned int`.
    let n = c.arg(2) as u32 as u64;
    let v = array_at(c, addr, n, 6, |c, b| {
        Some(Value::structure(vec![
            Field::new("sem_num", Value::UInt(le16(b, 0))),
            Field::new("sem_op", Value::Int(le16(b, 2) as u16 as i16 as i64)),
            Field::new(
                "sem_flg",
                xflags(c, le16(b, 4), &xlat::SEMOP_FLAGS, "SEM_???"),
            ),
        ]))
    });
    c.push(v);
    c.uint(2);
}

/// `semop(semid, sops, nsops)`.
fn semop(c: &mut Ctx) -> Step {
    c.int(0);
    sembufs(c);
    Step::Done(RetFmt::Int)
}

/// `semtimedop(semid, sops, nsops, timeout)`.
fn semtimedop(c: &mut Ctx) -> Step {
    c.int(0);
    sembufs(c);
    let v = timespec_at(c, c.arg_ulong(3));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `semctl(semid, semnum, cmd, arg)`: strace prints `arg` as an address.
fn semctl(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(3);
    if c.entering() {
        c.int(0);
        c.int(1);
        match ctl_cmd(c, 2, &xlat::SEMCTL_CMDS, "SEM_???") {
            // IPC_SET: the settable fields, at entry.
            1 => {
                let v = semid_ds(c, addr, false);
                c.push(v);
            }
            // IPC_STAT, SEM_STAT, SEM_STAT_ANY, IPC_INFO, SEM_INFO: at exit.
            2 | 18 | 20 | 3 | 19 => return Step::Exit,
            _ => c.ptr(3),
        }
        return Step::Done(RetFmt::Int);
    }
    let v = match c.arg(2) as u32 as u64 & !IPC_64 {
        3 | 19 => seminfo(c, addr),
        _ => semid_ds(c, addr, true),
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `struct semid64_ds`: in full for the `*_STAT` commands, the permissions
/// alone for `IPC_SET`.
fn semid_ds(c: &mut Ctx, addr: u64, full: bool) -> Value {
    let size = layout64(c, 104);
    struct_at(c, addr, size, |_, b| {
        let mut f = vec![Field::new("sem_perm", perm_value(b, full))];
        if full {
            f.push(Field::new("sem_otime", u64f(b, 48)));
            f.push(Field::new("sem_ctime", u64f(b, 64)));
            f.push(Field::new("sem_nsems", u64f(b, 80)));
        }
        Value::structure(f)
    })
}

/// `struct seminfo`: ten `int`s.
fn seminfo(c: &mut Ctx, addr: u64) -> Value {
    struct_at(c, addr, Some(40), |_, b| {
        let names = [
            "semmap", "semmni", "semmns", "semmnu", "semmsl", "semopm", "semume", "semusz",
            "semvmx", "semaem",
        ];
        Value::structure(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| Field::new(n, d32(b, 4 * i)))
                .collect(),
        )
    })
}

// ---- shared memory ----

/// `shmget(key, size, shmflg)`: hugetlb page sizes as `21<<SHM_HUGE_SHIFT`.
fn shmget(c: &mut Ctx) -> Step {
    key_arg(c, 0);
    c.ulong(1);
    let all = c.arg(2) as u32 as u64;
    let mask = 0x3f << 26;
    let huge = all & mask;
    let flags = all & !0o777 & !mask;
    let mut s = String::new();
    if flags != 0 {
        s = crate::syscall::ctx::render_flags(&c.flags_value(flags, &xlat::SHM_RESOURCE_FLAGS));
    }
    if huge != 0 {
        if flags != 0 {
            s.push('|');
        }
        s.push_str(&match c.opts.xlat_style {
            0 => format!("{}<<SHM_HUGE_SHIFT", huge >> 26),
            1 => format!("{}<<26", huge >> 26),
            _ => format!("{}<<26 /* SHM_HUGE_SHIFT */", huge >> 26),
        });
    }
    if flags != 0 || huge != 0 {
        s.push('|');
    }
    s.push_str(&umode_text(all & 0o777));
    c.push(Value::sym_owned(s));
    Step::Done(RetFmt::Int)
}

/// `shmat(shmid, shmaddr, shmflg)`: the address it returns in hex.
fn shmat(c: &mut Ctx) -> Step {
    c.int(0);
    c.ptr(1);
    let v = xflags(c, c.arg(2) as u32 as u64, &xlat::SHM_FLAGS, "SHM_???");
    c.push(v);
    Step::Done(RetFmt::Hex)
}

/// `shmdt(shmaddr)`.
fn shmdt(c: &mut Ctx) -> Step {
    c.ptr(0);
    Step::Done(RetFmt::Int)
}

/// `struct shmid64_ds`: in full, or the settable `shm_perm` for `IPC_SET`.
fn shmid_ds(c: &mut Ctx, addr: u64, full: bool) -> Value {
    let size = layout64(c, 112);
    let mut v = struct_at(c, addr, size, |_, b| {
        let mut f = vec![Field::new("shm_perm", perm_value(b, full))];
        if full {
            f.push(Field::new("shm_segsz", u64f(b, 48)));
            f.push(Field::new("shm_cpid", d32(b, 80)));
            f.push(Field::new("shm_lpid", d32(b, 84)));
            f.push(Field::new("shm_nattch", u64f(b, 88)));
            f.push(Field::new("shm_atime", d64(b, 56)));
            f.push(Field::new("shm_dtime", d64(b, 64)));
            f.push(Field::new("shm_ctime", d64(b, 72)));
        }
        Value::structure(f)
    });
    for name in ["shm_cpid", "shm_lpid"] {
        c.field_id(&mut v, name, crate::syscall::ctx::PidKind::Tgid);
    }
    v
}

/// `struct shminfo64` (`IPC_INFO`).
fn shminfo(c: &mut Ctx, addr: u64) -> Value {
    let size = layout64(c, 72);
    struct_at(c, addr, size, |_, b| {
        let names = ["shmmax", "shmmin", "shmmni", "shmseg", "shmall"];
        Value::structure(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| Field::new(n, u64f(b, 8 * i)))
                .collect(),
        )
    })
}

/// `struct shm_info` (`SHM_INFO`).
fn shm_info(c: &mut Ctx, addr: u64) -> Value {
    let size = layout64(c, 48);
    struct_at(c, addr, size, |_, b| {
        let mut f = vec![Field::new("used_ids", d32(b, 0))];
        let names = [
            "shm_tot",
            "shm_rss",
            "shm_swp",
            "swap_attempts",
            "swap_successes",
        ];
        for (i, n) in names.iter().enumerate() {
            f.push(Field::new(n, u64f(b, 8 + 8 * i)));
        }
        Value::structure(f)
    })
}

/// `shmctl(shmid, cmd, buf)`.
fn shmctl(c: &mut Ctx) -> Step {
    let addr = c.arg_ulong(2);
    if c.entering() {
        c.int(0);
        let cmd = ctl_cmd(c, 1, &xlat::SHMCTL_CMDS, "SHM_???");
        match cmd {
            1 => {
                let v = shmid_ds(c, addr, false);
                c.push(v);
            }
            2 | 3 | 13 | 14 | 15 => return Step::Exit,
            _ => c.ptr(2),
        }
        return Step::Done(RetFmt::Int);
    }
    let v = match c.arg(1) as u32 as u64 & !IPC_64 {
        3 => shminfo(c, addr),
        14 => shm_info(c, addr),
        _ => shmid_ds(c, addr, true),
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

// ---- POSIX message queues ----

/// `struct mq_attr`: `mq_flags` by name (`mq_getsetattr`) or in hex
/// (`mq_open`, where the kernel ignores it).
fn mq_attr(c: &mut Ctx, addr: u64, decode_flags: bool) -> Value {
    let w = c.arch.word_size();
    // The whole struct (with its four reserved longs) must be readable.
    struct_at(c, addr, Some(8 * w), |c, b| {
        let get = |i: usize| {
            if w == 4 {
                le32(b, 4 * i) as u32 as i32 as i64
            } else {
                le64(b, 8 * i) as i64
            }
        };
        let flags = get(0) as u64;
        let fv = if decode_flags {
            xflags(c, flags, &xlat::MQ_ATTR_FLAGS, "O_???")
        } else {
            xint(flags)
        };
        Value::structure(vec![
            Field::new("mq_flags", fv),
            Field::new("mq_maxmsg", Value::Int(get(1))),
            Field::new("mq_msgsize", Value::Int(get(2))),
            Field::new("mq_curmsgs", Value::Int(get(3))),
        ])
    })
}

/// `mq_open(name, oflag, mode, attr)`: mode and attributes only with `O_CREAT`.
fn mq_open(c: &mut Ctx) -> Step {
    c.path(0);
    let flags = c.arg(1) as u32 as u64;
    let v = open_flags_value(c, flags);
    c.push(v);
    if flags & libc::O_CREAT as u64 != 0 {
        c.push(Value::sym_owned(umode_text(c.arg(2) & 0xffff)));
        let v = mq_attr(c, c.arg_ulong(3), false);
        c.push(v);
    }
    Step::Done(RetFmt::Fd)
}

/// `mq_unlink(name)`.
fn mq_unlink(c: &mut Ctx) -> Step {
    c.path(0);
    Step::Done(RetFmt::Int)
}

/// `mq_timedsend(mqdes, msg, len, prio, abs_timeout)`.
fn mq_timedsend(c: &mut Ctx) -> Step {
    c.fd(0);
    c.buf(1, c.arg_ulong(2));
    c.ulong(2);
    c.uint(3);
    let v = timespec_at(c, c.arg_ulong(4));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `mq_timedreceive(mqdes, msg, len, prio, abs_timeout)`: message and
/// priority at exit.
fn mq_timedreceive(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        return Step::Exit;
    }
    c.outbuf(1);
    c.ulong(2);
    let prio = c.arg_ulong(3);
    let v = if c.failed() {
        Value::Ptr(prio)
    } else {
        crate::syscall::printers::num_at(c, prio, 4, false)
    };
    c.push(v);
    // The timeout was read at entry by the kernel; strace prints it at exit.
    let ts = c.arg_ulong(4);
    let v = if ts == 0 {
        Value::Ptr(0)
    } else {
        match c.read_bytes(ts, crate::syscall::time::timespec_size(c)) {
            Some(b) => crate::syscall::time::timespec_bytes(c, &b),
            None => Value::Unreadable(ts),
        }
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `mq_notify(mqdes, sevp)`.
fn mq_notify(c: &mut Ctx) -> Step {
    c.fd(0);
    let v = sigevent_at(c, c.arg_ulong(1));
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `mq_getsetattr(mqdes, newattr, oldattr)`: the old attributes at exit.
fn mq_getsetattr(c: &mut Ctx) -> Step {
    if c.entering() {
        c.fd(0);
        let v = mq_attr(c, c.arg_ulong(1), true);
        c.push(v);
        return Step::Exit;
    }
    let v = mq_attr(c, c.arg_ulong(2), true);
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn get_flags_and_modes() {
        let mut m = FakeMemory::default();
        assert_eq!(
            run(msgget, "msgget", &[0x1234, 0o3644], 1, &mut m),
            "msgget(0x1234, IPC_CREAT|IPC_EXCL|0644) = 1"
        );
        assert_eq!(
            run(msgget, "msgget", &[0, 0], 1, &mut m),
            "msgget(IPC_PRIVATE, 000) = 1"
        );
        // strace's printflags without a default: no `|` before the mode.
        assert_eq!(
            run(msgget, "msgget", &[0x1234, 0x10000 | 0o600], 1, &mut m),
            "msgget(0x1234, 0x100000600) = 1"
        );
        assert_eq!(
            run(shmget, "shmget", &[0, 2 << 20, 0o5600 | (21 << 26)], -12, &mut m),
            "shmget(IPC_PRIVATE, 2097152, IPC_CREAT|SHM_HUGETLB|21<<SHM_HUGE_SHIFT|0600) = -1 ENOMEM (Cannot allocate memory)"
        );
        assert_eq!(
            run(shmat, "shmat", &[1, 0, 0o10000], 0x7f00_0000_0000, &mut m),
            "shmat(1, NULL, SHM_RDONLY) = 0x7f0000000000"
        );
        assert_eq!(
            run(semctl, "semctl", &[1, 0, 0x100 | 2, 0], -14, &mut m),
            "semctl(1, 0, IPC_64|IPC_STAT, NULL) = -1 EFAULT (Bad address)"
        );
    }

    #[test]
    fn messages_and_queues() {
        let mut m = FakeMemory::default();
        let mut mb = 7u64.to_le_bytes().to_vec();
        mb.extend_from_slice(b"abcd");
        let mb = m.put(&mb);
        assert_eq!(
            run(msgsnd, "msgsnd", &[1, mb, 4, 0], 0, &mut m),
            "msgsnd(1, {mtype=7, mtext=\"abcd\"}, 4, 0) = 0"
        );
        let sb = m.put(&[0, 0, 1, 0, 0x00, 0x18]);
        assert_eq!(
            run(semop, "semop", &[1, sb, 1], 0, &mut m),
            "semop(1, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO|IPC_NOWAIT}], 1) = 0"
        );
        // struct mq_attr: four longs and four reserved ones.
        let attr: Vec<u8> = [0x800u64, 4, 16, 0, 0, 0, 0, 0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let attr = m.put(&attr);
        let name = m.put(b"q\0");
        assert_eq!(
            run(mq_open, "mq_open", &[name, 0o4102, 0o600, attr], 3, &mut m),
            "mq_open(\"q\", O_RDWR|O_CREAT|O_NONBLOCK, 0600, {mq_flags=0x800, mq_maxmsg=4, mq_msgsize=16, mq_curmsgs=0}) = 3"
        );
        assert_eq!(
            run(mq_getsetattr, "mq_getsetattr", &[3, 0, attr], 0, &mut m),
            "mq_getsetattr(3, NULL, {mq_flags=O_NONBLOCK, mq_maxmsg=4, mq_msgsize=16, mq_curmsgs=0}) = 0"
        );
    }
}
