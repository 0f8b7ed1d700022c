//! Backtraces of live processes, compared frame by frame with gdb's.
//!
//! Each test program stops itself with SIGSTOP deep in a call chain (see
//! `testprogs/bt_*.c`). The test waits for the stop (`waitpid(WUNTRACED)`),
//! seizes the stopped child to read its registers, unwinds it with
//! [`rtrace::unwind`], symbolizes the frames with [`rtrace::symbols`], and
//! separately runs the same binary under `gdb -batch -ex run -ex bt` (same
//! stop). The two lists must be equal: the same number of frames down to
//! `main`, the same function names, and the same `file:line` (gdb prints the
//! file name as the line table spells it, often relative: `./nptl/x.c`,
//! `../sysdeps/y.c`; ours is the full path, so gdb's, without leading `./`
//! and `../`, must be a suffix of ours at a `/`).
//!
//! Frames excluded from the comparison, all gdb-specific: the frames below
//! `main` (gdb stops at `main` by default; our walk goes on to `_start`),
//! and gdb's tail-call frames (`gdb.TAILCALL_FRAME`, listed by a line of
//! gdb Python after `bt`): gdb synthesizes them from DWARF call-site
//! entries (`DW_AT_call_tail_call`) for functions that jumped to their
//! callee, e.g. glibc's `pthread_kill` -> `__pthread_kill_implementation`;
//! they have no stack frame, so no CFI unwinder sees them.
//! gdb's `<signal handler called>` frame is matched with the frame our
//! unwinder marks as a signal trampoline (glibc's `__restore_rt`).
//!
//! Variants: -O0 and -O2, PIE and -no-pie, and -O2 with
//! -fno-omit-frame-pointer. Without gdb, the structural checks still run.

use crate::common;

use rtrace::engine::memory::proc::ProcMem;
use rtrace::engine::ptrace;
use rtrace::symbols::{ModuleMap, Symbolizer};
use rtrace::unwind::{self, from_prstatus_x86_64, Recovery, Unwinder};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// One frame as compared: function name and `file:line`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BtFrame {
    pub(crate) function: String,
    location: Option<(String, u32)>,
}

/// A child stopped by its own SIGSTOP, seized; killed and reaped on drop.
struct StoppedChild {
    pid: i32,
}

impl StoppedChild {
    // The child is reaped with waitpid(__WALL) in `drop`: std's `wait` cannot
    // wait for a traced child through its stops.
    #[allow(clippy::zombie_processes)]
    fn start(prog: &Path) -> StoppedChild {
        let child = Command::new(prog)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", prog.display()));
        let pid = child.id() as i32;
        let stopped = StoppedChild { pid };
        let status = wait(pid, libc::WUNTRACED);
        assert!(
            libc::WIFSTOPPED(status) && libc::WSTOPSIG(status) == libc::SIGSTOP,
            "{} did not stop itself: status {status:#x}",
            prog.display()
        );
        // Seizing a stopped task moves it into a ptrace stop at once, so its
        // registers can be read without resuming it.
        ptrace::seize(pid, 0).expect("PTRACE_SEIZE of the stopped child");
        stopped
    }

    fn regs(&self) -> Vec<u64> {
        let mut words = vec![0u64; 27];
        let bytes = ptrace::get_regs(self.pid, &mut words).expect("GETREGSET");
        words.truncate(bytes / 8);
        words
    }
}

impl Drop for StoppedChild {
    fn drop(&mut self) {
        let _ = ptrace::kill(self.pid, libc::SIGKILL);
        // A pending ptrace-stop report may come before the exit.
        while libc::WIFSTOPPED(wait(self.pid, libc::__WALL)) {}
    }
}

fn wait(pid: i32, flags: i32) -> i32 {
    let mut status = 0;
    // SAFETY: `status` is a live, writable int; waitpid only writes it.
    let r = unsafe { libc::waitpid(pid, &mut status, flags) };
    assert_eq!(r, pid, "waitpid: {}", std::io::Error::last_os_error());
    status
}

