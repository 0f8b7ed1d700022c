//! statmount and listmount (Linux 6.8), which name a mount by its unique id
//! in a `struct mnt_id_req`, as strace 7.2's `statmount.c` and
//! `listmount.c` print them: the request at entry, the kernel's answer
//! (`struct statmount` and its strings, or the array of mount ids) at exit.

use crate::syscall::array::array_at;
use crate::syscall::layout::kstruct;
use crate::syscall::printers::{le64, push_nonzero_tail, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, StrVal, Value};
use rtrace_arch::{xlat, Xlat};

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] =
    &[("statmount", statmount), ("listmount", listmount)];

kstruct! {
    /// `struct mnt_id_req` (linux/mount.h), its second version.
    struct MntIdReq size 32 {
        size: u32 @ 0,
        mnt_ns_fd: u32 @ 4,
        mnt_id: u64 @ 8,
        param: u64 @ 16,
        mnt_ns_id: u64 @ 24,
    }
}

/// `MNT_ID_REQ_SIZE_VER0`: a shorter request prints its size alone.
const MNT_ID_REQ_SIZE_VER0: u32 = 24;

kstruct! {
    /// `struct statmount` (linux/mount.h) without its strings: string
    /// fields are offsets into the bytes that follow it.
    struct Statmount size 512 {
        size: u32 @ 0,
        mnt_opts: u32 @ 4,
        mask: u64 @ 8,
        sb_dev_major: u32 @ 16,
        sb_dev_minor: u32 @ 20,
        sb_magic: u64 @ 24,
        sb_flags: u32 @ 32,
        fs_type: u32 @ 36,
        mnt_id: u64 @ 40,
        mnt_parent_id: u64 @ 48,
        mnt_id_old: u32 @ 56,
        mnt_parent_id_old: u32 @ 60,
        mnt_attr: u64 @ 64,
        mnt_propagation: u64 @ 72,
        mnt_peer_group: u64 @ 80,
        mnt_master: u64 @ 88,
        propagate_from: u64 @ 96,
        mnt_root: u32 @ 104,
        mnt_point: u32 @ 108,
        mnt_ns_id: u64 @ 112,
        fs_subtype: u32 @ 120,
        sb_source: u32 @ 124,
        opt_num: u32 @ 128,
        opt_array: u32 @ 132,
        opt_sec_num: u32 @ 136,
        opt_sec_array: u32 @ 140,
        supported_mask: u64 @ 144,
        mnt_uidmap_num: u32 @ 152,
        mnt_uidmap: u32 @ 156,
        mnt_gidmap_num: u32 @ 160,
        mnt_gidmap: u32 @ 164,
    }
}

/// strace reads at most `PATH_MAX * 3` bytes of strings.
const STR_MAX: u64 = 4096 * 3;

// STATMOUNT_* bits that select the fields printed.
const SB_BASIC: u64 = 0x1;
const MNT_BASIC: u64 = 0x2;
const PROPAGATE_FROM: u64 = 0x4;
const MNT_ROOT: u64 = 0x8;
const MNT_POINT: u64 = 0x10;
const FS_TYPE: u64 = 0x20;
const MNT_NS_ID: u64 = 0x40;
const MNT_OPTS: u64 = 0x80;
const FS_SUBTYPE: u64 = 0x100;
const SB_SOURCE: u64 = 0x200;
const OPT_ARRAY: u64 = 0x400;
const OPT_SEC_ARRAY: u64 = 0x800;
const SUPPORTED_MASK: u64 = 0x1000;
const MNT_UIDMAP: u64 = 0x2000;
const MNT_GIDMAP: u64 = 0x4000;

/// strace's `PRINT_FIELD_XVAL` without a default: the name, or the number.
fn xval(c: &Ctx, v: u64, table: &Xlat) -> Value {
    match table.lookup(v) {
        Some(_) => c.enum_value(v, table, ""),
        None => xint(v),
    }
}

/// `{size=24, mnt_ns_fd=0, mnt_id=0x80000017, param=STATMOUNT_SB_BASIC}`:
/// the size alone below the first version, `???` when the rest cannot be
/// read, `mnt_ns_id` from the second version on, a larger request's
/// non-zero tail. `list` selects listmount's fields (`LSMT_ROOT`, a plain
/// `param`) over statmount's (a `STATMOUNT_*` mask).
fn mnt_id_req(c: &mut Ctx, addr: u64, list: bool) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let Some(b) = c.read_bytes(addr, 4) else {
        return Value::Unreadable(addr);
    };
    let size = MntIdReq(&b).size();
    let mut f = vec![Field::new("size", Value::UInt(size as u64))];
    if size < MNT_ID_REQ_SIZE_VER0 {
        return Value::structure(f);
    }
    let Some(b) = c.read_bytes(addr, (size as usize).min(MntIdReq::SIZE)) else {
        f.push(Field::new("", Value::sym("???")));
        return Value::structure(f);
    };
    let r = MntIdReq(&b);
    f.push(Field::new(
        "mnt_ns_fd",
        c.fd_value(r.mnt_ns_fd() as i32 as i64),
    ));
    let (mnt_id, param) = if list {
        (
            xval(c, r.mnt_id(), &xlat::LISTMOUNT_MNT_ID),
            xint(r.param()),
        )
    } else {
        let p = xflags(c, r.param(), &xlat::STATMOUNT_MASK, "STATMOUNT_???");
        (xint(r.mnt_id()), p)
    };
    f.push(Field::new("mnt_id", mnt_id));
    f.push(Field::new("param", param));
    if size as usize >= MntIdReq::SIZE {
        f.push(Field::new("mnt_ns_id", xint(r.mnt_ns_id())));
    }
    push_nonzero_tail(c, &mut f, addr, MntIdReq::SIZE as u64, size as u64);
    Value::structure(f)
}

