//! rseq(2) against strace 7.2: `testprogs/dec_rseq72.c` registers, passes
//! an unknown flag, unregisters, points `rseq_cs` at a readable and an
//! unreadable descriptor, passes lengths past 32 bytes, a short length and
//! unaligned, bad and NULL pointers; every line (glibc's own registration
//! too) must be strace 7.2's, plain and under `-v`, `-X raw`, `-X verbose`
//! and `-e verbose=none`. Skipped (with the reason) when strace 7.2 is not
//! at hand; the decoded fields are asserted on rstrace's own output too.

use crate::common::{rstrace, temp_path, testprog};
use crate::strace72_diff::compare_variants;
use std::process::{Command, Stdio};

#[test]
fn rseq_structs_match_strace_7_2() {
    let prog = testprog("dec_rseq72");
    compare_variants("rseq", &prog);
    // Without the oracle, the decoding must still be there.
    let out = temp_path("rseq72");
    let st = Command::new(rstrace())
        .args(["-e", "trace=rseq", "-o"])
        .arg(&out)
        .arg(&prog)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run rstrace");
    assert!(st.success());
    let text = std::fs::read_to_string(&out).expect("read the trace");
    let _ = std::fs::remove_file(&out);
    for want in [
        "rseq({cpu_id_start=3, cpu_id=RSEQ_CPU_ID_REGISTRATION_FAILED, rseq_cs={version=0, flags=RSEQ_CS_FLAG_NO_RESTART_ON_PREEMPT|RSEQ_CS_FLAG_NO_RESTART_ON_MIGRATE, start_ip=0x1000, post_commit_offset=0x20, abort_ip=0x2000} /* 0x",
        "flags=RSEQ_CS_FLAG_SLICE_EXT_AVAILABLE|0x8, node_id=1, mm_cid=2, slice_ctrl={request=1, granted=2, __reserved=0x3}, __reserved=0x77}, 33, 0, 0x53053053)",
        "rseq_cs=0x8, flags=",
        "32, 0x4 /* RSEQ_FLAG_??? */, 0x53053053)",
        ", 20, 0, 0x53053053) = -1 EINVAL",
        "rseq(NULL, 32, 0, 0x53053053)",
    ] {
        assert!(text.contains(want), "no {want:?} in:\n{text}");
    }
}
