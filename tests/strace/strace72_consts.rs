//! Constants the kernel uapi headers gained since Linux 6.1, against strace
//! 7.2: `testprogs/dec_new_consts.c` passes each new value (bpf map, program
//! and attach types and commands, SCHED_EXT, prctl options, SOL_SOCKET and
//! SOL_TCP options, FS_IOC_* ioctls, madvise advice, MAP_DROPPABLE,
//! OPENAT2_REGULAR, Landlock rights, io_uring register opcodes and enter
//! flags, clone3 flags, statx masks, fcntl commands, RWF_* flags, memfd,
//! mempolicy and fanotify flags, IPPROTO_AGGFRAG) through syscall(2), and
//! every line must be strace 7.2's after the normalisation of
//! `strace72_diff.rs`, plain and under `-v`, `-X raw`, `-X verbose` (the
//! numbers beside the names) and `-e verbose=none`. Skipped (with the
//! reason) when strace 7.2 is not at hand.

use crate::common::testprog;
use crate::strace72_diff::compare_variants;

const CALLS: &str = "bpf,sched_setattr,prctl,setsockopt,ioctl,madvise,mmap,openat2,\
landlock_create_ruleset,io_uring_register,io_uring_enter,clone3,statx,fcntl,preadv2,\
memfd_create,set_mempolicy,fanotify_init,fanotify_mark,socket";

#[test]
fn constants_newer_than_linux_6_1_match_strace_7_2() {
    compare_variants(CALLS, &testprog("dec_new_consts"));
}
