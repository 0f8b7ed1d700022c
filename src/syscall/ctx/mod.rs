//! The decoding context: the printers every syscall decoder calls.
//!
//! A decoder is a plain function `fn(&mut Ctx) -> Step`. It is called at syscall
//! entry; if it returns [`Step::Exit`] it is called once more at exit (with
//! [`Ctx::exiting`] true) to decode what the kernel wrote back. Arguments
//! pushed at entry print before `<unfinished ...>`; those pushed at exit print
//! after `<... resumed>`, exactly as strace splits them.

mod ids;
mod reads;

pub use ids::{
    mark_real_deleted, pid_value_of, translate_pids, FdResolver, PidKind, ProcFdResolver,
};

use crate::engine::memory::Memory;
use crate::value::{Field, Ret, StrVal, Value};
use rtrace_arch::{Arch, Xlat};
use std::borrow::Cow;

/// Options that change what decoders read (not how text is rendered).
#[derive(Clone, Debug)]
pub struct DecodeOpts {
    /// `-s N`: the longest string printed.
    pub string_limit: usize,
    /// `-v` / `-e verbose=`: print structures in full.
    pub verbose: bool,
    /// `-e raw=`: print arguments undecoded, in hex.
    pub raw: bool,
    /// `-y`: print paths of file descriptors.
    pub fd_paths: bool,
    /// `-X raw` (1), `-X abbrev` (0, default), `-X verbose` (2): how constants print.
    pub xlat_style: u8,
    /// `-Y`: print pids with their command names.
    pub pid_comm: bool,
    /// `--pidns-translation`: follow a pid of a tracee in another PID
    /// namespace with `/* N in strace's PID NS */`.
    pub pidns: bool,
    /// `-e verbose=`: false for a syscall left out, whose structures and
    /// arrays print as their addresses (strings and data buffers still
    /// print), as strace's `umoven_or_printaddr` does.
    pub deref: bool,
    /// `-e kvm=vcpu`: KVM_RUN's result carries the vCPU's exit reason.
    pub kvm_vcpu: bool,
}

impl Default for DecodeOpts {
    fn default() -> Self {
        DecodeOpts {
            string_limit: 32,
            verbose: false,
            raw: false,
            fd_paths: false,
            xlat_style: 0,
            deref: true,
            pid_comm: false,
            pidns: false,
            kvm_vcpu: false,
        }
    }
}

/// What a decoder wants next.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Call me again at syscall exit.
    Exit,
    /// All arguments are decoded; show the return value like this.
    Done(RetFmt),
}

/// How to show a successful return value.
#[derive(Clone, Debug, PartialEq)]
pub enum RetFmt {
    /// Unsigned decimal (strace's default, RVAL_UDECIMAL; 32 bits for i386).
    Int,
    /// Hexadecimal (mmap, brk).
    Hex,
    /// Octal (umask).
    Oct,
    /// A new file descriptor (`-y` adds its path).
    Fd,
    /// A process id (`-Y` adds its command name).
    Pid,
    /// A thread, process group or session id (strace's `RVAL_TID`, …).
    Id(PidKind),
    /// `?`: the call does not return (exit).
    Unknown,
    /// A fully decoded return value.
    Value(Ret),
}

/// Everything a decoder can see and the printers it calls.
pub struct Ctx<'a> {
    /// Tracee memory.
    pub mem: &'a mut dyn Memory,
    /// `-y` resolver.
    pub fds: &'a mut dyn FdResolver,
    /// Options.
    pub opts: &'a DecodeOpts,
    /// Thread id of the tracee.
    pub pid: i32,
    /// The syscall ABI in use.
    pub arch: Arch,
    /// Raw argument registers.
    pub args: [u64; 6],
    /// The raw return value, at exit.
    pub ret: Option<i64>,
    /// Values decoded at entry.
    pub entry_args: Vec<Value>,
    /// Values decoded at exit.
    pub exit_args: Vec<Value>,
    /// Decoder scratch kept from entry to exit (e.g. an input length).
    pub saved: u64,
    /// The `, ` before the arguments decoded at exit is printed at exit
    /// (strace's clone: `flags=SIGCHLD <unfinished ...>` then `<... clone
    /// resumed>, child_tidptr=…`), not at entry as for most calls
    /// (`read(3,  <unfinished ...>`).
    pub sep_at_exit: bool,
    /// Every argument was printed at entry; the exit only formats the
    /// return value (fcntl's F_GETFD): a cut line is `fcntl(1, F_GETFD
    /// <unfinished ...>`, without the `, ` that announces more arguments.
    pub entry_complete: bool,
    /// The stack pointer at syscall entry (rt_sigreturn reads the frame there).
    pub sp: u64,
}

