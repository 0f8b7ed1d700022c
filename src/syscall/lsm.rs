//! The Linux security module calls (Linux 6.8): lsm_get_self_attr,
//! lsm_set_self_attr and lsm_list_modules, with their `struct lsm_ctx`
//! sequences, as strace 7.2's `lsm.c` prints them.

use crate::syscall::array::array_at;
use crate::syscall::layout::kstruct;
use crate::syscall::netlink::hexstr_value;
use crate::syscall::printers::{le32, le64, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::{xlat, Xlat};
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("lsm_get_self_attr", lsm_get_self_attr),
    ("lsm_set_self_attr", lsm_set_self_attr),
    ("lsm_list_modules", lsm_list_modules),
];

kstruct! {
    /// `struct lsm_ctx` (linux/lsm.h) without its `ctx` bytes.
    struct LsmCtx size 32 {
        id: u64 @ 0,
        flags: u64 @ 8,
        len: u64 @ 16,
        ctx_len: u64 @ 24,
    }
}

/// `LSM_FLAG_SINGLE`: lsm_get_self_attr reads the module id at entry.
const LSM_FLAG_SINGLE: u64 = 1;

/// strace's `PRINT_FIELD_XVAL` without a default: the name, or the number.
fn xval(c: &Ctx, v: u64, table: &Xlat) -> Value {
    match table.lookup(v) {
        Some(_) => c.enum_value(v, table, ""),
        None => xint(v),
    }
}

/// strace's `tfetch_obj`: `n` bytes at `addr`, not after a failed call.
fn fetch(c: &mut Ctx, addr: u64, n: usize, ignore_error: bool) -> Option<Vec<u8>> {
    if c.exiting() && c.failed() && !ignore_error {
        return None;
    }
    c.read_bytes(addr, n)
}

/// The `u32` size at `addr` (`[4096]`), the address, or `NULL`.
fn size_at(c: &mut Ctx, addr: u64) -> Value {
    match fetch(c, addr, 4, false) {
        Some(b) => Value::Array(vec![Value::UInt(le32(&b, 0))], false),
        None if addr == 0 => Value::Ptr(0),
        None => Value::Unreadable(addr),
    }
}

/// `[4096]`, or `[4096 => 24]` when the kernel changed the size.
fn size_changed(before: u64, now: u64) -> Value {
    let v = if before == now {
        Value::UInt(now)
    } else {
        Value::Changed(Box::new(Value::UInt(before)), Box::new(Value::UInt(now)))
    };
    Value::Array(vec![v], false)
}

/// `{id=LSM_ID_APPARMOR, flags=0, len=48, ctx_len=16, ctx="\x75…"}`: the
/// context bytes only as far as `len` (the room left) allows.
fn lsm_ctx_value(c: &mut Ctx, b: &[u8], addr: u64, len: u64) -> Value {
    let h = LsmCtx(b);
    let mut f = vec![
        Field::new("id", xval(c, h.id(), &xlat::LSM_IDS)),
        Field::new("flags", xint(h.flags())),
        Field::new("len", Value::UInt(h.len())),
        Field::new("ctx_len", Value::UInt(h.ctx_len())),
    ];
    let head = LsmCtx::SIZE as u64;
    let msg_len = h.len().min(len) as u32 as u64;
    let ctx_len = h.ctx_len().min(msg_len.saturating_sub(head)) as u32 as u64;
    if ctx_len > 0 {
        f.push(Field::new("ctx", hexstr_value(c, addr + head, ctx_len)));
    }
    Value::structure(f)
}

/// strace's `decode_lsm_ctx_sequence`: the contexts one after the other in
/// the `len` bytes at `addr`, each `len` long; `... /* 0xaddr */` when one
/// cannot be read after the first, `...` past `-s` without `-v`.
fn lsm_ctx_sequence(c: &mut Ctx, mut addr: u64, mut len: u64) -> Value {
    let head = LsmCtx::SIZE;
    let mut items = Vec::new();
    loop {
        let b = if len >= head as u64 {
            fetch(c, addr, head, false)
        } else {
            None
        };
        let Some(b) = b else {
            if items.is_empty() {
                return if addr == 0 {
                    Value::Ptr(0)
                } else {
                    Value::Unreadable(addr)
                };
            }
            let at = Cow::Owned(format!("{addr:#x}"));
            items.push(Value::Commented(Box::new(Value::sym("...")), at));
            break;
        };
        if !c.opts.verbose && items.len() + 1 > c.opts.string_limit {
            return Value::Array(items, true);
        }
        let ctx_len = LsmCtx(&b).len();
        let mut next = None;
        if ctx_len >= head as u64 && len >= ctx_len && len > ctx_len {
            if let Some(a) = addr.checked_add(ctx_len) {
                next = Some((a, len - ctx_len));
            }
        }
        items.push(lsm_ctx_value(c, &b, addr, len));
        match next {
            Some((a, l)) => (addr, len) = (a, l),
            None => break,
        }
    }
    Value::Array(items, false)
}

