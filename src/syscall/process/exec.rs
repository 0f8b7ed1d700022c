//! execve and execveat: the path, the argument vector and the environment
//! (`[/* 23 vars */]` or the strings with `-v`), truncated as strace does.

use crate::syscall::printers::{flags_arg, le32, le64};
use crate::syscall::{Ctx, RetFmt, Step, Value};
use rtrace_arch::xlat;
use std::borrow::Cow;

// ---- execve ----

/// Reads NUL-terminated arrays of tracee words at `addr`, page by page:
/// returns the words before the terminating zero (at most `max`), whether
/// the zero was found, and the address of the first unreadable word, if any.
fn read_words(c: &mut Ctx, addr: u64, max: usize) -> (Vec<u64>, bool, Option<u64>) {
    let w = c.arch.word_size() as u64;
    let mut out = Vec::new();
    let mut a = addr;
    while out.len() < max {
        let page_left = 4096 - (a % 4096);
        let n = (page_left / w).max(1).min((max - out.len()) as u64) as usize;
        let mut buf = vec![0u8; n * w as usize];
        let got = c.mem.read(a, &mut buf) / w as usize;
        for i in 0..got {
            let word = if w == 4 {
                le32(&buf, 4 * i)
            } else {
                le64(&buf, 8 * i)
            };
            if word == 0 {
                return (out, true, None);
            }
            out.push(word);
        }
        if got < n {
            return (out, false, Some(a + got as u64 * w));
        }
        a = match a.checked_add(n as u64 * w) {
            Some(next) => next,
            None => return (out, false, Some(a)),
        };
    }
    (out, false, None)
}

/// strace's `printargv`: `["ls", "-l"]`, cut after `-s` elements unless
/// `-v`; the address when nothing is readable.
fn argv_value(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 || !c.opts.deref {
        return Value::Ptr(addr);
    }
    let limit = if c.opts.verbose {
        usize::MAX
    } else {
        c.opts.string_limit
    };
    let (words, _, fault) = read_words(c, addr, limit.saturating_add(1).min(1 << 20));
    if words.is_empty() {
        if let Some(f) = fault {
            if f == addr {
                return Value::Ptr(addr);
            }
        }
    }
    let more = words.len() > limit;
    let mut items: Vec<Value> = words
        .into_iter()
        .take(limit)
        .map(|p| c.cstr_value(p))
        .collect();
    if let Some(f) = fault {
        items.push(Value::Commented(
            Box::new(Value::sym("...")),
            Cow::Owned(format!("{f:#x}")),
        ));
        return Value::Array(items, false);
    }
    Value::Array(items, more)
}

/// strace's `printargc`: `0x7ffd… /* 23 vars */`.
fn envc_value(c: &mut Ctx, addr: u64) -> Value {
    if addr == 0 || !c.opts.deref {
        return Value::Ptr(addr);
    }
    let (words, _, fault) = read_words(c, addr, 1 << 20);
    let n = words.len();
    if n == 0 && fault == Some(addr) {
        return Value::Ptr(addr);
    }
    let s = format!(
        "{n} var{}{}",
        if n == 1 { "" } else { "s" },
        if fault.is_some() {
            ", unterminated"
        } else {
            ""
        }
    );
    Value::Commented(Box::new(Value::Ptr(addr)), Cow::Owned(s))
}

/// Path, argv and envp (counted unless `-v`) from argument `i`.
fn exec_args(c: &mut Ctx, i: usize) {
    c.path(i);
    let v = argv_value(c, c.arg_ulong(i + 1));
    c.push(v);
    let envp = c.arg_ulong(i + 2);
    let v = if c.opts.verbose {
        argv_value(c, envp)
    } else {
        envc_value(c, envp)
    };
    c.push(v);
}

/// `execve(path, argv, envp)`.
pub(in crate::syscall::process) fn execve(c: &mut Ctx) -> Step {
    exec_args(c, 0);
    Step::Done(RetFmt::Int)
}

/// `execveat(dirfd, path, argv, envp, flags)`.
pub(in crate::syscall::process) fn execveat(c: &mut Ctx) -> Step {
    c.atfd(0);
    exec_args(c, 1);
    flags_arg(c, 4, &xlat::AT_FLAGS, "AT_???");
    Step::Done(RetFmt::Int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::FakeMemory;
    use crate::syscall::testutil::{run, run_with};
    use crate::syscall::DecodeOpts;

    fn strings(m: &mut FakeMemory, items: &[&str]) -> u64 {
        let ptrs: Vec<u64> = items
            .iter()
            .map(|s| {
                let mut b = s.as_bytes().to_vec();
                b.push(0);
                m.put(&b)
            })
            .collect();
        let mut arr = Vec::new();
        for p in ptrs {
            arr.extend_from_slice(&p.to_le_bytes());
        }
        arr.extend_from_slice(&0u64.to_le_bytes());
        m.put(&arr)
    }

    #[test]
    fn execs() {
        let mut m = FakeMemory::default();
        let path = m.put(b"/bin/true\0");
        let argv = strings(&mut m, &["true"]);
        let envp = strings(&mut m, &["A=1", "B=2", "C=3"]);
        assert_eq!(
            run(execve, "execve", &[path, argv, envp], 0, &mut m),
            format!("execve(\"/bin/true\", [\"true\"], {envp:#x} /* 3 vars */) = 0")
        );
        let long = strings(
            &mut m,
            &[
                "/nonexistent",
                "a",
                "b\n",
                "cccccccccccccccccccccccccccccccccccccccccccccc",
            ],
        );
        let one = strings(&mut m, &["X=1"]);
        assert_eq!(
            run(execve, "execve", &[path, long, one], -2, &mut m),
            format!("execve(\"/bin/true\", [\"/nonexistent\", \"a\", \"b\\n\", \"cccccccccccccccccccccccccccccccc\"...], {one:#x} /* 1 var */) = -1 ENOENT (No such file or directory)")
        );
        let opts = DecodeOpts {
            string_limit: 2,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(execve, "execve", &[path, long, 0], -2, &mut m, &opts),
            "execve(\"/bin/true\", [\"/n\"..., \"a\", ...], NULL) = -1 ENOENT (No such file or directory)"
        );
        let opts = DecodeOpts {
            verbose: true,
            ..DecodeOpts::default()
        };
        assert_eq!(
            run_with(execve, "execve", &[path, argv, envp], 0, &mut m, &opts),
            "execve(\"/bin/true\", [\"true\"], [\"A=1\", \"B=2\", \"C=3\"]) = 0"
        );
        assert_eq!(
            run(execveat, "execveat", &[(-100i64) as u64, path, 0, 0, 0x1100], -2, &mut m),
            "execveat(AT_FDCWD, \"/bin/true\", NULL, NULL, AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH) = -1 ENOENT (No such file or directory)"
        );
        // An argv running into unmapped memory.
        let end = m.base + m.data.len() as u64;
        let p = m.put(b"x\0");
        let tail = end + 8;
        m.put(&p.to_le_bytes());
        assert_eq!(
            run(execve, "execve", &[path, tail, 0x10], -14, &mut m),
            format!(
                "execve(\"/bin/true\", [\"x\", ... /* {:#x} */], 0x10) = -1 EFAULT (Bad address)",
                tail + 8
            )
        );
    }
}
