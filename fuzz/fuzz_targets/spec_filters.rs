//! The filter languages of rstrace and rltrace: `-e trace=`/`signal=`/
//! `status=`/`read=`/… expressions, syscall sets (names, classes, `/regex`,
//! `?`, `!`), `-e inject=`/`fault=` rules, `-e read=` fd sets, rltrace's
//! `-e`/`-x` symbol@library chains and `-l` patterns, and both tools'
//! whole command lines. The first byte picks the parser; the rest is its
//! input (command lines: NUL-separated arguments, not necessarily UTF-8).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtrace::ltrace::filter::{check_lib_pattern, lib_matches, Filter};
use rtrace::strace::filter::{signal_number, status_number, string_to_uint, SyscallSet};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

fn args(data: &[u8]) -> Vec<OsString> {
    data.split(|&b| b == 0)
        .map(|a| OsString::from_vec(a.to_vec()))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match sel % 8 {
        0 => {
            if let Ok(set) = SyscallSet::parse(&text) {
                let _ = set.matches_name("openat");
                let _ = set.is_all();
            }
        }
        1 => {
            let _ = rtrace::strace::inject::Rule::parse(&text, sel & 0x80 != 0);
        }
        2 => {
            let mut o = rtrace::strace::cli::Options::default();
            let _ = rtrace::strace::cli::apply_expr(&mut o, &text);
        }
        3 => {
            let _ = rtrace::strace::cli::parse(&args(rest));
        }
        4 => {
            let exprs: Vec<String> = text.split('\0').map(String::from).collect();
            if let Ok(f) = Filter::parse(&exprs) {
                let _ = f.matches("malloc", "libc.so.6");
                let _ = f.matches_in("main", "prog", "/bin/prog", true);
            }
        }
        5 => {
            let _ = check_lib_pattern(&text);
            let _ = lib_matches(&text, "libc.so.6");
            let _ = rtrace::strace::dumpio::FdSet::parse(&text);
        }
        6 => {
            let _ = rtrace::ltrace::cli::parse(&args(rest));
        }
        _ => {
            let _ = status_number(&text);
            let _ = signal_number(&text);
            let _ = string_to_uint(&text, u64::from(u32::MAX));
            let _ = rtrace::strace::inject::cond::parse_cmp(&text);
            let _ = rtrace::strace::inject::cond::parse_c_long(&text);
            let _ = rtrace::strace::inject::cond::Glob::new(&text).map(|g| g.matches(rest));
        }
    }
});
