//! `rtrace break` end to end: exact hit counts under threads, return probes
//! under recursion and longjmp, shared libraries (named and dlopen'ed),
//! conditions, forks and execs, and attach/detach leaving the program's code
//! as it was. Every test program prints its own result, which must be the
//! same traced and untraced. Synchronisation is through pipes, never sleeps.

use crate::common;

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Command, Output, Stdio};

fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

/// Runs `rtrace break ARGS -- PROG PROG_ARGS` and returns its output. These
/// tests are about the ptrace breakpoints: `--backend ptrace` unless ARGS
/// name a backend (`auto` would count plain `--count` runs with uprobes).
fn brk(args: &[&str], prog: &Path, prog_args: &[&str]) -> Output {
    brk_pid(args, prog, prog_args).0
}

/// [`brk`], with the pid rtrace ran as.
fn brk_pid(args: &[&str], prog: &Path, prog_args: &[&str]) -> (Output, u32) {
    let backend: &[&str] = if args.contains(&"--backend") {
        &[]
    } else {
        &["--backend", "ptrace"]
    };
    let child = Command::new(rtrace())
        .arg("break")
        .args(backend)
        .args(args)
        .arg("--")
        .arg(prog)
        .args(prog_args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rtrace");
    let pid = child.id();
    (child.wait_with_output().expect("wait for rtrace"), pid)
}

fn untraced(prog: &Path, args: &[&str]) -> String {
    let o = Command::new(prog).args(args).output().expect("run program");
    assert!(o.status.success());
    String::from_utf8(o.stdout).expect("utf-8")
}

/// The `--count --json` rows: spec -> hits.
fn counts(stderr: &[u8]) -> Vec<(String, u64)> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "count")
        .map(|v| {
            (
                v["spec"].as_str().unwrap_or("").to_string(),
                v["hits"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect()
}

fn records(stderr: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

fn hits(rows: &[(String, u64)], spec: &str) -> u64 {
    rows.iter()
        .find(|r| r.0 == spec)
        .unwrap_or_else(|| panic!("no row for {spec} in {rows:?}"))
        .1
}

fn check_threads(prog: &Path) {
    let expect = untraced(prog, &[]);
    for run in 0..4 {
        let o = brk(&["--count", "--json", "work"], prog, &[]);
        assert!(o.status.success(), "run {run}: {o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), expect, "run {run}");
        assert_eq!(hits(&counts(&o.stderr), "work"), 80_000, "run {run}");
    }
}

#[test]
fn threads_count_exact_emulated_prologue() {
    // -O0: work() starts with `push %rbp`, emulated.
    check_threads(&common::testprog("bp_threads"));
}

#[test]
fn threads_count_exact_out_of_line() {
    // -O2: work() starts with `lea 0x1(%rdi,%rdi,2),%rax`, run out of line.
    check_threads(&common::testprog_variant("bp_threads", "O2", &["-O2"]));
}

fn fib(n: i64) -> i64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[test]
fn return_probes_nest_in_recursion() {
    for (variant, flags) in [
        ("O0", &["-O0"][..]),
        ("O2-nofp", &["-O2", "-fomit-frame-pointer"][..]),
    ] {
        let prog = common::testprog_variant("bp_fib", variant, flags);
        let o = brk(&["--json", "fib", "ret:fib"], &prog, &["10"]);
        assert!(o.status.success(), "{o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), "fib(10) = 55\n");
        let recs = records(&o.stderr);
        // fib(10) makes 177 calls at -O0 (at -O2 gcc turns one of the two
        // recursive calls into a loop); each is one entry and one return.
        let entries: Vec<&Value> = recs.iter().filter(|r| r["type"] == "hit").collect();
        let rets: Vec<&Value> = recs.iter().filter(|r| r["type"] == "return").collect();
        assert_eq!(entries.len(), rets.len(), "{variant}");
        if variant == "O0" {
            assert_eq!(entries.len(), 177);
        } else {
            assert!(entries.len() > 10, "{variant}: {}", entries.len());
        }
        // Replay: every return closes the innermost open call, with the
        // right value for that call's argument, at the right depth.
        let mut stack: Vec<i64> = Vec::new();
        for r in &recs {
            match r["type"].as_str() {
                Some("hit") => {
                    assert_eq!(r["depth"].as_u64(), Some(stack.len() as u64));
                    // The DWARF argument (read past the prologue at -O0).
                    stack.push(r["args"][0]["value"].as_i64().expect("n"));
                }
                Some("return") => {
                    let n = stack.pop().expect("return without entry");
                    let arg = r["entry_args"][0].as_i64().expect("arg");
                    assert_eq!(n, arg, "{variant}: {r}");
                    assert_eq!(r["retval"].as_i64(), Some(fib(arg)), "{r}");
                    assert_eq!(r["depth"].as_u64(), Some(stack.len() as u64), "{r}");
                }
                _ => {}
            }
        }
        assert!(stack.is_empty());
        let last = rets.last().expect("a return");
        assert_eq!(
            (last["retval"].as_i64(), last["entry_args"][0].as_i64()),
            (Some(55), Some(10))
        );
    }
}

#[test]
fn return_probes_survive_longjmp() {
    let prog = common::testprog("bp_longjmp");
    let o = brk(&["--json", "ret:dive", "ret:leaf"], &prog, &[]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "sum 6\n");
    let rets: Vec<(String, i64, u64)> = records(&o.stderr)
        .iter()
        .filter(|r| r["type"] == "return")
        .map(|r| {
            (
                r["spec"].as_str().unwrap_or("").to_string(),
                r["retval"].as_i64().unwrap_or(-1),
                r["depth"].as_u64().unwrap_or(99),
            )
        })
        .collect();
    // dive() never returns (longjmp); leaf() returns 0, 2, 4 at top level:
    // the abandoned dive frames were dropped from the shadow stack.
    let leaf = |v| ("ret:leaf".to_string(), v, 0);
    assert_eq!(rets, vec![leaf(0), leaf(2), leaf(4)]);
}

#[test]
fn conditions_on_registers_and_arguments() {
    let prog = common::testprog("bp_fib");
    let o = brk(
        &[
            "--count",
            "--json",
            "fib if $arg1 == 2",
            "fib if $rdi < 2 && $rdi >= 0",
            "ret:fib if $retval == 8",
        ],
        &prog,
        &["10"],
    );
    assert!(o.status.success(), "{o:?}");
    let rows = counts(&o.stderr);
    // Calls of fib(2) in fib(10): F(9) = 34; of fib(0)/fib(1): F(11) = 89;
    // calls returning 8 are the fib(6) calls: F(5) = 5.
    assert_eq!(hits(&rows, "fib if $arg1 == 2"), 34);
    assert_eq!(hits(&rows, "fib if $rdi < 2 && $rdi >= 0"), 89);
    assert_eq!(hits(&rows, "ret:fib if $retval == 8"), 5);
}

#[test]
fn address_spec_on_non_pie() {
    let prog = common::testprog_variant("bp_fib", "nopie", &["-no-pie"]);
    let nm = Command::new("nm").arg(&prog).output().expect("nm");
    let addr = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .find_map(|l| l.strip_suffix(" T fib").map(|a| a.to_string()))
        .expect("fib in nm");
    let spec = format!("*0x{addr}");
    let o = brk(&["--count", "--json", &spec], &prog, &["10"]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(hits(&counts(&o.stderr), &spec), 177);
}

#[test]
fn shared_library_function_by_lib_name() {
    let lib = common::testprog_variant("bp_lib", "so", &["-shared", "-fPIC"]);
    let prog = common::testprog("bp_dlopen");
    let lib_s = lib.to_str().expect("utf-8 path");
    let o = brk(
        &[
            "--count",
            "--json",
            "libc.so.6:getpid",
            "ret:libc.so.6:getpid",
        ],
        &prog,
        &[lib_s],
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        untraced(&prog, &[lib_s])
    );
    let rows = counts(&o.stderr);
    assert_eq!(hits(&rows, "libc.so.6:getpid"), 600);
    assert_eq!(hits(&rows, "ret:libc.so.6:getpid"), 600);
}

#[test]
fn breakpoint_armed_after_dlopen() {
    let lib = common::testprog_variant("bp_lib", "so", &["-shared", "-fPIC"]);
    let prog = common::testprog("bp_dlopen");
    let lib_s = lib.to_str().expect("utf-8 path");
    let o = brk(
        &[
            "--count",
            "--json",
            "bp_lib_func",
            "ret:bp_lib_func if $retval > 590",
        ],
        &prog,
        &[lib_s],
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "sum 174750 pids 300\n");
    let rows = counts(&o.stderr);
    assert_eq!(hits(&rows, "bp_lib_func"), 500);
    // bp_lib_func(i) = i + 100 for i < 500: 591..599 are > 590.
    assert_eq!(hits(&rows, "ret:bp_lib_func if $retval > 590"), 9);
}

#[test]
fn fork_child_unfollowed_is_cleaned_followed_is_counted() {
    let prog = common::testprog("bp_fork");
    let expect = "child 500500\nparent 10100 child-status 0\n";
    // Without -f the child gets every byte back and runs untraced; a stray
    // INT3 or hijacked return address would kill it with SIGTRAP/SIGSEGV.
    let o = brk(&["--count", "--json", "work", "ret:work"], &prog, &[]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), expect);
    let rows = counts(&o.stderr);
    assert_eq!((hits(&rows, "work"), hits(&rows, "ret:work")), (200, 200));
    let o = brk(&["-f", "--count", "--json", "work"], &prog, &[]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), expect);
    assert_eq!(hits(&counts(&o.stderr), "work"), 1200);
}

/// A vfork child returns from `vfork` before its parent, through the
/// same stack: with -f both returns are seen, without it only the
/// parent's, and the children exec and exit untouched either way.
#[test]
fn vfork_returns_are_seen_in_parent_and_followed_child() {
    let prog = common::testprog("fault_vfork");
    for (follow, want) in [(false, 3), (true, 6)] {
        let mut args = vec!["--count", "--json", "ret:vfork"];
        if follow {
            args.insert(0, "-f");
        }
        let o = brk(&args, &prog, &[]);
        assert!(o.status.success(), "{o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), "vforked 3 sum 6\n");
        assert_eq!(hits(&counts(&o.stderr), "ret:vfork"), want, "-f: {follow}");
    }
}

#[test]
fn rearmed_after_exec() {
    let fib = common::testprog("bp_fib");
    let f = fib.to_str().expect("utf-8 path");
    let script = format!("{f} 5; {f} 6");
    let o = Command::new(rtrace())
        .args([
            "break", "-f", "--count", "--json", "fib", "--", "sh", "-c", &script,
        ])
        .output()
        .expect("run rtrace");
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "fib(5) = 5\nfib(6) = 8\n"
    );
    // fib(5) makes 15 calls, fib(6) 25.
    assert_eq!(hits(&counts(&o.stderr), "fib"), 40);
}

fn ask(pin: &mut ChildStdin, pout: &mut BufReader<ChildStdout>, n: u32) -> String {
    writeln!(pin, "go {n}").expect("write");
    pin.flush().expect("flush");
    let mut l = String::new();
    pout.read_line(&mut l).expect("sum");
    l
}

fn code_at(pid: u32, addr: u64, len: usize) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::open(format!("/proc/{pid}/mem")).expect("open mem");
    let mut b = vec![0u8; len];
    f.read_exact_at(&mut b, addr).expect("read code");
    b
}

#[test]
fn attach_mid_run_then_sigint_detach_restores_everything() {
    let prog = common::testprog("bp_attach");
    let mut p = Command::new(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut pin = p.stdin.take().expect("stdin");
    let mut pout = BufReader::new(p.stdout.take().expect("stdout"));
    let mut line = String::new();
    pout.read_line(&mut line).expect("ready line");
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(f[0], "ready");
    let pid = p.id();
    let tick = u64::from_str_radix(f[2].trim_start_matches("0x"), 16).expect("addr");
    let before = code_at(pid, tick, 32);
    let maps_before = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("maps");
    // Let it run a while untraced first.
    assert_eq!(ask(&mut pin, &mut pout, 700), "sum 2100\n");

    let mut r = Command::new(rtrace())
        .args(["break", "--count", "--json", "tick", "ret:tick"])
        .args(["-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .expect("rtrace");
    let mut rerr = BufReader::new(r.stderr.take().expect("stderr"));
    let mut said = String::new();
    // --json: the stream's schema line first.
    rerr.read_line(&mut said).expect("schema line");
    assert!(
        said.starts_with("{\"type\":\"schema\",\"stream\":\"break\""),
        "{said}"
    );
    said.clear();
    rerr.read_line(&mut said).expect("attached line");
    assert!(said.contains("attached"), "{said}");
    // The breakpoint is in: the first byte is a trap now.
    assert_ne!(code_at(pid, tick, 1), before[..1]);
    assert_eq!(ask(&mut pin, &mut pout, 1000), "sum 2997\n");

    // Ctrl-C, as a user would (the standard library cannot send SIGINT).
    let st = Command::new("kill")
        .args(["-INT", &r.id().to_string()])
        .status()
        .expect("kill");
    assert!(st.success());
    let mut rest = String::new();
    rerr.read_to_string(&mut rest).expect("rtrace output");
    // 128 + SIGINT after the detach, as strace -p.
    assert_eq!(r.wait().expect("wait").code(), Some(130), "{rest}");
    let rows = counts(rest.as_bytes());
    assert_eq!((hits(&rows, "tick"), hits(&rows, "ret:tick")), (1000, 1000));

    // Every byte is back, the out-of-line page is gone, and the program
    // goes on computing right.
    assert_eq!(code_at(pid, tick, 32), before);
    let maps_after = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("maps");
    assert_eq!(maps_after, maps_before);
    assert_eq!(ask(&mut pin, &mut pout, 1000), "sum 2997\n");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    assert!(status.contains("TracerPid:\t0"), "{status}");
    // Closing its stdin ends the program.
    drop(pin);
    let mut tail = String::new();
    pout.read_to_string(&mut tail).expect("tail");
    assert_eq!(tail, "bye\n");
    assert!(p.wait().expect("wait").success());
}

#[test]
fn threads_attached_then_detached_while_hitting() {
    // -O2: work() runs out of line; ret:work hijacks return addresses. At
    // the detach, threads are inside work() (hijacked returns to restore)
    // and inside out-of-line slots (pcs to move back to the original code).
    let prog = common::testprog_variant("bp_threads", "O2", &["-O2"]);
    let expect = untraced(&prog, &["20000"]);
    let mut p = Command::new(&prog)
        .args(["20000", "gate"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut pin = p.stdin.take().expect("stdin");
    let mut pout = BufReader::new(p.stdout.take().expect("stdout"));
    let mut line = String::new();
    pout.read_line(&mut line).expect("ready");
    assert_eq!(line, "ready\n");
    let pid = p.id();
    let mut r = Command::new(rtrace())
        .args([
            "break",
            "--json",
            "work",
            "ret:work",
            "-p",
            &pid.to_string(),
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("rtrace");
    let mut rerr = BufReader::new(r.stderr.take().expect("stderr"));
    let mut said = String::new();
    // --json: the stream's schema line first.
    rerr.read_line(&mut said).expect("schema line");
    assert!(
        said.starts_with("{\"type\":\"schema\",\"stream\":\"break\""),
        "{said}"
    );
    said.clear();
    rerr.read_line(&mut said).expect("attached line");
    assert!(said.contains("attached"), "{said}");
    writeln!(pin, "go").expect("go");
    pin.flush().expect("flush");
    // Wait for returns from several threads, then Ctrl-C mid-run.
    let mut tids = std::collections::HashSet::new();
    let mut returns = 0;
    while returns < 400 || tids.len() < 2 {
        let mut l = String::new();
        assert!(
            rerr.read_line(&mut l).expect("hit line") > 0,
            "rtrace ended early"
        );
        if let Ok(v) = serde_json::from_str::<Value>(&l) {
            if v["type"] == "return" {
                returns += 1;
                let arg = v["entry_args"][0].as_i64().expect("arg");
                assert_eq!(v["retval"].as_i64(), Some(arg * 3 + 1), "{v}");
                tids.insert(v["tid"].as_i64());
            }
        }
    }
    let st = Command::new("kill")
        .args(["-INT", &r.id().to_string()])
        .status()
        .expect("kill");
    assert!(st.success());
    let mut rest = String::new();
    rerr.read_to_string(&mut rest).expect("rtrace output");
    // 128 + SIGINT after the detach, as strace -p.
    assert_eq!(r.wait().expect("wait").code(), Some(130), "{rest}");
    drop(pin);
    let mut out = String::new();
    pout.read_to_string(&mut out).expect("program output");
    let status = p.wait().expect("wait");
    assert!(status.success(), "{status:?} {out}");
    assert_eq!(out, expect);
}

/// `bp_args` at -O0 and -O2.
fn args_progs() -> Vec<(&'static str, PathBuf)> {
    vec![
        ("O0", common::testprog("bp_args")),
        ("O2", common::testprog_variant("bp_args", "O2", &["-O2"])),
    ]
}

/// The address of `pts` that `bp_args` prints.
fn pts_addr(stdout: &[u8]) -> u64 {
    let out = String::from_utf8_lossy(stdout);
    let hex = out
        .lines()
        .find_map(|l| l.strip_prefix("pts 0x"))
        .unwrap_or_else(|| panic!("no pts line in {out}"));
    u64::from_str_radix(hex, 16).expect("hex")
}

/// `bp_args`'s arguments of call `i`, as `rtrace break --json` gives them.
/// At -O2 (`entry`), main's call site gives the entry values of `n`, `m`
/// and `p` (DW_TAG_call_site_parameter), as gdb finds them
/// (`n=n@entry=0`); `s` is loaded from memory, so it has none.
fn expected_args(i: u64, pts: u64, entry: bool) -> Value {
    let names = ["alpha", "beta", "a longer string"];
    let m = if i % 2 == 1 { "SLOW" } else { "FAST" };
    let mut args = serde_json::json!([
        {"name": "n", "type": "int", "value": i},
        {"name": "m", "type": "enum mode", "value": {"sym": m}},
        {"name": "s", "type": "const char *", "value": names[(i % 3) as usize]},
        {"name": "p", "type": "struct point *",
         "value": {"ptr": format!("{:#x}", pts + 8 * (i % 4))}},
    ]);
    if entry {
        for a in args.as_array_mut().expect("args") {
            if a["name"] != "s" {
                a["entry"] = a["value"].clone();
            }
        }
    }
    args
}

fn hit_records(stderr: &[u8]) -> Vec<Value> {
    records(stderr)
        .into_iter()
        .filter(|r| r["type"] == "hit")
        .collect()
}

#[test]
fn arguments_by_name_and_type_at_o0_and_o2() {
    for (variant, prog) in args_progs() {
        let expect = untraced(&prog, &[]);
        let o = brk(&["--json", "visit"], &prog, &[]);
        assert!(o.status.success(), "{variant}: {o:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        // Same output as untraced, but for the (randomized) address line.
        assert_eq!(out.lines().nth(1), expect.lines().nth(1), "{variant}");
        let pts = pts_addr(&o.stdout);
        let hits = hit_records(&o.stderr);
        assert_eq!(hits.len(), 20, "{variant}");
        for (i, h) in hits.iter().enumerate() {
            assert_eq!(h["function"], "visit", "{variant}");
            assert_eq!(
                h["args"],
                expected_args(i as u64, pts, variant == "O2"),
                "{variant} call {i}"
            );
        }
        // Text: gdb's frame line.
        let o = brk(&["visit"], &prog, &[]);
        assert!(o.status.success(), "{variant}: {o:?}");
        let pts = pts_addr(&o.stdout);
        let text = String::from_utf8_lossy(&o.stderr);
        let first = text.lines().find(|l| l.contains("visit(")).expect("a hit");
        let want = if variant == "O2" {
            format!(
                "visit(n=n@entry=0, m=m@entry=FAST, s=\"alpha\", p=p@entry={pts:#x}) at bp_args.c:"
            )
        } else {
            format!("visit(n=0, m=FAST, s=\"alpha\", p={pts:#x}) at bp_args.c:")
        };
        assert!(first.contains(&want), "{variant}: {first}");
    }
}

/// gdb's frame line `visit (n=n@entry=0, s=0x55… "alpha", p=0x55… <pts>)
/// at testprogs/bp_args.c:26` in rtrace's form: strings without their
/// address, no `<symbol>`, the file's base name (`@entry` values kept).
fn gdb_frame_line(l: &str) -> String {
    let l = l.trim_start_matches("Breakpoint 1, ");
    let (call, at) = l.rsplit_once(" at ").expect("at");
    let (func, args) = call.split_once(" (").expect("(");
    let args = args.strip_suffix(')').expect(")");
    let mut out = Vec::new();
    for a in args.split(", ") {
        let (name, mut v) = a.split_once('=').expect("=");
        let entry = format!("{name}@entry=");
        let same = v.starts_with(&entry);
        if same {
            v = &v[entry.len()..];
        }
        let v = match v.split_once(' ') {
            Some((_, s)) if s.starts_with('"') => s,
            Some((addr, s)) if s.starts_with('<') => addr,
            _ => v,
        };
        let shown = if same { entry.as_str() } else { "" };
        out.push(format!("{name}={shown}{v}"));
    }
    let file = at.rsplit('/').next().unwrap_or(at);
    format!("{func}({}) at {file}", out.join(", "))
}

#[test]
fn arguments_match_gdb_frame_lines() {
    if !common::have("gdb") || !common::have("setarch") {
        eprintln!("skipped: needs gdb and setarch");
        return;
    }
    for (variant, prog) in args_progs() {
        // gdb runs the program without address randomization; so does
        // `setarch -R` for rtrace and its child: the addresses agree.
        let mut cmd = common::gdb_batch();
        cmd.args(["-ex", "break visit", "-ex", "run"]);
        for _ in 0..19 {
            cmd.args(["-ex", "continue"]);
        }
        let g = cmd.arg(&prog).output().expect("gdb");
        let gdb: Vec<String> = String::from_utf8_lossy(&g.stdout)
            .lines()
            .filter(|l| l.starts_with("Breakpoint 1, "))
            .map(gdb_frame_line)
            .collect();
        assert_eq!(gdb.len(), 20, "{variant}: {g:?}");
        let o = Command::new("setarch")
            .args(["-R"])
            .arg(rtrace())
            .args(["break", "visit", "--"])
            .arg(&prog)
            .stdin(Stdio::null())
            .output()
            .expect("rtrace");
        assert!(o.status.success(), "{variant}: {o:?}");
        let ours: Vec<String> = String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter_map(|l| l.split_once("] ").map(|x| x.1))
            .filter_map(|l| l.rsplit_once(" @0x").map(|x| x.0.to_string()))
            .collect();
        if variant == "O0" {
            assert_eq!(ours, gdb, "{variant}");
        } else {
            // At -O2 the entry address has two line rows (26, then 27 with
            // a view number); gdb names the last, the symbolizer the first.
            let call = |v: &[String]| -> Vec<String> {
                v.iter()
                    .map(|l| {
                        l.rsplit_once(" at ")
                            .map_or(l.as_str(), |x| x.0)
                            .to_string()
                    })
                    .collect()
            };
            assert_eq!(call(&ours), call(&gdb), "{variant}");
        }
    }
}

#[test]
fn locals_at_a_source_line() {
    let src = common::workspace_dir().join("testprogs/bp_args.c");
    let line = std::fs::read_to_string(src)
        .expect("source")
        .lines()
        .position(|l| l.contains("/* LOCALS */"))
        .expect("marker")
        + 1;
    let spec = format!("bp_args.c:{line}");
    for (variant, prog) in args_progs() {
        let o = brk(&["--json", "--locals", &spec], &prog, &[]);
        assert!(o.status.success(), "{variant}: {o:?}");
        let hits = hit_records(&o.stderr);
        assert_eq!(hits.len(), 20, "{variant}");
        for (i, h) in hits.iter().enumerate() {
            let i = i as i64;
            let sum = i + i % 4;
            let twice = 2 * sum + if i % 2 == 1 { 3 } else { 0 };
            let want = serde_json::json!([
                {"name": "sum", "type": "int", "value": sum},
                {"name": "twice", "type": "long", "value": twice},
            ]);
            assert_eq!(h["locals"], want, "{variant} call {i}");
        }
        let o = brk(&["--locals", &spec], &prog, &[]);
        let text = String::from_utf8_lossy(&o.stderr);
        assert!(
            text.contains("\n    sum = 2\n    twice = 7\n"),
            "{variant}: {text}"
        );
    }
}

#[test]
fn conditions_on_program_variables() {
    let specs = [
        // Calls 7, 11, 15, 19.
        ("visit if n > 5 && p->x == 3", 4),
        // An enumerator by name: the odd calls.
        ("visit if m == SLOW", 10),
        // p->y is 20 or 30 for i % 4 in {2, 3}; and call 0.
        ("visit if p->y >= 20 || n == 0", 11),
        // Registers and variables together.
        ("visit if $arg1 == 4 && m == FAST", 1),
        ("visit if pts[3].y == 30 && n < 3", 3),
    ];
    for (variant, prog) in args_progs() {
        let mut args = vec!["--count", "--json"];
        args.extend(specs.iter().map(|s| s.0));
        let o = brk(&args, &prog, &[]);
        assert!(o.status.success(), "{variant}: {o:?}");
        let rows = counts(&o.stderr);
        for (spec, want) in specs {
            assert_eq!(hits(&rows, spec), want, "{variant}: {spec}");
        }
        // Printed hits are the ones the condition lets through.
        let o = brk(&["--json", "visit if n > 5 && p->x == 3"], &prog, &[]);
        let ns: Vec<Value> = hit_records(&o.stderr)
            .iter()
            .map(|h| h["args"][0]["value"].clone())
            .collect();
        assert_eq!(ns, vec![7, 11, 15, 19], "{variant}");
        // A name DWARF does not know is refused before the program runs
        // (break_spec.rs has more of these).
        let o = brk(&["--count", "--json", "visit if nosuch == 1"], &prog, &[]);
        assert_eq!(o.status.code(), Some(2), "{variant}: {o:?}");
        assert!(
            o.stdout.is_empty() && counts(&o.stderr).is_empty(),
            "{variant}"
        );
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("variable 'nosuch'"),
            "{variant}"
        );
    }
}

#[test]
fn variable_condition_under_threads_counts_exactly() {
    // A condition on a variable puts the -O0 breakpoint past the prologue
    // (an instruction run out of line), the -O2 one at the entry.
    for prog in [
        common::testprog("bp_threads"),
        common::testprog_variant("bp_threads", "O2", &["-O2"]),
    ] {
        let expect = untraced(&prog, &[]);
        let o = brk(&["--count", "--json", "work if i >= 0"], &prog, &[]);
        assert!(o.status.success(), "{o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), expect);
        assert_eq!(hits(&counts(&o.stderr), "work if i >= 0"), 80_000);
    }
}

/// `sum(i % 7 for i < n)`: what `go n` adds to `total` in `bp_watch`.
fn tick_sum(n: i64) -> i64 {
    (0..n).map(|i| i % 7).sum()
}

fn go_total(pin: &mut ChildStdin, pout: &mut BufReader<ChildStdout>, n: u32) -> i64 {
    writeln!(pin, "go {n}").expect("write");
    pin.flush().expect("flush");
    let mut l = String::new();
    pout.read_line(&mut l).expect("total");
    l.strip_prefix("total ")
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| panic!("not a total line: {l:?}"))
}

#[test]
fn attach_breakpoints_and_watchpoint_in_one_session_then_sigint_detach() {
    let prog = common::testprog("bp_watch");
    let mut p = Command::new(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut pin = p.stdin.take().expect("stdin");
    let mut pout = BufReader::new(p.stdout.take().expect("stdout"));
    let mut line = String::new();
    pout.read_line(&mut line).expect("ready line");
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(f[0], "ready", "{line}");
    let pid = p.id();
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("addr");
    let (tick, total) = (hex(f[2]), hex(f[3]));
    let before = code_at(pid, tick, 32);
    let maps_before = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("maps");
    // A while untraced first.
    let mut expect = tick_sum(100);
    assert_eq!(go_total(&mut pin, &mut pout, 100), expect);

    let mut r = Command::new(rtrace())
        .args(["break", "--json", "tick", "ret:tick", "--watch", "total"])
        .args(["-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .expect("rtrace");
    let mut rerr = BufReader::new(r.stderr.take().expect("stderr"));
    let mut head = String::new();
    while !head.contains("attached") {
        assert_ne!(rerr.read_line(&mut head).expect("rtrace line"), 0, "{head}");
    }
    assert_ne!(code_at(pid, tick, 1), before[..1], "no INT3 at tick");
    let n = 20;
    expect += tick_sum(n);
    assert_eq!(go_total(&mut pin, &mut pout, n as u32), expect);

    let st = Command::new("kill")
        .args(["-INT", &r.id().to_string()])
        .status()
        .expect("kill");
    assert!(st.success());
    let mut rest = String::new();
    rerr.read_to_string(&mut rest).expect("rtrace output");
    // 128 + SIGINT after the detach, as strace -p.
    assert_eq!(r.wait().expect("wait").code(), Some(130), "{head}{rest}");
    let recs = records(format!("{head}{rest}").as_bytes());

    // Each call: an entry with its argument, a return with its value, and
    // one write of `total` with the old and new sums, in program order.
    let entries: Vec<i64> = recs
        .iter()
        .filter(|v| v["type"] == "hit" && v["spec"] == "tick")
        .map(|v| v["args"][0]["value"].as_i64().expect("i"))
        .collect();
    assert_eq!(entries, (0..n).collect::<Vec<_>>(), "{rest}");
    let rets: Vec<i64> = recs
        .iter()
        .filter(|v| v["type"] == "return")
        .map(|v| v["retval"].as_i64().expect("retval"))
        .collect();
    assert_eq!(rets, (0..n).map(|i| i % 7).collect::<Vec<_>>());
    let writes: Vec<(i64, i64)> = recs
        .iter()
        .filter(|v| v["type"] == "hit" && v["watch"] == 1)
        .map(|v| {
            assert_eq!(v["addr"].as_str().map(hex), Some(total), "{v}");
            assert_eq!(v["insn"]["func"], "worker", "{v}");
            (
                v["old"]["dec"].as_i64().expect("old"),
                v["new"]["dec"].as_i64().expect("new"),
            )
        })
        .collect();
    let mut sum = tick_sum(100);
    let want: Vec<(i64, i64)> = (0..n)
        .map(|i| {
            let old = sum;
            sum += i % 7;
            (old, sum)
        })
        .collect();
    assert_eq!(writes, want);

    // Code, mappings and debug registers are as before: a leftover INT3 or
    // armed debug register would kill the program with SIGTRAP now.
    assert_eq!(code_at(pid, tick, 32), before);
    let maps_after = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("maps");
    assert_eq!(maps_after, maps_before);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    assert!(status.contains("TracerPid:\t0"), "{status}");
    expect += tick_sum(5000);
    assert_eq!(go_total(&mut pin, &mut pout, 5000), expect);
    drop(pin);
    let mut tail = String::new();
    pout.read_to_string(&mut tail).expect("tail");
    assert_eq!(tail, "bye\n");
    assert!(p.wait().expect("wait").success());
}

#[test]
fn kernel_backend_counts_exactly_and_leaves_nothing_in_tracefs() {
    let prog = common::testprog("bp_threads");
    let expect = untraced(&prog, &[]);
    let (o, rpid) = brk_pid(
        &[
            "--count",
            "--json",
            "--backend",
            "kernel",
            "work",
            "ret:work",
        ],
        &prog,
        &[],
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    if err.contains("needs tracefs") || err.contains("no uprobe events") {
        eprintln!("skip: {err}");
        return;
    }
    assert!(o.status.success(), "{err}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), expect);
    let rows = counts(&o.stderr);
    assert_eq!(
        (hits(&rows, "work"), hits(&rows, "ret:work")),
        (80_000, 80_000)
    );
    // Its uprobe events are gone (the group is named after rtrace's pid;
    // other tests' sessions may have theirs meanwhile).
    for f in [
        "/sys/kernel/tracing/uprobe_events",
        "/sys/kernel/tracing/dynamic_events",
    ] {
        if let Ok(s) = std::fs::read_to_string(f) {
            assert!(!s.contains(&format!("rtrace_{rpid}/")), "{f}: {s}");
        }
    }
    // What it cannot do is refused, not done differently.
    let o = brk(
        &["--count", "--backend", "kernel", "work if $arg1 > 1"],
        &prog,
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs --backend ptrace"));
    // The ptrace backend agrees.
    let o = brk(
        &["--count", "--json", "--backend", "ptrace", "work"],
        &prog,
        &[],
    );
    assert_eq!(hits(&counts(&o.stderr), "work"), 80_000);
}
