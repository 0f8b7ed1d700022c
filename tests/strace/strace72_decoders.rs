//! Decoders that changed between strace 6.1 and 7.2, against strace 7.2:
//! each `testprogs/dec_*72.c` passes the values 7.2 names (new options,
//! sub-commands, flag bits) and bad ones through syscall(2), and every line
//! must be strace 7.2's after the normalisation of `strace72_diff.rs`,
//! plain and under `-v`, `-X raw`, `-X verbose`, `-e verbose=none`; getters
//! whose return value 7.2 decodes run again with the value injected.
//! Skipped (with the reason) when strace 7.2 is not at hand.

use crate::common::testprog;
use crate::strace72_diff::{compare_run, compare_variants, Run};

/// Runs `prog` with `calls` returning `retval` (`-e inject=…:retval=`),
/// plain, under `-X raw` and under `-X verbose`.
fn compare_injected(calls: &str, retval: &str, prog: &std::path::Path) {
    let inject = format!("inject={calls}:retval={retval}");
    for style in [&[][..], &["-X", "raw"], &["-X", "verbose"]] {
        let opts: Vec<&str> = style.iter().copied().chain(["-e", &inject]).collect();
        compare_run(&Run {
            opts: &opts,
            calls,
            prog,
            args: &[],
        });
    }
}

/// PR_SET/GET_MDWE, PR_RISCV_*, PR_PPC_*_DEXCR, the exec securebits and
/// PR_SCHED_CORE's arg5.
#[test]
fn prctl_options_match_strace_7_2() {
    let prog = testprog("dec_prctl72");
    compare_variants("prctl", &prog);
    for retval in ["0", "42"] {
        compare_injected("prctl", retval, &prog);
    }
}

/// SOL_TIPC's option names and values, IP_LOCAL_PORT_RANGE, IP_PROTOCOL
/// and the setsockopt-only SO_DEVMEM_DONTNEED.
#[test]
fn socket_options_match_strace_7_2() {
    let prog = testprog("dec_sockopt72");
    compare_variants("getsockopt,setsockopt", &prog);
    compare_injected("getsockopt", "0", &prog);
}

/// FS_IOC_SHUTDOWN's flags and FS_IOC_GETFSUUID's identifier.
#[test]
fn fs_ioctls_match_strace_7_2() {
    compare_variants("ioctl", &testprog("dec_fsioc72"));
}
