//! Breakpoint benchmark: the cost of one breakpoint hit under
//! `rtrace break --count`, under `gdb -batch` with a silent continuing
//! breakpoint, and under a bare "floor" tracer written here.
//!
//! # What is measured
//!
//! The workload is `testprogs/bp_bench.c`: a loop calling `hit()` N times,
//! built non-PIE (so the floor tracer can take `hit`'s address from `nm`)
//! at `-O0` (first instruction `push %rbp`) and `-O2` (`mov %rdi,%rax`).
//! Each tool runs the workload at two sizes; the per-hit cost is
//! `(t(N2) - t(N1)) / (N2 - N1)`, so start-up (gdb reading symbols, exec,
//! dynamic linking) cancels out. Runs alternate round-robin over the tools
//! (one run of each, then the next round) so drift hits all alike; the
//! median over `--rounds` rounds (default 5) after one warm-up is reported.
//! Nothing sleeps.
//!
//! | tool | what |
//! |---|---|
//! | rtrace | `rtrace break --backend ptrace --count hit -- bp_bench N` (pinned to one CPU, as shipped) |
//! | rtrace --no-cpu-pin | the same, tracer and program where the scheduler puts them |
//! | gdb | `gdb -batch` with `break hit` + `commands / silent / continue / end`, `run` |
//! | floor | here: INT3 at `hit`; per hit `GETREGS`, restore the byte, `SETREGS` (pc-1), `PTRACE_SINGLESTEP`, wait, re-insert the INT3, `PTRACE_CONT` |
//!
//! Workloads: `bp_bench` at -O0 and -O2 with the hits in the main thread,
//! at -O2 with the loop in a second thread (`bp_bench N thread`: no floor,
//! which follows no threads), and a write watchpoint on the global `last`
//! the loop stores to (`rtrace watch -c last` against gdb's `watch last`
//! with a silent continuing `commands`). The load average is printed at
//! start and end: the pinned and unpinned costs differ most on an idle
//! machine, where a cross-CPU wake-up means waking an idle CPU.
//!
//! Targets: rtrace ≤ 0.15× gdb per hit, and ≤ 0.6× the floor (one stop per
//! hit, because the first instruction is emulated, against the floor's two),
//! checked on the main-thread breakpoint workloads.
//! Ratios and a markdown table (for README.md) are printed and the table is
//! written to `<target>/bench-breakpoint.md`.
//!
//! # Running
//!
//! ```text
//! cargo bench --bench breakpoint                 # 5 rounds
//! cargo bench --bench breakpoint -- --quick      # 3 rounds, smaller sizes
//! cargo bench --bench breakpoint -- --only watch # the workloads named so
//! cargo bench --bench breakpoint -- --selftest   # the floor tracer counts hits right
//! ```
//!
//! Run without `--bench` (as `cargo test --benches` does), it only runs
//! `--selftest`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// The floor tracer: the least work a remove/step/re-insert breakpoint
/// tracer can do per hit.
mod floor {
    use rtrace_arch::x86_64::PC;
    use std::ffi::CString;
    use std::io;
    use std::ptr;

