//! rstrace's output files and multi-task options (`-o`, `-A`, `-ff`, `-f`,
//! `-q`, `-b execve`, `-E`, `-u`) against the installed strace (helpers in
//! strace_opts_util; skipped when strace is not installed).

use crate::strace_opts_util;

use regex_lite::Regex;
use std::collections::BTreeMap;
use std::path::Path;
use strace_opts_util::*;

/// `<... resumed>` joined, normalised; `task_of` splits a line into its
/// task key and the rest.
fn per_task(
    text: &str,
    tracer: u32,
    task_of: &dyn Fn(&str) -> (String, String),
) -> BTreeMap<String, Vec<String>> {
    let pids = pids_in(text, tracer);
    let mut pending: BTreeMap<String, String> = BTreeMap::new();
    let mut tasks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let resumed = Regex::new(r"^<\.\.\. [a-z0-9_]+ resumed>").unwrap();
    let spaces = Regex::new(r"\) +=").unwrap();
    for raw in text.lines() {
        let (task, rest) = task_of(raw);
        let full = if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(task.clone(), head.to_string());
            continue;
        } else if let Some(head) = rest.strip_suffix(" <detached ...>") {
            // -b execve: the task's last line, cut where it was let go.
            head.to_string()
        } else if let Some(m) = resumed.find(&rest) {
            let head = pending.remove(&task).unwrap_or_default();
            format!("{head}{}", &rest[m.end()..])
        } else {
            rest
        };
        // Alignment depends on where a line was split.
        let full = spaces.replace(&full, ") =").into_owned();
        tasks
            .entry(task)
            .or_default()
            .push(normalize_line(&full, &pids));
    }
    // A call cut by a detach (-b execve) is never resumed: it ends its task
    // whether another task's line or the detach ended its line.
    for (task, head) in pending {
        let full = normalize_line(&head, &pids);
        tasks.entry(task).or_default().push(full);
    }
    tasks
}

/// Sorted task sequences, for comparing traces whose pids differ.
fn sequences(tasks: BTreeMap<String, Vec<String>>) -> Vec<Vec<String>> {
    let mut v: Vec<Vec<String>> = tasks.into_values().collect();
    v.sort();
    v
}

fn assert_tasks(name: &str, a: Vec<Vec<String>>, b: Vec<Vec<String>>) {
    assert_eq!(
        a.len(),
        b.len(),
        "{name}: number of tasks differs:\n{a:#?}\n{b:#?}"
    );
    for (sa, sb) in a.iter().zip(&b) {
        assert_lines(name, "task", sa, sb);
    }
}

/// `-o FILE -f` lines: `PID  ` (pid left-aligned in five columns, a space).
fn pid_column(line: &str) -> (String, String) {
    let c = Regex::new(r"^(\d+) +")
        .unwrap()
        .captures(line)
        .unwrap_or_else(|| panic!("no pid column: {line:?}"));
    let pid = c[1].to_string();
    assert_eq!(&c[0], format!("{pid:<5} "), "pid column format: {line:?}");
    (pid, line[c[0].len()..].to_string())
}

#[test]
fn output_file() {
    if strace_missing() {
        return;
    }
    let args = basic(&["-o", "trace.out"]);
    let (a, b, dir) = pair("o", &refs(&args));
    // stderr is strace's, written by the tracer after the file (none here).
    assert_eq!(a.stderr, "");
    assert_eq!(b.stderr, "");
    // Both wrote the same file name; each run truncated it, so read each
    // right after its run.
    let one = |tool: &Path| {
        let out = run_in(tool, &refs(&args), &dir, &[]);
        let text = std::fs::read_to_string(dir.join("trace.out")).unwrap();
        norm_lines(&text, out.pid)
    };
    assert_lines("o", "file", &one(Path::new("strace")), &one(&rstrace()));
}

