//! Differential tests: rstrace and the installed strace trace the same
//! programs; after normalising what legitimately differs between two runs
//! (pids, addresses, times, random bytes), the outputs must be identical.
//!
//! Threads and processes interleave differently from run to run, so traces
//! are compared per task: `<unfinished ...>`/`<... resumed>` pairs are joined
//! back into whole lines, each task's lines form a sequence, and the set of
//! sequences must match exactly. Skipped (with a message) when strace is not
//! installed.

use crate::common;

use common::{have, rstrace, testprog};
use regex_lite::Regex;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::Command;

fn trace_with(tool: &Path, args: &[&str], out: &Path) -> i32 {
    trace_with_opts(tool, &[], args, out)
}

fn trace_with_opts(tool: &Path, opts: &[&str], args: &[&str], out: &Path) -> i32 {
    let st = Command::new(tool)
        .args(opts)
        .args(["-f", "-o"])
        .arg(out)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("run tracer");
    st.code().unwrap_or(-1)
}

/// Rewrites what two runs of the same program may legitimately differ in.
fn normalize_line(line: &str, pids: &HashSet<String>) -> String {
    let mut l = crate::common::rseq_as_6_1(line);
    // Random bytes, clocks and resource usage.
    let rules: &[(&str, &str)] = &[
        (r#"getrandom\("[^"]*"(\.\.\.)?"#, "getrandom(RANDOM"),
        (r"tv_sec=\d+", "tv_sec=T"),
        (r"tv_nsec=\d+", "tv_nsec=T"),
        (r"tv_usec=\d+", "tv_usec=T"),
        // CPU times in ticks, with strace's seconds comment when nonzero.
        (r"si_utime=\d+( /\* [\d.]+ s \*/)?", "si_utime=T"),
        (r"si_stime=\d+( /\* [\d.]+ s \*/)?", "si_stime=T"),
        (r"f_bfree=\d+", "f_bfree=N"),
        (r"f_bavail=\d+", "f_bavail=N"),
        (r"f_ffree=\d+", "f_ffree=N"),
        (r"0x[0-9a-f]{6,}", "ADDR"),
        (r"/\* \d+ vars \*/", "/* N vars */"),
    ];
    for (re, rep) in rules {
        l = Regex::new(re).unwrap().replace_all(&l, *rep).into_owned();
    }
    // Pids only where a pid can stand (a number elsewhere may equal one).
    let places = [
        // Results only of calls that return a pid (a read's count may
        // equal one once pids have wrapped to small numbers); rt_sigreturn
        // returns what the interrupted call (here wait4) returned.
        r"(^(?:clone3?|v?fork|getpid|gettid|getppid|getpgrp|getpgid|getsid|setsid|wait4|waitid|set_tid_address|rt_sigreturn)\(.*= )(\d+)((?: <[^>]*>)?)$",
        r"(si_pid=)(\d+)()",
        r"(\[)(\d+)(\])",
        r"(pid )(\d+)()",
        r"(^[a-z_0-9]+\()(\d+)(,|\))",
        r"(^tgkill\((?:\d+|PID), )(\d+)(,)",
        // pthread_join waits on the thread's tid word.
        r"(FUTEX_WAIT[A-Z_|]*, )(\d+)(,)",
    ];
    for re in places {
        let re = Regex::new(re).unwrap();
        l = re
            .replace_all(&l, |c: &regex_lite::Captures| {
                if pids.contains(&c[2]) {
                    format!("{}PID{}", &c[1], &c[3])
                } else {
                    c[0].to_string()
                }
            })
            .into_owned();
    }
    l
}

/// The canonical form of a `-f -o` trace: per-task sequences, sorted.
fn canonical(text: &str) -> Vec<Vec<String>> {
    let line_re = Regex::new(r"^(\d+) +(.*)$").unwrap();
    let mut pids = HashSet::new();
    let mut pending: BTreeMap<String, String> = BTreeMap::new();
    let mut tasks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for raw in text.lines() {
        let Some(c) = line_re.captures(raw) else {
            continue;
        };
        let (pid, rest) = (c[1].to_string(), c[2].to_string());
        pids.insert(pid.clone());
        let full = if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(pid.clone(), head.to_string());
            continue;
        } else if let Some(tail) = rest.strip_prefix("<... ") {
            let tail = tail.split_once(" resumed>").map(|x| x.1).unwrap_or(tail);
            let head = pending.remove(&pid).unwrap_or_default();
            format!("{head}{tail}")
        } else {
            rest
        };
        // Spacing before "=" depends on where the line was split.
        let full = Regex::new(r"\) +=")
            .unwrap()
            .replace(&full, ") =")
            .into_owned();
        if !tasks.contains_key(&pid) {
            order.push(pid.clone());
        }
        tasks.entry(pid).or_default().push(full);
    }
    // Return values of fork/clone and the like name pids too.
    for seq in tasks.values() {
        for l in seq {
            if let Some(r) = l.rsplit("= ").next() {
                if r.chars().all(|c| c.is_ascii_digit()) && r.len() >= 2 {
                    let pre = &l[..l.len() - r.len()];
                    if pre.contains("clone")
                        || pre.contains("fork")
                        || pre.contains("getpid")
                        || pre.contains("gettid")
                        || pre.contains("set_tid_address")
                        || pre.contains("wait4")
                        || pre.contains("getppid")
                    {
                        pids.insert(r.to_string());
                    }
                }
            }
        }
    }
    let mut seqs: Vec<Vec<String>> = tasks
        .into_values()
        .map(|s| s.iter().map(|l| normalize_line(l, &pids)).collect())
        .collect();
    seqs.sort();
    seqs
}

