//! Differential tests of rstrace's options against the installed strace:
//! both tracers run the same deterministic program (`testprogs/opt_prog.c`)
//! with the same options, in the same directory and the same small
//! environment; their outputs must be equal once what legitimately differs
//! between two runs is normalised (pids, addresses, free-space counts, clock
//! readings, pipe inodes). Where an option prints times (`-t`, `-r`, `-T`,
//! `-i`, `-c`), the format of each value is checked with a pattern before
//! the value is replaced.
//!
//! Traces of several tasks (`-f`) are compared per task, with
//! `<unfinished ...>` / `<... resumed>` pairs joined, because the kernel
//! schedules the tasks differently from run to run; the `[pid N]` prefix
//! rule (prefixes only while more than one task is traced) is checked on
//! both outputs. strace's "Process N attached" notices, whose place in a
//! line depends on scheduling, are counted and then removed.
//!
//! Known differences that belong to the syscall decoders (not to option
//! handling) are kept out of the compared calls and listed where they are
//! avoided: `-y` and `-X` of `AT_FDCWD`, and `socket`/`shmget` arguments.
//!
//! Every test is skipped (with a message) when strace is not installed.
//!
//! This file: plain output, strings, constants, columns, filters, timestamps.

use crate::strace_opts_util;

use regex_lite::Regex;
use std::path::Path;
use strace_opts_util::*;

// ---------------------------------------------------------------------------
// Plain output, strings, constants, columns.

#[test]
fn plain() {
    if strace_missing() {
        return;
    }
    compare_basic("plain", &[]);
}

#[test]
fn string_limit() {
    if strace_missing() {
        return;
    }
    compare_basic("s5", &["-s", "5"]);
    // The decoders do not yet cut arrays at -s elements (statfs's f_fsid,
    // pipe2's descriptors), so those calls are left out.
    compare_basic("s0", &["-s", "0", "-e", "trace=!statfs,fstatfs,pipe2"]);
    compare_basic("s100", &["-s100"]);
    compare_basic("string_limit_long", &["--string-limit=7"]);
}

#[test]
fn hex_strings() {
    if strace_missing() {
        return;
    }
    compare_basic("x", &["-x"]);
    compare_basic("xx", &["-xx"]);
    compare_basic("strings_in_hex", &["--strings-in-hex=non-ascii"]);
    // Only the unprintable bytes in hex: a directory named with a control
    // byte, a tab and a two-byte UTF-8 letter (opt_prog changes into it).
    let odd = run_root().join("hex_chars_dir").join("d\u{1}\u{e9}\tx");
    std::fs::create_dir_all(&odd).unwrap();
    let odd = odd.to_string_lossy().into_owned();
    let p = prog();
    for (name, how) in [
        ("strings_in_hex_chars", "--strings-in-hex=non-ascii-chars"),
        ("strings_in_hex_chars_x", "--strings-in-hex=non-ascii"),
    ] {
        let (a, _) = compare(name, &[how, "-e", "trace=chdir,write", &p, "basic", &odd]);
        assert!(
            a.stderr.contains("\\x01\\xc3\\xa9\\tx\")") || how.ends_with("non-ascii"),
            "{name}: {}",
            a.stderr
        );
    }
}

/// Calls whose constants the decoders print like strace under every `-X`
/// style (`AT_FDCWD`, `lseek` whence and `rt_sigprocmask` how are not yet:
/// `-X raw` must print them as `-100` and `0`).
const XLAT_CALLS: &str = "trace=mmap,mprotect,munmap,access,rt_sigaction,kill,pipe2,\
clock_gettime,clock_getres,prlimit64,arch_prctl,brk,stat,fstat,statfs,readlink";

#[test]
fn const_print_style() {
    if strace_missing() {
        return;
    }
    compare_basic("X_raw", &["-X", "raw", "-e", XLAT_CALLS]);
    compare_basic("X_abbrev", &["-X", "abbrev", "-e", XLAT_CALLS]);
    compare_basic("X_verbose", &["-Xverbose", "-e", XLAT_CALLS]);
}

#[test]
fn columns() {
    if strace_missing() {
        return;
    }
    compare_basic("a10", &["-a", "10"]);
    compare_basic("a0", &["-a0"]);
    compare_basic("a70", &["--columns=70"]);
}

#[test]
fn abbrev_and_verbose() {
    if strace_missing() {
        return;
    }
    compare_basic("v", &["-v"]);
    compare_basic("no_abbrev", &["--no-abbrev"]);
    compare_basic("abbrev_none", &["-e", "abbrev=none"]);
    compare_basic("abbrev_fstat", &["-e", "abbrev=fstat"]);
    compare_basic("verbose_all", &["-e", "verbose=all"]);
}

