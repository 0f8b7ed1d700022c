//! What a new user meets first: `rtrace --version`, each native
//! subcommand's `--help` (usage, every option described, examples; every
//! subcommand in cli_clap.rs), a bad option (clap's error, the usage line,
//! exit 2), a command that does not
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
        // rstrace keeps strace's `-V` layout (strace72_options checks the
        // rest of it against strace 7.2); rltrace names the suite.
        let firsts = [
            (common::rstrace(), format!("rstrace -- version {want}\n")),
            (common::rltrace(), format!("rltrace (rtrace) {want}\n")),
        ];
        for (tool, first) in firsts {
            let (st, out, _) = run(&tool, &[flag]);
            assert_eq!(st.code(), Some(0), "{tool:?} {flag}");
            assert!(out.starts_with(&first), "{tool:?} {flag}: {out}");
        }
    }
}

/// `rtrace SUB --help` (clap's): the usage line, each option (as given,
/// e.g. `-e, --event <EVENT>`) with its description, and examples.
pub(crate) fn check_help(sub: &[&str], options: &[&str]) {
    let mut args = sub.to_vec();
    args.push("--help");
    let (st, long, err) = run(&common::rtrace(), &args);
    let name = sub.join(" ");
    assert_eq!(st.code(), Some(0), "{name}: {err}");
    assert!(
        long.contains(&format!("Usage: rtrace {name} ")),
        "{name}: usage\n{long}"
    );
    let lines: Vec<&str> = long.lines().collect();
    for o in options.iter().chain(&["-h, --help"]) {
        let i = lines
            .iter()
            .position(|l| l.trim_start().starts_with(o))
            .unwrap_or_else(|| panic!("{name}: no line for {o}:\n{long}"));
        // On the same line, or on the next one when the option is long.
        let mut desc = lines[i].trim_start()[o.len()..].trim();
        if desc.is_empty() {
            desc = lines.get(i + 1).map_or("", |l| l.trim());
        }
        assert!(
            desc.len() > 8,
            "{name}: {o} has no description: {:?}",
            lines[i]
        );
    }
    let examples = long.split("Examples:").nth(1).unwrap_or("");
    assert!(
        examples
            .lines()
            .filter(|l| l.trim_start().starts_with(&format!("rtrace {name}")))
            .count()
            >= 2,
        "{name}: examples\n{long}"
    );
    // A bad option: clap's error naming it, the usage line, exit status 2,
    // nothing on stdout.
    let mut args = sub.to_vec();
    args.push("--no-such-option");
    let (st, out, err) = run(&common::rtrace(), &args);
    assert_eq!(st.code(), Some(2), "{name}: {err}");
    assert_eq!(out, "");
    if name == "record" {
        // Options record does not know are rstrace's: its getopt parser
        // (strace's wording) refuses them.
        assert!(
            err.contains("unrecognized option '--no-such-option'"),
            "{err}"
        );
        return;
    }
    assert!(
        err.starts_with("error: unexpected argument '--no-such-option'"),
        "{err}"
    );
    assert!(err.contains(&format!("Usage: rtrace {name} ")), "{err}");
}

#[test]
fn stat_report_diff_have_full_help() {
    check_help(
        &["stat"],
        &["-e, --event <EVENT>", "-r, --repeat <N>", "-p, --pid <PID>"],
    );
    check_help(&["report"], &["--json", "--normalize", "--top <N>"]);
    check_help(&["diff"], &["--json", "-C, --context <N>"]);
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
