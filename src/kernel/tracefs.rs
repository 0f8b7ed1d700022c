//! Finding (or mounting) tracefs, reading and writing its control files, and
//! the RAII owners of what rtrace changes there: a private instance
//! (`instances/rtrace-PID`) and a dynamic-event group (`rtrace_PID`).
//!
//! Scope: tracefs only knows paths. Nothing here interprets events.
//!
//! Mounting: when tracefs is not mounted and rtrace runs as root, it mounts
//! it at `/sys/kernel/tracing` and leaves it mounted, as trace-cmd does — a
//! mount holds no tracing state, and unmounting it under a concurrent user
//! would break that user. Everything *inside* tracefs that rtrace creates is
//! removed again on every exit path.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where tracefs is mounted.
#[derive(Clone, Debug)]
pub struct Tracefs {
    root: PathBuf,
}

/// The usual mount point.
pub const DEFAULT_MOUNT: &str = "/sys/kernel/tracing";

fn mount_point(fstype: &str) -> Option<PathBuf> {
    let mounts = fs::read_to_string("/proc/self/mounts").ok()?;
    mounts.lines().find_map(|l| {
        let mut it = l.split_whitespace();
        let (_dev, dir, ty) = (it.next()?, it.next()?, it.next()?);
        (ty == fstype).then(|| PathBuf::from(dir.replace("\\040", " ")))
    })
}

impl Tracefs {
    /// Finds tracefs (mounted tracefs, then debugfs's `tracing`), mounting it
    /// at [`DEFAULT_MOUNT`] when it is absent and rtrace runs as root.
    pub fn open() -> Result<Tracefs, String> {
        if let Some(dir) = mount_point("tracefs") {
            return Ok(Tracefs { root: dir });
        }
        if let Some(dir) = mount_point("debugfs") {
            let t = dir.join("tracing");
            if t.join("trace").exists() {
                return Ok(Tracefs { root: t });
            }
        }
        if crate::sys::euid() != 0 {
            return Err(format!(
                "tracefs is not mounted and rtrace is not root: run as root (or with \
                 CAP_PERFMON/CAP_SYS_ADMIN after `mount -t tracefs nodev {DEFAULT_MOUNT}`)"
            ));
        }
        if let Err(e) = crate::sys::mount(c"nodev", c"/sys/kernel/tracing", c"tracefs") {
            // A concurrent rtrace may have mounted it meanwhile.
            if let Some(dir) = mount_point("tracefs") {
                return Ok(Tracefs { root: dir });
            }
            return Err(format!(
                "cannot mount tracefs at {DEFAULT_MOUNT}: {e} (is CONFIG_TRACING set? try \
                 `mount -t tracefs nodev {DEFAULT_MOUNT}`)"
            ));
        }
        Ok(Tracefs {
            root: PathBuf::from(DEFAULT_MOUNT),
        })
    }

    /// A tracefs rooted at `root` (tests, instances).
    pub fn at(root: PathBuf) -> Tracefs {
        Tracefs { root }
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `root/rel`.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Whether `rel` exists.
    pub fn has(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// The contents of `rel`.
    pub fn read(&self, rel: &str) -> Result<String, String> {
        fs::read_to_string(self.path(rel)).map_err(|e| format!("{}: {e}", self.path(rel).display()))
    }

    /// Writes `s` to `rel` (truncating, as `echo s > rel`).
    pub fn write(&self, rel: &str, s: &str) -> Result<(), String> {
        self.write_mode(rel, s, false)
    }

    /// Appends `s` to `rel` (as `echo s >> rel`; for event definition files).
    pub fn append(&self, rel: &str, s: &str) -> Result<(), String> {
        self.write_mode(rel, s, true)
    }

    fn write_mode(&self, rel: &str, s: &str, append: bool) -> Result<(), String> {
        let p = self.path(rel);
        let res = OpenOptions::new()
            .write(true)
            .append(append)
            .truncate(!append)
            .open(&p)
            .and_then(|mut f| f.write_all(s.as_bytes()));
        res.map_err(|e| {
            let mut msg = format!("writing '{}' to {}: {e}", s.trim_end(), p.display());
            if let Some(log) = self.last_error_log() {
                msg.push_str("\n  kernel says: ");
                msg.push_str(&log);
            }
            msg
        })
    }

    /// The last entry of the global `error_log`, if any (read-only).
    pub fn last_error_log(&self) -> Option<String> {
        let text = fs::read_to_string(self.path("error_log")).ok()?;
        let start = text.rfind("\n[").map(|i| i + 1).unwrap_or(0);
        let last = text[start..].trim();
        (!last.is_empty()).then(|| last.replace('\n', "\n  "))
    }

    /// Number of possible CPUs with a ring buffer (`per_cpu/cpuN`).
    pub fn cpus(&self) -> Vec<u32> {
        let mut v: Vec<u32> = fs::read_dir(self.path("per_cpu"))
            .map(|d| {
                d.filter_map(|e| {
                    e.ok()?
                        .file_name()
                        .to_str()?
                        .strip_prefix("cpu")?
                        .parse()
                        .ok()
                })
                .collect()
            })
            .unwrap_or_default();
        v.sort_unstable();
        v
    }
}

/// The name of rtrace's private instance for process `pid`.
pub fn instance_name(pid: u32) -> String {
    format!("rtrace-{pid}")
}

/// The name of rtrace's dynamic-event group for process `pid`.
pub fn group_name(pid: u32) -> String {
    format!("rtrace_{pid}")
}

/// A private tracing instance; removed on drop (after disabling what it
/// enabled, so the kernel lets it go).
pub struct Instance {
    top: Tracefs,
    name: String,
    fs: Tracefs,
}

impl Instance {
    /// Creates `instances/NAME`.
    pub fn create(top: &Tracefs, name: &str) -> Result<Instance, String> {
        let dir = top.path("instances").join(name);
        if !top.has("instances") {
            return Err("this kernel's tracefs has no instances/ (needs Linux 3.10+)".into());
        }
        fs::create_dir(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        Ok(Instance {
            top: top.clone(),
            name: name.to_string(),
            fs: Tracefs::at(dir),
        })
    }

    /// The instance's own files.
    pub fn fs(&self) -> &Tracefs {
        &self.fs
    }

    /// The instance's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Stops everything the instance traces (events, tracer) without removing it.
    pub fn quiesce(&self) {
        quiesce_dir(&self.fs);
    }
}

/// Disables tracing, all events and the tracer of an instance directory.
pub(crate) fn quiesce_dir(fs: &Tracefs) {
    let _ = fs.write("tracing_on", "0");
    let _ = fs.write("events/enable", "0");
    if fs.read("current_tracer").is_ok_and(|t| t.trim() != "nop") {
        let _ = fs.write("current_tracer", "nop");
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        quiesce_dir(&self.fs);
        let dir = self.top.path("instances").join(&self.name);
        // rmdir fails with EBUSY while a file of the instance is open; the
        // owners of readers drop them first. Retry briefly for a reader
        // closed by another thread.
        for _ in 0..50 {
            match fs::remove_dir(&dir) {
                Ok(()) => return,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                Err(e) => {
                    eprintln!("rtrace: removing {}: {e}", dir.display());
                    return;
                }
            }
        }
        eprintln!(
            "rtrace: {} is busy; remove it with `rtrace kernel cleanup`",
            dir.display()
        );
    }
}
