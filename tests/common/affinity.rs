//! CPU masks for the pinning tests: what `testprogs/pin_probe.c` reports
//! of the mask the kernel applies ("real WHO LIST" lines), and every
//! thread's `Cpus_allowed_list` of a live process; and the check that a
//! tool attached with `-p` gives every thread its mask back at detach.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The "real WHO LIST" lines of pin_probe's stderr: (WHO, CPU list).
pub fn real_masks(stderr: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("real "))
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(who, list)| (who.to_string(), list.to_string()))
        .collect()
}

/// The CPU list of `who` among [`real_masks`]' rows (panics if missing).
pub fn real_of(rows: &[(String, String)], who: &str) -> String {
    rows.iter()
        .find(|(w, _)| w == who)
        .unwrap_or_else(|| panic!("no real mask of {who}: {rows:?}"))
        .1
        .clone()
}

/// Whether a CPU list names a single CPU.
pub fn single_cpu(list: &str) -> bool {
    list.parse::<u32>().is_ok()
}

/// Every thread's `Cpus_allowed_list` of process `pid`, by tid.
pub fn thread_masks(pid: u32) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .expect("task dir")
        .filter_map(|e| e.ok())
        .map(|e| {
            let tid = e.file_name().to_string_lossy().into_owned();
            let st = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
            let list = st
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .unwrap_or("")
                .trim()
                .to_string();
            (tid, list)
        })
        .collect();
    v.sort();
    v
}

fn start_attach_probe(prog: &Path) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut p = Command::new(prog)
        .arg("attach")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pin = p.stdin.take().expect("stdin");
    let mut pout = BufReader::new(p.stdout.take().expect("stdout"));
    let mut line = String::new();
    pout.read_line(&mut line).expect("ready line");
    assert!(line.starts_with("ready "), "{line}");
    (p, pin, pout)
}

fn ask(pin: &mut ChildStdin, pout: &mut BufReader<ChildStdout>, n: u32) -> String {
    writeln!(pin, "go {n}").expect("write");
    let mut l = String::new();
    pout.read_line(&mut l).expect("sum");
    l
}

/// Attaches `TOOL ARGS -p PID` to `prog`, a two-thread pin_probe build, waits for the
/// line containing `ready` on its stderr, checks every thread runs on one
/// CPU, lets the program work, interrupts the tool and checks every thread
/// has its mask back and the program runs on.
pub fn attach_and_detach(tool: &Path, args: &[&str], ready: &str, prog: &Path) {
    let (mut p, mut pin, mut pout) = start_attach_probe(prog);
    let pid = p.id();
    let before = thread_masks(pid);
    assert_eq!(before.len(), 2, "{before:?}");
    if before.iter().all(|(_, l)| single_cpu(l)) {
        println!("skip: the program may run on one CPU only, nothing to pin");
        drop(pin);
        assert!(p.wait().expect("wait").success());
        return;
    }
    let mut r = super::default_sigint(&mut Command::new(tool))
        .args(args)
        .args(["-p", &pid.to_string()])
        .stderr(Stdio::piped())
        .spawn()
        .expect("tool");
    let mut rerr = BufReader::new(r.stderr.take().expect("stderr"));
    let mut said = String::new();
    while !said.contains(ready) {
        said.clear();
        assert!(
            rerr.read_line(&mut said).expect("read") > 0,
            "the tool ended early"
        );
    }
    let during = thread_masks(pid);
    assert!(during.iter().all(|(_, l)| single_cpu(l)), "{during:?}");
    // Few enough calls that rtrace's report fits the pipe unread.
    assert_eq!(ask(&mut pin, &mut pout, 20), "sum 190\n");
    // SAFETY: kill with a live child's pid.
    unsafe { libc::kill(r.id() as i32, libc::SIGINT) };
    let mut rest = String::new();
    rerr.read_to_string(&mut rest).expect("rest");
    assert_eq!(r.wait().expect("wait").code(), Some(130), "{rest}");
    assert_eq!(thread_masks(pid), before, "{rest}");
    // Untraced again, it runs on.
    assert_eq!(ask(&mut pin, &mut pout, 10), "sum 45\n");
    drop(pin);
    let mut tail = String::new();
    pout.read_to_string(&mut tail).expect("tail");
    assert_eq!(tail, "bye\n");
    assert!(p.wait().expect("wait").success());
}