#[test]
fn output_append() {
    if strace_missing() {
        return;
    }
    let args = basic(&["-A", "-o", "trace.out", "-e", "trace=read,write"]);
    let dir = test_dir("A");
    let one = |tool: &Path| {
        std::fs::write(dir.join("trace.out"), "previous line\n").unwrap();
        let out = run_in(tool, &refs(&args), &dir, &[]);
        assert_eq!(out.stderr, "");
        let text = std::fs::read_to_string(dir.join("trace.out")).unwrap();
        assert!(
            text.starts_with("previous line\n"),
            "-A truncated the file: {text}"
        );
        norm_lines(&text, out.pid)
    };
    assert_lines("A", "file", &one(Path::new("strace")), &one(&rstrace()));
    // Without -o, -A only warns.
    let (a, b) = compare_basic("A_no_o", &["-A", "-e", "trace=write"]);
    assert!(a
        .stderr
        .starts_with("strace: -A/--output-append-mode has no effect without -o/--output\n"));
    assert!(b
        .stderr
        .starts_with("rstrace: -A/--output-append-mode has no effect"));
}

#[test]
fn output_pipe() {
    if strace_missing() {
        return;
    }
    let args = basic(&["-o", "|cat > piped.out", "-e", "trace=read,write,close"]);
    let dir = test_dir("o_pipe");
    let one = |tool: &Path| {
        let out = run_in(tool, &refs(&args), &dir, &[]);
        let text = std::fs::read_to_string(dir.join("piped.out")).unwrap();
        norm_lines(&text, out.pid)
    };
    assert_lines(
        "o_pipe",
        "piped output",
        &one(Path::new("strace")),
        &one(&rstrace()),
    );
}

#[test]
fn follow_to_file() {
    if strace_missing() {
        return;
    }
    let p = prog();
    let dir = test_dir("f_o");
    let one = |tool: &Path, extra: &[&str]| {
        let mut args = vec!["-f", "-o", "trace.out"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&[&p, "fork"]);
        let out = run_in(tool, &args, &dir, &[]);
        let text = std::fs::read_to_string(dir.join("trace.out")).unwrap();
        let tasks = sequences(per_task(&text, out.pid, &pid_column));
        (out, tasks)
    };
    for extra in [
        &[][..],
        &["-q"],
        &["-qq"],
        &["-e", "quiet=none"],
        &["-e", "trace=!set_robust_list"],
    ] {
        let (oa, a) = one(Path::new("strace"), extra);
        let (ob, b) = one(&rstrace(), extra);
        assert_eq!(oa.code, ob.code);
        let name = format!("f_o {extra:?}");
        assert_tasks(&name, a, b);
        // Attach notices go to stderr, only when asked for (-o implies -q).
        let notices = |s: &str| {
            Regex::new(r"(?m)^r?strace: Process \d+ attached$")
                .unwrap()
                .find_iter(s)
                .count()
        };
        assert_eq!(
            notices(&oa.stderr),
            notices(&ob.stderr),
            "{name}: attach notices\n{}\n{}",
            oa.stderr,
            ob.stderr
        );
    }
}

#[test]
fn output_separately() {
    if strace_missing() {
        return;
    }
    let p = prog();
    for (name, opts) in [
        ("ff", &["-ff"][..]),
        (
            "output_separately",
            &["--follow-forks", "--output-separately"],
        ),
    ] {
        let dir = test_dir(name);
        let one = |tool: &Path, sub: &str| {
            let d = dir.join(sub);
            std::fs::create_dir_all(&d).unwrap();
            let mut args = opts.to_vec();
            args.extend_from_slice(&["-o", "trace", &p, "fork"]);
            let out = run_in(tool, &args, &d, &[]);
            assert_eq!(out.stderr, "", "{name}: stderr");
            let mut files = Vec::new();
            for e in std::fs::read_dir(&d).unwrap() {
                let f = e.unwrap().file_name().to_string_lossy().into_owned();
                let pid = f
                    .strip_prefix("trace.")
                    .unwrap_or_else(|| panic!("{name}: stray file {f}"));
                assert!(pid.parse::<u32>().is_ok(), "{name}: file name {f}");
                let text = std::fs::read_to_string(d.join(&f)).unwrap();
                assert!(
                    !Regex::new(r"(?m)^\d+ ").unwrap().is_match(&text),
                    "{name}: pid column in {f}"
                );
                let mut pids = pids_in(&text, out.pid);
                pids.insert(pid.to_string());
                files.push(
                    text.lines()
                        .map(|l| normalize_line(l, &pids))
                        .collect::<Vec<_>>(),
                );
            }
            files.sort();
            (out.code, files)
        };
        let (ca, a) = one(Path::new("strace"), "strace");
        let (cb, b) = one(&rstrace(), "rstrace");
        assert_eq!(ca, cb);
        assert_eq!(a.len(), 2, "{name}: one file per process");
        assert_tasks(name, a, b);
    }
}

