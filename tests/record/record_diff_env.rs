//! `rtrace diff` keeps environment probes out of the first divergence: a
//! program that looks at its stdout (isatty, fstat, fcntl F_GETFL, lseek)
//! and then opens `config.h`, recorded with stdout a pipe, a file and a
//! terminal (a pty).

use crate::common;

use serde_json::Value;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory unique to this test process and call, with a config.h.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "rtrace_diffenv_{tag}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("config.h"), "#define HAVE_CONFIG 1\n").unwrap();
    d
}

/// Where the recorded command's stdout goes.
enum Stdout {
    Pipe,
    File(PathBuf),
    Pty,
}

/// A pty pair: (master, slave), both close-on-exec, so that no command
/// another test of this process starts meanwhile keeps the slave open (the
/// reader below waits for every slave descriptor to be closed).
fn pty() -> (File, File) {
    // SAFETY: posix_openpt opens /dev/ptmx with these flags.
    let master = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC) };
    assert!(
        master >= 0,
        "posix_openpt: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: the descriptor was just opened and is owned by nothing else.
    let master = unsafe { File::from_raw_fd(master) };
    // SAFETY: unlockpt and TIOCGPTPEER take the master descriptor (and open
    // flags); the slave is a new descriptor.
    let slave = unsafe {
        assert_eq!(libc::unlockpt(master.as_raw_fd()), 0, "unlockpt");
        libc::ioctl(
            master.as_raw_fd(),
            libc::TIOCGPTPEER,
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        )
    };
    assert!(
        slave >= 0,
        "TIOCGPTPEER: {}",
        std::io::Error::last_os_error()
    );
    // SAFETY: the descriptor was just opened and is owned by nothing else.
    (master, unsafe { File::from_raw_fd(slave) })
}

/// Records `env_probe config.h` in `dir` into `out` with stdout `to`;
/// returns the command's exit status and what it wrote to stdout.
fn record(dir: &Path, out: &Path, to: Stdout) -> (i32, String) {
    let prog = common::testprog("env_probe");
    let mut cmd = Command::new(common::rtrace());
    cmd.current_dir(dir)
        .arg("record")
        .arg("-o")
        .arg(out)
        .arg("--")
        .arg(&prog)
        .arg("config.h")
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    match to {
        Stdout::Pipe => {
            let o = cmd.stdout(Stdio::piped()).output().unwrap();
            (
                o.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&o.stdout).into_owned(),
            )
        }
        Stdout::File(path) => {
            let o = cmd.stdout(File::create(&path).unwrap()).output().unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            (o.status.code().unwrap_or(-1), text)
        }
        Stdout::Pty => {
            let (mut master, slave) = pty();
            // Drain the terminal until every slave descriptor is closed
            // (read then fails with EIO).
            let reader = std::thread::spawn(move || {
                let mut v = Vec::new();
                let _ = std::io::Read::read_to_end(&mut master, &mut v);
                String::from_utf8_lossy(&v).into_owned()
            });
            let o = cmd.stdout(slave).output().unwrap();
            drop(cmd);
            (o.status.code().unwrap_or(-1), reader.join().unwrap())
        }
    }
}

fn diff(a: &Path, b: &Path, extra: &[&str]) -> Output {
    Command::new(common::rtrace())
        .arg("diff")
        .arg(a)
        .arg(b)
        .args(extra)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The lines after "> " in the text report (the first divergence).
fn marked(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("> "))
        .collect()
}

