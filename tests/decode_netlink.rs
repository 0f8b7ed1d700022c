//! Netlink messages in socket buffers (`src/syscall/netlink*.rs`): `ip addr`,
//! `ss -tan` and `testprogs/dec_netlink.c` under rstrace and strace, on
//! `sendto,sendmsg,recvmsg,recvfrom`.
//!
//! After normalising sequence numbers and port ids, for every line that
//! carries netlink messages:
//! * lines whose messages are all of the kinds implemented in full
//!   (`NLMSG_DONE`, `NLMSG_ERROR` with its echoed request, `NLMSG_NOOP`,
//!   `RTM_GETADDR` requests without attributes, and types without a name,
//!   `0x3ff /* RTM_??? */`) must equal strace's;
//! * every other line must carry the same `nlmsghdr` headers and
//!   `ifinfomsg`/`ifaddrmsg` structures as strace's (attribute lists and
//!   `SOCK_DIAG_BY_FAMILY` payloads are not decoded yet).
//!
//! `ss -tan` lists sockets that other tests open and close meanwhile, so
//! only its requests (sendmsg, `inet_diag_req_v2`, compared in full) and
//! its `NLMSG_DONE` replies are compared.

mod common;

use common::{have, rstrace, testprog};
use regex_lite::Regex;
use std::path::PathBuf;
use std::process::Command;

const TRACE: &str = "trace=sendto,sendmsg,recvmsg,recvfrom";

/// The trace lines with netlink headers of `cmd` under `tracer`, normalised.
fn netlink_lines(tracer: &str, cmd: &[&str]) -> Vec<String> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out: PathBuf = common::target_dir().join(format!("dnl-{}-{n}.txt", std::process::id()));
    let o = Command::new(tracer)
        .args(["-e", TRACE, "-o"])
        .arg(&out)
        .args(cmd)
        .output()
        .expect("run tracer");
    assert!(o.status.success(), "{tracer} {cmd:?}: {o:?}");
    let text = std::fs::read_to_string(&out).expect("trace output");
    let _ = std::fs::remove_file(&out);
    let seq = Regex::new(r"nlmsg_seq=\d+").unwrap();
    let pid = Regex::new(r"nlmsg_pid=[1-9]\d*").unwrap();
    text.lines()
        .filter(|l| l.contains("nlmsg_type="))
        .map(|l| {
            let l = seq.replace_all(l, "nlmsg_seq=SEQ");
            pid.replace_all(&l, "nlmsg_pid=PID").into_owned()
        })
        .collect()
}

/// The `{nlmsg_len=…, …, nlmsg_pid=…}` headers and `{ifi_family=…}`,
/// `{ifa_family=…}` structures of a line.
fn headers(line: &str) -> Vec<String> {
    let re =
        Regex::new(r"\{nlmsg_len=[^{}]*?nlmsg_pid=[A-Z0-9]+\}|\{if[ai]_family=[^{}]*\}").unwrap();
    re.find_iter(line).map(|m| m.as_str().to_string()).collect()
}

/// Whether every message type of the line is decoded in full.
fn fully_decoded(line: &str) -> bool {
    let re = Regex::new(r"nlmsg_type=(\w+)( /\* \w+_\?\?\? \*/)?").unwrap();
    let all = re
        .captures_iter(line)
        .all(|c| c[1].starts_with("NLMSG_") || &c[1] == "RTM_GETADDR" || c.get(2).is_some());
    all
}

/// Compares rstrace's lines with strace's; returns how many were compared
/// in full.
fn compare(cmd: &[&str], full_if: impl Fn(&str) -> bool, skip: impl Fn(&str) -> bool) -> usize {
    let ours = netlink_lines(rstrace().to_str().unwrap(), cmd);
    let theirs = netlink_lines("strace", cmd);
    let ours: Vec<_> = ours.into_iter().filter(|l| !skip(l)).collect();
    let theirs: Vec<_> = theirs.into_iter().filter(|l| !skip(l)).collect();
    assert!(
        !theirs.is_empty(),
        "strace printed no netlink lines for {cmd:?}"
    );
    assert_eq!(
        ours.len(),
        theirs.len(),
        "{cmd:?}\nrstrace: {ours:#?}\nstrace: {theirs:#?}"
    );
    let mut full = 0;
    for (a, b) in ours.iter().zip(&theirs) {
        if fully_decoded(b) || full_if(b) {
            assert_eq!(a, b, "{cmd:?}");
            full += 1;
        } else {
            assert_eq!(
                headers(a),
                headers(b),
                "{cmd:?}\nrstrace: {a}\nstrace:  {b}"
            );
            assert!(!headers(b).is_empty(), "{b}");
        }
    }
    full
}

#[test]
fn ip_addr() {
    if !have("ip") || !have("strace") {
        eprintln!("skipped: ip or strace missing");
        return;
    }
    let full = compare(&["ip", "addr"], |_| false, |_| false);
    // Two NLMSG_DONE replies (links, addresses) and the RTM_GETADDR request.
    assert!(full >= 3, "{full}");
}

#[test]
fn ss_tan() {
    if !have("ss") || !have("strace") {
        eprintln!("skipped: ss or strace missing");
        return;
    }
    // Requests (inet_diag_req_v2) are decoded in full; replies listing
    // sockets vary between the two runs.
    let full = compare(
        &["ss", "-tan"],
        |l| l.starts_with("sendmsg("),
        |l| !(l.starts_with("sendmsg(") || l.contains("nlmsg_type=NLMSG_DONE")),
    );
    // Two requests (AF_INET, AF_INET6) and two NLMSG_DONE replies.
    assert!(full >= 4, "{full}");
}

#[test]
fn dec_netlink_testprog() {
    if !have("strace") {
        eprintln!("skipped: strace missing");
        return;
    }
    let prog = testprog("dec_netlink");
    let full = compare(&[prog.to_str().unwrap()], |_| false, |_| false);
    // NLMSG_DONE, the NOOP request and its ack, the unknown type twice with
    // its -EOPNOTSUPP error twice.
    assert!(full >= 7, "{full}");
}
