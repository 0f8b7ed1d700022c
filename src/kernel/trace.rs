//! `rtrace kernel trace`: tracepoints in a private instance, with kernel
//! filters, per-pid selection, streaming or counting output. Also the
//! session runner that `probe` and `ftrace` share.

use super::cli::TraceArgs;
use super::dynevent::DynGroup;
use super::event::Formats;
use super::ringbuf::RawReader;
use super::session::{self, Child, End};
use super::sink::{open_output, Mode, Sink};
use super::strings::events_to_record;
use super::tracefs::{group_name, instance_name, Instance, Tracefs};
use crate::symbols::glob_match;
use std::ffi::OsString;

/// What a session traces besides its events: pids or a command.
pub struct Target {
    /// `-p` pids.
    pub pids: Vec<i32>,
    /// The command after `--`.
    pub cmd: Vec<OsString>,
}

impl Target {
    /// From `-p` pids and a command, which exclude each other.
    pub fn new(pids: Vec<i32>, cmd: Vec<OsString>) -> Result<Target, String> {
        let t = Target { pids, cmd };
        if !t.pids.is_empty() && !t.cmd.is_empty() {
            return Err("give -p PID or a command, not both".into());
        }
        // A pid that is gone would "trace" nothing and exit 0.
        if let Some(p) = t
            .pids
            .iter()
            .find(|p| !std::path::Path::new(&format!("/proc/{p}")).exists())
        {
            return Err(format!("pid {p}: No such process"));
        }
        Ok(t)
    }
}

/// Expands `SUBSYS:EVENT` specs (globs allowed, `/` accepted for `:`) to
/// the existing events.
pub fn resolve_events(top: &Tracefs, specs: &[String]) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for spec in specs.iter().flat_map(|s| s.split(',')) {
        let spec = spec.trim();
        let (sys, ev) = spec
            .split_once([':', '/'])
            .ok_or_else(|| format!("'{spec}': expected SUBSYSTEM:EVENT"))?;
        let mut found = false;
        for s in list_dir(&top.path("events")) {
            if !glob_match(sys, &s) {
                continue;
            }
            for e in list_dir(&top.path(&format!("events/{s}"))) {
                if glob_match(ev, &e) && top.has(&format!("events/{s}/{e}/format")) {
                    found = true;
                    if !out.iter().any(|(a, b)| *a == s && *b == e) {
                        out.push((s.clone(), e));
                    }
                }
            }
        }
        if !found {
            return Err(format!(
                "no tracepoint matches '{spec}' (see `rtrace kernel list events`)"
            ));
        }
    }
    Ok(out)
}

/// The entries of a directory, sorted.
pub fn list_dir(p: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(p)
        .map(|d| {
            d.filter_map(|e| {
                let e = e.ok()?;
                e.file_type()
                    .ok()?
                    .is_dir()
                    .then(|| e.file_name().to_string_lossy().into_owned())
            })
            .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// How a session limits events to the target's processes.
pub enum PidScope {
    /// `set_event_pid` (+ `options/event-fork`): tracepoints and probes.
    Events,
    /// `set_ftrace_pid` (+ `options/function-fork`): the function tracer.
    Ftrace,
}

/// Runs one session in `inst`: sets the pid scope, spawns the command,
/// calls `enable`, reads until the end, then disables everything. The
/// caller drops `inst` (and its dynamic events) afterwards.
pub fn run_session(
    top: &Tracefs,
    inst: &Instance,
    formats: &Formats,
    target: &Target,
    scope: PidScope,
    sink: &mut Sink,
    enable: impl FnOnce(&Tracefs) -> Result<(), String>,
) -> Result<End, String> {
    let fs = inst.fs();
    let mut child = if target.cmd.is_empty() {
        None
    } else {
        Some(Child::spawn(&target.cmd)?)
    };
    // Event pid filters match thread ids: every thread of an attached
    // process, not only its leader (event-fork covers later ones).
    let mut pids: Vec<i32> = target
        .pids
        .iter()
        .flat_map(|&p| match crate::engine::tracer::list_threads(p) {
            t if t.is_empty() => vec![p],
            t => t,
        })
        .collect();
    if let Some(c) = &child {
        pids.push(c.pid);
    }
    if !pids.is_empty() {
        let (file, opt) = match scope {
            PidScope::Events => ("set_event_pid", "options/event-fork"),
            PidScope::Ftrace => ("set_ftrace_pid", "options/function-fork"),
        };
        fs.write(opt, "1")?;
        let list: Vec<String> = pids.iter().map(|p| p.to_string()).collect();
        fs.write(file, &list.join(" "))?;
    }
    let mut reader = RawReader::open(top, fs)?;
    enable(fs)?;
    fs.write("tracing_on", "1")?;
    match child.as_mut() {
        Some(c) => c.release()?,
        None => eprintln!("rtrace: tracing; Ctrl-C to stop"),
    }
    let watch: Vec<i32> = if child.is_some() {
        Vec::new()
    } else {
        target.pids.clone()
    };
    let end = session::read_loop(&mut reader, formats, child.as_mut(), &watch, sink);
    inst.quiesce();
    // What was committed before tracing stopped.
    let end = end.and_then(|e| {
        if e != End::Stopped {
            reader.drain(|cpu, ts, rec| {
                if let Some(ev) = formats.decode(cpu, ts, rec) {
                    sink.event(ev);
                }
            })?;
        }
        Ok(e)
    });
    sink.flush();
    sink.finish(reader.missed);
    drop(reader);
    if let (Ok(End::Signal(_)), Some(c)) = (&end, child.as_ref()) {
        // A launched command does not outlive rtrace's own interruption.
        let _ = crate::sys::process::kill(c.pid, libc::SIGTERM);
    }
    end
}

/// `rtrace kernel trace ARGS`.
pub fn main(a: TraceArgs) -> Result<i32, String> {
    let specs = a.events;
    let mode = a.out.mode();
    let target = Target::new(a.out.pids, a.cmd)?;
    let out = open_output(a.out.output.as_deref())?;
    let top = Tracefs::open()?;
    let events = resolve_events(&top, &specs)?;
    let mut formats = Formats::new(&top);
    session::install_signals();
    let me = std::process::id();
    // Declared before the instance, so dropped after it (on `?` too): the
    // kernel keeps an event probe busy while the instance enables it.
    let mut group = DynGroup::new(&top, &group_name(me));
    let hint = matches!(mode, Mode::Stream | Mode::By(_));
    let enable = events_to_record(&events, &mut formats, a.strings, hint, &mut group)?;
    let inst = Instance::create(&top, &instance_name(me))?;
    let filter = a.filter;
    let mut sink = Sink::new(&top, mode, a.out.json, out);
    let end = run_session(
        &top,
        &inst,
        &formats,
        &target,
        PidScope::Events,
        &mut sink,
        |fs| {
            for (s, e) in &enable {
                if let Some(f) = &filter {
                    fs.write(&format!("events/{s}/{e}/filter"), f)
                        .map_err(|err| format!("filter '{f}' on {s}:{e}: {err}"))?;
                }
                fs.write(&format!("events/{s}/{e}/enable"), "1")?;
            }
            Ok(())
        },
    );
    drop(sink);
    drop(inst);
    drop(group);
    Ok(end?.code())
}
