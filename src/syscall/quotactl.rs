//! Disk quotas: quotactl and quotactl_fd with the command as
//! `QCMD(Q_GETQUOTA, USRQUOTA)` and each command's data (`struct if_dqblk`,
//! `struct if_dqinfo`, the XFS `fs_disk_quota`/`fs_quota_stat[v]`
//! structures, flag words), as strace prints them.

use crate::syscall::printers::{le16, le32, le64, struct_at, xflags};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] =
    &[("quotactl", quotactl), ("quotactl_fd", quotactl_fd)];

const Q_SYNC: u32 = 0x80_0001;
const Q_QUOTAON: u32 = 0x80_0002;
const Q_QUOTAOFF: u32 = 0x80_0003;
const Q_GETFMT: u32 = 0x80_0004;
const Q_GETINFO: u32 = 0x80_0005;
const Q_SETINFO: u32 = 0x80_0006;
const Q_GETQUOTA: u32 = 0x80_0007;
const Q_SETQUOTA: u32 = 0x80_0008;
const Q_GETNEXTQUOTA: u32 = 0x80_0009;
const Q_XQUOTAON: u32 = 0x5801;
const Q_XQUOTAOFF: u32 = 0x5802;
const Q_XGETQUOTA: u32 = 0x5803;
const Q_XSETQLIM: u32 = 0x5804;
const Q_XGETQSTAT: u32 = 0x5805;
const Q_XQUOTARM: u32 = 0x5806;
const Q_XQUOTASYNC: u32 = 0x5807;
const Q_XGETQSTATV: u32 = 0x5808;
const Q_XGETNEXTQUOTA: u32 = 0x5809;

