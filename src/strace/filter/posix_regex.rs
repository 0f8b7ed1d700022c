//! POSIX extended regular expressions, compiled and matched by the C
//! library as strace does (`regcomp` with `REG_EXTENDED | REG_NOSUB`), in a
//! child process with bounded time and memory.
//!
//! glibc's `regcomp` is exponential in some patterns: every `+` copies the
//! tree it applies to and `{n}` copies it n times, so
//! `(o++++++++++++++++b)++++++` takes 3 GB and 15 s, two more `+` 12 GB, and
//! `a{255}{255}{255}` 3.4 GB (strace has the same blow-up). No structural
//! rule on the pattern is known to bound glibc's work, so the bound is put
//! on the work itself: a forked child compiles the pattern and matches
//! every name under `RLIMIT_AS` (its address space at the fork plus
//! [`MEMORY_LIMIT`]) and `RLIMIT_CPU` ([`CPU_SECONDS`]), and sends back one
//! byte per name, or regcomp's error. A child that runs out of either, or
//! dies otherwise, makes the pattern "too complex". The parent never runs
//! glibc's regex code, so matching (`regexec` backtracks on
//! back-references) is bounded by the same limits.
//!
//! Cost on a normal run: one fork per `/regex` token (all personalities'
//! names at once), measured at 1 to 1.5 ms on a loaded 2-core machine where
//! compiling and matching in process took 50 to 130 µs.
//!
//! Under `cfg(fuzzing)` (cargo-fuzz's AddressSanitizer build) the child has
//! no `RLIMIT_AS`: ASan's allocator reports a refused allocation as a crash
//! (and libFuzzer saves the input as one) instead of returning NULL, so
//! there the CPU limit alone (1 s) bounds the child, and with it the memory
//! it can touch.

use crate::sys::{self, process::Forked, signal::Disposition};
use std::ffi::CString;
use std::fmt;

/// Address space a child may add to what it had at the fork.
pub const MEMORY_LIMIT: u64 = 256 << 20;
/// CPU seconds a child may use (SIGXCPU then, SIGKILL a second later).
/// One under cfg(fuzzing), where this alone bounds memory: the worst
/// corpus input reached 1.85 GB in a child with 2 s, near libFuzzer's
/// 2 GB malloc limit.
pub const CPU_SECONDS: u64 = if cfg!(fuzzing) { 1 } else { 2 };

/// Why a pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegexError {
    /// regcomp's own message (`Unmatched ( or \(`).
    Invalid(String),
    /// Compiling and matching it needs more than the limits.
    TooComplex,
    /// No child could be started (fork or pipe failed).
    NoChild(String),
}

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RegexError::Invalid(m) => f.write_str(m),
            RegexError::TooComplex => write!(
                f,
                "too complex (over {} MiB or {CPU_SECONDS} s of CPU to compile and match)",
                MEMORY_LIMIT >> 20
            ),
            RegexError::NoChild(e) => write!(f, "cannot start a process to compile it: {e}"),
        }
    }
}

/// The child's answer starts with one of these.
const TAG_MATCHES: u8 = 0;
const TAG_ERROR: u8 = 1;
/// Room for regerror's text in the child's answer.
const ERROR_TEXT: usize = 256;

/// For each of `names`, whether `pattern` matches it (anywhere, as
/// `regexec` does).
pub fn match_names(pattern: &str, names: &[&str]) -> Result<Vec<bool>, RegexError> {
    let re = CString::new(pattern)
        .map_err(|_| RegexError::Invalid("Invalid regular expression".into()))?;
    let names: Vec<CString> = names
        .iter()
        .map(|n| CString::new(*n).unwrap_or_default())
        .collect();
    // Everything the child touches is made here: between fork and _exit it
    // allocates nothing but what glibc's regex code does (glibc's fork
    // leaves malloc usable in the child of a threaded process).
    let mut answer = vec![0u8; 1 + names.len().max(4 + ERROR_TEXT)];
    let as_limit = address_space().map(|v| v.saturating_add(MEMORY_LIMIT));
    let (rfd, wfd) = sys::fd::pipe().map_err(|e| RegexError::NoChild(e.to_string()))?;
    // The child runs only `child` (async-signal-safe calls and glibc's
    // regex code) and leaves by _exit.
    let forked = sys::process::fork();
    if forked.as_ref().is_ok_and(|f| *f == Forked::Child) {
        sys::fd::close(rfd);
        child(&re, &names, &mut answer, as_limit, wfd);
    }
    // The parent's copy of the write end, closed once, so the read below
    // sees end of file when the child is gone.
    sys::fd::close(wfd);
    let pid = match forked {
        Ok(Forked::Parent(pid)) => pid,
        Ok(Forked::Child) => unreachable!("the child left by _exit"),
        Err(e) => {
            sys::fd::close(rfd);
            return Err(RegexError::NoChild(e.to_string()));
        }
    };
    let got = sys::fd::read_to_end(rfd);
    sys::fd::close(rfd);
    // Already reaped elsewhere is fine.
    let _ = sys::process::reap(pid);
    // The answer alone decides: the child wrote it whole only if it got
    // that far (another thread's wait4(-1) may have reaped it first, so its
    // exit status may be lost).
    match got.split_first() {
        Some((&TAG_MATCHES, hits)) if hits.len() == names.len() => {
            Ok(hits.iter().map(|&b| b != 0).collect())
        }
        Some((&TAG_ERROR, rest)) if rest.len() >= 4 => {
            let rc = i32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]);
            if rc == libc::REG_ESPACE {
                return Err(RegexError::TooComplex);
            }
            let text = &rest[4..];
            let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
            Err(RegexError::Invalid(
                String::from_utf8_lossy(&text[..end]).into_owned(),
            ))
        }
        _ => Err(RegexError::TooComplex),
    }
}