/// `lsm_get_self_attr(attr, ctx, size, flags)`: with `LSM_FLAG_SINGLE` the
/// module id asked for at entry (`{id=LSM_ID_SELINUX} => [{…}]`).
fn lsm_get_self_attr(c: &mut Ctx) -> Step {
    let (p_ctx, p_size) = (c.arg_ulong(1), c.arg_ulong(2));
    let flags = c.arg(3) as u32 as u64;
    let single = flags & LSM_FLAG_SINGLE != 0;
    if c.entering() {
        let v = c.enum_value(c.arg(0) as u32 as u64, &xlat::LSM_ATTRS, "LSM_ATTR_???");
        c.push(v);
        let size = fetch(c, p_size, 4, false);
        let id = if single {
            fetch(c, p_ctx, LsmCtx::SIZE, false)
        } else {
            Some(Vec::new())
        };
        let (Some(size), Some(_)) = (size, id) else {
            c.push(Value::Ptr(p_ctx));
            return size_flags(c, p_size, flags);
        };
        c.saved = le32(&size, 0);
        // The id asked for prints at exit, before what the kernel wrote
        // back (`{id=…} => […]`): the line cannot join the two otherwise.
        return Step::Exit;
    }
    // With LSM_FLAG_SINGLE the kernel writes back the context of the module
    // asked for, so the id read now is the one read at entry.
    let asked = match fetch(c, p_ctx, 8, true) {
        Some(id) if single => {
            let id = xval(c, le64(&id, 0), &xlat::LSM_IDS);
            Some(Value::structure(vec![Field::new("id", id)]))
        }
        _ => None,
    };
    let Some(size) = fetch(c, p_size, 4, true) else {
        c.push(asked.unwrap_or(Value::Ptr(p_ctx)));
        return size_flags(c, p_size, flags);
    };
    let size = le32(&size, 0);
    let seq = lsm_ctx_sequence(c, p_ctx, size);
    let v = match asked {
        Some(id) => Value::Changed(Box::new(id), Box::new(seq)),
        None => seq,
    };
    c.push(v);
    c.push(size_changed(c.saved, size));
    c.push(xflags(c, flags, &xlat::LSM_FLAGS, "LSM_FLAG_???"));
    Step::Done(RetFmt::Int)
}

/// The size pointer and the flags after a context that could not be read.
fn size_flags(c: &mut Ctx, p_size: u64, flags: u64) -> Step {
    let v = size_at(c, p_size);
    c.push(v);
    c.push(xflags(c, flags, &xlat::LSM_FLAGS, "LSM_FLAG_???"));
    Step::Done(RetFmt::Int)
}

/// `lsm_set_self_attr(attr, ctx, size, flags)`.
fn lsm_set_self_attr(c: &mut Ctx) -> Step {
    let v = c.enum_value(c.arg(0) as u32 as u64, &xlat::LSM_ATTRS, "LSM_ATTR_???");
    c.push(v);
    let (addr, size) = (c.arg_ulong(1), c.arg(2) as u32 as u64);
    let b = if size >= LsmCtx::SIZE as u64 {
        fetch(c, addr, LsmCtx::SIZE, false)
    } else {
        None
    };
    let v = match b {
        Some(b) => lsm_ctx_value(c, &b, addr, size),
        None if addr == 0 => Value::Ptr(0),
        None => Value::Unreadable(addr),
    };
    c.push(v);
    c.push(Value::UInt(size));
    c.push(xint(c.arg(3) as u32 as u64));
    Step::Done(RetFmt::Int)
}

/// `lsm_list_modules(ids, size, flags)`: the module ids at exit.
fn lsm_list_modules(c: &mut Ctx) -> Step {
    let (p_ids, p_size) = (c.arg_ulong(0), c.arg_ulong(1));
    let flags = xint(c.arg(2) as u32 as u64);
    if c.entering() {
        let Some(size) = fetch(c, p_size, 4, false) else {
            c.push(Value::Ptr(p_ids));
            let v = size_at(c, p_size);
            c.push(v);
            c.push(flags);
            return Step::Done(RetFmt::Int);
        };
        c.saved = le32(&size, 0);
        return Step::Exit;
    }
    let Some(size) = fetch(c, p_size, 4, true) else {
        c.push(Value::Ptr(p_ids));
        let v = size_at(c, p_size);
        c.push(v);
        c.push(flags);
        return Step::Done(RetFmt::Int);
    };
    // A failed call's -1 counts no ids: the array prints as its address.
    let n = c.retval() as u64;
    let v = if (c.failed() || !c.opts.deref) && p_ids != 0 && n != 0 {
        Value::Ptr(p_ids)
    } else {
        array_at(c, p_ids, n, 8, |c, b| {
            Some(c.enum_value(le64(b, 0), &xlat::LSM_IDS, "LSM_ID_???"))
        })
    };
    c.push(v);
    c.push(size_changed(c.saved, le32(&size, 0)));
    c.push(flags);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn set_self_attr() {
        let mut m = FakeMemory::default();
        let mut ctx = Vec::new();
        for v in [104u64, 0, 36, 4] {
            ctx.extend_from_slice(&v.to_le_bytes());
        }
        ctx.extend_from_slice(b"abcd");
        let a = m.put(&ctx);
        assert_eq!(
            run(lsm_set_self_attr, "lsm_set_self_attr", &[100, a, 36, 0], -95, &mut m),
            "lsm_set_self_attr(LSM_ATTR_CURRENT, {id=LSM_ID_APPARMOR, flags=0, len=36, ctx_len=4, ctx=\"\\x61\\x62\\x63\\x64\"}, 36, 0) = -1 EOPNOTSUPP (Operation not supported)"
        );
        // Room for two of the four context bytes.
        assert_eq!(
            run(lsm_set_self_attr, "lsm_set_self_attr", &[1, a, 34, 5], -22, &mut m),
            "lsm_set_self_attr(0x1 /* LSM_ATTR_??? */, {id=LSM_ID_APPARMOR, flags=0, len=36, ctx_len=4, ctx=\"\\x61\\x62\"}, 34, 0x5) = -1 EINVAL (Invalid argument)"
        );
        assert_eq!(
            run(
                lsm_set_self_attr,
                "lsm_set_self_attr",
                &[100, a, 8, 0],
                -22,
                &mut m
            ),
            format!(
                "lsm_set_self_attr(LSM_ATTR_CURRENT, {a:#x}, 8, 0) = -1 EINVAL (Invalid argument)"
            )
        );
    }
}
