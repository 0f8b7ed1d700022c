//! `rtrace kernel ftrace -f GLOB [-n GLOB] [--graph] [-p PID | -- CMD]`:
//! the function tracer in rtrace's instance, with filter, notrace and pid
//! selection, `function <-- caller` lines symbolised from /proc/kallsyms.

use super::cli::FtraceArgs;
use super::event::{Formats, KEvent};
use super::session;
use super::sink::{open_output, Sink};
use super::trace::{run_session, PidScope, Target};
use super::tracefs::{instance_name, Instance, Tracefs};
use crate::value::Value;

/// Kernel symbols sorted by address.
pub struct Kallsyms {
    syms: Vec<(u64, String)>,
}

impl Kallsyms {
    /// Parses /proc/kallsyms text (text symbols only).
    pub fn parse(text: &str) -> Kallsyms {
        let mut syms: Vec<(u64, String)> = text
            .lines()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                let addr = u64::from_str_radix(it.next()?, 16).ok()?;
                let ty = it.next()?;
                let name = it.next()?;
                (addr != 0 && matches!(ty, "t" | "T" | "w" | "W")).then(|| (addr, name.to_string()))
            })
            .collect();
        syms.sort_unstable();
        Kallsyms { syms }
    }

    /// `name+0xoff` for `addr`.
    pub fn name(&self, addr: u64) -> Option<String> {
        let i = self
            .syms
            .partition_point(|(a, _)| *a <= addr)
            .checked_sub(1)?;
        let (a, n) = &self.syms[i];
        Some(if *a == addr {
            n.clone()
        } else {
            format!("{n}+{:#x}", addr - a)
        })
    }
}

/// Replaces kernel addresses (`ip`, `parent_ip`) by `symbol+offset`.
pub fn symbolize(ev: &mut KEvent, ks: &Kallsyms) {
    for (_, v) in ev.fields.iter_mut() {
        if let Value::UInt(a) = *v {
            if let Some(n) = ks.name(a) {
                *v = Value::sym_owned(n);
            }
        }
    }
}

/// `rtrace kernel ftrace ARGS`.
pub fn main(a: FtraceArgs) -> Result<i32, String> {
    let filters = a.functions;
    let target = Target::new(a.pids, a.cmd)?;
    let mode = super::cli::mode(a.count, a.by, None);
    let out = open_output(a.output.as_deref())?;
    let top = Tracefs::open()?;
    let tracers = top.read("available_tracers")?;
    let tracer = if a.graph {
        if !tracers.split_whitespace().any(|t| t == "function_graph") {
            return Err(
                "this kernel has no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER)".into(),
            );
        }
        "function_graph"
    } else {
        "function"
    };
    if !tracers.split_whitespace().any(|t| t == "function") {
        return Err("this kernel has no function tracer (CONFIG_FUNCTION_TRACER)".into());
    }
    if tracer == "function_graph" {
        return Err(
            "function_graph output is not decoded yet (funcgraph_entry/exit records)".into(),
        );
    }
    let ks = Kallsyms::parse(&std::fs::read_to_string("/proc/kallsyms").unwrap_or_default());
    let mut formats = Formats::new(&top);
    formats.load("ftrace", "function")?;
    session::install_signals();
    let inst = Instance::create(&top, &instance_name(std::process::id()))?;
    let denied = |e: String| {
        if e.contains("Operation not permitted") {
            format!(
                "{e}\nthe kernel refuses the function tracer's control files (ftrace disabled \
                 at run time, or a security policy / lockdown forbids it)"
            )
        } else {
            e
        }
    };
    let fs = inst.fs();
    fs.write("set_ftrace_filter", &filters.join(" "))
        .map_err(|e| {
            if e.contains("Invalid argument") {
                format!(
                    "no kernel function matches {filters:?} (see `rtrace kernel list functions`)"
                )
            } else {
                denied(e)
            }
        })?;
    let nots = a.notrace;
    if !nots.is_empty() {
        fs.write("set_ftrace_notrace", &nots.join(" "))
            .map_err(denied)?;
    }
    let mut sink = Sink::new(&top, mode, a.json, out);
    sink.set_hook(Box::new(move |ev| symbolize(ev, &ks)));
    let end = run_session(
        &top,
        &inst,
        &formats,
        &target,
        PidScope::Ftrace,
        &mut sink,
        |fs| fs.write("current_tracer", tracer).map_err(denied),
    );
    drop(sink);
    drop(inst);
    Ok(end?.code())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kallsyms_lookup() {
        let ks = Kallsyms::parse(
            "ffffffff81000000 T _stext\nffffffff81001000 t do_one\n0000000000000000 A zero\n\
             ffffffff81002000 D data_sym\nffffffff81003000 T later\n",
        );
        assert_eq!(ks.name(0xffffffff81001000).as_deref(), Some("do_one"));
        assert_eq!(ks.name(0xffffffff81001010).as_deref(), Some("do_one+0x10"));
        assert_eq!(
            ks.name(0xffffffff81002010).as_deref(),
            Some("do_one+0x1010")
        );
        assert_eq!(ks.name(0x10), None);
    }
}
