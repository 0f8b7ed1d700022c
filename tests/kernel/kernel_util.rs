//! Shared by the `rtrace kernel` integration tests: the binary, tracefs
//! (or a skip), one run, and the check that a run left nothing in tracefs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

pub fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The tracefs mount point (rtrace mounts it when needed), or None to skip.
pub fn tracefs() -> Option<PathBuf> {
    if !is_root() {
        eprintln!("skip: needs root for tracefs");
        return None;
    }
    let out = Command::new(rtrace())
        .args(["kernel", "list", "tracers"])
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.get(2) == Some(&"tracefs")).then(|| PathBuf::from(f[1]))
    })
}

pub fn read(root: &Path, f: &str) -> String {
    std::fs::read_to_string(root.join(f)).unwrap_or_default()
}

/// What rtrace must never change: global files it does not write.
pub struct Global {
    set_event: String,
    current_tracer: String,
}

impl Global {
    pub fn snap(root: &Path) -> Global {
        Global {
            set_event: read(root, "set_event"),
            current_tracer: read(root, "current_tracer"),
        }
    }
}

/// Asserts that nothing of rtrace process `pid` is left in tracefs and the
/// global files are as before.
pub fn assert_clean(root: &Path, pid: u32, before: &Global) {
    assert!(
        !root.join(format!("instances/rtrace-{pid}")).exists(),
        "instance rtrace-{pid} left behind"
    );
    let group = format!("rtrace_{pid}/");
    for f in ["dynamic_events", "uprobe_events", "kprobe_events"] {
        let t = read(root, f);
        assert!(!t.contains(&group), "{f} still has {group}: {t}");
    }
    assert!(!root.join(format!("events/rtrace_{pid}")).exists());
    let after = Global::snap(root);
    assert_eq!(after.set_event, before.set_event, "set_event changed");
    assert_eq!(
        after.current_tracer, before.current_tracer,
        "current_tracer changed"
    );
}

pub fn unique_path(tag: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "/tmp/rtrace-k-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

pub fn run(args: &[&str]) -> (Output, u32) {
    let child = Command::new(rtrace())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rtrace");
    let pid = child.id();
    (child.wait_with_output().expect("wait rtrace"), pid)
}

pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}
