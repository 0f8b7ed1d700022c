//! Decoded values: what a decoder produces and every renderer consumes.
//!
//! Decoders never format text; they build [`Value`]s. The strace-style text
//! renderer ([`crate::value::text`]) and the JSON renderer
//! ([`crate::value::json`]) both walk the same values, so the two outputs can
//! never disagree. [`decoded::Decoded`] is that JSON read back, typed.

pub mod bytestring;
pub mod decoded;
pub mod json;
pub mod json_shape;
pub mod serialize;
pub mod text;

use std::borrow::Cow;

/// One decoded argument, field or return value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A signed integer (`-1`, `42`).
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// An integer strace prints in hex (`0x7f12`).
    Hex(u64),
    /// An integer strace prints in octal (`0644`; zero prints `000`).
    Oct(u64),
    /// A pointer: `NULL` when zero, else hex.
    Ptr(u64),
    /// A string read from the tracee.
    Str(StrVal),
    /// A bare symbol or preformatted token (`AT_FDCWD`, `SIGCHLD`, `S_IFREG|0644`).
    Sym(Cow<'static, str>),
    /// Flags: known names OR-ed, then the unknown rest in hex (or octal).
    Flags {
        /// Names of the known bits, in table order.
        names: Vec<&'static str>,
        /// Bits no name covers; printed after the names when non-zero, or alone.
        rest: u64,
        /// Print `rest` in octal instead of hex.
        octal_rest: bool,
    },
    /// A file descriptor, with its path when `-y` asked for it.
    Fd {
        /// The descriptor number.
        fd: i64,
        /// What it refers to (`/etc/passwd`, `pipe:[1234]`), if known.
        path: Option<Vec<u8>>,
    },
    /// A process or thread id, with its command name under `-Y`
    /// (`1234<sh>`).
    Pid {
        /// The id.
        pid: i64,
        /// `/proc/PID/comm`, if asked for and the process exists.
        comm: Option<Vec<u8>>,
    },
    /// A structure `{a=1, b=2}`; `more` adds a trailing `...`.
    Struct(Vec<Field>, bool),
    /// An array `[a, b]`; `more` adds a trailing `...`.
    Array(Vec<Value>, bool),
    /// A value that changed across the call: `[16 => 28]` style (`in => out`).
    Changed(Box<Value>, Box<Value>),
    /// A value followed by a comment: `0x1 /* comment */`.
    Commented(Box<Value>, Cow<'static, str>),
    /// A function-like expression: `makedev(0x8, 0x1)`, `WEXITSTATUS(s) == 0` parts.
    Call(Cow<'static, str>, Vec<Value>),
    /// A logical expression joined by a separator: `{WIFEXITED(s) && WEXITSTATUS(s) == 0}`.
    Joined(Vec<Value>, &'static str),
    /// A pointer whose target could not be read: strace prints the address.
    Unreadable(u64),
    /// Nothing is known (`?`).
    Unknown,
}

/// A named structure field.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Field name as strace prints it.
    pub name: Cow<'static, str>,
    /// Its value.
    pub value: Value,
}

impl Field {
    /// A field with a static name.
    pub fn new(name: &'static str, value: Value) -> Field {
        Field {
            name: Cow::Borrowed(name),
            value,
        }
    }
}

/// A string read from tracee memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StrVal {
    /// The bytes that were read (at most the `-s` limit).
    pub bytes: Vec<u8>,
    /// The string continued past what was read: strace prints `...` after it.
    pub truncated: bool,
    /// The string was read as NUL-terminated (affects `-x` heuristics only).
    pub c_string: bool,
}

impl Value {
    /// Fills in the command name of every pid in this value that has none
    /// yet (`-Y` for values decoded without a syscall context, such as a
    /// signal's siginfo), with `comm`.
    pub fn fill_pid_comms(&mut self, comm: &mut dyn FnMut(i64) -> Option<Vec<u8>>) {
        match self {
            Value::Pid {
                pid,
                comm: c @ None,
            } => *c = comm(*pid),
            Value::Struct(fields, _) => {
                for f in fields {
                    f.value.fill_pid_comms(comm);
                }
            }
            Value::Array(vs, _) | Value::Call(_, vs) | Value::Joined(vs, _) => {
                for v in vs {
                    v.fill_pid_comms(comm);
                }
            }
            Value::Changed(a, b) => {
                a.fill_pid_comms(comm);
                b.fill_pid_comms(comm);
            }
            Value::Commented(v, _) => v.fill_pid_comms(comm),
            _ => {}
        }
    }

    /// A symbolic token from a static string.
    pub fn sym(s: &'static str) -> Value {
        Value::Sym(Cow::Borrowed(s))
    }

    /// A symbolic token from an owned string.
    pub fn sym_owned(s: String) -> Value {
        Value::Sym(Cow::Owned(s))
    }

    /// A structure with no trailing `...`.
    pub fn structure(fields: Vec<Field>) -> Value {
        Value::Struct(fields, false)
    }
}

/// How a syscall's return value is shown.
#[derive(Clone, Debug, PartialEq)]
pub enum Ret {
    /// `= N` (signed decimal).
    Int(i64),
    /// `= N` (unsigned decimal): strace's default format (`RVAL_UDECIMAL`)
    /// for every call whose decoder asks for no other, so a value such as
    /// an injected `1 << 63` prints `9223372036854775808`.
    UInt(u64),
    /// `= 0x...` (mmap, brk).
    Hex(u64),
    /// `= 0NNN` (umask).
    Oct(u64),
    /// A new descriptor, with its path under `-y`.
    Fd(i64, Option<Vec<u8>>),
    /// A process or thread id, with its command name under `-Y`.
    Pid(i64, Option<Vec<u8>>),
    /// `= -1 ENAME (message)`; `restart` codes print `= ? ERESTARTSYS (...)`.
    Err {
        /// The positive errno value.
        errno: u64,
    },
    /// `= N ENAME (message)`: a value outside the error range that the
    /// decoder knows to be a negated errno all the same (modify_ldt's
    /// 32-bit `int` result on a 64-bit kernel, shown as strace does: the
    /// full value, then the error).
    ErrValue {
        /// The raw value as the kernel returned it.
        value: i64,
        /// The positive errno value it stands for.
        errno: u64,
    },
    /// A decoded value with a trailing comment (`= 0 (Timeout)`, `= 3 (flags ...)`).
    Annotated(Box<Ret>, Cow<'static, str>),
    /// A value with a C comment after it (`= 5 /* 1234 in strace's PID
    /// NS */`).
    Commented(Box<Ret>, Cow<'static, str>),
    /// `= ?` (exit, exit_group, execve that never returned, killed mid-call).
    Unknown,
}

/// The name of a signal as strace prints it (`SIGRT_3` is printed `SIGRT_3` by
/// strace for 35; strace uses `SIGRTMIN` for 32 and `SIGRT_n` above).
pub fn signal_name(sig: u64) -> Option<Cow<'static, str>> {
    if let Some(n) = rtrace_arch::xlat::SIGNALS.lookup(sig) {
        return Some(Cow::Borrowed(n));
    }
    match sig {
        32 => Some(Cow::Borrowed("SIGRTMIN")),
        33..=64 => Some(Cow::Owned(format!("SIGRT_{}", sig - 32))),
        _ => None,
    }
}
