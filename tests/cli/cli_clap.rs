//! rtrace's clap command line (src/app/): every subcommand's `--help` has
//! its options described and examples; the spellings the old hand-written
//! parsers refused (`--opt=VALUE`, `-oFILE`); shell completions that the
//! shells parse; man pages for rtrace, each subcommand, rstrace and rltrace,
//! holding every option (rstrace's and rltrace's: every option their getopt
//! parsers accept).

use crate::cli_usage::check_help;
use crate::common;
use common::child::{run, temp_path};
use rtrace::app::{Cli, Cmd};
use rtrace::kernel::cli::KernelCmd;
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

fn parse(args: &[&str]) -> Cli {
    rtrace::app::parse(args.iter().map(OsString::from).collect())
        .unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

#[test]
fn every_subcommand_has_help_with_examples() {
    check_help(
        &["break"],
        &[
            "-c, --count",
            "-o, --output <FILE>",
            "-p, --pid <PID>",
            "--watch <EXPR>",
            "--rw",
            "--backend <BACKEND>",
            "-D, --describe",
            "--bt[=<N>]",
            "--past-main",
            "--max-hits <N>",
            "--tbreak",
            "--ignore <N>",
            "--print <EXPR>",
        ],
    );
    check_help(
        &["watch"],
        &[
            "--write",
            "--rw",
            "--exec",
            "--bt[=<N>]",
            "--past-main",
            "-c, --count",
            "-o, --output <FILE>",
            "-p, --pid <PID>",
        ],
    );
    check_help(&["kernel"], &[]);
    check_help(&["kernel", "list"], &[]);
    check_help(
        &["kernel", "trace"],
        &[
            "-e, --event <SUBSYS:EVENT>",
            "--filter <EXPR>",
            "--strings",
            "-c, --count",
            "--by <FIELD>",
            "--hist <FIELD>",
            "--json",
            "-o, --output <FILE>",
            "-p, --pid <PID>",
        ],
    );
    check_help(
        &["kernel", "probe"],
        &[
            "-c, --count",
            "--json",
            "-o, --output <FILE>",
            "-p, --pid <PID>",
        ],
    );
    check_help(
        &["kernel", "ftrace"],
        &[
            "-f, --function <GLOB>",
            "-n, --notrace <GLOB>",
            "--graph",
            "-c, --count",
            "--by <FIELD>",
        ],
    );
    check_help(&["kernel", "cleanup"], &["--all"]);
    check_help(
        &["record"],
        &[
            "-o, --output <FILE>",
            "--zstd",
            "--libcalls",
            "-p, --pid <PID>",
            "-k, --stack",
            "--probe <SPEC>",
        ],
    );
    check_help(
        &["export"],
        &[
            "-f, --format <FORMAT>",
            "--weight <WEIGHT>",
            "-o, --output <OUT>",
        ],
    );
    check_help(&["completions"], &[]);
    check_help(&["man"], &["--dir <DIR>"]);
    // rtrace itself: usage, every subcommand listed, examples.
    let (st, out, err) = run(&common::rtrace(), &["--help"]);
    assert_eq!(st.code(), Some(0), "{err}");
    for sub in SUBCOMMANDS {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(sub)),
            "{sub}\n{out}"
        );
    }
    assert!(out.contains("Examples:\n  rtrace "), "{out}");
}

/// The native subcommands and the passthroughs, as `rtrace --help` lists them.
const SUBCOMMANDS: &[&str] = &[
    "strace",
    "ltrace",
    "break",
    "watch",
    "kernel",
    "stat",
    "record",
    "report",
    "diff",
    "export",
    "completions",
    "man",
];

