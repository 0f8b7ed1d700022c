//! btrfs ioctl structures about balancing, devices, quotas, features,
//! scrubbing, received subvolumes and send streams, as strace 6.1 prints
//! them (the requests are chosen in `mod.rs`).

use crate::syscall::array::array_at;
use crate::syscall::ioctl::btrfs::{fd64, objid, r_out, rw, u, u64_max, uuid, w_in, xval, Io};
use crate::syscall::ioctl::misc::cstring_field;
use crate::syscall::printers::{dev_value, le32, le64, time_string, with_time, xflags};
use crate::syscall::{Ctx, Field, Value};
use rtrace_arch::{xlat, Xlat, XlatKind};
use std::borrow::Cow;

/// strace 6.1 knows no compatible feature flag.
static FEATURES_COMPAT: Xlat = Xlat {
    name: "btrfs_features_compat",
    kind: XlatKind::Flags,
    entries: &[],
};

/// The requests of this file, by name; the rest go to the search file.
pub(in crate::syscall::ioctl::btrfs) fn btrfs(c: &mut Ctx, name: &str, arg: u64) -> Io {
    match name {
        "BTRFS_IOC_BALANCE_V2" => rw(
            c,
            arg,
            1024,
            |c, b| balance(c, b, false),
            |c, b| balance(c, b, true),
        ),
        "BTRFS_IOC_BALANCE_PROGRESS" => r_out(c, arg, 1024, |c, b| balance(c, b, true)),
        "BTRFS_IOC_DEV_INFO" => rw(c, arg, 4096, dev_info_in, dev_info_out),
        "BTRFS_IOC_DEV_REPLACE" => rw(c, arg, 2600, dev_replace_in, dev_replace_out),
        "BTRFS_IOC_GET_FEATURES" => r_out(c, arg, 24, |c, b| features(c, b)),
        "BTRFS_IOC_SET_FEATURES" => w_in(c, arg, 48, |c, b| {
            Value::Array(vec![features(c, b), features(c, &b[24..])], false)
        }),
        "BTRFS_IOC_GET_SUPPORTED_FEATURES" => r_out(c, arg, 72, |c, b| {
            let items = ["supported", "safe to set", "safe to clear"]
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    Value::Commented(Box::new(features(c, &b[24 * i..])), Cow::Borrowed(t))
                })
                .collect();
            Value::Array(items, false)
        }),
        "BTRFS_IOC_FS_INFO" => r_out(c, arg, 1024, fs_info),
        "BTRFS_IOC_GET_DEV_STATS" => rw(
            c,
            arg,
            1032,
            |c, b| dev_stats(c, b, true),
            |c, b| dev_stats(c, b, false),
        ),
        "BTRFS_IOC_QGROUP_ASSIGN" => w_in(c, arg, 24, |_, b| {
            Value::structure(vec![
                Field::new("assign", u(le64(b, 0))),
                Field::new("src", u(le64(b, 8))),
                Field::new("dst", u(le64(b, 16))),
            ])
        }),
        "BTRFS_IOC_QGROUP_CREATE" => w_in(c, arg, 16, |_, b| {
            Value::structure(vec![
                Field::new("create", u(le64(b, 0))),
                Field::new("qgroupid", u(le64(b, 8))),
            ])
        }),
        "BTRFS_IOC_QGROUP_LIMIT" => r_out(c, arg, 48, |c, b| {
            Value::structure(vec![
                Field::new("qgroupid", u(le64(b, 0))),
                Field::new(
                    "lim",
                    crate::syscall::ioctl::btrfs::qgroup_limit(c, &b[8..48]),
                ),
            ])
        }),
        "BTRFS_IOC_QUOTA_CTL" => w_in(c, arg, 16, |c, b| {
            let cmd = xval(
                c,
                le64(b, 0),
                &xlat::BTRFS_QGROUP_CTL_CMDS,
                "BTRFS_QUOTA_CTL_???",
            );
            Value::structure(vec![Field::new("cmd", cmd)])
        }),
        "BTRFS_IOC_QUOTA_RESCAN" => w_in(c, arg, 64, |_, b| {
            Value::structure(vec![Field::new("flags", u(le64(b, 0)))])
        }),
        "BTRFS_IOC_QUOTA_RESCAN_STATUS" => r_out(c, arg, 64, |c, b| {
            Value::structure(vec![
                Field::new("flags", u(le64(b, 0))),
                Field::new("progress", objid(c, le64(b, 8))),
            ])
        }),
        "BTRFS_IOC_SET_RECEIVED_SUBVOL" => rw(c, arg, 200, received_in, |_, b| {
            Value::structure(vec![
                Field::new("rtransid", u(le64(b, 24))),
                Field::new("rtime", btrfs_timespec(&b[48..64])),
            ])
        }),
        "BTRFS_IOC_SCRUB" => rw(c, arg, 1024, |c, b| scrub_in(c, b, true), scrub_out),
        "BTRFS_IOC_SCRUB_PROGRESS" => rw(c, arg, 1024, |c, b| scrub_in(c, b, false), scrub_out),
        "BTRFS_IOC_SEND" => w_in(c, arg, 72, send),
        _ => crate::syscall::ioctl::btrfs::search::btrfs(c, name, arg),
    }
}

