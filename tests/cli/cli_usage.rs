//! What a new user meets first: `rtrace --version`, each native
//! subcommand's `--help` (usage, every option described, examples), a bad
//! option (the error, the usage line, exit 2), a command that does not
//! exist (`rtrace stat`: the error, no table), and a reader that goes away
//! (`rtrace export … | head`: rtrace dies quietly of SIGPIPE).

use crate::common;

use common::child::{run, temp_path};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

#[test]
fn version_of_every_binary() {
    let want = env!("CARGO_PKG_VERSION");
    for flag in ["--version", "-V"] {
        let (st, out, err) = run(&common::rtrace(), &[flag]);
        assert_eq!(st.code(), Some(0), "{flag}: {err}");
        assert_eq!(out, format!("rtrace {want}\n"), "{flag}");
        for tool in [common::rstrace(), common::rltrace()] {
            let (st, out, _) = run(&tool, &[flag]);
            assert_eq!(st.code(), Some(0), "{tool:?} {flag}");
            let name = tool.file_name().unwrap().to_str().unwrap().to_string();
            assert!(
                out.starts_with(&format!("{name} (rtrace) {want}\n")),
                "{out}"
            );
        }
    }
}

/// `rtrace SUB --help` and `-h`: the usage line first, then each option
/// (as given) with its description on the same line, and examples.
fn check_help(sub: &str, options: &[&str]) {
    let (st, long, err) = run(&common::rtrace(), &[sub, "--help"]);
    assert_eq!(st.code(), Some(0), "{sub}: {err}");
    let (st, short, _) = run(&common::rtrace(), &[sub, "-h"]);
    assert_eq!(st.code(), Some(0));
    assert_eq!(short, long, "{sub}: -h and --help differ");
    assert!(long.starts_with(&format!("usage: rtrace {sub} ")), "{long}");
    for o in options.iter().chain(&["-h, --help"]) {
        let line = long
            .lines()
            .find(|l| l.trim_start().starts_with(o))
            .unwrap_or_else(|| panic!("{sub}: no line for {o}:\n{long}"));
        let desc = line.trim_start()[o.len()..].trim();
        assert!(desc.len() > 8, "{sub}: {o} has no description: {line:?}");
    }
    let examples = long.split("examples:").nth(1).unwrap_or("");
    assert!(
        examples
            .lines()
            .filter(|l| l.trim_start().starts_with(&format!("rtrace {sub} ")))
            .count()
            >= 2,
        "{sub}: examples\n{long}"
    );
    // A bad option: the error, then the usage line, exit status 2.
    let (st, out, err) = run(&common::rtrace(), &[sub, "--no-such-option"]);
    assert_eq!(st.code(), Some(2), "{sub}: {err}");
    assert_eq!(out, "");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{sub}: {err}");
    assert!(lines[0].contains("--no-such-option"), "{err}");
    assert_eq!(lines[1], long.lines().next().unwrap(), "{sub}: usage line");
}

#[test]
fn stat_report_diff_have_full_help() {
    check_help("stat", &["-e EVENT[,...]", "-r N", "-p PID"]);
    check_help("report", &["--json", "--normalize", "--top N"]);
    check_help("diff", &["--json", "-C, --context N"]);
}

#[test]
fn stat_of_a_missing_program_is_an_error_without_a_table() {
    let (st, out, err) = run(&common::rtrace(), &["stat", "--", "/no/such/program"]);
    // As rstrace, rltrace, rtrace break, watch and record: 1.
    assert_eq!(st.code(), Some(1), "{err}");
    assert_eq!(out, "");
    assert_eq!(
        err,
        "rtrace stat: /no/such/program: No such file or directory (os error 2)\n"
    );
    for tool in [vec!["break", "main"], vec!["record", "-o", "/dev/null"]] {
        let mut args = tool.clone();
        args.extend(["--", "/no/such/program"]);
        let (st, _, err) = run(&common::rtrace(), &args);
        assert_eq!(st.code(), Some(1), "{args:?}: {err}");
    }
    let (st, _, _) = run(&common::rstrace(), &["/no/such/program"]);
    assert_eq!(st.code(), Some(1));
}

#[test]
fn export_to_a_closed_pipe_dies_quietly_of_sigpipe() {
    let file = temp_path("cli-usage.rtrace");
    let (st, _, err) = run(
        &common::rtrace(),
        &["record", "-k", "-o", file.to_str().unwrap(), "--", "true"],
    );
    assert!(st.success(), "{err}");
    for (sub, args) in [
        ("export", vec!["--format", "folded"]),
        ("export", vec!["--format", "chrome"]),
        ("report", vec![]),
    ] {
        // A pipe whose reader is gone before rtrace writes (`| head -1`
        // that has had its line).
        let mut fds = [0; 2];
        // SAFETY: fds is a valid 2-int array. Close-on-exec: a command
        // another test starts meanwhile must not get the read end.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        // SAFETY: closing the read end we own; the write end becomes the
        // child's stdout (owned by the Stdio from here on).
        let stdout = unsafe {
            libc::close(fds[0]);
            <Stdio as std::os::fd::FromRawFd>::from_raw_fd(fds[1])
        };
        let o = common::named(common::rtrace())
            .arg(sub)
            .args(&args)
            .arg(&file)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err, "", "{sub} {args:?}");
        assert_eq!(
            o.status.signal(),
            Some(libc::SIGPIPE),
            "{sub} {args:?}: {:?}",
            o.status
        );
    }
    std::fs::remove_file(&file).unwrap();
}
