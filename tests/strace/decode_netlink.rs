//! Netlink messages in socket buffers (`src/syscall/netlink*.rs`) under
//! rstrace and strace, on `sendto,sendmsg,recvmsg,recvfrom`: every trace
//! line must equal strace's once the values that differ between two runs
//! are normalised (sequence numbers, port ids, socket inodes and cookies,
//! traffic counters, the randomised IPv6 reachable time).
//!
//! * `testprogs/dec_netlink.c`: crafted messages with attribute lists
//!   (IFLA_*, IFA_*, RTA_*, INET_DIAG_*, UNIX_DIAG_*), NLMSG_ERROR/DONE/NOOP;
//! * `dec_netlink dumps` in a network namespace of its own (`unshare -n`):
//!   real sock_diag dumps of the sockets it opened;
//! * `ip addr`, `ip -6 addr`, `ip link`, `ip route`, `ip -6 route`, `ss
//!   -tan`, `ss -uan`, `ss -xa` (the host's sockets change while other
//!   tests run, so each is tried a few times);
//! * the cost: tracing rstrace itself with strace, 1000 sendto on one
//!   netlink socket read `/proc/PID/fd/N` once, not once per call.

use crate::common;

use common::{have, rstrace, testprog};
use regex_lite::Regex;
use std::path::PathBuf;
use std::process::Command;

const TRACE: &str = "trace=sendto,sendmsg,recvmsg,recvfrom";

fn out_path(tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    common::target_dir().join(format!("dnl-{tag}-{}-{n}.txt", std::process::id()))
}

/// Values that differ between two runs, replaced by placeholders.
fn normalise(line: &str) -> String {
    let rules: &[(&str, &str)] = &[
        (r"nlmsg_seq=\d+", "nlmsg_seq=SEQ"),
        (r"nlmsg_pid=-?[1-9]\d*", "nlmsg_pid=PID"),
        (r"(idiag_inode|udiag_ino)=\d+", "$1=INO"),
        (r"cookie=\[\d+, \d+\]", "cookie=C"),
        (r"UNIX_DIAG_PEER\}, \d+", "UNIX_DIAG_PEER}, INO"),
        (r"\b(rx_\w+|tx_\w+|multicast|collisions)=\d+", "$1=N"),
        (
            r"(\[(IPSTATS|ICMP6)_MIB_\w+\]|\[\d+ /\* (IPSTATS|ICMP6)_MIB_\?\?\? \*/\])=\d+",
            "$1=N",
        ),
        (r"reachable_time=\d+", "reachable_time=N"),
        (
            r"(idiag_[rw]queue|idiag_expires|idiag_timer|idiag_retrans)=\d+",
            "$1=N",
        ),
        (r"(SK_MEMINFO_\w+\])=\d+", "$1=N"),
    ];
    let mut s = line.to_string();
    for (re, to) in rules {
        s = Regex::new(re).unwrap().replace_all(&s, *to).into_owned();
    }
    s
}

/// The normalised trace lines of `cmd` under `tracer` (with `prefix`, e.g.
/// `unshare -n`, before it).
fn trace_lines(prefix: &[&str], tracer: &str, opts: &[&str], cmd: &[&str]) -> Vec<String> {
    let out = out_path("t");
    let mut c = Command::new(prefix.first().copied().unwrap_or(tracer));
    if !prefix.is_empty() {
        c.args(&prefix[1..]).arg(tracer);
    }
    let o = c
        .args(opts)
        .args(["-e", TRACE, "-o"])
        .arg(&out)
        .args(cmd)
        .output()
        .expect("run tracer");
    assert!(o.status.success(), "{tracer} {cmd:?}: {o:?}");
    let text = std::fs::read_to_string(&out).expect("trace output");
    let _ = std::fs::remove_file(&out);
    text.lines().map(normalise).collect()
}

/// rstrace's lines and strace's, `tries` times until they are equal; the
/// lines when they are.
fn compare(prefix: &[&str], cmd: &[&str], tries: usize) -> Vec<String> {
    compare_with(prefix, &[], cmd, tries)
}

/// [`compare`] with tracer options `opts`.
fn compare_with(prefix: &[&str], opts: &[&str], cmd: &[&str], tries: usize) -> Vec<String> {
    let mut last = (Vec::new(), Vec::new());
    for _ in 0..tries {
        let ours = trace_lines(prefix, rstrace().to_str().unwrap(), opts, cmd);
        let theirs = trace_lines(prefix, "strace", opts, cmd);
        assert!(
            theirs.iter().any(|l| l.contains("nlmsg_type=")),
            "strace printed no netlink lines for {cmd:?}"
        );
        if ours == theirs {
            return ours;
        }
        last = (ours, theirs);
    }
    let (ours, theirs) = last;
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b, "{cmd:?}");
    }
    assert_eq!(ours, theirs, "{cmd:?}");
    unreachable!()
}

fn count(lines: &[String], what: &str) -> usize {
    lines.iter().map(|l| l.matches(what).count()).sum()
}