/// strace does not dereference structures and arrays of calls outside
/// `-e verbose=` (it prints their addresses; strings and buffers still
/// print): `DecodeOpts::deref`.
#[test]
fn verbose_none() {
    if strace_missing() {
        return;
    }
    compare_basic("verbose_none", &["-e", "verbose=none"]);
    compare_basic("verbose_not_stat", &["-e", "verbose=!stat"]);
}

#[test]
fn raw() {
    if strace_missing() {
        return;
    }
    compare_basic(
        "raw_some",
        &["-e", "raw=openat,read,close,lseek,mmap,pipe2"],
    );
    // Left out: calls whose raw arguments or results are pids, in hex.
    compare_basic(
        "raw_all",
        &[
            "-e",
            "raw=all",
            "-e",
            "trace=!kill,getpid,getppid,set_tid_address",
        ],
    );
    compare_basic("raw_long", &["--raw=fstat,exit_group"]);
}

#[test]
fn syscall_number() {
    if strace_missing() {
        return;
    }
    compare_basic("n", &["-n"]);
    compare_basic("n_T", &["-n", "-e", "trace=read,write,kill,exit_group"]);
}

#[test]
fn decode_fds() {
    if strace_missing() {
        return;
    }
    // openat and newfstatat: the decoders print AT_FDCWD without its path.
    compare_basic("y", &["-y", "-e", "trace=!openat,newfstatat"]);
    compare_basic("yy", &["-yy", "-e", "trace=!openat,newfstatat"]);
    compare_basic(
        "decode_fds",
        &[
            "--decode-fds=path",
            "-e",
            "trace=read,write,close,fstat,pipe2,lseek",
        ],
    );
}

// ---------------------------------------------------------------------------
// Filtering.

#[test]
fn trace_names_regex_negation() {
    if strace_missing() {
        return;
    }
    compare_basic("trace_names", &["-e", "trace=openat,close"]);
    compare_basic("trace_short_key", &["-e", "t=read,write"]);
    compare_basic("trace_bare", &["-e", "lseek,fstat"]);
    compare_basic("trace_long", &["--trace=clock_gettime"]);
    compare_basic("trace_regex", &["-e", "trace=/^(get|set)"]);
    compare_basic("trace_regex_class", &["-e", "trace=/^[ls]?stat$,/sig"]);
    compare_basic("trace_not", &["-e", "trace=!close,mmap"]);
    compare_basic(
        "trace_not_regex",
        &["-e", "trace=!/^(mmap|mprotect|munmap|close)$"],
    );
    compare_basic("trace_optional", &["-e", "trace=?nosuchcall,read"]);
    compare_basic("trace_optional_regex", &["-e", "trace=?/^nosuch,write"]);
    compare_basic("trace_none", &["-e", "trace=none"]);
    compare_basic("trace_not_all", &["-e", "trace=!all"]);
    compare_basic("trace_number", &["-e", "trace=0,1"]);
    compare_basic("trace_personality", &["-e", "trace=read@64,close"]);
    compare_basic(
        "trace_last_wins",
        &["-e", "trace=read", "-e", "trace=write"],
    );
    compare_basic("trace_trailing_comma", &["-e", "trace=read,"]);
}

#[test]
fn trace_classes() {
    if strace_missing() {
        return;
    }
    for class in [
        "%file", "%desc", "%process", "%memory", "%signal", "%stat", "%lstat", "%fstat", "%%stat",
        "%statfs", "%fstatfs", "%%statfs", "%pure", "%creds", "%clock", "file", "desc", "process",
        "memory", "signal",
    ] {
        let name = format!("class_{}", class.replace('%', "p"));
        compare_basic(&name, &["-e", &format!("trace={class}")]);
    }
    compare_basic("class_mixed", &["-e", "trace=%clock,%creds,close"]);
    compare_basic("class_not", &["-e", "trace=!%file,%memory"]);
}

/// %network and %ipc select the right calls; the decoders of socket and
/// shmget are not written yet, so their arguments are not compared.
#[test]
fn trace_network_ipc() {
    if strace_missing() {
        return;
    }
    let p = prog();
    let undecoded = Regex::new(r"^(socket|shmget)\(.*\)( +)=").unwrap();
    for class in [
        "%network",
        "%net",
        "network",
        "%ipc",
        "ipc",
        "%network,%ipc",
    ] {
        let name = format!("class_{}", class.replace(['%', ','], "_"));
        let (a, b, _) = pair(&name, &["-e", &format!("trace={class}"), &p, "netipc"]);
        let strip = |o: &Out| -> Vec<String> {
            norm_lines(&o.stderr, o.pid)
                .into_iter()
                .map(|l| undecoded.replace(&l, "$1(ARGS) =").into_owned())
                .collect()
        };
        let (la, lb) = (strip(&a), strip(&b));
        assert!(la.len() > 1, "{name}: strace traced nothing");
        assert_lines(&name, "stderr", &la, &lb);
    }
}