pub use crate::engine::is_error;
pub use crate::value::signal_name;

impl<'a> Ctx<'a> {
    /// A context for one syscall of `pid` with raw arguments `args`,
    /// before anything is decoded.
    pub fn new(
        mem: &'a mut dyn Memory,
        fds: &'a mut dyn FdResolver,
        opts: &'a DecodeOpts,
        pid: i32,
        arch: Arch,
        args: [u64; 6],
    ) -> Ctx<'a> {
        Ctx {
            mem,
            fds,
            opts,
            pid,
            arch,
            args,
            ret: None,
            entry_args: Vec::new(),
            exit_args: Vec::new(),
            saved: 0,
            sep_at_exit: false,
            entry_complete: false,
            sp: 0,
        }
    }

    /// True at syscall exit.
    pub fn exiting(&self) -> bool {
        self.ret.is_some()
    }

    /// True at syscall entry.
    pub fn entering(&self) -> bool {
        self.ret.is_none()
    }

    /// True at exit when the call failed; false at entry.
    pub fn failed(&self) -> bool {
        self.ret.is_some_and(is_error)
    }

    /// The raw return value (0 at entry).
    pub fn retval(&self) -> i64 {
        self.ret.unwrap_or(0)
    }

    /// Raw argument `i`.
    pub fn arg(&self, i: usize) -> u64 {
        self.args[i]
    }

    /// Argument `i` as a C `int`.
    pub fn arg_int(&self, i: usize) -> i32 {
        self.args[i] as i32
    }

    /// Argument `i` as a C `long` of the tracee's word size.
    pub fn arg_long(&self, i: usize) -> i64 {
        if self.arch.word_size() == 4 {
            self.args[i] as i32 as i64
        } else {
            self.args[i] as i64
        }
    }

    /// Argument `i` as a C `unsigned long`.
    pub fn arg_ulong(&self, i: usize) -> u64 {
        if self.arch.word_size() == 4 {
            self.args[i] as u32 as u64
        } else {
            self.args[i]
        }
    }

    /// Appends a decoded value to the current phase's list.
    pub fn push(&mut self, v: Value) {
        if self.exiting() {
            self.exit_args.push(v);
        } else {
            self.entry_args.push(v);
        }
    }

    // ---- integer printers ----

    /// `int` argument in decimal.
    pub fn int(&mut self, i: usize) {
        let v = self.arg_int(i) as i64;
        self.push(Value::Int(v));
    }

    /// `unsigned int` argument in decimal.
    pub fn uint(&mut self, i: usize) {
        let v = self.args[i] as u32 as u64;
        self.push(Value::UInt(v));
    }

    /// `long` argument in decimal.
    pub fn long(&mut self, i: usize) {
        let v = self.arg_long(i);
        self.push(Value::Int(v));
    }

    /// `unsigned long` / `size_t` argument in decimal.
    pub fn ulong(&mut self, i: usize) {
        let v = self.arg_ulong(i);
        self.push(Value::UInt(v));
    }

    /// Argument in hex.
    pub fn hex(&mut self, i: usize) {
        let v = self.arg_ulong(i);
        self.push(Value::Hex(v));
    }

    /// `mode_t`-like argument in octal.
    pub fn oct(&mut self, i: usize) {
        let v = self.args[i] as u32 as u64;
        self.push(Value::Oct(v));
    }

    /// Pointer argument: `NULL` or hex.
    pub fn ptr(&mut self, i: usize) {
        let v = self.arg_ulong(i);
        self.push(Value::Ptr(v));
    }

    // ---- descriptors ----

    // ---- constants ----

    /// The value of `v` looked up in an enum table, or `v` with a `/* X_??? */`
    /// comment naming the table's prefix as strace does.
    pub fn enum_value(&self, v: u64, table: &Xlat, unknown: &'static str) -> Value {
        match table.lookup(v) {
            Some(n) => self.styled(v, n),
            None => {
                let raw = if (v as i64) < 0 && (v as i64) > -4096 {
                    Value::Int(v as i64)
                } else {
                    Value::Hex(v)
                };
                // -X raw prints an unknown value bare, as a known one.
                if unknown.is_empty() || self.opts.xlat_style == 1 {
                    raw
                } else {
                    Value::Commented(Box::new(raw), Cow::Borrowed(unknown))
                }
            }
        }
    }

    fn styled(&self, v: u64, name: &'static str) -> Value {
        match self.opts.xlat_style {
            1 => Value::Hex(v),
            2 => Value::Commented(Box::new(Value::Hex(v)), Cow::Borrowed(name)),
            _ => Value::sym(name),
        }
    }

    /// Enum argument.
    pub fn xenum(&mut self, i: usize, table: &Xlat, unknown: &'static str) {
        let v = self.enum_value(self.args[i] as u32 as u64, table, unknown);
        self.push(v);
    }

    /// The value of flag bits `v` split by a flags table (`0` when `v` is zero).
    pub fn flags_value(&self, v: u64, table: &Xlat) -> Value {
        if self.opts.xlat_style == 1 {
            return Value::Hex(v);
        }
        let (names, rest) = table.split_flags(v);
        // -X verbose comments only what has a name.
        let named = !names.is_empty();
        let f = Value::Flags {
            names,
            rest,
            octal_rest: false,
        };
        if self.opts.xlat_style == 2 && named {
            return Value::Commented(Box::new(Value::Hex(v)), Cow::Owned(render_flags(&f)));
        }
        if self.opts.xlat_style == 2 && v != 0 {
            return Value::Hex(v);
        }
        f
    }

    /// Flags argument (the low 32 bits).
    pub fn flags(&mut self, i: usize, table: &Xlat) {
        let v = self.flags_value(self.args[i] as u32 as u64, table);
        self.push(v);
    }

    /// Flags argument using all bits of a long.
    pub fn flags_long(&mut self, i: usize, table: &Xlat) {
        let v = self.flags_value(self.arg_ulong(i), table);
        self.push(v);
    }

    // ---- memory ----

    /// A signal number.
    pub fn signal_value(&self, sig: u64) -> Value {
        signal_value(sig)
    }

    /// A struct value from fields.
    pub fn fields(&self, f: Vec<Field>) -> Value {
        Value::Struct(f, false)
    }
}

