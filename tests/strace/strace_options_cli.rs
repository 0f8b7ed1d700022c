//! rstrace's informational options, bad arguments and warnings, `-Y`, and
//! messages, against the installed strace where one is installed (helpers
//! in strace_opts_util).

use crate::common;
use crate::strace_opts_util;

use regex_lite::Regex;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use strace_opts_util::*;

#[test]
fn version_and_help() {
    let v = common::named(rstrace()).arg("-V").output().unwrap();
    assert_eq!(v.status.code(), Some(0));
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(text.contains(env!("CARGO_PKG_VERSION")), "-V: {text}");
    let h = common::named(rstrace()).arg("-h").output().unwrap();
    assert_eq!(h.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&h.stdout).starts_with("Usage: rstrace "));
    // -h and -V end parsing: a bad option after them is never seen.
    let h = common::named(rstrace())
        .args(["-h", "-Q"])
        .output()
        .unwrap();
    assert_eq!(h.status.code(), Some(0));
    if have("strace") {
        let s = Command::new("strace").arg("-V").output().unwrap();
        assert_eq!(s.status.code(), Some(0));
        let s = Command::new("strace").arg("-h").output().unwrap();
        assert!(String::from_utf8_lossy(&s.stdout).starts_with("Usage: strace "));
    }
}

#[test]
fn bad_arguments() {
    if strace_missing() {
        return;
    }
    let cases: &[&[&str]] = &[
        &["-s", "abc", "true"],
        &["-s", "-5", "true"],
        &["-s", "1073741824", "true"],
        &["--string-limit=x", "true"],
        &["-e", "trace=foo", "true"],
        &["-e", "trace=", "true"],
        &["-e", "trace=!", "true"],
        &["-e", "trace=,", "true"],
        &["-e", "trace=read,foo", "true"],
        &["-e", "trace=/zzzz", "true"],
        &["-e", "trace=%foo", "true"],
        &["-e", "trace=read@9", "true"],
        &["-e", "trace=/[", "true"],
        &["-e", "trace=/(", "true"],
        &["-e", "trace=/a{1", "true"],
        &["-e", "trace=/*", "true"],
        &["-e", "signal=FOO", "true"],
        &["-e", "signal=256", "true"],
        &["-e", "signal=RT_0", "true"],
        &["-e", "signal=", "true"],
        &["-e", "status=foo", "true"],
        &["-e", "quiet=foo", "true"],
        &["-e", "abbrev=foo", "true"],
        &["-e", "foo=bar", "true"],
        &["-e", "kvm=foo", "true"],
        &["-e", "decode-fds=foo", "true"],
        &["-Q", "true"],
        &["-ky", "-Q", "true"],
        &[],
        &["-f"],
        &["-o"],
        &["-e"],
        &["-a", "x", "true"],
        &["-a", "-1", "true"],
        &["--columns=x", "true"],
        &["-p", "abc"],
        &["-p", "0"],
        &["-p", "1,x"],
        &["-S", "foo", "true"],
        &["-X", "foo", "true"],
        &["--const-print-style=foo", "true"],
        &["-I", "9", "true"],
        &["-I", "0", "true"],
        &["--interruptible=x", "true"],
        &["-b", "foo", "true"],
        &["--detach-on=fork", "true"],
        &["-c", "-C", "true"],
        &["-C", "-c", "true"],
        &["-w", "true"],
        &["-ff", "-c", "true"],
        &["-q", "-e", "quiet=exit", "true"],
        &["-e", "quiet=none", "-qq", "true"],
        &["-t", "--timestamps", "true"],
        &["--timestamps=foo", "true"],
        &["--timestamps=precision:xs", "true"],
        &["--relative-timestamps=", "true"],
        &["--syscall-times=xx", "true"],
        &["-x", "--strings-in-hex", "true"],
        &["--strings-in-hex=foo", "true"],
        &["-y", "--decode-fds", "true"],
        &["-f", "--follow-forks", "true"],
        &["-ff", "--output-separately", "true"],
        &["-o", "|cat", "-ff", "true"],
        &["--bogus", "true"],
        &["--bogus=1", "true"],
        &["--sum", "true"],
        &["--outp=x", "true"],
        &["--summary-only=3", "true"],
        &["--output"],
        &["-u", "no-such-user-here", "true"],
    ];
    for args in cases {
        let dir = test_dir("bad_arguments");
        let a = run_in(Path::new("strace"), args, &dir, &[]);
        let b = run_in(&rstrace(), args, &dir, &[]);
        assert_eq!(a.code, 1, "strace {args:?}: {}", a.stderr);
        assert_eq!(
            b.code, 1,
            "rstrace {args:?}: exit code; stderr: {}",
            b.stderr
        );
        assert!(
            !b.stderr.contains("panicked"),
            "rstrace {args:?} panicked: {}",
            b.stderr
        );
        let sa = a
            .stderr
            .strip_prefix("strace: ")
            .unwrap_or_else(|| panic!("strace {args:?}: {}", a.stderr));
        let sb = b.stderr.strip_prefix("rstrace: ").unwrap_or_else(|| {
            panic!(
                "rstrace {args:?}: stderr must start with 'rstrace: ': {}",
                b.stderr
            )
        });
        assert_eq!(
            sa.replace("Try 'strace -h'", "Try 'TRACER -h'"),
            sb.replace("Try 'rstrace -h'", "Try 'TRACER -h'"),
            "{args:?}: messages differ"
        );
    }
}

