//! Fault matrix, rtrace itself: SIGINT, SIGTERM and SIGHUP sent to rstrace,
//! rltrace, `rtrace break` (breakpoints, return probes and a watchpoint in
//! one session), `rtrace watch` and `rtrace kernel probe` (uprobes) while
//! they trace an attached process; SIGKILL of a kernel probe session then
//! `rtrace kernel cleanup`; output to a full disk and to a closed pipe.
//!
//! After each interruption the attached program must run on computing
//! right, with its code equal to its files (no INT3 left), no debug
//! register set, its mappings as before attach and no tracer.

use crate::common;

use common::{
    lines_of, next_line, rltrace, rstrace, rtrace, temp_path, testprog, testprog_variant,
    wait_bounded,
};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Kernel probe tests share tracefs snapshots: one at a time in this file.
static KERNEL: Mutex<()> = Mutex::new(());

/// The attached program: testprogs/bp_watch.c built with `-DTICK_GETPPID`
/// (each tick() also calls getppid()).
fn attach_prog() -> PathBuf {
    testprog_variant("bp_watch", "getppid", &["-DTICK_GETPPID"])
}

/// The attached program ([`attach_prog`]) and its pipes.
struct Target {
    child: Child,
    pin: ChildStdin,
    pout: Receiver<String>,
    pid: u32,
    total: i64,
}

impl Target {
    fn start() -> Target {
        Target::start_binary(&attach_prog())
    }

    /// A kernel uprobe patches every mapping of its file, so the kernel
    /// probe tests run a private copy of the program (its own inode): a
    /// ptrace test running at the same time must not see their INT3s.
    fn start_private_copy() -> Target {
        let dir = std::env::temp_dir().join(format!("rtrace-fault-kcopy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let copy = dir.join("attach_prog");
        if !copy.exists() {
            let tmp = dir.join(format!("attach_prog.{:?}", std::thread::current().id()));
            std::fs::copy(attach_prog(), &tmp).expect("copy the attached program");
            std::fs::rename(&tmp, &copy).expect("rename copy");
        }
        Target::start_binary(&copy)
    }

    fn start_binary(prog: &Path) -> Target {
        let mut child = Command::new(prog)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the attached program");
        let pin = child.stdin.take().expect("stdin");
        let pout = lines_of(child.stdout.take().expect("stdout"));
        let ready = next_line(&pout, "ready line");
        assert!(ready.starts_with("ready "), "{ready}");
        let pid = child.id();
        Target {
            child,
            pin,
            pout,
            pid,
            total: 0,
        }
    }

    /// "go N": N calls of tick(), N getppid() calls, N writes of `total`;
    /// checks the total the program prints.
    fn go(&mut self, n: i64) {
        writeln!(self.pin, "go {n}").expect("write go");
        self.pin.flush().expect("flush");
        self.total += (0..n).map(|i| i % 7).sum::<i64>();
        let l = next_line(&self.pout, "total line");
        assert_eq!(l, format!("total {}", self.total));
    }

    fn finish(mut self) {
        drop(self.pin);
        assert_eq!(next_line(&self.pout, "bye"), "bye");
        let st = wait_bounded(&mut self.child, 30, "the attached program");
        assert!(st.success(), "{st:?}");
    }
}

/// Compares every executable file mapping of `pid` with the bytes of its
/// file: a leftover INT3 (or any patched byte) is reported by address.
fn code_differences(pid: u32) -> Vec<String> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("maps");
    let mem = std::fs::File::open(format!("/proc/{pid}/mem")).expect("mem");
    let mut diffs = Vec::new();
    for l in maps.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 6 || !f[1].contains('x') || !f[5].starts_with('/') {
            continue;
        }
        let (start, end) = f[0].split_once('-').expect("range");
        let start = u64::from_str_radix(start, 16).expect("start");
        let end = u64::from_str_radix(end, 16).expect("end");
        let off = u64::from_str_radix(f[2], 16).expect("offset");
        let Ok(file) = std::fs::File::open(f[5]) else {
            continue;
        };
        let flen = file.metadata().expect("meta").len();
        let len = (end - start).min(flen.saturating_sub(off)) as usize;
        let mut want = vec![0u8; len];
        let mut have = vec![0u8; len];
        file.read_exact_at(&mut want, off).expect("read file");
        mem.read_exact_at(&mut have, start).expect("read mem");
        if let Some(i) = (0..len).find(|&i| want[i] != have[i]) {
            diffs.push(format!(
                "{} at {:#x}: {:#04x} in memory, {:#04x} in the file",
                f[5],
                start + i as u64,
                have[i],
                want[i]
            ));
        }
    }
    diffs
}

