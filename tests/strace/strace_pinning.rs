//! CPU pinning under rstrace without -f: the command runs on rstrace's CPU,
//! but its threads and children, which rstrace does not follow, get the
//! mask they would have had untraced, and rstrace does not wait for a child
//! that outlives the command.

use crate::common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The "real WHO LIST" lines of pin_kids' stderr: (WHO, CPU list).
fn real_masks(stderr: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("real "))
        .filter_map(|l| l.rsplit_once(' '))
        .map(|(who, list)| (who.to_string(), list.to_string()))
        .collect()
}

fn real_of(rows: &[(String, String)], who: &str) -> String {
    rows.iter()
        .find(|(w, _)| w == who)
        .unwrap_or_else(|| panic!("no real mask of {who}: {rows:?}"))
        .1
        .clone()
}

/// pin_kids' stdout without its "bg PID" line, sorted (the background
/// child prints while the program waits for it, but the thread's and the
/// children's lines may come in any order with the program's).
fn masks_seen(stdout: &str) -> Vec<String> {
    let mut v: Vec<String> = stdout
        .lines()
        .filter(|l| !l.starts_with("bg "))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

fn status_field(pid: i32, key: &str) -> Option<String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find_map(|l| l.strip_prefix(key))
        .map(|v| v.trim().to_string())
}

#[test]
fn unfollowed_children_are_unpinned_and_not_waited_for() {
    let prog = common::testprog("pin_kids");
    let plain = Command::new(&prog)
        .stdin(Stdio::null())
        .output()
        .expect("run pin_kids");
    assert!(plain.status.success());
    let plain_rows = real_masks(&plain.stderr);
    let plain_mask = real_of(&plain_rows, "main");
    if plain_mask.parse::<u32>().is_ok() {
        println!("skip: the program may run on one CPU only, nothing to pin");
        return;
    }
    let want = masks_seen(&String::from_utf8_lossy(&plain.stdout));

    for extra in [&[][..], &["--no-syscall-info"][..]] {
        // The background child blocks reading stdin until the end of input:
        // it lives as long as this test keeps `stdin` open.
        let mut child = common::named(common::rstrace())
            .args(extra)
            .args(["-o", "/dev/null"])
            .arg(&prog)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run rstrace");
        let stdin = child.stdin.take();
        // rstrace ends with the program, not with its background child.
        if !common::wait_gone(child.id() as i32, Duration::from_secs(20)) {
            drop(stdin);
            let _ = child.kill();
            panic!("rstrace {extra:?} waited for the unfollowed background child");
        }
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let mut err = Vec::new();
        child.stderr.take().unwrap().read_to_end(&mut err).unwrap();
        assert!(child.wait().unwrap().success(), "{out}");
        let bg: i32 = out
            .lines()
            .find_map(|l| l.strip_prefix("bg "))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no bg line: {out}"));
        // Still running, untraced, with the untraced mask.
        let bg_state = (
            status_field(bg, "TracerPid:"),
            status_field(bg, "Cpus_allowed_list:"),
        );
        drop(stdin);
        assert!(common::wait_gone(bg, Duration::from_secs(20)));
        assert_eq!(
            bg_state,
            (Some("0".to_string()), Some(plain_mask.clone())),
            "background child {bg} after rstrace {extra:?} ended"
        );

        // sched_getaffinity shows the untraced mask in every task.
        assert_eq!(masks_seen(&out), want, "rstrace {extra:?}");
        let rows = real_masks(&err);
        // The program ran pinned (so the test shows something) ...
        assert!(
            real_of(&rows, "main").parse::<u32>().is_ok(),
            "not pinned: {rows:?}"
        );
        // ... and its thread and children, not followed, were not.
        for who in ["thread", "child", "background"] {
            assert_eq!(real_of(&rows, who), plain_mask, "{who} under {extra:?}");
        }
    }
}
