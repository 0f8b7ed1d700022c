//! strace 7.2, the oracle of the differential tests against current strace:
//! Debian unstable's binary package and the libc6 it needs, fetched by
//! `.ci/strace-72` into `target/strace-72/root` (checked by SHA-256 against
//! the signed Packages index) and run through that libc's own loader.

use std::path::PathBuf;
use std::process::Command;

/// Where `.ci/strace-72` unpacks the packages.
pub fn strace72_root() -> PathBuf {
    super::workspace_dir().join("target/strace-72/root")
}

/// A command that runs strace 7.2 (arguments still to add), or why it
/// cannot: `.ci/strace-72` has not fetched it, or it does not run here.
pub fn strace72() -> Result<Command, String> {
    let root = strace72_root();
    let lib = root.join("usr/lib/x86_64-linux-gnu");
    let loader = lib.join("ld-linux-x86-64.so.2");
    let strace = root.join("usr/bin/strace");
    if !loader.exists() || !strace.exists() {
        return Err(format!(
            "strace 7.2 is not in {} (run .ci/strace-72)",
            root.display()
        ));
    }
    let make = || {
        let mut cmd = Command::new(&loader);
        cmd.arg("--library-path").arg(&lib).arg(&strace);
        cmd
    };
    let out = make()
        .arg("-V")
        .output()
        .map_err(|e| format!("strace 7.2 does not start: {e}"))?;
    let version = String::from_utf8_lossy(&out.stdout);
    if !version.starts_with("strace -- version 7.2") {
        return Err(format!(
            "not strace 7.2: {:?}",
            version.lines().next().unwrap_or("")
        ));
    }
    Ok(make())
}
