//! `rltrace -c --backend kernel` on this machine's tracefs: counts equal to
//! the ptrace backend's `-c` and to the program's own (testprogs/ltk_calls.c,
//! in lazy, `-z now` and IBT `.plt.sec` links), threads, `-e` filters, the
//! time columns measured (uprobe and uretprobe time stamps), clear refusals
//! of what the kernel path cannot count (and `auto` taking ptrace then), and
//! tracefs left as it was after a normal run and after SIGINT. The output
//! without `-c` is compared in `ltrace_kernel.rs`.
//!
//! Parallel-safe: each rltrace run owns the dynamic-event group
//! `rtrace_PID` of its own pid; checks look only at that group (and at
//! events of no rtrace group, which no test here touches). Skips with a
//! printed reason when not root or when tracefs/uprobes are unavailable.

use crate::common;
use crate::ltrace_util;

use common::PrivateCopy;
use ltrace_util::{rltrace, run, temp};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The tracefs root with uprobe events, or None (and why) to skip.
fn tracefs() -> Option<PathBuf> {
    common::uprobe_tracefs()
}

/// ltk_calls linked as `variant`: `lazy`, `now`, `ibt` (`.plt.sec`),
/// `noplt`; a private copy.
fn prog(variant: &str) -> PrivateCopy {
    PrivateCopy::new(&built(variant))
}

fn built(variant: &str) -> PathBuf {
    let flags: &[&str] = match variant {
        "lazy" => &["-fno-builtin", "-fPIE", "-pie", "-Wl,-z,lazy"],
        "now" => &["-fno-builtin", "-fPIE", "-pie", "-Wl,-z,now"],
        "ibt" => &[
            "-fno-builtin",
            "-fPIE",
            "-pie",
            "-fcf-protection=full",
            "-Wl,-z,ibtplt",
            "-Wl,-z,lazy",
        ],
        "noplt" => &["-fno-builtin", "-fPIE", "-pie", "-fno-plt", "-Wl,-z,now"],
        _ => unreachable!(),
    };
    common::testprog_variant("ltk_calls", variant, flags)
}

/// The `-c` table: function -> calls; and whether the time columns were
/// numbers (ptrace) or `-` (kernel) on every row.
fn table(text: &str) -> (BTreeMap<String, u64>, Option<bool>) {
    let mut rows = BTreeMap::new();
    let mut timed = None;
    let mut in_table = false;
    for l in text.lines() {
        if l.starts_with("% time") {
            in_table = true;
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if !in_table || l.starts_with("------") || f.len() != 5 {
            continue;
        }
        let t = f[..3].iter().all(|c| *c != "-" && c.parse::<f64>().is_ok());
        let dash = f[..3].iter().all(|c| *c == "-");
        assert!(t || dash, "time columns neither measured nor '-': {l}");
        assert!(timed.is_none_or(|x| x == t), "mixed rows: {text}");
        timed = Some(t);
        rows.insert(f[4].to_string(), f[3].parse().expect("calls"));
    }
    (rows, timed)
}

/// `labs=N abs=N strlen=N` from the program's stdout.
fn own_counts(stdout: &str) -> BTreeMap<String, u64> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("labs="))
        .unwrap_or_else(|| panic!("no counts line in {stdout:?}"));
    line.split_whitespace()
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

/// Dynamic events of no rtrace group (nothing here may change them) and
/// those of the group of rtrace process `pid`.
fn events(root: &Path, pid: u32) -> (Vec<String>, Vec<String>) {
    let mut other = Vec::new();
    let mut ours = Vec::new();
    let group = format!("rtrace_{pid}/");
    for f in ["uprobe_events", "dynamic_events"] {
        for l in std::fs::read_to_string(root.join(f))
            .unwrap_or_default()
            .lines()
        {
            if l.contains(&group) {
                ours.push(format!("{f}: {l}"));
            } else if !l.contains(":rtrace_") {
                other.push(format!("{f}: {l}"));
            }
        }
    }
    (other, ours)
}

fn kernel(opts: &[&str], p: &Path, args: &[&str]) -> ltrace_util::Run {
    let mut o = vec!["-c", "--backend", "kernel"];
    o.extend_from_slice(opts);
    run(&o, p, args)
}

fn ptrace(opts: &[&str], p: &Path, args: &[&str]) -> ltrace_util::Run {
    let mut o = vec!["-c", "--backend", "ptrace"];
    o.extend_from_slice(opts);
    run(&o, p, args)
}

