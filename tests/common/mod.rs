//! Shared helpers for integration tests (and `benches/overhead.rs`).
//!
//! Each test crate (`tests/NAME/main.rs`) includes it at its root with
//! `#[path = "../common/mod.rs"] mod common;` and its modules `use
//! crate::common;` (a file directly under `tests/`, `mod common;`).
//!
//! * [`testprog`] / [`testprog_variant`] build `testprogs/<name>.c` (or `.cc`)
//!   into `<target dir>/testprogs/` on first use. Many tests, as threads of one
//!   process or as separate processes, may ask for the same program at once:
//!   each process builds a given output at most once, every build goes to a
//!   unique temporary name and is renamed into place (rename is atomic), and a
//!   build is skipped when the output is newer than its sources and was made
//!   with the same command line.
//! * [`rstrace`] is the path of the `rstrace` binary Cargo built for this test.
//! * [`have`] tells whether a tool (strace, ltrace, gdb, ...) is installed, so
//!   differential tests can skip cleanly.
//! * [`affinity`] reads CPU masks for the pinning tests (`testprogs/pin_probe.c`'s
//!   report, every thread's `Cpus_allowed_list`).
//! * [`normalize`] replaces what changes between runs (pids, addresses) with
//!   fixed placeholders before outputs are compared.
//! * [`strace72()`] runs strace 7.2 (fetched by `.ci/strace-72`), the oracle
//!   of the differential tests against current strace.
//! * [`gdb_batch`] / [`gdb_script`] start gdb, the debugger tests' oracle.
//! * [`child`] runs and waits for child processes under a time limit, reads
//!   pipes line by line with a deadline, and names unique temporary paths.
//! * [`wait_file`] waits, through inotify, for a file another process
//!   writes to reach a state.
//!
//! Not every test file uses every helper, hence the `dead_code` allowance.
#![allow(dead_code)]

pub mod affinity;
pub mod child;
pub mod file_wait;
pub mod gdb;
pub mod private;
pub mod schema;
pub mod strace72;

#[allow(unused_imports)]
pub use child::{
    count_lines, lines_of, next_line, poll_until, run, run_within, temp_path, wait_bounded,
};
#[allow(unused_imports)]
pub use file_wait::wait_file;
#[allow(unused_imports)]
pub use gdb::{gdb_batch, gdb_script};
#[allow(unused_imports)]
pub use private::PrivateCopy;
#[allow(unused_imports)]
pub use strace72::strace72;

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// Flags every test program is built with; variants append theirs, so a later
/// `-O2` overrides the `-O0` here.
const BASE_FLAGS: &[&str] = &["-O0", "-g", "-Wall", "-pthread"];

/// Placeholder that replaces a process or thread id.
pub const PID: &str = "PID";
/// Placeholder that replaces a hexadecimal address (`0x` is kept).
pub const ADDR: &str = "0xADDR";

/// The workspace root (where `Cargo.toml` and `testprogs/` live).
pub fn workspace_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Cargo target directory this test was built into.
///
/// Cargo tells integration tests and benches `CARGO_TARGET_TMPDIR`
/// (`<target>/tmp`) at compile time; failing that, `$CARGO_TARGET_DIR` at run
/// time, then the workspace's `target/`.
pub fn target_dir() -> PathBuf {
    if let Some(tmp) = option_env!("CARGO_TARGET_TMPDIR") {
        if let Some(parent) = Path::new(tmp).parent() {
            return parent.to_path_buf();
        }
    }
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace_dir().join(dir)
            }
        }
        _ => workspace_dir().join("target"),
    }
}

/// A command for the program at `path`, run under its file name
/// (`argv[0]` = `rstrace`, not the full path): rstrace, like strace, starts
/// its messages with the name it was run by.
pub fn named(path: impl AsRef<Path>) -> std::process::Command {
    use std::os::unix::process::CommandExt;
    let path = path.as_ref();
    let mut c = std::process::Command::new(path);
    if let Some(name) = path.file_name() {
        c.arg0(name);
    }
    c
}

