//! eventfd, signalfd, timerfd, inotify and fanotify decoders
//! (`src/syscall/eventfds.rs`, timerfd in `time.rs`) against the lines
//! `testprogs/dec_eventfds.c` prints for each call, under rstrace and under
//! the installed strace.

use crate::decnet_util;

use decnet_util::{check, Tracer};

const SET: &str = "eventfd2,signalfd4,timerfd_create,timerfd_settime,timerfd_gettime,\
                   inotify_init1,inotify_add_watch,inotify_rm_watch,fanotify_init,fanotify_mark";

#[test]
fn event_descriptors_rstrace() {
    check("dec_eventfds", Tracer::Rstrace, SET, false);
}

#[test]
fn event_descriptors_rstrace_fd_paths() {
    check("dec_eventfds", Tracer::Rstrace, SET, true);
}

#[test]
fn event_descriptors_strace() {
    check("dec_eventfds", Tracer::Strace, SET, false);
}

#[test]
fn event_descriptors_strace_fd_paths() {
    check("dec_eventfds", Tracer::Strace, SET, true);
}