#[test]
fn counts_equal_ptrace_and_the_programs_own() {
    let Some(root) = tracefs() else { return };
    for variant in ["lazy", "now", "ibt"] {
        let p = prog(variant);
        let before = events(&root, 0).0;
        let k = kernel(&[], &p, &["20000"]);
        assert_eq!(k.code, Some(0), "{variant}: {}", k.stderr);
        let (rows, timed) = table(&k.trace);
        assert_eq!(timed, Some(true), "{variant}: {}", k.trace);
        for (f, n) in own_counts(&k.stdout) {
            assert_eq!(rows.get(&f), Some(&n), "{variant} {f}: {}", k.trace);
        }
        assert_eq!(rows["labs"], 20000);
        let total: u64 = rows.values().sum();
        assert!(k.trace.contains(&format!("{total:9} total")), "{}", k.trace);
        let pt = ptrace(&[], &p, &["20000"]);
        assert_eq!(pt.code, Some(0), "{}", pt.stderr);
        let (prow, ptimed) = table(&pt.trace);
        assert_eq!(ptimed, Some(true), "{}", pt.trace);
        assert_eq!(rows, prow, "{variant}: kernel vs ptrace");
        // `auto` (the default) takes the kernel for -c: real times too.
        let a = run(&["-c", "-D", "1"], &p, &["100"]);
        assert_eq!(table(&a.trace).1, Some(true), "{}", a.trace);
        assert!(a.stderr.contains("rltrace: backend kernel"), "{}", a.stderr);
        assert_eq!(events(&root, 0).0, before, "tracefs changed");
    }
}

#[test]
fn threads_are_counted() {
    let Some(_) = tracefs() else { return };
    let p = prog("now");
    let k = kernel(&[], &p, &["30000", "6"]);
    assert_eq!(k.code, Some(0), "{}", k.stderr);
    let (rows, _) = table(&k.trace);
    let own = own_counts(&k.stdout);
    assert_eq!(own["labs"], 30000 * 7);
    for (f, n) in own {
        assert_eq!(rows.get(&f), Some(&n), "{f}: {}", k.trace);
    }
    assert_eq!(rows["pthread_create"], 6);
    assert_eq!(rows["pthread_join"], 6);
    let pt = ptrace(&[], &p, &["30000", "6"]);
    assert_eq!(rows, table(&pt.trace).0, "kernel vs ptrace");
}

#[test]
fn e_filters_select_as_ptrace_does() {
    let Some(_) = tracefs() else { return };
    let p = prog("lazy");
    for e in [
        &["-e", "labs+abs"][..],
        &["-e", "@MAIN-labs"],
        &["-e", "str*@MAIN", "-e", "abs"],
    ] {
        let k = kernel(e, &p, &["500", "1"]);
        assert_eq!(k.code, Some(0), "{e:?}: {}", k.stderr);
        let pt = ptrace(e, &p, &["500", "1"]);
        let (rows, prow) = (table(&k.trace).0, table(&pt.trace).0);
        assert!(!rows.is_empty(), "{e:?}");
        assert_eq!(rows, prow, "{e:?}");
    }
    let k = kernel(&["-e", "labs+abs"], &p, &["500", "1"]);
    let rows = table(&k.trace).0;
    assert_eq!(rows.len(), 2, "{}", k.trace);
    assert_eq!(rows["labs"], 1000);
    assert_eq!(rows["abs"], 4);
}

/// Asserts a refusal: exit 1, the reason, no table.
fn refused(r: &ltrace_util::Run, why: &str) {
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr.contains("--backend kernel") && r.stderr.contains(why),
        "expected '{why}': {}",
        r.stderr
    );
    assert!(
        r.stderr.contains("use --backend ptrace") || why == "-c",
        "{}",
        r.stderr
    );
    assert!(!r.trace.contains("% time"), "{}", r.trace);
}

