//! `rstrace -yy`: socket descriptors described through sock_diag (UNIX
//! pairs and paths, TCP/UDP endpoints, netlink protocol and port id) and
//! devices with their numbers, in strace's words. `testprogs/fd_kinds.c`
//! makes one descriptor of each kind and fstat()s each; the trace is
//! checked for the shapes strace prints and compared with strace's own.

use crate::common;

use common::{have, rstrace, testprog};
use std::process::Command;

/// The `fstat` lines of a `-yy` trace of `fd_kinds`, numbers replaced by N.
fn lines(tool: &std::path::Path) -> Vec<String> {
    // A path of its own per call: the tests run in parallel.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let sock = common::target_dir().join(format!("fdk-{}-{n}.sock", std::process::id()));
    let o = Command::new(tool)
        .args(["-yy", "-e", "trace=fstat,newfstatat"])
        .arg(testprog("fd_kinds"))
        .arg(&sock)
        .output()
        .expect("run tracer");
    assert!(o.status.success(), "{o:?}");
    // Inodes and ports have four digits or more; a netlink port id is the
    // tracee's pid, which can have fewer (pids wrap around).
    let digits = regex_lite::Regex::new(r"\d{4,}|(?:ROUTE:)\d+").unwrap();
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("newfstatat(") || l.starts_with("fstat("))
        .skip_while(|l| !l.contains("UNIX"))
        .map(|l| {
            let l = l.replace(sock.to_str().unwrap(), "SOCK");
            digits
                .replace_all(&l, |c: &regex_lite::Captures| {
                    if c[0].starts_with("ROUTE:") {
                        "ROUTE:N".to_string()
                    } else {
                        "N".to_string()
                    }
                })
                .into_owned()
        })
        .collect()
}

#[test]
fn sockets_and_devices_are_described() {
    let got = lines(&rstrace());
    // Descriptor numbers depend on what the test runner left open (a
    // shell may hold fd 10), so only the descriptions are compared.
    let want_prefixes = [
        "<UNIX-STREAM:[N->N]>",
        "<UNIX:[N->N]>",
        "<UNIX-STREAM:[N,\"SOCK\"]>",
        "<TCP:[127.0.0.1:N]>",
        "<TCP:[127.0.0.1:N->127.0.0.1:N]>",
        "<TCP:[127.0.0.1:N->127.0.0.1:N]>",
    ];
    assert!(got.len() >= want_prefixes.len(), "{got:?}");
    for (line, want) in got.iter().zip(want_prefixes) {
        let arg = line.split_once('(').map(|x| x.1).unwrap_or("");
        let arg = arg.trim_start_matches(|c: char| c.is_ascii_digit());
        assert!(arg.starts_with(want), "{line} does not start with {want}");
    }
    assert!(
        got.iter().any(|l| l.contains("<NETLINK:[ROUTE:N]>")),
        "{got:?}"
    );
    assert!(
        got.iter().any(|l| l.contains("</dev/null<char 1:3>>")),
        "{got:?}"
    );
}

#[test]
fn same_as_strace() {
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    assert_eq!(lines(&rstrace()), lines(std::path::Path::new("strace")));
}