/// `struct btrfs_ioctl_balance_args` (`out`: with the kernel's state).
fn balance(c: &mut Ctx, b: &[u8], out: bool) -> Value {
    let flags = le64(b, 0);
    let mut f = vec![Field::new(
        "flags",
        xflags(c, flags, &xlat::BTRFS_BALANCE_FLAGS, "BTRFS_BALANCE_???"),
    )];
    if out {
        f.push(Field::new(
            "state",
            xflags(
                c,
                le64(b, 8),
                &xlat::BTRFS_BALANCE_STATE,
                "BTRFS_BALANCE_STATE_???",
            ),
        ));
    }
    // BTRFS_BALANCE_DATA, _METADATA, _SYSTEM.
    for (bit, name, off) in [(1, "data", 16), (4, "meta", 152), (2, "sys", 288)] {
        if flags & bit != 0 {
            f.push(Field::new(name, balance_args(c, &b[off..off + 136])));
        }
    }
    Value::structure(f)
}

/// `struct btrfs_balance_args`.
fn balance_args(c: &Ctx, b: &[u8]) -> Value {
    let mut f = vec![
        Field::new(
            "profiles",
            xflags(
                c,
                le64(b, 0),
                &xlat::BTRFS_SPACE_INFO_FLAGS,
                "BTRFS_BLOCK_GROUP_???",
            ),
        ),
        Field::new("usage", u64_max(c, le64(b, 8))),
        Field::new("devid", dev_value(c, le64(b, 16))),
    ];
    for (name, off) in [
        ("pstart", 24),
        ("pend", 32),
        ("vstart", 40),
        ("vend", 48),
        ("target", 56),
    ] {
        f.push(Field::new(name, u64_max(c, le64(b, off))));
    }
    f.push(Field::new(
        "flags",
        xflags(
            c,
            le64(b, 64),
            &xlat::BTRFS_BALANCE_ARGS,
            "BTRFS_BALANCE_ARGS_???",
        ),
    ));
    Value::structure(f)
}

/// `struct btrfs_ioctl_feature_flags`.
fn features(c: &Ctx, b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new(
            "compat_flags",
            xflags(c, le64(b, 0), &FEATURES_COMPAT, "BTRFS_FEATURE_COMPAT_???"),
        ),
        Field::new(
            "compat_ro_flags",
            xflags(
                c,
                le64(b, 8),
                &xlat::BTRFS_FEATURES_COMPAT_RO,
                "BTRFS_FEATURE_COMPAT_RO_???",
            ),
        ),
        Field::new(
            "incompat_flags",
            xflags(
                c,
                le64(b, 16),
                &xlat::BTRFS_FEATURES_INCOMPAT,
                "BTRFS_FEATURE_INCOMPAT_???",
            ),
        ),
    ])
}

/// `struct btrfs_ioctl_fs_info_args`.
fn fs_info(c: &mut Ctx, b: &[u8]) -> Value {
    let flags = le64(b, 48);
    let mut f = vec![
        Field::new("max_id", u(le64(b, 0))),
        Field::new("num_devices", u(le64(b, 8))),
        Field::new("fsid", uuid(&b[16..32])),
        Field::new("nodesize", u(le32(b, 32))),
        Field::new("sectorsize", u(le32(b, 36))),
        Field::new("clone_alignment", u(le32(b, 40))),
    ];
    // BTRFS_FS_INFO_FLAG_CSUM_INFO
    if flags & 1 != 0 {
        let t = u16::from_le_bytes([b[44], b[45]]) as u64;
        f.push(Field::new(
            "csum_type",
            xval(c, t, &xlat::BTRFS_CSUM_TYPES, "BTRFS_CSUM_TYPE_???"),
        ));
        let size = u16::from_le_bytes([b[46], b[47]]) as u64;
        f.push(Field::new("csum_size", u(size)));
    }
    f.push(Field::new(
        "flags",
        xflags(
            c,
            flags,
            &xlat::BTRFS_FS_INFO_FLAGS,
            "BTRFS_FS_INFO_FLAG_???",
        ),
    ));
    // BTRFS_FS_INFO_FLAG_GENERATION, _METADATA_UUID
    if flags & 2 != 0 {
        f.push(Field::new("generation", u(le64(b, 56))));
    }
    if flags & 4 != 0 {
        f.push(Field::new("metadata_uuid", uuid(&b[64..80])));
    }
    Value::structure(f)
}