/// DR0–DR3 and DR7 of every thread, read by attaching as a second tracer.
fn debug_registers(pid: u32) -> Vec<(i32, [u64; 5])> {
    use rtrace::engine::ptrace;
    let mut out = Vec::new();
    for tid in rtrace::engine::tracer::list_threads(pid as i32) {
        ptrace::seize(tid, 0).expect("seize");
        ptrace::interrupt(tid).expect("interrupt");
        let mut status = 0;
        // SAFETY: waitpid with a valid pointer to a local.
        let r = unsafe { libc::waitpid(tid, &mut status, libc::__WALL) };
        assert_eq!(r, tid);
        let mut regs = [0u64; 5];
        for (i, off) in [848, 856, 864, 872, 904].iter().enumerate() {
            regs[i] = ptrace::peek_user(tid, *off).expect("peekuser");
        }
        ptrace::detach(tid, 0).expect("detach");
        out.push((tid, regs));
    }
    out
}

fn tracer_pid(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("status")
        .lines()
        .find(|l| l.starts_with("TracerPid:"))
        .expect("TracerPid line")
        .to_string()
}

/// How a tool reports one "go 1" iteration, and how it ends on a signal.
struct Tool {
    name: &'static str,
    cmd: PathBuf,
    args: Vec<String>,
    /// Whether a line is one event of the iteration (the unit counted).
    unit: fn(&str) -> bool,
    /// Exit code after SIGINT/SIGTERM/SIGHUP: `None` is 128 + signal.
    code: Option<i32>,
}

fn getppid_line(l: &str) -> bool {
    l.contains("getppid(")
}

fn json_tick_hit(l: &str) -> bool {
    serde_json::from_str::<Value>(l).is_ok_and(|v| v["type"] == "hit" && v["spec"] == "tick")
}

fn json_hit(l: &str) -> bool {
    serde_json::from_str::<Value>(l).is_ok_and(|v| v["type"] == "hit")
}

fn tools() -> Vec<Tool> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        // strace's oracle: 128 + signal after detaching.
        Tool {
            name: "rstrace",
            cmd: rstrace(),
            args: s(&["-e", "trace=getppid"]),
            unit: getppid_line,
            code: None,
        },
        // rltrace detaches and exits 128 + signal on each of the three, as
        // strace -p does (ltrace 0.7.3 exits 0 on SIGINT and SIGTERM; on
        // SIGHUP it dies and leaves its breakpoints in, which rltrace does
        // not): every rtrace tool gives the same status after Ctrl-C.
        Tool {
            name: "rltrace",
            cmd: rltrace(),
            args: s(&["-e", "getppid"]),
            unit: getppid_line,
            code: None,
        },
        // `rtrace break` reports its session, detaches, exits 128 + signal.
        Tool {
            name: "rtrace break",
            cmd: rtrace(),
            args: s(&["break", "--json", "tick", "ret:tick", "--watch", "total"]),
            unit: json_tick_hit,
            code: None,
        },
        Tool {
            name: "rtrace watch",
            cmd: rtrace(),
            args: s(&["watch", "--json", "total"]),
            unit: json_hit,
            code: None,
        },
    ]
}

