//! x86 thread-local segments: `set_thread_area` / `get_thread_area` with
//! `struct user_desc`, as strace prints them (glibc's i386 start-up calls
//! `set_thread_area` with `entry_number=-1`; the kernel's choice is shown
//! after the return value, `= 0 (entry_number=12)`).

use super::{Ctx, Decoder, Ret, RetFmt, Step, Value};
use crate::syscall::value::Field;
use std::borrow::Cow;

pub(super) const DECODERS: &[(&str, Decoder)] = &[
    ("set_thread_area", set_thread_area),
    ("get_thread_area", get_thread_area),
];

/// `struct user_desc`: entry_number, base_addr, limit, then the flag bits.
const SIZE: usize = 16;

/// The fields of a `struct user_desc` in `b`.
fn user_desc(b: &[u8]) -> Value {
    let word = |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    let bits = word(3);
    let bit = |shift: u32, width: u32| Value::UInt(u64::from((bits >> shift) & ((1 << width) - 1)));
    Value::Struct(
        vec![
            Field::new("entry_number", Value::Int(word(0) as i32 as i64)),
            Field::new("base_addr", Value::Hex(u64::from(word(1)))),
            Field::new("limit", Value::Sym(Cow::Owned(format!("{:#08x}", word(2))))),
            Field::new("seg_32bit", bit(0, 1)),
            Field::new("contents", bit(1, 2)),
            Field::new("read_exec_only", bit(3, 1)),
            Field::new("limit_in_pages", bit(4, 1)),
            Field::new("seg_not_present", bit(5, 1)),
            Field::new("useable", bit(6, 1)),
        ],
        false,
    )
}

fn set_thread_area(c: &mut Ctx) -> Step {
    let addr = c.arg(0);
    if c.entering() {
        match c.read_bytes(addr, SIZE) {
            Some(b) => {
                c.saved = u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                let v = user_desc(&b);
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
            let n = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            return Step::Done(RetFmt::Value(Ret::Annotated(
                Box::new(Ret::Int(r)),
                Cow::Owned(format!("entry_number={n}")),
            )));
        }
    }
    Step::Done(RetFmt::Int)
}

fn get_thread_area(c: &mut Ctx) -> Step {
    if c.entering() {
        return Step::Exit;
    }
    let addr = c.arg(0);
    match c.read_bytes(addr, SIZE).filter(|_| !c.failed()) {
        Some(b) => {
            let v = user_desc(&b);
            c.push(v);
        }
        None => c.ptr(0),
    }
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
        crate::output::text::render_value(&mut out, &user_desc(&b), &Default::default());
        assert_eq!(
            out,
            "{entry_number=-1, base_addr=0xf7edc540, limit=0x0fffff, seg_32bit=1, contents=0, \
             read_exec_only=0, limit_in_pages=1, seg_not_present=0, useable=1}"
        );
    }
}