#[test]
fn dec_netlink_testprog() {
    if !have("strace") {
        eprintln!("skipped: strace missing");
        return;
    }
    let prog = testprog("dec_netlink");
    let lines = compare(&[], &[prog.to_str().unwrap()], 1);
    // Every decoder the crafted messages exercise printed something.
    for what in [
        "IFLA_IFNAME}, \"eth7\"",
        "IFLA_ADDRESS}, 02:fc:00:00:00:01",
        "IFLA_STATS64}, {rx_packets=",
        "IFLA_INET_CONF}, [[IPV4_DEVCONF_FORWARDING-1]=",
        "IFLA_INET6_TOKEN}, inet_pton(AF_INET6, \"fe80::1:2\")",
        "NLA_F_NESTED|IFLA_XDP",
        "IFA_LOCAL}, inet_addr(\"192.0.2.7\")",
        "IFA_CACHEINFO}, {ifa_prefered=",
        "rtm_table=RT_TABLE_MAIN",
        "RTA_CACHEINFO}, {rta_clntref=1",
        "idiag_state=TCP_LISTEN",
        "INET_DIAG_SOCKOPT}, {is_icsk=1",
        "UNIX_DIAG_VFS}, {udiag_vfs_dev=makedev(0x8, 0x1)",
        "NLMSG_ERROR",
    ] {
        assert!(count(&lines, what) > 0, "no {what:?} in {lines:#?}");
    }
    // More attributes than -s 32 shows.
    assert!(count(&lines, "IFLA_MTU}, 31], ...]") == 1, "{lines:#?}");
}

/// The crafted messages under `-X raw`, `-X verbose` and `-v`.
#[test]
fn dec_netlink_testprog_styles() {
    if !have("strace") {
        eprintln!("skipped: strace missing");
        return;
    }
    let prog = testprog("dec_netlink");
    for opts in [&["-X", "raw"][..], &["-X", "verbose"], &["-v"]] {
        let lines = compare_with(&[], opts, &[prog.to_str().unwrap()], 1);
        assert!(count(&lines, "nla_len=") > 100, "{opts:?}: {lines:#?}");
    }
}

#[test]
fn sock_diag_dumps_in_own_netns() {
    if !have("strace") || !have("unshare") {
        eprintln!("skipped: strace or unshare missing");
        return;
    }
    let ok = Command::new("unshare")
        .args(["-n", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: unshare -n is not permitted here");
        return;
    }
    let prog = testprog("dec_netlink");
    let lines = compare(&["unshare", "-n"], &[prog.to_str().unwrap(), "dumps"], 1);
    for what in [
        "idiag_sport=htons(2222)",
        "idiag_sport=htons(5353)",
        "INET_DIAG_MEMINFO}, {idiag_rmem=",
        "INET_DIAG_SKMEMINFO}, [[SK_MEMINFO_RMEM_ALLOC]=",
        "udiag_type=SOCK_STREAM, udiag_state=TCP_ESTABLISHED",
        "UNIX_DIAG_RQLEN}, {udiag_rqueue=",
    ] {
        assert!(count(&lines, what) > 0, "no {what:?} in {lines:#?}");
    }
}

#[test]
fn ip_commands() {
    if !have("ip") || !have("strace") {
        eprintln!("skipped: ip or strace missing");
        return;
    }
    let addr = compare(&[], &["ip", "addr"], 3);
    assert!(count(&addr, "nla_type=IFA_ADDRESS") > 0, "{addr:#?}");
    assert!(count(&addr, "nla_type=IFLA_IFNAME") > 0, "{addr:#?}");
    let addr6 = compare(&[], &["ip", "-6", "addr"], 3);
    assert!(count(&addr6, "nlmsg_type=RTM_NEWADDR") > 0, "{addr6:#?}");
    compare(&[], &["ip", "link"], 3);
    compare(&[], &["ip", "route"], 3);
    compare(&[], &["ip", "-6", "route"], 3);
}

#[test]
fn ss_commands() {
    if !have("ss") || !have("strace") {
        eprintln!("skipped: ss or strace missing");
        return;
    }
    for cmd in [&["ss", "-tan"][..], &["ss", "-uan"], &["ss", "-xa"]] {
        let lines = compare(&[], cmd, 5);
        assert!(
            count(&lines, "nlmsg_type=SOCK_DIAG_BY_FAMILY") > 0,
            "{lines:#?}"
        );
    }
}

/// Tracing 1000 sendto on one netlink socket reads `/proc/PID/fd/N` a
/// few times at most (it did once per call); rstrace itself is traced by
/// strace, which counts its readlink calls.
#[test]
fn no_readlink_per_call() {
    if !have("strace") {
        eprintln!("skipped: strace missing");
        return;
    }
    let prog = testprog("dec_netlink");
    let calls = out_path("calls");
    let trace = out_path("trace");
    let o = Command::new("strace")
        .args(["-e", "trace=readlink,readlinkat", "-o"])
        .arg(&calls)
        .arg(rstrace())
        .args(["-e", "trace=sendto", "-o"])
        .arg(&trace)
        .args([prog.to_str().unwrap(), "loop", "1000"])
        .output()
        .expect("run strace");
    assert!(o.status.success(), "{o:?}");
    let calls_text = std::fs::read_to_string(&calls).unwrap();
    let trace_text = std::fs::read_to_string(&trace).unwrap();
    let _ = std::fs::remove_file(&calls);
    let _ = std::fs::remove_file(&trace);
    let decoded = trace_text
        .lines()
        .filter(|l| l.starts_with("sendto(3, {nlmsg_len=16, nlmsg_type=NLMSG_NOOP"))
        .count();
    assert_eq!(decoded, 1000, "{trace_text}");
    let reads = calls_text
        .lines()
        .filter(|l| l.contains("readlink") && l.contains("/proc/"))
        .count();
    assert!(reads <= 3, "{reads} readlinks of /proc:\n{calls_text}");
}
