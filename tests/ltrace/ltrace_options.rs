//! rltrace's options, each checked on a test program whose behaviour is
//! known: -e -l -L -x -S -c -T -t/-tt/-ttt -r -f -p -o -s -n -i -w -C -A
//! -F -b -D -h -V, bad filters, longjmp over a traced call, and a clean
//! detach after `-p`.

use crate::common;
use crate::ltrace_util;

use ltrace_util::{rltrace, run, temp};

use regex_lite::Regex;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn calls() -> PathBuf {
    common::testprog_variant("lt_calls", "lazy", &["-fno-builtin"])
}

fn signal_prog() -> PathBuf {
    common::testprog_variant("lt_signal", "lazy", &["-fno-builtin"])
}

fn lines_matching<'a>(t: &'a str, re: &str) -> Vec<&'a str> {
    let re = Regex::new(re).expect("regex");
    t.lines().filter(|l| re.is_match(l)).collect()
}

#[test]
fn timestamps_and_durations() {
    let p = calls();
    let body = r"(strlen|malloc|exit|\+\+\+)";
    for (opt, re) in [
        ("-t", format!(r"^\d\d:\d\d:\d\d {body}")),
        ("-tt", format!(r"^\d\d:\d\d:\d\d\.\d{{6}} {body}")),
        ("-ttt", format!(r"^\d{{10}}\.\d{{6}} {body}")),
        ("-r", format!(r"^ *\d+\.\d{{6}} {body}")),
    ] {
        let r = run(&[opt], &p, &[]);
        let n = r.trace.lines().count();
        assert_eq!(
            lines_matching(&r.trace, &re).len(),
            4,
            "{opt}:\n{}",
            r.trace
        );
        assert!(n > 10, "{opt}: {}", r.trace);
        assert_eq!(
            lines_matching(&r.trace, r"^ *\d").len(),
            n,
            "{opt}: every line stamped"
        );
    }
    let r = run(&["-T"], &p, &[]);
    let timed = lines_matching(&r.trace, r"= .* <\d+\.\d{6}>$");
    // Every call that returned (all but exit).
    assert_eq!(timed.len(), r.trace.lines().count() - 2, "{}", r.trace);
}

