//! poll/ppoll/select/pselect6 and epoll decoders (`src/syscall/poll.rs`)
//! against the lines `testprogs/dec_poll.c` prints for each call, under
//! rstrace and under the installed strace.

use crate::decnet_util;

use decnet_util::{check, Tracer};

const SET: &str = "poll,ppoll,select,pselect6,epoll_create1,epoll_ctl,epoll_wait,\
                   epoll_pwait,epoll_pwait2";

#[test]
fn poll_select_epoll_rstrace() {
    check("dec_poll", Tracer::Rstrace, SET, false);
}

#[test]
fn poll_select_epoll_rstrace_fd_paths() {
    check("dec_poll", Tracer::Rstrace, SET, true);
}

#[test]
fn poll_select_epoll_strace() {
    check("dec_poll", Tracer::Strace, SET, false);
}

#[test]
fn poll_select_epoll_strace_fd_paths() {
    check("dec_poll", Tracer::Strace, SET, true);
}