/// Waits up to `limit` for process `pid` (not necessarily a child) to end,
/// through a pidfd, which becomes readable when it exits; true if it did.
pub fn wait_gone(pid: i32, limit: std::time::Duration) -> bool {
    // SAFETY: pidfd_open takes a pid and flags; the fd is closed below.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    if fd < 0 {
        // ESRCH: already gone (and reaped).
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    }
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; then closing the fd we own.
    let n = unsafe { libc::poll(&mut p, 1, limit.as_millis() as i32) };
    unsafe { libc::close(fd) };
    n == 1
}

/// Where tracefs is mounted, from `/proc/self/mounts`.
pub fn tracefs_mount() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.get(2) == Some(&"tracefs")).then(|| PathBuf::from(f[1]))
    })
}

/// The tracefs root with uprobe events (mounting tracefs if needed), or
/// None with the reason printed, to skip.
pub fn uprobe_tracefs() -> Option<PathBuf> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skip: uprobes through tracefs need root");
        return None;
    }
    let root = match tracefs_mount() {
        Some(r) => r,
        None => {
            let _ = std::process::Command::new("mount")
                .args(["-t", "tracefs", "nodev", "/sys/kernel/tracing"])
                .status();
            match tracefs_mount() {
                Some(r) => r,
                None => {
                    eprintln!("skip: tracefs is not mounted and cannot be mounted");
                    return None;
                }
            }
        }
    };
    if !root.join("uprobe_events").exists() {
        eprintln!("skip: this kernel has no uprobe events (CONFIG_UPROBE_EVENTS)");
        return None;
    }
    Some(root)
}

/// Held while running `rtrace kernel cleanup`, and by a test that SIGKILLs
/// a kernel-backend session from the moment it kills it until it has looked
/// at what the session left in tracefs and cleaned up itself: cleanup
/// removes what every dead rtrace process left, so another test's cleanup in
/// between would remove it first. The tests of a test crate share a
/// process, hence one lock for all of them.
pub fn tracefs_cleanup_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes `cmd` start with SIGINT and SIGQUIT at their default action.
///
/// A shell without job control starts background jobs with both ignored,
/// and the tracers pass ignored signals on to the command they launch (as
/// strace does); a test that interrupts a tracer and expects its command to
/// die of that signal must not inherit that from whoever ran `cargo test`.
pub fn default_sigint(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: signal(2) is async-signal-safe; only dispositions change.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGQUIT, libc::SIG_DFL);
            Ok(())
        })
    }
}

/// Path of the `rstrace` binary Cargo built alongside this test.
pub fn rstrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rstrace"))
}

/// Path of the `rltrace` binary Cargo built alongside this test.
pub fn rltrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rltrace"))
}

/// Path of the `rtrace` binary Cargo built alongside this test.
pub fn rtrace() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtrace"))
}

/// Builds `testprogs/<name>.c` (or `<name>.cc`, with g++) with
/// `-O0 -g -Wall -pthread` into `<target>/testprogs/<name>` and returns its path.
///
/// Panics with the compiler's messages when the build fails.
pub fn testprog(name: &str) -> PathBuf {
    build_cached(name, name.to_string(), &[])
}

/// Like [`testprog`] with `extra_flags` appended (for example `-no-pie`,
/// `-O2`, `-fomit-frame-pointer`); the output is `<target>/testprogs/<name>-<variant>`.
pub fn testprog_variant(name: &str, variant: &str, extra_flags: &[&str]) -> PathBuf {
    build_cached(name, format!("{name}-{variant}"), extra_flags)
}

/// `line` with an `rseq` call's decoded struct and decimal length
/// (strace 7.2's forms, which rstrace follows) put back in strace 6.1's
/// form, an address and the length in hex, for the differential tests whose oracle is strace 6.1:
/// glibc registers rseq at the start of every program.
pub fn rseq_as_6_1(line: &str) -> String {
    static RE: OnceLock<regex_lite::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex_lite::Regex::new(r"\brseq\((?:\{.*?\}|(0x[0-9a-f]+)), (\d+), ").unwrap()
    });
    match re.captures(line) {
        Some(c) => {
            let addr = c.get(1).map_or("0x7f0000000000", |a| a.as_str());
            let len: u64 = c[2].parse().unwrap_or(0);
            let m = c.get(0).unwrap();
            format!(
                "{}rseq({addr}, {len:#x}, {}",
                &line[..m.start()],
                &line[m.end()..]
            )
        }
        None => line.to_string(),
    }
}