#[test]
fn instruction_pointer_and_string_length() {
    let r = run(&["-i", "-s", "3"], &calls(), &[]);
    let l = lines_matching(&r.trace, r#"^\[0x[0-9a-f]+\] strlen\("hel"\.\.\.\) += 11$"#);
    assert_eq!(l.len(), 1, "{}", r.trace);
    assert_eq!(
        lines_matching(&r.trace, r"^\[0xffffffffffffffff\] \+\+\+ exited").len(),
        1
    );
}

#[test]
fn follow_forks_and_signals() {
    let p = signal_prog();
    let r = run(&["-f", "-n", "2"], &p, &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let pids: std::collections::BTreeSet<&str> = r
        .trace
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(pids.len(), 2, "parent and child: {}", r.trace);
    let t = &r.trace;
    // The handler's call nests inside raise, indented by -n.
    assert_eq!(
        lines_matching(t, r"^\d+   labs\(-11\) += 11$").len(),
        1,
        "{t}"
    );
    assert_eq!(
        lines_matching(t, r"^\d+ --- SIGUSR1 \(User defined signal 1\) ---$").len(),
        1
    );
    // The child's call, whole or cut in two by the parent's waitpid line.
    let whole = lines_matching(t, r"^\d+ labs\(-22\) += 22$").len();
    let split = lines_matching(t, r"^\d+ labs\(-22 <unfinished \.\.\.>$").len();
    let resumed = lines_matching(t, r"^\d+ <\.\.\. labs resumed> \) += 22$").len();
    assert_eq!((whole + split, split), (1, resumed), "{t}");
    assert_eq!(
        lines_matching(t, r"^\d+ labs\(-33\) += 33$").len(),
        1,
        "{t}"
    );
    assert_eq!(
        lines_matching(t, r"^\d+ \+\+\+ exited \(status 0\) \+\+\+$").len(),
        2
    );

    // Without -f: the child is not reported, and runs on untouched.
    let r = run(&[], &p, &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(!r.trace.contains("labs(-22)"), "{}", r.trace);
    assert!(r.trace.contains("labs(-33)"), "{}", r.trace);
    assert!(r.trace.contains("--- SIGUSR1 (User defined signal 1) ---"));
    // -b: no signal lines.
    let r = run(&["-b"], &p, &[]);
    assert!(!r.trace.contains("---"), "{}", r.trace);
    assert!(r.trace.contains("labs(-11)"), "{}", r.trace);
}

#[test]
fn backtraces_with_w() {
    let r = run(&["-w", "2", "-e", "labs"], &signal_prog(), &[]);
    let t = &r.trace;
    let l = t.lines().collect::<Vec<_>>();
    let at = l
        .iter()
        .position(|x| x.contains("labs(-33)"))
        .unwrap_or_else(|| panic!("{t}"));
    assert!(
        l[at + 1].starts_with(" > ") && l[at + 1].contains("(main+0x"),
        "{t}"
    );
    assert!(
        l[at + 2].starts_with(" > ") && l[at + 2].contains("libc.so.6("),
        "{t}"
    );
    let at = l.iter().position(|x| x.contains("labs(-11)")).unwrap();
    assert!(l[at + 1].contains("(on_usr1+0x"), "{t}");
}

#[test]
fn filters_e_l_x_and_l_upper() {
    let p = calls();
    let r = run(&["-e", "malloc+free"], &p, &[]);
    // The program's calls, and libc's own through its PLT (stdio's buffer).
    let body: Vec<&str> = lines_matching(&r.trace, r"^lt_calls-lazy->");
    assert_eq!(body.len(), 3, "{}", r.trace);
    assert!(
        body[0].starts_with("lt_calls-lazy->malloc(32)"),
        "{}",
        r.trace
    );
    assert!(body[1].starts_with("lt_calls-lazy->free(0x"), "{}", r.trace);
    assert!(body[2].starts_with("lt_calls-lazy->free(0x"), "{}", r.trace);
    let others = lines_matching(&r.trace, r"^[^l+]");
    assert!(
        others
            .iter()
            .all(|l| l.starts_with("libc.so.6->malloc(") || l.starts_with("libc.so.6->free(")),
        "{}",
        r.trace
    );
    let r = run(&["-e", "malloc@MAIN"], &p, &[]);
    assert_eq!(
        lines_matching(&r.trace, r"^lt_calls-lazy->malloc\(32\)").len(),
        1,
        "{}",
        r.trace
    );
    assert_eq!(r.trace.lines().count(), 2, "{}", r.trace);
    // -L alone: no library calls at all.
    let r = run(&["-L"], &p, &[]);
    assert_eq!(r.trace, "+++ exited (status 3) +++\n");
    // -x on a function of the program itself (no library suffix).
    let r = run(&["-L", "-x", "on_usr1"], &signal_prog(), &[]);
    assert_eq!(
        lines_matching(&r.trace, r"^on_usr1\(").len(),
        1,
        "{}",
        r.trace
    );
    // -l: calls to what libc implements, with the caller shown.
    let r = run(&["-l", "libc.so.6"], &p, &[]);
    assert!(
        r.trace.contains("lt_calls-lazy->strlen(\"hello world\")"),
        "{}",
        r.trace
    );
    let r = run(&["-l", "libnothing.so"], &p, &[]);
    assert_eq!(r.trace, "+++ exited (status 3) +++\n", "{}", r.trace);
}

#[test]
fn bad_filter_is_an_error() {
    let r = run(&["-e", "/foo("], &calls(), &[]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.starts_with("rltrace: "), "{}", r.stderr);
    assert!(r.trace.is_empty(), "nothing runs: {}", r.trace);
    let r = run(&["-x", "/foo("], &calls(), &[]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
}

#[test]
fn syscalls_with_s() {
    let r = run(&["-S"], &calls(), &[]);
    let t = &r.trace;
    assert!(!t.contains("SYS_execve"), "the launch is not traced: {t}");
    assert_eq!(
        lines_matching(t, r#"^SYS_write\(1, "done\\n", 5\) += 5$"#).len(),
        1,
        "{t}"
    );
    assert_eq!(
        lines_matching(t, r"^SYS_exit_group\(3 <no return \.\.\.>$").len(),
        1
    );
    assert!(t.contains("strlen(\"hello world\")"));
    // -L -S: system calls only.
    let r = run(&["-L", "-S"], &calls(), &[]);
    assert!(lines_matching(&r.trace, r"^SYS_").len() > 10, "{}", r.trace);
    assert!(
        lines_matching(&r.trace, r"^[a-z]").is_empty(),
        "{}",
        r.trace
    );
    // -c -S: counted as SYS_name at the return, as ltrace counts them
    // (exit_group never returns: not in the table).
    let r = run(&["-c", "-S"], &calls(), &[]);
    assert!(
        !lines_matching(&r.trace, r"^ *\d+\.\d\d .* \d+ SYS_write$").is_empty(),
        "{}",
        r.trace
    );
    assert!(!r.trace.contains("SYS_exit_group"), "{}", r.trace);
}

#[test]
fn longjmp_over_a_traced_call() {
    let p = common::testprog_variant("lt_longjmp", "lazy", &["-fno-builtin"]);
    let r = run(&[], &p, &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let t = &r.trace;
    assert_eq!(
        lines_matching(t, r"^qsort\(.*<unfinished \.\.\.>$").len(),
        2,
        "{t}"
    );
    assert_eq!(lines_matching(t, r"^labs\(-5\) += 5$").len(), 1, "{t}");
    assert_eq!(lines_matching(t, r"^labs\(-6\) += 6$").len(), 1, "{t}");
}

#[test]
fn prototype_file_with_f() {
    let conf = temp("conf");
    // Bad lines (as ltrace: reported with FILE:LINE, the rest is used).
    std::fs::write(&conf, "int bogus(frob);\nvoid on_usr1(int);\nint (;\n").expect("write");
    let c = conf.to_str().unwrap();
    let r = run(&["-F", c, "-L", "-x", "on_usr1"], &signal_prog(), &[]);
    let _ = std::fs::remove_file(&conf);
    assert_eq!(
        lines_matching(&r.trace, r"^on_usr1\(10\) += <void>$").len(),
        1,
        "{}",
        r.trace
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    // In the trace output, as ltrace reports them.
    for line in [1, 3] {
        assert!(
            r.trace.contains(&format!("{c}:{line}: error: ")),
            "line {line}: {}",
            r.trace
        );
    }
    assert!(!r.trace.contains(&format!("{c}:2:")), "{}", r.trace);
    // A missing file: said, and the trace goes on (ltrace says nothing).
    let plain = run(&[], &calls(), &[]);
    let r = run(&["-F", "/nonexistent/ltrace.conf"], &calls(), &[]);
    assert!(
        r.stderr.contains("/nonexistent/ltrace.conf"),
        "{}",
        r.stderr
    );
    assert_eq!(r.code, plain.code, "{}", r.stderr);
    assert!(!r.trace.is_empty() && r.trace.lines().count() == plain.trace.lines().count());
}

/// Calls the dynamic linker makes through its own PLT (for example
/// `_dl_catch_exception`, into libc) are not the program's: never shown,
/// not even with `-e '*'` (ltrace shows none either).
#[test]
fn no_calls_from_the_dynamic_linker() {
    let r = run(&["-e", "*"], &calls(), &[]);
    let from = |l: &str| l.split("->").next().unwrap_or("").to_string();
    assert!(
        r.trace.lines().any(|l| from(l).starts_with("lt_calls")),
        "{}",
        r.trace
    );
    assert!(
        r.trace.lines().any(|l| from(l).starts_with("libc.so")),
        "{}",
        r.trace
    );
    let ld: Vec<&str> = r
        .trace
        .lines()
        .filter(|l| {
            l.contains("->") && (from(l).starts_with("ld-linux") || from(l).starts_with("ld64"))
        })
        .collect();
    assert!(ld.is_empty(), "{ld:?}");
}

#[test]
fn help_version_debug_and_refusals() {
    let out = Command::new(rltrace()).arg("-h").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Usage: rltrace"));
    let out = Command::new(rltrace()).arg("-V").output().unwrap();
    assert!(out.status.success() && !out.stdout.is_empty());
    let out = Command::new(rltrace()).arg("-Dh").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("debugging option"));
    let r = run(&["-D", "1"], &calls(), &[]);
    assert!(r.stderr.contains("breakpoint(s) placed"), "{}", r.stderr);
    let out = Command::new(rltrace())
        .args(["-s", "x", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Invalid argument to -s: 'x'.  Use integer >=0.\n"
    );
    let out = Command::new(rltrace()).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("too few arguments"));
    let out = Command::new(rltrace())
        .args(["-A", "x", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-A"));
}

fn exe_text(pid: u32) -> (u64, Vec<u8>) {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("maps");
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).expect("exe");
    let l = maps
        .lines()
        .find(|l| l.contains(" r-xp ") && l.ends_with(exe.to_str().unwrap()))
        .expect("text mapping");
    let (a, b) = l
        .split_whitespace()
        .next()
        .unwrap()
        .split_once('-')
        .unwrap();
    let (a, b) = (
        u64::from_str_radix(a, 16).unwrap(),
        u64::from_str_radix(b, 16).unwrap(),
    );
    let mut buf = vec![0u8; (b - a) as usize];
    let f = std::fs::File::open(format!("/proc/{pid}/mem")).expect("mem");
    std::os::unix::fs::FileExt::read_exact_at(&f, &mut buf, a).expect("read text");
    (a, buf)
}

fn ask(pin: &mut impl Write, pout: &mut impl BufRead, n: u32) -> String {
    writeln!(pin, "go {n}").unwrap();
    pin.flush().unwrap();
    let mut l = String::new();
    pout.read_line(&mut l).unwrap();
    l
}

#[test]
fn attach_then_sigint_detach_restores_everything() {
    let prog = common::testprog_variant("lt_attach", "lazy", &["-fno-builtin"]);
    let mut p = Command::new(&prog)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut pin = p.stdin.take().unwrap();
    let mut pout = BufReader::new(p.stdout.take().unwrap());
    let mut line = String::new();
    pout.read_line(&mut line).unwrap();
    assert!(line.starts_with("ready "), "{line}");
    let pid = p.id();
    let before = exe_text(pid);
    let maps_before = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
    assert_eq!(ask(&mut pin, &mut pout, 100), "sum 4950\n");

    let file = temp("attach.txt");
    let mut r = Command::new(rltrace())
        .args(["-D", "1", "-o"])
        .arg(&file)
        .args(["-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .expect("rltrace");
    let mut rerr = BufReader::new(r.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("attached") {
        said.clear();
        assert!(
            rerr.read_line(&mut said).unwrap() > 0,
            "rltrace ended early"
        );
    }
    assert_ne!(exe_text(pid).1, before.1, "breakpoints are in");
    assert_eq!(ask(&mut pin, &mut pout, 1000), "sum 499500\n");

    let st = Command::new("kill")
        .args(["-INT", &r.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let mut rest = String::new();
    rerr.read_to_string(&mut rest).unwrap();
    // 128 + SIGINT, as strace -p.
    assert_eq!(r.wait().unwrap().code(), Some(130), "{rest}");
    let trace = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    let labs = lines_matching(&trace, r"^\d+ labs\(-?(\d+)\) += \d+$");
    assert_eq!(labs.len(), 1000, "{trace}");

    // Every byte back, no page of ours left, the program computes on.
    assert_eq!(exe_text(pid), before);
    assert_eq!(
        std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap(),
        maps_before
    );
    assert_eq!(ask(&mut pin, &mut pout, 1000), "sum 499500\n");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    assert!(status.contains("TracerPid:\t0"), "{status}");
    drop(pin);
    let mut tail = String::new();
    pout.read_to_string(&mut tail).unwrap();
    assert_eq!(tail, "bye\n");
    assert!(p.wait().unwrap().success());
}

/// vfork returns twice through the same hijacked return address (the child
/// first, on the parent's stack): the child inherits the pending call. Its
/// exec then leaves nothing of ours behind; unfollowed, it runs untraced.
#[test]
fn vfork_children_return_through_the_parents_hijack() {
    let p = common::testprog("fault_vfork");
    let r = run(&["--backend", "ptrace", "-f", "-e", "vfork"], &p, &[]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (Some(0), "vforked 3 sum 6\n"),
        "{}",
        r.stderr
    );
    let t = &r.trace;
    // Each child's return (= 0) and each parent's (= child pid).
    let zero = lines_matching(t, r"^\d+ <\.\.\. vfork resumed> \)\s+= 0$").len();
    let pid = lines_matching(t, r"^\d+ <\.\.\. vfork resumed> \)\s+= [1-9]\d*$").len();
    assert_eq!((zero, pid), (3, 3), "{t}");

    let r = run(&["--backend", "ptrace", "-e", "vfork"], &p, &[]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (Some(0), "vforked 3 sum 6\n"),
        "{}",
        r.stderr
    );
    let calls = lines_matching(&r.trace, r"vfork\(\)\s+= [1-9]\d*$").len();
    assert_eq!(calls, 3, "only the parent's returns: {}", r.trace);
    assert!(!r.trace.contains("= 0\n"), "{}", r.trace);
}