/// A `-f` trace on stderr: checks the `[pid N]` rule and returns the
/// per-task sequences. Prefixed lines must form one block that ends with the
/// child's exit (while the parent waits for it, two tasks are traced).
fn stderr_tasks(name: &str, o: &Out, child_status: &str) -> (usize, Vec<Vec<String>>) {
    let notice = Regex::new(r"r?strace: Process \d+ attached\n").unwrap();
    let attached = notice.find_iter(&o.stderr).count();
    let text = notice.replace_all(&o.stderr, "").into_owned();
    let prefix = Regex::new(r"^\[pid +(\d+)\] ").unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let flags: Vec<bool> = lines.iter().map(|l| prefix.is_match(l)).collect();
    let first = flags.iter().position(|f| *f);
    let last = flags.iter().rposition(|f| *f);
    let mut child = String::new();
    if let (Some(f), Some(l)) = (first, last) {
        assert!(
            flags[f..=l].iter().all(|x| *x),
            "{name}: unprefixed line among prefixed ones:\n{text}"
        );
        // The child's last line is its exit. The parent's lines may keep
        // their prefix a little after it: the parent can reap the child
        // (wait4) before rstrace sees the exit, as with strace.
        let is_exit = |rest: &str| {
            rest == format!("+++ exited with {child_status} +++")
                || rest.starts_with(&format!("exit_group({child_status})"))
        };
        let e = (f..=l)
            .rev()
            .find(|&i| {
                let c = prefix.captures(lines[i]).unwrap();
                is_exit(&lines[i][c[0].len()..])
            })
            .unwrap_or_else(|| panic!("{name}: prefixes end with the child's exit:\n{text}"));
        let c = prefix.captures(lines[e]).unwrap();
        let pid: u32 = c[1].parse().unwrap();
        assert_eq!(&c[0], format!("[pid {pid:5}] "), "{name}: prefix format");
        assert!(
            lines[e + 1..=l]
                .iter()
                .all(|x| prefix.captures(x).unwrap()[1] != c[1]),
            "{name}: prefixes end with the child's exit:\n{text}"
        );
        child = c[1].to_string();
    }
    let task_of = |l: &str| -> (String, String) {
        match prefix.captures(l) {
            Some(c) if c[1] == child => ("child".into(), l[c[0].len()..].to_string()),
            Some(c) => ("parent".into(), l[c[0].len()..].to_string()),
            None => ("parent".into(), l.to_string()),
        }
    };
    (attached, sequences(per_task(&text, o.pid, &task_of)))
}

#[test]
fn follow_to_stderr() {
    if strace_missing() {
        return;
    }
    let p = prog();
    for (name, extra) in [
        ("f", &[][..]),
        ("f_q", &["-q"]),
        ("f_qq", &["-qq"]),
        ("f_qqq", &["-qqq"]),
        ("f_quiet_exit", &["-e", "quiet=exit"]),
        ("f_quiet_attach", &["--quiet=attach"]),
        ("f_quiet_not_attach", &["-e", "quiet=!attach"]),
    ] {
        let mut args = vec!["-f"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&[&p, "fork"]);
        let (a, b, _) = pair(name, &args);
        let status = "3";
        let (na, ta) = stderr_tasks(name, &a, status);
        let (nb, tb) = stderr_tasks(name, &b, status);
        assert_eq!(
            na, nb,
            "{name}: number of attach notices\n{}\n{}",
            a.stderr, b.stderr
        );
        assert_tasks(name, ta, tb);
    }
}

#[test]
fn quiet_single_task() {
    if strace_missing() {
        return;
    }
    compare_basic("q", &["-q"]);
    compare_basic("qq", &["-qq"]);
    compare_basic("quiet_exit", &["-e", "quiet=exit"]);
    compare_basic("quiet_exits", &["-e", "quiet=exits,attach"]);
    compare_basic("quiet_all", &["-e", "quiet=all"]);
    compare_basic("silent", &["--silent=exit"]);
}