/// Whether gcc can build and run a 32-bit program here (`-m32`); says
/// `skip:` with the reason when it cannot (Debian: gcc-multilib).
pub fn m32() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    let ok = *OK.get_or_init(|| {
        let dir = target_dir().join("m32-probe");
        let _ = fs::create_dir_all(&dir);
        let src = dir.join(format!("p{}.c", std::process::id()));
        let exe = dir.join(format!("p{}", std::process::id()));
        fs::write(&src, "int main(void){return 0;}\n").is_ok()
            && Command::new("gcc")
                .args(["-m32", "-o"])
                .arg(&exe)
                .arg(&src)
                .output()
                .is_ok_and(|o| o.status.success())
            && Command::new(&exe).status().is_ok_and(|s| s.success())
    });
    if !ok {
        eprintln!("skip: gcc cannot build 32-bit programs (install gcc-multilib)");
    }
    ok
}

/// Whether `tool` is an executable file: on `$PATH` for a bare name, or at
/// the given path when it contains a `/`.
pub fn have(tool: &str) -> bool {
    if tool.contains('/') {
        return is_executable(Path::new(tool));
    }
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|dir| is_executable(&dir.join(tool)))
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// One slot per output name, so each output is built at most once per process
/// while builds of different programs run in parallel.
type BuildSlots = Mutex<HashMap<String, Arc<OnceLock<PathBuf>>>>;

fn build_cached(name: &str, out_name: String, extra_flags: &[&str]) -> PathBuf {
    static SLOTS: OnceLock<BuildSlots> = OnceLock::new();
    let slot = {
        let mut slots = SLOTS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Arc::clone(slots.entry(out_name.clone()).or_default())
    };
    // A panicking build leaves the slot empty, so the next caller retries and
    // reports the compiler error too.
    slot.get_or_init(|| build(name, &out_name, extra_flags))
        .clone()
}

fn build(name: &str, out_name: &str, extra_flags: &[&str]) -> PathBuf {
    let src_dir = workspace_dir().join("testprogs");
    let (source, compiler) = ["c", "cc"]
        .iter()
        .map(|ext| src_dir.join(format!("{name}.{ext}")))
        .zip(["gcc", "g++"])
        .find(|(path, _)| path.is_file())
        .unwrap_or_else(|| panic!("no testprogs/{name}.c or testprogs/{name}.cc"));

    let out_dir = target_dir().join("testprogs");
    fs::create_dir_all(&out_dir).unwrap_or_else(|e| panic!("create {}: {e}", out_dir.display()));
    let output = out_dir.join(out_name);
    let stamp = out_dir.join(format!("{out_name}.cmd"));

    let mut flags: Vec<&str> = BASE_FLAGS.to_vec();
    flags.extend_from_slice(extra_flags);
    // What the output was built from and how; a changed flag forces a rebuild.
    let recipe = format!("{compiler} {} {}\n", flags.join(" "), source.display());

    if up_to_date(&output, &stamp, &recipe, &source, &src_dir) {
        return output;
    }

    // Unique per process and per build, so concurrent builders never write
    // the same file; rename then replaces the output atomically.
    static BUILDS: AtomicUsize = AtomicUsize::new(0);
    let unique = format!(
        ".{out_name}.tmp.{}.{}",
        std::process::id(),
        BUILDS.fetch_add(1, Ordering::Relaxed)
    );
    let tmp_out = out_dir.join(&unique);
    let tmp_stamp = out_dir.join(format!("{unique}.cmd"));

    let result = Command::new(compiler)
        .args(&flags)
        .arg("-o")
        .arg(&tmp_out)
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("run {compiler}: {e}"));
    if !result.status.success() {
        let _ = fs::remove_file(&tmp_out);
        panic!(
            "{compiler} failed for {} ({}):\n{}",
            source.display(),
            result.status,
            String::from_utf8_lossy(&result.stderr)
        );
    }
    let rename = |from: &Path, to: &Path| {
        fs::rename(from, to)
            .unwrap_or_else(|e| panic!("rename {} -> {}: {e}", from.display(), to.display()))
    };
    // Binary first, then the stamp: a reader that sees the new stamp also
    // sees the new binary; the reverse mismatch only causes a rebuild.
    rename(&tmp_out, &output);
    fs::write(&tmp_stamp, &recipe).unwrap_or_else(|e| panic!("write {}: {e}", tmp_stamp.display()));
    rename(&tmp_stamp, &stamp);
    output
}