/// The child: limits, regcomp, regexec per name, one write, _exit.
fn child(re: &CString, names: &[CString], answer: &mut [u8], as_limit: Option<u64>, wfd: i32) -> ! {
    sys::process::lower_limit(sys::process::Limit::Core, 0, 0);
    sys::process::lower_limit(sys::process::Limit::Cpu, CPU_SECONDS, CPU_SECONDS + 1);
    if let Some(bytes) = as_limit {
        if !cfg!(fuzzing) {
            sys::process::lower_limit(sys::process::Limit::AddressSpace, bytes, bytes);
        }
    }
    // SIGXCPU must end the child even if the parent ignored or blocked it.
    let _ = sys::signal::set_disposition(libc::SIGXCPU, Disposition::Default, true);
    sys::signal::unblock(libc::SIGXCPU);
    let len = match sys::regex::compile(re, libc::REG_EXTENDED | libc::REG_NOSUB) {
        Err(refused) => {
            answer[0] = TAG_ERROR;
            answer[1..5].copy_from_slice(&refused.code.to_ne_bytes());
            5 + refused.message(&mut answer[5..5 + ERROR_TEXT])
        }
        Ok(compiled) => {
            answer[0] = TAG_MATCHES;
            for (slot, name) in answer[1..].iter_mut().zip(names) {
                *slot = compiled.is_match(name) as u8;
            }
            // No regfree: the process ends at once.
            std::mem::forget(compiled);
            1 + names.len()
        }
    };
    sys::fd::write_all(wfd, &answer[..len]);
    // Leaves without running the parent's exit handlers or flushing its
    // stdio buffers.
    sys::process::exit_now(0)
}

/// This process's address space in bytes (`/proc/self/statm`'s size).
fn address_space() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    Some(pages * sys::page_size() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["open", "openat", "close", "read"];

    #[test]
    fn matches_anywhere_as_regexec_does() {
        assert_eq!(
            match_names("^open", NAMES).unwrap(),
            [true, true, false, false]
        );
        assert_eq!(match_names("e", NAMES).unwrap(), [true, true, true, true]);
        assert_eq!(
            match_names("x|ad$", NAMES).unwrap(),
            [false, false, false, true]
        );
        assert_eq!(match_names("o", &[]).unwrap(), Vec::<bool>::new());
    }

    #[test]
    fn regcomp_errors_are_its_own_text() {
        let e = |p: &str| match_names(p, NAMES).unwrap_err().to_string();
        assert_eq!(e("("), "Unmatched ( or \\(");
        assert_eq!(e("[[:foo:]]"), "Invalid character class name");
        assert_eq!(e("a{2,1}"), "Invalid content of \\{\\}");
        assert_eq!(e("a\0b"), "Invalid regular expression");
    }

    /// Patterns on which glibc's regcomp takes gigabytes (3 GB, 12 GB,
    /// 3.4 GB and over 1 GB unbounded) are refused within the limits.
    #[test]
    fn exponential_patterns_are_too_complex() {
        for p in [
            "(o++++++++++++++++b)++++++",
            "(o++++++++++++++++b)++++++++",
            "a{255}{255}{255}",
            "(o+++\u{fffd}++++++++++++++++b)++++++",
        ] {
            assert_eq!(match_names(p, NAMES), Err(RegexError::TooComplex), "{p}");
        }
        assert_eq!(
            RegexError::TooComplex.to_string(),
            "too complex (over 256 MiB or 2 s of CPU to compile and match)"
        );
    }

    /// Back-references make regexec backtrack: this one needs 11 s on 61
    /// bytes (in 10 MB), and runs into the CPU limit.
    #[test]
    fn exponential_matching_is_too_complex() {
        let long = format!("{}c", "a".repeat(60));
        let p = r"^(a*)(a*)(a*)(a*)(a*)(a*)\6\5\4\3\2\1$";
        assert_eq!(match_names(p, &[&long]), Err(RegexError::TooComplex));
        assert_eq!(match_names(p, &["aaaa", "ab"]).unwrap(), [true, false]);
    }

    /// A pattern glibc compiles in about 190 MB is still accepted: the
    /// bound is the child's limits, not a rule on the pattern.
    #[test]
    fn large_but_bounded_patterns_still_compile() {
        let p = format!("(o{})", "+".repeat(18));
        assert_eq!(match_names(&p, NAMES).unwrap(), [true, true, true, false]);
    }
}
