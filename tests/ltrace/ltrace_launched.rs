//! The launched program's name: ltrace calls the main program by the
//! command it launched (typed with a `/`: as typed; a bare name: the
//! `$PATH` directory joined to it), not by the file /proc/PID/maps gives
//! (a symbolic link resolved). That name is the caller in `prog->labs`
//! lines, on both backends, and the file of the program's `-w` frames.
//! The program here is reached through a link `ltw-alias` to
//! testprogs/lt_where.c (main -> outer -> middle -> inner -> labs).

use crate::common::{self, PrivateCopy};
use crate::ltrace_util::{self, rltrace, Run};

use std::path::{Path, PathBuf};
use std::process::Command;

/// A directory holding `ltw-alias`, a link to a private copy of the
/// program (private: a kernel-backend run puts uprobes on the file).
struct Alias {
    dir: PathBuf,
    _copy: PrivateCopy,
}

impl Alias {
    fn new() -> Alias {
        let prog = common::testprog_variant("lt_where", "nopie", &["-fno-builtin", "-no-pie"]);
        let copy = PrivateCopy::new(&prog);
        let dir = common::temp_path("rltrace-alias");
        std::fs::create_dir_all(&dir).expect("alias dir");
        std::os::unix::fs::symlink(copy.path(), dir.join("ltw-alias")).expect("symlink");
        Alias { dir, _copy: copy }
    }

    /// `TOOL OPTS COMMAND` run in the link's directory, with that
    /// directory first in `$PATH`.
    fn run(&self, tool: &Path, opts: &[&str], command: &str) -> Run {
        let mut cmd = Command::new(tool);
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.current_dir(&self.dir)
            .env("PATH", format!("{}:{path}", self.dir.display()));
        let r = ltrace_util::run_cmd(cmd, opts, Path::new(command), &[]);
        assert_eq!(r.code, Some(0), "{tool:?} {opts:?} {command}: {}", r.stderr);
        r
    }
}

impl Drop for Alias {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The line of the `labs` call.
fn labs_line(trace: &str) -> String {
    let line = trace
        .lines()
        .find(|l| l.contains("labs("))
        .unwrap_or_else(|| panic!("no labs call in\n{trace}"));
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn caller_is_the_command_launched_on_both_backends() {
    let alias = Alias::new();
    let ltrace = common::have("ltrace").then(|| PathBuf::from("ltrace"));
    if ltrace.is_none() {
        eprintln!("skip: ltrace is not installed (rltrace is checked alone)");
    }
    let mut backends = vec!["ptrace"];
    if common::uprobe_tracefs().is_some() {
        backends.push("kernel");
    }
    for command in ["./ltw-alias", "ltw-alias"] {
        let want = "ltw-alias->labs(-12) = 12";
        if let Some(lt) = &ltrace {
            let t = alias.run(lt, &["-e", "labs"], command).trace;
            assert_eq!(labs_line(&t), want, "ltrace {command}");
        }
        for b in &backends {
            let t = alias
                .run(&rltrace(), &["--backend", b, "-e", "labs"], command)
                .trace;
            assert_eq!(labs_line(&t), want, "--backend {b} {command}\n{t}");
        }
    }
}

#[test]
fn frames_of_the_program_carry_the_command_launched() {
    let alias = Alias::new();
    let in_path = format!("{}/ltw-alias", alias.dir.display());
    for (command, file) in [
        ("./ltw-alias", "./ltw-alias"),
        ("ltw-alias", in_path.as_str()),
    ] {
        let t = alias
            .run(&rltrace(), &["-w", "2", "-e", "labs"], command)
            .trace;
        let frames: Vec<&str> = t.lines().filter(|l| l.starts_with(" > ")).collect();
        assert_eq!(frames.len(), 2, "{t}");
        assert!(frames[0].starts_with(&format!(" > {file}(inner+0x")), "{t}");
        assert!(
            frames[1].starts_with(&format!(" > {file}(middle+0x")),
            "{t}"
        );
        assert!(labs_line(&t).starts_with("ltw-alias->labs(-12)"), "{t}");
    }
}