/// Attaches `tool` to a fresh [`Target`], checks it traces exactly,
/// sends `sig` and checks that the program is left as it was.
fn interrupt_attached(tool: &Tool, sig: i32) {
    let what = format!("{} with signal {sig}", tool.name);
    let mut t = Target::start();
    t.go(50);
    let maps_before = std::fs::read_to_string(format!("/proc/{}/maps", t.pid)).expect("maps");
    assert_eq!(code_differences(t.pid), Vec::<String>::new(), "before");
    let mut r = Command::new(&tool.cmd)
        .args(&tool.args)
        .args(["-p", &t.pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tool");
    let rerr = lines_of(r.stderr.take().expect("stderr"));
    let mut seen: Vec<String> = Vec::new();
    let units = |seen: &[String]| seen.iter().filter(|l| (tool.unit)(l)).count();
    // Until the tool reports an iteration, run single ones.
    let start = Instant::now();
    'ready: loop {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{what}: never traced: {seen:?}"
        );
        t.go(1);
        let wait = Instant::now() + Duration::from_millis(300);
        while let Ok(l) = rerr.recv_timeout(wait.saturating_duration_since(Instant::now())) {
            seen.push(l);
            if units(&seen) > 0 {
                break 'ready;
            }
        }
    }
    // One more, waited for: from now on every iteration shows.
    let c0 = units(&seen) + 1;
    t.go(1);
    while units(&seen) < c0 {
        seen.push(next_line(&rerr, "the iteration's event"));
    }
    t.go(30);
    // The bytes are patched while the breakpoints are in.
    if tool.name == "rtrace break" {
        assert!(
            !code_differences(t.pid).is_empty(),
            "{what}: no breakpoint in"
        );
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(r.id() as i32, sig) };
    let st = wait_bounded(&mut r, 30, &what);
    seen.extend(rerr.iter());
    let text = seen.join("\n");
    assert!(!text.contains("panicked"), "{what}: {text}");
    assert_eq!(
        st.code(),
        Some(tool.code.unwrap_or(128 + sig)),
        "{what}: {st:?}\n{text}"
    );
    assert_eq!(units(&seen), c0 + 30, "{what}: exact count\n{text}");
    if tool.name == "rtrace break" {
        let recs: Vec<Value> = seen
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let n = |ty: &str| recs.iter().filter(|v| v["type"] == ty).count();
        let watch_hits = recs
            .iter()
            .filter(|v| v["type"] == "hit" && v["watch"] == 1)
            .count();
        assert_eq!(
            (n("return"), watch_hits),
            (c0 + 30, c0 + 30),
            "{what}\n{text}"
        );
    }

    // The program as it was: code, mappings, debug registers, no tracer.
    assert_eq!(code_differences(t.pid), Vec::<String>::new(), "{what}");
    let maps_after = std::fs::read_to_string(format!("/proc/{}/maps", t.pid)).expect("maps");
    assert_eq!(maps_after, maps_before, "{what}: mappings");
    assert_eq!(tracer_pid(t.pid), "TracerPid:\t0", "{what}");
    for (tid, regs) in debug_registers(t.pid) {
        assert_eq!(regs, [0; 5], "{what}: debug registers of thread {tid}");
    }
    // It runs on: calls, syscalls and writes of `total` without a trap.
    t.go(5000);
    t.finish();
}

fn each_signal(tool_name: &str) {
    for tool in tools().iter().filter(|t| t.name == tool_name) {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            interrupt_attached(tool, sig);
        }
    }
}

#[test]
fn rstrace_detaches_cleanly_on_int_term_hup() {
    each_signal("rstrace");
}

#[test]
fn rltrace_detaches_cleanly_on_int_term_hup() {
    each_signal("rltrace");
}

#[test]
fn break_with_ret_probes_and_watch_detaches_cleanly_on_int_term_hup() {
    each_signal("rtrace break");
}

#[test]
fn watch_detaches_cleanly_on_int_term_hup() {
    each_signal("rtrace watch");
}

/// The tracefs mount point, or None (with the reason printed) to skip.
fn tracefs() -> Option<PathBuf> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skip: uprobes need root");
        return None;
    }
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    let root = mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.get(2) == Some(&"tracefs")).then(|| PathBuf::from(f[1]))
    });
    match root {
        Some(r) if r.join("uprobe_events").exists() => Some(r),
        Some(_) => {
            eprintln!("skip: this kernel has no uprobe events");
            None
        }
        None => {
            eprintln!("skip: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
            None
        }
    }
}

/// tracefs files a session writes, without the lines of other live rtrace
/// sessions (parallel tests): what must be the same before and after.
fn tracefs_state(root: &Path, own: u32) -> Vec<(String, String)> {
    let others = |l: &str| {
        l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .filter_map(|w| w.strip_prefix("rtrace_"))
            .any(|p| p.parse::<u32>().is_ok_and(|p| p != own))
    };
    [
        "dynamic_events",
        "uprobe_events",
        "set_event",
        "current_tracer",
    ]
    .iter()
    .map(|f| {
        let t = std::fs::read_to_string(root.join(f)).unwrap_or_default();
        let kept: Vec<&str> = t.lines().filter(|l| !others(l)).collect();
        (f.to_string(), kept.join("\n"))
    })
    .collect()
}