#[test]
fn signal_filter() {
    if strace_missing() {
        return;
    }
    compare_basic("signal_none", &["-e", "signal=none"]);
    compare_basic("signal_not_usr1", &["-e", "signal=!SIGUSR1"]);
    compare_basic("signal_usr1", &["-e", "signal=usr1"]);
    compare_basic("signal_number", &["-e", "signal=10"]);
    compare_basic("signals_long", &["--signal=SIGCHLD,SIGUSR2"]);
}

#[test]
fn status_filter() {
    if strace_missing() {
        return;
    }
    compare_basic("status_successful", &["-e", "status=successful"]);
    compare_basic("status_failed", &["-e", "status=failed"]);
    compare_basic("status_unfinished", &["-e", "status=unfinished"]);
    compare_basic("status_not_successful", &["-e", "status=!successful"]);
    compare_basic(
        "status_failed_unfinished",
        &["-e", "status=failed,unfinished"],
    );
    compare_basic("z", &["-z"]);
    compare_basic("Z", &["-Z"]);
    compare_basic("successful_only", &["--successful-only"]);
    compare_basic("failed_only", &["--failed-only"]);
    // Both: the last wins, with strace's warning on stderr.
    let (a, _) = compare_basic("z_Z", &["-z", "-Z"]);
    assert!(
        a.stderr.starts_with("strace: Only the last of -z"),
        "{}",
        a.stderr
    );
    compare_basic("Z_z", &["-Z", "-z"]);
}

#[test]
fn trace_path() {
    if strace_missing() {
        return;
    }
    compare_basic("P_abs", &["-P", "/etc/hostname"]);
    compare_basic("P_two", &["-P", "/etc/hostname", "-P", "/"]);
    compare_basic("P_missing", &["-P", "/nonexistent/opt_prog"]);
    // Relative names that do not exist yet match only by name.
    compare_basic("P_rel_data", &["-P", "opt.data"]);
    compare_basic("P_rel_link", &["--trace-path=opt.link"]);
    // A path that resolves differently is announced and matched both ways.
    let (a, _) = compare_basic("P_resolved", &["-P", "/etc/../etc/hostname"]);
    assert!(a.stderr.starts_with(
        "strace: Requested path \"/etc/../etc/hostname\" resolved into \"/etc/hostname\""
    ));
    compare_basic(
        "P_resolved_quiet",
        &["-P", "/etc/../etc/hostname", "-e", "quiet=path-resolution"],
    );
    // A descriptor matches by what /proc says it is: the absolute path.
    let abs = format!("{}/opt.data", test_dir_path("P_fd").display());
    compare_basic("P_fd", &["-P", &abs]);
    // The loader's libc: /lib is a symlink, so the name differs from the fd path.
    if std::fs::canonicalize("/lib/x86_64-linux-gnu/libc.so.6").is_ok() {
        compare_basic("P_lib", &["-P", "/lib/x86_64-linux-gnu/libc.so.6"]);
    }
}

#[test]
fn trace_path_symlink_existing() {
    if strace_missing() {
        return;
    }
    let args = basic(&["-P", "pre.link"]);
    let dir = test_dir("P_symlink");
    std::os::unix::fs::symlink("/etc/hostname", dir.join("pre.link")).unwrap();
    let a = run_in(Path::new("strace"), &refs(&args), &dir, &[]);
    let b = run_in(&rstrace(), &refs(&args), &dir, &[]);
    assert_eq!(a.code, b.code);
    assert!(a
        .stderr
        .starts_with("strace: Requested path \"pre.link\" resolved into \"/etc/hostname\""));
    assert_lines(
        "P_symlink",
        "stderr",
        &norm_lines(&a.stderr, a.pid),
        &norm_lines(&b.stderr, b.pid),
    );
}

// ---------------------------------------------------------------------------
// Timestamps and times: the format is checked, then the value replaced.