/// `struct btrfs_ioctl_get_dev_stats`: the device and the request at
/// entry; the counters at exit.
fn dev_stats(c: &mut Ctx, b: &[u8], entry: bool) -> Value {
    let n = le64(b, 8);
    let mut f = Vec::new();
    if entry {
        f.push(Field::new("devid", dev_value(c, le64(b, 0))));
    }
    f.push(Field::new("nr_items", u(n)));
    f.push(Field::new(
        "flags",
        xflags(
            c,
            le64(b, 16),
            &xlat::BTRFS_DEV_STATS_FLAGS,
            "BTRFS_DEV_STATS_???",
        ),
    ));
    if entry {
        return Value::structure(f);
    }
    // Indexed by BTRFS_DEV_STAT_*; the structure holds five.
    let mut items = Vec::new();
    let mut more = false;
    for i in 0..n {
        if i >= 5 {
            more = true;
            break;
        }
        let idx = crate::syscall::ioctl::btrfs::xval_u(c, i, &xlat::BTRFS_DEV_STATS_VALUES);
        let idx = Value::Joined(vec![Value::sym("["), idx, Value::sym("] = ")], "");
        let val = u(le64(b, 24 + 8 * i as usize));
        items.push(Value::Joined(vec![idx, val], ""));
    }
    f.push(Field::new("", Value::Array(items, more)));
    Value::structure(f)
}

/// `struct btrfs_ioctl_dev_info_args` at entry.
fn dev_info_in(c: &mut Ctx, b: &[u8]) -> Value {
    let mut f = vec![Field::new("devid", dev_value(c, le64(b, 0)))];
    if b[8..24].iter().any(|&x| x != 0) {
        f.push(Field::new("uuid", uuid(&b[8..24])));
    }
    Value::structure(f)
}

/// `struct btrfs_ioctl_dev_info_args` at exit.
fn dev_info_out(_c: &mut Ctx, b: &[u8]) -> Value {
    let mut f = Vec::new();
    if b[8..24].iter().any(|&x| x != 0) {
        f.push(Field::new("uuid", uuid(&b[8..24])));
    }
    f.push(Field::new("bytes_used", u(le64(b, 24))));
    f.push(Field::new("total_bytes", u(le64(b, 32))));
    f.push(Field::new("path", cstring_field(&b[3072..4096])));
    Value::structure(f)
}

/// `struct btrfs_ioctl_dev_replace_args` at entry: the command, and what
/// to replace for `BTRFS_IOCTL_DEV_REPLACE_CMD_START`.
fn dev_replace_in(c: &mut Ctx, b: &[u8]) -> Value {
    let cmd = le64(b, 0);
    let mut f = vec![Field::new(
        "cmd",
        xval(
            c,
            cmd,
            &xlat::BTRFS_DEV_REPLACE_CMDS,
            "BTRFS_IOCTL_DEV_REPLACE_CMD_???",
        ),
    )];
    if cmd == 0 {
        let start = Value::structure(vec![
            Field::new("srcdevid", dev_value(c, le64(b, 16))),
            Field::new(
                "cont_reading_from_srcdev_mode",
                xval(
                    c,
                    le64(b, 24),
                    &xlat::BTRFS_CONT_READING_FROM_SRCDEV_MODE,
                    "BTRFS_IOCTL_DEV_REPLACE_CONT_READING_FROM_SRCDEV_MODE_???",
                ),
            ),
            Field::new("srcdev_name", cstring_field(&b[32..1057])),
            Field::new("tgtdev_name", cstring_field(&b[1057..2082])),
        ]);
        f.push(Field::new("start", start));
    }
    Value::structure(f)
}

