//! rtrace's targeted fault injection (`-e inject=…:path=GLOB`, `:argN OP V`,
//! `:fd OP V`, several rules per syscall): checked through what the traced
//! program itself saw. `testprogs/inject_paths.c` opens each argument with
//! a raw openat(2) and prints `PATH:ok` or `PATH:err=E` (a `c:` prefix opens
//! with O_WRONLY|O_CREAT); the dynamic linker's own openat calls come first
//! and must never be hit by a path or argument condition.

use crate::common;

use common::{rstrace, testprog};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory with `a.conf`, `b.conf`, `c.txt` and `sub/d.conf`.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rtrace-injt-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(d.join("sub")).unwrap();
    for f in ["a.conf", "b.conf", "c.txt", "sub/d.conf"] {
        std::fs::write(d.join(f), "x\n").unwrap();
    }
    d
}

fn run(args: &[String], files: &[String]) -> Output {
    common::named(rstrace())
        .args(args)
        .arg(testprog("inject_paths"))
        .args(files)
        .output()
        .expect("run rstrace")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn p(d: &Path, f: &str) -> String {
    d.join(f).to_string_lossy().into_owned()
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The program's verdict for each argument, in order.
fn verdicts(o: &Output) -> Vec<String> {
    text(&o.stdout).lines().map(str::to_string).collect()
}

#[test]
fn a_path_glob_hits_only_matching_opens() {
    let d = scratch("glob");
    let files = vec![
        p(&d, "a.conf"),
        p(&d, "c.txt"),
        p(&d, "sub/d.conf"),
        p(&d, "b.conf"),
    ];
    let spec = format!("inject=openat:error=ENOENT:path={}/*.conf", d.display());
    let o = run(&strs(&["-e", "trace=openat", "-e", &spec]), &files);
    assert!(o.status.success(), "{o:?}");
    // `*` does not cross '/': sub/d.conf opens; the linker's opens are untouched.
    assert_eq!(
        verdicts(&o),
        [
            format!("{}:err=2", files[0]),
            format!("{}:ok", files[1]),
            format!("{}:ok", files[2]),
            format!("{}:err=2", files[3]),
        ],
        "{}",
        text(&o.stderr)
    );
    let err = text(&o.stderr);
    let injected: Vec<&str> = err.lines().filter(|l| l.ends_with("(INJECTED)")).collect();
    assert_eq!(injected.len(), 2, "{err}");
    assert!(injected[0].contains(&format!("\"{}\"", files[0])), "{err}");
    assert!(
        err.lines().any(|l| l.starts_with("openat(")
            && l.contains("libc.so")
            && !l.ends_with("(INJECTED)")),
        "{err}"
    );
    // `**` crosses '/'.
    let spec = format!("inject=openat:error=EACCES:path={}/**.conf", d.display());
    let o = run(&strs(&["-e", &spec]), &files);
    assert_eq!(
        verdicts(&o),
        [
            format!("{}:err=13", files[0]),
            format!("{}:ok", files[1]),
            format!("{}:err=13", files[2]),
            format!("{}:err=13", files[3]),
        ]
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn two_rules_on_one_syscall_both_fire_and_the_first_wins() {
    let d = scratch("two");
    let (a, b) = (p(&d, "a.conf"), p(&d, "b.conf"));
    let files = vec![a.clone(), b.clone(), format!("c:{a}"), a.clone(), b.clone()];
    let o = run(
        &strs(&[
            "-e",
            &format!("inject=openat:error=ENOENT:path={a}"),
            "-e",
            &format!("inject=openat:error=EACCES:path={b}:when=2"),
            "-e",
            "inject=openat:error=EROFS:arg3&0100",
        ]),
        &files,
    );
    assert!(o.status.success(), "{o:?}");
    // Rule 1 takes every open of a.conf, including the O_CREAT one that
    // rule 3 also matches (the first rule that fires wins); rule 2 fires at
    // the second open of b.conf only.
    assert_eq!(
        verdicts(&o),
        [
            format!("{a}:err=2"),
            format!("{b}:ok"),
            format!("c:{a}:err=2"),
            format!("{a}:err=2"),
            format!("{b}:err=13"),
        ],
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn argument_conditions_and_counters_of_matching_calls() {
    let d = scratch("args");
    let (a, c) = (p(&d, "a.conf"), p(&d, "c.txt"));
    let files = vec![
        a.clone(),
        format!("c:{c}"),
        c.clone(),
        format!("c:{a}"),
        format!("c:{c}"),
    ];
    // O_CREAT (0100): only the creating opens are counted; the 2nd and
    // later of them fail.
    let o = run(
        &strs(&[
            "-e",
            "trace=openat",
            "-e",
            "inject=openat:error=EROFS:arg3&0100:when=2+",
        ]),
        &files,
    );
    assert_eq!(
        verdicts(&o),
        [
            format!("{a}:ok"),
            format!("c:{c}:ok"),
            format!("{c}:ok"),
            format!("c:{a}:err=30"),
            format!("c:{c}:err=30"),
        ],
        "{}",
        text(&o.stderr)
    );
    let marked = text(&o.stderr)
        .lines()
        .filter(|l| {
            l.contains("O_WRONLY|O_CREAT")
                && l.ends_with("= -1 EROFS (Read-only file system) (INJECTED)")
        })
        .count();
    assert_eq!(marked, 2, "{}", text(&o.stderr));
    // A descriptor condition: AT_FDCWD is -100 as a C int; all our opens
    // use it, so with the path condition the 3rd of ours fails, and the
    // opposite condition selects none of them.
    let under = format!("path={}/**", d.display());
    let o = run(
        &strs(&[
            "-e",
            &format!("inject=openat:error=EPERM:fd=-100:{under}:when=3"),
        ]),
        &files,
    );
    let v = verdicts(&o);
    assert_eq!(v[2], format!("{c}:err=1"), "{v:?}");
    assert_eq!(
        v.iter().filter(|l| l.ends_with(":err=1")).count(),
        1,
        "{v:?}"
    );
    let o = run(
        &strs(&["-e", &format!("inject=openat:error=EPERM:fd!=-100:{under}")]),
        &files,
    );
    assert!(verdicts(&o).iter().all(|l| l.ends_with(":ok")), "{o:?}");
    // `arg3=0` (O_RDONLY exactly) with `!=`: every non-read-only open fails.
    let o = run(
        &strs(&[
            "-e",
            &format!("inject=openat:error=EIO:arg3!=0:path={}/**", d.display()),
        ]),
        &files,
    );
    assert_eq!(
        verdicts(&o),
        [
            format!("{a}:ok"),
            format!("c:{c}:err=5"),
            format!("{c}:ok"),
            format!("c:{a}:err=5"),
            format!("c:{c}:err=5"),
        ]
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn json_marks_targeted_injections() {
    let d = scratch("json");
    let files = vec![p(&d, "c.txt"), p(&d, "a.conf")];
    let spec = format!("inject=openat:error=ENOENT:path={}/*.conf", d.display());
    let o = run(
        &strs(&["--json", "-e", "trace=openat", "-e", &spec]),
        &files,
    );
    let recs: Vec<serde_json::Value> = text(&o.stderr)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v["syscall"] == "openat")
        .collect();
    let ours: Vec<&serde_json::Value> = recs
        .iter()
        .filter(|r| {
            r["args"][1]
                .as_str()
                .is_some_and(|s| s.starts_with(&*d.to_string_lossy()))
        })
        .collect();
    assert_eq!(ours.len(), 2, "{}", text(&o.stderr));
    assert_eq!(ours[0].get("injected"), None);
    assert_eq!(ours[1]["injected"], true);
    assert_eq!(ours[1]["errno"], "ENOENT");
    assert_eq!(recs.iter().filter(|r| r["injected"] == true).count(), 1);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_targeted_specs_are_refused_clearly() {
    for (expr, msg) in [
        (
            "inject=openat:error=EIO:frob=1",
            "rstrace: invalid inject argument 'openat:error=EIO:frob=1': unknown key 'frob'",
        ),
        (
            "inject=openat:error=EIO:path=/etc/[ab",
            "rstrace: invalid inject argument 'openat:error=EIO:path=/etc/[ab': unterminated '[' in glob '/etc/[ab'",
        ),
        (
            "inject=openat:error=EIO:path=/a:path=/b",
            "rstrace: invalid inject argument 'openat:error=EIO:path=/a:path=/b': conflicting path= conditions",
        ),
        (
            "inject=openat:error=EIO:arg3=1:arg3=2",
            "rstrace: invalid inject argument 'openat:error=EIO:arg3=1:arg3=2': conflicting conditions on arg3",
        ),
        (
            "inject=openat:error=EIO:arg9=1",
            "rstrace: invalid inject argument 'openat:error=EIO:arg9=1': 'arg9': arguments are numbered arg1 to arg6",
        ),
        (
            "inject=openat:error=EIO:fd=three",
            "rstrace: invalid inject argument 'openat:error=EIO:fd=three': 'fd=three': 'three' is not a number",
        ),
        (
            "inject=getpid:error=EIO:path=/x",
            "rstrace: invalid inject argument 'getpid:error=EIO:path=/x': no syscall in the set takes a path argument",
        ),
        (
            "fault=openat:path=/x:when=0",
            "rstrace: invalid fault argument 'openat:path=/x:when=0'",
        ),
    ] {
        let o = run(&strs(&["-e", expr]), &["/dev/null".to_string()]);
        assert_eq!(o.status.code(), Some(1), "{expr}");
        assert_eq!(text(&o.stderr).lines().next(), Some(msg), "{expr}");
        assert_eq!(text(&o.stderr).lines().count(), 1, "{expr}");
        assert!(o.stdout.is_empty(), "{expr}: the program must not run");
    }
}