/// The output exists, was built with `recipe`, and is newer than the source
/// and every header in `testprogs/`.
fn up_to_date(output: &Path, stamp: &Path, recipe: &str, source: &Path, src_dir: &Path) -> bool {
    let mtime = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(built) = mtime(output) else {
        return false;
    };
    if fs::read_to_string(stamp).ok().as_deref() != Some(recipe) {
        return false;
    }
    let newest_input = fs::read_dir(src_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("h" | "hh")))
        .chain([source.to_path_buf()])
        .filter_map(|p| mtime(&p))
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH);
    built > newest_input
}

/// Replaces run-to-run noise in tracer output with placeholders:
///
/// * `[pid 1234]` becomes `[pid PID]`;
/// * a leading pid column (`1234 ` at the start of a line, as `strace -f -o`
///   writes it) becomes `PID `;
/// * in `+++ ... +++` and `--- ... ---` lines, a number after `pid=` (as in
///   `si_pid=1234`) becomes `PID`;
/// * `Process 1234 attached` / `detached` (strace's messages) become
///   `Process PID ...`;
/// * hexadecimal addresses `0x` + at least six lowercase hex digits become
///   `0xADDR`.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        normalize_line(line, &mut out);
    }
    out
}

fn normalize_line(line: &str, out: &mut String) {
    let mut rest = line;

    // Leading pid column: digits then a space, then the event. Syscall names
    // never start with a digit, so this cannot eat a real event.
    let digits = leading_digits(rest);
    if digits > 0 && rest[digits..].starts_with(' ') {
        out.push_str(PID);
        rest = &rest[digits..];
    }

    let body = rest.trim_start_matches(' ');
    let marker_line = body.starts_with("+++") || body.starts_with("---");
    let mut pos = 0;
    while pos < rest.len() {
        let tail = &rest[pos..];
        if let Some(after) = tail.strip_prefix("[pid ") {
            let n = leading_digits(after.trim_start_matches(' '));
            let spaces = after.len() - after.trim_start_matches(' ').len();
            if n > 0 && after[spaces + n..].starts_with(']') {
                out.push_str("[pid ");
                out.push_str(PID);
                pos += "[pid ".len() + spaces + n;
                continue;
            }
        }
        let pid_prefix = if tail.starts_with("Process ") {
            Some("Process ")
        } else if marker_line && tail.starts_with("pid=") && word_start(rest, pos) {
            Some("pid=")
        } else {
            None
        };
        if let Some(prefix) = pid_prefix {
            let n = leading_digits(&tail[prefix.len()..]);
            if n > 0 {
                out.push_str(prefix);
                out.push_str(PID);
                pos += prefix.len() + n;
                continue;
            }
        }
        if tail.starts_with("0x") && word_start(rest, pos) {
            let hex = tail[2..]
                .bytes()
                .take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
                .count();
            let ends_word =
                !tail[2 + hex..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
            if hex >= 6 && ends_word {
                out.push_str(ADDR);
                pos += 2 + hex;
                continue;
            }
        }
        let c = tail.chars().next().expect("pos < len");
        out.push(c);
        pos += c.len_utf8();
    }
}

fn leading_digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// Whether `pos` in `s` is not preceded by a word character (or by `_`, as in
/// `si_pid=`, which counts as the start of the `pid` word).
fn word_start(s: &str, pos: usize) -> bool {
    match s[..pos].chars().next_back() {
        None => true,
        Some('_') => s[pos..].starts_with("pid"),
        Some(c) => !c.is_ascii_alphanumeric(),
    }
}