fn compare(name: &str, args: &[&str]) {
    compare_except(name, args, &[]);
}

/// Like [`compare`], ignoring lines of the syscalls in `skip` (calls whose
/// presence depends on thread timing, such as a futex wait in pthread_join).
fn compare_except(name: &str, args: &[&str], skip: &[&str]) {
    compare_opts(name, &[], args, skip);
}

/// One comparison at a time: the traced programs fork and start threads, and
/// running many at once on a small machine changes how their events
/// interleave with signals (SIGCHLD before or after wait4) between the two
/// runs being compared.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Like [`compare_except`], with extra rstrace-only options.
fn compare_opts(name: &str, ropts: &[&str], args: &[&str], skip: &[&str]) {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    let dir = common::target_dir().join("strace_diff");
    std::fs::create_dir_all(&dir).unwrap();
    // The pid keeps concurrent runs of this suite apart.
    let id = std::process::id();
    let a = dir.join(format!("{name}.{id}.strace"));
    let b = dir.join(format!("{name}.{id}.rstrace"));
    let ca = trace_with(Path::new("strace"), args, &a);
    let cb = trace_with_opts(&rstrace(), ropts, args, &b);
    assert_eq!(ca, cb, "{name}: exit codes differ");
    let drop_skipped = |seqs: Vec<Vec<String>>| -> Vec<Vec<String>> {
        let mut v: Vec<Vec<String>> = seqs
            .into_iter()
            .map(|s| {
                s.into_iter()
                    .filter(|l| !skip.iter().any(|k| l.starts_with(&format!("{k}("))))
                    .collect()
            })
            .collect();
        v.sort();
        v
    };
    let ta = drop_skipped(canonical(&std::fs::read_to_string(&a).unwrap()));
    let tb = drop_skipped(canonical(&std::fs::read_to_string(&b).unwrap()));
    assert_eq!(ta.len(), tb.len(), "{name}: number of tasks differs");
    for (sa, sb) in ta.iter().zip(tb.iter()) {
        for (i, (la, lb)) in sa.iter().zip(sb.iter()).enumerate() {
            assert_eq!(
                la,
                lb,
                "{name}: line {i} differs (strace vs rstrace); traces in {}",
                dir.display()
            );
        }
        assert_eq!(sa.len(), sb.len(), "{name}: task line counts differ");
    }
}

#[test]
fn true_binary() {
    compare("true", &["true"]);
}

#[test]
fn cat_a_file() {
    compare("cat", &["cat", "/etc/hostname"]);
}

#[test]
fn ls_root() {
    compare("ls", &["ls", "/"]);
}

#[test]
fn sh_c_with_children() {
    compare("sh", &["sh", "-c", "ls /dev/null; true; echo done"]);
}

#[test]
fn file_operations() {
    let p = testprog("file_ops");
    compare("file_ops", &[p.to_str().unwrap()]);
}

#[test]
fn process_and_signals() {
    let p = testprog("proc_signal");
    compare("proc_signal", &[p.to_str().unwrap()]);
}

#[test]
fn threaded_program() {
    let p = testprog("threads");
    compare_except(
        "threads",
        &[p.to_str().unwrap(), "20"],
        &["futex", "munmap"],
    );
}

#[test]
fn forking_program() {
    let p = testprog("forker");
    // Whether pthread_join waits (a futex wait) depends on whether the
    // thread is done first: strace's own runs differ there.
    compare_except("forker", &[p.to_str().unwrap()], &["futex"]);
}

#[test]
fn exec_from_thread() {
    let p = testprog("exec_thread");
    // Where the leader is when the other thread execs (still in
    // rt_sigprocmask, or already in pause — or even still in the clone3
    // that made the thread, which then never returns) depends on
    // scheduling.
    compare_except(
        "exec_thread",
        &[p.to_str().unwrap()],
        &["rt_sigprocmask", "pause", "clone3"],
    );
}

#[test]
fn death_by_signal() {
    let p = testprog("sigsegv");
    compare("sigsegv", &[p.to_str().unwrap()]);
}

