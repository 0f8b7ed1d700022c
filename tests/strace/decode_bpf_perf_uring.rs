//! bpf(2), perf_event_open(2) and io_uring_setup/enter/register
//! (`src/syscall/{bpf,perf_event,io_uring}.rs`): `testprogs/dec_bpf.c`,
//! `dec_perf.c` and `dec_uring.c` make the calls with raw syscall(); their
//! lines under rstrace must be identical to strace 6.1's (io_uring: strace
//! 7.2's, which knows the newer opcodes, features and `user_addr`) after
//! normalising addresses and the system-wide BPF ids, plain, with `-v` and
//! with `-y`.
//! Assertions on specific decoded fields make the test fail if a decoder
//! regresses to a bare pointer even where strace is not installed.

use crate::common;

use common::{have, normalize, rstrace, testprog};
use std::process::{Command, Stdio};

const BPF: &str = "bpf";
const PERF: &str = "perf_event_open";
const URING: &str = "io_uring_setup,io_uring_enter,io_uring_register";

/// strace pads the ` = ` column to a fixed width; compare without it.
fn unpad(line: &str) -> String {
    let Some(i) = line.rfind(") ") else {
        return line.to_string();
    };
    let tail = line[i + 1..].trim_start_matches(' ');
    if tail.starts_with("= ") {
        format!("{} {}", &line[..=i], tail)
    } else {
        line.to_string()
    }
}

/// BPF object ids are system-wide and grow with every program loaded, so the
/// `*_GET_NEXT_ID` answers and the `id=` of object info differ from run to
/// run: mask those numbers.
fn mask_ids(line: &str) -> String {
    let whole = line.contains("_GET_NEXT_ID");
    let mut out = String::new();
    let mut in_num = false;
    for ch in line.chars() {
        let masked = ch.is_ascii_digit() && (whole || in_num || out.ends_with(" id="));
        if masked {
            if !in_num {
                out.push('N');
            }
            in_num = true;
        } else {
            in_num = false;
            out.push(ch);
        }
    }
    out
}

/// Runs `prog` under `tracer` with `opts`; the traced calls' lines, normalised.
/// `None` when the program could not set up (exit 77).
fn trace(mut cmd: Command, opts: &[&str], set: &str, prog: &str, tag: &str) -> Option<Vec<String>> {
    let out =
        std::env::temp_dir().join(format!("rtrace-dec-bpu-{tag}-{}.trace", std::process::id()));
    let res = cmd
        .args(opts)
        .arg("-e")
        .arg(format!("trace={set}"))
        .arg("-o")
        .arg(&out)
        .arg(testprog(prog))
        // The same descriptors 0-2 under both tracers (`-y` prints them).
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("run tracer");
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if res.status.code() == Some(77) {
        eprintln!(
            "skip {tag}: {}",
            String::from_utf8_lossy(&res.stderr).trim()
        );
        return None;
    }
    assert!(res.status.success(), "{tag}: {:?}", res.status);
    let inode = regex_lite::Regex::new(r"(socket|pipe):\[\d+\]").unwrap();
    let lines: Vec<String> = normalize(&text)
        .lines()
        .filter(|l| !l.starts_with("+++"))
        .map(|l| mask_ids(&unpad(l)))
        // Socket and pipe inodes (`-y`) differ between the two runs.
        .map(|l| inode.replace_all(&l, "${1}:[INO]").into_owned())
        .collect();
    assert!(!lines.is_empty(), "{tag}: no traced calls");
    Some(lines)
}

/// rstrace's lines, and strace's identical lines when strace is installed.
fn compare(prog: &str, set: &str, opts: &[&str], tag: &str) -> Option<Vec<String>> {
    let oracle = if have("strace") {
        Ok(Command::new("strace"))
    } else {
        Err("strace is not installed".to_string())
    };
    compare_with(oracle, prog, set, opts, tag)
}

/// [`compare`] against strace 7.2.
fn compare72(prog: &str, set: &str, opts: &[&str], tag: &str) -> Option<Vec<String>> {
    compare_with(common::strace72(), prog, set, opts, tag)
}