fn kernel_probe(t: &Target, count: bool) -> (Child, Receiver<String>) {
    let prog = std::fs::read_link(format!("/proc/{}/exe", t.pid)).expect("exe link");
    let mut args = vec![
        "kernel".to_string(),
        "probe".to_string(),
        format!("u:{}:tick", prog.display()),
    ];
    if count {
        args.push("-c".into());
    }
    let mut r = Command::new(rtrace())
        .args(&args)
        .args(["-p", &t.pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rtrace kernel probe");
    let rerr = lines_of(r.stderr.take().expect("stderr"));
    let l = next_line(&rerr, "the tracing line");
    assert!(l.contains("tracing"), "{l}");
    let rout = lines_of(r.stdout.take().expect("stdout"));
    (r, rout)
}

#[test]
fn kernel_probe_on_attached_process_cleans_up_on_int_term_hup() {
    let Some(root) = tracefs() else { return };
    let _one = KERNEL.lock().unwrap_or_else(|p| p.into_inner());
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let mut t = Target::start_private_copy();
        t.go(50);
        let maps_before = std::fs::read_to_string(format!("/proc/{}/maps", t.pid)).expect("maps");
        let before = tracefs_state(&root, 0);
        let (mut r, rout) = kernel_probe(&t, true);
        let rpid = r.id();
        // The uprobe is in the program's code while the session runs.
        assert!(!code_differences(t.pid).is_empty(), "no uprobe in the code");
        t.go(40);
        // SAFETY: signalling our own child.
        unsafe { libc::kill(rpid as i32, sig) };
        let st = wait_bounded(&mut r, 30, "rtrace kernel probe");
        let out: Vec<String> = rout.iter().collect();
        assert_eq!(st.code(), Some(128 + sig), "{out:?}");
        // The worker thread makes the calls: every thread is counted.
        let row = out
            .iter()
            .find(|l| l.ends_with(":tick"))
            .unwrap_or_else(|| panic!("signal {sig}: no tick row in {out:?}"));
        assert_eq!(row.split_whitespace().next(), Some("40"), "{out:?}");
        assert_eq!(tracefs_state(&root, rpid), before, "signal {sig}");
        assert_eq!(code_differences(t.pid), Vec::<String>::new());
        let maps_after = std::fs::read_to_string(format!("/proc/{}/maps", t.pid)).expect("maps");
        assert_eq!(maps_after, maps_before);
        assert_eq!(tracer_pid(t.pid), "TracerPid:\t0");
        t.go(5000);
        t.finish();
    }
}

#[test]
fn kernel_probe_sigkill_then_cleanup_restores_tracefs() {
    let Some(root) = tracefs() else { return };
    let _one = KERNEL.lock().unwrap_or_else(|p| p.into_inner());
    let mut t = Target::start_private_copy();
    t.go(50);
    let before = tracefs_state(&root, 0);
    let (mut r, _rout) = kernel_probe(&t, false);
    let rpid = r.id();
    t.go(10);
    let _no_other_cleanup = common::tracefs_cleanup_lock();
    r.kill().expect("SIGKILL rtrace");
    r.wait().expect("wait");
    // Killed: its events are still there, its probe still in the code.
    let group = format!("rtrace_{rpid}/");
    let events = std::fs::read_to_string(root.join("uprobe_events")).unwrap_or_default();
    assert!(events.contains(&group), "{events}");
    let o = Command::new(rtrace())
        .args(["kernel", "cleanup"])
        .output()
        .expect("rtrace kernel cleanup");
    let msg = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{msg}");
    assert_eq!(tracefs_state(&root, rpid), before, "{msg}");
    assert!(
        !root.join(format!("instances/rtrace-{rpid}")).exists(),
        "{msg}"
    );
    assert_eq!(code_differences(t.pid), Vec::<String>::new());
    t.go(5000);
    t.finish();
}

#[test]
fn break_kernel_backend_on_attached_process_is_refused_clearly() {
    // `--backend kernel` counts launched commands only; with -p it must say
    // so rather than fall back silently (kernel probes on an attached
    // process are covered by `rtrace kernel probe -p` above).
    let mut t = Target::start();
    let o = Command::new(rtrace())
        .args(["break", "--count", "--backend", "kernel", "tick", "-p"])
        .arg(t.pid.to_string())
        .output()
        .expect("rtrace break");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("needs a command"), "{err}");
    assert_eq!(tracer_pid(t.pid), "TracerPid:\t0");
    t.go(100);
    t.finish();
}

/// The four tools on fault_threads (200 threads, 600 getppid calls, 200
/// calls of work(), each writing `sink`) with `extra` options.
fn output_cases() -> Vec<(&'static str, PathBuf, Vec<&'static str>)> {
    vec![
        ("rstrace", rstrace(), vec!["-f", "-e", "trace=getppid"]),
        ("rltrace", rltrace(), vec!["-f", "-e", "getppid"]),
        (
            "rtrace break",
            rtrace(),
            vec!["break", "-f", "--bt", "work"],
        ),
        ("rtrace watch", rtrace(), vec!["watch", "sink"]),
    ]
}

fn needs_dashdash(name: &str) -> bool {
    name.starts_with("rtrace ")
}