/// Our backtrace of the stopped child, down to `main`.
fn our_backtrace(
    child: &StoppedChild,
    symbols: &Symbolizer,
) -> (Vec<BtFrame>, Vec<unwind::UnwoundFrame>) {
    let words = child.regs();
    let regs = from_prstatus_x86_64(&words);
    let mut mem = ProcMem::new(child.pid);
    let map = ModuleMap::from_pid(child.pid, &mut mem).expect("maps");
    let mut unwinder = Unwinder::new();
    let frames = unwinder.unwind_frames(symbols, &map, &regs, &mut mem, 128);
    let mut out = Vec::new();
    for f in &frames {
        if f.signal_trampoline {
            out.push(BtFrame {
                function: "<signal handler called>".into(),
                location: None,
            });
            continue;
        }
        for s in unwind::symbolize_frames(symbols, &map, std::slice::from_ref(f)) {
            out.push(BtFrame {
                function: s.function.clone().unwrap_or_else(|| "??".into()),
                location: s.file.clone().zip(s.line),
            });
        }
    }
    (down_to_main(out), frames)
}

fn down_to_main(mut frames: Vec<BtFrame>) -> Vec<BtFrame> {
    if let Some(i) = frames.iter().position(|f| f.function == "main") {
        frames.truncate(i + 1);
    }
    frames
}