/// rstrace's lines, and `oracle`'s identical lines when it is at hand.
fn compare_with(
    oracle: Result<Command, String>,
    prog: &str,
    set: &str,
    opts: &[&str],
    tag: &str,
) -> Option<Vec<String>> {
    let ours = trace(
        Command::new(rstrace()),
        opts,
        set,
        prog,
        &format!("{tag}-r"),
    )?;
    let oracle = match oracle {
        Ok(c) => c,
        Err(why) => {
            eprintln!("skip the strace comparison of {tag}: {why}");
            return Some(ours);
        }
    };
    let theirs = trace(oracle, opts, set, prog, &format!("{tag}-s"))?;
    let n = ours.len().max(theirs.len());
    let mut diffs = Vec::new();
    for i in 0..n {
        let a = ours.get(i).map_or("<none>", |s| s.as_str());
        let b = theirs.get(i).map_or("<none>", |s| s.as_str());
        if a != b {
            diffs.push(format!("rstrace: {a}\nstrace:  {b}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{tag}: {} of {n} lines differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    Some(ours)
}

/// Every needle occurs in some line.
fn assert_has(lines: &[String], needles: &[&str]) {
    for n in needles {
        assert!(
            lines.iter().any(|l| l.contains(n)),
            "no line contains {n:?}:\n{}",
            lines.join("\n")
        );
    }
}

#[test]
fn bpf_matches_strace() {
    let Some(l) = compare("dec_bpf", BPF, &[], "bpf") else {
        return;
    };
    assert_has(
        &l,
        &[
            "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=8, max_entries=4, map_flags=BPF_F_RDONLY_PROG, inner_map_fd=0, map_name=\"rtrace_map\"",
            "map_extra=0}, 72) = 3",
            "numa_node=4294967295 /* NUMA_NO_NODE */, map_name=\"rtrace_map\", map_ifindex=if_nametoindex(\"lo\")",
            "bpf(BPF_MAP_UPDATE_ELEM, {map_fd=3, key=0xADDR, value=0xADDR, flags=BPF_EXIST}, 32) = 0",
            "license=\"GPL\", log_level=0, log_size=0, log_buf=NULL, kern_version=KERNEL_VERSION(5, 10, 3)",
            "expected_attach_type=BPF_XDP, prog_btf_fd=0",
            "bpf(BPF_OBJ_PIN, {pathname=\"/sys/fs/bpf/rtrace-no-such-dir/x\", bpf_fd=3, file_flags=0}, 16)",
            "attach_type=BPF_CGROUP_INET_INGRESS, attach_flags=BPF_F_ALLOW_MULTI",
            "bpf(BPF_PROG_TEST_RUN, {test={prog_fd=",
            "next_id=N => N}",
            "bpf(BPF_OBJ_GET_INFO_BY_FD, {info={bpf_fd=3, info_len=",
            "bpf(BPF_BTF_LOAD, {btf=\"\\237\\353\\1\\0\\0\\0\\0\\0\"",
            "{raw_tracepoint={name=\"sys_enter\", prog_fd=",
            "bpf(0x7f /* BPF_??? */, 0xADDR, 16)",
            "bpf(BPF_MAP_DELETE_ELEM, {map_fd=3, key=NULL, ...}, 104)",
        ],
    );
}

#[test]
fn bpf_matches_strace_fd_paths() {
    let Some(l) = compare("dec_bpf", BPF, &["-y"], "bpf-y") else {
        return;
    };
    assert_has(&l, &["{map_fd=3<anon_inode:bpf-map>, key="]);
}

#[test]
fn bpf_matches_strace_verbose() {
    let Some(l) = compare("dec_bpf", BPF, &["-v"], "bpf-v") else {
        return;
    };
    assert_has(
        &l,
        &[
            "insns=[{code=BPF_ALU64|BPF_K|BPF_MOV, dst_reg=BPF_REG_0, src_reg=BPF_REG_0, off=0, imm=0}, {code=BPF_JMP|BPF_K|BPF_EXIT, dst_reg=BPF_REG_0, src_reg=BPF_REG_0, off=0, imm=0}], license=\"GPL\"",
            "info={type=BPF_MAP_TYPE_ARRAY, id=N, key_size=4, value_size=8, max_entries=4, map_flags=BPF_F_RDONLY_PROG, name=\"rtrace_map\"",
        ],
    );
}

#[test]
fn perf_matches_strace() {
    let Some(l) = compare("dec_perf", PERF, &[], "perf") else {
        return;
    };
    assert_has(
        &l,
        &[
            "perf_event_open({type=PERF_TYPE_HARDWARE, size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_HW_INSTRUCTIONS, sample_period=0, sample_type=0, read_format=PERF_FORMAT_TOTAL_TIME_ENABLED|PERF_FORMAT_ID, disabled=1, exclude_kernel=1, exclude_hv=1, precise_ip=0 /* arbitrary skid */, ...}, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)",
            "sample_freq=4000, sample_type=PERF_SAMPLE_IP|PERF_SAMPLE_TID|PERF_SAMPLE_TIME|PERF_SAMPLE_CALLCHAIN|PERF_SAMPLE_PERIOD",
            "config=PERF_COUNT_HW_CACHE_RESULT_MISS<<16|PERF_COUNT_HW_CACHE_OP_READ<<8|PERF_COUNT_HW_CACHE_L1D",
            "type=0x77 /* PERF_TYPE_??? */, size=0x3039 /* PERF_ATTR_SIZE_??? */",
            "perf_event_open(NULL, 0, -1, -1, 0)",
        ],
    );
}

#[test]
fn perf_matches_strace_verbose() {
    let Some(l) = compare("dec_perf", PERF, &["-v"], "perf-v") else {
        return;
    };
    assert_has(
        &l,
        &[
            "bp_type=HW_BREAKPOINT_RW, bp_addr=0xADDR, bp_len=8, sample_regs_user=0xff}",
            "clockid=CLOCK_MONOTONIC, sample_regs_intr=0x3, aux_watermark=10, sample_max_stack=0, aux_sample_size=0, sig_data=0xbeef}",
            "wakeup_watermark=4096, config1=0",
        ],
    );
}

#[test]
fn io_uring_matches_strace() {
    let Some(l) = compare72("dec_uring", URING, &[], "uring") else {
        return;
    };
    assert_has(
        &l,
        &[
            "io_uring_setup(4, {flags=0, sq_thread_cpu=0, sq_thread_idle=0, sq_entries=4, cq_entries=8, features=IORING_FEAT_SINGLE_MMAP|",
            "sq_off={head=0, tail=4, ring_mask=",
            "{flags=IORING_SETUP_SQPOLL|IORING_SETUP_SQ_AFF|0xADDR, sq_thread_cpu=0x1, sq_thread_idle=100, resv=[0, 0x5, 0]}",
            "io_uring_enter(3, 0, 0, IORING_ENTER_GETEVENTS|IORING_ENTER_SQ_WAKEUP, [USR1], 8) = 0",
            "io_uring_register(3, IORING_REGISTER_FILES, [0, 1, -1], 3) = 0",
            "IORING_REGISTER_FILES_UPDATE, {offset=1, fds=[2]}, 1)",
            "{last_op=",
            "[{opcode=IORING_RESTRICTION_REGISTER_OP, register_op=IORING_REGISTER_PROBE}, {opcode=IORING_RESTRICTION_SQE_OP, sqe_op=IORING_OP_READV}]",
            "[[IO_WQ_BOUND]=4, [IO_WQ_UNBOUND]=8] => [[IO_WQ_BOUND]=",
            "IORING_REGISTER_IOWQ_AFF, [0 1], 8) = 0",
        ],
    );
}

#[test]
fn io_uring_matches_strace_fd_paths() {
    let Some(l) = compare72("dec_uring", URING, &["-y"], "uring-y") else {
        return;
    };
    assert_has(
        &l,
        &["io_uring_setup(4, {flags=0", "anon_inode:[io_uring]>"],
    );
}

/// `testprogs/dec_uring72.c`: setup flags up to IORING_SETUP_SQ_REWIND,
/// the features and ring offsets' `user_addr` of a ring, io_uring_enter's
/// `struct io_uring_getevents_arg` (signal set and timeout dereferenced)
/// and newer flags, the register opcodes 24-38 (the arguments of 24-30,
/// 33 and 34 decoded: cancelation, file range, buffer status, NAPI before
/// and after, clock, buffer cloning, ring resizing, memory regions) and
/// IORING_REGISTER_USE_REGISTERED_RING: every line as strace 7.2 prints it,
/// plain, `-v`, `-X raw` and `-X verbose`.
#[test]
fn io_uring_newer_values_match_strace_7_2() {
    for (opts, tag) in [
        (&[][..], "uring72"),
        (&["-v"], "uring72-v"),
        (&["-X", "raw"], "uring72-raw"),
        (&["-X", "verbose"], "uring72-verbose"),
        // Reserved arrays and the query chain cut at the string limit,
        // and not cut under -v.
        (&["-s", "5"], "uring72-s5"),
        (&["-v", "-s", "5"], "uring72-v-s5"),
    ] {
        let Some(l) = compare72("dec_uring72", URING, opts, tag) else {
            return;
        };
        let raw = opts.contains(&"raw");
        let needles: &[&str] = if raw {
            &[
                "io_uring_setup(1, {flags=0x",
                "{sigmask=[12], sigmask_sz=8, min_wait_usec=7, ts={tv_sec=0, tv_nsec=1000}}, 24) = 0",
                "io_uring_register(3, 0x8|0x",
                "{clockid=0x7}, 0) = 0",
                "opcode=0x1, pad=[0x1, 0], op_param=0x33, resv=0x4}, 1)",
            ]
        } else {
            &[
                "IORING_FEAT_LINKED_FILE|IORING_FEAT_REG_REG_RING|",
                ", user_addr=0}, cq_off={",
                "IORING_SETUP_SINGLE_ISSUER|IORING_SETUP_DEFER_TASKRUN",
                "IORING_SETUP_SQE_MIXED|IORING_SETUP_SQ_REWIND|0x",
                "min_wait_usec=7, ts={tv_sec=0, tv_nsec=1000}}, 24) = 0",
                "{sigmask=NULL, sigmask_sz=8, min_wait_usec=0, ts=NULL}, 16) = 0",
                "IORING_REGISTER_SYNC_CANCEL",
                "IORING_REGISTER_BPF_FILTER",
                "IORING_REGISTER_PROBE",
                "IORING_REGISTER_USE_REGISTERED_RING",
            ]
        };
        assert_has(&l, needles);
        if opts == ["-s", "5"] {
            assert_has(
                &l,
                &[
                    "pad=[0, 0x5, 0, 0, 0, ...], pad2=[0, 0, 0x9]}, 1)",
                    "size=0, result=-22, __resv=[0x1, 0, 0x3], next_entry=0x",
                ],
            );
            continue;
        }
        // The register structures, where constants print by name.
        if !opts.contains(&"-X") {
            assert_has(
                &l,
                &[
                    "IORING_REGISTER_SYNC_CANCEL, {addr=0x1234, fd=0, flags=IORING_ASYNC_CANCEL_ALL|IORING_ASYNC_CANCEL_FD|0x80, timeout={tv_sec=1, tv_nsec=2}, opcode=IORING_OP_CLOSE}, 1)",
                    "pad=[0, 0x5, 0, 0, 0, 0, 0], pad2=[0, 0, 0x9]}, 1)",
                    "IORING_REGISTER_FILE_ALLOC_RANGE, {off=1, len=2, resv=0x10}, 1)",
                    "IORING_REGISTER_PBUF_STATUS, 0xADDR, 1) = -1",
                    "op_param=IO_URING_NAPI_TRACKING_STATIC} => {busy_poll_to=",
                    "IORING_UNREGISTER_NAPI, {busy_poll_to=0x64, prefer_busy_poll=0x1,",
                    "IORING_REGISTER_CLOCK, {clockid=CLOCK_BOOTTIME}, 0) = 0",
                    "nr=3, pad=[0x6, 0, 0]}, 1)",
                    "{region_uptr=0x1000, flags=IORING_MEM_REGION_REG_WAIT_ARG}, 1)",
                    "sq_off={user_addr=0x2000}, cq_off={user_addr=0x3000}, resv=[0, 0, 0x1]}, 1)",
                    "IORING_REGISTER_ZCRX_IFQ, {if_idx=2, if_rxq=3, rq_entries=64, flags=ZCRX_REG_IMPORT, area_ptr=0x1000, region_ptr=0x5000, offsets={head=9, tail=8, rqes=7}, zcrx_id=3, rx_buf_len=4096, event_desc=NULL}, 1)",
                    "op=ZCRX_CTRL_ARM_EVENT, __resv=[0, 0x3], zc_arm_event={event_type=ZCRX_EVENT_COPY, __resv=[0, 0x5, 0, 0, 0, 0, 0, 0, 0, 0, 0x6]}}, 1)",
                    "query_op=IO_URING_QUERY_SCQ, size=16, result=0, query_data={hdr_size=64, hdr_alignment=8}, next_entry=NULL}}, 0)",
                    "next_entry=0x8}, 0)",
                ],
            );
        }
    }
}

/// `testprogs/dec_uring_sqe72.c`: IORING_REGISTER_SEND_MSG_RING's SQE of
/// every opcode (unknown ones too), each union member the opcode selects
/// (ioprio flags of accept and send/receive, nop, msg_ring and install_fd
/// flags, the socket command of IORING_OP_URING_CMD on a socket,
/// attr_type_mask and the protection information at attr_ptr), the command
/// bytes of 128-byte SQEs, partly unreadable ones, another count and bad
/// addresses: every line as strace 7.2 prints it, plain, `-v`, `-s 5`,
/// `-X raw`, `-X verbose`, `-y` and `-e verbose=none`.
#[test]
fn io_uring_send_msg_ring_sqe_matches_strace_7_2() {
    for (opts, tag) in [
        (&[][..], "sqe72"),
        (&["-v"], "sqe72-v"),
        (&["-s", "5"], "sqe72-s5"),
        (&["-X", "raw"], "sqe72-raw"),
        (&["-X", "verbose"], "sqe72-verbose"),
        (&["-y"], "sqe72-y"),
        (&["-e", "verbose=none"], "sqe72-none"),
    ] {
        let Some(l) = compare72("dec_uring_sqe72", URING, opts, tag) else {
            return;
        };
        let needles: &[&str] = match opts {
            [] => &[
                "IORING_REGISTER_SEND_MSG_RING, {opcode=IORING_OP_MSG_RING, flags=0, ioprio=0, fd=0, off=0, addr=0, len=0, msg_ring_flags=0, user_data=0, buf_index=0, personality=0, file_index=0, optval=0}, 1)",
                "{opcode=IORING_OP_NOP, flags=IOSQE_FIXED_FILE, ioprio=770, fd=117835012, off=0xADDR, addr=0xADDR, len=454695192, nop_flags=IORING_NOP_FIXED_FILE|IORING_NOP_FIXED_BUFFER|IORING_NOP_TW|0xADDR, user_data=0xADDR, buf_index=0x2928, personality=11050, file_index=0xADDR, optval=0xADDR}, 1)",
                "{opcode=IORING_OP_SENDMSG, flags=IOSQE_FIXED_FILE, ioprio=IORING_RECV_MULTISHOT|0x300,",
                "attr_type_mask=0xADDR /* IORING_RW_ATTR_FLAG_??? */, attr_ptr=0xADDR}, 1)",
                "{opcode=IORING_OP_ACCEPT, flags=IOSQE_FIXED_FILE, ioprio=IORING_ACCEPT_DONTWAIT|0x300,",
                "{opcode=66 /* IORING_OP_??? */, flags=0, ioprio=0, fd=0, off=0, addr=0, len=0, rw_flags=0,",
                "install_fd_flags=IORING_FIXED_FD_NO_CLOEXEC,",
                "msg_ring_flags=IORING_MSG_RING_FLAGS_PASS,",
                "off=SOCKET_URING_OP_GETSOCKNAME, addr=0",
                "off=7 /* SOCKET_URING_OP_??? */, addr=0",
                "attr_type_mask=IORING_RW_ATTR_FLAG_PI, attr_ptr={flags=0x11, app_tag=0x22, len=51, addr=0x44, seed=0x55, rsvd=0x66}}, 1)",
                "attr_type_mask=IORING_RW_ATTR_FLAG_PI, attr_ptr=NULL}, 1)",
                "optval=0xADDR, cmd=[0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, ...]}, 1)",
                "IORING_REGISTER_SEND_MSG_RING, NULL, 1)",
            ],
            ["-X", "raw"] => &["io_uring_register(-1, 0x1f, {opcode=46, flags=0, ioprio=0, fd=3, off=4, addr=0"],
            ["-X", "verbose"] => &["off=1 /* SOCKET_URING_OP_SIOCOUTQ */,"],
            ["-y"] => &["fd=3<socket:[INO]>, off=SOCKET_URING_OP_SIOCINQ,", "fd=5<pipe:[INO]>"],
            _ => &["IORING_REGISTER_SEND_MSG_RING, "],
        };
        assert_has(&l, needles);
    }
}