#[test]
fn spellings_the_old_parsers_refused() {
    let Cmd::Kernel(KernelCmd::Trace(t)) = parse(&[
        "kernel",
        "trace",
        "-e",
        "a:b",
        "--filter=x > 1",
        "--",
        "true",
    ])
    .cmd
    else {
        panic!("kernel trace");
    };
    assert_eq!(t.filter.as_deref(), Some("x > 1"));
    let Cmd::Break(b) = parse(&["break", "f", "--backend=kernel", "-oFILE", "--", "true"]).cmd
    else {
        panic!("break");
    };
    assert_eq!(b.backend, "kernel");
    assert_eq!(b.output, Some(OsString::from("FILE")));
    let o = b.check().unwrap();
    assert_eq!(o.backend, rtrace::probe::Backend::Kernel);
    let Cmd::Report(r) = parse(&["report", "--top=5", "run.rtrace"]).cmd else {
        panic!("report");
    };
    assert_eq!(r.top, 5);
    // One spelling per concept: --rw in break and watch; the old --awatch
    // stays (hidden) for scripts.
    let Cmd::Break(b) = parse(&["break", "f", "--watch", "v", "--rw", "-p", "1"]).cmd else {
        panic!("break --rw");
    };
    assert!(b.rw);
    let Cmd::Watch(w) = parse(&["watch", "v", "--awatch", "--pid=1"]).cmd else {
        panic!("watch --awatch");
    };
    assert!(w.rw);
    assert_eq!(w.pid, Some(1));
    // The passthroughs keep every argument, help flags included.
    let Cmd::Strace { args } = parse(&["strace", "-h", "-fe", "trace=open", "true"]).cmd else {
        panic!("strace");
    };
    assert_eq!(args, ["-h", "-fe", "trace=open", "true"]);
}

#[test]
fn accepted_spellings_run_and_bad_values_start_nothing() {
    // Through the binary: -oFILE and --backend=kernel reach the tool (which
    // then refuses a program without symbols: exit 2, not a usage error).
    let out = temp_path("clap-break-o.txt");
    let arg = format!("-o{}", out.display());
    let (st, _, err) = run(
        &common::rtrace(),
        &[
            "break",
            "nosuchfn",
            "--backend=kernel",
            &arg,
            "--list",
            "--",
            "/bin/true",
        ],
    );
    assert!(!err.contains("unexpected argument"), "{err}");
    assert_eq!(st.code(), Some(2), "{err}");
    // A bad value: clap's error, exit 2, no output file created.
    let _ = std::fs::remove_file(&out);
    let (st, _, err) = run(
        &common::rtrace(),
        &["break", "f", "--backend=bpf", &arg, "--", "true"],
    );
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(err.contains("invalid value 'bpf' for '--backend"), "{err}");
    assert!(!out.exists());
}

fn shell_ok(shell: &str, script: &Path) {
    let Ok(o) = Command::new(shell).arg("-n").arg(script).output() else {
        eprintln!("{shell} not installed: syntax not checked");
        return;
    };
    assert!(
        o.status.success(),
        "{shell} -n: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn completions_for_bash_zsh_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let (st, out, err) = run(&common::rtrace(), &["completions", shell]);
        assert_eq!(st.code(), Some(0), "{shell}: {err}");
        assert!(out.len() > 2000, "{shell}: {} bytes", out.len());
        for word in [
            "break", "watch", "kernel", "ftrace", "record", "backend", "hist",
        ] {
            assert!(out.contains(word), "{shell}: no {word}");
        }
        let file = temp_path(&format!("rtrace-completion.{shell}"));
        std::fs::write(&file, &out).unwrap();
        shell_ok(shell, &file);
        let _ = std::fs::remove_file(&file);
    }
    let (_, bash, _) = run(&common::rtrace(), &["completions", "bash"]);
    for sub in SUBCOMMANDS {
        assert!(
            bash.contains(&format!("rtrace__subcmd__{sub})")),
            "bash: {sub}"
        );
    }
    let (st, _, err) = run(&common::rtrace(), &["completions", "tcsh"]);
    assert_eq!(st.code(), Some(2), "{err}");
}

/// Long and short options of `cmd` as a man page shows them (`\-\-name`).
fn options_of(cmd: &clap::Command) -> Vec<String> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
        .map(|a| match (a.get_long(), a.get_short()) {
            (Some(l), _) => format!("\\-\\-{}", l.replace('-', "\\-")),
            (None, Some(s)) => format!("\\-{s}"),
            (None, None) => unreachable!(),
        })
        .collect()
}