/// `struct btrfs_ioctl_dev_replace_args` at exit: the result, and the
/// status for `BTRFS_IOCTL_DEV_REPLACE_CMD_STATUS`.
fn dev_replace_out(c: &mut Ctx, b: &[u8]) -> Value {
    let mut f = vec![Field::new(
        "result",
        xval(
            c,
            le64(b, 8),
            &xlat::BTRFS_DEV_REPLACE_RESULTS,
            "BTRFS_IOCTL_DEV_REPLACE_RESULT_???",
        ),
    )];
    if le64(b, 0) == 1 {
        let progress = le64(b, 24);
        let mut p = u(progress);
        if progress <= 1000 {
            let pct = format!("{}.{}%", progress / 10, progress % 10);
            p = Value::Commented(Box::new(p), Cow::Owned(pct));
        }
        let when = |v: u64| match time_string(v as i64, 0) {
            Some(t) => Value::Commented(Box::new(u(v)), Cow::Owned(t)),
            None => u(v),
        };
        let status = Value::structure(vec![
            Field::new(
                "replace_state",
                xval(
                    c,
                    le64(b, 16),
                    &xlat::BTRFS_DEV_REPLACE_STATE,
                    "BTRFS_IOCTL_DEV_REPLACE_STATE_???",
                ),
            ),
            Field::new("progress_1000", p),
            Field::new("time_started", when(le64(b, 32))),
            Field::new("time_stopped", when(le64(b, 40))),
            Field::new("num_write_errors", u(le64(b, 48))),
            Field::new("num_uncorrectable_read_errors", u(le64(b, 56))),
        ]);
        f.push(Field::new("status", status));
    }
    Value::structure(f)
}

/// `struct btrfs_ioctl_timespec` with its date comment.
fn btrfs_timespec(b: &[u8]) -> Value {
    let (sec, nsec) = (le64(b, 0), le32(b, 8));
    let v = Value::structure(vec![Field::new("sec", u(sec)), Field::new("nsec", u(nsec))]);
    with_time(v, sec as i64, nsec)
}

/// `struct btrfs_ioctl_received_subvol_args` at entry.
fn received_in(_c: &mut Ctx, b: &[u8]) -> Value {
    Value::structure(vec![
        Field::new("uuid", uuid(&b[0..16])),
        Field::new("stransid", u(le64(b, 16))),
        Field::new("stime", btrfs_timespec(&b[32..48])),
        Field::new("flags", u(le64(b, 64))),
    ])
}

/// `struct btrfs_ioctl_scrub_args` at entry (`scrub`: the range and
/// flags too, for `BTRFS_IOC_SCRUB`).
fn scrub_in(c: &mut Ctx, b: &[u8], scrub: bool) -> Value {
    let mut f = vec![Field::new("devid", dev_value(c, le64(b, 0)))];
    if scrub {
        f.push(Field::new("start", u(le64(b, 8))));
        f.push(Field::new("end", u64_max(c, le64(b, 16))));
        f.push(Field::new(
            "flags",
            xflags(c, le64(b, 24), &xlat::BTRFS_SCRUB_FLAGS, "BTRFS_SCRUB_???"),
        ));
    }
    Value::structure(f)
}

/// `struct btrfs_ioctl_scrub_args` at exit: the progress counters.
fn scrub_out(_c: &mut Ctx, b: &[u8]) -> Value {
    const NAMES: [&str; 15] = [
        "data_extents_scrubbed",
        "tree_extents_scrubbed",
        "data_bytes_scrubbed",
        "tree_bytes_scrubbed",
        "read_errors",
        "csum_errors",
        "verify_errors",
        "no_csum",
        "csum_discards",
        "super_errors",
        "malloc_errors",
        "uncorrectable_errors",
        "corrected_errors",
        "last_physical",
        "unverified_errors",
    ];
    let progress = NAMES
        .iter()
        .enumerate()
        .map(|(i, n)| Field::new(n, u(le64(b, 32 + 8 * i))))
        .collect();
    Value::structure(vec![Field::new("progress", Value::structure(progress))])
}

/// `struct btrfs_ioctl_send_args`; the clone sources with `-v`.
fn send(c: &mut Ctx, b: &[u8]) -> Value {
    let n = le64(b, 8);
    let sources = le64(b, 16);
    let mut f = vec![
        Field::new("send_fd", fd64(c, le64(b, 0))),
        Field::new("clone_sources_count", u(n)),
    ];
    let v = if c.opts.verbose {
        array_at(c, sources, n, 8, |c, e| Some(objid(c, le64(e, 0))))
    } else {
        Value::Ptr(sources)
    };
    f.push(Field::new("clone_sources", v));
    f.push(Field::new("parent_root", objid(c, le64(b, 24))));
    f.push(Field::new(
        "flags",
        xflags(
            c,
            le64(b, 32),
            &xlat::BTRFS_SEND_FLAGS,
            "BTRFS_SEND_FLAGS_???",
        ),
    ));
    Value::structure(f)
}
