//! gdb, the oracle of the debugger tests, started one way: `gdb -nx
//! -batch` (no init files, exit after the commands) without debuginfod
//! (no network lookups), stdin from /dev/null.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `gdb -nx -batch -iex 'set debuginfod enabled off'`; the caller adds
/// its commands (`-ex`, `-iex`) and the program.
pub fn gdb_batch() -> Command {
    let mut cmd = Command::new("gdb");
    cmd.args(["-nx", "-batch", "-iex", "set debuginfod enabled off"])
        .stdin(Stdio::null());
    cmd
}

/// gdb running `script` (one command per line, for what `-ex` cannot
/// give: `commands` blocks) on `prog`.
pub fn gdb_script(script: &[String], prog: &Path) -> Output {
    let path = super::child::temp_path("gdb-script");
    std::fs::write(&path, script.join("\n") + "\n").expect("gdb script");
    let out = gdb_batch()
        .arg("-x")
        .arg(&path)
        .arg(prog)
        .output()
        .expect("run gdb");
    let _ = std::fs::remove_file(&path);
    out
}
