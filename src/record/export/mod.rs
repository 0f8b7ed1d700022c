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

use crate::record::cli::{self, ExportArgs};
use crate::tracefile::Recording;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Chrome,
    Folded,
    Flamegraph,
}

/// Runs `rtrace export`, parsed by clap; returns the exit code (0 done, 2
/// error).
pub fn main(o: ExportArgs) -> i32 {
    let format = match (o.format, o.folded) {
        (Some(cli::Format::Chrome), _) => Format::Chrome,
        (Some(cli::Format::Flamegraph), _) => Format::Flamegraph,
        _ => Format::Folded,
    };
    let weight = match o.weight {
        cli::Weight::Count => folded::Weight::Count,
        cli::Weight::Time => folded::Weight::Time,
    };
    if weight == folded::Weight::Time && format == Format::Chrome {
        eprintln!("rtrace export: --weight applies to folded and flamegraph only");
        return 2;
    }
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
    if rec.header.is_null() && rec.events.is_empty() {
        eprintln!(
            "rtrace export: {}: no events (not a trace file?)",
            o.input.display()
        );
        return 2;
    }
    let text = match format {
        Format::Chrome => chrome::chrome(&rec).to_string() + "\n",
        Format::Folded | Format::Flamegraph => {
            let (stacks, real) = folded::folded(&rec, weight);
            if !real {
                eprintln!(
                    "rtrace export: no stacks in {} (record with -k); using program;syscall",
                    o.input.display()
                );
            }
            if format == Format::Folded {
                folded::to_text(&stacks)
            } else {
                let unit = if weight == folded::Weight::Time {
                    "ns"
                } else {
                    "calls"
                };
                let title = format!("rtrace: {}", o.input.display());
                svg::flamegraph(&stacks, &title, unit)
            }
        }
    };
    let written = match &o.output {
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
