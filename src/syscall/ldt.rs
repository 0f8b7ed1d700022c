//! x86 thread-local segments: `set_thread_area` / `get_thread_area` with
//! `struct user_desc`, as strace prints them (glibc's i386 start-up calls
//! `set_thread_area` with `entry_number=-1`; the kernel's choice is shown
//! after the return value, `= 0 (entry_number=12)`).

use crate::syscall::{Ctx, Decoder, Ret, RetFmt, Step, Value};
use crate::value::Field;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] = &[
    ("set_thread_area", set_thread_area),
    ("get_thread_area", get_thread_area),
];

/// `struct user_desc`: entry_number, base_addr, limit, then the flag bits.
const SIZE: usize = 16;

/// C's `%#08x`, as strace's `PRINT_FIELD_0X` prints a 32-bit field:
/// `00000000` for zero, else `0x` and at least six digits.
fn hex08(v: u32) -> Value {
    if v == 0 {
        return Value::Sym(Cow::Borrowed("00000000"));
    }
    Value::Sym(Cow::Owned(format!("{v:#08x}")))
}

/// A `uid_t`-like id as strace's `PRINT_VAL_ID`: `-1`, else unsigned.
fn id32(v: u32) -> Value {
    if v == u32::MAX {
        Value::Int(-1)
    } else {
        Value::UInt(u64::from(v))
    }
}

/// The fields of a `struct user_desc` in `b` after `entry_number`; `lm`
/// only for 64-bit tracees (strace ignores it for 32-bit ones).
fn user_desc_rest(b: &[u8], lm: bool) -> Vec<Field> {
    let word = |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    let bits = word(3);
    let bit = |shift: u32, width: u32| Value::UInt(u64::from((bits >> shift) & ((1 << width) - 1)));
    let mut f = vec![
        Field::new("base_addr", hex08(word(1))),
        Field::new("limit", hex08(word(2))),
        Field::new("seg_32bit", bit(0, 1)),
        Field::new("contents", bit(1, 2)),
        Field::new("read_exec_only", bit(3, 1)),
        Field::new("limit_in_pages", bit(4, 1)),
        Field::new("seg_not_present", bit(5, 1)),
        Field::new("useable", bit(6, 1)),
    ];
    if lm {
        f.push(Field::new("lm", bit(7, 1)));
    }
    f
}

/// The entry number at the start of `b`.
fn entry_of(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The whole `struct user_desc` in `b` as strace prints it.
pub(in crate::syscall) fn user_desc(b: &[u8], lm: bool) -> Value {
    let mut f = vec![Field::new("entry_number", id32(entry_of(b)))];
    f.extend(user_desc_rest(b, lm));
    Value::Struct(f, false)
}

fn set_thread_area(c: &mut Ctx) -> Step {
    let addr = c.arg(0);
    let lm = c.arch.word_size() == 8;
    if c.entering() {
        match c.read_bytes(addr, SIZE) {
            Some(b) => {
                c.saved = u64::from(entry_of(&b));
                let v = user_desc(&b, lm);
                c.push(v);
            }
            None => c.ptr(0),
        }
        return Step::Exit;
    }
    let r = c.retval();
    // The kernel picked the entry: strace shows which.
    if !c.failed() && c.saved as u32 as i32 == -1 {
        if let Some(b) = c.read_bytes(addr, 4) {
            let n = entry_of(&b);
            return Step::Done(RetFmt::Value(Ret::Annotated(
                Box::new(Ret::Int(r)),
                Cow::Owned(format!("entry_number={n}")),
            )));
        }
    }
    Step::Done(RetFmt::Int)
}

/// `get_thread_area(u_info)`: the entry number asked for at entry, the rest
/// of the descriptor (`, ...` when the call failed) at exit.
fn get_thread_area(c: &mut Ctx) -> Step {
    let addr = c.arg(0);
    let lm = c.arch.word_size() == 8;
    if c.entering() {
        match c.read_bytes(addr, 4) {
            Some(b) => c.saved = (1 << 32) | u64::from(entry_of(&b)),
            None => {
                c.ptr(0);
                return Step::Done(RetFmt::Int);
            }
        }
        return Step::Exit;
    }
    let asked = c.saved as u32;
    let full = if c.failed() || !c.opts.verbose {
        None
    } else {
        c.read_bytes(addr, SIZE)
    };
    let v = match full {
        Some(b) => {
            let got = entry_of(&b);
            let e = if got == asked {
                id32(asked)
            } else {
                Value::Changed(Box::new(id32(asked)), Box::new(id32(got)))
            };
            let mut f = vec![Field::new("entry_number", e)];
            f.extend(user_desc_rest(&b, lm));
            Value::Struct(f, false)
        }
        None => Value::Struct(vec![Field::new("entry_number", id32(asked))], true),
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_desc_as_strace_prints_it() {
        let mut b = Vec::new();
        for w in [u32::MAX, 0xf7ed_c540, 0xfffff, 0b101_0001] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        let mut out = String::new();
        crate::value::text::render_value(&mut out, &user_desc(&b, false), &Default::default());
        assert_eq!(
            out,
            "{entry_number=-1, base_addr=0xf7edc540, limit=0x0fffff, seg_32bit=1, contents=0, \
             read_exec_only=0, limit_in_pages=1, seg_not_present=0, useable=1}"
        );
        let mut b = Vec::new();
        for w in [0x8382_8180u32, 0, 0x8b8a_8988, 0b1000_1100] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        let mut out = String::new();
        crate::value::text::render_value(&mut out, &user_desc(&b, true), &Default::default());
        assert_eq!(
            out,
            "{entry_number=2206368128, base_addr=00000000, limit=0x8b8a8988, seg_32bit=0, contents=2, \
             read_exec_only=1, limit_in_pages=0, seg_not_present=0, useable=0, lm=1}"
        );
    }

    #[test]
    fn get_thread_area_entry_then_rest() {
        use crate::engine::memory::FakeMemory;
        use crate::syscall::testutil::run;
        let mut m = FakeMemory::default();
        let e = m.put(&12u32.to_le_bytes());
        assert_eq!(
            run(get_thread_area, "get_thread_area", &[e], -38, &mut m),
            "get_thread_area({entry_number=12, ...}) = -1 ENOSYS (Function not implemented)"
        );
    }
}