/// strace's `printsignal`: `SIGUSR1`, or the number when it has no name;
/// `-X raw` prints the number, `-X verbose` the number with the name in a
/// comment.
pub(in crate::syscall) fn sig_value(style: u8, sig: i64) -> Value {
    let name = u64::try_from(sig).ok().and_then(signal_name);
    match (name, style) {
        (Some(n), 0) => Value::Sym(n),
        (Some(n), 2) => Value::Commented(Box::new(Value::Int(sig)), n),
        _ => Value::Int(sig),
    }
}

/// The value of a signal number: `SIGINT`, `SIGRTMIN+3`, or the number.
pub fn signal_value(sig: u64) -> Value {
    match signal_name(sig) {
        Some(n) => Value::Sym(n),
        None => Value::UInt(sig),
    }
}

/// Flags rendered as text (`O_RDONLY|O_CLOEXEC`), for comments.
pub fn render_flags(v: &Value) -> String {
    let mut s = String::new();
    crate::value::text::render_value(&mut s, v, &Default::default());
    s
}

/// Plain-old-data types that can be read from tracee bytes.
pub trait Pod: Sized + Copy {
    /// Builds the value from exactly `size_of::<Self>()` bytes.
    fn from_bytes(b: &[u8]) -> Self;
}

macro_rules! pod_int {
    ($($t:ty),*) => {$(
        impl Pod for $t {
            fn from_bytes(b: &[u8]) -> Self {
                <$t>::from_ne_bytes(b.try_into().expect("size checked by caller"))
            }
        }
    )*};
}
pod_int!(u8, u16, u32, u64, i8, i16, i32, i64);

