//! Socket decoders (`src/syscall/net.rs`, `msghdr.rs`, `sockopt.rs`,
//! `sockaddr.rs`) against the lines the test programs print for each call,
//! under rstrace and under the installed strace (the same programs and
//! checks, so both tracers agree with the kernel's results).

use crate::decnet_util;

use decnet_util::{check, Tracer};

const NET: &str = "%network";

#[test]
fn unix_sockets_rstrace() {
    check("dec_net_unix", Tracer::Rstrace, NET, false);
}

#[test]
fn unix_sockets_rstrace_fd_paths() {
    check("dec_net_unix", Tracer::Rstrace, NET, true);
}

#[test]
fn unix_sockets_strace() {
    check("dec_net_unix", Tracer::Strace, NET, false);
}

#[test]
fn unix_sockets_strace_fd_paths() {
    check("dec_net_unix", Tracer::Strace, NET, true);
}

#[test]
fn inet_loopback_rstrace() {
    check("dec_net_inet", Tracer::Rstrace, NET, false);
}

#[test]
fn inet_loopback_rstrace_fd_paths() {
    check("dec_net_inet", Tracer::Rstrace, NET, true);
}

#[test]
fn inet_loopback_strace() {
    check("dec_net_inet", Tracer::Strace, NET, false);
}

#[test]
fn netlink_packet_unknown_rstrace() {
    check("dec_net_misc", Tracer::Rstrace, NET, false);
}

#[test]
fn netlink_packet_unknown_rstrace_fd_paths() {
    check("dec_net_misc", Tracer::Rstrace, NET, true);
}

#[test]
fn netlink_packet_unknown_strace() {
    check("dec_net_misc", Tracer::Strace, NET, false);
}
