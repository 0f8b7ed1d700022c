//! The qualifying expressions of `-e`: syscall sets (`trace=`, `abbrev=`,
//! `verbose=`, `raw=`), the small numbered sets of `signal=`, `status=`,
//! `quiet=` and `decode-fds=`, and the `-P` rules saying which arguments of a
//! syscall name a path or a descriptor.
//!
//! Parsing follows strace 6.x token for token (`basic_filters.c`,
//! `filter_qualify.c`): leading `!`s toggle the set, `all`/`none` stand
//! alone, tokens are split on `,` with empty tokens skipped, a syscall token
//! is `[?]…NAME|NUMBER|%CLASS|/REGEX[@PERSONALITY]`, and error messages are
//! strace's. Regular expressions are POSIX extended ones compiled by the C
//! library, as strace does, so `-e trace=/…` selects the same calls and
//! reports the same `regcomp` errors; a pattern glibc would need over
//! 256 MiB or 2 s of CPU to compile is refused as too complex (see
//! [`posix_regex`]).
//!
//! Non-goals: the x32 personality (accepted as a designator, selects nothing).
//!
//! Submodules: [`syscall_set`] holds the syscall sets, [`name_set`] the
//! small numbered sets and their names, [`path_rule`] the `-P` rules,
//! [`posix_regex`] the bounded regular expressions.

mod name_set;
pub mod path_rule;
pub mod posix_regex;
mod syscall_set;

pub use name_set::{
    decode_fd, decode_fd_number, decode_pid_number, quiet, quiet_number, signal_number, status,
    status_number, NameSet,
};
pub use path_rule::{path_rule, PathRule};
pub use syscall_set::{arch_index, SyscallSet};

/// A malformed expression: the message strace prints, and whether strace
/// follows it with "Try '… -h' for more information.".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    /// The message, without the program name.
    pub msg: String,
    /// Followed by the usage hint.
    pub hint: bool,
}

fn die(msg: String) -> FilterError {
    FilterError { msg, hint: false }
}

/// strace's `string_to_uint_upto`: what `strtol(s, &end, 10)` accepts
/// (leading blanks, a sign, then digits, nothing after), from 0 to `max`.
pub fn string_to_uint(s: &str, max: u64) -> Option<u64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: u64 = digits.parse().ok()?;
    if neg && v != 0 {
        return None;
    }
    (v <= max).then_some(v)
}