impl<const N: usize> Pod for [u64; N] {
    fn from_bytes(b: &[u8]) -> Self {
        let mut out = [0u64; N];
        for (i, c) in b.chunks_exact(8).enumerate() {
            out[i] = u64::from_ne_bytes(c.try_into().expect("8 bytes"));
        }
        out
    }
}

impl<const N: usize> Pod for [u32; N] {
    fn from_bytes(b: &[u8]) -> Self {
        let mut out = [0u32; N];
        for (i, c) in b.chunks_exact(4).enumerate() {
            out[i] = u32::from_ne_bytes(c.try_into().expect("4 bytes"));
        }
        out
    }
}

impl<const N: usize> Pod for [i64; N] {
    fn from_bytes(b: &[u8]) -> Self {
        let mut out = [0i64; N];
        for (i, c) in b.chunks_exact(8).enumerate() {
            out[i] = i64::from_ne_bytes(c.try_into().expect("8 bytes"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::FixedFds;

    /// strace's umovestr/umoven rules: a string or buffer whose memory ends
    /// before its NUL (or before the `-s` limit + 1 bytes) prints as its
    /// address; a path is cut at PATH_MAX - 1 bytes.
    #[test]
    fn strings_that_run_into_unmapped_memory() {
        let opts = DecodeOpts {
            string_limit: 4,
            ..Default::default()
        };
        let mut m = FakeMemory::default();
        let short = m.put(b"ab\0");
        let mut fds = FixedFds(Vec::new());
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, Arch::X86_64, [0; 6]);
        assert!(matches!(c.cstr_value(short), Value::Str(s) if s.bytes == b"ab" && !s.truncated));
        let mut m = FakeMemory::default();
        // "abcdefgh" with no NUL before the end of the mapping.
        let at = m.put(b"abcdefgh");
        let end = at + 8;
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, Arch::X86_64, [0; 6]);
        // -s 4: 5 bytes read, no NUL: "abcd"...
        assert!(matches!(c.cstr_value(at), Value::Str(s) if s.bytes == b"abcd" && s.truncated));
        // 3 bytes left before the end, no NUL among them: the address.
        assert_eq!(c.cstr_value(end - 3), Value::Unreadable(end - 3));
        // A buffer of 5 bytes (> -s 4) needs 5 readable bytes.
        assert_eq!(c.buf_value(end - 4, 5), Value::Unreadable(end - 4));
        assert!(
            matches!(c.buf_value(end - 5, 5), Value::Str(s) if s.bytes.len() == 4 && s.truncated)
        );
        // printstr_ex with a maximum of 3 bytes: 3 bytes without NUL.
        assert!(matches!(c.cstrn_value(at, 3), Value::Str(s) if s.bytes == b"abc" && s.truncated));
        let mut m = FakeMemory::default();
        let mut long = vec![b'/'; 4096];
        long.push(0);
        let p = m.put(&long);
        let mut c = Ctx::new(&mut m, &mut fds, &opts, 1, Arch::X86_64, [0; 6]);
        assert!(matches!(c.path_value(p), Value::Str(s) if s.bytes.len() == 4095 && s.truncated));
        assert!(
            matches!(c.path_value(p + 1), Value::Str(s) if s.bytes.len() == 4095 && !s.truncated)
        );
    }
}
