//! Shared by the backtrace tests against gdb (bt_entry, bt_optimized):
//! one run of `rtrace break` and the parts of its frames
//! (`func+0xoff (file:line) [module]`).

use crate::common;
use std::path::Path;
use std::process::Stdio;

/// `rtrace break ARGS -- PROG`, which must succeed: its stderr, where
/// the hits go.
pub(crate) fn rtrace_break(args: &[&str], prog: &Path) -> String {
    rtrace_sub("break", args, prog)
}

/// `rtrace SUB ARGS -- PROG` (`break` or `watch`), which must succeed:
/// its stderr, where the hits go.
pub(crate) fn rtrace_sub(sub: &str, args: &[&str], prog: &Path) -> String {
    let out = common::named(common::rtrace())
        .arg(sub)
        .args(args)
        .arg("--")
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run rtrace");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The function of a frame: what precedes its `+0xoff` or its first
/// space.
pub(crate) fn frame_name(frame: &str) -> &str {
    &frame[..frame.find(['+', ' ']).unwrap_or(frame.len())]
}

/// The line of `... (file:line) ...`; 0 when there is none.
pub(crate) fn line_of(s: &str) -> u32 {
    s.split_once(" (")
        .and_then(|(_, r)| r.split_once(')'))
        .and_then(|(loc, _)| loc.rsplit_once(':'))
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(0)
}
