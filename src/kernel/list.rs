//! `rtrace kernel list [events|functions|tracers|probes] [GLOB]` and
//! `rtrace kernel cleanup`.

use super::cli::ListWhat;
use super::dynevent::{cleanup, have_kprobes};
use super::trace::list_dir;
use super::tracefs::Tracefs;
use crate::symbols::glob_match;
use std::io::Write;

/// `rtrace kernel list WHAT [GLOB]`.
pub fn main(what: ListWhat, glob: &str) -> Result<i32, String> {
    let top = Tracefs::open()?;
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let mut emit = |s: &str| -> bool { writeln!(out, "{s}").is_ok() };
    match what {
        ListWhat::Events => {
            for s in list_dir(&top.path("events")) {
                for e in list_dir(&top.path(&format!("events/{s}"))) {
                    let name = format!("{s}:{e}");
                    if glob_match(glob, &name) && !emit(&name) {
                        return Ok(0);
                    }
                }
            }
        }
        ListWhat::Functions => {
            let text = top.read("available_filter_functions").map_err(|e| {
                format!("{e}\n(the kernel refuses the function tracer's files: ftrace is disabled or locked down)")
            })?;
            for l in text.lines() {
                let name = l.split_whitespace().next().unwrap_or("");
                if glob_match(glob, name) && !emit(l) {
                    return Ok(0);
                }
            }
        }
        ListWhat::Tracers => {
            for t in top.read("available_tracers")?.split_whitespace() {
                if glob_match(glob, t) {
                    emit(t);
                }
            }
        }
        ListWhat::Probes => {
            let mut lines = Vec::new();
            if top.has("dynamic_events") {
                lines.extend(top.read("dynamic_events")?.lines().map(str::to_string));
            } else {
                lines.extend(top.read("uprobe_events")?.lines().map(str::to_string));
                if have_kprobes(&top) {
                    lines.extend(top.read("kprobe_events")?.lines().map(str::to_string));
                }
            }
            for l in lines {
                let id = l.split_whitespace().next().unwrap_or("");
                let id = id.split_once(':').map(|x| x.1).unwrap_or(id);
                if glob_match(glob, id) {
                    emit(&l);
                }
            }
        }
    }
    Ok(0)
}

/// `rtrace kernel cleanup [--all]`.
pub fn cleanup_main(all: bool) -> Result<i32, String> {
    let top = Tracefs::open()?;
    let c = cleanup(&top, all);
    for i in &c.instances {
        println!("removed instance {i}");
    }
    for e in &c.events {
        println!("removed event {e}");
    }
    for f in &c.failed {
        eprintln!("rtrace: could not remove {f}");
    }
    if c.instances.is_empty() && c.events.is_empty() && c.failed.is_empty() {
        println!("nothing to clean up");
    }
    Ok(if c.failed.is_empty() { 0 } else { 1 })
}