#[test]
fn warnings() {
    if strace_missing() {
        return;
    }
    for opts in [
        &["-S", "calls", "-e", "trace=write"][..],
        &["-c", "-i", "-n", "-r", "-t", "-T", "-y"],
        &["-c", "-tt"],
        &["--seccomp-bpf", "-e", "trace=write"],
        &["-F", "-e", "trace=write"],
        &["-f", "-F", "-e", "trace=write"],
    ] {
        let args = basic(opts);
        let name = format!("warn_{}", opts.join("").replace(['-', '='], ""));
        let (a, b, _) = pair(&name, &refs(&args));
        let notes = |s: &str, p: &str| -> Vec<String> {
            s.lines()
                .filter_map(|l| l.strip_prefix(p))
                .map(String::from)
                .collect()
        };
        assert_eq!(
            notes(&a.stderr, "strace: "),
            notes(&b.stderr, "rstrace: "),
            "{name}"
        );
    }
}

// ---------------------------------------------------------------------------
// -Y / --decode-pids=comm.

/// `trace` (`-f -o FILE` lines starting with a pid and name) with each
/// call cut in two by another process's line joined back into one line.
fn joined_calls(trace: &str) -> Vec<String> {
    let prefix = Regex::new(r"^(\d+(?:<[^>]*>)?) (.*)$").unwrap();
    let resumed = Regex::new(r"^<\.\.\. \w+ resumed>(.*)$").unwrap();
    let mut open: BTreeMap<String, String> = BTreeMap::new();
    let mut out = Vec::new();
    for l in trace.lines() {
        let Some(c) = prefix.captures(l) else {
            out.push(l.to_string());
            continue;
        };
        let (who, rest) = (c[1].to_string(), c[2].to_string());
        if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            open.insert(who, head.to_string());
        } else if let Some(r) = resumed.captures(&rest) {
            let head = open.remove(&who).unwrap_or_default();
            out.push(format!("{who} {head}{}", &r[1]));
        } else {
            out.push(l.to_string());
        }
    }
    out
}

/// What `-Y -f -o FILE` must show for testprogs/decode_pids.c, with `P` the
/// program's pid and `C` its child's (both named `decode_pids`), and what
/// the trace shows of it (calls joined, padding before ` = ` squeezed).
fn decode_pids_check(trace: &str) -> (Vec<String>, Vec<String>) {
    let squeeze = Regex::new(r"\) +=").unwrap();
    let lines: Vec<String> = joined_calls(trace)
        .iter()
        .map(|l| squeeze.replace(l, ") =").into_owned())
        .collect();
    let re = Regex::new(r"^(\d+)<decode_pids> getpid\(\) = (\d+)<decode_pids>$").unwrap();
    let p = lines
        .iter()
        .find_map(|l| re.captures(l).map(|c| c[2].to_string()))
        .unwrap_or_else(|| panic!("no decorated getpid in\n{trace}"));
    let fork = Regex::new(&format!(
        r"^{p}<decode_pids> clone\(.*\) = (\d+)<decode_pids>$"
    ))
    .unwrap();
    let c = lines
        .iter()
        .find_map(|l| fork.captures(l).map(|m| m[1].to_string()))
        .unwrap_or_else(|| panic!("no decorated clone result in\n{trace}"));
    let mut want = vec![
        format!("{p}<decode_pids> gettid() = {p}<decode_pids>"),
        format!("{p}<decode_pids> kill({p}<decode_pids>, 0) = 0"),
        format!("{p}<decode_pids> tgkill({p}<decode_pids>, {p}<decode_pids>, 0) = 0"),
        format!("{p}<decode_pids> kill({c}<decode_pids>, 0) = 0"),
        format!("{c}<decode_pids> +++ exited with 3 +++"),
        // wait4 reaped the child: its result and later mentions of a
        // process that no longer exists carry no name.
        format!("{p}<decode_pids> wait4({c}<decode_pids>, [{{WIFEXITED(s) && WEXITSTATUS(s) == 3}}], 0, NULL) = {c}"),
        format!("{p}<decode_pids> kill(99999, 0) = -1 ESRCH (No such process)"),
    ];
    want.sort();
    let mut seen: Vec<String> = lines.into_iter().filter(|l| want.contains(l)).collect();
    seen.sort();
    seen.dedup();
    (want, seen)
}

#[test]
fn decode_pids_comm() {
    let prog = testprog("decode_pids");
    let dir = std::env::temp_dir().join(format!("rtrace-decode-pids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut tools = vec![(rstrace(), "-Y"), (rstrace(), "--decode-pids=comm")];
    if have("strace") {
        tools.push((PathBuf::from("strace"), "-Y"));
    }
    for (i, (tool, opt)) in tools.iter().enumerate() {
        let out = dir.join(format!("trace{i}"));
        let st = Command::new(tool)
            .args(["-f", opt, "-o"])
            .arg(&out)
            .arg(&prog)
            .status()
            .unwrap();
        assert!(st.success(), "{} {opt}", tool.display());
        let trace = std::fs::read_to_string(&out).unwrap();
        let (want, seen) = decode_pids_check(&trace);
        assert_eq!(seen, want, "{} {opt}:\n{trace}", tool.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
    // pidns (strace's other decoding) is accepted; strace_pidns.rs
    // checks what it prints.
    let o = common::named(rstrace())
        .args(["--decode-pids=comm,pidns", "true"])
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Messages start with the name rstrace was run by, as strace's start with
/// its `argv[0]`: linked or aliased as `strace`, it speaks as strace.
#[test]
fn messages_use_the_name_run_by() {
    use std::os::unix::process::CommandExt;
    for name in ["strace", "/usr/local/bin/strace", "rstrace"] {
        let o = Command::new(rstrace())
            .arg0(name)
            .args(["-e", "trace=nosuchcall", "true"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            err.lines().next(),
            Some(format!("{name}: invalid system call 'nosuchcall'").as_str()),
            "{err}"
        );
    }
}
