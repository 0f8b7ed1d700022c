//! `rtrace export --format chrome|folded|flamegraph [--weight count|time]
//! [-o OUT] FILE`: turns a recording into something a viewer reads.
//!
//! - `chrome`: Chrome trace event JSON ([`chrome`]), for Perfetto,
//!   chrome://tracing and trace_processor;
//! - `folded`: folded stacks ([`folded`]) for flamegraph tools;
//! - `flamegraph`: an SVG flamegraph ([`svg`]) of the same stacks.

pub mod chrome;
pub mod folded;
pub mod svg;

use crate::tracefile::Recording;
use std::ffi::OsString;
use std::path::PathBuf;

const USAGE: &str =
    "usage: rtrace export --format chrome|folded|flamegraph [--weight count|time] [-o OUT] FILE";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Chrome,
    Folded,
    Flamegraph,
}

struct Opts {
    format: Format,
    weight: folded::Weight,
    out: Option<PathBuf>,
    input: PathBuf,
}

fn parse(args: &[OsString]) -> Result<Option<Opts>, String> {
    let (mut format, mut weight, mut out, mut input) = (None, folded::Weight::Count, None, None);
    let mut it = args.iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let value = |it: &mut dyn Iterator<Item = String>| {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or(format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--format" | "-f" => {
                format = Some(match value(&mut it)?.as_str() {
                    "chrome" | "perfetto" => Format::Chrome,
                    "folded" => Format::Folded,
                    "flamegraph" | "svg" => Format::Flamegraph,
                    other => return Err(format!("unknown format '{other}'")),
                })
            }
            "--folded" => format = Some(Format::Folded),
            "--weight" => {
                weight = match value(&mut it)?.as_str() {
                    "count" => folded::Weight::Count,
                    "time" => folded::Weight::Time,
                    other => return Err(format!("unknown weight '{other}' (count or time)")),
                }
            }
            "-o" | "--output" => out = Some(PathBuf::from(value(&mut it)?)),
            s if s.starts_with('-') && s != "-" => return Err(format!("unknown option '{s}'")),
            _ if input.is_some() => return Err("only one input file".into()),
            _ => input = Some(PathBuf::from(&a)),
        }
    }
    let format = format.ok_or("--format is required")?;
    if weight == folded::Weight::Time && format == Format::Chrome {
        return Err("--weight applies to folded and flamegraph only".into());
    }
    let input = input.ok_or("no input file")?;
    Ok(Some(Opts {
        format,
        weight,
        out,
        input,
    }))
}

/// Runs `rtrace export` with `args`; returns the exit code (0 done, 2 error).
pub fn main(args: &[OsString]) -> i32 {
    let o = match parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("rtrace export: {e}\n{USAGE}");
            return 2;
        }
    };
    let rec = match Recording::read(&o.input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("rtrace export: {}: {e}", o.input.display());
            return 2;
        }
    };
    if let Some(cut) = &rec.cut {
        eprintln!("rtrace export: warning: {}: {cut}", o.input.display());
    }
    let text = match o.format {
        Format::Chrome => chrome::chrome(&rec).to_string() + "\n",
        Format::Folded | Format::Flamegraph => {
            let (stacks, real) = folded::folded(&rec, o.weight);
            if !real {
                eprintln!(
                    "rtrace export: no stacks in {} (record with -k); using program;syscall",
                    o.input.display()
                );
            }
            if o.format == Format::Folded {
                folded::to_text(&stacks)
            } else {
                let unit = if o.weight == folded::Weight::Time {
                    "ns"
                } else {
                    "calls"
                };
                let title = format!("rtrace: {}", o.input.display());
                svg::flamegraph(&stacks, &title, unit)
            }
        }
    };
    let written = match &o.out {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(p, text.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))
        }
        _ => super::print_stdout(&text).map_err(|e| format!("stdout: {e}")),
    };
    match written {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rtrace export: {e}");
            2
        }
    }
}
