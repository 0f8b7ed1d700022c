//! Conditions of targeted injection rules (rtrace's extension of strace's
//! `-e inject=`): `path=GLOB` on the path arguments as the tracee passed
//! them, and small comparisons on arguments (`argN OP VALUE`, `fd OP
//! VALUE`), plus [`EntryMem`], the tracee memory shared by the rules and
//! the decoder at one syscall entry (a path is read once).
//!
//! Glob syntax: `*` any run of bytes without `/`, `**` any run of bytes,
//! `?` one byte other than `/`, `[abc]`, `[a-z]`, `[!x]`/`[^x]` one byte
//! of (not of) a class, `\c` the byte `c`. The whole path must match.
//!
//! Comparisons: `OP` is one of `=`, `!=`, `<`, `<=`, `>`, `>=` (signed
//! 64-bit comparison of the argument, sign-extended from 32 bits on 32-bit
//! personalities) or `&` (every bit of VALUE is set). `VALUE` is a C
//! integer: decimal, `0x` hex or `0` octal, optionally negative. `argN`
//! numbers the raw arguments from 1 to 6; `fd` is the descriptor
//! argument(s) of the syscall, compared as a C `int`.
//!
//! These comparisons are deliberately not `crate::probe::cond`, the
//! condition language of `rtrace break`: they follow `-e inject=`'s
//! `KEY=VALUE` tokens, so a single `=` compares (probe::cond refuses it),
//! `&` tests that bits are set rather than giving a value, `0644` is
//! octal, and `:` joins conditions where probe::cond has `&&`; parsing
//! them as probe::cond would change what rstrace accepts.

use crate::engine::memory::Memory;
use crate::engine::page_cache::PageCache;
use rtrace_arch::Arch;

/// One byte-matching element of a glob.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Byte(u8),
    /// `?`
    One,
    /// `*`
    Star,
    /// `**`
    DStar,
    /// `[...]`: (negated, inclusive ranges).
    Class(bool, Vec<(u8, u8)>),
}

/// A compiled glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    toks: Vec<Tok>,
}

impl Glob {
    /// Compiles `pat`; the error says what is wrong.
    pub fn new(pat: &str) -> Result<Glob, String> {
        let b = pat.as_bytes();
        if b.is_empty() {
            return Err("empty glob".into());
        }
        let mut toks = Vec::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'*' if b.get(i + 1) == Some(&b'*') => {
                    toks.push(Tok::DStar);
                    i += 2;
                    while b.get(i) == Some(&b'*') {
                        i += 1;
                    }
                    continue;
                }
                b'*' => toks.push(Tok::Star),
                b'?' => toks.push(Tok::One),
                b'\\' => {
                    i += 1;
                    let c = *b.get(i).ok_or(format!("glob '{pat}' ends in '\\'"))?;
                    toks.push(Tok::Byte(c));
                }
                b'[' => {
                    let (tok, next) =
                        class(b, i).ok_or(format!("unterminated '[' in glob '{pat}'"))?;
                    toks.push(tok);
                    i = next;
                    continue;
                }
                c => toks.push(Tok::Byte(c)),
            }
            i += 1;
        }
        Ok(Glob { toks })
    }

    /// Does the whole of `s` match? (A set-of-positions simulation:
    /// linear in `s` times the pattern length, no backtracking.)
    pub fn matches(&self, s: &[u8]) -> bool {
        let n = self.toks.len();
        let mut cur = vec![false; n + 1];
        cur[0] = true;
        self.close(&mut cur);
        for &c in s {
            let mut next = vec![false; n + 1];
            for (k, t) in self.toks.iter().enumerate() {
                if !cur[k] {
                    continue;
                }
                match t {
                    Tok::Byte(b) if *b == c => next[k + 1] = true,
                    Tok::One if c != b'/' => next[k + 1] = true,
                    Tok::Star if c != b'/' => next[k] = true,
                    Tok::DStar => next[k] = true,
                    Tok::Class(neg, ranges) => {
                        let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                        if inside != *neg && c != b'/' {
                            next[k + 1] = true;
                        }
                    }
                    _ => {}
                }
            }
            self.close(&mut next);
            if !next.iter().any(|&x| x) {
                return false;
            }
            cur = next;
        }
        cur[n]
    }

    /// Stars may match nothing: a live star position also makes the next live.
    fn close(&self, set: &mut [bool]) {
        for (k, t) in self.toks.iter().enumerate() {
            if set[k] && matches!(t, Tok::Star | Tok::DStar) {
                set[k + 1] = true;
            }
        }
    }
}