    fn check(r: libc::c_long) -> io::Result<libc::c_long> {
        if r == -1 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r)
        }
    }

    fn wait(pid: libc::pid_t) -> io::Result<i32> {
        let mut st = 0;
        loop {
            // SAFETY: `st` is a live, writable int.
            let r = unsafe { libc::waitpid(pid, &mut st, libc::__WALL) };
            if r >= 0 {
                return Ok(st);
            }
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }

    /// Runs `argv` with an INT3 at `addr`; returns (exit code, hits).
    pub fn run(argv: &[CString], addr: u64) -> io::Result<(i32, u64)> {
        let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        ptrs.push(ptr::null());
        // The workload's output is not wanted.
        let devnull = CString::new("/dev/null").expect("no NUL");
        // SAFETY: the child only calls async-signal-safe functions on memory
        // prepared before the fork.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: as above.
            unsafe {
                let fd = libc::open(devnull.as_ptr(), libc::O_WRONLY);
                libc::dup2(fd, 1);
                libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0);
                libc::execv(ptrs[0], ptrs.as_ptr());
                libc::_exit(127);
            }
        }
        // The exec SIGTRAP.
        wait(pid)?;
        let word_at = |a: u64| -> io::Result<u64> {
            // SAFETY: PEEKDATA with integer arguments; errno tells errors.
            unsafe {
                *libc::__errno_location() = 0;
                let v = libc::ptrace(libc::PTRACE_PEEKDATA, pid, a, 0);
                if v == -1 && *libc::__errno_location() != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(v as u64)
            }
        };
        let poke = |a: u64, v: u64| -> io::Result<()> {
            // SAFETY: POKEDATA with integer arguments.
            check(unsafe { libc::ptrace(libc::PTRACE_POKEDATA, pid, a, v) }).map(drop)
        };
        let orig = word_at(addr)?;
        let trapped = (orig & !0xff) | rtrace_arch::x86_64::TRAP_BYTES[0] as u64;
        poke(addr, trapped)?;
        let mut hits = 0u64;
        // SAFETY: CONT with integer arguments.
        check(unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0, 0) })?;
        loop {
            let st = wait(pid)?;
            if libc::WIFEXITED(st) {
                return Ok((libc::WEXITSTATUS(st), hits));
            }
            if libc::WIFSIGNALED(st) {
                return Ok((128 + libc::WTERMSIG(st), hits));
            }
            let sig = libc::WSTOPSIG(st);
            if sig == libc::SIGTRAP {
                // NT_PRSTATUS words, viewed through rtrace_arch (x86-64:
                // this benchmark measures x86 INT3 breakpoints).
                let mut regs = [0u64; 27];
                let mut iov = libc::iovec {
                    iov_base: regs.as_mut_ptr().cast(),
                    iov_len: std::mem::size_of_val(&regs),
                };
                // SAFETY: GETREGSET fills `regs` through `iov`.
                check(unsafe { libc::ptrace(libc::PTRACE_GETREGSET, pid, 1, &mut iov) })?;
                if regs[PC] == addr + 1 {
                    hits += 1;
                    poke(addr, orig)?;
                    regs[PC] = addr;
                    let mut iov = libc::iovec {
                        iov_base: regs.as_mut_ptr().cast(),
                        iov_len: std::mem::size_of_val(&regs),
                    };
                    // SAFETY: SETREGSET reads `regs` through `iov`;
                    // SINGLESTEP takes integers.
                    unsafe {
                        check(libc::ptrace(libc::PTRACE_SETREGSET, pid, 1, &mut iov))?;
                        check(libc::ptrace(libc::PTRACE_SINGLESTEP, pid, 0, 0))?;
                    }
                    let st = wait(pid)?;
                    if !libc::WIFSTOPPED(st) {
                        continue;
                    }
                    poke(addr, trapped)?;
                    // SAFETY: CONT with integer arguments.
                    check(unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0, 0) })?;
                    continue;
                }
            }
            let pass = if sig == libc::SIGTRAP { 0 } else { sig };
            // SAFETY: CONT with integer arguments.
            check(unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0, pass) })?;
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tool {
    Untraced,
    /// `rtrace break`/`watch` as shipped: pinned to one CPU.
    Rtrace,
    /// The same with `--no-cpu-pin` (the behaviour before pinning).
    RtraceNoPin,
    Gdb,
    Floor,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Untraced => "untraced",
            Tool::Rtrace => "rtrace",
            Tool::RtraceNoPin => "rtrace --no-cpu-pin",
            Tool::Gdb => "gdb",
            Tool::Floor => "floor",
        }
    }
}

/// What a workload measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A breakpoint at `hit`, called from the main thread.
    Break,
    /// A breakpoint at `hit`, called from a second thread.
    BreakThread,
    /// A write watchpoint on `last`.
    Watch,
}

struct Workload {
    name: &'static str,
    path: PathBuf,
    addr: u64,
    kind: Kind,
}

fn symbol_addr(prog: &Path, name: &str) -> Option<u64> {
    let out = Command::new("nm").arg(prog).output().ok()?;
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() == 3 && f[2] == name)
            .then(|| u64::from_str_radix(f[0], 16).ok())
            .flatten()
    })
}

fn rtrace() -> PathBuf {
    std::env::var_os("RTRACE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_rtrace")))
}

/// The gdb script of a workload kind.
fn gdb_script(kind: Kind) -> PathBuf {
    let (name, text) = match kind {
        Kind::Watch => (
            "bench-watch.gdb",
            "watch last\ncommands\nsilent\ncontinue\nend\nrun\n",
        ),
        _ => (
            "bench-breakpoint.gdb",
            "break hit\ncommands\nsilent\ncontinue\nend\nrun\n",
        ),
    };
    let path = common::target_dir().join(name);
    let _ = std::fs::write(&path, text);
    path
}

