//! capget and capset, as strace 6.1's `caps.c` prints them: the header
//! `{version=_LINUX_CAPABILITY_VERSION_3, pid=0}` and the sets as
//! `1<<CAP_CHOWN|1<<CAP_KILL|…` (two 32-bit words for versions 2 and 3).

use crate::syscall::{printers::le32, Field};
use crate::syscall::{Ctx, Decoder, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] =
    &[("capget", capget), ("capset", capset)];

/// The header's `(version, pid)`, or `None` when NULL or unreadable.
fn header(c: &mut Ctx) -> Option<(u64, i64)> {
    let b = c.read_bytes(c.arg_ulong(0), 8)?;
    Some((le32(&b, 0), le32(&b, 4) as u32 as i32 as i64))
}

/// `{version=…, pid=…}` or the address.
fn header_value(c: &mut Ctx, h: Option<(u64, i64)>) -> Value {
    let addr = c.arg_ulong(0);
    match h {
        None if addr == 0 => Value::Ptr(0),
        None => Value::Unreadable(addr),
        Some((v, pid)) => Value::structure(vec![
            Field::new(
                "version",
                c.enum_value(v, &xlat::CAP_VERSION, "_LINUX_CAPABILITY_VERSION_???"),
            ),
            Field::new("pid", c.pid_value(pid)),
        ]),
    }
}

/// One 32-bit word of a capability set: `1<<CAP_X|…`, unknown bits in hex,
/// `0` when empty; `base` is the number of the word's first capability.
fn cap_word(c: &Ctx, w: u64, base: u64) -> String {
    if c.opts.xlat_style == 1 {
        return format!("{w:#x}");
    }
    let mut names = Vec::new();
    let mut rest = w;
    for bit in 0..32 {
        if w & (1 << bit) != 0 {
            if let Some(n) = xlat::CAP.lookup(base + bit) {
                names.push(format!("1<<{n}"));
                rest &= !(1 << bit);
            }
        }
    }
    match (names.is_empty(), rest) {
        (true, 0) => "0".to_string(),
        (true, r) => format!("{r:#x} /* CAP_??? */"),
        (false, 0) => names.join("|"),
        (false, r) => format!("{}|{r:#x}", names.join("|")),
    }
}

/// strace's `print_cap_bits`.
fn cap_bits(c: &Ctx, lo: u64, hi: u64) -> Value {
    let mut s = String::new();
    if lo != 0 || hi == 0 {
        s = cap_word(c, lo, 0);
    }
    if hi != 0 {
        if lo != 0 {
            s.push('|');
        }
        s.push_str(&cap_word(c, hi, 32));
    }
    Value::Sym(Cow::Owned(s))
}

/// `{effective=…, permitted=…, inheritable=…}` at argument 1 for header `h`.
fn data_value(c: &mut Ctx, h: Option<(u64, i64)>) -> Value {
    let addr = c.arg_ulong(1);
    let Some((version, _)) = h.filter(|_| addr != 0) else {
        return Value::Ptr(addr);
    };
    let words = match xlat::CAP_VERSION.lookup(version) {
        Some("_LINUX_CAPABILITY_VERSION_2" | "_LINUX_CAPABILITY_VERSION_3") => 2,
        _ => 1,
    };
    let Some(b) = c.read_bytes(addr, 12 * words) else {
        return Value::Unreadable(addr);
    };
    let set = |i: usize| {
        let lo = le32(&b, 4 * i);
        let hi = if words > 1 { le32(&b, 12 + 4 * i) } else { 0 };
        cap_bits(c, lo, hi)
    };
    Value::structure(vec![
        Field::new("effective", set(0)),
        Field::new("permitted", set(1)),
        Field::new("inheritable", set(2)),
    ])
}

/// `capget(hdrp, datap)`: the sets at exit (the address when it failed).
fn capget(c: &mut Ctx) -> Step {
    if c.entering() {
        let h = header(c);
        let v = header_value(c, h);
        c.push(v);
        return Step::Exit;
    }
    let h = if c.failed() { None } else { header(c) };
    let v = data_value(c, h);
    c.push(v);
    Step::Done(RetFmt::Int)
}

/// `capset(hdrp, datap)`.
fn capset(c: &mut Ctx) -> Step {
    let h = header(c);
    let v = header_value(c, h);
    c.push(v);
    let v = data_value(c, h);
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::run;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn caps() {
        let mut m = FakeMemory::default();
        let h3 = m.put(&words(&[0x2008_0522, 0]));
        let d = m.put(&words(&[5, 5, 0, 0x300, 0x10000, 0]));
        assert_eq!(
            run(capset, "capset", &[h3, d], -1, &mut m),
            "capset({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=1<<CAP_CHOWN|1<<CAP_DAC_READ_SEARCH|1<<CAP_CHECKPOINT_RESTORE|0x200, permitted=1<<CAP_CHOWN|1<<CAP_DAC_READ_SEARCH|0x10000 /* CAP_??? */, inheritable=0}) = -1 EPERM (Operation not permitted)"
        );
        let h0 = m.put(&words(&[0, 0]));
        assert_eq!(
            run(capget, "capget", &[h0, d], -22, &mut m),
            format!("capget({{version=0 /* _LINUX_CAPABILITY_VERSION_??? */, pid=0}}, {d:#x}) = -1 EINVAL (Invalid argument)")
        );
        assert_eq!(
            run(capget, "capget", &[0, 0], -14, &mut m),
            "capget(NULL, NULL) = -1 EFAULT (Bad address)"
        );
    }
}
