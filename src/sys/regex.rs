//! The C library's POSIX regular expressions (`regcomp`, `regexec`,
//! `regerror`). glibc's regcomp can take gigabytes on some patterns: the
//! caller (strace's `/regex` filter) runs these in a child under limits.
//! Raw: nix does not wrap the C library's regex functions.

use std::ffi::CStr;

/// A compiled pattern.
pub struct Regex {
    re: libc::regex_t,
}

/// A pattern regcomp refused: its code, and what regerror says of it.
pub struct Refused {
    /// regcomp's return (`REG_*`).
    pub code: i32,
    re: libc::regex_t,
}

/// `regcomp(pattern, cflags)`.
pub fn compile(pattern: &CStr, cflags: i32) -> Result<Regex, Refused> {
    // SAFETY: regex_t is plain data that regcomp initialises; all-zero is a
    // valid starting value.
    let mut re: libc::regex_t = unsafe { std::mem::zeroed() };
    // SAFETY: `re` is writable storage for a regex_t and `pattern` is
    // NUL-terminated.
    let code = unsafe { libc::regcomp(&mut re, pattern.as_ptr(), cflags) };
    if code != 0 {
        return Err(Refused { code, re });
    }
    Ok(Regex { re })
}

impl Refused {
    /// regerror's message into `buf` (NUL-terminated, cut to fit); its
    /// length without the NUL.
    pub fn message(&self, buf: &mut [u8]) -> usize {
        // SAFETY: `buf` is writable for its length; regerror NUL-terminates
        // within it. `re` is the failed compilation it may consult.
        unsafe { libc::regerror(self.code, &self.re, buf.as_mut_ptr().cast(), buf.len()) };
        buf.iter().position(|&b| b == 0).unwrap_or(buf.len())
    }
}

impl Regex {
    /// Whether the pattern matches anywhere in `s` (no match offsets:
    /// compile with `REG_NOSUB`).
    pub fn is_match(&self, s: &CStr) -> bool {
        // SAFETY: `re` was compiled by regcomp; no match offsets are
        // requested (nmatch 0, NULL pmatch); `s` is NUL-terminated.
        unsafe { libc::regexec(&self.re, s.as_ptr(), 0, std::ptr::null_mut(), 0) == 0 }
    }
}

impl Drop for Regex {
    fn drop(&mut self) {
        // SAFETY: `re` was compiled by regcomp and is freed once.
        unsafe { libc::regfree(&mut self.re) };
    }
}
