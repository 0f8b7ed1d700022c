//! Signal numbers (`SIGINT`, `10 /* SIGUSR1 */`) and signal sets
//! (`[INT TERM]`, `~[RTMIN RT_1]`) as strace prints them, from memory or
//! from bytes.

use crate::syscall::ctx::{sig_value, signal_name};
use crate::syscall::printers::struct_at;
use crate::syscall::{Ctx, Value};
use std::borrow::Cow;

/// The size of the kernel's `sigset_t` (64 signals) in bytes.
pub(in crate::syscall::signal) const NSIG_BYTES: u64 = 8;

// ---- signal numbers ----

/// A signal number argument (a C `int`).
pub(in crate::syscall) fn sig_arg(c: &mut Ctx, i: usize) {
    let v = sig_value(c.opts.xlat_style, c.arg_int(i) as i64);
    c.push(v);
}

/// The name strace prints for signal `i` inside a set: `INT`, `RTMIN`, `RT_3`.
fn set_member_name(i: u64) -> Option<Cow<'static, str>> {
    match signal_name(i)? {
        Cow::Borrowed(s) => Some(Cow::Borrowed(s.strip_prefix("SIG").unwrap_or(s))),
        Cow::Owned(s) => Some(Cow::Owned(s.strip_prefix("SIG").unwrap_or(&s).to_string())),
    }
}

// ---- signal sets ----

/// A signal set of `bytes` (at most 8 are used) as strace's `sprintsigmask_n`
/// prints it: `[INT TERM]`, `[]`, or `~[...]` listing the signals *not* in
/// the set when two thirds or more of its bits are set.
pub fn sigset_value(bytes: &[u8]) -> Value {
    sigset_value_styled(0, bytes)
}

/// [`sigset_value`] in an `-X` style (0 abbrev, 1 raw, 2 verbose).
pub fn sigset_value_styled(style: u8, bytes: &[u8]) -> Value {
    Value::sym_owned(sigset_text(style, bytes))
}

/// The text of a signal set (see [`sigset_value_styled`]).
pub fn sigset_text(style: u8, bytes: &[u8]) -> String {
    let n = bytes.len().min(NSIG_BYTES as usize);
    let words = n.div_ceil(4);
    let mut mask = 0u64;
    for (i, b) in bytes[..n].iter().enumerate() {
        mask |= (*b as u64) << (8 * i);
    }
    let nbits = words * 32;
    let mut s = String::new();
    if mask.count_ones() as usize >= nbits * 2 / 3 {
        mask = !mask;
        s.push('~');
    }
    let mut sep = '[';
    for bit in 0..nbits {
        if mask & (1u64 << bit) == 0 {
            continue;
        }
        let sig = bit as u64 + 1;
        s.push(sep);
        sep = ' ';
        let name = set_member_name(sig);
        match (style, name) {
            (1, _) | (_, None) => s.push_str(&sig.to_string()),
            (2, Some(n)) => s.push_str(&format!("{sig} /* {n} */")),
            (_, Some(n)) => s.push_str(&n),
        }
    }
    if sep == '[' {
        s.push('[');
    }
    s.push(']');
    s
}

/// strace's `print_sigset_addr_len_limit`: the set of `len` bytes at `addr`,
/// or the address when `len` is out of range, the pointer is NULL, the call
/// failed (at exit) or the memory is unreadable.
pub(in crate::syscall) fn sigset_at(c: &mut Ctx, addr: u64, len: u64, min_len: u64) -> Value {
    if len < min_len || len > NSIG_BYTES {
        return Value::Ptr(addr);
    }
    let style = c.opts.xlat_style;
    struct_at(c, addr, Some(len as usize), |_, b| {
        sigset_value_styled(style, b)
    })
}

/// A sigset argument `i` whose size is argument `len_arg`.
pub(in crate::syscall::signal) fn sigset_arg(c: &mut Ctx, i: usize, len_arg: usize) {
    let min = c.arch.word_size() as u64;
    let v = sigset_at(c, c.arg_ulong(i), c.arg_ulong(len_arg), min);
    c.push(v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syscall::signal::tests::{sigset, text};

    #[test]
    fn sigsets() {
        assert_eq!(text(&sigset_value(&sigset(&[2, 15]))), "[INT TERM]");
        assert_eq!(text(&sigset_value(&sigset(&[]))), "[]");
        assert_eq!(
            text(&sigset_value(&sigset(&[32, 35, 64]))),
            "[RTMIN RT_3 RT_32]"
        );
        let all: Vec<u64> = (1..=64).filter(|&s| s != 32 && s != 33).collect();
        assert_eq!(text(&sigset_value(&sigset(&all))), "~[RTMIN RT_1]");
        assert_eq!(text(&sigset_value(&[0xff; 8])), "~[]");
        assert_eq!(
            text(&sigset_value_styled(2, &sigset(&[2, 15]))),
            "[2 /* INT */ 15 /* TERM */]"
        );
        assert_eq!(text(&sigset_value_styled(1, &sigset(&[17]))), "[17]");
        // A 4-byte set: 21 of 32 bits make it inverted.
        assert_eq!(text(&sigset_value(&[0, 0, 0, 0])), "[]");
    }
}
