//! listns (Linux 6.19): the namespaces of a type, by id, in a
//! `struct ns_id_req`, as strace 7.2's `listns.c` prints it.

use crate::syscall::array::array_at;
use crate::syscall::layout::kstruct;
use crate::syscall::printers::{le64, push_nonzero_tail, xflags, xint};
use crate::syscall::{Ctx, Decoder, Field, RetFmt, Step, Value};
use rtrace_arch::xlat;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[("listns", listns)];

kstruct! {
    /// `struct ns_id_req` (linux/nsfs.h), its first version.
    struct NsIdReq size 32 {
        size: u32 @ 0,
        spare: u32 @ 4,
        ns_id: u64 @ 8,
        ns_type: u32 @ 16,
        spare2: u32 @ 20,
        user_ns_id: u64 @ 24,
    }
}

/// `{size=32, ns_id=0, ns_type=MNT_NS, user_ns_id=LISTNS_CURRENT_USER}`:
/// the size alone below the first version, `???` when the rest cannot be
/// read, the spare fields only when not zero, a larger request's non-zero
/// tail.
fn ns_id_req(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 {
        return Value::Ptr(0);
    }
    let Some(b) = c.read_bytes(addr, 4) else {
        return Value::Unreadable(addr);
    };
    let size = NsIdReq(&b).size() as u64;
    let mut f = vec![Field::new("size", Value::UInt(size))];
    if size < NsIdReq::SIZE as u64 {
        return Value::structure(f);
    }
    let Some(b) = c.read_bytes(addr, NsIdReq::SIZE) else {
        f.push(Field::new("", Value::sym("???")));
        return Value::structure(f);
    };
    let r = NsIdReq(&b);
    if r.spare() != 0 {
        f.push(Field::new("spare", xint(r.spare() as u64)));
    }
    f.push(Field::new("ns_id", xint(r.ns_id())));
    let t = xflags(c, r.ns_type() as u64, &xlat::NS_TYPE, "???_NS");
    f.push(Field::new("ns_type", t));
    if r.spare2() != 0 {
        f.push(Field::new("spare2", xint(r.spare2() as u64)));
    }
    let u = r.user_ns_id();
    let u = match xlat::LISTNS_USER_NS_ID.lookup(u) {
        Some(_) => c.enum_value(u, &xlat::LISTNS_USER_NS_ID, ""),
        None => xint(u),
    };
    f.push(Field::new("user_ns_id", u));
    push_nonzero_tail(c, &mut f, addr, NsIdReq::SIZE as u64, size);
    Value::structure(f)
}

/// `listns(req, ns_ids, nr_ns_ids, flags)`: the request at entry, the ids
/// the kernel wrote (as many as it returned) at exit.
fn listns(c: &mut Ctx) -> Step {
    if c.entering() {
        let v = ns_id_req(c, c.arg_ulong(0));
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
    c.push(xint(c.arg(3) as u32 as u64));
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    #[test]
    fn requests() {
        let mut m = FakeMemory::default();
        let mut req = Vec::new();
        req.extend_from_slice(&32u32.to_le_bytes());
        req.extend_from_slice(&0u32.to_le_bytes());
        req.extend_from_slice(&0u64.to_le_bytes());
        req.extend_from_slice(&0x2002_0000u32.to_le_bytes());
        req.extend_from_slice(&0u32.to_le_bytes());
        req.extend_from_slice(&u64::MAX.to_le_bytes());
        let r = m.put(&req);
        assert_eq!(
            run(listns, "listns", &[r, 0x1000, 4, 0], -38, &mut m),
            "listns({size=32, ns_id=0, ns_type=MNT_NS|PID_NS, user_ns_id=LISTNS_CURRENT_USER}, 0x1000, 4, 0) = -1 ENOSYS (Function not implemented)"
        );
        let small = m.put(&8u32.to_le_bytes());
        assert_eq!(
            run(listns, "listns", &[small, 0, 4, 1], -38, &mut m),
            "listns({size=8}, NULL, 4, 0x1) = -1 ENOSYS (Function not implemented)"
        );
    }
}