#[test]
fn what_the_kernel_cannot_count_is_refused_and_auto_uses_ptrace() {
    let Some(root) = tracefs() else { return };
    let before = events(&root, 0).0;
    let p = prog("now");
    let a = &["10"];
    refused(&kernel(&["-S"], &p, a), "-S");
    refused(&kernel(&["-f"], &p, a), "-f");
    refused(&kernel(&["-l", "libc.so.6"], &p, a), "-l");
    refused(&kernel(&["-x", "main"], &p, a), "-x");
    refused(&kernel(&["-L"], &p, a), "-L");
    refused(&kernel(&["--inject", "labs:retval=1"], &p, a), "--inject");
    refused(&kernel(&["-e", "malloc"], &p, a), "libc.so.6->malloc");
    refused(&kernel(&["-e", "-labs"], &p, a), "selects calls made by");
    // Without -c: one function gets a ptrace breakpoint, the rest uprobes;
    // printf too (the program holds no floating-point format).
    let r = run(&["--backend", "kernel", "-D", "1"], &p, a);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("ptrace breakpoints on 1 (") && !r.stderr.contains("(printf"),
        "{}",
        r.stderr
    );
    assert!(r.trace.contains("printf(\""), "{}", r.trace);
    let r = Command::new(rltrace())
        .args(["-c", "--backend", "kernel", "-p", "1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1));
    assert!(err.contains("-p: attaching needs ptrace"), "{err}");
    // A script: its interpreter's calls are what ptrace would count.
    let script = temp("script.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    refused(&kernel(&[], &script, &[]), "not an ELF program");
    let _ = std::fs::remove_file(&script);
    // -fno-plt: calls through the GOT have no stub of the program's own.
    let np = prog("noplt");
    refused(&kernel(&[], &np, &["100"]), "with no PLT stub");
    // `auto` counts them with ptrace, exactly.
    let r = run(&["-c", "--backend", "auto"], &np, &["100", "1"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let (rows, timed) = table(&r.trace);
    assert_eq!(timed, Some(true));
    for (f, n) in own_counts(&r.stdout) {
        assert_eq!(rows.get(&f), Some(&n), "{f}: {}", r.trace);
    }
    assert_eq!(events(&root, 0).0, before, "tracefs changed");
}

#[test]
fn another_program_execd_is_reported() {
    let Some(_) = tracefs() else { return };
    let p = prog("now");
    let env = Path::new("/usr/bin/env");
    if !env.exists() {
        eprintln!("skip: no /usr/bin/env");
        return;
    }
    let r = Command::new(rltrace())
        .args(["-c", "--backend", "kernel", "-o"])
        .arg(temp("exec.txt"))
        .arg(env)
        .arg(&p)
        .arg("10")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(err.contains("executed another program"), "{err}");
    let r = kernel(&[], &p, &["10"]);
    assert!(
        !r.stderr.contains("executed another program"),
        "{}",
        r.stderr
    );
}

fn tracefs_clean_after(root: &Path, pid: u32, before: &[String]) {
    let (other, ours) = events(root, pid);
    assert!(ours.is_empty(), "rtrace_{pid} left behind: {ours:?}");
    assert!(!root.join(format!("events/rtrace_{pid}")).exists());
    assert_eq!(other, before, "other dynamic events changed");
}

#[test]
fn tracefs_as_before_after_normal_run_and_sigint() {
    let Some(root) = tracefs() else { return };
    let p = prog("now");
    let before = events(&root, 0).0;
    // Normal run.
    let child = Command::new(rltrace())
        .args(["-c", "--backend", "kernel"])
        .arg(&p)
        .arg("100")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(table(&String::from_utf8_lossy(&o.stderr)).0["labs"], 100);
    tracefs_clean_after(&root, pid, &before);
    // SIGINT while the command waits.
    let (child, _out) =
        ltrace_util::start_until_ready(&["-c", "--backend", "kernel"], &p, &["1000", "2", "wait"]);
    let pid = child.id();
    let (_, ours) = events(&root, pid);
    assert!(!ours.is_empty(), "no rtrace_{pid} events while running");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(128 + libc::SIGINT), "{err}");
    // The table still comes, with every call made before the signal.
    let (rows, _) = table(&err);
    assert_eq!(rows.get("labs"), Some(&3000), "{err}");
    assert_eq!(rows.get("puts"), Some(&1), "{err}");
    tracefs_clean_after(&root, pid, &before);
}

/// CPU seconds (user + system) of the reaped children so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Per-call cost of each backend on 200,000 labs() calls: 5 alternating
/// runs, medians of the wall time and of the CPU time (rltrace and the
/// command together), less the untraced program's (run with `--ignored
/// --nocapture`; it prints, it asserts only that the runs succeed).
#[test]
#[ignore]
fn timing_kernel_vs_ptrace() {
    let Some(_) = tracefs() else { return };
    let p = prog("now");
    let n = 200_000u32;
    let time = |backend: Option<&str>| {
        let mut c = Command::new(if backend.is_some() {
            rltrace()
        } else {
            p.to_path_buf()
        });
        if let Some(b) = backend {
            c.args(["-c", "--backend", b, "-o", "/dev/null"]).arg(&p);
        }
        c.arg(n.to_string()).stdout(Stdio::null());
        let cpu = children_cpu();
        let t = Instant::now();
        assert!(c.status().unwrap().success());
        (t.elapsed().as_secs_f64(), children_cpu() - cpu)
    };
    let mut runs: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for _ in 0..5 {
        for b in ["none", "kernel", "ptrace"] {
            let t = time((b != "none").then_some(b));
            runs.entry(b).or_default().push(t);
        }
    }
    let med = |b: &str, cpu: bool| {
        let mut v: Vec<f64> = runs[b]
            .iter()
            .map(|r| if cpu { r.1 } else { r.0 })
            .collect();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    for b in ["kernel", "ptrace"] {
        let (w, c) = (med(b, false), med(b, true));
        let per = |x: f64, base: f64| (x - base) * 1e6 / n as f64;
        eprintln!(
            "{b}: wall median {w:.3} s ({:.2} us/call), cpu median {c:.3} s ({:.2} us/call); \
             untraced wall {:.3} s cpu {:.3} s",
            per(w, med("none", false)),
            per(c, med("none", true)),
            med("none", false),
            med("none", true)
        );
    }
}