#[test]
fn detach_on_execve() {
    if strace_missing() {
        return;
    }
    let p = prog();
    // To a file: the execve line ends with " <detached ...>", the child's
    // exit is not traced.
    let dir = test_dir("b_o");
    let one = |tool: &Path| {
        let out = run_in(
            tool,
            &["-f", "-b", "execve", "-o", "trace.out", &p, "exec"],
            &dir,
            &[],
        );
        assert_eq!(out.stderr, "");
        let text = std::fs::read_to_string(dir.join("trace.out")).unwrap();
        assert!(
            Regex::new(r"/\* 2 vars \*/ <(detached|unfinished) \.\.\.>\n")
                .unwrap()
                .is_match(&text),
            "-b execve: {text}"
        );
        let tasks = sequences(per_task(&text, out.pid, &pid_column));
        (out, tasks)
    };
    let (oa, a) = one(Path::new("strace"));
    let (ob, b) = one(&rstrace());
    assert_eq!(oa.stdout, ob.stdout);
    assert_tasks("b_o", a, b);
    // On stderr: "Process N detached" before " <detached ...>".
    let (a, b, _) = pair("b", &["-f", "-b", "execve", &p, "exec"]);
    for o in [&a, &b] {
        assert!(
            Regex::new(r"/\* 2 vars \*/(r?strace: Process \d+ detached\n <detached| <unfinished)")
                .unwrap()
                .is_match(&o.stderr)
                && Regex::new(r"r?strace: Process \d+ detached\n")
                    .unwrap()
                    .is_match(&o.stderr),
            "-b execve on stderr:\n{}",
            o.stderr
        );
    }
    // The launched command's first exec is not a reason to detach.
    let (a, b, _) = pair(
        "b_launched",
        &[
            "-b",
            "execve",
            "-e",
            "trace=execve,getuid,exit_group",
            &p,
            "env",
        ],
    );
    assert_eq!(norm_lines(&a.stderr, a.pid), norm_lines(&b.stderr, b.pid));
}

// ---------------------------------------------------------------------------
// Startup: environment and user.

#[test]
fn environment() {
    if strace_missing() {
        return;
    }
    let p = prog();
    let (a, _) = compare(
        "E",
        &[
            "-E",
            "OPT_A=hello world",
            "-E",
            "OPT_ENV",
            "-E",
            "PATH=/bin",
            &p,
            "env",
            "OPT_A",
            "OPT_ENV",
            "PATH",
        ],
    );
    assert_eq!(a.stdout, "OPT_A=hello world\nOPT_ENV unset\nPATH=/bin\n");
    compare(
        "E_verbose",
        &[
            "-v",
            "-e",
            "trace=execve",
            "--env=OPT_B=1",
            &p,
            "env",
            "OPT_B",
        ],
    );
}

/// strace replaces a variable `-E` sets in place; rstrace's launcher
/// (src/engine/spawn.rs) moves it to the end of the environment, which
/// `-v` shows in the execve line.
#[test]
fn environment_order() {
    if strace_missing() {
        return;
    }
    let p = prog();
    compare(
        "E_order",
        &[
            "-v",
            "-e",
            "trace=execve",
            "-E",
            "PATH=/bin",
            &p,
            "env",
            "PATH",
        ],
    );
}

#[test]
fn run_as_user() {
    if strace_missing() {
        return;
    }
    let root = std::fs::read_to_string("/proc/self/status")
        .map(|s| {
            s.lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false);
    if !root
        || std::process::Command::new("id")
            .arg("nobody")
            .output()
            .map(|o| !o.status.success())
            .unwrap_or(true)
    {
        eprintln!("skip: -u needs root and a 'nobody' user");
        return;
    }
    let p = prog();
    let (a, b) = compare("u", &["-u", "nobody", &p, "env", "HOME"]);
    assert!(
        a.stderr
            .contains("getuid()                                = 65534"),
        "{}",
        a.stderr
    );
    assert_eq!(a.stdout, b.stdout);
}

// ---------------------------------------------------------------------------