#[test]
fn register_fallback_decodes_the_same() {
    compare_opts("ls_regs", &["--no-syscall-info"], &["ls", "/"], &[]);
    let p = testprog("proc_signal");
    compare_opts(
        "proc_signal_regs",
        &["--no-syscall-info"],
        &[p.to_str().unwrap()],
        &[],
    );
}

#[test]
fn leader_exiting_first() {
    let p = testprog("leader_exits");
    // munmap lengths of a new thread arena depend on where ASLR put it.
    compare_except("leader_exits", &[p.to_str().unwrap()], &["futex", "munmap"]);
}

/// `-k`: the same frames as strace's (module and offset of every frame);
/// function names may differ where a symbol has aliases (strace's libdw
/// picks ELF aliases such as `__write`, rtrace the DWARF name).
#[test]
fn stack_traces_match_strace_k() {
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    let p = testprog("stack_k");
    let run = |tool: &Path| -> Vec<String> {
        let out = Command::new(tool)
            .args(["-k", "-e", "trace=write"])
            .arg(&p)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter_map(|l| l.strip_prefix(" > "))
            .map(|l| {
                // "module(func+0xoff) [0xoffset]" -> "module [0xoffset]"
                let module = l.split('(').next().unwrap_or("");
                let off = l.rsplit(' ').next().unwrap_or("");
                format!("{module} {off}")
            })
            .collect()
    };
    let a = run(Path::new("strace"));
    let b = run(&rstrace());
    if a.is_empty() {
        eprintln!("skip: this strace was built without -k support");
        return;
    }
    assert_eq!(a, b);
    assert!(b.iter().any(|l| l.contains("stack_k")), "{b:?}");
}

/// `rstrace -f -o x sh -c 'ls; true'` writes what strace writes.
#[test]
fn sh_c_ls_true_as_in_the_issue() {
    compare("sh_ls_true", &["sh", "-c", "ls; true"]);
}

/// `rstrace -c ls /`: the same syscalls with the same call and error counts
/// as `strace -c ls /` (times differ run to run; rows are compared by name).
#[test]
fn summary_of_ls_matches_strace_c() {
    if !have("strace") {
        eprintln!("skip: strace is not installed");
        return;
    }
    let rows = |tool: &Path| -> Vec<(String, String, String)> {
        let out = Command::new(tool).args(["-c", "ls", "/"]).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stderr).into_owned();
        let mut v: Vec<(String, String, String)> = text
            .lines()
            .skip(2)
            .filter(|l| !l.starts_with("---"))
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                // % time, seconds, usecs/call, calls, [errors], name
                let name = f.last().unwrap().to_string();
                let calls = f[3].to_string();
                let errors = if f.len() == 6 {
                    f[4].to_string()
                } else {
                    String::new()
                };
                (name, calls, errors)
            })
            .collect();
        v.sort();
        v
    };
    let a = rows(Path::new("strace"));
    let b = rows(&rstrace());
    assert_eq!(a, b);
    assert!(b.iter().any(|r| r.0 == "total"));
}

/// A clone cut in two by another process's line is cut where strace cuts
/// it: `flags=…|SIGCHLD <unfinished ...>` and `<... clone resumed>,
/// child_tidptr=…` (clone prints the separator at exit), while calls that
/// print it at entry keep `read(3,  <unfinished ...>`.
#[test]
fn clone_is_cut_where_strace_cuts_it() {
    let unfinished =
        Regex::new(r"clone\(child_stack=NULL, flags=[A-Z_|]+ <unfinished \.\.\.>$").unwrap();
    let resumed =
        Regex::new(r"<\.\.\. clone resumed>, child_tidptr=0x[0-9a-f]+\) += \d+$").unwrap();
    let mut tools = vec![rstrace()];
    if have("strace") {
        tools.push("strace".into());
    }
    for tool in tools {
        // The cut depends on timing: run until one happens (8 children
        // that start with syscalls of their own while the shell forks on).
        let mut cuts = 0;
        for _ in 0..10 {
            let out = Command::new(&tool)
                .args(["-f", "sh", "-c"])
                .arg("for i in 1 2 3 4 5 6 7 8; do /bin/true & done; wait")
                .output()
                .expect("run");
            let text = String::from_utf8_lossy(&out.stderr).into_owned();
            // `clone(` and `clone resumed`, not a path that says "clone".
            for l in text
                .lines()
                .filter(|l| l.contains("clone(") || l.contains("clone resumed>"))
            {
                if l.contains("unfinished") {
                    assert!(unfinished.is_match(l), "{}: {l}\n{text}", tool.display());
                    cuts += 1;
                } else if l.contains("resumed") {
                    assert!(resumed.is_match(l), "{}: {l}\n{text}", tool.display());
                }
            }
            if cuts > 0 {
                break;
            }
        }
        assert!(
            cuts > 0,
            "{}: no clone line was ever cut in 10 runs",
            tool.display()
        );
    }
}
