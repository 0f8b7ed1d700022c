//! `rtrace kernel trace` on syscall string arguments: the tracepoint records
//! only the pointer, so rtrace prints the pointer (as trace-cmd does), never
//! a string read from the process afterwards; `--strings` prints the string
//! the kernel copied at the event (an event probe) or, where the kernel
//! cannot, the pointer and a note saying why.
//!
//! k_openat overwrites its path buffer with "C" right after openat(2) and
//! stays alive until the test closes its stdin: a string read from its
//! memory after the event would be "C", not the path.

use crate::common;
use crate::kernel_util;

use common::testprog;
use kernel_util::{assert_clean, rtrace, tracefs, unique_path, Global};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

/// `O_WRONLY|O_CREAT|O_EXCL`, the flags of k_openat's call (and of no other
/// openat of the run).
const FLAGS: &str = " flags=193 ";

/// What one traced run of k_openat produced.
struct Run {
    /// The address k_openat passed to openat.
    ptr: u64,
    /// The event line of that openat.
    event: String,
    /// Every line on rtrace's stdout.
    stdout: Vec<String>,
    stderr: String,
}

/// Traces k_openat creating `path` with `extra` options; the program is
/// let go only after its event was read, so its memory then holds "C".
fn trace_openat(extra: &[&str], path: &str) -> Run {
    let Some(root) = tracefs() else {
        panic!("tracefs needed")
    };
    let before = Global::snap(&root);
    let mut child = Command::new(rtrace())
        .args(["kernel", "trace", "-e", "syscalls:sys_enter_openat"])
        .args(extra)
        .arg("--")
        .arg(testprog("k_openat"))
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let rpid = child.id();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stdout = Vec::new();
    let mut ptr = None;
    let mut event = None;
    for l in lines.by_ref() {
        let l = l.unwrap();
        stdout.push(l.clone());
        if let Some(p) = l.strip_prefix("ptr=0x") {
            ptr = Some(u64::from_str_radix(p, 16).unwrap());
        } else if l.contains("sys_enter_openat:") && l.contains(FLAGS) {
            event = Some(l);
            break;
        }
    }
    drop(child.stdin.take());
    stdout.extend(lines.map_while(Result::ok));
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "rtrace failed: {stderr}");
    assert_clean(&root, rpid, &before);
    Run {
        ptr: ptr.expect("k_openat's ptr= line"),
        event: event.unwrap_or_else(|| panic!("no openat event with{FLAGS}: {stdout:?} {stderr}")),
        stdout,
        stderr,
    }
}

/// No event shows a string for `filename` the kernel did not capture: none
/// at all without `allowed`, else only `allowed` for k_openat's call.
fn no_other_string(r: &Run, allowed: Option<&str>) {
    for l in &r.stdout {
        let Some(i) = l.find("filename=\"") else {
            continue;
        };
        let ok = allowed.is_some_and(|p| {
            !l.contains(FLAGS) || l[i..].starts_with(&format!("filename=\"{p}\" "))
        });
        assert!(ok, "a string the kernel did not capture: {l}");
    }
}

#[test]
fn user_string_argument_prints_as_the_recorded_pointer() {
    if tracefs().is_none() {
        return;
    }
    let path = unique_path("openat");
    let r = trace_openat(&[], &path);
    assert!(
        r.event.contains(&format!(" filename={:#x}{FLAGS}", r.ptr)),
        "want the pointer {:#x}: {}",
        r.ptr,
        r.event
    );
    no_other_string(&r, None);
    assert!(
        r.stderr
            .contains("syscalls:sys_enter_openat filename: user pointers")
            && r.stderr.contains("--strings"),
        "{}",
        r.stderr
    );
}

#[test]
fn strings_are_captured_at_the_event_or_the_pointer_says_why() {
    if tracefs().is_none() {
        return;
    }
    let path = unique_path("openat-s");
    let r = trace_openat(&["--strings"], &path);
    if r.stderr.contains("cannot copy user strings at the event") {
        // This kernel has no event probes: the pointer, and why.
        eprintln!("note: no string capture here: {}", r.stderr.trim());
        assert!(r.stderr.contains("CONFIG_EPROBE_EVENTS"), "{}", r.stderr);
        assert!(
            r.event.contains(&format!(" filename={:#x}{FLAGS}", r.ptr)),
            "{}",
            r.event
        );
        no_other_string(&r, None);
    } else {
        // Copied by the kernel as the tracepoint fired, before k_openat
        // overwrote its buffer.
        assert!(
            r.event.contains(&format!(" filename=\"{path}\"{FLAGS}")),
            "{}",
            r.event
        );
        assert!(r.event.contains(" dfd=-100 "), "{}", r.event);
        no_other_string(&r, Some(&path));
    }
}
