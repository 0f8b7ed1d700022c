//! Dynamic events (uprobes, kprobes, event probes) in rtrace's own group, and the removal
//! of leftovers of an rtrace that was killed (`rtrace kernel cleanup`).

use super::tracefs::{quiesce_dir, Tracefs};
use std::fs;

/// Which definition file takes events of a kind: `dynamic_events` where the
/// kernel has it (4.17+), else the per-kind file.
fn def_file(top: &Tracefs, kprobe: bool) -> &'static str {
    if top.has("dynamic_events") {
        "dynamic_events"
    } else if kprobe {
        "kprobe_events"
    } else {
        "uprobe_events"
    }
}

/// Whether this kernel has kprobe events.
pub fn have_kprobes(top: &Tracefs) -> bool {
    top.has("kprobe_events")
}

/// The reason kprobes cannot be used here.
pub const NO_KPROBES: &str =
    "this kernel has no kprobes (CONFIG_KPROBES): k:/kr: and kernel p:/r: probes need it; \
     u:/ur: uprobes still work";

/// The events rtrace defined in its group; each is removed on drop.
pub struct DynGroup {
    top: Tracefs,
    group: String,
    /// (event name, the file it was defined in).
    events: Vec<(String, &'static str)>,
}

impl DynGroup {
    /// An empty group named `group`.
    pub fn new(top: &Tracefs, group: &str) -> DynGroup {
        DynGroup {
            top: top.clone(),
            group: group.to_string(),
            events: Vec::new(),
        }
    }

    /// The group name.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// Defines one event from a full definition (`p:GROUP/NAME PLACE ARGS`).
    /// `name` is the event name inside the group; `kprobe` picks the file.
    pub fn add(&mut self, name: &str, def: &str, kprobe: bool) -> Result<(), String> {
        if kprobe && !have_kprobes(&self.top) {
            return Err(NO_KPROBES.into());
        }
        self.define(name, def, def_file(&self.top, kprobe))
    }

    /// Defines one event probe (`e:GROUP/NAME SYSTEM.EVENT ARGS`); only
    /// `dynamic_events` takes them. Fails where the kernel has no event
    /// probes (CONFIG_EPROBE_EVENTS), with the kernel's error.
    pub fn add_eprobe(&mut self, name: &str, def: &str) -> Result<(), String> {
        if !self.top.has("dynamic_events") {
            return Err("this kernel has no dynamic_events file (needs Linux 4.17+)".into());
        }
        self.define(name, def, "dynamic_events")
    }

    fn define(&mut self, name: &str, def: &str, file: &'static str) -> Result<(), String> {
        self.top.append(file, &format!("{def}\n"))?;
        self.events.push((name.to_string(), file));
        Ok(())
    }

    /// The `events/` path of one of the group's events.
    pub fn event_dir(&self, name: &str) -> String {
        format!("events/{}/{name}", self.group)
    }
}

impl Drop for DynGroup {
    fn drop(&mut self) {
        for (name, file) in self.events.drain(..).rev() {
            if let Err(e) = self.top.append(file, &format!("-:{}/{name}\n", self.group)) {
                eprintln!("rtrace: {e}");
            }
        }
    }
}

/// Whether the rtrace process `pid` is still running.
/// Whether `pid` is a live rtrace tool (`rtrace`, `rltrace -c --backend
/// kernel` or `rstrace`), whose dynamic events are in use.
fn rtrace_alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/comm"))
        .is_ok_and(|c| matches!(c.trim(), "rtrace" | "rltrace" | "rstrace"))
}

fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    name.strip_prefix(prefix)?.parse().ok()
}

/// Removes an instance directory: `Ok(false)` when it was already gone.
/// EBUSY (a file of it still open, e.g. by a concurrent cleanup that is
/// quiescing it) is retried for a while.
fn remove_instance_dir(dir: &std::path::Path) -> std::io::Result<bool> {
    let mut tries = 0;
    loop {
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(true),
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENODEV)) => {
                return Ok(false)
            }
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => return Err(e),
        }
    }
}

/// What `cleanup` removed.
#[derive(Debug, Default)]
pub struct Cleaned {
    /// Instances removed.
    pub instances: Vec<String>,
    /// Dynamic events removed (`group/name`).
    pub events: Vec<String>,
    /// Things that could not be removed, with the reason.
    pub failed: Vec<String>,
}

/// Removes the instances and dynamic events of rtrace processes that are no
/// longer running (all of rtrace's when `all`).
pub fn cleanup(top: &Tracefs, all: bool) -> Cleaned {
    let mut out = Cleaned::default();
    let stale = |pid: u32| all || !rtrace_alive(pid);
    if let Ok(dir) = fs::read_dir(top.path("instances")) {
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if owner_pid(&name, "rtrace-").is_some_and(stale) {
                quiesce_dir(&Tracefs::at(e.path()));
                match remove_instance_dir(&e.path()) {
                    Ok(true) => out.instances.push(name),
                    Ok(false) => {} // a concurrent cleanup removed it
                    Err(err) => out.failed.push(format!("instance {name}: {err}")),
                }
            }
        }
    }
    // Events may be defined in either file; dynamic_events lists all kinds.
    for file in ["dynamic_events", "uprobe_events", "kprobe_events"] {
        let Ok(text) = top.read(file) else { continue };
        for line in text.lines() {
            let Some(id) = line
                .split_whitespace()
                .next()
                .and_then(|t| t.split_once(':'))
                .map(|(_, id)| id)
            else {
                continue;
            };
            let Some((group, name)) = id.split_once('/') else {
                continue;
            };
            if !owner_pid(group, "rtrace_").is_some_and(stale) || out.events.iter().any(|e| e == id)
            {
                continue;
            }
            match top.append(file, &format!("-:{group}/{name}\n")) {
                Ok(()) => out.events.push(id.to_string()),
                // A concurrent cleanup may have removed it first.
                Err(_) if !top.read(file).unwrap_or_default().contains(id) => {}
                Err(err) => out.failed.push(err),
            }
        }
    }
    out
}