/// `%#x` text: `0` for zero.
fn hex(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// `QCMD(cmd, type)` of a command word, in the current `-X` style.
fn qcmd_value(c: &Ctx, qcmd: u32) -> Value {
    let (cmd, ty) = ((qcmd >> 8) as u64, (qcmd & 0xff) as u64);
    if c.opts.xlat_style == 1 {
        return Value::UInt(qcmd as u64);
    }
    let name = |v: u64, t: &rtrace_arch::Xlat, d: &str| match t.lookup(v) {
        Some(n) => n.to_string(),
        None => format!("{} /* {d} */", hex(v)),
    };
    let s = format!(
        "QCMD({}, {})",
        name(cmd, &xlat::QUOTACMDS, "Q_???"),
        name(ty, &xlat::QUOTATYPES, "???QUOTA")
    );
    if c.opts.xlat_style == 2 {
        Value::Commented(Box::new(Value::UInt(qcmd as u64)), Cow::Owned(s))
    } else {
        Value::sym_owned(s)
    }
}

/// A uid/id: `-1` or unsigned.
fn id_value(id: u32) -> Value {
    if id == u32::MAX {
        Value::Int(-1)
    } else {
        Value::UInt(id as u64)
    }
}

/// `struct if_dqblk` (and `if_nextdqblk` with `dqb_id` when `next`).
fn dqblk(c: &Ctx, b: &[u8], next: bool) -> Value {
    let u = |off| Value::UInt(le64(b, off));
    let mut f = vec![
        Field::new("dqb_bhardlimit", u(0)),
        Field::new("dqb_bsoftlimit", u(8)),
        Field::new("dqb_curspace", u(16)),
        Field::new("dqb_ihardlimit", u(24)),
        Field::new("dqb_isoftlimit", u(32)),
        Field::new("dqb_curinodes", u(40)),
    ];
    let abbrev = !c.opts.verbose;
    if !abbrev {
        f.push(Field::new("dqb_btime", u(48)));
        f.push(Field::new("dqb_itime", u(56)));
        f.push(Field::new(
            "dqb_valid",
            xflags(c, le32(b, 64), &xlat::IF_DQBLK_VALID, "QIF_???"),
        ));
    }
    if next {
        f.push(Field::new("dqb_id", Value::UInt(le32(b, 68))));
    }
    Value::Struct(f, abbrev)
}

/// XFS `struct fs_disk_quota`.
fn xfs_dquot(c: &Ctx, b: &[u8]) -> Value {
    let u = |off| Value::UInt(le64(b, off));
    let d32 = |off| Value::Int(le32(b, off) as u32 as i32 as i64);
    let mut f = vec![
        Field::new("d_version", Value::Int(b[0] as i8 as i64)),
        Field::new(
            "d_flags",
            xflags(c, b[1] as u64, &xlat::XFS_DQBLK_FLAGS, "FS_???_QUOTA"),
        ),
        Field::new("d_fieldmask", crate::syscall::printers::xint(le16(b, 2))),
        Field::new("d_id", Value::UInt(le32(b, 4))),
        Field::new("d_blk_hardlimit", u(8)),
        Field::new("d_blk_softlimit", u(16)),
        Field::new("d_ino_hardlimit", u(24)),
        Field::new("d_ino_softlimit", u(32)),
        Field::new("d_bcount", u(40)),
        Field::new("d_icount", u(48)),
    ];
    let abbrev = !c.opts.verbose;
    if !abbrev {
        f.extend([
            Field::new("d_itimer", d32(56)),
            Field::new("d_btimer", d32(60)),
            Field::new("d_iwarns", Value::UInt(le16(b, 64))),
            Field::new("d_bwarns", Value::UInt(le16(b, 66))),
            Field::new("d_rtb_hardlimit", u(72)),
            Field::new("d_rtb_softlimit", u(80)),
            Field::new("d_rtbcount", u(88)),
            Field::new("d_rtbtimer", d32(96)),
            Field::new("d_rtbwarns", Value::UInt(le16(b, 100))),
        ]);
    }
    Value::Struct(f, abbrev)
}

/// `{qfs_ino=…, qfs_nblks=…, qfs_nextents=…}` at `off`.
fn filestat(b: &[u8], off: usize) -> Value {
    Value::structure(vec![
        Field::new("qfs_ino", Value::UInt(le64(b, off))),
        Field::new("qfs_nblks", Value::UInt(le64(b, off + 8))),
        Field::new("qfs_nextents", Value::UInt(le32(b, off + 16))),
    ])
}

/// `struct fs_quota_stat` (`v`: `struct fs_quota_statv`).
fn qstat(c: &Ctx, b: &[u8], v: bool) -> Value {
    let d32 = |off| Value::Int(le32(b, off) as u32 as i32 as i64);
    let mut f = vec![Field::new("qs_version", Value::Int(b[0] as i8 as i64))];
    let abbrev = !c.opts.verbose;
    if !abbrev {
        f.push(Field::new(
            "qs_flags",
            xflags(c, le16(b, 2), &xlat::XFS_QUOTA_FLAGS, "FS_QUOTA_???"),
        ));
        if v {
            f.push(Field::new("qs_incoredqs", Value::UInt(le32(b, 4))));
            f.push(Field::new("qs_uquota", filestat(b, 8)));
            f.push(Field::new("qs_gquota", filestat(b, 32)));
            f.push(Field::new("qs_pquota", filestat(b, 56)));
            f.push(Field::new("qs_btimelimit", d32(80)));
            f.push(Field::new("qs_itimelimit", d32(84)));
            f.push(Field::new("qs_rtbtimelimit", d32(88)));
            f.push(Field::new("qs_bwarnlimit", Value::UInt(le16(b, 92))));
            f.push(Field::new("qs_iwarnlimit", Value::UInt(le16(b, 94))));
        } else {
            f.push(Field::new("qs_uquota", filestat(b, 8)));
            f.push(Field::new("qs_gquota", filestat(b, 32)));
            f.push(Field::new("qs_incoredqs", Value::UInt(le32(b, 56))));
            f.push(Field::new("qs_btimelimit", d32(60)));
            f.push(Field::new("qs_itimelimit", d32(64)));
            f.push(Field::new("qs_rtbtimelimit", d32(68)));
            f.push(Field::new("qs_bwarnlimit", Value::UInt(le16(b, 72))));
            f.push(Field::new("qs_iwarnlimit", Value::UInt(le16(b, 74))));
        }
    }
    Value::Struct(f, abbrev)
}

/// `struct if_dqinfo`.
fn dqinfo(c: &Ctx, b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("dqi_bgrace", Value::UInt(le64(b, 0))),
        Field::new("dqi_igrace", Value::UInt(le64(b, 8))),
        Field::new(
            "dqi_flags",
            xflags(c, le32(b, 16), &xlat::IF_DQINFO_FLAGS, "DQF_???"),
        ),
        Field::new(
            "dqi_valid",
            xflags(c, le32(b, 20), &xlat::IF_DQINFO_VALID, "IIF_???"),
        ),
    ])
}

/// A flag word at `addr`: `[FS_QUOTA_UDQ_ACCT|…]`.
fn flag_word(c: &mut Ctx, addr: u64, table: &rtrace_arch::Xlat, dflt: &'static str) -> Value {
    struct_at(c, addr, Some(4), |c, b| {
        Value::Array(vec![xflags(c, le32(b, 0), table, dflt)], false)
    })
}