/// `statmount(req, buf, bufsize, flags)`: the request at entry, the
/// answer at exit.
fn statmount(c: &mut Ctx) -> Step {
    if c.entering() {
        let v = mnt_id_req(c, c.arg_ulong(0), false);
        c.push(v);
        return Step::Exit;
    }
    let (addr, size) = (c.arg_ulong(1), c.arg_ulong(2));
    let v = statmount_value(c, addr, size);
    c.push(v);
    c.push(Value::UInt(size));
    let v = xflags(
        c,
        c.arg(3) as u32 as u64,
        &xlat::STATMOUNT_FLAGS,
        "STATMOUNT_???",
    );
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// The strings after a `struct statmount`, which string fields point into.
struct Strings(Vec<u8>);

impl Strings {
    /// strace's `PRINT_FIELD_CSTRING_OFFSET`: the string at `off`, or the
    /// offset in hex when it is outside the strings read.
    fn at(&self, off: u32) -> Value {
        match self.cstr(off as usize) {
            Some((s, _)) => Value::Str(s),
            None => xint(off as u64),
        }
    }

    /// strace's `print_quoted_cstring` of the strings from `off` on, and
    /// the offset after the string: the terminating NUL must lie within
    /// the strings, else the string prints one byte short and truncated
    /// (`"ab"...`).
    fn cstr(&self, off: usize) -> Option<(StrVal, usize)> {
        let rest = self.0.get(off..).filter(|r| !r.is_empty())?;
        let len = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        let shown = len.min(rest.len() - 1);
        let s = StrVal {
            bytes: rest[..shown].to_vec(),
            truncated: len == rest.len(),
            c_string: true,
        };
        Some((s, off + len + 1))
    }

    /// `["a", "b"]`: `num` strings one after the other from `off` (the
    /// offset in hex when outside the strings), `???` when the strings end
    /// first, `...` past `-s` elements without `-v`.
    fn seq(&self, c: &Ctx, off: u32, num: u32) -> Value {
        let mut pos = off as usize;
        if pos >= self.0.len() {
            return xint(off as u64);
        }
        let mut items = Vec::new();
        for i in 0..num as usize {
            if !c.opts.verbose && i >= c.opts.string_limit {
                return Value::Array(items, true);
            }
            let Some((s, next)) = self.cstr(pos) else {
                items.push(Value::sym("???"));
                break;
            };
            items.push(Value::Str(s));
            pos = next;
        }
        Value::Array(items, false)
    }
}

/// strace's `print_statmount`: the fields the mask selects, strings from
/// the bytes after the structure when the whole answer fit in `size`.
fn statmount_value(c: &mut Ctx, addr: u64, size: u64) -> Value {
    let fetch = size.min(Statmount::SIZE as u64) as usize;
    if fetch < 4 || addr == 0 || c.failed() {
        return Value::Ptr(addr);
    }
    let Some(mut b) = c.read_bytes(addr, fetch) else {
        return Value::Unreadable(addr);
    };
    b.resize(Statmount::SIZE, 0);
    let st = Statmount(&b);
    let total = st.size() as u64;
    let whole = Statmount::SIZE as u64;
    let str_size = if total > whole && total <= size {
        (total - whole).min(STR_MAX)
    } else {
        0
    };
    let strs = Strings(
        c.read_bytes(addr + whole, str_size as usize)
            .unwrap_or_default(),
    );
    let mask = st.mask();
    let mut f = vec![Field::new("size", Value::UInt(total))];
    let add = |f: &mut Vec<Field>, name: &'static str, v: Value| f.push(Field::new(name, v));
    if mask & MNT_OPTS != 0 {
        add(&mut f, "mnt_opts", strs.at(st.mnt_opts()));
    }
    let m = xflags(c, mask, &xlat::STATMOUNT_MASK, "STATMOUNT_???");
    add(&mut f, "mask", m);
    if mask & SB_BASIC != 0 {
        add(
            &mut f,
            "sb_dev_major",
            Value::UInt(st.sb_dev_major() as u64),
        );
        add(
            &mut f,
            "sb_dev_minor",
            Value::UInt(st.sb_dev_minor() as u64),
        );
        add(&mut f, "sb_magic", xval(c, st.sb_magic(), &xlat::FSMAGIC));
        let v = xflags(c, st.sb_flags() as u64, &xlat::STATMOUNT_SB_FLAGS, "MS_???");
        add(&mut f, "sb_flags", v);
    }
    if mask & FS_TYPE != 0 {
        add(&mut f, "fs_type", strs.at(st.fs_type()));
    }
    if mask & MNT_BASIC != 0 {
        add(&mut f, "mnt_id", xint(st.mnt_id()));
        add(&mut f, "mnt_parent_id", xint(st.mnt_parent_id()));
        add(&mut f, "mnt_id_old", xint(st.mnt_id_old() as u64));
        add(
            &mut f,
            "mnt_parent_id_old",
            xint(st.mnt_parent_id_old() as u64),
        );
        let v = xflags(c, st.mnt_attr(), &xlat::MOUNT_ATTR_ATTR, "MOUNT_ATTR_???");
        add(&mut f, "mnt_attr", v);
        let v = xflags(
            c,
            st.mnt_propagation(),
            &xlat::STATMOUNT_MNT_PROPAGATION,
            "MS_???",
        );
        add(&mut f, "mnt_propagation", v);
        add(&mut f, "mnt_peer_group", xint(st.mnt_peer_group()));
        add(&mut f, "mnt_master", xint(st.mnt_master()));
    }
    if mask & PROPAGATE_FROM != 0 {
        add(&mut f, "propagate_from", xint(st.propagate_from()));
    }
    if mask & MNT_ROOT != 0 {
        add(&mut f, "mnt_root", strs.at(st.mnt_root()));
    }
    if mask & MNT_POINT != 0 {
        add(&mut f, "mnt_point", strs.at(st.mnt_point()));
    }
    if mask & MNT_NS_ID != 0 {
        add(&mut f, "mnt_ns_id", xint(st.mnt_ns_id()));
    }
    if mask & FS_SUBTYPE != 0 {
        add(&mut f, "fs_subtype", strs.at(st.fs_subtype()));
    }
    if mask & SB_SOURCE != 0 {
        add(&mut f, "sb_source", strs.at(st.sb_source()));
    }
    if mask & OPT_ARRAY != 0 {
        add(&mut f, "opt_num", Value::UInt(st.opt_num() as u64));
        add(
            &mut f,
            "opt_array",
            strs.seq(c, st.opt_array(), st.opt_num()),
        );
    }
    if mask & OPT_SEC_ARRAY != 0 {
        add(&mut f, "opt_sec_num", Value::UInt(st.opt_sec_num() as u64));
        let v = strs.seq(c, st.opt_sec_array(), st.opt_sec_num());
        add(&mut f, "opt_sec_array", v);
    }
    if mask & SUPPORTED_MASK != 0 {
        let v = xflags(
            c,
            st.supported_mask(),
            &xlat::STATMOUNT_MASK,
            "STATMOUNT_???",
        );
        add(&mut f, "supported_mask", v);
    }
    if mask & MNT_UIDMAP != 0 {
        let n = st.mnt_uidmap_num();
        add(&mut f, "mnt_uidmap_num", Value::UInt(n as u64));
        add(&mut f, "mnt_uidmap", strs.seq(c, st.mnt_uidmap(), n));
    }
    if mask & MNT_GIDMAP != 0 {
        let n = st.mnt_gidmap_num();
        add(&mut f, "mnt_gidmap_num", Value::UInt(n as u64));
        add(&mut f, "mnt_gidmap", strs.seq(c, st.mnt_gidmap(), n));
    }
    Value::structure(f)
}

/// `listmount(req, mnt_ids, nr_mnt_ids, flags)`: the ids the kernel wrote
/// (as many as it returned) at exit.
fn listmount(c: &mut Ctx) -> Step {
    if c.entering() {
        let v = mnt_id_req(c, c.arg_ulong(0), true);
        c.push(v);
        return Step::Exit;
    }
    let (addr, nr) = (c.arg_ulong(1), c.arg_ulong(2));
    // A failed call's -1 is no limit; its array (and any under
    // `-e verbose=none`) prints as the address.
    let n = nr.min(c.retval() as u64);
    let v = if (c.failed() || !c.opts.deref) && addr != 0 && n != 0 {
        Value::Ptr(addr)
    } else {
        array_at(c, addr, n, 8, |_, b| Some(xint(le64(b, 0))))
    };
    c.push(v);
    c.push(Value::UInt(nr));
    let v = xflags(
        c,
        c.arg(3) as u32 as u64,
        &xlat::LISTMOUNT_FLAGS,
        "LISTMOUNT_???",
    );
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_need_their_nul_inside() {
        let s = Strings(b"ab\0cd".to_vec());
        let (v, next) = s.cstr(0).unwrap();
        assert_eq!(
            (v.bytes.as_slice(), v.truncated, next),
            (&b"ab"[..], false, 3)
        );
        // "cd" runs to the end: one byte short, and truncated.
        let (v, next) = s.cstr(3).unwrap();
        assert_eq!(
            (v.bytes.as_slice(), v.truncated, next),
            (&b"c"[..], true, 6)
        );
        assert!(s.cstr(5).is_none());
        assert_eq!(s.at(9), Value::Hex(9));
    }
}