/// gdb's `bt` of the same program at the same stop.
fn gdb_backtrace(prog: &Path, debug_files: bool) -> Vec<BtFrame> {
    let debug_dir = if debug_files {
        "/usr/lib/debug"
    } else {
        "/nonexistent"
    };
    let out = common::gdb_batch()
        .args(["-iex", &format!("set debug-file-directory {debug_dir}")])
        .args([
            "-ex",
            "handle SIGUSR1 SIGSEGV nostop noprint pass",
            "-ex",
            "run",
            "-ex",
            "bt",
        ])
        .args(["-ex", GDB_FRAME_TYPES])
        .arg(prog)
        .stdin(Stdio::null())
        .output()
        .expect("run gdb");
    let text = String::from_utf8_lossy(&out.stdout);
    let tailcalls: Vec<usize> = text
        .lines()
        .filter_map(|l| l.strip_prefix("TAILCALL "))
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let frames: Vec<BtFrame> = text
        .lines()
        .filter_map(parse_gdb_frame)
        .enumerate()
        .filter(|(i, _)| !tailcalls.contains(i))
        .map(|(_, f)| f)
        .collect();
    assert!(
        !frames.is_empty(),
        "no backtrace from gdb:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    down_to_main(frames)
}

/// Prints `TAILCALL N` for each frame N that gdb synthesized for a tail call.
pub(crate) const GDB_FRAME_TYPES: &str = concat!(
    r#"python exec("f = gdb.newest_frame()\ni = 0\nwhile f is not None:\n"#,
    r#"    if f.type() == gdb.TAILCALL_FRAME: print('TAILCALL', i)\n"#,
    r#"    f = f.older()\n    i += 1")"#
);

/// One `bt` line: `#N  [0xADDR in ]FUNC (ARGS) [at FILE:LINE | from LIB]`.
pub(crate) fn parse_gdb_frame(line: &str) -> Option<BtFrame> {
    let rest = line.strip_prefix('#')?;
    let rest = rest
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    if rest.starts_with("<signal handler called>") {
        return Some(BtFrame {
            function: "<signal handler called>".into(),
            location: None,
        });
    }
    let rest = match rest.split_once(" in ") {
        Some((addr, tail)) if addr.starts_with("0x") => tail,
        _ => rest,
    };
    let function = rest.split(" (").next()?.to_string();
    let location = rest.rsplit_once(" at ").and_then(|(_, loc)| {
        let (file, line) = loc.rsplit_once(':')?;
        Some((file.to_string(), line.trim().parse().ok()?))
    });
    Some(BtFrame { function, location })
}

/// gdb's relative file name must be a path suffix of ours.
fn same_file(ours: &str, gdb: &str) -> bool {
    let mut g = gdb;
    while let Some(t) = g.strip_prefix("./").or_else(|| g.strip_prefix("../")) {
        g = t;
    }
    ours == g || ours.ends_with(&format!("/{g}"))
}

fn assert_same_backtrace(ours: &[BtFrame], gdb: &[BtFrame], what: &str) {
    let show = |v: &[BtFrame]| {
        v.iter()
            .enumerate()
            .map(|(i, f)| format!("#{i} {} {:?}\n", f.function, f.location))
            .collect::<String>()
    };
    let context = || format!("{what}\nours:\n{}gdb:\n{}", show(ours), show(gdb));
    assert_eq!(ours.len(), gdb.len(), "frame counts differ: {}", context());
    for (i, (o, g)) in ours.iter().zip(gdb).enumerate() {
        assert_eq!(o.function, g.function, "frame #{i} name: {}", context());
        match (&o.location, &g.location) {
            (Some((of, ol)), Some((gf, gl))) => {
                assert!(
                    same_file(of, gf) && ol == gl,
                    "frame #{i} location: {}",
                    context()
                )
            }
            (None, None) => {}
            _ => panic!("frame #{i}: location known to one side only: {}", context()),
        }
    }
}

/// Builds `name` with `flags`, checks our backtrace's shape with `expect`,
/// and compares it with gdb's when gdb is installed.
fn check(name: &str, variant: &str, flags: &[&str], expect: &[&str]) {
    let prog = common::testprog_variant(name, variant, flags);
    check_binary(&prog, &prog, name, variant, expect, true);
}

/// Like [`check`], with separate debug files (libc's) out of reach of both
/// sides: libc frames are then named from `.dynsym` (gdb's choice among
/// aliases) or `??`, without lines.
fn check_without_debug_files(name: &str, variant: &str, flags: &[&str], expect: &[&str]) {
    let prog = common::testprog_variant(name, variant, flags);
    check_binary(&prog, &prog, name, variant, expect, false);
}

/// Like [`check`], on a copy of the program without its `.debug_frame`: built
/// without `.eh_frame` entries, the program's own frames then have no CFI
/// at all and are walked by frame pointer (libc's still have CFI). The
/// oracle is gdb on the original binary (same code and addresses, with CFI):
/// without CFI, gdb falls back to prologue analysis, which at -O2 invents
/// `??` frames for this program.
fn check_without_cfi(name: &str, variant: &str, flags: &[&str], expect: &[&str]) {
    if !common::have("objcopy") {
        eprintln!("objcopy not installed: skipped");
        return;
    }
    let prog = common::testprog_variant(name, variant, flags);
    let copy = prog.with_file_name(format!("{name}-{variant}-nocfi"));
    let status = Command::new("objcopy")
        .arg("--remove-section=.debug_frame")
        .arg(&prog)
        .arg(&copy)
        .status()
        .expect("run objcopy");
    assert!(status.success());
    check_binary(&copy, &prog, name, variant, expect, true);
}

/// Unwinds `prog` and compares with gdb's backtrace of `oracle`.
fn check_binary(
    prog: &Path,
    oracle: &Path,
    name: &str,
    variant: &str,
    expect: &[&str],
    debug_files: bool,
) {
    let prog = prog.to_path_buf();
    let child = StoppedChild::start(&prog);
    let started = Instant::now();
    let symbols = if debug_files {
        Symbolizer::new()
    } else {
        Symbolizer::with_debug_dirs(Vec::new())
    };
    let (ours, frames) = our_backtrace(&child, &symbols);
    let took = started.elapsed();
    drop(child);
    eprintln!(
        "{name}-{variant}: {} frames in {took:?} (cold caches)",
        ours.len()
    );
    for f in &frames {
        eprintln!(
            "  {:#x} sp={:x?} ret={} sig={} {:?}",
            f.pc, f.sp, f.is_return_address, f.signal_trampoline, f.recovered_by
        );
    }
    // Shape: the expected functions appear in order, ending with main.
    let names: Vec<&str> = ours.iter().map(|f| f.function.as_str()).collect();
    let mut pos = 0;
    for want in expect {
        match names[pos..].iter().position(|n| n == want) {
            Some(i) => pos += i + 1,
            None => panic!("{want} missing (in order) from {names:?} ({variant})"),
        }
    }
    assert_eq!(names.last(), Some(&"main"), "{names:?}");
    assert!(
        frames.iter().any(|f| f.signal_trampoline),
        "no signal frame"
    );
    let no_cfi = prog.to_string_lossy().ends_with("-nocfi");
    assert_eq!(
        frames
            .iter()
            .any(|f| f.recovered_by == Recovery::FramePointer),
        no_cfi,
        "frame-pointer walking is used exactly where CFI is missing"
    );
    if !common::have("gdb") {
        eprintln!("gdb not installed: comparison skipped");
        return;
    }
    let gdb = gdb_backtrace(oracle, debug_files);
    assert_same_backtrace(&ours, &gdb, &format!("{name}-{variant}"));
}

const CHAIN: &[&str] = &[
    "stop_here",
    "relay",
    "on_usr1",
    "<signal handler called>",
    "compare",
    "run_sort",
    "main",
];
const FAULT: &[&str] = &[
    "stop_here",
    "on_segv",
    "<signal handler called>",
    "faulty",
    "caller",
    "main",
];

macro_rules! variants {
    ($($test:ident: $check:ident $prog:literal, $expect:ident, $variant:literal, [$($flag:literal),*];)*) => {$(
        #[test]
        #[cfg(target_arch = "x86_64")]
        fn $test() {
            $check($prog, $variant, &[$($flag),*], $expect);
        }
    )*};
}

variants! {
    chain_o0_pie: check "bt_chain", CHAIN, "O0-pie", ["-O0", "-pie", "-fPIE"];
    chain_o0_nopie: check "bt_chain", CHAIN, "O0-nopie", ["-O0", "-no-pie", "-fno-PIE"];
    chain_o2_pie: check "bt_chain", CHAIN, "O2-pie", ["-O2", "-pie", "-fPIE"];
    chain_o2_nopie: check "bt_chain", CHAIN, "O2-nopie", ["-O2", "-no-pie", "-fno-PIE"];
    chain_o2_fp_pie: check "bt_chain", CHAIN, "O2-fp-pie", ["-O2", "-fno-omit-frame-pointer", "-pie", "-fPIE"];
    chain_o2_fp_nopie: check "bt_chain", CHAIN, "O2-fp-nopie", ["-O2", "-fno-omit-frame-pointer", "-no-pie", "-fno-PIE"];
    fault_o0_pie: check "bt_fault", FAULT, "O0-pie", ["-O0", "-pie", "-fPIE"];
    fault_o0_nopie: check "bt_fault", FAULT, "O0-nopie", ["-O0", "-no-pie", "-fno-PIE"];
    fault_o2_pie: check "bt_fault", FAULT, "O2-pie", ["-O2", "-pie", "-fPIE"];
    fault_o2_nopie: check "bt_fault", FAULT, "O2-nopie", ["-O2", "-no-pie", "-fno-PIE"];
    fault_o2_fp_pie: check "bt_fault", FAULT, "O2-fp-pie", ["-O2", "-fno-omit-frame-pointer", "-pie", "-fPIE"];
    // CFI only in .debug_frame (no .eh_frame entries for the program's code).
    chain_o2_debug_frame: check "bt_chain", CHAIN, "O2-debugframe",
        ["-O2", "-fno-omit-frame-pointer", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"];
    fault_o0_debug_frame: check "bt_fault", FAULT, "O0-debugframe",
        ["-O0", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"];
    // No CFI for the program's code at all: frame pointers.
    chain_o2_fp_no_cfi: check_without_cfi "bt_chain", CHAIN, "O2-debugframe",
        ["-O2", "-fno-omit-frame-pointer", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"];
    chain_o0_fp_no_cfi: check_without_cfi "bt_chain", CHAIN, "O0-debugframe",
        ["-O0", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"];
    // As on a machine without libc's debug package.
    chain_o2_no_debug_files: check_without_debug_files "bt_chain", CHAIN, "O2-pie", ["-O2", "-pie", "-fPIE"];
    fault_o0_no_debug_files: check_without_debug_files "bt_fault", FAULT, "O0-nopie", ["-O0", "-no-pie", "-fno-PIE"];
}

#[test]
fn gdb_line_parser() {
    let f = parse_gdb_frame("#1  0x00007ffff7e5ff4f in __pthread_kill_internal (signo=19, threadid=<optimized out>) at ./nptl/pthread_kill.c:78").unwrap();
    assert_eq!(f.function, "__pthread_kill_internal");
    assert_eq!(f.location, Some(("./nptl/pthread_kill.c".into(), 78)));
    let f =
        parse_gdb_frame("#5  on_usr1 (sig=<optimized out>) at testprogs/bt_chain.c:37").unwrap();
    assert_eq!(f.function, "on_usr1");
    let f =
        parse_gdb_frame("#3  0x00007ffff7dd5f1a in raise () from /lib/x86_64-linux-gnu/libc.so.6")
            .unwrap();
    assert_eq!((f.function.as_str(), f.location), ("raise", None));
    assert_eq!(
        parse_gdb_frame("#6  <signal handler called>")
            .unwrap()
            .function,
        "<signal handler called>"
    );
    assert!(same_file(
        "/build/glibc/signal/../sysdeps/posix/raise.c",
        "../sysdeps/posix/raise.c"
    ));
    assert!(!same_file("/x/myraise.c", "raise.c"));
}

/// Cost of one unwind + symbolization once caches are warm (printed; the
/// bound only catches gross regressions, it is loose for debug builds).
#[test]
#[cfg(target_arch = "x86_64")]
fn warm_unwind_and_symbolize_cost() {
    let prog = common::testprog_variant("bt_chain", "O2-pie", &["-O2", "-pie", "-fPIE"]);
    let child = StoppedChild::start(&prog);
    let regs = from_prstatus_x86_64(&child.regs());
    let mut mem = ProcMem::new(child.pid);
    let map = ModuleMap::from_pid(child.pid, &mut mem).expect("maps");
    let symbols = Symbolizer::new();
    let mut unwinder = Unwinder::new();
    let cold = Instant::now();
    let frames = unwinder.unwind_frames(&symbols, &map, &regs, &mut mem, 128);
    let first = unwind::symbolize_frames(&symbols, &map, &frames);
    let cold = cold.elapsed();
    let rounds = 200;
    let warm = Instant::now();
    for _ in 0..rounds {
        let frames = unwinder.unwind_frames(&symbols, &map, &regs, &mut mem, 128);
        let again = unwind::symbolize_frames(&symbols, &map, &frames);
        assert_eq!(again, first);
    }
    let per_stack = warm.elapsed() / rounds;
    let unwind_only = Instant::now();
    for _ in 0..rounds {
        unwinder.unwind(&symbols, &map, &regs, &mut mem, 128);
    }
    let per_unwind = unwind_only.elapsed() / rounds;
    eprintln!(
        "{} frames ({} symbolized): cold {cold:?}; warm unwind+symbolize {per_stack:?}, unwind only {per_unwind:?}",
        frames.len(),
        first.len()
    );
    assert!(per_stack.as_millis() < 50, "{per_stack:?} per stack");
}