/// Parses the class starting at `b[i] == '['`; returns it and the index after `]`.
fn class(b: &[u8], i: usize) -> Option<(Tok, usize)> {
    let mut j = i + 1;
    let neg = matches!(b.get(j), Some(b'!' | b'^'));
    if neg {
        j += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let mut c = *b.get(j)?;
        if c == b']' && !first {
            return Some((Tok::Class(neg, ranges), j + 1));
        }
        first = false;
        if c == b'\\' {
            j += 1;
            c = *b.get(j)?;
        }
        if b.get(j + 1) == Some(&b'-') && b.get(j + 2).is_some_and(|&e| e != b']') {
            let hi = b[j + 2];
            if hi < c {
                return None;
            }
            ranges.push((c, hi));
            j += 3;
        } else {
            ranges.push((c, c));
            j += 1;
        }
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&`: all bits set.
    All,
}

impl Op {
    fn holds(self, a: i64, v: i64) -> bool {
        match self {
            Op::Eq => a == v,
            Op::Ne => a != v,
            Op::Lt => a < v,
            Op::Le => a <= v,
            Op::Gt => a > v,
            Op::Ge => a >= v,
            Op::All => a & v == v,
        }
    }
}

/// What a comparison looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// Raw argument (0-based index here; `argN` is 1-based on the command line).
    Arg(usize),
    /// The descriptor argument(s), as C ints.
    Fd,
}

/// One condition of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// Some path argument matches.
    Path(Glob),
    /// A comparison.
    Cmp(Subject, Op, i64),
}

/// Splits a condition token into subject, operator and value, if it is one
/// (`None`: not a comparison token; `Some(Err)`: a malformed one).
pub fn parse_cmp(tok: &str) -> Option<Result<Cond, String>> {
    let key_len = tok
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(tok.len());
    let (key, rest) = tok.split_at(key_len);
    let subject = if key == "fd" {
        Subject::Fd
    } else if let Some(n) = key.strip_prefix("arg") {
        match n.parse::<usize>() {
            Ok(k @ 1..=6) => Subject::Arg(k - 1),
            Ok(_) => return Some(Err(format!("'{key}': arguments are numbered arg1 to arg6"))),
            Err(_) => return None,
        }
    } else {
        return None;
    };
    let ops = [
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("=", Op::Eq),
        ("<", Op::Lt),
        (">", Op::Gt),
        ("&", Op::All),
    ];
    let Some((op, val)) = ops
        .iter()
        .find_map(|(s, op)| rest.strip_prefix(s).map(|v| (*op, v)))
    else {
        return Some(Err(format!(
            "'{tok}': expected {key}=, !=, <, <=, >, >= or & and a number"
        )));
    };
    Some(
        parse_c_long(val)
            .map(|v| Cond::Cmp(subject, op, v))
            .ok_or_else(|| format!("'{tok}': '{val}' is not a number")),
    )
}

/// A C integer (`strtoll`/`strtoull` with base 0): optional `-`, then
/// decimal, `0x` hex or `0` octal; hex and octal may give the whole
/// 64-bit pattern.
pub fn parse_c_long(v: &str) -> Option<i64> {
    let (neg, m) = match v.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, v),
    };
    let (digits, radix) = match m.strip_prefix("0x").or_else(|| m.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None if m.len() > 1 && m.starts_with('0') => (&m[1..], 8),
        None => (m, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let u = u64::from_str_radix(digits, radix).ok()?;
    if radix == 10 && u > i64::MAX as u64 + neg as u64 {
        return None;
    }
    Some(if neg {
        (u as i64).wrapping_neg()
    } else {
        u as i64
    })
}

/// The argument positions of one syscall that conditions look at.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArgKinds {
    /// Path arguments (0-based).
    pub paths: &'static [usize],
    /// Descriptor arguments (0-based).
    pub fds: &'static [usize],
}

/// An argument word as the personality sees it: sign-extended from 32 bits
/// on 32-bit personalities.
fn word(arch: Arch, a: u64) -> i64 {
    if arch.word_size() == 4 {
        a as u32 as i32 as i64
    } else {
        a as i64
    }
}

/// Do all `conds` hold for a call with `args`?
pub fn all_hold(
    conds: &[Cond],
    kinds: ArgKinds,
    arch: Arch,
    args: &[u64; 6],
    mem: &mut EntryMem,
) -> bool {
    conds.iter().all(|c| match c {
        Cond::Cmp(Subject::Arg(i), op, v) => op.holds(word(arch, args[*i]), *v),
        Cond::Cmp(Subject::Fd, op, v) => kinds
            .fds
            .iter()
            .any(|&i| op.holds(args[i] as u32 as i32 as i64, *v)),
        Cond::Path(g) => kinds.paths.iter().any(|&i| {
            let addr = word(arch, args[i]) as u64;
            let addr = if arch.word_size() == 4 {
                addr as u32 as u64
            } else {
                addr
            };
            mem.path(addr).is_some_and(|p| g.matches(&p))
        }),
    })
}

/// Tracee memory for one syscall entry, shared by injection conditions,
/// `-P` matching and the decoder: reads go through one per-stop page cache,
/// so a path costs one `process_vm_readv`.
pub struct EntryMem {
    inner: PageCache,
}

/// `PATH_MAX`.
const PATH_MAX: usize = 4096;

impl EntryMem {
    /// Memory of thread `tid`.
    pub fn new(tid: i32) -> EntryMem {
        EntryMem {
            inner: PageCache::new(tid),
        }
    }

    /// The page cache underneath.
    pub fn cache(&mut self) -> &mut PageCache {
        &mut self.inner
    }

    /// The NUL-terminated string at `addr` (at most `PATH_MAX` bytes).
    pub fn path(&mut self, addr: u64) -> Option<Vec<u8>> {
        if addr == 0 {
            return None;
        }
        let mut out = Vec::new();
        let mut a = addr;
        while out.len() <= PATH_MAX {
            let page_left = 4096 - (a % 4096) as usize;
            let chunk = page_left.min(PATH_MAX + 1 - out.len());
            let mut buf = vec![0u8; chunk];
            let n = self.read(a, &mut buf);
            if n == 0 {
                return None;
            }
            buf.truncate(n);
            if let Some(z) = buf.iter().position(|&c| c == 0) {
                out.extend_from_slice(&buf[..z]);
                return Some(out);
            }
            out.extend_from_slice(&buf);
            if n < chunk {
                return None;
            }
            a += n as u64;
        }
        None
    }
}

impl Memory for EntryMem {
    fn read(&mut self, addr: u64, buf: &mut [u8]) -> usize {
        self.inner.read(addr, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let m = |p: &str, s: &str| Glob::new(p).unwrap().matches(s.as_bytes());
        assert!(m("/etc/*.conf", "/etc/app.conf"));
        assert!(m("/etc/*.conf", "/etc/.conf"));
        assert!(!m("/etc/*.conf", "/etc/sub/app.conf"));
        assert!(!m("/etc/*.conf", "/etc/app.conf.bak"));
        assert!(m("/etc/**.conf", "/etc/sub/app.conf"));
        assert!(m("**/app.conf", "/tmp/x/app.conf"));
        assert!(!m("**/app.conf", "app.conf"));
        assert!(m("/tmp/f?", "/tmp/f1"));
        assert!(!m("/tmp/f?", "/tmp/f/"));
        assert!(m("/tmp/[a-c]x", "/tmp/bx"));
        assert!(!m("/tmp/[!a-c]x", "/tmp/bx"));
        assert!(m("/tmp/[^a-c]x", "/tmp/dx"));
        assert!(m("[]]", "]"));
        assert!(m("a\\*", "a*"));
        assert!(!m("a\\*", "ab"));
        assert!(m("*a*a*a*a*b", &"a".repeat(40).replace("aaaa", "aaab")));
        assert!(!m("*a*a*a*a*b", &"a".repeat(4000)));
        for bad in ["", "[abc", "x\\", "[z-a]", "[!"] {
            assert!(Glob::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn comparisons() {
        let c = |t: &str| parse_cmp(t).unwrap().unwrap();
        assert_eq!(c("arg1=0x3"), Cond::Cmp(Subject::Arg(0), Op::Eq, 3));
        assert_eq!(c("fd>=3"), Cond::Cmp(Subject::Fd, Op::Ge, 3));
        assert_eq!(c("arg3&0100"), Cond::Cmp(Subject::Arg(2), Op::All, 64));
        assert_eq!(c("arg6!=-100"), Cond::Cmp(Subject::Arg(5), Op::Ne, -100));
        assert_eq!(
            c("arg2<=0xffffffffffffffff"),
            Cond::Cmp(Subject::Arg(1), Op::Le, -1)
        );
        assert!(parse_cmp("when=3").is_none());
        assert!(parse_cmp("argv=3").is_none());
        for bad in ["arg0=1", "arg7=1", "fd~3", "arg1=x", "fd=", "arg2==3"] {
            assert!(parse_cmp(bad).unwrap().is_err(), "{bad}");
        }
        assert!(Op::All.holds(0o102, 0o100));
        assert!(!Op::All.holds(0o2, 0o100));
        assert!(Op::Lt.holds(-1, 0));
        assert_eq!(parse_c_long("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_c_long("9223372036854775808"), None);
    }
}
