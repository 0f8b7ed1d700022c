//! Every tool attached with `-p` and stopped by Ctrl-C (SIGINT) or SIGTERM
//! detaches, leaves the program running and exits 128 + the signal, as
//! `strace -p` does (130, 143); and `rtrace record -p` records a running
//! process until then.

use crate::common;

use common::child::{lines_of, next_line, wait_bounded};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::Receiver;

/// testprogs/bp_attach, driven through its stdin.
struct Target {
    child: Child,
    pin: ChildStdin,
    pout: BufReader<ChildStdout>,
    pid: u32,
    tick: String,
}

impl Target {
    fn start() -> Target {
        let mut child = Command::new(common::testprog("bp_attach"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let pin = child.stdin.take().unwrap();
        let mut pout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        pout.read_line(&mut line).unwrap();
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.first(), Some(&"ready"), "{line}");
        Target {
            pid: child.id(),
            tick: f[2].to_string(),
            child,
            pin,
            pout,
        }
    }

    /// "go N": the program calls tick N times and prints the sum.
    fn go(&mut self, n: u32) -> String {
        writeln!(self.pin, "go {n}").unwrap();
        let mut line = String::new();
        self.pout.read_line(&mut line).unwrap();
        line
    }

    fn tracer_pid(&self) -> String {
        std::fs::read_to_string(format!("/proc/{}/status", self.pid))
            .unwrap()
            .lines()
            .find(|l| l.starts_with("TracerPid:"))
            .unwrap()
            .to_string()
    }

    fn quit(mut self) {
        writeln!(self.pin, "quit").unwrap();
        let st = wait_bounded(&mut self.child, 30, "bp_attach");
        assert!(st.success());
    }
}

/// Starts `cmd args -p PID` and waits for the stderr line containing
/// `ready` (the tool's own word for "attached").
fn attach(cmd: PathBuf, args: &[&str], t: &Target, ready: &str) -> (Child, Receiver<String>) {
    let mut c = common::named(cmd)
        .args(args)
        .args(["-p", &t.pid.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tool");
    let rx = lines_of(c.stderr.take().unwrap());
    loop {
        let l = next_line(&rx, &format!("'{ready}' from {args:?}"));
        if l.contains(ready) {
            break;
        }
    }
    (c, rx)
}

#[test]
fn every_tool_exits_128_plus_signal_after_detaching() {
    let out = common::child::temp_path("attach-int");
    let o = out.to_str().unwrap();
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let mut t = Target::start();
        let tick = format!("*{}:1", t.tick);
        let tools: Vec<(PathBuf, Vec<&str>, &str)> = vec![
            (common::rstrace(), vec!["-o", "/dev/null"], "attached"),
            (
                common::rltrace(),
                vec!["-D", "1", "-o", "/dev/null"],
                "attached",
            ),
            (
                common::rtrace(),
                vec!["break", "tick", "--count"],
                "attached",
            ),
            (common::rtrace(), vec!["watch", &tick], "armed"),
            (common::rtrace(), vec!["record", "-o", o], "attached"),
        ];
        for (cmd, args, ready) in tools {
            let what = format!("{args:?} with signal {sig}");
            let (mut c, rx) = attach(cmd, &args, &t, ready);
            assert_eq!(t.go(100), "sum 295\n", "{what}");
            // SAFETY: signalling the tool we started.
            unsafe { libc::kill(c.id() as i32, sig) };
            let st = wait_bounded(&mut c, 30, &what);
            let rest: Vec<String> = rx.try_iter().collect();
            assert_eq!(st.code(), Some(128 + sig), "{what}: {rest:?}");
            // Detached, and the program runs on.
            assert_eq!(t.tracer_pid(), "TracerPid:\t0", "{what}");
            assert_eq!(t.go(10), "sum 24\n", "{what}");
        }
        t.quit();
    }
    let _ = std::fs::remove_file(&out);
}

#[test]
fn record_attached_process_until_ctrl_c() {
    let mut t = Target::start();
    let file = common::child::temp_path("attach-rec.rtrace");
    let (mut c, _rx) = attach(
        common::rtrace(),
        &["record", "-o", file.to_str().unwrap()],
        &t,
        "attached",
    );
    assert_eq!(t.go(7), "sum 21\n");
    assert_eq!(t.go(3), "sum 3\n");
    // SAFETY: signalling the tool we started.
    unsafe { libc::kill(c.id() as i32, libc::SIGINT) };
    assert_eq!(wait_bounded(&mut c, 30, "record -p").code(), Some(130));
    assert_eq!(t.tracer_pid(), "TracerPid:\t0");
    assert_eq!(t.go(2), "sum 1\n", "the program runs on");

    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let head = &lines[0];
    assert_eq!(head["type"], "header");
    assert_eq!(head["attached"], serde_json::json!([t.pid]));
    assert!(
        head["command"][0].as_str().unwrap().ends_with("bp_attach"),
        "{head}"
    );
    let foot = lines.last().unwrap();
    assert_eq!(foot["type"], "footer");
    assert_eq!(foot["interrupted"], "SIGINT");
    // The program's own calls: each answer written, each command read.
    let writes: Vec<&Value> = lines
        .iter()
        .filter(|e| e["syscall"] == "write" && e["pid"] == t.pid && e["args"][0]["fd"] == 1)
        .collect();
    let texts: Vec<&str> = writes
        .iter()
        .filter_map(|e| e["args"][1].as_str())
        .collect();
    // The last write may still be in its exit stop, unseen, when SIGINT
    // comes (the reader has its data before the tracer its stop).
    assert!(
        texts == ["sum 21\n", "sum 3\n"] || texts == ["sum 21\n"],
        "{writes:?}"
    );
    assert!(lines
        .iter()
        .any(|e| e["syscall"] == "read" && e["pid"] == t.pid));

    let o = common::named(common::rtrace())
        .arg("report")
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("bp_attach"), "{text}");
    assert!(
        text.contains("interrupted by SIGINT (rtrace detached; the process ran on)"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.trim_end().ends_with(" write")),
        "{text}"
    );
    std::fs::remove_file(&file).unwrap();
    t.quit();
}