/// Every page parses with groff (when installed) and `man -l` (when
/// installed), without warnings.
fn roff_ok(page: &Path) {
    if let Ok(o) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(page)
        .output()
    {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && err.trim().is_empty(),
            "groff {}: {err}",
            page.display()
        );
    }
    if let Ok(o) = Command::new("man")
        .arg("-l")
        .arg(page)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .output()
    {
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && text.contains("NAME"),
            "man -l {}: {}",
            page.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn man_pages_for_every_subcommand_with_every_option() {
    let dir = temp_path("rtrace-man");
    let _ = std::fs::remove_dir_all(&dir);
    let (st, out, err) = run(&common::rtrace(), &["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(st.code(), Some(0), "{err}");
    assert!(out.contains("pages in"), "{out}");
    let mut cmd = rtrace::app::command();
    cmd.build();
    let mut want = vec![("rtrace".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        want.push((format!("rtrace-{}", sub.get_name()), sub.clone()));
        for s2 in sub.get_subcommands().filter(|s| s.get_name() != "help") {
            want.push((
                format!("rtrace-{}-{}", sub.get_name(), s2.get_name()),
                s2.clone(),
            ));
        }
    }
    assert!(want.len() >= 18, "{}", want.len());
    for (name, c) in &want {
        let page = dir.join(format!("{name}.1"));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(text.contains(".SH SYNOPSIS"), "{name}");
        for o in options_of(c) {
            assert!(text.contains(&o), "{name}: no {o}");
        }
        roff_ok(&page);
    }
    // One page on stdout, by subcommand path.
    let (st, page, _) = run(&common::rtrace(), &["man", "kernel", "trace"]);
    assert_eq!(st.code(), Some(0));
    assert_eq!(
        page,
        std::fs::read_to_string(dir.join("rtrace-kernel-trace.1")).unwrap()
    );
    let (st, _, err) = run(&common::rtrace(), &["man", "nosuch"]);
    assert_eq!(st.code(), Some(2), "{err}");
    for tool in ["rstrace", "rltrace"] {
        roff_ok(&dir.join(format!("{tool}.1")));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether `-C` is an option of a getopt parser whose unknown-option error
/// is "invalid option -- 'C'".
fn accepted(err: Option<String>, c: char) -> bool {
    !err.is_some_and(|e| e.contains(&format!("invalid option -- '{c}'")))
}

#[test]
fn rstrace_and_rltrace_pages_hold_every_accepted_option() {
    let strace_page = rtrace::strace::cli::man::page();
    let ltrace_page = rtrace::ltrace::man::page();
    let (mut ns, mut nl) = (0, 0);
    for c in ('a'..='z').chain('A'..='Z') {
        let args: Vec<OsString> = [format!("-{c}"), "1".into(), "true".into()]
            .iter()
            .map(OsString::from)
            .collect();
        let shown = format!("\\fB\\-{c}\\fR");
        if accepted(rtrace::strace::cli::parse(&args).err().map(|e| e.msg), c) {
            assert!(
                strace_page.contains(&shown),
                "rstrace accepts -{c}; not in its page"
            );
            ns += 1;
        }
        let lerr = rtrace::ltrace::cli::parse(&args).err().map(|e| match e {
            rtrace::ltrace::cli::CliError::Usage(m) | rtrace::ltrace::cli::CliError::Value(m) => m,
            rtrace::ltrace::cli::CliError::DebugHelp => String::new(),
        });
        if accepted(lerr, c) {
            assert!(
                ltrace_page.contains(&shown),
                "rltrace accepts -{c}; not in its page"
            );
            nl += 1;
        }
    }
    assert!(
        ns >= 35 && nl >= 25,
        "rstrace {ns}, rltrace {nl} short options"
    );
    // Long options: each one the tables list is accepted by the parser (not
    // "unrecognized") and is in the page.
    let longs = rtrace::strace::cli::man::options()
        .into_iter()
        .flat_map(|o| o.1);
    for name in longs {
        let args: Vec<OsString> = [format!("--{name}=1"), "true".into()]
            .iter()
            .map(OsString::from)
            .collect();
        let e = rtrace::strace::cli::parse(&args)
            .err()
            .map(|e| e.msg)
            .unwrap_or_default();
        assert!(!e.contains("unrecognized option"), "--{name}: {e}");
        assert!(
            strace_page.contains(&format!("\\fB\\-\\-{}\\fR", name.replace('-', "\\-"))),
            "--{name}"
        );
    }
    for (name, _, _) in rtrace::ltrace::cli::long_options() {
        assert!(
            ltrace_page.contains(&format!("\\fB\\-\\-{}\\fR", name.replace('-', "\\-"))),
            "--{name}"
        );
    }
    // The same pages as `rtrace man rstrace|rltrace` prints.
    let (_, out, _) = run(&common::rtrace(), &["man", "rstrace"]);
    assert_eq!(out, strace_page);
}