/// Whether rtrace's report counts `n` hits.
fn counted(kind: Kind, stderr: &str, n: u64) -> bool {
    match kind {
        // --json: {"type":"count",…,"hits":N}.
        Kind::Break | Kind::BreakThread => stderr.contains(&format!("\"hits\":{n}")),
        // watch -c: the table row "1 write ADDR LEN HITS last". The loop
        // stores n times, and gcc -O2 adds one store as the loop ends.
        Kind::Watch => stderr.lines().any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.last() == Some(&"last")
                && f.len() > 2
                && [n.to_string(), (n + 1).to_string()].contains(&f[f.len() - 2].to_string())
        }),
    }
}

/// One timed run; `None` when the tool failed or counted wrong.
fn run_once(tool: Tool, w: &Workload, n: u64) -> Option<Duration> {
    let expect = format!("sum {}", (0..n as i64).map(|i| i ^ 0x5a).sum::<i64>());
    let thread: &[&str] = if w.kind == Kind::BreakThread {
        &["thread"]
    } else {
        &[]
    };
    let t0 = Instant::now();
    match tool {
        Tool::Floor => {
            let argv = [
                CString::new(w.path.to_str()?).ok()?,
                CString::new(n.to_string()).ok()?,
            ];
            let (code, hits) = floor::run(&argv, w.addr).ok()?;
            let d = t0.elapsed();
            (code == 0 && hits == n).then_some(d)
        }
        _ => {
            let mut c = match tool {
                Tool::Untraced => Command::new(&w.path),
                Tool::Rtrace | Tool::RtraceNoPin => {
                    let mut c = Command::new(rtrace());
                    match w.kind {
                        Kind::Watch => c.args(["watch", "-c", "last"]),
                        _ => c.args(["break", "--backend", "ptrace", "--count", "--json", "hit"]),
                    };
                    if tool == Tool::RtraceNoPin {
                        c.arg("--no-cpu-pin");
                    }
                    c.arg("--").arg(&w.path);
                    c
                }
                _ => {
                    let mut c = Command::new("gdb");
                    c.args(["-batch", "-nx", "-x"])
                        .arg(gdb_script(w.kind))
                        .arg("--args")
                        .arg(&w.path);
                    c
                }
            };
            let out = c
                .arg(n.to_string())
                .args(thread)
                .stdin(Stdio::null())
                .output()
                .ok()?;
            let d = t0.elapsed();
            let stdout = String::from_utf8_lossy(&out.stdout);
            if !out.status.success() || !stdout.contains(&expect) {
                return None;
            }
            if matches!(tool, Tool::Rtrace | Tool::RtraceNoPin)
                && !counted(w.kind, &String::from_utf8_lossy(&out.stderr), n)
            {
                return None;
            }
            Some(d)
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

fn selftest(w: &Workload) -> bool {
    let argv = [
        CString::new(w.path.to_str().unwrap_or("")).expect("path"),
        CString::new("1000").expect("n"),
    ];
    match floor::run(&argv, w.addr) {
        Ok((0, 1000)) => {
            println!("selftest: floor tracer counted 1000 hits of 1000: ok");
            true
        }
        other => {
            println!("selftest: floor tracer failed: {other:?}");
            false
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let quick = args.iter().any(|a| a == "--quick");
    let rounds: usize = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(if quick { 3 } else { 5 });
    let build = |name: &str, opt: &str| {
        let path =
            common::testprog_variant("bp_bench", &format!("nopie-{name}"), &["-no-pie", opt]);
        let addr = symbol_addr(&path, "hit")?;
        Some((path, addr))
    };
    let (Some(o0), Some(o2)) = (build("O0", "-O0"), build("O2", "-O2")) else {
        eprintln!("could not build or inspect testprogs/bp_bench.c");
        return ExitCode::FAILURE;
    };
    let workloads = [
        ("O0", &o0, Kind::Break),
        ("O2", &o2, Kind::Break),
        ("O2, hits in a second thread", &o2, Kind::BreakThread),
        ("O2, watch `last` (a write per iteration)", &o2, Kind::Watch),
    ]
    .map(|(name, (path, addr), kind)| Workload {
        name,
        path: path.clone(),
        addr: *addr,
        kind,
    });
    if !bench || args.iter().any(|a| a == "--selftest") {
        return if workloads[..2].iter().all(selftest) {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    // --only TEXT: the workloads whose name contains TEXT.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let have_gdb = common::have("gdb");
    if !have_gdb {
        println!("gdb: skipped (not installed)");
    }
    // (N1, N2) per tool; gdb is ~20x slower per hit.
    let sizes = |t: Tool| -> (u64, u64) {
        let (a, b) = match t {
            Tool::Gdb => (1_000, 11_000),
            _ => (20_000, 120_000),
        };
        if quick {
            (a / 4, b / 4)
        } else {
            (a, b)
        }
    };
    println!(
        "load average at start: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    let mut table = String::from(
        "| workload | tool | per hit (µs) | vs gdb | vs floor | vs --no-cpu-pin |\n\
         |---|---|---:|---:|---:|---:|\n",
    );
    let mut ok = true;
    for w in &workloads {
        if only.as_ref().is_some_and(|o| !w.name.contains(o.as_str())) {
            continue;
        }
        let mut tools = vec![Tool::Untraced, Tool::Rtrace, Tool::RtraceNoPin];
        if w.kind == Kind::Break {
            // The floor tracer follows no threads and sets no watchpoints.
            tools.push(Tool::Floor);
        }
        if have_gdb {
            tools.push(Tool::Gdb);
        }
        let mut per_hit: Vec<Vec<f64>> = vec![Vec::new(); tools.len()];
        let mut failed = vec![false; tools.len()];
        for round in 0..=rounds {
            for (ti, &t) in tools.iter().enumerate() {
                if failed[ti] {
                    continue;
                }
                let (n1, n2) = sizes(t);
                let a = run_once(t, w, n1);
                let b = run_once(t, w, n2);
                match (a, b) {
                    (Some(a), Some(b)) => {
                        if round > 0 {
                            let us = (b.as_secs_f64() - a.as_secs_f64()) * 1e6 / (n2 - n1) as f64;
                            per_hit[ti].push(us);
                        }
                    }
                    _ => {
                        println!(
                            "{}: {} failed (wrong output or count); skipped",
                            w.name,
                            t.name()
                        );
                        failed[ti] = true;
                    }
                }
            }
        }
        let med: Vec<f64> = per_hit.iter_mut().map(|v| median(v)).collect();
        let untraced = tools
            .iter()
            .position(|x| *x == Tool::Untraced)
            .map_or(0.0, |i| med[i]);
        // Costs above the untraced loop.
        let of = |t: Tool| {
            tools
                .iter()
                .position(|x| *x == t)
                .filter(|&i| !failed[i])
                .map(|i| med[i] - untraced)
        };
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        let show = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:.3}"));
        println!("workload bp_bench {} (hit at {:#x}):", w.name, w.addr);
        for &t in &tools {
            if let Some(c) = of(t) {
                let c = if t == Tool::Untraced { untraced } else { c };
                println!("  {:<20} {:>9.3} µs/hit", t.name(), c);
            }
        }
        let (r, g, f) = (of(Tool::Rtrace), of(Tool::Gdb), of(Tool::Floor));
        let (rg, rf) = (ratio(r, g), ratio(r, f));
        println!(
            "  rtrace/gdb = {} (target <= 0.15), rtrace/floor = {} (target <= 0.6), \
             rtrace/--no-cpu-pin = {}",
            show(rg),
            show(rf),
            show(ratio(r, of(Tool::RtraceNoPin)))
        );
        if rg.is_some_and(|v| v > 0.15) || rf.is_some_and(|v| v > 0.6) {
            ok = false;
        }
        for &t in &tools {
            let Some(c) = of(t).filter(|_| t != Tool::Untraced) else {
                continue;
            };
            let vs = |b: Tool| {
                if t == b {
                    "1.000".to_string()
                } else {
                    show(ratio(Some(c), of(b)))
                }
            };
            let vn = match t {
                Tool::Rtrace | Tool::RtraceNoPin => vs(Tool::RtraceNoPin),
                _ => String::new(),
            };
            table.push_str(&format!(
                "| bp_bench {} | {} | {:.2} | {} | {} | {} |\n",
                w.name,
                t.name(),
                c,
                vs(Tool::Gdb),
                if w.kind == Kind::Break {
                    vs(Tool::Floor)
                } else {
                    String::new()
                },
                vn
            ));
        }
    }
    println!(
        "load average at end: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!("\n{table}");
    let _ = std::fs::write(common::target_dir().join("bench-breakpoint.md"), &table);
    if !ok {
        println!("note: a target ratio was missed");
    }
    ExitCode::SUCCESS
}
