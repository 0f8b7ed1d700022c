//! ioprio_get and ioprio_set: `which` by name, `who` (a pid for
//! IOPRIO_WHO_PROCESS) and the priority as strace prints it,
//! `IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)`, also as the comment on
//! ioprio_get's result (`= 16388 (IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4))`).

use crate::syscall::{Ctx, Decoder, Ret, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

pub(in crate::syscall) const DECODERS: &[(&str, Decoder)] =
    &[("ioprio_get", ioprio_get), ("ioprio_set", ioprio_set)];

const CLASS_SHIFT: u64 = 13;
const IOPRIO_WHO_PROCESS: u64 = 1;

/// `IOPRIO_PRIO_VALUE(class, data)` of a priority word.
fn prio_value(c: &Ctx, v: u64) -> Value {
    // strace 6.1's IOPRIO_PRIO_CLASS does not mask the class.
    let class = c.enum_value(v >> CLASS_SHIFT, &xlat::IOPRIO_CLASS, "IOPRIO_CLASS_???");
    Value::Call(
        Cow::Borrowed("IOPRIO_PRIO_VALUE"),
        vec![class, Value::UInt(v & ((1 << CLASS_SHIFT) - 1))],
    )
}

/// `which, who`.
fn which_who(c: &mut Ctx) {
    let which = c.arg(0) as u32 as u64;
    c.xenum(0, &xlat::IOPRIO_WHO, "IOPRIO_WHO_???");
    match xlat::IOPRIO_WHO.lookup(which) {
        _ if which == IOPRIO_WHO_PROCESS => c.pid(1),
        Some("IOPRIO_WHO_PGRP") => c.id(1, crate::syscall::ctx::PidKind::Pgid),
        _ => c.int(1),
    }
}

fn ioprio_get(c: &mut Ctx) -> Step {
    if c.entering() {
        which_who(c);
        c.entry_complete = true;
        return Step::Exit;
    }
    let r = c.retval();
    if c.failed() || c.opts.xlat_style == 1 {
        return Step::Done(RetFmt::Int);
    }
    let mut s = String::new();
    crate::value::text::render_value(&mut s, &prio_value(c, r as u64), &Default::default());
    Step::Done(RetFmt::Value(Ret::Annotated(
        Box::new(Ret::Int(r)),
        Cow::Owned(s),
    )))
}

fn ioprio_set(c: &mut Ctx) -> Step {
    which_who(c);
    let raw = c.arg(2) as u32;
    let v = prio_value(c, raw as u64);
    // -X raw: the number (an int); -X verbose: the number and the macro.
    let v = match c.opts.xlat_style {
        1 => Value::Int(raw as i32 as i64),
        2 => Value::Commented(
            Box::new(Value::Int(raw as i32 as i64)),
            Cow::Owned(crate::syscall::ctx::render_flags(&v)),
        ),
        _ => v,
    };
    c.push(v);
    Step::Done(RetFmt::Int)
}