/// Checks that every trace line of `text` starts with `leader` (a pattern)
/// and ends with `tail` (a pattern or ""), and returns the lines with both
/// replaced by fixed marks.
fn check_times(name: &str, text: &str, leader: &str, tail: &str) -> String {
    let lead = Regex::new(&format!("^{leader}")).unwrap();
    let end = Regex::new(&format!("{tail}$")).unwrap();
    let mut out = String::new();
    for l in text.lines() {
        let m = lead.find(l).unwrap_or_else(|| {
            panic!("{name}: line without the expected leader /{leader}/: {l:?}")
        });
        let mut rest = l[m.end()..].to_string();
        if !tail.is_empty()
            && !rest.starts_with("+++")
            && !rest.starts_with("---")
            && !rest.ends_with("= ?")
        {
            let t = end.find(&rest).unwrap_or_else(|| {
                panic!("{name}: line without the expected time /{tail}/: {l:?}")
            });
            rest.replace_range(t.start().., " <TIME>");
        }
        out.push_str("STAMP ");
        out.push_str(&rest);
        out.push('\n');
    }
    out
}

fn compare_times(name: &str, opts: &[&str], leader: &str, tail: &str) {
    let args = basic(opts);
    let (a, b, _) = pair(name, &refs(&args));
    let ta = check_times(name, &a.stderr, leader, tail);
    let tb = check_times(name, &b.stderr, leader, tail);
    // Alignment depends on the leader's width, which is fixed per option.
    assert_lines(
        name,
        "stderr",
        &norm_lines(&ta, a.pid),
        &norm_lines(&tb, b.pid),
    );
}

#[test]
fn absolute_timestamps() {
    if strace_missing() {
        return;
    }
    compare_times("t", &["-t"], r"\d\d:\d\d:\d\d ", "");
    compare_times("tt", &["-tt"], r"\d\d:\d\d:\d\d\.\d{6} ", "");
    compare_times("ttt", &["-ttt"], r"\d{10}\.\d{6} ", "");
    compare_times(
        "ts_ms",
        &["--timestamps=precision:ms"],
        r"\d\d:\d\d:\d\d\.\d{3} ",
        "",
    );
    compare_times(
        "ts_unix_ns",
        &["--absolute-timestamps=format:unix,precision:ns"],
        r"\d{10}\.\d{9} ",
        "",
    );
    compare_times("ts_unix", &["--timestamps=unix"], r"\d{10} ", "");
}

#[test]
fn relative_timestamps_and_times() {
    if strace_missing() {
        return;
    }
    compare_times("r", &["-r"], r" {5}\d\.\d{6} ", "");
    compare_times("r_ms", &["--relative-timestamps=ms"], r" {5}\d\.\d{3} ", "");
    compare_times("r_s", &["--relative-timestamps=s"], r" {5}\d ", "");
    compare_times(
        "t_r",
        &["-t", "-r"],
        r"\d\d:\d\d:\d\d \(\+ {5}\d\.\d{6}\) ",
        "",
    );
    compare_times("T", &["-T"], "", r" <\d+\.\d{6}>");
    compare_times("T_ns", &["--syscall-times=ns"], "", r" <\d+\.\d{9}>");
    compare_times("T_s", &["--syscall-times=s"], "", r" <\d+>");
    compare_times(
        "tt_T_r",
        &["-tt", "-T", "-r"],
        r"\d\d:\d\d:\d\d\.\d{6} \(\+ {5}\d\.\d{6}\) ",
        r" <\d+\.\d{6}>",
    );
}

#[test]
fn instruction_pointer() {
    if strace_missing() {
        return;
    }
    let args = basic(&["-i"]);
    let (a, b, _) = pair("i", &refs(&args));
    // The execve line's address is in each tracer's own pre-exec code.
    let ip = Regex::new(r"^\[([0-9a-f]{16}|\?{16})\] ").unwrap();
    let strip = |o: &Out| -> Vec<String> {
        let mut v = Vec::new();
        for (n, l) in o.stderr.lines().enumerate() {
            let c = ip
                .captures(l)
                .unwrap_or_else(|| panic!("-i: no address in {l:?}"));
            let addr = &c[1];
            let rest = &l[c.get(0).unwrap().end()..];
            let exited = rest.starts_with("+++");
            assert_eq!(
                addr.starts_with('?'),
                exited,
                "-i: unknown address only after exit: {l:?}"
            );
            // Load addresses are random; the offset in the page is not.
            let page_off = if exited || n == 0 {
                "???".to_string()
            } else {
                addr[13..].to_string()
            };
            v.push(format!("[IP..{page_off}] {rest}"));
        }
        norm_lines(&v.join("\n"), o.pid)
    };
    assert_lines("i", "stderr", &strip(&a), &strip(&b));
}