/// A small tmpfs of its own (root only), unmounted on drop.
struct SmallFs(PathBuf);

impl SmallFs {
    fn mount() -> Option<SmallFs> {
        let dir = temp_path("fault-full");
        std::fs::create_dir_all(&dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=16k", "fault", dir.to_str()?])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = std::fs::remove_dir(&dir);
            eprintln!("skip part: cannot mount a tmpfs (needs root); /dev/full only");
            return None;
        }
        Some(SmallFs(dir))
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn output_to_a_full_disk_ends_cleanly_and_says_so() {
    let prog = testprog("fault_threads");
    let fs = SmallFs::mount();
    for (name, cmd, args) in output_cases() {
        let mut outputs = vec![PathBuf::from("/dev/full")];
        if let Some(fs) = &fs {
            outputs.push(fs.0.join(format!("{}.trace", name.replace(' ', "-"))));
        }
        for out in outputs {
            let mut c = Command::new(&cmd);
            c.args(&args).arg("-o").arg(&out);
            if needs_dashdash(name) {
                c.arg("--");
            }
            let mut child = c
                .arg(&prog)
                .arg("200")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            let pout = lines_of(child.stdout.take().expect("stdout"));
            let perr = lines_of(child.stderr.take().expect("stderr"));
            let what = format!("{name} -o {}", out.display());
            let st = wait_bounded(&mut child, 60, &what);
            let err: Vec<String> = perr.iter().collect();
            let err = err.join("\n");
            // The program ran to its end, unharmed; the tool's status is
            // the program's (as strace's is) and it tells why the trace is
            // incomplete, without a panic.
            assert_eq!(
                pout.iter().collect::<Vec<_>>(),
                ["threads 200 calls 600"],
                "{what}: {err}"
            );
            assert_eq!(st.code(), Some(0), "{what}: {err}");
            assert!(!err.contains("panicked"), "{what}: {err}");
            assert!(err.contains("No space left on device"), "{what}: {err}");
            if out.starts_with("/tmp") {
                let len = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
                assert!(
                    len >= 8 * 1024,
                    "{what}: only {len} bytes written before full"
                );
                // The next tool gets the whole (small) file system again.
                std::fs::remove_file(&out).expect("remove the full trace");
            }
        }
    }
}

#[test]
fn output_to_a_closed_pipe_ends_cleanly() {
    // As `rstrace CMD 2>&1 >/dev/null | head -1`: the reader of the trace
    // goes away after one line. strace (the oracle) dies of SIGPIPE and its
    // launched command with it (PTRACE_O_EXITKILL). Each tool must end
    // within bounds without a panic (exit 101), by SIGPIPE or with 0/141,
    // and leave no program stopped behind: the program's stdout closes.
    use std::os::unix::process::ExitStatusExt;
    let prog = testprog("fault_threads");
    let mut oracle = None;
    if common::have("strace") {
        let mut c = Command::new("strace")
            .args(["-f", "-e", "trace=getppid"])
            .arg(&prog)
            .arg("200")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("strace");
        let mut terr = BufReader::new(c.stderr.take().expect("stderr"));
        let mut first = String::new();
        terr.read_line(&mut first).expect("first line");
        drop(terr);
        oracle = Some(wait_bounded(&mut c, 60, "strace"));
    }
    for (name, cmd, args) in output_cases() {
        let mut c = Command::new(&cmd);
        c.args(&args);
        if needs_dashdash(name) {
            c.arg("--");
        }
        let mut child = c
            .arg(&prog)
            .arg("200")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let pout = lines_of(child.stdout.take().expect("stdout"));
        let mut terr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        terr.read_line(&mut first).expect("first trace line");
        assert!(!first.is_empty(), "{name}: no trace line");
        drop(terr);
        let st = wait_bounded(&mut child, 60, name);
        assert_ne!(st.code(), Some(101), "{name}: panicked");
        assert!(
            st.signal() == Some(libc::SIGPIPE) || matches!(st.code(), Some(0 | 141)),
            "{name}: {st:?}"
        );
        if name == "rstrace" {
            if let Some(o) = oracle {
                assert_eq!(
                    (st.code(), st.signal()),
                    (o.code(), o.signal()),
                    "as strace"
                );
            }
        }
        // The program is gone or done, not stopped: its stdout closes.
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            match pout.recv_timeout(end.saturating_duration_since(Instant::now())) {
                Ok(l) => assert_eq!(l, "threads 200 calls 600", "{name}"),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(e) => panic!("{name}: the program was left behind: {e}"),
            }
        }
    }
}