/// The environment probe entries of a `--json` report whose A or B call
/// starts with `call`: (A text, B text), "" for a call not made.
fn env_entries(v: &Value, call: &str) -> Vec<(String, String)> {
    let text = |x: &Value| x["text"].as_str().unwrap_or("").to_string();
    v["environment_differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (text(&e["a"]), text(&e["b"])))
        .filter(|(a, b)| a.starts_with(call) || b.starts_with(call))
        .collect()
}

#[test]
fn missing_config_is_the_first_divergence_not_stdout() {
    let d = scratch("missing");
    let (a, b) = (d.join("pipe.rtrace"), d.join("file.rtrace"));
    let (code, out) = record(&d, &a, Stdout::Pipe);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("stdout is a pipe"), "{out}");
    std::fs::remove_file(d.join("config.h")).unwrap();
    let (code, out) = record(&d, &b, Stdout::File(d.join("stdout.txt")));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("stdout is a file"), "{out}");

    let o = diff(&a, &b, &[]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    // The first divergence is the open of config.h, not a look at fd 1.
    let m = marked(&text);
    assert_eq!(m.len(), 2, "{text}");
    assert!(
        m[0].starts_with("openat(") && m[0].contains("\"config.h\"") && !m[0].contains("= -1"),
        "{text}"
    );
    assert!(
        m[1].starts_with("openat(") && m[1].ends_with("= -1 ENOENT (No such file or directory)"),
        "{text}"
    );
    assert!(text.contains(": different result\n"), "{text}");
    assert!(
        text.contains("  different results: 1 (openat 1)\n"),
        "{text}"
    );
    // The probes of fd 1 are listed apart, with both runs' values.
    let env = text
        .split("environment differences (")
        .nth(1)
        .unwrap_or_else(|| panic!("no environment section:\n{text}"));
    for probe in [
        "fcntl(1, F_GETFL)",
        "lseek(1, 0, SEEK_CUR)",
        "newfstatat(1, \"\"",
    ] {
        assert!(env.contains(&format!("A: {probe}")), "{probe}:\n{text}");
        assert!(env.contains(&format!("B: {probe}")), "{probe}:\n{text}");
    }
    assert!(text.ends_with("result: different\n"), "{text}");

    let o = diff(&a, &b, &["--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let first = &v["first_divergence"]["b"]["lines"][0]["text"];
    assert!(
        first.as_str().unwrap().contains("\"config.h\""),
        "{}",
        v["first_divergence"]
    );
    assert_eq!(v["environment_differs"], true);
    // fstat(1) by the program, then by stdio at the first printf.
    let stat = env_entries(&v, "newfstatat(1, ");
    assert_eq!(stat.len(), 2, "{v}");
    for (a, b) in &stat {
        assert!(a.contains("S_IFIFO") && b.contains("S_IFREG"), "{stat:?}");
    }
    let seek = env_entries(&v, "lseek(1, ");
    assert_eq!(seek.len(), 1, "{v}");
    assert!(
        seek[0].0.ends_with("= -1 ESPIPE (Illegal seek)"),
        "{seek:?}"
    );
    assert!(seek[0].1.ends_with("= 0"), "{seek:?}");
    // isatty's ioctl failed alike in both runs (neither is a terminal).
    assert!(env_entries(&v, "ioctl(1, TCGETS").is_empty(), "{v}");
    // Every entry names its probe and why it is one.
    for e in v["environment_differences"].as_array().unwrap() {
        assert!(e["probe"].is_string() && e["reason"].is_string(), "{e}");
        assert_eq!(e["process"], "0");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn only_the_terminal_differs() {
    let d = scratch("tty");
    let (a, b, c) = (
        d.join("pipe.rtrace"),
        d.join("pty.rtrace"),
        d.join("pipe2.rtrace"),
    );
    let (code, out) = record(&d, &a, Stdout::Pipe);
    assert_eq!(code, 0, "{out}");
    let (code, out) = record(&d, &b, Stdout::Pty);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("stdout is a terminal: yes"), "{out}");
    let (code, out) = record(&d, &c, Stdout::Pipe);
    assert_eq!(code, 0, "{out}");

    // Two runs through a pipe: nothing differs, environment included.
    let o = diff(&a, &c, &[]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("environment differences: none\n"), "{text}");
    assert!(
        text.ends_with("result: no meaningful difference\n"),
        "{text}"
    );

    // A pipe and a terminal: no behavioural divergence, exit status 0 (the
    // environment is not a meaningful difference), the probes listed.
    let o = diff(&a, &b, &[]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.contains("first divergence: none in the syscall sequences"),
        "{text}"
    );
    assert!(
        text.ends_with("result: no meaningful difference (the environment differs)\n"),
        "{text}"
    );
    assert!(text.contains(" fd 1: A 1 write, "), "{text}");
    assert!(text.contains("      A: ioctl(1, TCGETS, "), "{text}");
    let o = diff(&a, &b, &["--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["different"], false, "{v}");
    assert_eq!(v["first_divergence"], Value::Null);
    assert_eq!(v["environment_differs"], true);
    let tcgets = env_entries(&v, "ioctl(1, TCGETS");
    assert_eq!(tcgets.len(), 1, "{v}");
    assert!(tcgets[0].0.contains("ENOTTY"), "{tcgets:?}");
    assert!(tcgets[0].1.ends_with(") = 0"), "{tcgets:?}");
    let stat = env_entries(&v, "newfstatat(1, ");
    assert_eq!(stat.len(), 2, "{v}");
    for (a, b) in &stat {
        assert!(a.contains("S_IFIFO") && b.contains("S_IFCHR"), "{stat:?}");
    }
    // stdout is line-buffered on the terminal: four writes there, one
    // into the pipe; compared as a stream, reported, not a difference.
    let streams = v["output_streams"].as_array().unwrap();
    let fd1 = streams
        .iter()
        .find(|s| s["fd"] == 1)
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(
        (&fd1["a"]["writes"], &fd1["b"]["writes"]),
        (&1.into(), &4.into()),
        "{fd1}"
    );
    assert_eq!(v["syscalls_only_in_a"], serde_json::json!({}));
    assert_eq!(v["syscalls_only_in_b"], serde_json::json!({}));
    let _ = std::fs::remove_dir_all(&d);
}