/// The arguments after the command (and the special file): strace's
/// `decode_cmd_data`.
fn cmd_data(c: &mut Ctx, id: u32, cmd: u32, data: u64) -> Step {
    let entering = c.entering();
    let v = match cmd {
        Q_QUOTAOFF | Q_SYNC | Q_XQUOTASYNC => return Step::Done(RetFmt::Int),
        Q_QUOTAON => {
            let f = c.enum_value(id as u64, &xlat::QUOTA_FORMATS, "QFMT_???");
            c.push(f);
            c.path_value(data)
        }
        Q_GETQUOTA | Q_GETNEXTQUOTA | Q_XGETQUOTA | Q_XGETNEXTQUOTA if entering => {
            c.push(id_value(id));
            return Step::Exit;
        }
        Q_GETFMT | Q_GETINFO | Q_XGETQSTAT | Q_XGETQSTATV if entering => return Step::Exit,
        Q_GETQUOTA | Q_SETQUOTA => {
            if entering {
                c.push(id_value(id));
            }
            struct_at(c, data, Some(72), |c, b| dqblk(c, b, false))
        }
        Q_GETNEXTQUOTA => struct_at(c, data, Some(72), |c, b| dqblk(c, b, true)),
        Q_XGETQUOTA | Q_XGETNEXTQUOTA | Q_XSETQLIM => {
            if entering {
                c.push(id_value(id));
            }
            struct_at(c, data, Some(112), xfs_dquot)
        }
        Q_GETFMT => struct_at(c, data, Some(4), |c, b| {
            Value::Array(
                vec![c.enum_value(le32(b, 0), &xlat::QUOTA_FORMATS, "QFMT_???")],
                false,
            )
        }),
        Q_GETINFO | Q_SETINFO => struct_at(c, data, Some(24), dqinfo),
        Q_XGETQSTAT => struct_at(c, data, Some(80), |c, b| qstat(c, b, false)),
        Q_XGETQSTATV => struct_at(c, data, Some(160), |c, b| qstat(c, b, true)),
        Q_XQUOTAON | Q_XQUOTAOFF => flag_word(c, data, &xlat::XFS_QUOTA_FLAGS, "FS_QUOTA_???"),
        Q_XQUOTARM => flag_word(c, data, &xlat::XFS_DQBLK_FLAGS, "FS_???_QUOTA"),
        _ => {
            c.push(id_value(id));
            Value::Ptr(data)
        }
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `quotactl(cmd, special, id, addr)`.
fn quotactl(c: &mut Ctx) -> Step {
    let qcmd = c.arg(0) as u32;
    if c.entering() {
        let v = qcmd_value(c, qcmd);
        c.push(v);
        c.path(1);
    }
    cmd_data(c, c.arg(2) as u32, qcmd >> 8, c.arg_ulong(3))
}

/// `quotactl_fd(fd, cmd, id, addr)`.
fn quotactl_fd(c: &mut Ctx) -> Step {
    let qcmd = c.arg(1) as u32;
    if c.entering() {
        c.fd(0);
        let v = qcmd_value(c, qcmd);
        c.push(v);
    }
    cmd_data(c, c.arg(2) as u32, qcmd >> 8, c.arg_ulong(3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn quotas() {
        let mut m = FakeMemory::default();
        let dev = m.put(b"/dev/sda1\0");
        assert_eq!(
            run(quotactl, "quotactl", &[0x8000_0701, dev, 0, 0], -2, &mut m),
            "quotactl(QCMD(Q_GETQUOTA, GRPQUOTA), \"/dev/sda1\", 0, NULL) = -1 ENOENT (No such file or directory)"
        );
        assert_eq!(
            run(quotactl, "quotactl", &[0xbadc_0ded, 0, 0, 0], -22, &mut m),
            "quotactl(QCMD(0xbadc0d /* Q_??? */, 0xed /* ???QUOTA */), NULL, 0, NULL) = -1 EINVAL (Invalid argument)"
        );
        let fl = m.put(&0x2fu32.to_le_bytes());
        assert_eq!(
            run(quotactl, "quotactl", &[0x58_0100, dev, 0, fl], -2, &mut m),
            "quotactl(QCMD(Q_XQUOTAON, USRQUOTA), \"/dev/sda1\", [FS_QUOTA_UDQ_ACCT|FS_QUOTA_UDQ_ENFD|FS_QUOTA_GDQ_ACCT|FS_QUOTA_GDQ_ENFD|FS_QUOTA_PDQ_ENFD]) = -1 ENOENT (No such file or directory)"
        );
        let fmt = m.put(&2u32.to_le_bytes());
        assert_eq!(
            run(
                quotactl_fd,
                "quotactl_fd",
                &[3, 0x8000_0400, 0, fmt],
                0,
                &mut m
            ),
            "quotactl_fd(3, QCMD(Q_GETFMT, USRQUOTA), [QFMT_VFS_V0]) = 0"
        );
    }
}
